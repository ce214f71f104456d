/**
 * The deploy's short wait after a pipeline's apply (scripts/cdktf.mjs runs `npm run status -- <pipelines>
 * --until-started 300`): the compiled status CLI against the fake API server polls until the first step is admitted or
 * queued, or says which pipeline is not after the bounded time; the wrapper picks the pipeline stacks a deploy named.
 * The wait runs after Terraform returned, so nothing here can taint or replace the Workflow.
 */
import { emptyWorld, FakeApi, jobSet, pipeline, runCliOn, startFakeApi, step } from '../../bench/fake-kube-api';
import { ensureDist } from '../dist';
import { useCliHost } from './cli-host';
import { spawnSync } from 'child_process';
import * as path from 'path';

/** Calls an export of scripts/cdktf.mjs (an ES module) in a child node and returns its JSON result. */
function wrapperCall(expr: string): unknown {
  const url = `file://${path.resolve(__dirname, '..', '..', 'scripts', 'cdktf.mjs')}`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(url)}); process.stdout.write(JSON.stringify(${expr}));`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

let api: FakeApi | undefined;
beforeAll(ensureDist);
useCliHost();
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const qwen = pipeline('rl-qwen3');

test('--until-started polls until the first step exists past not-created, then ends (exit 3: the run goes on)', async () => {
  api = await startFakeApi(emptyWorld());
  api.onJobSetList = (n) => {
    // The second poll: the Workflow created the first step's JobSet; Kueue has it (queued or admitted).
    if (n === 1) api!.world.jobSets.push(jobSet(step(qwen, 'to-maxtext')));
  };
  const r = await runCliOn(api.url, ['status', 'rl-qwen3', '--until-started', '60', '--interval', '1', '--json']);
  const docs = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(docs).toHaveLength(2);
  expect(docs[0].pipelines[0].steps[0].state).toBe('not-created');
  expect(docs[1].pipelines[0].steps[0].state).not.toBe('not-created');
  expect(r.code).toBe(3);
});

test('--until-started ends after its bound with the pipelines still not admitted or queued named', async () => {
  api = await startFakeApi(emptyWorld());
  const r = await runCliOn(api.url, ['status', 'rl-qwen3', '--until-started', '1', '--interval', '1']);
  // 5, not 3: the deploy tells "not started" from "runs" by it (scripts/cdktf.mjs afterWaitLine).
  expect(r.code).toBe(5);
  expect(r.stdout).toContain('not admitted or queued yet after 1s: rl-qwen3');
});

test('--until-started errors: out of range, with --watch', async () => {
  api = await startFakeApi(emptyWorld());
  const zero = await runCliOn(api.url, ['status', 'rl-qwen3', '--until-started', '0']);
  expect(zero.code).toBe(2);
  expect(zero.stderr).toContain("--until-started must be a whole number of seconds from 1 to 3600, got '0'");
  const watch = await runCliOn(api.url, ['status', 'rl-qwen3', '--until-started', '60', '--watch']);
  expect(watch.code).toBe(2);
  expect(watch.stderr).toContain('--until-started waits for the first step only: leave out --watch and --report');
});

describe('the wrapper (scripts/cdktf.mjs)', () => {
  const mod = {
    pipelineStacks: (a: string[]) => wrapperCall(`m.pipelineStacks(${JSON.stringify(a)})`),
    untilStartedArgs: (p: string[]) => wrapperCall(`m.untilStartedArgs(${JSON.stringify(p)})`) as string[],
    followCommand: (p: string[]) => wrapperCall(`m.followCommand(${JSON.stringify(p)})`),
    afterWaitLine: (code: number | null, p: string[]) => wrapperCall(`m.afterWaitLine(${JSON.stringify(code ?? undefined) ?? 'undefined'}, ${JSON.stringify(p)})`),
    UNTIL_STARTED_SECONDS: wrapperCall('m.UNTIL_STARTED_SECONDS'),
  };

  test('waits for the pipeline stacks a deploy names, not infra, serve stacks, globs or flag values', () => {
    expect(mod.pipelineStacks(['infra', 'rl-qwen3', 'serve-rl-qwen3', '--auto-approve', '--output', 'cdktf.out.p.c', 'sft-gemma4'])).toEqual(['rl-qwen3', 'sft-gemma4']);
    expect(mod.pipelineStacks(['infra', '--output', 'dir'])).toEqual([]);
    expect(mod.pipelineStacks(["'*'", '*'])).toEqual([]);
  });

  test('the wait is the status CLI, bounded to five minutes, and the follow command is printed', () => {
    expect(mod.UNTIL_STARTED_SECONDS).toBe(300);
    expect(mod.untilStartedArgs(['rl-qwen3']).slice(1)).toEqual(['status', 'rl-qwen3', '--until-started', '300', '--interval', '15']);
    expect(mod.untilStartedArgs(['rl-qwen3'])[0]).toMatch(/dist[/\\]status[/\\]cli\.js$/);
    expect(mod.followCommand(['rl-qwen3', 'sft-gemma4'])).toBe('npm run status -- rl-qwen3 sft-gemma4 --watch');
  });

  test('the last line says the pipeline runs only when its first step was admitted or queued: not when the engine never picked the Workflow up', () => {
    const follow = 'npm run status -- rl-qwen3 --watch';
    expect(mod.afterWaitLine(0, ['rl-qwen3'])).toBe(`The pipeline runs in the cluster; follow it with: ${follow}`);
    expect(mod.afterWaitLine(3, ['rl-qwen3'])).toBe(`The pipeline runs in the cluster; follow it with: ${follow}`);
    expect(mod.afterWaitLine(5, ['rl-qwen3'])).toBe(`Deployed, but not started within 5 minutes (why: above); follow it with: ${follow}`);
    expect(mod.afterWaitLine(1, ['rl-qwen3'])).toBe('A step has failed already (above); see it with: npm run status -- rl-qwen3');
    expect(mod.afterWaitLine(4, ['rl-qwen3'])).toMatch(/^Deployed; the cluster could not be read/);
    expect(mod.afterWaitLine(null, ['rl-qwen3'])).toMatch(/^Deployed; whether it started is not known/);
  });
});

test('a Workflow no controller picked up: --until-started exits 5 once its time ran out, naming it (not "not deployed")', async () => {
  const w = emptyWorld();
  (w as any).workflows = [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { name: 'rl-qwen3-r1-0123456789', namespace: 'default', labels: { 'app.kubernetes.io/part-of': 'tpu-post-training', 'tpu-post-training/pipeline': 'rl-qwen3' }, creationTimestamp: '2026-12-01T00:00:00Z' } }];
  api = await startFakeApi(w);
  const r = await runCliOn(api.url, ['status', 'rl-qwen3', '--until-started', '1', '--interval', '1']);
  expect(r.code).toBe(5);
  expect(r.stdout).toContain('Workflow rl-qwen3-r1-0123456789 is deployed, but the workflow engine has not picked it up');
  expect(r.stdout).not.toContain('not deployed: npm run deploy');
});
