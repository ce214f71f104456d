/**
 * `npm run lock` end to end (lock/cli.ts main) against the loopback registry and Hub, redirected by
 * REGISTRY_ENDPOINTS and HF_ENDPOINT: it writes a lock of every image, model and dataset the config names; `--check`
 * says the lock is current, then names old and new when a tag or a revision moved; what cannot be resolved is written
 * as unresolved with why (exit 1); a bad REGISTRY_ENDPOINTS is refused. The gcloud token is a stand-in (no Google Cloud here).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../../lock/cli';
import { parseLock } from '../../jobs/lock';
import { DIGESTS, FakeRegistry, startFakeRegistry } from './fake-registry';
import { COMMIT_A, COMMIT_B, FakeHub, GSM8K, HubRepo, QWEN3_8B, startFakeHub, ULTRACHAT } from './fake-hub';

const CONFIG = 'config/examples/sft-llama3-8b.json';
const IMAGES = {
  'library/kubectl-unused:v0': 'single',
  'kubectl:v1.36.2': 'single',
  'cloud-tpu-images/maxtext-images/tpu_post_training:0.2.4': 'index',
  'cloud-tpu-v2-images/pathways/proxy_server:latest': 'index',
  'cloud-tpu-v2-images/pathways/server:latest': 'index',
  'vllm/vllm-tpu:nightly-20260816-11250b4-1d2d83a': 'index',
} as const;
const MODELS = ['Qwen/Qwen3-30B-A3B-Instruct-2507', 'google/gemma-4-26b-a4b-it', 'google/gemma-4-31b-it', 'meta-llama/Llama-3.1-8B-Instruct'];

let reg: FakeRegistry;
let hub: FakeHub;
let dir: string;
const models = (): Record<string, HubRepo> => Object.fromEntries(MODELS.map((m) => [m, QWEN3_8B]));
const datasets = () => ({ 'openai/gsm8k': GSM8K, 'HuggingFaceH4/ultrachat_200k': ULTRACHAT });

beforeEach(async () => {
  reg = await startFakeRegistry({ extra: IMAGES });
  hub = await startFakeHub(models(), datasets());
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lock-cli-'));
});
afterEach(async () => {
  await reg.close();
  await hub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function env(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HF_ENDPOINT: hub.base,
    REGISTRY_ENDPOINTS: JSON.stringify({ 'registry.k8s.io': reg.base, 'us-docker.pkg.dev': reg.base, 'registry-1.docker.io': reg.base }),
  };
}

async function run(args: string[], e: Record<string, string> = env()): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['--config', CONFIG, '--lock', path.join(dir, 'lock.json'), ...args], e, { write: (t: string) => (out += t) }, { write: (t: string) => (err += t) }, async () => undefined);
  return { code, out, err };
}

test('writes the lock of everything the config names, then --check says it is current', async () => {
  const first = await run([]);
  expect(first).toMatchObject({ code: 0, err: '' });
  expect(first.out).toMatch(/lock: 5 image\(s\), 4 model\(s\), 2 dataset\(s\) from 1 config\(s\)\nlock: wrote .*lock\.json \(5 image\(s\), 4 model\(s\), 2 dataset\(s\) locked; 0 unresolved\)\n$/);
  const lock = parseLock(fs.readFileSync(path.join(dir, 'lock.json'), 'utf8')).lock!;
  expect(lock.images['registry.k8s.io/kubectl:v1.36.2']!.digest).toBe(DIGESTS.single);
  expect(lock.images['vllm/vllm-tpu:nightly-20260816-11250b4-1d2d83a']!.digest).toBe(DIGESTS.index);
  expect(lock.models['meta-llama/Llama-3.1-8B-Instruct@main']!.commit).toBe(COMMIT_A);
  expect(lock.datasets['HuggingFaceH4/ultrachat_200k@main']!.configs.default!.columns.messages).toBe('messages');
  expect(lock.unresolved).toEqual([]);
  const check = await run(['--check']);
  expect(check).toMatchObject({ code: 0, err: '' });
  expect(check.out).toMatch(/lock --check: .*lock\.json is current\n$/);
});

test('--check names a moved tag and a moved revision, old and new, and writes nothing', async () => {
  await run([]);
  const before = fs.readFileSync(path.join(dir, 'lock.json'), 'utf8');
  await reg.close();
  reg = await startFakeRegistry({ extra: { ...IMAGES, 'kubectl:v1.36.2': 'moved' } });
  await hub.close();
  hub = await startFakeHub({ ...models(), 'google/gemma-4-31b-it': { ...QWEN3_8B, revisions: { main: COMMIT_B } } }, datasets());
  const check = await run(['--check']);
  expect(check.code).toBe(1);
  expect(check.err.split('\n').filter(Boolean)).toEqual([
    expect.stringMatching(new RegExp(`^lock --check: image registry\\.k8s\\.io/kubectl:v1\\.36\\.2 moved: the lock has ${DIGESTS.single}, the registry now sha256:[0-9a-f]{64}; run \`npm run lock\``)),
    `lock --check: model google/gemma-4-31b-it@main moved: the lock has commit ${COMMIT_A}, the Hub now ${COMMIT_B}; run \`npm run lock\` and review what changed`,
  ]);
  expect(fs.readFileSync(path.join(dir, 'lock.json'), 'utf8')).toBe(before);
});

test('--check without a lock: each thing is named as not in the lock', async () => {
  const check = await run(['--check']);
  expect(check.code).toBe(1);
  expect(check.err).toContain('lock --check: image registry.k8s.io/kubectl:v1.36.2 is not in post-training.lock.json');
});

test('what cannot be resolved is written as unresolved with why, and the exit says so', async () => {
  await hub.close();
  hub = await startFakeHub({ ...models(), 'meta-llama/Llama-3.1-8B-Instruct': { ...QWEN3_8B, gatedToken: 'hf_x' } }, datasets());
  const r = await run([]);
  expect(r.code).toBe(1);
  expect(r.err).toMatch(/^lock: unresolved model meta-llama\/Llama-3\.1-8B-Instruct@main: .*GatedRepo.*HF_TOKEN/);
  const lock = parseLock(fs.readFileSync(path.join(dir, 'lock.json'), 'utf8')).lock!;
  expect(lock.unresolved).toEqual([{ kind: 'model', key: 'meta-llama/Llama-3.1-8B-Instruct@main', why: expect.stringContaining('GatedRepo') }]);
  expect(await run([], { ...env(), HF_TOKEN: 'hf_x' })).toMatchObject({ code: 0 });
});

test('a bad REGISTRY_ENDPOINTS and an unknown flag are refused (exit 2)', async () => {
  expect(await run([], { ...env(), REGISTRY_ENDPOINTS: '{"registry.k8s.io": 5000}' })).toMatchObject({ code: 2, err: expect.stringContaining('REGISTRY_ENDPOINTS must be a JSON object from a registry host to a base URL') });
  expect(await run(['--chek'])).toMatchObject({ code: 2, err: expect.stringContaining("Unknown option '--chek'") });
});
