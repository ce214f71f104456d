/**
 * `npm run status -- rehearse-<pipeline>` (status/rehearsal.ts): the rehearsal's record, written by its stack into the
 * cluster (jobs/record.ts, with jobs/rehearsal.ts RehearsalFacts), read back by the compiled CLI from the fake API
 * server (bench/fake-kube-api.ts): which steps passed, the first failure with its log lines, the combination it proves
 * and what it cannot show. A new shell (no exports): everything comes from the cluster's record.
 */
import { loadDeployment } from '../../config/deployment';
import { emptyWorld, iso, jobSet, pod, recordMap, runCli, workload } from '../../bench/fake-kube-api';
import { REHEARSAL_CANNOT_SHOW, rehearsalKey } from '../../jobs/rehearsal';
import { fake, kubeconfig, useFakeApis } from './fake-api-harness';
import { useCliHost } from './cli-host';

useFakeApis();
useCliHost();

const ENV = { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation', REHEARSE: 'rl-qwen3' };
const d = loadDeployment({ env: ENV });
const rehearsal = d.pipelines.find((p) => p.name === 'rehearse-rl-qwen3')!;
const real = d.pipelines.find((p) => p.name === 'rl-qwen3')!;
const rec = d.records['rehearse-rl-qwen3']!;
const completed = (m: number) => ({ terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done', lastTransitionTime: iso(m) }] });
const TRACE = ['Traceback (most recent call last):', '  File "rewards/final_number.py", line 12, in reward', "TypeError: unsupported operand type(s) for +: 'int' and 'str'"];

/** to-maxtext completed; train failed at step 1 with a TypeError (or every step completed). */
function world(outcome: 'failed' | 'passed') {
  const w = emptyWorld();
  const [toMaxText, train, ...rest] = rehearsal.steps;
  w.jobSets.push(jobSet(toMaxText!, completed(5)));
  if (outcome === 'passed') {
    w.jobSets.push(jobSet(train!, completed(15)));
    for (const s of rest) w.jobSets.push(jobSet(s, completed(30)));
  } else {
    const js = jobSet(train!, { terminalState: 'Failed', conditions: [{ type: 'Failed', status: 'True', reason: 'FailJobSetFailurePolicyAction', message: 'first failed job: head', lastTransitionTime: iso(9) }] });
    w.jobSets.push(js);
    w.workloads.push(workload(js, true, { chips: 8 }));
    const main = pod(js, 'pathways-head', { phase: 'Failed', containerStatuses: [{ name: 'workload-container', state: { terminated: { exitCode: 1 } } }] });
    w.pods.push(main);
    w.logs[main.metadata.name] = TRACE.map((l) => `${iso(8)} ${l}`);
  }
  w.configMaps = [recordMap(rec, rehearsal.labels)];
  return w;
}

test('the record holds what the rehearsal proves: key, images, versions, model, method, revision, file hashes', () => {
  expect(rec.rehearsal).toMatchObject({
    of: 'rl-qwen3',
    key: rehearsalKey(real.recipe, real.images),
    model: 'qwen3-30b-a3b',
    hfRepo: real.model.hfRepo,
    method: 'rl',
    images: rehearsal.images,
    versions: { maxtext: '0.2.4', lmEval: '0.4.12', vllm: rehearsal.eval!.image },
    cannotShow: [...REHEARSAL_CANNOT_SHOW],
  });
});

test('a failed rehearsal: the steps that passed, the first failure with its log lines; exit 1', async () => {
  const api = await fake(world('failed'));
  const env = kubeconfig(api.url);
  const json = await runCli(['status', 'rehearse-rl-qwen3', '--json'], env);
  expect(json.code).toBe(1);
  const [p] = JSON.parse(json.stdout).pipelines;
  expect(p.rehearsal).toEqual({
    verdict: 'failed',
    key: rec.rehearsal!.key,
    of: 'rl-qwen3',
    passed: ['to-maxtext'],
    firstFailure: { step: 'train', reason: 'FailJobSetFailurePolicyAction: first failed job: head', lines: TRACE },
  });
  const text = await runCli(['status', 'rehearse-rl-qwen3'], env);
  expect(text.stdout).toContain(`rehearsal of rl-qwen3 FAILED at train (key ${rec.rehearsal!.key})`);
  expect(text.stdout).toContain("      TypeError: unsupported operand type(s) for +: 'int' and 'str'");
  expect(text.stdout).toContain('cannot show: HBM at full size');
});

test('a passing rehearsal: every step passed, the deploy command; exit 0', async () => {
  const api = await fake(world('passed'));
  const r = await runCli(['status', 'rehearse-rl-qwen3'], kubeconfig(api.url));
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`rehearsal of rl-qwen3 PASSED (key ${rec.rehearsal!.key}): every step ran on the cut model; \`npm run deploy -- rl-qwen3\` may spend the slice`);
  expect(r.stdout).toContain('steps passed: to-maxtext, train, to-hf, eval');
});

test('a rehearsal never deployed is "not deployed", not "running" (exit 3); status --help names rehearse-<pipeline>', async () => {
  const api = await fake(emptyWorld());
  const r = await runCli(['status', 'rehearse-rl-qwen3'], { ...kubeconfig(api.url), REHEARSE: 'rl-qwen3' });
  expect(r.code).toBe(3);
  expect(r.stdout).toContain(`rehearsal of rl-qwen3 not deployed (key ${rec.rehearsal!.key}): npm run deploy -- rehearse-rl-qwen3`);
  expect(r.stdout).not.toContain('rehearsal of rl-qwen3 running');
  const help = await runCli(['status', '--help'], kubeconfig(api.url));
  expect(help.stdout).toMatch(/^ {2}rehearse-<pipeline> a pipeline's rehearsal/m);
});

describe("the verdict record the rehearsal's Workflow writes to the bucket (jobs/rehearsal-record.ts), read back by status", () => {
  const { spawnSync } = require('child_process') as typeof import('child_process');
  const fs = require('fs') as typeof import('fs');
  const os = require('os') as typeof import('os');
  const path = require('path') as typeof import('path');
  const http = require('http') as typeof import('http');
  const { closeAfter, removeAfter } = require('./fake-api-harness') as typeof import('./fake-api-harness');
  const writer = rehearsal.verdictWriter!;

  /** The writer's own container run under python3 (a stand-in gcsfs keeps what it writes): the record's text. */
  function written(status: string, failures: unknown[] | null): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-verdict-status-'));
    removeAfter(dir);
    fs.writeFileSync(path.join(dir, 'gcsfs.py'), ['class GCSFileSystem:', '    def pipe(self, p, data):', `        open(${JSON.stringify(path.join(dir, 'out.json'))}, "wb").write(data)`].join('\n'));
    const c = (writer.manifest as any).spec.replicatedJobs[0].template.spec.template.spec.containers[0];
    // What the exit handler substitutes: workflow.status, and sprig.b64enc of workflow.failures (strconv.Quote'd JSON).
    const env = { WORKFLOW_STATUS: status, WORKFLOW_FAILURES_B64: Buffer.from(JSON.stringify(JSON.stringify(failures))).toString('base64') };
    const r = spawnSync(c.command[0], c.command.slice(1), { env: { PATH: process.env.PATH, HOME: dir, PYTHONPATH: dir, ...env }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    return fs.readFileSync(path.join(dir, 'out.json'), 'utf8');
  }

  async function fakeGcs(objects: Record<string, string>): Promise<string> {
    const server = http.createServer((req, res) => {
      const m = /^\/storage\/v1\/b\/([^/]+)\/o\/([^?]+)\?alt=media$/.exec(req.url ?? '');
      const key = m ? `gs://${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}` : '';
      if (objects[key] === undefined) return res.writeHead(404).end('{"error":{"code":404}}');
      return res.writeHead(200, { 'content-type': 'application/json' }).end(objects[key]);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closeAfter(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }
  function gcloudBin(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-gcloud-'));
    removeAfter(dir);
    fs.writeFileSync(path.join(dir, 'gcloud'), '#!/bin/sh\necho gcloud-token\n', { mode: 0o755 });
    return dir;
  }

  test('the record path is next to the export and in the cluster record; the writer is in the Workflow only of a rehearsal', () => {
    expect(writer.recordPath).toBe(`${rehearsal.paths.hfExportDir.replace(/\/$/, '')}.rehearsal.json`);
    expect(rec.rehearsal!.recordPath).toBe(writer.recordPath);
    expect(rec.rehearsal!.imagesPinnedBy).toBe('tag');
    expect(real.verdictWriter).toBeUndefined();
  });

  test("a failed run: status shows the Workflow's verdict, with the log lines it read from the cluster; exit 1", async () => {
    const text = written('Failed', [
      { displayName: 'to-maxtext', message: 'main: Error (exit code 64): AlreadyExists', templateName: 'to-maxtext', phase: 'Failed' },
      { displayName: 'train-wait', message: "main: Error (exit code 64): failure condition 'status.terminalState == Failed' evaluated true", templateName: 'train-wait', phase: 'Failed' },
    ]);
    const api = await fake(world('failed'));
    const env = { ...kubeconfig(api.url), PATH: `${gcloudBin()}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: await fakeGcs({ [writer.recordPath]: text }) };
    const json = await runCli(['status', 'rehearse-rl-qwen3', '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).pipelines[0].rehearsal).toEqual({
      verdict: 'failed',
      key: rec.rehearsal!.key,
      of: 'rl-qwen3',
      passed: ['to-maxtext'],
      firstFailure: { step: 'train', reason: "main: Error (exit code 64): failure condition 'status.terminalState == Failed' evaluated true", lines: TRACE },
    });
    const out = await runCli(['status', 'rehearse-rl-qwen3'], env);
    expect(out.stdout).toMatch(new RegExp(`verdict: written by the rehearsal's Workflow at \\d{4}-\\d\\d-\\d\\dT[\\d:]+\\+00:00 \\(${writer.recordPath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\)`));
    expect(out.stdout).toContain('images (by tag: a tag moved since the rehearsal is not detected): ');
  });

  /** The writer's record of a failed train with what its log reading left in it (jobs/rehearsal-record.ts VERDICT_WRITER; the reading itself: __tests__/models/verdict-log.test.ts). */
  function failedRecord(log: Record<string, unknown>): string {
    const r = JSON.parse(written('Failed', [{ displayName: 'train-wait', message: 'main: Error (exit code 64): failure condition', templateName: 'train-wait', phase: 'Failed' }]));
    const { linesMissing: _, ...rest } = r.firstFailure;
    return JSON.stringify({ ...r, firstFailure: { ...rest, ...log } });
  }
  /** train Failed, its pods gone (deleted with its JobSet's Jobs, or cleaned up): status has no lines of its own. */
  function podsGone() {
    const w = world('failed');
    w.pods = [];
    w.logs = {};
    return w;
  }

  test("the record's log lines show when the pods are gone: which pod and container they came from, what the bounds cut", async () => {
    const head = 'rh-rl-qwen3-r1-train-pathways-head-0-0-x7k2p';
    const text = failedRecord({ lines: TRACE, logFrom: { pod: head, container: 'workload-container', chosen: 'its workload-container exited non-zero' }, linesCut: '3 earlier lines left out (over 16000 characters)' });
    const api = await fake(podsGone());
    const env = { ...kubeconfig(api.url), PATH: `${gcloudBin()}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: await fakeGcs({ [writer.recordPath]: text }) };
    const json = await runCli(['status', 'rehearse-rl-qwen3', '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).pipelines[0].rehearsal.firstFailure).toEqual({
      step: 'train',
      reason: 'main: Error (exit code 64): failure condition',
      lines: TRACE,
      logFrom: { pod: head, container: 'workload-container', chosen: 'its workload-container exited non-zero' },
      linesCut: '3 earlier lines left out (over 16000 characters)',
    });
    const out = await runCli(['status', 'rehearse-rl-qwen3'], env);
    expect(out.stdout).toMatch(new RegExp(` first failure, last lines of train \\(${head}/workload-container\\):\\n +\\(3 earlier lines left out \\(over 16000 characters\\)\\)\\n +Traceback \\(most recent call last\\):\\n`));
    expect(out.stdout).toContain("    TypeError: unsupported operand type(s) for +: 'int' and 'str'");
  });

  test('a record whose writer could not read the log, pods gone: status says why there are no lines', async () => {
    const text = failedRecord({ lines: [], linesMissing: 'HTTP 403 from /api/v1/namespaces/default/pods/x/log: forbidden' });
    const api = await fake(podsGone());
    const env = { ...kubeconfig(api.url), PATH: `${gcloudBin()}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: await fakeGcs({ [writer.recordPath]: text }) };
    const out = await runCli(['status', 'rehearse-rl-qwen3'], env);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(' first failure, no log lines: HTTP 403 from /api/v1/namespaces/default/pods/x/log: forbidden');
  });

  test('a record with lines that are not text is not a record of this rehearsal', () => {
    const { rehearsalRecordFromJson } = require('../../jobs/rehearsal-record') as typeof import('../../jobs/rehearsal-record');
    expect(rehearsalRecordFromJson(failedRecord({ lines: TRACE }), rec.rehearsal!)).toBeDefined();
    expect(rehearsalRecordFromJson(failedRecord({ lines: [1, 2] }), rec.rehearsal!)).toBeUndefined();
  });

  test('the record decides over the steps: a Succeeded Workflow reads passed though the JobSets were already cleaned away', async () => {
    const api = await fake(Object.assign(emptyWorld(), { configMaps: [recordMap(rec, rehearsal.labels)] }));
    const env = { ...kubeconfig(api.url), PATH: `${gcloudBin()}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: await fakeGcs({ [writer.recordPath]: written('Succeeded', null) }) };
    const json = await runCli(['status', 'rehearse-rl-qwen3', '--json'], env);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).pipelines[0].rehearsal).toMatchObject({ verdict: 'passed', passed: ['to-maxtext', 'train', 'to-hf', 'eval'] });
  });

  test('no record yet: the verdict is computed from the steps, and says so; a record of another combination is not used', async () => {
    const api = await fake(world('passed'));
    const other = written('Failed', null).replace(rec.rehearsal!.key, '000000000000');
    for (const objects of [{}, { [writer.recordPath]: other }]) {
      const env = { ...kubeconfig(api.url), PATH: `${gcloudBin()}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: await fakeGcs(objects) };
      const r = await runCli(['status', 'rehearse-rl-qwen3'], env);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`rehearsal of rl-qwen3 PASSED (key ${rec.rehearsal!.key})`);
      expect(r.stdout).toContain(`verdict: computed from the steps (record ${writer.recordPath} ${Object.keys(objects).length ? 'not of this rehearsal' : 'not written yet'})`);
    }
  });
});
