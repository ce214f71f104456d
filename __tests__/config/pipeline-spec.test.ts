/**
 * Pipelines as config entries (jobs/spec.ts, config/pipelines.ts): the defaults a new entry gets, what `extends`
 * changes, and one test per synth-time error, each asserting its message (the config key, the value, what fits).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadDeployment } from '../../config/deployment';
import { readRepoFile } from '../../config/pipelines';
import type { Deployment } from '../../jobs/deployment';
import { CONFIGMAP_MAX_BYTES, RECIPE_FILES_DIR } from '../../jobs/recipe-files';
import { definesProcessData, templateProblem, trainingValues } from '../../jobs/spec';
import { configFile, stackJobSets, synthStack, WITH_SINGLE_HOST } from '../util';

const REWARD = 'config/examples/rewards/final_number.py';
const SFT = { method: 'sft', model: 'llama3.1-8b', hfModel: 'meta-llama/Llama-3.1-8B-Instruct', dataset: { hf: 'HuggingFaceH4/ultrachat_200k', split: 'train_sft' }, slice: 'v6e-8' };
const GRPO = { method: 'grpo', model: 'qwen3-8b', hfModel: 'Qwen/Qwen3-8B', dataset: { hf: 'openai/gsm8k', config: 'main' }, reward: REWARD, slice: 'v6e-8' };

/** The example config plus `entries`, with exactly those pipelines selected and a v6e-8 pool next to the v6e-32 slices. */
function deploy(entries: Record<string, unknown>, env: Record<string, string> = {}): Deployment {
  const file = configFile((c) => Object.assign(c.pipelines, entries));
  return loadDeployment({ env: { CONFIG_FILE: file, PIPELINES: Object.keys(entries).join(','), ...WITH_SINGLE_HOST, ...env } });
}
function errorOf(entries: Record<string, unknown>, env: Record<string, string> = {}): string {
  try {
    deploy(entries, env);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a config error');
}
const script = (d: Deployment, name: string, step: string): string => {
  const manifest = d.pipelines.find((p) => p.name === name)!.steps.find((s) => s.name === step)!.manifest as any;
  return manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0].command[2];
};

test('one pass: every problem of every option of every pipeline in one message (issue 38)', () => {
  const message = errorOf({
    'rl-qwen3': { overrides: { num_batches: 'many', bogus_key: 1 }, eval: { tasks: ['nope'] } },
    'rl-llama3': { resumeRun: 'x y', overrides: { run_name: 'a/b' } },
  });
  for (const want of [
    "pipelines.rl-qwen3.eval.tasks: no lm-evaluation-harness task 'nope' here",
    "pipelines.rl-qwen3.overrides.bogus_key: not a key rl-qwen3 passes",
    "pipelines.rl-qwen3.overrides.num_batches must be a number, got 'many'",
    "pipelines.rl-llama3.overrides.run_name must be one directory name: no '/' and no '..', got 'a/b'",
    'pipelines.rl-llama3.resumeRun must be the run name of an earlier run',
  ]) {
    expect(message).toContain(want);
  }
});

test("`steps` reaches the method's key, the checkpoint period and the export's step (SFT steps, RL num_batches, a preset's too)", () => {
  const d = deploy({ mine: { ...SFT, steps: 400 }, rl: { ...GRPO, steps: 40 }, 'rl-llama3': { steps: 20 } });
  const sft = script(d, 'mine', 'train');
  expect(sft).toContain('steps=400');
  expect(sft).toContain('checkpoint_period=100');
  expect(script(d, 'mine', 'to-hf')).toContain('/checkpoints/400/model_params/');
  expect(script(d, 'rl', 'train')).toContain('num_batches=40');
  expect(script(d, 'rl', 'train')).toContain('checkpoint_period=10');
  expect(script(d, 'rl-llama3', 'train')).toContain('num_batches=20');
  expect(script(d, 'rl-llama3', 'to-hf')).toContain('/checkpoints/actor/20/model_params/');
});

