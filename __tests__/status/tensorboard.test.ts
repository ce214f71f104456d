/**
 * `npm run tensorboard -- <pipeline>`: the compiled CLI against the fake Kubernetes API (the pipeline's record) and
 * the Cloud Storage stand-in (__tests__/environments/fake-gcs.ts) holding a real event file written by TensorBoard's
 * own writer (__tests__/fixtures/tensorboard/make_events.py, PyPI tensorboard 2.21.0), with the stand-in gcloud's
 * token; --no-serve (no TensorBoard here): the copy, its incremental rerun, a hostile object name, a refused login.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { emptyWorld, pipeline, runCli, platform } from '../../bench/fake-kube-api';
import { startFakeGcs } from '../environments/fake-gcs';
import { standInGcloud } from '../stand-ins';
import { tensorboardDir } from '../../status/tensorboard';
import { fake, kubeconfig, removeAfter, useFakeApis } from './fake-api-harness';
import { useCliHost } from './cli-host';

useFakeApis();
useCliHost();

const EVENTS = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'tensorboard', 'events.out.tfevents.fixture'));
const qwen = pipeline('rl-qwen3');
const logdir = tensorboardDir(qwen.paths.trainRunDir);
const object = (rel: string) => `${logdir}${rel}`.replace(/^gs:\/\/[^/]+\//, '');

async function setup(token = 'gcloud-token') {
  const gcs = await startFakeGcs({ token });
  gcs.objects.set(object('events.out.tfevents.fixture'), { data: EVENTS, generation: 1 });
  gcs.objects.set(object('train/events.out.tfevents.fixture'), { data: EVENTS, generation: 2 });
  gcs.objects.set(`${object('')}`.replace(/tensorboard\/$/, 'checkpoints/0/x'), { data: Buffer.from('not an event'), generation: 3 });
  const gcloud = standInGcloud();
  removeAfter(gcloud.bin);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-tb-'));
  removeAfter(dir);
  const api = await fake(emptyWorld());
  const env = { ...kubeconfig(api.url), PATH: `${gcloud.bin}${path.delimiter}/usr/bin${path.delimiter}/bin`, STORAGE_EMULATOR_HOST: gcs.url };
  return { gcs, gcloud, dir, env };
}

test("copies the run's tensorboard folder (MaxText's tensorboard_dir) byte for byte, keeps its layout, then prints the tensorboard command; a rerun copies nothing", async () => {
  const { gcs, dir, env } = await setup();
  try {
    const r = await runCli(['tensorboard', 'rl-qwen3', '--dir', dir, '--no-serve'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${logdir} -> ${dir}: 2 file(s) copied, 0 already there\ntensorboard is not on PATH (pip install tensorboard); then: tensorboard --logdir ${dir} --port 6006\n`);
    expect(fs.readFileSync(path.join(dir, 'events.out.tfevents.fixture')).equals(EVENTS)).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'train', 'events.out.tfevents.fixture')).equals(EVENTS)).toBe(true);
    // Only the run's tensorboard folder was listed (prefix), and each event file read once.
    expect(gcs.requests.filter((q) => q.includes('?alt=media'))).toHaveLength(2);
    expect(gcs.requests.find((q) => q.includes('prefix='))).toContain(`prefix=${encodeURIComponent(object('')).replace(/%20/g, '+')}`);
    const again = await runCli(['tensorboard', 'rl-qwen3', '--dir', dir, '--no-serve'], env);
    expect(again.stdout.split('\n')[0]).toBe(`${logdir} -> ${dir}: 0 file(s) copied, 2 already there`);
    expect(gcs.requests.filter((q) => q.includes('?alt=media'))).toHaveLength(2);
  } finally {
    await gcs.close();
  }
});

test('an object whose name leaves the folder is refused and named, never written', async () => {
  const { gcs, dir, env } = await setup();
  try {
    gcs.objects.set(object('../../../escape'), { data: Buffer.from('x'), generation: 9 });
    const r = await runCli(['tensorboard', 'rl-qwen3', '--dir', path.join(dir, 'tb'), '--no-serve'], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`note: gs://${platform.bucket}/${object('../../../escape')}: its name leaves ${path.join(dir, 'tb')}; not copied\n`);
    expect(fs.existsSync(path.join(dir, 'escape'))).toBe(false);
    expect(fs.readdirSync(dir)).toEqual(['tb']);
  } finally {
    await gcs.close();
  }
});

test('a login the bucket refuses: the reason, exit 4, nothing written', async () => {
  const { gcs, dir, env } = await setup('another-token');
  try {
    const r = await runCli(['tensorboard', 'rl-qwen3', '--dir', path.join(dir, 'tb'), '--no-serve'], env);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(`note: cannot list ${logdir}: HTTP 401: your gcloud login may not list gs://${platform.bucket} (roles/storage.objectViewer)\n`);
    expect(fs.existsSync(path.join(dir, 'tb'))).toBe(false);
  } finally {
    await gcs.close();
  }
});

test.each([
  [['tensorboard'], 'status: tensorboard takes exactly one pipeline, got none'],
  [['tensorboard', 'rl-qwen3', '--port', '70000'], "status: --port must be a TCP port (1-65535), got '70000'"],
])('%j exits 2: %s', async (args, message) => {
  const r = await runCli(args, { HOME: '/nonexistent-home' });
  expect(r.code).toBe(2);
  expect(r.stderr.split('\n')[0]).toBe(message);
});

test('with tensorboard on PATH it runs `tensorboard --logdir <folder> --port <n>` and exits as it does', async () => {
  const { gcs, dir, env } = await setup();
  try {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-tb-bin-'));
    removeAfter(bin);
    const argsFile = path.join(bin, 'args');
    fs.writeFileSync(path.join(bin, 'tensorboard'), `#!/bin/sh\necho "$@" > ${argsFile}\n`, { mode: 0o755 });
    const r = await runCli(['tensorboard', 'rl-qwen3', '--dir', path.join(dir, 'tb'), '--port', '7007'], { ...env, PATH: `${bin}${path.delimiter}${env.PATH}` });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[1]).toBe(`tensorboard --logdir ${path.join(dir, 'tb')} --port 7007   (Ctrl-C to stop)`);
    expect(fs.readFileSync(argsFile, 'utf8')).toBe(`--logdir ${path.join(dir, 'tb')} --port 7007\n`);
  } finally {
    await gcs.close();
  }
});
