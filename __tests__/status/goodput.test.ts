/**
 * Goodput: MaxText's own flags on the trainers that record it (jobs/goodput.ts, MaxText maxtext-v0.2.4), and
 * `npm run status -- --goodput` reading what ml-goodput-measurement's monitor writes to the run's TensorBoard folder.
 * The event file is real: written on CPU by ml-goodput-measurement 0.2.3's own GoodputRecorder, GoodputCalculator and
 * TensorBoard uploader (__tests__/fixtures/goodput/make_goodput_events.py), served by the Cloud Storage stand-in.
 */
import * as fs from 'fs';
import * as path from 'path';
import { emptyWorld, iso, jobSet, pipeline, pod, runCli, sftLine, step, workload, World } from '../../bench/fake-kube-api';
import { goodputArgs, RECORDS_GOODPUT } from '../../jobs/goodput';
import { eventScalars, goodputLine, goodputOf } from '../../status/goodput';
import { startFakeGcs } from '../environments/fake-gcs';
import { standInGcloud } from '../stand-ins';
import { deployPipelines, exampleDeployment, WITH_SINGLE_HOST } from '../util';
import { fake, kubeconfig, removeAfter, useFakeApis } from './fake-api-harness';
import { useCliHost } from './cli-host';

useFakeApis();
useCliHost();

const FIXTURES = path.join(__dirname, '..', 'fixtures');
const GOODPUT_EVENTS = fs.readFileSync(path.join(FIXTURES, 'goodput', 'events.out.tfevents.goodput'));
const LOSS_EVENTS = fs.readFileSync(path.join(FIXTURES, 'tensorboard', 'events.out.tfevents.fixture'));

/** What the library printed when it wrote the fixture (make_goodput_events.py), rounded to 2 decimals. */
const EXPECTED = {
  goodput: 89.92,
  step: 119,
  badput: {
    tpu_initialization: 6.25,
    training_prep: 6.25,
    data_loading_sync: 0.08,
    data_loading_async: 9.92,
    unproductive_checkpoint_save_time: 0,
    unproductive_checkpoint_restore_time: 0,
    program_startup: 0,
    wasted_progress_from_disruption: 0,
    infrastructure_recovery_from_disruption: 0,
    other: 0,
  },
};

test('the event file ml-goodput-measurement wrote: goodput and every badput cause at its last step', () => {
  const scalars = eventScalars(GOODPUT_EVENTS);
  expect(scalars.map((s) => s.tag)).toEqual(['goodput/goodput', ...Object.keys(EXPECTED.badput).map((k) => `badput/${k}`)].sort((a, b) => scalars.findIndex((s) => s.tag === a) - scalars.findIndex((s) => s.tag === b)));
  expect(goodputOf(scalars)).toEqual(EXPECTED);
  expect(goodputLine(goodputOf(scalars)!)).toBe(
    'goodput 89.92% at step 119 (MaxText goodput recording); badput: data loading overlapped with steps 9.92%, TPU initialization 6.25%, training preparation 6.25%, data loading 0.08%',
  );
});

test('the newest record wins; a file cut mid-record keeps what came before; a training-metrics file has no goodput', () => {
  const twice = Buffer.concat([GOODPUT_EVENTS, GOODPUT_EVENTS]);
  expect(goodputOf(eventScalars(twice))).toEqual(EXPECTED);
  const cut = GOODPUT_EVENTS.subarray(0, GOODPUT_EVENTS.length - 10);
  const partial = eventScalars(cut);
  expect(partial.length).toBe(eventScalars(GOODPUT_EVENTS).length - 1);
  expect(goodputOf(eventScalars(LOSS_EVENTS))).toBeUndefined();
  expect(eventScalars(LOSS_EVENTS).map((s) => s.value.toFixed(2)).slice(0, 3)).toEqual(['1.90', '1.60', '1.41']);
  const older = goodputOf([
    { tag: 'goodput/goodput', step: 5, wallTime: 1, value: 50 },
    { tag: 'goodput/goodput', step: 9, wallTime: 2, value: 70 },
    { tag: 'badput/other', step: 5, wallTime: 1, value: 50 },
  ]);
  expect(older).toEqual({ goodput: 70, step: 9, badput: {} });
});

