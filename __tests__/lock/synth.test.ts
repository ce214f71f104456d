/**
 * Synth reads only the lock, offline (jobs/lock-apply.ts, config/pipelines.ts): with every fact locked, every image of
 * every checked-in config is `tag@sha256:...`, the model and dataset revisions are the locked commits (the run and eval
 * records carry them), and the rehearsal proof says `imagesPinnedBy: "digest"`; each pipeline is checked against the
 * locked facts (config and split exist, columns fit, config.json is its row's; the eval follows the tokenizer's BOS);
 * a fact the lock lacks is one note naming `npm run lock`, and `requireLock: true` refuses it. No network: fetch throws.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ConfigError, findRepoRoot, loadConfig } from '../../config/load';
import { loadDeployment } from '../../config/deployment';
import { pipelineRecipes } from '../../config/pipelines';
import { emptyLock, hubKey, Lock, serializeLock } from '../../jobs/lock';
import { dataUseOf, lockTargetsOf, pipelineImages } from '../../jobs/lock-apply';
import { modelRow } from '../../jobs/models';
import { taskUtilsPy } from '../../jobs/eval';
import { configFiles } from '../../lock/cli';
import { configFile } from '../util';

const ROOT = findRepoRoot();
const COMMIT = 'c'.repeat(40);
const digestOf = (ref: string) => `sha256:${Buffer.from(ref).toString('hex').padEnd(64, '0').slice(0, 64)}`;

/** A lock of every fact every checked-in config names, each agreeing with what the config asks (for synth). */
function fullLock(): Lock {
  const lock = emptyLock();
  for (const file of configFiles(ROOT)) {
    const loaded = loadConfig({ file, env: {}, lock: 'ignore' });
    for (const [name, given] of Object.entries(pipelineRecipes(loaded).recipes)) {
      const image = loaded.config.pipelines[name]?.image;
      const recipe = image !== undefined ? { ...given, image } : given;
      const t = lockTargetsOf(recipe);
      for (const i of t.images) lock.images[i] = { digest: digestOf(i), source: 'test' };
      const row = modelRow(recipe.model.name)!;
      lock.models[t.models[0]!] = {
        commit: COMMIT,
        config: { architectures: [...row.hfArchitectures], num_hidden_layers: row.layers, hidden_size: row.hidden, num_key_value_heads: row.kvHeads },
        tokenizer: { bosToken: '<bos>', addBosToken: true, chatTemplate: true, chatTemplateSha256: 'd'.repeat(64) },
      };
      const data = dataUseOf(recipe);
      if (!data) continue;
      const entry = (lock.datasets[hubKey(data.repo, data.revision)] ??= { commit: COMMIT, configs: {} });
      const config = (entry.configs[data.config ?? 'default'] ??= { splits: [], columns: { question: 'text', answer: 'text' } });
      for (const s of data.splits) if (!config.splits.includes(s.split)) config.splits.push(s.split);
      if (config.splits.length === 0) config.splits.push('train');
      for (const c of data.columns ?? []) config.columns[c] = c === 'messages' ? 'messages' : 'text';
    }
  }
  return lock;
}

let dir: string;
let realFetch: typeof fetch;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lock-synth-'));
  realFetch = globalThis.fetch;
  globalThis.fetch = (() => {
    throw new Error('synth asked the network');
  }) as typeof fetch;
});
afterEach(() => {
  globalThis.fetch = realFetch;
  fs.rmSync(dir, { recursive: true, force: true });
});

function writeLock(lock: Lock): string {
  const file = path.join(dir, 'post-training.lock.json');
  fs.writeFileSync(file, serializeLock(lock));
  return file;
}

test('every checked-in config synthesizes from a full lock, offline: every image by digest, revisions locked, proof by digest', () => {
  const lockFile = writeLock(fullLock());
  let proofs = 0;
  for (const file of configFiles(ROOT)) {
    const d = loadDeployment({ file, env: { TPU_CAPACITY: 'flex-start' }, lockFile });
    expect([file, d.lockNote]).toEqual([file, undefined]);
    for (const p of d.pipelines) {
      expect([p.name, pipelineImages(p).filter((i) => !/@sha256:[0-9a-f]{64}$/.test(i))]).toEqual([p.name, []]);
      expect(p.model.hfRevision).toBe(COMMIT);
      expect(p.runRecords['to-maxtext'].record.hfRevision).toBe(COMMIT);
      expect(p.runRecords['train'].record.image).toMatch(/@sha256:/);
      if (p.recipe.lineage?.dataset) expect(p.runRecords['train'].record.dataset?.revision).toBe(COMMIT);
      if (p.eval) expect(p.runRecords['eval']?.record).toMatchObject({ hfRevision: COMMIT, image: expect.stringMatching(/^vllm\/vllm-tpu:nightly-20260816-11250b4-1d2d83a@sha256:/) });
      if (p.rehearsalCheck && 'proof' in p.rehearsalCheck) {
        expect(p.rehearsalCheck.proof.imagesPinnedBy).toBe('digest');
        proofs++;
      }
    }
  }
  expect(proofs).toBeGreaterThan(0);
});

