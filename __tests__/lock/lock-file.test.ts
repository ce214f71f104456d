/**
 * The lock file (jobs/lock.ts parseLock, serializeLock; config/load.ts readLock): a bad lock is refused naming the
 * entry and the JSON path (hand-edited, truncated, a digest of the wrong length, duplicate keys), a good one reads
 * back byte for byte, and the shipped lock parses and says honestly what it could not resolve.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { emptyLock, hubKey, parseLock, pinnedImage, serializeLock, splitHubKey, unpinnedImage } from '../../jobs/lock';
import { readLock } from '../../config/load';
import { ConfigError } from '../../config/load';

const KUBECTL = 'registry.k8s.io/kubectl:v1.36.2';
const DIGEST = 'sha256:b0d792e0d8dfb9bb1b922b78b23137e2a34bb6f9667640353a9d2aadd1fd7761';
const COMMIT = '0123456789abcdef0123456789abcdef01234567';

function goodLock() {
  const lock = emptyLock();
  lock.images[KUBECTL] = { digest: DIGEST, source: 'test' };
  lock.models['Qwen/Qwen3-8B@main'] = {
    commit: COMMIT,
    config: { architectures: ['Qwen3ForCausalLM'], num_hidden_layers: 36, hidden_size: 4096, num_key_value_heads: 8 },
    tokenizer: { bosToken: null, addBosToken: false, chatTemplate: true, chatTemplateSha256: 'a'.repeat(64) },
  };
  lock.datasets['openai/gsm8k@main'] = { commit: COMMIT, configs: { main: { splits: ['train', 'test'], columns: { question: 'text', answer: 'text' } } } };
  lock.unresolved.push({ kind: 'image', key: 'vllm/vllm-tpu:nightly', why: 'test' });
  return lock;
}

test('a lock is written with sorted keys and reads back unchanged (stable: a second write is the same bytes)', () => {
  const text = serializeLock(goodLock());
  expect(text.indexOf('"datasets"')).toBeLessThan(text.indexOf('"images"'));
  expect(text.indexOf('"images"')).toBeLessThan(text.indexOf('"models"'));
  expect(text.endsWith('}\n')).toBe(true);
  const back = parseLock(text);
  expect(back.problems).toEqual([]);
  expect(serializeLock(back.lock!)).toBe(text);
});

test('a truncated lock is refused, saying so and what to do', () => {
  const text = serializeLock(goodLock());
  const r = parseLock(text.slice(0, text.length / 2), 'post-training.lock.json');
  expect(r.lock).toBeUndefined();
  expect(r.problems[0]).toMatch(/^post-training\.lock\.json: is not valid JSON \(.*truncated or hand-edited\?\); .*npm run lock/);
});

test('an empty lock file is refused', () => {
  expect(parseLock('').problems[0]).toMatch(/post-training\.lock\.json: is empty/);
});

test('a digest of the wrong length is refused naming the entry, the JSON path and the length', () => {
  const lock = goodLock();
  lock.images[KUBECTL] = { digest: DIGEST.slice(0, -1), source: 'test' };
  const r = parseLock(serializeLock(lock));
  expect(r.problems).toEqual([
    `post-training.lock.json: images.${KUBECTL}.digest: must be sha256:<64 lowercase hex digits>, got '${DIGEST.slice(0, -1)}' (63 hex digits, 64 needed)`,
  ]);
});

test('a hand-edited commit, an unknown column type, a missing split list and an unknown key are each refused by path', () => {
  const raw = JSON.parse(serializeLock(goodLock()));
  raw.models['Qwen/Qwen3-8B@main'].commit = 'abc123';
  raw.datasets['openai/gsm8k@main'].configs.main.columns.answer = 'string';
  delete raw.datasets['openai/gsm8k@main'].configs.main.splits;
  raw.images[KUBECTL].pinnedBy = 'me';
  const problems = parseLock(JSON.stringify(raw)).problems;
  expect(problems).toContain(`post-training.lock.json: models.Qwen/Qwen3-8B@main.commit: must be a commit: 40 lowercase hex digits, got 'abc123'`);
  expect(problems.some((p) => p.startsWith(`post-training.lock.json: datasets.openai/gsm8k@main.configs.main.columns.answer: Invalid enum value`))).toBe(true);
  expect(problems).toContain(`post-training.lock.json: datasets.openai/gsm8k@main.configs.main.splits: missing (array required)`);
  expect(problems).toContain(`post-training.lock.json: images.${KUBECTL}: unknown key(s) 'pinnedBy'`);
});

test('duplicate keys are refused naming the key, where it is and its line (JSON.parse would keep the last silently)', () => {
  const text = serializeLock(goodLock()).replace(`"digest": "${DIGEST}",`, `"digest": "${DIGEST}",\n      "digest": "sha256:${'0'.repeat(64)}",`);
  expect(JSON.parse(text).images[KUBECTL].digest).toBe(`sha256:${'0'.repeat(64)}`);
  const r = parseLock(text);
  expect(r.lock).toBeUndefined();
  expect(r.problems).toEqual([expect.stringMatching(/^post-training\.lock\.json: duplicate key "digest" at images\.registry\.k8s\.io\/kubectl:v1\.36\.2\.digest \(line 22, column 7\): JSON keeps only the last one/)]);
});

test('a duplicate entry (the same image twice) is refused', () => {
  const text = serializeLock(goodLock()).replace(`"images": {`, `"images": {\n    "${KUBECTL}": { "digest": "${DIGEST}", "source": "x" },`);
  expect(parseLock(text).problems[0]).toMatch(/duplicate key "registry\.k8s\.io\/kubectl:v1\.36\.2" at images\.registry/);
});

test('keys must be what the program writes: an image tag reference, <repo>@<revision>', () => {
  const raw = JSON.parse(serializeLock(goodLock()));
  raw.images[`${KUBECTL}@${DIGEST}`] = raw.images[KUBECTL];
  raw.models['Qwen/Qwen3-8B'] = raw.models['Qwen/Qwen3-8B@main'];
  expect(parseLock(JSON.stringify(raw)).problems).toEqual([
    `post-training.lock.json: images.${KUBECTL}@${DIGEST}: the key must be an image reference with a tag and no digest, as the program writes it (e.g. registry.k8s.io/kubectl:v1.36.2)`,
    `post-training.lock.json: models.Qwen/Qwen3-8B: the key must be <owner>/<name>@<revision> (a Hub repository id and the revision as configured, main when none is)`,
  ]);
});

test('a version other than 1 is refused', () => {
  const raw = JSON.parse(serializeLock(goodLock()));
  raw.version = 2;
  expect(parseLock(JSON.stringify(raw)).problems).toEqual([`post-training.lock.json: version: Invalid literal value, expected 1, got '2'`]);
});

test('hub keys: main when no revision is configured; split at the last @', () => {
  expect(hubKey('openai/gsm8k')).toBe('openai/gsm8k@main');
  expect(hubKey('openai/gsm8k', COMMIT)).toBe(`openai/gsm8k@${COMMIT}`);
  expect(splitHubKey('openai/gsm8k@refs/pr/1')).toEqual({ repo: 'openai/gsm8k', revision: 'refs/pr/1' });
  expect(splitHubKey('gpt2@main')).toEqual({ repo: 'gpt2', revision: 'main' });
  expect(splitHubKey('openai/gsm8k')).toBeUndefined();
});

test('an image is pinned tag@digest where locked, left as given elsewhere; unpinnedImage gives the key back', () => {
  const lock = goodLock();
  expect(pinnedImage(KUBECTL, lock)).toBe(`${KUBECTL}@${DIGEST}`);
  expect(pinnedImage('vllm/vllm-tpu:nightly', lock)).toBe('vllm/vllm-tpu:nightly');
  expect(pinnedImage(KUBECTL, undefined)).toBe(KUBECTL);
  expect(unpinnedImage(`${KUBECTL}@${DIGEST}`)).toBe(KUBECTL);
});

describe('readLock (config/)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lock-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('no lock file is no lock', () => {
    expect(readLock(dir)).toEqual({ file: 'post-training.lock.json' });
  });

  test('a bad lock is a ConfigError naming the entry', () => {
    fs.writeFileSync(path.join(dir, 'post-training.lock.json'), serializeLock(goodLock()).replace(DIGEST, 'sha256:abc'));
    expect(() => readLock(dir)).toThrow(ConfigError);
    expect(() => readLock(dir)).toThrow(/images\.registry\.k8s\.io\/kubectl:v1\.36\.2\.digest: must be sha256/);
  });

  test('the shipped lock parses: kubectl is locked (cited), everything else unresolved with why', () => {
    const shipped = readLock(path.join(__dirname, '..', '..'));
    expect(shipped.lock!.images).toEqual({ [KUBECTL]: { digest: DIGEST, source: expect.stringMatching(/^cited, not resolved here/) } });
    expect(shipped.lock!.models).toEqual({});
    expect(shipped.lock!.unresolved.map((u) => `${u.kind} ${u.key}`)).toEqual(
      expect.arrayContaining(['image vllm/vllm-tpu:nightly-20260816-11250b4-1d2d83a', 'model Qwen/Qwen3-8B@main', 'dataset openai/gsm8k@main']),
    );
    expect(fs.readFileSync(path.join(__dirname, '..', '..', 'post-training.lock.json'), 'utf8')).toBe(serializeLock(shipped.lock!));
  });
});
