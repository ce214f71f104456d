/**
 * What a training step did, end to end through the compiled CLI and the fake API with recorded logs (timestamps as
 * the API serves them with `timestamps=true`, replayed at the current time): a stall, chip-hours and cost from the
 * Kueue admission against the review's estimate, the loss series and MaxText's evaluation, and `--report`.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DOMParser } from '@xmldom/xmldom';
import {
  emptyWorld,
  evalLine,
  FakeApi,
  iso,
  jobSet,
  pipeline,
  record,
  pod,
  rlLine,
  runCli,
  runCliOn,
  running,
  sftLine,
  step,
  workload,
  World,
} from '../../bench/fake-kube-api';
import { chipPrices } from '../../status/cli';
import { fake, removeAfter, useFakeApis } from './fake-api-harness';
import { useCliHost } from './cli-host';

useFakeApis();
useCliHost();
/** The last fake API started (its request log). */
let api: FakeApi | undefined;

async function run(world: World, args: string[]) {
  api = await fake(world);
  return runCliOn(api.url, args);
}

const sft = pipeline('sft-gemma4');
const llama = pipeline('rl-llama3');

/** sft-gemma4 training admitted at minute 1, running since 5, 10 steps a minute from 10 to 19, then silence to 60. */
function stalledSft(): World {
  const w = emptyWorld();
  const js = jobSet(step(sft, 'train'));
  w.jobSets.push(js);
  w.workloads.push(workload(js, true, { chips: sft.slice.chips }));
  const main = pod(js, 'slice', running(5));
  w.pods.push(main);
  w.logs[main.metadata.name] = Array.from({ length: 10 }, (_, i) => sftLine(10 + i, (i + 1) * 10, 2 - i * 0.1));
  return w;
}