test('the shipped lock: kubectl by digest in a flex-start pipeline, the rest by tag with one note naming npm run lock', () => {
  const d = loadDeployment({ env: { TPU_CAPACITY: 'flex-start' } });
  const p = d.pipelines.find((x) => x.name === 'rl-qwen3')!;
  expect(pipelineImages(p)).toContain('registry.k8s.io/kubectl:v1.36.2@sha256:b0d792e0d8dfb9bb1b922b78b23137e2a34bb6f9667640353a9d2aadd1fd7761');
  expect(pipelineImages(p)).toContain('us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:latest');
  expect([d.lockNote]).toEqual([expect.stringMatching(/^post-training\.lock\.json lacks dataset .*image us-docker\.pkg\.dev\/cloud-tpu-v2-images\/pathways\/server:latest, .*model Qwen\/Qwen3-30B-A3B-Instruct-2507@main.*run `npm run lock`/)]);
  const sft = loadDeployment({ file: 'config/examples/sft-llama3-8b.json', env: {} }).pipelines[0]!;
  expect(sft.rehearsalCheck && 'proof' in sft.rehearsalCheck && sft.rehearsalCheck.proof.imagesPinnedBy).toBe('tag');
});

test('no lock file: the note says so', () => {
  const d = loadDeployment({ env: {}, lockFile: path.join(dir, 'absent.json') });
  expect([d.lockNote]).toEqual([expect.stringMatching(/^no .*absent\.json, so unlocked: dataset /)]);
});

test('requireLock: true refuses each fact the lock lacks, naming requireLock and npm run lock', () => {
  const file = configFile((c) => (c.requireLock = true));
  let issues: readonly string[] = [];
  try {
    loadDeployment({ file, env: {} });
  } catch (e) {
    issues = (e as ConfigError).issues;
  }
  expect(issues).toContain(
    `${file}: requireLock (rl-qwen3): model Qwen/Qwen3-30B-A3B-Instruct-2507@main is not in post-training.lock.json (its commit and config would be resolved at run time); run \`npm run lock\` where the registries and the Hub answer, and commit the lock`,
  );
  expect(issues).toContain(
    `${file}: requireLock (rl-qwen3): image us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:latest is not in post-training.lock.json (it would be pulled by tag); run \`npm run lock\` where the registries and the Hub answer, and commit the lock`,
  );
  // With everything locked, requireLock builds.
  expect(() => loadDeployment({ file, env: {}, lockFile: writeLock(fullLock()) })).not.toThrow();
});

/** The deployment of sft-llama3-8b.json with `edit` applied to the full lock's entries, or its ConfigError issues. */
function sftWith(edit: (lock: Lock) => void): readonly string[] {
  const lock = fullLock();
  edit(lock);
  try {
    loadDeployment({ file: 'config/examples/sft-llama3-8b.json', env: {}, lockFile: writeLock(lock) });
    return [];
  } catch (e) {
    return (e as ConfigError).issues;
  }
}

test('a split the locked dataset lacks is refused, naming the MaxText key, the lock key and what it has', () => {
  const issues = sftWith((l) => (l.datasets['HuggingFaceH4/ultrachat_200k@main']!.configs.default!.splits = ['train_gen', 'test_gen']));
  expect(issues).toContain(
    "config/examples/sft-llama3-8b.json: pipelines.sft-llama3-support: dataset HuggingFaceH4/ultrachat_200k config 'default' has no split 'train_sft' (train_split; the lock's HuggingFaceH4/ultrachat_200k@main has train_gen, test_gen); set dataset.split to one of them",
  );
});

test('a config the locked dataset lacks is refused, naming the configs it has', () => {
  const issues = sftWith((l) => {
    const ds = l.datasets['HuggingFaceH4/ultrachat_200k@main']!;
    ds.configs = { a: ds.configs.default!, b: ds.configs.default! };
  });
  expect(issues).toContain(
    "config/examples/sft-llama3-8b.json: pipelines.sft-llama3-support: dataset HuggingFaceH4/ultrachat_200k has no config 'default' at ccccccc (the lock's HuggingFaceH4/ultrachat_200k@main: a, b); set dataset.config to one of them",
  );
});

