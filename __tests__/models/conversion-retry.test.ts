/**
 * The conversion scripts' one retry, run for real in bash with a stand-in `python3` on PATH: a transient service
 * error (Hugging Face 429/5xx, Cloud Storage 503) is retried once; an application error or a signal is not, and the
 * exit code reaches Kubernetes unchanged (the pod failure policy keys on it).
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { retryOnceOnTransient } from '../../jobs/maxtext';
import { synthesize, podSets } from './synthesized';

/** Runs the retry lines around a fake python3 that plays `outcomes` (one per call: [exit code, output]). */
function run(outcomes: Array<[number, string]>): { rc: number; calls: number; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'retry-'));
  const counter = path.join(dir, 'calls');
  fs.writeFileSync(counter, '0');
  const cases = outcomes.map(([rc, out], i) => `  ${i + 1}) echo ${JSON.stringify(out)}; exit ${rc};;`).join('\n');
  fs.writeFileSync(
    path.join(dir, 'python3'),
    `#!/usr/bin/env bash\nn=$(( $(cat ${counter}) + 1 )); echo $n > ${counter}\ncase $n in\n${cases}\n  *) exit 99;;\nesac\n`,
    { mode: 0o755 },
  );
  const script = ['set -eu', ...retryOnceOnTransient('python3 -m maxtext.checkpoint_conversion.to_maxtext \\\n  model_name=x', 0)].join('\n');
  const r = spawnSync('bash', ['-c', script], { env: { ...process.env, PATH: `${dir}:${process.env.PATH}` }, encoding: 'utf8', timeout: 20000 });
  const calls = Number(fs.readFileSync(counter, 'utf8'));
  // The stand-in never ran: say why (bash's own stderr), so a failure names its cause instead of `calls: 0`.
  if (calls === 0) process.stderr.write(`conversion-retry: the script exited ${r.status} (signal ${r.signal}, error ${r.error}) before calling python3:\n${r.stderr}\n`);
  return { rc: r.status ?? -1, calls, out: r.stdout };
}

describe('one retry after a transient error, none after an application error', () => {
  test('Hugging Face 429, then success: exit 0 after two calls', () => {
    expect(run([[1, 'requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url'], [0, 'done']])).toMatchObject({ rc: 0, calls: 2 });
  });
  test('Cloud Storage 503 twice: the second failure stands', () => {
    expect(run([[1, 'google.api_core.exceptions.ServiceUnavailable: 503 GET'], [1, 'ServiceUnavailable: 503']])).toMatchObject({ rc: 1, calls: 2 });
  });
  test('an application error is not retried and keeps its exit code', () => {
    expect(run([[1, "ValueError: Unsupported model name: qwen9"], [0, 'never']])).toMatchObject({ rc: 1, calls: 1 });
  });
  test('a signal (SIGTERM 143) is not retried: the JobSet restart policy handles it', () => {
    expect(run([[143, 'ServiceUnavailable while shutting down'], [0, 'never']])).toMatchObject({ rc: 143, calls: 1 });
  });
  test('the output still streams to the container log', () => {
    expect(run([[0, 'converted 48 layers']]).out).toContain('converted 48 layers');
  });
});

test('every conversion step runs its call through the retry, and training does not', () => {
  const synth = synthesize({});
  expect(execFileSync('bash', ['-n', '-c', retryOnceOnTransient('true').join('\n')]).toString()).toBe('');
  for (const j of synth.jobSets) {
    const script: string = podSets(j.manifest).flatMap((p) => p.pod.containers).find((c: any) => c.name === 'workload-container').command[2];
    const conversion = /-(to-maxtext|to-hf)$/.test(j.manifest.metadata.name);
    expect(script.includes('retrying once')).toBe(conversion);
  }
});
