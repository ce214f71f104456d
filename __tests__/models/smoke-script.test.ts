/**
 * The serve stack's smoke test (jobs/serve.ts smokeScript), run for real in bash with stand-ins for `curl` and `sleep`
 * on PATH: it retries while the server loads (curl fails, or answers without a completion) and exits 0 on the first
 * chat completion; after its attempts (the plan's, from the startup probe's window) it exits 1, which fails the Job and
 * so the deploy's wait. Time is simulated: `sleep` returns at once and the attempts are counted.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SMOKE_RETRY_SECONDS, smokeScript } from '../../jobs/serve';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { testPlatform } from '../jobs/fixtures';

/** The attempts of rl-qwen3's serve plan (Qwen3-30B-A3B: a 3,030 s startup window plus 10 min of scheduling). */
const SMOKE_ATTEMPTS = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1', serve: { enabled: true } }).serve!.smokeAttempts;

/** Runs the script; curl fails (exit 7) `failures` times, then prints `answer`. */
function run(failures: number, answer = '{"id":"cmpl-1","choices":[{"message":{"role":"assistant","content":"OK"}}]}') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smoke-'));
  const stand = (name: string, body: string) => fs.writeFileSync(path.join(dir, name), `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
  stand('sleep', 'exit 0');
  stand('curl', `echo "$@" >> ${dir}/calls; n=$(wc -l < ${dir}/calls); [ "$n" -gt ${failures} ] || exit 7; printf '%s' ${JSON.stringify(answer)}`);
  const r = spawnSync('bash', ['-c', smokeScript('http://rl-qwen3-serve.default.svc.cluster.local:8000', 'rl-qwen3', SMOKE_ATTEMPTS)], {
    env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
    encoding: 'utf8',
    timeout: 30000,
  });
  const calls = fs.existsSync(path.join(dir, 'calls')) ? fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n') : [];
  return { rc: r.status, out: r.stdout, calls };
}

test('ready at once: one chat completion, exit 0', () => {
  const r = run(0);
  expect(r.rc).toBe(0);
  expect(r.calls).toHaveLength(1);
  expect(r.calls[0]).toContain('http://rl-qwen3-serve.default.svc.cluster.local:8000/v1/chat/completions');
  expect(r.calls[0]).toContain('"model":"rl-qwen3"');
  expect(r.out).toContain('smoke test passed: {"id":"cmpl-1"');
});

test('the server still loading: retried, then exit 0 on the first completion', () => {
  const r = run(3);
  expect(r.rc).toBe(0);
  expect(r.calls).toHaveLength(4);
  expect(r.out).toContain(`smoke test: attempt 3 of ${SMOKE_ATTEMPTS} got no chat completion; retrying in 20s`);
});

test('an answer without choices is not a completion', () => {
  const r = run(0, '{"object":"error","message":"model not found"}');
  expect(r.rc).toBe(1);
  expect(r.calls).toHaveLength(SMOKE_ATTEMPTS);
});

test(`never answering: exit 1 after ${SMOKE_ATTEMPTS} attempts`, () => {
  const r = run(10000);
  expect(r.rc).toBe(1);
  expect(r.calls).toHaveLength(SMOKE_ATTEMPTS);
  expect(r.out).toContain(`smoke test failed: no chat completion from http://rl-qwen3-serve.default.svc.cluster.local:8000 after ${SMOKE_ATTEMPTS} attempts`);
});

test('a server that takes 40 minutes to answer (a 30B model\'s first load): the smoke test is still trying, and passes', () => {
  const fortyMinutes = (40 * 60) / SMOKE_RETRY_SECONDS;
  expect(SMOKE_ATTEMPTS).toBe(183);
  const r = run(fortyMinutes);
  expect(r.rc).toBe(0);
  expect(r.calls).toHaveLength(fortyMinutes + 1);
});