test('a column the dataset lacks, or one of numbers, is refused', () => {
  expect(sftWith((l) => (l.datasets['HuggingFaceH4/ultrachat_200k@main']!.configs.default!.columns = { text: 'text' }))).toContain(
    "config/examples/sft-llama3-8b.json: pipelines.sft-llama3-support: dataset HuggingFaceH4/ultrachat_200k config 'default' has no column 'messages' (train_data_columns; it has text); set dataset.columns",
  );
  expect(sftWith((l) => (l.datasets['HuggingFaceH4/ultrachat_200k@main']!.configs.default!.columns = { messages: 'number' }))).toContain(
    "config/examples/sft-llama3-8b.json: pipelines.sft-llama3-support: column 'messages' of HuggingFaceH4/ultrachat_200k holds numbers; SFT trains on text or message columns",
  );
});

test("a model whose locked config.json is not its row's is refused naming what differs", () => {
  const issues = sftWith((l) => {
    const m = l.models['meta-llama/Llama-3.1-8B-Instruct@main']!;
    m.config = { ...m.config, architectures: ['MistralForCausalLM'], num_hidden_layers: 40 };
  });
  expect(issues).toContain(
    "config/examples/sft-llama3-8b.json: pipelines.sft-llama3-support: meta-llama/Llama-3.1-8B-Instruct's config.json (the lock's meta-llama/Llama-3.1-8B-Instruct@main) has architectures MistralForCausalLM where llama3.1-8b converts LlamaForCausalLM, 40 layers where llama3.1-8b has 32: it is not a llama3.1-8b checkpoint; set model to the key that fits, or hfModel to a llama3.1-8b repository",
  );
});

test("RL's built-in processor needs a question and an answer column: refused naming the columns the dataset has", () => {
  const lock = fullLock();
  lock.datasets['openai/gsm8k@main']!.configs.main!.columns = { problem_text: 'text', final: 'text' };
  let issues: readonly string[] = [];
  try {
    loadDeployment({ env: {}, lockFile: writeLock(lock) });
  } catch (e) {
    issues = (e as ConfigError).issues;
  }
  expect(issues).toContain(
    "config/example.json: pipelines.rl-gemma4: MaxText's built-in process_data (rl/utils_rl.py) reads a problem|prompt|question and an answer|solution|expected_answer column; openai/gsm8k config 'main' has final, problem_text: add dataset.processor",
  );
});

test("the eval follows the tokenizer's BOS, locked or not: the rendered text loses the template's BOS text (the tokenizer's own bos_token at run time, jobs/eval.ts _no_bos), so lm-eval's and the server's BOS are the only one", () => {
  const locked = loadDeployment({ file: 'config/examples/sft-llama3-8b.json', env: {}, lockFile: writeLock(fullLock()) });
  const unlocked = loadDeployment({ file: 'config/examples/sft-llama3-8b.json', env: {}, lock: 'ignore' });
  for (const d of [locked, unlocked]) {
    const py = taskUtilsPy(d.pipelines[0]!.eval!);
    expect(py).toContain('    bos = _tokenizer().bos_token');
    expect(py).toContain('    return dataset.map(lambda d: {"text": _no_bos(_tokenizer().apply_chat_template(_conversation(d), tokenize=False))})');
  }
});

test("the lock's column types meet the method's data path (jobs/methods columnTypesProblem): SFT text where messages are needed, DPO messages where text is needed, each refused naming the lock key", () => {
  const sft = sftWith((l) => (l.datasets['HuggingFaceH4/ultrachat_200k@main']!.configs.default!.columns = { messages: 'text' }));
  expect(sft.find((i) => i.includes("MaxText's SFT data path"))).toMatch(/^config\/examples\/sft-llama3-8b\.json: pipelines\.sft-llama3-support\.dataset\.columns: .*got messages: text .*\(column types as the lock's HuggingFaceH4\/ultrachat_200k@main holds them\)$/);
  const lock = fullLock();
  lock.datasets['argilla/distilabel-intel-orca-dpo-pairs@main']!.configs.default!.columns = { input: 'text', chosen: 'messages', rejected: 'messages' };
  let issues: readonly string[] = [];
  try {
    loadDeployment({ file: 'config/examples/dpo-llama3-8b.json', env: {}, lockFile: writeLock(lock) });
  } catch (e) {
    issues = (e as ConfigError).issues;
  }
  expect(issues.find((i) => i.includes("(column types as the lock's argilla/distilabel-intel-orca-dpo-pairs@main holds them)"))).toMatch(/chosen/);
  // Messages where SFT wants messages, text where DPO wants text: nothing (the full lock above synthesizes).
  expect(sftWith(() => undefined)).toEqual([]);
});