describe('names a pipeline may not have (issue 32 item 6)', () => {
  test.each([
    ['infra', "pipelines.infra: 'infra' is the infra stack's name; a pipeline is a stack named after it: rename the entry (e.g. 'infra-run')"],
    ['serve-chat', "pipelines.serve-chat: 'serve-chat' starts with 'serve-', the prefix of the serve stack of a pipeline (serve-<pipeline>); a pipeline is a stack named after it: rename the entry (e.g. 'chat-serve')"],
    ['rehearse-x', "pipelines.rehearse-x: 'rehearse-x' starts with 'rehearse-', the prefix of the rehearse stack of a pipeline (rehearse-<pipeline>); a pipeline is a stack named after it: rename the entry (e.g. 'x-rehearse')"],
  ])('%s is refused naming the key, before any stack is built', (name, want) => {
    expect(errorOf({ [name]: SFT })).toContain(want);
  });

  test('a Pathways pipeline whose name leaves no room for a run id is refused on the name, not on runId ("at most 0 characters")', () => {
    const message = errorOf({ 'qwen3-math-support': { extends: 'rl-qwen3' } });
    expect(message).toContain("pipelines.qwen3-math-support: pipeline name 'qwen3-math-support' is too long for the names JobSet derives from it: with run id 'r1'");
    expect(message).toMatch(/names of this pipeline's shape may have at most 13 characters \(13 with run id 'r1'\): use a shorter pipeline name/);
    expect(message).not.toContain('at most 0 characters');
    expect(() => deploy({ 'qwen3-math-sup': { extends: 'rl-qwen3' } })).toThrow();
    expect(deploy({ 'qwen3-math-su': { extends: 'rl-qwen3' } }).pipelines.map((p) => p.name)).toEqual(['qwen3-math-su']);
  });
});

test("SFT columns: any set MaxText's SFT data processing accepts, in any order; the evaluation split reaches hf_eval_split and the heldout eval", () => {
  const d = deploy({ mine: { ...SFT, dataset: { hf: 'acme/qa', split: 'train', evalSplit: 'validation', columns: ['answer', 'question'] } } });
  const train = script(d, 'mine', 'train');
  expect(train).toContain(`train_data_columns='["answer", "question"]'`);
  expect(train).toContain('hf_eval_split=validation');
  expect(d.pipelines[0].eval?.heldout).toEqual({ path: 'acme/qa', split: 'validation', column: 'question,answer' });
  expect(script(deploy({ mine: { ...SFT, dataset: { hf: 'acme/pc', evalSplit: 'test', columns: ['prompt', 'completion'] } } }), 'mine', 'train')).toContain(`train_data_columns='["prompt", "completion"]'`);
});

describe('issue 44: combinations MaxText 0.2.4 rejects after the slice is paid for are refused at synth, naming the key', () => {
  test('the held-out task of a dataset that is not UltraChat needs dataset.evalSplit (sft.yml test_sft is UltraChat\'s); its config reaches the task file', () => {
    expect(errorOf({ mine: { ...SFT, dataset: { hf: 'acme/chat' } } })).toContain(
      "pipelines.mine.eval.tasks: 'heldout' scores the dataset's evaluation split, and mine names none for acme/chat: sft.yml's hf_eval_split 'test_sft' is HuggingFaceH4/ultrachat_200k's split",
    );
    expect(errorOf({ mine: { ...SFT, dataset: { hf: 'acme/chat' } } })).toContain('set dataset.evalSplit to a split of acme/chat that training does not read, or name other tasks in eval.tasks');
    const d = deploy({ mine: { ...SFT, dataset: { hf: 'acme/chat', config: 'beta', evalSplit: 'validation' } } });
    expect(d.pipelines[0].eval?.heldout).toEqual({ path: 'acme/chat', name: 'beta', split: 'validation', column: 'messages' });
    expect(script(d, 'mine', 'eval')).toContain('dataset_path: "acme/chat"\ndataset_name: "beta"\n');
    // Another task instead: nothing to refuse.
    expect(deploy({ mine: { ...SFT, dataset: { hf: 'acme/chat' }, eval: { tasks: ['mmlu'] } } }).pipelines[0].eval?.tasks).toEqual(['mmlu']);
  });
  test.each([
    [{ ...SFT, dataset: { hf: 'acme/pc', evalSplit: 'test', columns: ['prompt', 'completion'], columnTypes: { prompt: 'text', completion: 'text' } } }, "pipelines.mine.dataset.columns: MaxText's SFT data path needs [\"prompt\",\"completion\"] to hold lists of {role, content} messages, got prompt: text, completion: text"],
    [{ ...SFT, dataset: { hf: 'acme/pc', evalSplit: 'test', columnTypes: { messages: 'text' } } }, 'got messages: text'],
    [{ method: 'dpo', model: 'llama3.1-8b', hfModel: 'meta-llama/Llama-3.1-8B-Instruct', slice: 'v6e-8', dataset: { hf: 'acme/pref', columnTypes: { chosen: 'messages', rejected: 'messages' } } }, "pipelines.mine.dataset.columns: MaxText 0.2.4's DPO data path tokenizes plain text only and applies no chat template (input_pipeline/input_pipeline_utils.py tokenization), got chosen: messages, rejected: messages"],
  ])('a column layout the method\'s data path rejects: %p', (entry, want) => {
    expect(errorOf({ mine: entry })).toContain(want);
  });
  test('the layouts MaxText 0.2.4 accepts pass (scripts/upstream-checks/column_layouts.py)', () => {
    expect(deploy({ mine: { ...SFT, dataset: { hf: 'acme/pc', evalSplit: 'test', columns: ['prompt', 'completion'], columnTypes: { prompt: 'messages', completion: 'messages' } } } }).pipelines).toHaveLength(1);
    expect(deploy({ mine: { ...SFT, dataset: { hf: 'acme/qa', evalSplit: 'test', columns: ['question', 'answer'], columnTypes: { question: 'text', answer: 'text' } } } }).pipelines).toHaveLength(1);
    expect(deploy({ mine: { method: 'dpo', model: 'llama3.1-8b', hfModel: 'meta-llama/Llama-3.1-8B-Instruct', slice: 'v6e-8', dataset: { hf: 'acme/pref', columnTypes: { chosen: 'text', rejected: 'text' } } } }).pipelines).toHaveLength(1);
  });
  test("RL without a dataset config: hf_subset=null (load_dataset's default config), not rl.yml's 'main'; GSM8K keeps main", () => {
    const d = deploy({ own: { ...GRPO, dataset: { hf: 'acme/math' } }, gsm: { ...GRPO, runId: 'r2', dataset: { hf: 'openai/gsm8k' } }, cfg: { ...GRPO, runId: 'r3', dataset: { hf: 'acme/math', config: 'hard' } } });
    expect(script(d, 'own', 'train')).toContain('hf_subset=null');
    expect(script(d, 'gsm', 'train')).not.toContain('hf_subset');
    expect(script(d, 'cfg', 'train')).toContain('hf_subset=hard');
  });
});

test('fit advice for single-host RL that fits nowhere on one VM names the Pathways preset whose slice fits (issue 32)', () => {
  const message = errorOf({ mine: { ...GRPO, model: 'qwen3-14b', hfModel: 'Qwen/Qwen3-14B' } });
  expect(message).toContain('qwen3-14b does not fit ct6e-standard-8t 2x4');
  expect(message).toMatch(/to fit: run it on Pathways: set \S+config\.json: pipelines\.mine\.extends to rl-qwen3 \(ct6e-standard-4t 4x8 \(v6e-32\), where qwen3-14b fits, with that slice in infra\)/);
  expect(message).not.toContain('no larger v6e slice makes it fit');
  // And the advice holds: extending rl-qwen3 with that model on its v6e-32 synthesizes.
  const d = deploy({ mine: { extends: 'rl-qwen3', model: 'qwen3-14b', hfModel: 'Qwen/Qwen3-14B', dataset: GRPO.dataset, reward: REWARD } });
  expect(d.pipelines[0].slice.acceleratorType).toBe('v6e-32');
});

describe('dataset template and processor files (issue 32 item 2): shipped like the reward file, checked as MaxText reads them', () => {
  const TEMPLATE = 'config/examples/data/metamath_template.json';
  const PROCESSOR = 'config/examples/data/metamath_processor.py';
  test('both reach the ConfigMap and the command line; a new file is a new run', () => {
    const d = deploy({ mine: { ...GRPO, dataset: { hf: 'meta-math/MetaMathQA', template: TEMPLATE, processor: PROCESSOR } } });
    const train = script(d, 'mine', 'train');
    expect(train).toContain(`data_template_path=${RECIPE_FILES_DIR}/metamath_template.json`);
    expect(train).toContain(`dataset_processor_path=${RECIPE_FILES_DIR}/metamath_processor.py`);
    expect(Object.keys((d.pipelines[0].filesConfigMap as any).binaryData).sort()).toEqual(['final_number.py', 'metamath_processor.py', 'metamath_template.json']);
    const without = deploy({ mine: { ...GRPO, dataset: { hf: 'meta-math/MetaMathQA', template: TEMPLATE } } });
    expect(script(without, 'mine', 'train')).not.toContain('dataset_processor_path');
    expect(without.pipelines[0].paths.trainRunDir).not.toBe(d.pipelines[0].paths.trainRunDir);
  });
  test.each([
    [{ template: 'config/examples/data/missing.json' }, "pipelines.mine.dataset.template: 'config/examples/data/missing.json' not found in the repository"],
    [{ template: PROCESSOR }, `pipelines.mine.dataset.template: '${PROCESSOR}' must be a JSON file (.json): MaxText reads only .json templates`],
    [{ template: 'package.json' }, "pipelines.mine.dataset.template: 'package.json' has no string TEMPLATE or SYSTEM_PROMPT (rl/utils_rl.py process_data formats both)"],
    [{ processor: TEMPLATE }, `pipelines.mine.dataset.processor: '${TEMPLATE}' must be a Python file (.py): MaxText imports its process_data`],
    [{ processor: REWARD }, `pipelines.mine.dataset.processor: '${REWARD}' defines no top-level 'def process_data(dataset_name, model_tokenizer, template_config, tmvp_config, x)'`],
    [{ processor: 'config/examples/rewards/final_number.py', template: 'config/examples/rewards/final_number.py' }, 'must be a JSON file'],
  ])('%p is refused naming the key and the file', (files, want) => {
    expect(errorOf({ mine: { ...GRPO, dataset: { hf: 'x/y', ...files } } })).toContain(want);
  });
  test('on SFT and DPO a template or processor is refused (only train_rl reads them)', () => {
    expect(errorOf({ mine: { ...SFT, dataset: { hf: 'x/y', processor: PROCESSOR } } })).toContain('pipelines.mine.dataset: processor is for RL (data_template_path, dataset_processor_path)');
  });
});

test('templateProblem: what MaxText needs of a template', () => {
  expect(templateProblem('{"TEMPLATE": "{question}", "SYSTEM_PROMPT": "s"}')).toBeUndefined();
  expect(templateProblem('{"TEMPLATE": 1}')).toBe('has no string TEMPLATE or SYSTEM_PROMPT (rl/utils_rl.py process_data formats both)');
  expect(templateProblem('[]')).toBe('has no string TEMPLATE or SYSTEM_PROMPT (rl/utils_rl.py process_data formats both)');
  expect(templateProblem('{')).toMatch(/^is not valid JSON \(.*\); MaxText's load_data_template_from_file returns None and train_rl stops$/);
  expect(definesProcessData('def process_data(a, b, c, d, x):\n  return x\n')).toBe(true);
  expect(definesProcessData('  def process_data(x): pass\n')).toBe(false);
});

describe('typed training settings (issue 32 item 1): each sets its MaxText key, its default is the value that runs, the fit check sees it', () => {
  test('GRPO: prompts, generations, prompt and completion length, learning rate, beta, iterations', () => {
    const d = deploy({
      mine: { extends: 'rl-qwen3', training: { promptsPerStep: 16, generationsPerPrompt: 4, maxPromptLength: 512, maxCompletionLength: 512, learningRate: 1e-6, beta: 0.04, numIterations: 2 } },
    });
    const train = script(d, 'mine', 'train');
    for (const arg of ['batch_size=16', 'rl.num_generations=4', 'max_prefill_predict_length=512', 'max_target_length=1024', 'learning_rate=1e-6', 'rl.grpo_beta=0.04', 'rl.num_iterations=2']) {
      expect(train).toContain(arg);
    }
    expect(trainingValues(d.pipelines[0].recipe)).toEqual({ promptsPerStep: 16, generationsPerPrompt: 4, maxPromptLength: 512, maxCompletionLength: 512, learningRate: 1e-6, beta: 0.04, numIterations: 2 });
    // rl.num_iterations multiplies the training steps (num_batches x 2), and the checkpoint period follows.
    const batches = Number(/num_batches=(\d+)/.exec(train)![1]);
    expect(Number(/checkpoint_period=(\d+)/.exec(train)![1])).toBe((batches * 2) / 4);
  });
  test('defaults: the values that run without the block are the config files\' (rl.yml, sft.yml, dpo.yml) or the base\'s', () => {
    const d = deploy({ g: GRPO, s: { ...SFT, runId: 'r2' }, p: { method: 'dpo', model: 'llama3.1-8b', hfModel: 'meta-llama/Llama-3.1-8B-Instruct', dataset: { hf: 'Anthropic/hh-rlhf' }, slice: 'v6e-8', runId: 'r3' } });
    const values = (n: string) => trainingValues(d.pipelines.find((p) => p.name === n)!.recipe);
    expect(values('g')).toEqual({ promptsPerStep: 1, generationsPerPrompt: 2, maxPromptLength: 256, maxCompletionLength: 768, learningRate: 3e-6, beta: 0.08, numIterations: 1 });
    expect(values('s')).toEqual({ learningRate: 2e-5, schedule: 'cosine', warmupFraction: 0.1, maxSeqLen: 2048, perDeviceBatch: 1, packing: true });
    expect(values('p')).toEqual({ learningRate: 5e-7, beta: 0.1, maxSeqLen: 512, maxPromptLength: 256, perDeviceBatch: 1 });
  });
  test('the fit check reads them: a sequence length that does not fit is refused, advising a shorter one', () => {
    const message = errorOf({ mine: { ...SFT, training: { maxSeqLen: 65536, perDeviceBatch: 4 } } });
    expect(message).toContain('llama3.1-8b does not fit ct6e-standard-8t 2x4');
    // The advice names the typed setting the entry set (an override of max_target_length would be refused) ...
    expect(message).toMatch(/to fit: set \S+config\.json: pipelines\.mine\.training maxSeqLen=(\d+) \(now 65536\)/);
    const advised = Number(/training maxSeqLen=(\d+)/.exec(message)![1]);
    // ... and following it fits.
    expect(script(deploy({ mine: { ...SFT, training: { maxSeqLen: advised, perDeviceBatch: 4 } } }), 'mine', 'train')).toContain(`max_target_length=${advised}`);
  });
  test('refused: a setting of another method (did you mean), a value out of range, an override of the same key naming both', () => {
    expect(errorOf({ mine: { ...SFT, training: { generationsPerPrompt: 4, lerningRate: 1 } } })).toContain(
      'pipelines.mine.training.generationsPerPrompt: not a setting of sft; sft has learningRate, schedule, warmupFraction, maxSeqLen, perDeviceBatch, packing',
    );
    expect(errorOf({ mine: { ...SFT, training: { lerningRate: 1 } } })).toContain("pipelines.mine.training.lerningRate: not a setting of sft; sft has learningRate, schedule, warmupFraction, maxSeqLen, perDeviceBatch, packing (did you mean 'learningRate'?)");
    expect(errorOf({ mine: { ...GRPO, training: { generationsPerPrompt: 1.5 } } })).toContain('pipelines.mine.training.generationsPerPrompt: must be a whole number >= 1 (MaxText rl.num_generations), got 1.5');
    expect(errorOf({ mine: { ...SFT, training: { schedule: 'linear' } } })).toContain('pipelines.mine.training.schedule: must be one of cosine, wsd (MaxText lr_schedule_type), got "linear"');
    expect(errorOf({ mine: { ...SFT, training: { packing: 'yes' } } })).toContain('pipelines.mine.training.packing: must be true or false (MaxText packing), got "yes"');
    expect(errorOf({ mine: { ...GRPO, training: { learningRate: 1e-6 }, overrides: { learning_rate: 2e-6 } } })).toMatch(
      /\S+config\.json: pipelines\.mine\.overrides\.learning_rate: learning_rate is owned by the typed setting \S+config\.json: pipelines\.mine\.training\.learningRate \(peak learning rate; MaxText learning_rate\) \(\S+config\.json: pipelines\.mine\.training\.learningRate is also given\); remove the override and set it there: "training": \{"learningRate": 0\.000002\}/,
    );
  });
  test('an override of a key a typed setting owns is refused even without the setting (new pipeline and preset), nothing written', () => {
    expect(errorOf({ mine: { ...SFT, overrides: { per_device_batch_size: 2 } } })).toMatch(
      /pipelines\.mine\.overrides\.per_device_batch_size: per_device_batch_size is owned by the typed setting \S+config\.json: pipelines\.mine\.training\.perDeviceBatch \(sequences per chip per step; MaxText per_device_batch_size\); remove the override and set it there: "training": \{"perDeviceBatch": 2\}/,
    );
    expect(errorOf({ 'rl-qwen3': { overrides: { 'rl.num_generations': 8 } } })).toContain(
      'pipelines.rl-qwen3.overrides.rl.num_generations: rl.num_generations is owned by the typed setting',
    );
    expect(errorOf({ 'rl-qwen3': { overrides: { 'rl.num_generations': 8 } } })).toContain('"training": {"generationsPerPrompt": 8}');
    // The fix said works: the same value through the typed setting.
    expect(script(deploy({ 'rl-qwen3': { training: { generationsPerPrompt: 8 } } }), 'rl-qwen3', 'train')).toContain('rl.num_generations=8');
  });
  test('a preset takes the block too (rl-llama3: tutorial 002 with 4 generations)', () => {
    const d = deploy({ 'rl-llama3': { training: { generationsPerPrompt: 4 } } });
    expect(script(d, 'rl-llama3', 'train')).toContain('rl.num_generations=4');
  });
});

describe('defaults of a new pipeline', () => {
  test('SFT: MaxText keys from the entry; the tokenizer is the repository trained; 1000 steps; McJAX on the slice', () => {
    const d = deploy({ mine: SFT });
    const p = d.pipelines[0];
    expect(p).toMatchObject({ name: 'mine', runtime: 'mcjax', model: { name: 'llama3.1-8b', hfRepo: 'meta-llama/Llama-3.1-8B-Instruct', exportName: 'llama3.1-8b' } });
    const train = script(d, 'mine', 'train');
    for (const arg of ['model_name=llama3.1-8b', 'dataset_type=hf', 'hf_path=HuggingFaceH4/ultrachat_200k', 'train_split=train_sft', `train_data_columns='["messages"]'`, 'steps=1000', 'tokenizer_path=/tmp/tokenizer-at-revision', 'tokenizer and chat template: meta-llama/Llama-3.1-8B-Instruct at $TOKENIZER_REVISION']) {
      expect(train).toContain(arg);
    }
    expect(script(d, 'mine', 'to-maxtext')).toContain('--hf_model_path=meta-llama/Llama-3.1-8B-Instruct');
    expect(d.notices).toContain(
      `${d.provenance['pipelines.mine.method'].split(': ')[0]}: pipelines.mine: no hfRevision: the conversion takes whatever meta-llama/Llama-3.1-8B-Instruct's head is when it runs; pin a commit with hfRevision`,
    );
  });

  test('without slice a new pipeline trains on the main slices (here v6e-32): SFT fits there', () => {
    const { slice: _s, ...noSlice } = SFT;
    expect(deploy({ mine: noSlice }).pipelines[0].slice.chips).toBe(32);
  });

  test('GRPO: dataset, reward file and chips_per_vm; gspo sets rl.loss_algo=gspo-token', () => {
    const d = deploy({ mine: GRPO, other: { ...GRPO, method: 'gspo', runId: 'r2', overrides: { run_name: 'gspo' } } });
    const train = script(d, 'mine', 'train');
    for (const arg of ['dataset_name=openai/gsm8k', 'eval_dataset_name=openai/gsm8k', 'hf_subset=main', `reward_functions_path=${RECIPE_FILES_DIR}/final_number.py`, 'reward_functions=final_number', 'chips_per_vm=8', 'num_batches=50']) {
      expect(train).toContain(arg);
    }
    expect(train).not.toContain('rl.loss_algo');
    expect(script(d, 'other', 'train')).toContain('rl.loss_algo=gspo-token');
  });

  test('LoRA SFT: lora.* keys in training, a merged model exported (base + the trained adapter); alpha defaults to the rank', () => {
    const d = deploy({ mine: { ...SFT, lora: { rank: 16 } } });
    const train = script(d, 'mine', 'train');
    expect(train).toContain('lora.enable_lora=True');
    expect(train).toContain('lora.lora_rank=16');
    expect(train).toContain('lora.lora_alpha=16');
    const toHf = script(d, 'mine', 'to-hf');
    // The trained adapters (Tunix: nnx.state(model, nnx.LoRAParam), rooted at decoder) are first re-rooted under
    // params/params, where to_huggingface's merge reads them (jobs/maxtext.ts loraRerootLines; issue 44: without it the
    // "merged" export was the base model), and the merge reads that copy.
    expect(toHf).toMatch(/python3 - gs:\/\/[^ ]+\/trained\/sft-[0-9a-f]{12}\/checkpoints\/1000\/model_params\/ \/tmp\/lora-params <<'REROOT'\n/);
    expect(toHf).toContain('ocp.PyTreeCheckpointer().save(epath.Path(dst), {"params": {"params": tree}})');
    expect(toHf).toContain('lora.lora_restore_path=/tmp/lora-params');
    expect(toHf.indexOf("<<'REROOT'")).toBeLessThan(toHf.indexOf('maxtext.checkpoint_conversion.to_huggingface'));
    // to_huggingface Merged mode (maxtext-v0.2.4): the converted base and the adapter, so eval and serve get a full model.
    expect(toHf).toMatch(/load_parameters_path=gs:\/\/[^ ]+\/0\/items\//);
    // Not a LoRA run: no re-rooting, the trained checkpoint read directly.
    expect(script(deploy({ mine: SFT }), 'mine', 'to-hf')).not.toContain('REROOT');
  });

  test('hfRevision: to_maxtext gets --revision, and the conversion key (its directory) changes with it', () => {
    const sha = '0123456789abcdef0123456789abcdef01234567';
    const pinnedDeployment = deploy({ mine: { ...SFT, hfRevision: sha } });
    const pinned = pinnedDeployment.pipelines[0];
    const head = deploy({ mine: SFT }).pipelines[0];
    // The pinned commit is resolved (checked to exist) before any download and passed as to_maxtext's --revision.
    expect(script(pinnedDeployment, 'mine', 'to-maxtext')).toContain(`meta-llama/Llama-3.1-8B-Instruct ${sha})"`);
    expect(script(pinnedDeployment, 'mine', 'to-maxtext')).toContain('--revision="$HF_REVISION"');
    // Training and the export read the tokenizer and chat template at the same commit.
    expect(script(pinnedDeployment, 'mine', 'train')).toContain(`HF_REVISION=${sha}\nexport HF_REVISION\nTOKENIZER_REVISION="$HF_REVISION"`);
    expect(pinned.paths.maxtextDir).not.toBe(head.paths.maxtextDir);
    expect(pinned.model.hfRevision).toBe(sha);
  });

  test('the reward file ships in a ConfigMap mounted read-only; another reward is another training run', () => {
    const tf = synthStack('mine', { CONFIG_FILE: configFile((c) => (c.pipelines.mine = GRPO)), PIPELINES: 'mine', ...WITH_SINGLE_HOST });
    const manifests = Object.values(tf.resource.kubernetes_manifest) as any[];
    const cm = manifests.find((m) => m.manifest.kind === 'ConfigMap');
    expect(cm.manifest.metadata.name).toBe('mine-files');
    expect(Buffer.from(cm.manifest.binaryData['final_number.py'], 'base64')).toEqual(fs.readFileSync(path.join(__dirname, '..', '..', REWARD)));
    expect(cm.manifest.data).toBeUndefined();
    const train = stackJobSets(tf).find((m) => m.manifest.metadata.name.endsWith('-train'))!;
    const pod = train.manifest.spec.replicatedJobs[0].template.spec.template.spec;
    expect(pod.volumes).toContainEqual({ name: 'pipeline-files', configMap: { name: 'mine-files' } });
    expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'pipeline-files', mountPath: RECIPE_FILES_DIR, readOnly: true });
    const builtIn = deploy({ mine: { ...GRPO, reward: undefined } }).pipelines[0];
    expect(builtIn.steps[1].jobSetName).toBe('mine-r1-train');
    expect(deploy({ mine: GRPO }).pipelines[0].paths.trainRunDir).not.toBe(builtIn.paths.trainRunDir);
  });

  test('reward functions: every top-level def naming prompts and completions, or the names given', () => {
    // Which defs are rewards, and each signature rule: __tests__/config/reward-file.test.ts.
    const d = deploy({ mine: { ...GRPO, reward: { file: REWARD, functions: ['final_number'] } } });
    expect(script(d, 'mine', 'train')).toContain('reward_functions=final_number');
  });
});

describe('extends: a preset as a base', () => {
  test('rl-llama3 with another model: model name, tokenizer, repository and export name follow the model', () => {
    const d = deploy({ mine: { extends: 'rl-llama3', model: 'qwen3-8b' } });
    const p = d.pipelines[0];
    expect(p.model).toMatchObject({ name: 'qwen3-8b', hfRepo: 'Qwen/Qwen3-8B', exportName: 'qwen3-8b' });
    expect(script(d, 'mine', 'train')).toContain('tokenizer and chat template: Qwen/Qwen3-8B at $TOKENIZER_REVISION');
    expect(script(d, 'mine', 'to-maxtext')).toContain('--hf_model_path=Qwen/Qwen3-8B');
    expect(script(d, 'mine', 'train')).toContain('debug=True');
  });

  test('rl-qwen3 with another Qwen3 MoE model: maxtext_config.model_name follows (vllmModelName rule)', () => {
    const d = deploy({ mine: { extends: 'rl-qwen3', model: 'qwen3-30b-a3b-base', hfModel: 'Qwen/Qwen3-30B-A3B' } });
    expect(d.pipelines[0].model.hfRepo).toBe('Qwen/Qwen3-30B-A3B');
    expect(script(d, 'mine', 'train')).toContain('tokenizer and chat template: Qwen/Qwen3-30B-A3B at $TOKENIZER_REVISION');
    // Every model name in the training step (model_name, maxtext_config.model_name, paths) is the base key's.
    expect(script(d, 'mine', 'train')).not.toMatch(/qwen3-30b-a3b(?!-base)/);
  });

  test('a release whose architecture facts differ from the key\'s is refused naming the key that fits, or that none does', () => {
    // The original Qwen3-30B-A3B (RoPE theta 1M) under the key built for the 2507 releases (10M): qwen3-30b-a3b-base fits.
    expect(errorOf({ mine: { extends: 'rl-qwen3', model: 'qwen3-30b-a3b', hfModel: 'Qwen/Qwen3-30B-A3B' } })).toContain(
      "pipelines.mine.hfModel: 'Qwen/Qwen3-30B-A3B' has RoPE theta 1000000 where qwen3-30b-a3b has 10000000 (Qwen/Qwen3-30B-A3B config.json, " +
        "as copied in alibaba/InferSim f2293dab6d23fe2780356eb71e0ffc3b4baf61dd hf_configs/qwen3-30B-A3B_config.json; configs/models/qwen3-30b-a3b.yml): converted under qwen3-30b-a3b it would train with wrong " +
        "positions or shapes; use model 'qwen3-30b-a3b-base'",
    );
    // The original Qwen3-235B-A22B (1M): MaxText 0.2.4 has no key for it.
    expect(errorOf({ mine: { extends: 'rl-qwen3', model: 'qwen3-235b-a22b', hfModel: 'Qwen/Qwen3-235B-A22B' } })).toContain(
      "pipelines.mine.hfModel: 'Qwen/Qwen3-235B-A22B' has RoPE theta 1000000 where qwen3-235b-a22b has 5000000 (Qwen/Qwen3-235B-A22B config.json, " +
        'as copied in ayushi-uwc/elo-benchmark-mathematical-reasoning abd47879937fccdf603f9a53d91efe5b5ec4879f litellm_config.py HARD_CODED_CONFIGS; configs/models/qwen3-235b-a22b.yml): converted under qwen3-235b-a22b it would train with wrong ' +
        "positions or shapes; no key of the model table has these facts (nor has MaxText 0.2.4 configs/models): use one of qwen3-235b-a22b's " +
        'repositories (Qwen/Qwen3-235B-A22B-Thinking-2507, Qwen/Qwen3-235B-A22B-Instruct-2507)',
    );
    // Layers and RoPE theta both differ: the key with the repository's facts is named.
    expect(errorOf({ mine: { extends: 'rl-qwen3', hfModel: 'Qwen/Qwen3-235B-A22B-Instruct-2507' } })).toContain(
      "pipelines.mine.hfModel: 'Qwen/Qwen3-235B-A22B-Instruct-2507' has RoPE theta 5000000 where qwen3-30b-a3b has 10000000, 94 layers where qwen3-30b-a3b has 48",
    );
    // A fine-tune's name without 2507 names the original release's key.
    expect(errorOf({ mine: { extends: 'rl-qwen3', hfModel: 'acme/Qwen3-30B-A3B-support' } })).toContain(
      "pipelines.mine.hfModel: 'acme/Qwen3-30B-A3B-support' names a release of qwen3-30b-a3b-base (Qwen/Qwen3-30B-A3B-Base, Qwen/Qwen3-30B-A3B: RoPE theta 1000000), not of qwen3-30b-a3b (RoPE theta 10000000)",
    );
  });

  test('rl-qwen3 with a reward file and GSPO: the Pathways head mounts the files; rl.loss_algo is set', () => {
    const d = deploy({ mine: { extends: 'rl-qwen3', method: 'gspo', reward: REWARD } });
    const p = d.pipelines[0];
    const head = (p.steps[1].manifest as any).spec.replicatedJobs.find((r: any) => r.name === 'pathways-head').template.spec.template.spec;
    expect(head.volumes).toContainEqual({ name: 'pipeline-files', configMap: { name: 'mine-files' } });
    const workload = head.containers.find((c: any) => c.name === 'workload-container');
    expect(workload.volumeMounts).toContainEqual({ name: 'pipeline-files', mountPath: RECIPE_FILES_DIR, readOnly: true });
    expect(workload.command[2]).toContain('rl.loss_algo=gspo-token');
    expect(p.filesConfigMap).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'mine-files' } });
  });

  test('a preset entry with only deploy options is the preset itself (the tutorials synthesize as before)', () => {
    const d = deploy({ 'rl-llama3': { runId: 'r1' } });
    expect(d.pipelines[0].recipe.model).toEqual({ name: 'llama3.1-8b-Instruct', hfRepo: 'meta-llama/Llama-3.1-8B-Instruct' });
  });

  test('an unknown preset is refused with did-you-mean; a method of the other kind is refused', () => {
    expect(errorOf({ mine: { extends: 'rl-qwen' } })).toContain(
      "pipelines.mine.extends: no preset named 'rl-qwen'; presets: rl-qwen3, rl-gemma4, sft-gemma4, rl-llama3 (did you mean 'rl-qwen3'?)",
    );
    expect(errorOf({ mine: { extends: 'rl-qwen3', method: 'sft' } })).toContain(
      "pipelines.mine.method: 'sft' cannot change rl-qwen3's method (grpo); extend a preset of the same kind, or leave out extends",
    );
  });
});

