/**
 * `npm run status` prints the console link of infra's Cloud Monitoring dashboard (jobs/dashboard.ts) under its header:
 * the compiled CLI against the fake Kubernetes API (bench/fake-kube-api.ts), no extra request.
 */
import { allPipelinesWorld, FakeApi, platform, runCliOn, startFakeApi } from '../../bench/fake-kube-api';
import { dashboardUrl } from '../../jobs/dashboard';
import { ensureDist } from '../dist';
import { useCliHost } from './cli-host';

let api: FakeApi | undefined;
beforeAll(ensureDist);
useCliHost();
afterAll(async () => api?.close());

test('the second line is the dashboard link of the cluster the records name; the poll makes no other request', async () => {
  api = await startFakeApi(allPipelinesWorld());
  const { stdout } = await runCliOn(api.url, ['status']);
  const lines = stdout.split('\n');
  expect(lines[0]).toMatch(/^cluster /);
  expect(lines[1]).toBe(`dashboard ${dashboardUrl(platform.project, platform.clusterName)}`);
  expect(lines.filter((l) => l.startsWith('dashboard '))).toHaveLength(1);
  expect(api.requests.every((r) => !r.path.includes('monitoring'))).toBe(true);
});

test('--json prints no dashboard line (one JSON document)', async () => {
  await api?.close();
  api = await startFakeApi(allPipelinesWorld());
  const { stdout } = await runCliOn(api.url, ['status', '--json']);
  expect(stdout.startsWith('{"pipelines":')).toBe(true);
  expect(stdout).not.toContain('dashboard https://');
});
