/**
 * The eval step in `npm run status` and `--report`, end to end through the compiled CLI and the fake API: the step's
 * recorded log carries its eval.json on the EVAL_RESULT line (jobs/eval.ts); status shows base, trained and delta per
 * task and metric, the gate, eval.json and the export, and the step's chip-hours and cost from its Kueue admission;
 * `--json` carries the numbers. A failed gate is a failed step (exit 1) with the same numbers.
 */
import { pipelineRecord } from '../../jobs/record';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { emptyWorld, iso, jobSet, pipeline, platform, pod, runCli, runCliOn, step, workload, World } from '../../bench/fake-kube-api';
import { EVAL_RESULT_PREFIX } from '../../jobs/eval';
import { chipPrices } from '../../status/cli';
import { evalLines, evalRecordOf } from '../../status/eval';
import { fake, kubeconfig, removeAfter, useFakeApis } from './fake-api-harness';
import { useCliHost } from './cli-host';
import { startFakeGcs } from '../environments/fake-gcs';
import { standInGcloud } from '../stand-ins';

useFakeApis();
useCliHost();

async function run(world: World, args: string[]) {
  return runCliOn((await fake(world)).url, args);
}

const llama = pipeline('rl-llama3');
const evalStep = step(llama, 'eval');
const completed = (m: number) => ({ terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done', lastTransitionTime: iso(m) }] });

/** eval.json as the step's summary writes it (the keys of jobs/eval.ts evalScript's SUMMARISE). */
function record(trained: number, gate?: { passed: boolean }) {
  return {
    baseModel: llama.eval!.baseModel,
    evalJson: llama.eval!.evalJson,
    image: llama.eval!.image,
    pipeline: 'rl-llama3',
    samples: 500,
    seed: 1234,
    trainedModel: llama.eval!.trainedModel,
    results: [
      { task: 'gsm8k', metric: 'exact_match,strict-match', higherIsBetter: true, base: 0.6, trained, delta: trained - 0.6, improvement: trained - 0.6 },
      { task: 'gsm8k', metric: 'exact_match,flexible-extract', higherIsBetter: true, base: 0.62, trained: 0.66, delta: 0.04, improvement: 0.04 },
    ],
    ...(gate ? { gate: { metric: 'exact_match,strict-match', minDelta: 0, passed: gate.passed } } : {}),
  };
}

/** Every step of rl-llama3 completed; eval admitted at minute 1 on 8 chips and ended at 31 (or failed on its gate). */
function evaluated(trained: number, outcome: 'completed' | 'gate-failed'): World {
  const w = emptyWorld();
  for (const s of llama.steps.filter((x) => x.name !== 'eval')) w.jobSets.push(jobSet(s, completed(0)));
  const failed = {
    terminalState: 'Failed',
    conditions: [{ type: 'Failed', status: 'True', reason: 'FailJobSetFailurePolicyAction', message: 'applying FailJobSet failure policy action (first failed job: x)', lastTransitionTime: iso(31) }],
  };
  const js = jobSet(evalStep, outcome === 'completed' ? completed(31) : failed);
  w.jobSets.push(js);
  w.workloads.push(workload(js, true, { chips: 8 }));
  const exitCode = outcome === 'completed' ? 0 : 3;
  const main = pod(js, 'slice', { phase: outcome === 'completed' ? 'Succeeded' : 'Failed', containerStatuses: [{ name: 'workload-container', state: { terminated: { exitCode } } }] });
  w.pods.push(main);
  const json = JSON.stringify(record(trained, outcome === 'completed' ? { passed: true } : { passed: false }));
  w.logs[main.metadata.name] = [
    `${iso(2)} eval: serving the base model (${llama.eval!.baseModel})`,
    `${iso(20)} eval: serving the trained model (/gcs/export)`,
    `${iso(30)} ${EVAL_RESULT_PREFIX}${json}`,
    ...(outcome === 'gate-failed' ? [`${iso(30)} gate failed: gsm8k exact_match,strict-match improved -0.0500 (base 0.6, trained 0.55), below minDelta 0`] : []),
  ];
  return w;
}

test('completed eval: base, trained and delta per metric, the gate, eval.json, the export; chip-hours and cost; --json numbers', async () => {
  const r = await run(evaluated(0.7, 'completed'), ['status', 'rl-llama3', '--json']);
  expect(r.code).toBe(0);
  const e = JSON.parse(r.stdout).pipelines[0].steps[3];
  expect(e).toMatchObject({ name: 'eval', state: 'completed', message: `output: ${llama.eval!.evalJson}` });
  const price = chipPrices()(pipelineRecord(llama, platform));
  expect(e.run).toMatchObject({ chips: 8, chipHours: 4, cost: Math.round(4 * price.chipHour! * 100) / 100, currency: 'USD' });
  expect(e.run.eval).toEqual({
    evalJson: llama.eval!.evalJson,
    trainedModel: llama.paths.hfExportDir,
    baseModel: 'meta-llama/Llama-3.1-8B-Instruct',
    samples: 500,
    seed: 1234,
    image: llama.eval!.image,
    results: [
      { task: 'gsm8k', metric: 'exact_match,strict-match', higherIsBetter: true, base: 0.6, trained: 0.7, delta: 0.7 - 0.6 },
      { task: 'gsm8k', metric: 'exact_match,flexible-extract', higherIsBetter: true, base: 0.62, trained: 0.66, delta: 0.04 },
    ],
    gate: { metric: 'exact_match,strict-match', minDelta: 0, passed: true },
  });
  const text = await run(evaluated(0.7, 'completed'), ['status', 'rl-llama3']);
  expect(text.stdout).toContain('eval gsm8k exact_match,strict-match: base 0.6 -> trained 0.7 (+0.1)');
  expect(text.stdout).toContain('eval gsm8k exact_match,flexible-extract: base 0.62 -> trained 0.66 (+0.04)');
  expect(text.stdout).toContain('gate exact_match,strict-match minDelta 0: passed');
  expect(text.stdout).toContain(`eval.json ${llama.eval!.evalJson} (500 samples per task, seed 1234, ${llama.eval!.image}); export ${llama.paths.hfExportDir}`);
  expect(text.stdout).toMatch(/chip-hours 4 \(8 chips x 30m00s from admission\) ~\$/);
});

test('a failed gate: the eval step failed (exit 1), with the scores and the gate line from its log', async () => {
  const r = await run(evaluated(0.55, 'gate-failed'), ['status', 'rl-llama3', '--json']);
  expect(r.code).toBe(1);
  const e = JSON.parse(r.stdout).pipelines[0].steps[3];
  expect(e).toMatchObject({ state: 'failed', reason: 'FailJobSetFailurePolicyAction' });
  expect(e.run.eval.gate).toEqual({ metric: 'exact_match,strict-match', minDelta: 0, passed: false });
  const text = await run(evaluated(0.55, 'gate-failed'), ['status', 'rl-llama3']);
  expect(text.stdout).toContain('gate exact_match,strict-match minDelta 0: FAILED');
  expect(text.stdout).toContain('gate failed: gsm8k exact_match,strict-match improved -0.0500');
});

test('--report: a table of base, trained and delta per task', async () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-eval-report-')), 'run.md');
  removeAfter(path.dirname(out));
  const r = await run(evaluated(0.7, 'completed'), ['status', 'rl-llama3', '--report', '--out', out]);
  expect(r.code).toBe(0);
  const md = fs.readFileSync(out, 'utf8');
  expect(md).toContain(`| eval | \`${evalStep.jobSetName}\` | completed |`);
  expect(md).toContain('| task | metric | base | trained | delta |');
  expect(md).toContain('| gsm8k | exact_match,strict-match | 0.6 | 0.7 | +0.1 |');
  expect(md).toContain('| held (Kueue admission to end) | 4 |');
});

describe('evalRecordOf reads only a well-formed line', () => {
  const line = (v: unknown) => `2026-12-01T00:00:00Z ${EVAL_RESULT_PREFIX}${JSON.stringify(v)}`;
  test('the last well-formed line wins; a malformed later one is ignored', () => {
    const log = [line(record(0.7)), `${EVAL_RESULT_PREFIX}{not json`, line({ ...record(0.8), results: [{ task: 'gsm8k' }] })].join('\n');
    expect(evalRecordOf(log)!.results[0].trained).toBe(0.7);
  });
  test('no line, or a record without results: none', () => {
    expect(evalRecordOf('eval: serving the base model')).toBeUndefined();
    expect(evalRecordOf(line({ ...record(0.7), results: [] }))).toBeUndefined();
  });
  test('lower-is-better metrics say so', () => {
    const r = { ...record(0.7), results: [{ task: 'heldout', metric: 'word_perplexity,none', higherIsBetter: false, base: 12, trained: 9, delta: -3 }] };
    const { evalLines } = require('../../status/eval');
    expect(evalLines(evalRecordOf(line(r))!)[0]).toBe('eval heldout word_perplexity,none: base 12 -> trained 9 (-3, lower is better)');
  });
});

test("the eval step is priced at its own pool's rate, not the training slice's", () => {
  const { derivePlatform } = require('../../jobs/platform');
  const { tpuSlice } = require('../../jobs/tpu');
  const { buildPipeline } = require('../../jobs/pipeline');
  const { RECIPES } = require('../../jobs/recipes');
  const { RATE_TEXT } = require('../../jobs/prices');
  const mixed = derivePlatform({
    ...{ project: 'p-123456', region: 'us-east5', zone: 'us-east5-b', clusterName: 'tpt', bucket: 'b', namespace: 'default', cpuMachineType: 'n4-highmem-64' },
    tpuGroups: [
      { slice: tpuSlice('ct6e-standard-4t', '4x8'), count: 1, capacity: { type: 'reservation', reservation: 'res' } },
      { slice: tpuSlice('ct6e-standard-8t', '2x4'), count: 1, capacity: { type: 'spot' } },
    ],
  });
  const qwen = buildPipeline(RECIPES['rl-qwen3'], mixed, { runId: 'r1' });
  const price = chipPrices();
  const rec = pipelineRecord(qwen, mixed);
  expect(price(rec, rec.steps.find((s) => s.name === 'eval')).rate).toBe(RATE_TEXT.spot);
  expect(price(rec, rec.steps.find((s) => s.name === 'eval')).rate).not.toBe(price(rec).rate);
});

describe('eval.json from the bucket when the log has no EVAL_RESULT line (the pod is gone)', () => {
  /** The Cloud Storage stand-in on loopback (environments/fake-gcs.ts), answering only the stand-in gcloud's token. */
  const fakeGcs = (objects: Record<string, string>) => startFakeGcs({ objects, token: 'gcloud-token' });
  /** A gcloud on PATH that prints the token (and counts its runs): __tests__/stand-ins.ts. */
  function fakeGcloud(script?: string) {
    const g = standInGcloud(script);
    removeAfter(g.bin);
    return g;
  }
  /** The evaluated world with the eval pod gone (its node scaled away): no log, so no EVAL_RESULT line. */
  function podGone(trained: number): World {
    const w = evaluated(trained, 'completed');
    const evalPod = w.pods.find((p) => p.metadata.labels?.['jobset.sigs.k8s.io/jobset-name'] === evalStep.jobSetName)!;
    w.pods = w.pods.filter((p) => p !== evalPod);
    delete w.logs[evalPod.metadata.name];
    return w;
  }
  async function runWith(world: World, args: string[], env: Record<string, string>) {
    return runCli(args, { ...kubeconfig((await fake(world)).url), ...env });
  }

  test('status reads eval.json from the bucket with the gcloud login: the same numbers as from the log; gcloud runs once', async () => {
    const gcs = await fakeGcs({ [llama.eval!.evalJson]: JSON.stringify(record(0.7, { passed: true })) });
    const gcloud = fakeGcloud();
    try {
      const r = await runWith(podGone(0.7), ['status', 'rl-llama3', '--json'], { PATH: `${gcloud.bin}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: gcs.url });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const e = JSON.parse(r.stdout).pipelines[0].steps[3];
      expect(e.run.eval.results[0]).toEqual({ task: 'gsm8k', metric: 'exact_match,strict-match', higherIsBetter: true, base: 0.6, trained: 0.7, delta: 0.7 - 0.6 });
      expect(e.run.eval.gate).toEqual({ metric: 'exact_match,strict-match', minDelta: 0, passed: true });
      const object = llama.eval!.evalJson.replace(/^gs:\/\/[^/]+\//, '');
      // The only request: the object's media, with the gcloud token (the stand-in answers no other: 401).
      expect(gcs.requests).toEqual([`GET /storage/v1/b/${platform.bucket}/o/${encodeURIComponent(object)}?alt=media`]);
      expect(gcloud.runs()).toBe(1);
    } finally {
      await gcs.close();
    }
  });
  test('the log has the line: the bucket is not read, gcloud never runs', async () => {
    const gcs = await fakeGcs({});
    const gcloud = fakeGcloud();
    try {
      const r = await runWith(evaluated(0.7, 'completed'), ['status', 'rl-llama3'], { PATH: `${gcloud.bin}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: gcs.url });
      expect(r.code).toBe(0);
      expect([gcs.requests, gcloud.runs()]).toEqual([[], 0]);
    } finally {
      await gcs.close();
    }
  });
  test('cannot read it: one note naming the file and why; everything else is shown', async () => {
    const gcs = await fakeGcs({ [llama.eval!.evalJson]: '{"results": "truncated' });
    const broken = fakeGcloud('echo "ERROR: (gcloud.auth.print-access-token) Reauthentication failed." >&2; exit 1');
    const ok = fakeGcloud();
    try {
      const noLogin = await runWith(podGone(0.7), ['status', 'rl-llama3'], { PATH: `${broken.bin}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: gcs.url });
      expect(noLogin.code).toBe(0);
      expect(noLogin.stderr).toBe(
        `note: rl-llama3: eval.json ${llama.eval!.evalJson} not read (gcloud auth print-access-token failed: ERROR: (gcloud.auth.print-access-token) Reauthentication failed.); its log has no EVAL_RESULT line either\n`,
      );
      expect(noLogin.stdout).toContain('eval');
      const malformed = await runWith(podGone(0.7), ['status', 'rl-llama3'], { PATH: `${ok.bin}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: gcs.url });
      expect(malformed.stderr).toContain(`eval.json ${llama.eval!.evalJson} not read (not a well-formed eval.json)`);
      expect(malformed.stdout).not.toContain('eval gsm8k');
    } finally {
      await gcs.close();
    }
  });
});

test('a run that failed closed (NaN): its EVAL_RESULT is still read, the unscored metric and the errors shown, the gate FAILED', () => {
  const json = {
    ...record(0.7, { passed: false }),
    results: [{ task: 'gsm8k', metric: 'exact_match,strict-match', higherIsBetter: true, base: 0.6, trained: null, samples: 500 }],
    errors: ['trained gsm8k exact_match,strict-match is nan, not a finite number'],
  };
  const e = evalRecordOf(`${EVAL_RESULT_PREFIX}${JSON.stringify(json)}`)!;
  expect(e.errors).toEqual(['trained gsm8k exact_match,strict-match is nan, not a finite number']);
  expect(evalLines(e)).toEqual([
    'eval gsm8k exact_match,strict-match: base 0.6 -> trained not scored (no delta)',
    'gate exact_match,strict-match minDelta 0: FAILED',
    'eval error: trained gsm8k exact_match,strict-match is nan, not a finite number',
    `eval.json ${llama.eval!.evalJson} (500 samples per task, seed 1234, ${llama.eval!.image}); export ${llama.eval!.trainedModel}`,
  ]);
  // Both scores present but no delta: not what the step writes, so not trusted.
  expect(evalRecordOf(`${EVAL_RESULT_PREFIX}${JSON.stringify({ ...json, results: [{ ...json.results[0], trained: 0.7 }] })}`)).toBeUndefined();
});