describe('errors at synth, before anything is created', () => {
  test('a new pipeline without method, model, hfModel or dataset names each', () => {
    const message = errorOf({ mine: { slice: 'v6e-8', steps: 100 } });
    for (const field of ['method', 'model', 'hfModel', 'dataset']) {
      expect(message).toContain(`pipelines.mine.${field}: is required for a new pipeline (or extends one of rl-qwen3, rl-gemma4, sft-gemma4, rl-llama3)`);
    }
  });

  test('an hfModel of another family is refused naming the ids the key converts from', () => {
    expect(errorOf({ mine: { ...GRPO, hfModel: 'google/gemma-4-26b-a4b-it' } })).toContain(
      "pipelines.mine.hfModel: 'google/gemma-4-26b-a4b-it' is gemma4-26b's repository (Gemma 4, Gemma4ForConditionalGeneration), not qwen3-8b's: " +
        'qwen3-8b converts from Qwen/Qwen3-8B, Qwen/Qwen3-8B-Base (Qwen3ForCausalLM)',
    );
    expect(errorOf({ mine: { ...GRPO, hfModel: 'Qwen/Qwen3-14B' } })).toContain("'Qwen/Qwen3-14B' is qwen3-14b's repository");
    expect(errorOf({ mine: { ...GRPO, hfModel: 'acme/support-bot' } })).toContain(
      "pipelines.mine.hfModel: 'acme/support-bot' does not name a Qwen3 model of qwen3-8b's size: qwen3-8b converts from Qwen/Qwen3-8B, Qwen/Qwen3-8B-Base (Qwen3ForCausalLM); " +
        'for a repository whose name does not say the model (a fine-tune), declare its architecture from its config.json with hfArchitecture',
    );
  });

  test('a fine-tune with a declared architecture is accepted; a declared architecture of another family is refused', () => {
    expect(deploy({ mine: { ...GRPO, hfModel: 'acme/support-bot', hfArchitecture: 'Qwen3ForCausalLM' } }).pipelines[0].model.hfRepo).toBe('acme/support-bot');
    expect(deploy({ mine: { ...GRPO, hfModel: 'acme/Qwen3-8B-support' } }).pipelines[0].model.hfRepo).toBe('acme/Qwen3-8B-support');
    expect(errorOf({ mine: { ...GRPO, hfModel: 'acme/support-bot', hfArchitecture: 'LlamaForCausalLM' } })).toContain(
      "'acme/support-bot' declares architecture 'LlamaForCausalLM', which qwen3-8b does not convert",
    );
  });

  test('a tokenizer of another family, and the tutorial case: hf_model_path of Gemma on rl-qwen3 through overrides', () => {
    expect(errorOf({ mine: { ...SFT, tokenizer: 'Qwen/Qwen3-8B' } })).toContain(
      "pipelines.mine.tokenizer: 'Qwen/Qwen3-8B' is qwen3-8b's repository (Qwen3, Qwen3ForCausalLM), not llama3.1-8b's",
    );
    expect(errorOf({ 'rl-qwen3': { overrides: { hf_model_path: 'google/gemma-4-26b-it' } } })).toMatch(
      /pipelines\.rl-qwen3\.overrides\): hf_model_path 'google\/gemma-4-26b-it' does not name a Qwen3 model of qwen3-30b-a3b's size: qwen3-30b-a3b converts from Qwen\/Qwen3-30B-A3B-Thinking-2507/,
    );
    expect(errorOf({ 'rl-qwen3': { overrides: { tokenizer_path: 'meta-llama/Llama-3.1-8B-Instruct' } } })).toContain(
      "tokenizer_path 'meta-llama/Llama-3.1-8B-Instruct' is llama3.1-8b-Instruct's repository",
    );
  });

  test('an unknown model is refused with the list of keys and did-you-mean', () => {
    expect(errorOf({ mine: { ...SFT, model: 'llama3.1-8B' } })).toContain(
      "pipelines.mine.model: no model table row for 'llama3.1-8B' (jobs/models.ts); models: qwen3-30b-a3b, qwen3-30b-a3b-base, qwen3-235b-a22b, qwen3-8b, qwen3-14b, qwen3-32b, " +
        "gemma4-26b, gemma4-31b, gemma3-12b, gemma3-27b, llama3.1-8b-Instruct, llama3.1-8b, llama3.1-70b (did you mean 'llama3.1-8b'?)",
    );
  });

  test('an unknown method is refused with did-you-mean', () => {
    expect(errorOf({ mine: { ...SFT, method: 'grpoo' } })).toContain("pipelines.mine.method: must be one of sft, grpo, gspo, dpo, got 'grpoo' (did you mean 'grpo'?)");
  });

  test('RL for a model without a sampler weight-sync path at this MaxText version', () => {
    expect(errorOf({ mine: { ...GRPO, model: 'gemma4-31b', hfModel: 'google/gemma-4-31b-it' } })).toContain(
      "pipelines.mine.model: RL with 'gemma4-31b' needs a sampler weight-sync path: MaxText 0.2.4's standalone vLLM mappings cover every weight of " +
        'qwen3-8b, qwen3-14b, qwen3-32b, gemma3-12b, gemma3-27b, llama3.1-8b-Instruct, llama3.1-8b, llama3.1-70b only (integration/tunix/weight_mapping, ' +
        'dispatched on llama3.1, qwen2, qwen3, gemma3, deepseek3, gpt-oss; the Qwen3 one has no MoE weights); or extend rl-qwen3 or rl-gemma4',
    );
    // A Qwen3 MoE key: dispatched to the Qwen3 mapping, which lacks its experts (weight_mapping/qwen3.py).
    expect(errorOf({ mine: { ...GRPO, model: 'qwen3-30b-a3b', hfModel: 'Qwen/Qwen3-30B-A3B-Instruct-2507' } })).toContain(
      "pipelines.mine.model: RL with 'qwen3-30b-a3b' needs a sampler weight-sync path",
    );
  });

  test('LoRA with RL, and a bad rank', () => {
    expect(errorOf({ mine: { ...GRPO, lora: { rank: 8 } } })).toContain(
      'pipelines.mine.lora: LoRA is for SFT only: MaxText 0.2.4 train_rl never applies LoRA (only train_sft calls lora_utils.apply_lora_to_model)',
    );
    expect(errorOf({ mine: { ...SFT, lora: { rank: 0 } } })).toContain('pipelines.mine.lora.rank: must be a whole number >= 1 (types.py LoRA lora_rank: "Set >0 when LoRA is enabled"), got 0');
  });

  test('a dataset without the fields the method needs', () => {
    expect(errorOf({ mine: { ...SFT, dataset: { split: 'train' } } })).toContain(
      'pipelines.mine.dataset.hf: is required (the Hugging Face dataset repository, e.g. HuggingFaceH4/ultrachat_200k)',
    );
    expect(errorOf({ mine: { ...GRPO, dataset: { hf: 'acme/tickets', columns: ['text'] } } })).toContain(
      'pipelines.mine.dataset.columns: RL reads a question column (problem, prompt or question) and an answer column (answer, solution or expected_answer) by name',
    );
    expect(errorOf({ mine: { ...SFT, dataset: { hf: 'x/y', columns: [] } } })).toContain('pipelines.mine.dataset.columns: must name at least one column');
    expect(errorOf({ mine: { ...SFT, dataset: { hf: 'x/y', template: 't.json' } } })).toContain('pipelines.mine.dataset: template is for RL');
    expect(errorOf({ mine: { ...SFT, dataset: { hf: 'x/y', columns: ['conversations'] } } })).toContain(
      `pipelines.mine.dataset.columns: MaxText's SFT data processing accepts the columns ["prompt","completion"], ["messages"], ["question","answer"] (in any order; input_pipeline/data_processing_utils.py validate_and_configure_sft_columns), got ["conversations"]; use a dataset (or a copy of it) whose columns are named so`,
    );
    expect(errorOf({ mine: { ...SFT, dataset: { hf: 'x/y', columns: ['prompt'] } } })).toContain('got ["prompt"]');
  });

  test('a reward file that is missing, not .py, on SFT, or without reward functions', () => {
    expect(errorOf({ mine: { ...GRPO, reward: 'rewards/nope.py' } })).toContain("pipelines.mine.reward: 'rewards/nope.py' not found in the repository");
    expect(errorOf({ mine: { ...GRPO, reward: 'README.md' } })).toContain("pipelines.mine.reward: 'README.md' must be a Python file (.py)");
    expect(errorOf({ mine: { ...GRPO, reward: '../../etc/x.py' } })).toContain("pipelines.mine.reward: '../../etc/x.py' is outside the repository");
    expect(errorOf({ mine: { ...SFT, reward: REWARD } })).toContain(`pipelines.mine.reward: a reward file is for RL (grpo, gspo); mine trains with sft, got '${REWARD}'`);
    expect(errorOf({ mine: { ...GRPO, reward: 'jest.config.js'.replace('.js', '.py') } })).toContain('not found in the repository');
    expect(errorOf({ mine: { ...GRPO, reward: { file: REWARD, functions: ['nope'] } } })).toContain(
      `pipelines.mine.reward.functions: 'nope' is not defined at the top level of '${REWARD}'; it defines final_number`,
    );
  });

  test('a slice the TPU table does not have is an error; one infra lacks is left out with a note', () => {
    expect(errorOf({ mine: { ...SFT, slice: 'v6e-9' } })).toContain("pipelines.mine.slice: must be a Cloud TPU accelerator type of the TPU table such as v5litepod-8, v5p-8, v6e-8 or tpu7x-8, got 'v6e-9'");
    const file = configFile((c) => (c.pipelines.mine = { ...SFT, slice: 'v6e-16' }));
    const d = loadDeployment({ env: { CONFIG_FILE: file } });
    expect(d.pipelines.map((p) => p.name)).not.toContain('mine');
    expect(d.notices.join('\n')).toContain('mine left out: mine trains on ct6e-standard-4t 4x4 (v6e-16), infra has ct6e-standard-4t 4x8');
  });

  test('RL without extends on a multi-host slice is refused (it needs Pathways: extend rl-qwen3 or rl-gemma4)', () => {
    expect(errorOf({ mine: { ...GRPO, slice: 'v6e-32' } })).toContain(
      'pipelines.mine.slice: RL without extends runs on one TPU VM (McJAX, tutorial 002\'s shape), got ct6e-standard-4t 4x8 (8 VMs)',
    );
  });

  test('steps that give no checkpoint period, and steps that are not a count', () => {
    expect(errorOf({ mine: { ...SFT, steps: 211 } })).toContain('pipelines.mine.steps: 211 training steps have no divisor between 11 and 52');
    expect(errorOf({ mine: { ...SFT, steps: 0 } })).toContain('pipelines.mine.steps: must be a whole number >= 1, got 0');
  });

  test('a fit-check failure: Llama 3.1 70B SFT on one v6e-8', () => {
    expect(errorOf({ mine: { ...SFT, model: 'llama3.1-70b', hfModel: 'meta-llama/Llama-3.1-70B-Instruct' } })).toMatch(
      /mine: llama3\.1-70b does not fit ct6e-standard-8t 2x4 \(v6e-8-8t, 31\.25 GiB usable HBM per chip\): weights, gradients and AdamW state/,
    );
  });

  test('an hfRevision that is not a 40-hex commit', () => {
    expect(errorOf({ mine: { ...SFT, hfRevision: 'main' } })).toContain(
      "pipelines.mine.hfRevision: must be a 40-hex commit of meta-llama/Llama-3.1-8B-Instruct (a branch or tag moves), got 'main'",
    );
  });

  test('every problem of every pipeline in one ConfigError, with values escaped', () => {
    const message = errorOf({ a: { ...SFT, hfRevision: 'x\u200b' }, b: { ...GRPO, lora: { rank: 4 } }, c: { ...SFT, steps: 211 } });
    expect(message).toContain("pipelines.a.hfRevision: must be a 40-hex commit of meta-llama/Llama-3.1-8B-Instruct (a branch or tag moves), got 'x\\u200b'");
    expect(message).toContain('pipelines.b.lora: LoRA is for SFT only');
    expect(message).toContain('pipelines.c.steps: 211 training steps');
  });
});

