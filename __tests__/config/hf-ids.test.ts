/**
 * Bad repository ids (issue 32 item 6, `hfModel`, `tokenizer`, `dataset.hf`; jobs/hf-id.ts) and a bad reward (item 3),
 * as a user runs them (`node dist/main.js`): exit 1, the file key named, the value escaped, the fix said, nothing
 * written. The id rules themselves are unit-tested below.
 */
import { APP_NODE_FLAGS } from '../../review/load';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { hfIdProblem } from '../../jobs/hf-id';
import { ensureDist } from '../dist';

const ROOT = path.join(__dirname, '..', '..');
const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'config', 'example.json'), 'utf8'));
const REAL = { PROJECT: 'acme-tpu-prod', GCS_BUCKET: 'acme-post-train-ckpt', RESERVATION: 'acme-v6e-32', AUTHORIZED_CIDR: '198.18.0.0/15' };
const GRPO = { method: 'grpo', model: 'qwen3-8b', hfModel: 'Qwen/Qwen3-8B', dataset: { hf: 'openai/gsm8k', config: 'main' }, slice: 'v6e-32' };

beforeAll(ensureDist);

/** Runs the entry point on the example with `entry` as pipelines.mine. */
function runWith(entry: Record<string, unknown>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-ids-'));
  const file = path.join(dir, 'config.json');
  fs.writeFileSync(file, JSON.stringify({ ...example, pipelines: { ...example.pipelines, mine: entry } }, null, 2));
  const outdir = path.join(dir, 'cdktf.out');
  const r = spawnSync(process.execPath, [...APP_NODE_FLAGS, path.join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, CDKTF_OUTDIR: outdir, CONFIG_FILE: file, ...REAL },
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout, wrote: fs.existsSync(outdir), file };
}

function refused(entry: Record<string, unknown>, ...expected: string[]) {
  const r = runWith(entry);
  expect({ status: r.status, wrote: r.wrote, stdout: r.stdout }).toEqual({ status: 1, wrote: false, stdout: '' });
  expect(r.stderr).toMatch(/^[\x20-\x7e\n]*$/);
  for (const line of expected) expect(r.stderr).toContain(line.replace('<file>', r.file));
}

describe('hfModel and dataset.hf that are no repository id: exit 1, key, escaped value, fix, nothing written', () => {
  test('a URL', () => {
    refused({ ...GRPO, hfModel: 'https://huggingface.co/Qwen/Qwen3-8B' }, "<file>: pipelines.mine.hfModel: 'https://huggingface.co/Qwen/Qwen3-8B' is a URL, not a repository id: write 'Qwen/Qwen3-8B'");
    refused(
      { ...GRPO, dataset: { hf: 'https://huggingface.co/datasets/openai/gsm8k/tree/main', config: 'main' } },
      "<file>: pipelines.mine.dataset.hf: 'https://huggingface.co/datasets/openai/gsm8k/tree/main' is a URL, not a repository id: write 'openai/gsm8k'",
    );
  });
  test('control characters, shown escaped', () => {
    refused({ ...GRPO, hfModel: 'Qwen/Qwen3-8B\u0007\u200b' }, "<file>: pipelines.mine.hfModel: 'Qwen/Qwen3-8B\\u0007\\u200b' contains a control character or a space");
    refused({ ...GRPO, dataset: { hf: 'openai/\tgsm8k' } }, "<file>: pipelines.mine.dataset.hf: 'openai/\\tgsm8k' contains a control character or a space");
  });
  test('no owner', () => {
    refused({ ...GRPO, hfModel: 'Qwen3-8B' }, "<file>: pipelines.mine.hfModel: 'Qwen3-8B' names no owner: write 'owner/name' as the Hub shows it, e.g. 'Qwen/Qwen3-8B'");
    refused({ ...GRPO, dataset: { hf: 'gsm8k' } }, "<file>: pipelines.mine.dataset.hf: 'gsm8k' names no owner: write 'owner/name' as the Hub shows it, e.g. 'openai/gsm8k'");
  });
  test('trailing spaces', () => {
    refused({ ...GRPO, hfModel: 'Qwen/Qwen3-8B  ' }, "<file>: pipelines.mine.hfModel: 'Qwen/Qwen3-8B  ' has spaces around it: write 'Qwen/Qwen3-8B'");
    refused({ ...GRPO, dataset: { hf: 'openai/gsm8k ' } }, "<file>: pipelines.mine.dataset.hf: 'openai/gsm8k ' has spaces around it: write 'openai/gsm8k'");
  });
  test('a tokenizer too', () => {
    refused({ ...GRPO, tokenizer: 'hf.co/Qwen/Qwen3-8B' }, "<file>: pipelines.mine.tokenizer: 'hf.co/Qwen/Qwen3-8B' is a URL, not a repository id: write 'Qwen/Qwen3-8B'");
  });
  test('a reward without **kwargs (item 3), from the entry point', () => {
    refused({ ...GRPO, reward: '__tests__/config/fixtures/reward-no-kwargs.py' }, "<file>: pipelines.mine.reward: '__tests__/config/fixtures/reward-no-kwargs.py' line 4: score has no **kwargs");
  });
});

describe('the id rules (huggingface_hub validate_repo_id, with an owner)', () => {
  test.each([
    ['Qwen/Qwen3-8B', undefined],
    ['HuggingFaceH4/ultrachat_200k', undefined],
    ['a/b', undefined],
    ['Qwen/Qwen3--8B', 'is not a repository id'],
    ['Qwen/Qwen3..8B', 'is not a repository id'],
    ['Qwen/-x', 'is not a repository id'],
    ['Qwen/x.', 'is not a repository id'],
    ['Qwen/x.git', 'is not a repository id'],
    [`Qwen/${'x'.repeat(97)}`, 'is not a repository id'],
    ['Qwen/Qwén', 'is not a repository id'],
    ['datasets/openai/gsm8k', "has 2 '/'"],
    ['/Qwen3-8B', 'is not a repository id'],
    ['', 'names no owner'],
  ])('%j', (id, problem) => {
    const got = hfIdProblem(id, 'Qwen/Qwen3-8B');
    if (problem === undefined) expect(got).toBeUndefined();
    else expect(got).toContain(problem);
  });
});
