/**
 * Issue 24 item 9: `npm run status` / `npm run logs` end within their deadline with the right cause, leave no process
 * behind, and redact log lines in linear time and bounded memory. The compiled CLI in a child process, the real
 * @kubernetes/client-node, the fake API server of bench/fake-kube-api.ts.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Readable, Writable } from 'stream';
import { pipeline as pipe } from 'stream/promises';
import { emptyWorld, jobSet, pipeline, pod, running, runCli, step, workload } from '../../bench/fake-kube-api';
import { MAX_LOG_LINE_CHARS, redactLines } from '../../status/redact-stream';
import { fake, kubeconfig, removeAfter, useFakeApis } from './fake-api-harness';

const CANARY = 'hf_' + 'CANARYdeadline0123456789abcdef';

useFakeApis();

/** rl-qwen3's conversion step running, with a log that carries the canary. */
function convertingWorld() {
  const w = emptyWorld();
  const js = jobSet(step(pipeline('rl-qwen3'), 'to-maxtext'), {});
  w.jobSets.push(js);
  w.workloads.push(workload(js, true));
  const p = pod(js, 'convert', running(5));
  w.pods.push(p);
  w.logs[p.metadata.name] = [`2026-12-01T06:00:00Z login with ${CANARY}`, '2026-12-01T06:00:01Z converting'];
  return w;
}

test('logs without -f: headers, then silence: ends at the request timeout, exit 4, saying so', async () => {
  const api = await fake(convertingWorld());
  // Only the log read itself misbehaves (the status lists and the has-a-log probe answer).
  api.misbehave = (req) => (req.path.endsWith('/log') && req.query.tailLines === undefined ? 'headers' : undefined);
  const r = await runCli(['logs', 'rl-qwen3', 'to-maxtext', '--timeout', '1'], kubeconfig(api.url));
  expect(r.code).toBe(4);
  expect(r.stdout).toContain('the first line, then silence');
  expect(r.stderr).toContain('no answer within 1 s (log: the server sent headers, then nothing)');
  expect(r.stdout + r.stderr).not.toContain('CANARY');
}, 20_000);

test('logs without -f of a whole log: exit 0, the canary redacted', async () => {
  const api = await fake(convertingWorld());
  const r = await runCli(['logs', 'rl-qwen3', 'to-maxtext', '--timeout', '5'], kubeconfig(api.url));
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('login with hf_…(redacted)');
  expect(r.stdout + r.stderr).not.toContain('CANARY');
}, 20_000);

test('a hung credential plugin: run once for all parallel requests, killed at the deadline, blamed (not the allow-list)', async () => {
  const api = await fake(convertingWorld());
  const pids = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-pids-'));
  removeAfter(pids);
  const plugin = `require('fs').writeFileSync(${JSON.stringify(pids)} + '/' + process.pid, ''); setTimeout(() => {}, 600000);\n`;
  const r = await runCli(['status', 'rl-qwen3', '--timeout', '1'], kubeconfig(api.url, { plugin }));
  expect(r.code).toBe(4);
  expect(r.stderr).toMatch(/the credential plugin '.*' gave no answer within 1 s \(killed\)/);
  expect(r.stderr).not.toContain('allow-list');
  const started = fs.readdirSync(pids).map(Number);
  expect(started).toHaveLength(1);
  // Running or sleeping; a killed child whose parent exited may stay a zombie (state Z) until PID 1 reaps it.
  const alive = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  expect(started.filter(alive)).toEqual([]);
  expect(api.requests).toHaveLength(0);
}, 20_000);

test('a working plugin runs once for the whole poll (four list calls and the logs)', async () => {
  const api = await fake(convertingWorld());
  const pids = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-pids-'));
  removeAfter(pids);
  const plugin = `require('fs').writeFileSync(${JSON.stringify(pids)} + '/' + process.pid, ''); process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: 'fake-exec-token', expirationTimestamp: '2099-01-01T00:00:00Z' } }));\n`;
  const r = await runCli(['status', 'rl-qwen3', '--json'], kubeconfig(api.url, { plugin }));
  expect(r.code).toBe(3);
  expect(api.requests.length).toBeGreaterThanOrEqual(4);
  expect(fs.readdirSync(pids)).toHaveLength(1);
  expect(r.stdout + r.stderr).not.toContain('CANARY');
}, 20_000);

test('a malformed object is the server answering wrongly (exit 4 naming it), not "no route to the control plane"', async () => {
  const api = await fake(convertingWorld());
  api.misbehave = (req) => (req.path.endsWith('/pods') ? { code: 200, body: JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [{ metadata: { name: 'p', labels: 7 }, spec: { containers: 'x' }, status: { containerStatuses: 5 } }] }) } : undefined);
  const r = await runCli(['status', 'rl-qwen3', '--timeout', '5'], kubeconfig(api.url));
  expect(r.stderr).not.toContain('no route');
  expect(r.stderr).toMatch(/not a Kubernetes (object|list|API response)/);
  expect(r.code).toBe(4);
}, 20_000);

describe('the log line redactor', () => {
  async function through(chunks: Iterable<string>, maxLine?: number): Promise<string> {
    let out = '';
    await pipe(Readable.from(chunks), redactLines(maxLine), new Writable({ write: (c, _e, done) => ((out += String(c)), done()) }));
    return out;
  }

  test('a 32 MB line in 64 KB chunks: one bounded line, with a note, and a token across the cut redacted whole', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const head = 'y'.repeat(MAX_LOG_LINE_CHARS - 10) + CANARY; // the cut falls inside the token
    function* gen() {
      yield head;
      for (let i = 0; i < 512; i++) yield chunk;
      yield '\nnext line\n';
    }
    const out = await through(gen());
    const [first, second] = out.split('\n');
    expect(first!.length).toBeLessThan(MAX_LOG_LINE_CHARS + 100);
    expect(first).toMatch(/… \(line cut: \d+ more characters left out\)$/);
    expect(out).not.toContain('CANARY');
    expect(out).not.toContain('hf_CANA');
    expect(second).toBe('next line');
  }, 60_000);

  test('lines split over chunks, a multi-byte character split over two, a private key over lines, no final newline', async () => {
    const euro = Buffer.from('€');
    const out = await through([`a ${CANARY.slice(0, 10)}`, `${CANARY.slice(10)} b\n-----BEGIN PRIVATE KEY-----\nMIIE\n`, '-----END PRIVATE KEY-----\nok ', 'end'] as string[]);
    expect(out).toBe('a hf_…(redacted) b\n-----BEGIN PRIVATE KEY-----…(redacted)\nok end');
    let bytes = '';
    await pipe(Readable.from([euro.subarray(0, 1), euro.subarray(1)]), redactLines(), new Writable({ write: (c, _e, done) => ((bytes += String(c)), done()) }));
    expect(bytes).toBe('€');
  });
});