test("MaxText's flags: SFT and DPO record and monitor goodput, RL (train_rl records none at maxtext-v0.2.4) gets no flag", () => {
  expect(RECORDS_GOODPUT).toEqual({ sft: true, dpo: true, rl: false });
  expect(goodputArgs('sft')).toEqual([['enable_goodput_recording', true], ['monitor_goodput', true]]);
  expect(goodputArgs('rl')).toEqual([]);
  // An override of either key (monitor_goodput: false) is the recipe's: never passed twice.
  expect(goodputArgs('sft', { monitor_goodput: false })).toEqual([['enable_goodput_recording', true]]);
  const d = exampleDeployment(WITH_SINGLE_HOST);
  const command = (name: string) => JSON.stringify(d.pipelines.find((p) => p.name === name)!.steps.find((s) => s.name === 'train')!.manifest);
  expect(command('sft-gemma4')).toContain('enable_goodput_recording=True');
  expect(command('sft-gemma4')).toContain('monitor_goodput=True');
  expect(command('rl-qwen3')).not.toContain('goodput');
  // A config override turns monitoring off: the recipe's value, once, beside the derived recording flag.
  const off = deployPipelines({ 'sft-gemma4': { runId: 'r1', overrides: { monitor_goodput: false } } });
  const text = JSON.stringify(off.pipelines[0]!.steps.find((s) => s.name === 'train')!.manifest);
  expect(text.match(/monitor_goodput=\w+/g)).toEqual(['monitor_goodput=False']);
  expect(text.match(/enable_goodput_recording=\w+/g)).toEqual(['enable_goodput_recording=True']);
});

// ---- npm run status -- --goodput ---------------------------------------------------------------------------------

const sft = pipeline('sft-gemma4');
const tbObject = (rel: string) => `${sft.paths.trainRunDir}tensorboard/${rel}`.replace(/^gs:\/\/[^/]+\//, '');

/** sft-gemma4 training running since minute 5 with a few step lines. */
function runningSft(): World {
  const w = emptyWorld();
  const js = jobSet(step(sft, 'train'));
  w.jobSets.push(js);
  w.workloads.push(workload(js, true, { chips: sft.slice.chips }));
  const main = pod(js, 'slice', { phase: 'Running', containerStatuses: [{ name: 'workload-container', state: { running: { startedAt: iso(5) } } }] });
  w.pods.push(main);
  w.logs[main.metadata.name] = [sftLine(50, 1, 1.2), sftLine(55, 2, 1.1), sftLine(59, 3, 1.0)];
  return w;
}

async function runWith(args: string[], objects: Record<string, Buffer>) {
  const gcs = await startFakeGcs({ token: 'gcloud-token' });
  let g = 1;
  for (const [name, data] of Object.entries(objects)) gcs.objects.set(name, { data, generation: g++ });
  const gcloud = standInGcloud();
  removeAfter(gcloud.bin);
  try {
    const r = await runCli(args, { ...kubeconfig((await fake(runningSft())).url), PATH: `${gcloud.bin}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: gcs.url });
    return { ...r, requests: [...gcs.requests], gcloudRuns: gcloud.runs() };
  } finally {
    await gcs.close();
  }
}

test('--goodput: the line under the training step, from every event file of the run folder; without it the bucket is never read', async () => {
  const objects = { [tbObject('events.out.tfevents.1.host')]: LOSS_EVENTS, [tbObject('events.out.tfevents.2.host')]: GOODPUT_EVENTS };
  const r = await runWith(['status', 'sft-gemma4', '--goodput'], objects);
  expect(r.stderr).toBe('');
  expect(r.stdout).toMatch(/\n +goodput 89\.92% at step 119 \(MaxText goodput recording\); badput: data loading overlapped with steps 9\.92%, TPU initialization 6\.25%, training preparation 6\.25%, data loading 0\.08%\n/);
  expect(r.requests.filter((q) => q.includes('alt=media'))).toHaveLength(2);
  const plain = await runWith(['status', 'sft-gemma4'], objects);
  expect(plain.stdout).not.toContain('goodput');
  expect(plain.requests).toEqual([]);
  expect(plain.gcloudRuns).toBe(0);
});

test('--goodput before the monitor wrote anything: one note, the rest shown', async () => {
  const r = await runWith(['status', 'sft-gemma4', '--goodput'], { [tbObject('events.out.tfevents.1.host')]: LOSS_EVENTS });
  expect(r.stderr).toBe(`note: sft-gemma4: no goodput record yet in ${sft.paths.trainRunDir}tensorboard/ (the monitor writes one every 30 s once training steps)\n`);
  expect(r.stdout).toContain('train ');
});

test('report --goodput: the page carries the goodput line under the training step', async () => {
  const out = path.join(fs.mkdtempSync(path.join(require('os').tmpdir(), 'tpt-gp-')), 'r.html');
  removeAfter(path.dirname(out));
  const objects = { [tbObject('events.out.tfevents.2.host')]: GOODPUT_EVENTS };
  const r = await runWith(['report', 'sft-gemma4', '--goodput', '--out', out], objects);
  expect(r.stdout).toBe(`${out}\n`);
  expect(fs.readFileSync(out, 'utf8')).toContain('<li>goodput 89.92% at step 119 (MaxText goodput recording); badput: data loading overlapped with steps 9.92%');
});
