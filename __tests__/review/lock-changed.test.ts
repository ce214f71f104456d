/**
 * lock-changed (review/rules/lock-changed.ts): against `--base`, the review shows what post-training.lock.json changed
 * in a stack: a moved image digest or model commit is a warning naming old and new, a newly locked one a note. Real
 * syntheses of rl-qwen3 (flex-start: the lost-host watcher's kubectl) from two lock files (LOCK_FILE), diffed as
 * `npm run review -- --base` diffs them.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { diffSyntheses } from '../../review/diff';
import { synthesisFromJson } from '../../review/load';
import { lockChanged } from '../../review/rules/lock-changed';
import { emptyLock, Lock, serializeLock } from '../../jobs/lock';
import { MODELS } from '../../jobs/models';
import { synthStack } from '../util';

const KUBECTL = 'registry.k8s.io/kubectl:v1.36.2';
const SERVER = 'us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:latest';
const MODEL = 'Qwen/Qwen3-30B-A3B-Instruct-2507@main';
const A = `sha256:${'a'.repeat(64)}`;
const B = `sha256:${'b'.repeat(64)}`;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lock-review-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function lockFile(name: string, edit: (l: Lock) => void): string {
  const lock = emptyLock();
  lock.images[KUBECTL] = { digest: A, source: 'test' };
  edit(lock);
  const file = path.join(dir, name);
  fs.writeFileSync(file, serializeLock(lock));
  return file;
}

function modelEntry(commit: string): Lock['models'][string] {
  const row = MODELS['qwen3-30b-a3b']!;
  return {
    commit,
    config: { architectures: [...row.hfArchitectures], num_hidden_layers: row.layers, hidden_size: row.hidden, num_key_value_heads: row.kvHeads },
    tokenizer: { bosToken: null, addBosToken: false, chatTemplate: true },
  };
}

const synth = (file: string) => synthesisFromJson({ 'rl-qwen3': synthStack('rl-qwen3', { TPU_CAPACITY: 'flex-start', LOCK_FILE: file }) });

test('a moved digest is a warning naming old and new; a newly locked image and model are notes', () => {
  const base = synth(lockFile('base.json', () => undefined));
  const head = synth(lockFile('head.json', (l) => {
    l.images[KUBECTL] = { digest: B, source: 'test' };
    l.images[SERVER] = { digest: A, source: 'test' };
    l.models[MODEL] = modelEntry('c'.repeat(40));
  }));
  const found = lockChanged.check({ models: [], texts: [], plans: [], prices: undefined as never, diffs: diffSyntheses(base, head) });
  expect(found.map((f) => [f.rule, f.severity, f.stack, f.message])).toEqual([
    ['lock-changed', 'warning', 'rl-qwen3', `post-training.lock.json changed image ${KUBECTL}: digest sha256:aaaaaaaaaaaa... -> sha256:bbbbbbbbbbbb... (${B}): the steps run another image under the same tag`],
    ['lock-changed', 'note', 'rl-qwen3', `image ${SERVER} is now locked at digest ${A} (post-training.lock.json)`],
    ['lock-changed', 'note', 'rl-qwen3', `model Qwen/Qwen3-30B-A3B-Instruct-2507 is now locked at commit ${'c'.repeat(40)} (post-training.lock.json)`],
  ]);
  expect(found[0]!.fix).toMatch(/npm run lock -- --check/);
});

test('a moved model commit is a warning; the same lock on both sides is no finding', () => {
  const base = synth(lockFile('base.json', (l) => (l.models[MODEL] = modelEntry('c'.repeat(40)))));
  const head = synth(lockFile('head.json', (l) => (l.models[MODEL] = modelEntry('d'.repeat(40)))));
  const found = lockChanged.check({ models: [], texts: [], plans: [], prices: undefined as never, diffs: diffSyntheses(base, head) });
  expect(found.map((f) => [f.severity, f.message])).toEqual([
    ['warning', `post-training.lock.json changed model Qwen/Qwen3-30B-A3B-Instruct-2507: commit cccccccccccc -> dddddddddddd (${'d'.repeat(40)}): the steps run another commit`],
  ]);
  expect(lockChanged.check({ models: [], texts: [], plans: [], prices: undefined as never, diffs: diffSyntheses(base, base) })).toEqual([]);
});

test('a moved dataset commit (the run record of a pipeline with its own dataset) is a warning', () => {
  const DATA = 'HuggingFaceH4/ultrachat_200k@main';
  const dataset = (commit: string): Lock['datasets'][string] => ({ commit, configs: { default: { splits: ['train_sft', 'test_sft'], columns: { messages: 'messages' } } } });
  const sft = (file: string) => synthesisFromJson({ 'sft-llama3-support': synthStack('sft-llama3-support', { CONFIG_FILE: 'config/examples/sft-llama3-8b.json', LOCK_FILE: file }) });
  const base = sft(lockFile('base.json', (l) => (l.datasets[DATA] = dataset('e'.repeat(40)))));
  const head = sft(lockFile('head.json', (l) => (l.datasets[DATA] = dataset('f'.repeat(40)))));
  const found = lockChanged.check({ models: [], texts: [], plans: [], prices: undefined as never, diffs: diffSyntheses(base, head) });
  expect(found.map((f) => [f.severity, f.message])).toEqual([
    ['warning', `post-training.lock.json changed dataset HuggingFaceH4/ultrachat_200k: commit eeeeeeeeeeee -> ffffffffffff (${'f'.repeat(40)}): the steps run another commit`],
  ]);
});