const LOSSES = [0.9, 0.8, 0.74, 0.7, 0.61, 0.6, 0.55, 0.5, 0.52, 0.45];
/** rl-llama3 training (num_test_batches 10): admitted at 1, completed at 41; Pre eval 10/80, ten steps, Post eval 34/80. */
function completedLlama(): World {
  const w = emptyWorld();
  const done = { type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully', lastTransitionTime: iso(41) };
  const js = jobSet(step(llama, 'train'), { terminalState: 'Completed', conditions: [done] });
  w.jobSets.push(js);
  w.workloads.push(workload(js, true, { chips: llama.slice.chips }));
  const main = pod(js, 'slice', { phase: 'Succeeded', containerStatuses: [{ name: 'workload-container', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] });
  w.pods.push(main);
  w.logs[main.metadata.name] = [
    `${iso(3)} loading the model`,
    evalLine(8, 'Pre', 10, 80, 0.1234),
    ...LOSSES.map((l, i) => rlLine(10 + i * 3, i + 1, l)),
    evalLine(40, 'Post', 34, 80, 0.5678),
  ];
  return w;
}

test('stalled: no step line for max(10 min, 5 x the median step time); the last step and how long ago', async () => {
  const r = await run(stalledSft(), ['status', 'sft-gemma4', '--json']);
  expect(r.code).toBe(3);
  const train = JSON.parse(r.stdout).pipelines[0].steps[1];
  expect(train).toMatchObject({ state: 'stalled', reason: 'Stalled', progress: { step: 100 } });
  // Recorded at minute 60, last step line at 19: 41 minutes; 10 steps a minute -> 5 x 6 s < the 10-minute floor.
  expect(train.stall).toMatchObject({ lastStep: 100, thresholdSeconds: 600 });
  expect(train.stall.silentSeconds).toBeGreaterThanOrEqual(41 * 60);
  expect(train.stall.silentSeconds).toBeLessThan(42 * 60);
  expect(train.message).toMatch(/^no new step for 41m\d\ds \(last step 100 at \S+; stalled after 10m00s = max\(10m00s, 5 x 6s per step\)\); its log: npm run logs -- sft-gemma4 train$/);
  const text = await run(stalledSft(), ['status', 'sft-gemma4']);
  expect(text.stdout).toMatch(/train +stalled +\S+ +\[#+\.+\] 100\/\d+/);
});

test('a step that keeps logging is running, not stalled (the same world recorded at minute 25)', async () => {
  const w = stalledSft();
  w.recordedAt = Date.parse(iso(25));
  const r = await run(w, ['status', 'sft-gemma4', '--json']);
  expect(JSON.parse(r.stdout).pipelines[0].steps[1]).toMatchObject({ state: 'running' });
});

test('completed training: chip-hours from admission to the end, priced by the review table against its estimate; loss; evaluation', async () => {
  const r = await run(completedLlama(), ['status', 'rl-llama3', '--json']);
  const train = JSON.parse(r.stdout).pipelines[0].steps[1];
  const chips = llama.slice.chips;
  const price = chipPrices()(record(llama.name));
  const trainStep = step(llama, 'train');
  expect(train.state).toBe('completed');
  expect(train.run).toEqual({
    chips,
    admittedAt: expect.any(String),
    endedAt: expect.any(String),
    chipHours: Math.round(((chips * 40) / 60) * 1000) / 1000,
    cost: Math.round(((chips * 40) / 60) * price.chipHour! * 100) / 100,
    currency: 'USD',
    rate: price.rate,
    estimate: { chipHours: Math.round(((chips * trainStep.waitMinutes) / 60) * 1000) / 1000, cost: Math.round(((chips * trainStep.waitMinutes) / 60) * price.chipHour! * 100) / 100 },
    loss: LOSSES.map((l, i) => [i + 1, l]),
    evaluation: {
      before: { correct: 10, total: 80, accuracy: 12.5, meanReward: 0.1234 },
      after: { correct: 34, total: 80, accuracy: 42.5, meanReward: 0.5678 },
      accuracyChange: 30,
    },
  });
  expect(Date.parse(train.run.endedAt) - Date.parse(train.run.admittedAt)).toBe(40 * 60_000);
  const text = await run(completedLlama(), ['status', 'rl-llama3']);
  expect(text.stdout).toContain(`chip-hours ${((chips * 40) / 60).toFixed(2)} (${chips} chips x 40m00s from admission) ~$`);
  expect(text.stdout).toContain(`loss 0.9 -> 0.45 █`);
  expect(text.stdout).toContain('(steps 1-10, 10 points)');
  expect(text.stdout).toContain('evaluation: accuracy 12.5% (10/80) before -> 42.5% (34/80) after (+30 points), mean reward 0.1234 -> 0.5678');
});

test('--report: one Markdown file, its path printed; a well-formed SVG of the loss; the numbers of the log; the whole log read', async () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-report-')), 'run.md');
  removeAfter(path.dirname(out));
  const r = await run(completedLlama(), ['status', 'rl-llama3', '--report', '--out', out]);
  expect(r.code).toBe(3); // the export step is not created yet
  expect(r.stdout).toBe(`${out}\n`);
  const md = fs.readFileSync(out, 'utf8');
  expect(md).toMatch(/^# Run report: `rl-llama3`/);
  expect(md).toContain(`| train | \`${step(llama, 'train').jobSetName}\` | completed |`);
  expect(md).toContain('| before training | 10 / 80 | 12.5% | 0.1234 |');
  expect(md).toContain('| after training | 34 / 80 | 42.5% | 0.5678 |');
  expect(md).toContain('| **change** | | **+30 points** | |');
  for (const [i, l] of LOSSES.entries()) expect(md).toContain(`| ${i + 1} | ${l} |`);
  const svgText = /<svg[\s\S]*?<\/svg>/.exec(md)![0];
  const errors: string[] = [];
  const doc = new DOMParser({ onError: (level, msg) => errors.push(`${level}: ${msg}`) }).parseFromString(svgText, 'image/svg+xml');
  expect(errors).toEqual([]);
  expect(doc.documentElement!.nodeName).toBe('svg');
  const polyline = doc.getElementsByTagName('polyline')[0]!;
  const pts = polyline.getAttribute('points')!.split(' ').map((p) => p.split(',').map(Number));
  expect(pts).toHaveLength(LOSSES.length);
  // Lower loss is drawn higher up (smaller y): the chart follows the numbers.
  for (let i = 1; i < LOSSES.length; i++) expect(Math.sign(pts[i]![1]! - pts[i - 1]![1]!)).toBe(-Math.sign(LOSSES[i]! - LOSSES[i - 1]!));
  const texts = Array.from({ length: doc.getElementsByTagName('text').length }, (_, i) => doc.getElementsByTagName('text')[i]!.textContent);
  expect(texts).toEqual(expect.arrayContaining(['0.9', '0.45', '1', '10']));
  const logReads = api!.requests.filter((q) => q.path.endsWith('/log'));
  expect(logReads.map((q) => [q.query.tailLines, q.query.limitBytes])).toEqual([[undefined, undefined]]);
});

test.each([
  [['status', '--report'], "status: --report takes exactly one pipeline, got none"],
  [['status', 'rl-llama3', 'sft-gemma4', '--report'], "status: --report takes exactly one pipeline, got 'rl-llama3' 'sft-gemma4'"],
  [['status', 'rl-llama3', '--out', 'x.md'], 'status: --out only applies with --report'],
  [['status', 'rl-llama3', '--report', '--watch'], 'status: --report writes a file once: leave out --watch and --json'],
])('%j exits 2: %s', async (args, message) => {
  const r = await runCli(args, { HOME: '/nonexistent-home' });
  expect(r.code).toBe(2);
  expect(r.stderr.split('\n')[0]).toBe(message);
});