describe('readRepoFile: a reward file of the repository (config/ reads it)', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-repo-')));
  fs.mkdirSync(path.join(root, 'rewards'));
  fs.writeFileSync(path.join(root, 'rewards', 'ok.py'), 'def r(prompts, completions, **kw):\n  return [0.0]\n');
  fs.writeFileSync(path.join(root, 'rewards', 'big.py'), Buffer.alloc(CONFIGMAP_MAX_BYTES + 1, 0x23));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-outside-'));
  fs.writeFileSync(path.join(outside, 'evil.py'), 'def r(prompts, completions): return []\n');
  fs.symlinkSync(path.join(outside, 'evil.py'), path.join(root, 'rewards', 'link.py'));

  test('reads a .py inside the repository with its sha256', () => {
    const f = readRepoFile(root, 'rewards/ok.py');
    expect(f).toMatchObject({ name: 'ok.py', path: 'rewards/ok.py' });
    expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(f.problem).toBeUndefined();
  });

  test('refuses absolute paths, paths and links outside the repository, and files larger than a ConfigMap', () => {
    expect(readRepoFile(root, path.join(outside, 'evil.py')).problem).toMatch(/^is an absolute path/);
    expect(readRepoFile(root, '../x.py').problem).toMatch(/^is outside the repository/);
    expect(readRepoFile(root, 'rewards/link.py').problem).toBe(`is a link to ${fs.realpathSync(path.join(outside, 'evil.py'))}, outside the repository`);
    expect(readRepoFile(root, 'rewards/big.py').problem).toBe(
      `is ${CONFIGMAP_MAX_BYTES + 1} bytes; a ConfigMap holds at most ${CONFIGMAP_MAX_BYTES} (1 MiB): move data the reward loads into the bucket`,
    );
    expect(readRepoFile(root, 'rewards').problem).toMatch(/must be a Python file/);
  });
});
