/**
 * `npm run retry -- <pipeline>` (status/retry.ts): the compiled CLI against the fake Kubernetes API (the pipeline's
 * Workflow, Failed after a refused create), with a stand-in `kubectl` whose `port-forward` serves argo-server's retry
 * endpoint on loopback (argoproj/argo-workflows v4.1.2 pkg/apiclient/workflow/workflow.proto `RetryWorkflow`: PUT
 * /api/v1/workflows/{namespace}/{name}/retry, body WorkflowRetryRequest; its answer the Workflow, an error
 * grpc-gateway's {"code", "message"}) and a stand-in `gcloud` printing the token. What Argo's retry then does is the
 * engine model's (__tests__/models/argo.test.ts "npm run retry ... resumes from train").
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { emptyWorld, FakeApi, jobSet, pipeline, runCli, startFakeApi, step, writeKubeconfig } from '../../bench/fake-kube-api';
import { ensureDist } from '../dist';

let api: FakeApi | undefined;
beforeAll(ensureDist);
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const qwen = pipeline('rl-qwen3');
const REFUSAL = 'main: Error (exit code 64): no more retries Error from server (InternalError): Internal error occurred: failed calling webhook "mjobset.kb.io"';

function workflow(phase: string | undefined) {
  const node = (displayName: string, p: string, message?: string) => ({ displayName, phase: p, type: 'Pod', ...(message ? { message } : {}) });
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'rl-qwen3-r1-0123456789', namespace: 'default', labels: { 'app.kubernetes.io/part-of': 'tpu-post-training', 'tpu-post-training/pipeline': 'rl-qwen3' }, creationTimestamp: '2026-12-01T00:00:00Z' },
    ...(phase
      ? { status: { phase, nodes: { a: node('to-maxtext', 'Succeeded'), b: node('to-maxtext-wait', 'Succeeded'), c: node('train', 'Failed', REFUSAL), d: node('train-wait', 'Failed', 'NotFound') } } }
      : {}),
  };
}

/** Stand-in kubectl and gcloud; the kubectl records the port-forward's arguments and the one request it served. */
function standIns(answer: { status: number; body: unknown }): { bin: string; record: string } {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-retry-'));
  const record = path.join(bin, 'record.json');
  fs.writeFileSync(
    path.join(bin, 'kubectl'),
    [
      `#!${process.execPath}`,
      "const http = require('http');",
      'const args = process.argv.slice(2);',
      'const server = http.createServer((req, res) => {',
      "  let body = '';",
      "  req.on('data', (c) => (body += c));",
      "  req.on('end', () => {",
      `    require('fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ args, method: req.method, url: req.url, authorization: req.headers.authorization, body: JSON.parse(body || 'null') }));`,
      `    res.writeHead(${answer.status}, { 'Content-Type': 'application/json' });`,
      `    res.end(${JSON.stringify(JSON.stringify(answer.body))});`,
      '  });',
      '});',
      "server.listen(0, '127.0.0.1', () => console.log(`Forwarding from 127.0.0.1:${server.address().port} -> 2746`));",
      "process.on('SIGTERM', () => process.exit(0));",
    ].join('\n'),
    { mode: 0o755 },
  );
  fs.writeFileSync(path.join(bin, 'gcloud'), '#!/bin/sh\necho ya29.user-token\n', { mode: 0o755 });
  return { bin, record };
}

async function retry(world: ReturnType<typeof emptyWorld>, answer: { status: number; body: unknown }, args: string[] = ['rl-qwen3']) {
  api = await startFakeApi(world);
  const { file, dir } = writeKubeconfig(api.url);
  const { bin, record } = standIns(answer);
  const r = await runCli(['retry', ...args], { KUBECONFIG: file, HOME: dir, PATH: `${bin}${path.delimiter}${process.env.PATH}` });
  return { ...r, request: fs.existsSync(record) ? JSON.parse(fs.readFileSync(record, 'utf8')) : undefined };
}

function failedWorld() {
  const w = emptyWorld();
  w.jobSets.push(jobSet(step(qwen, 'to-maxtext'), { terminalState: 'Completed' }));
  (w as any).workflows = [workflow('Failed')];
  return w;
}

test('a Failed Workflow: Argo\'s retry through the argo-server API with the caller\'s token; it says where the run resumes and what it keeps', async () => {
  const r = await retry(failedWorld(), { status: 200, body: { metadata: { name: 'rl-qwen3-r1-0123456789' }, status: { phase: 'Running' } } });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.request).toEqual({
    args: ['-n', 'default', 'port-forward', 'svc/argo-workflows-server', ':2746'],
    method: 'PUT',
    url: '/api/v1/workflows/default/rl-qwen3-r1-0123456789/retry',
    authorization: 'Bearer ya29.user-token',
    body: { name: 'rl-qwen3-r1-0123456789', namespace: 'default' },
  });
  expect(r.stdout).toBe(
    "rl-qwen3: retried Workflow rl-qwen3-r1-0123456789 (Argo's retry): it runs again from train; to-maxtext finished and is kept, not re-run\n" +
      'follow it with: npm run status -- rl-qwen3 --watch\n',
  );
}, 60_000);

test('the engine refuses (say RBAC): its message, exit 1', async () => {
  const r = await retry(failedWorld(), { status: 403, body: { code: 7, message: 'workflows.argoproj.io "rl-qwen3-r1-0123456789" is forbidden: User cannot update' } });
  expect(r.code).toBe(1);
  expect(r.stdout).toContain('rl-qwen3: the engine refused to retry Workflow rl-qwen3-r1-0123456789 (HTTP 403): workflows.argoproj.io "rl-qwen3-r1-0123456789" is forbidden');
}, 60_000);

test('nothing to retry: a running or never picked up Workflow, or none; the port-forward never starts', async () => {
  const running = emptyWorld();
  (running as any).workflows = [workflow('Running')];
  const r = await retry(running, { status: 200, body: {} });
  expect(r.code).toBe(3);
  expect(r.stdout).toBe('rl-qwen3: Workflow rl-qwen3-r1-0123456789 is Running: nothing to retry (Argo retries only a Failed or Error Workflow)\n');
  expect(r.request).toBeUndefined();
  await api?.close();
  const none = await retry({ ...emptyWorld(), workflows: [] } as never, { status: 200, body: {} });
  expect(none.stdout).toBe('rl-qwen3: no Workflow in namespace default: nothing to retry (npm run deploy -- rl-qwen3)\n');
}, 60_000);

test('usage: one pipeline this config builds', async () => {
  const r = await retry(failedWorld(), { status: 200, body: {} }, ['rl-qwen4']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("retry: no pipeline named 'rl-qwen4' in this config; pipelines: rl-qwen3, rl-gemma4, sft-gemma4");
  expect(r.stderr).toContain('usage: npm run retry -- <pipeline>');
}, 60_000);
