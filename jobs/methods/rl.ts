/**
 * RL (GRPO, GSPO-token): `maxtext.trainers.post_train.rl.train_rl` (AI-Hypercomputer/maxtext maxtext-v0.2.4),
 * configs/post_train/rl.yml over base.yml, validated as types.py RLConfig (train_rl.py `pyconfig.initialize(...,
 * config_class=types.RLConfig)`). One row of the method table. Pure; no cdktf.
 *
 * Data (types.py RLDataset; train_rl.py get_dataset: `load_dataset(dataset_name, name=hf_subset, split=...)`):
 * `dataset_name`, `eval_dataset_name`, `hf_subset` (rl.yml l.245 default `main`), `train_split` (l.243 `train`),
 * `eval_split` (l.244 `test`); the built-in processor (rl/utils_rl.py process_data) reads a `problem`|`prompt`|`question`
 * and an `answer`|`solution`|`expected_answer` column. The loss: types.py RL.loss_algo Literal["grpo", "gspo-token"].
 * Checkpoints: `<run>/checkpoints/actor/<step>/model_params`, at most `max_num_checkpoints_to_keep` (train_rl.py).
 * Resume: tunix/rl/rl_learner.py syncs the trainer's weights to the sampler after each global step, not at restore.
 */
import {
  dtypeBytes, fmt, gib, HbmEstimate, HbmInput, HbmPart, HbmSide, num, passParts, replicaChips, stateGib, stateShardCount, str, TIGHT_FRACTION, verdictOf,
} from '../hbm';
import { RL_DEFAULTS } from '../maxtext-defaults';
import type { JsonValue, MaxTextArgs } from '../recipes/types';
import { TUNIX_TRAIN_LINES } from '../run-log';
import { BASE_SHAPE, hfProblem, numArg, optional, TO_HF_ARGS } from './common';
import type { DatasetSpec, MethodRow } from './types';

/** `rl.loss_algo` of each RL method (types.py RL.loss_algo). */
export const LOSS_ALGO = { grpo: 'grpo', gspo: 'gspo-token' } as const;

/** The trainer's side of an RL step: actor and reference weights, gradients and optimizer, one micro-batch's activations. */
function trainerSide(input: HbmInput, parts: HbmPart[]) {
  const { args } = input;
  const wName = str(args['weight_dtype']) ?? RL_DEFAULTS.weight_dtype;
  const w = dtypeBytes(wName) ?? 2;
  const optimizerBytes = input.adafactor ? 0.01 * 4 : 2 * w;
  const weights = stateGib(input, w);
  const gradsAndOpt = stateGib(input, w + optimizerBytes);
  parts.push({ what: `actor weights (${wName})`, on: 'trainer', gibPerChip: weights });
  parts.push({ what: 'reference weights (loaded whatever rl.grpo_beta is)', on: 'trainer', gibPerChip: weights });
  parts.push({ what: `gradients + ${input.adafactor ? 'adafactor (factored)' : 'AdamW mu + nu'}`, on: 'trainer', gibPerChip: gradsAndOpt });
  const batch = num(args, 'batch_size', RL_DEFAULTS.batch_size);
  const microGiven = num(args, 'train_micro_batch_size', RL_DEFAULTS.train_micro_batch_size);
  const micro = microGiven > 0 ? microGiven : batch;
  const generations = num(args, 'rl.num_generations', RL_DEFAULTS['rl.num_generations']);
  const seqLen = num(args, 'max_target_length', RL_DEFAULTS.max_target_length);
  const label = `${micro} prompts x ${generations} generations x ${seqLen} tokens`;
  const act = passParts(input, RL, parts, { on: 'trainer', sequences: micro * generations, seqLen, label, weightBytes: w });
  return { weights, gradsAndOpt, act, batch, generations, seqLen };
}

/** The sampler's side (vLLM): its weights per replica (vocabulary matrices whole on every chip) and one sequence's KV cache. */
function samplerSide(input: HbmInput, parts: HbmPart[], seqLen: number) {
  const { args, size, devices } = input;
  const mc = args['vllm_additional_config'];
  const maxtextConfig = mc && typeof mc === 'object' && !Array.isArray(mc) ? (mc as Record<string, JsonValue>)['maxtext_config'] : undefined;
  const vName =
    (maxtextConfig && typeof maxtextConfig === 'object' && !Array.isArray(maxtextConfig)
      ? str((maxtextConfig as Record<string, JsonValue>)['weight_dtype'])
      : undefined) ?? 'bfloat16';
  const v = dtypeBytes(vName) ?? 2;
  const replica = replicaChips(args, devices.sampler);
  const vocabParams = size.vocab * size.hidden * (size.tiedEmbedding ? 1 : 2);
  const weights = gib((size.params - vocabParams) * v) / replica + gib(vocabParams * v);
  const seqTokens = seqLen + num(args, 'kv_cache_buffer', RL_DEFAULTS.kv_cache_buffer);
  const kvPerSeq = gib(2 * size.layers * size.kvHeads * size.headDim * v * seqTokens) / replica;
  const util = num(args, 'hbm_utilization_vllm', RL_DEFAULTS.hbm_utilization_vllm);
  parts.push({ what: `vLLM weights (${vName}, one copy per ${replica}-chip replica, vocabulary matrices whole on every chip)`, on: 'sampler', gibPerChip: weights });
  parts.push({ what: `KV cache, one ${seqTokens}-token sequence`, on: 'sampler', gibPerChip: kvPerSeq });
  return { weights, kvPerSeq, seqTokens, util, replicas: Math.max(1, Math.floor(devices.sampler / replica)) };
}

type Trainer = ReturnType<typeof trainerSide>;
type Sampler = ReturnType<typeof samplerSide>;
/** What a side check found: impossible or tight, per side, with its reason. */
interface Findings {
  readonly impossible: Set<HbmSide>;
  readonly tight: Set<HbmSide>;
  readonly reasons: string[];
}

/** Trainer and sampler on their own chips (Pathways, >= 2 VMs): each against its own HBM. */
function splitChips(input: HbmInput, t: Trainer, s: Sampler, wanted: number, f: Findings): void {
  const hbm = input.slice.usableHbmGibPerChip;
  const trainer = t.weights * 2 + t.gradsAndOpt + t.act;
  if (trainer > hbm) {
    f.impossible.add('trainer');
    f.reasons.push(
      `the trainer's weights, reference copy, gradients and optimizer state (${fmt(trainer - t.act)}) and activations (${fmt(t.act)}) ` +
        `need ${fmt(trainer)} per chip over ${input.devices.trainer} trainer chips (state sharded ${stateShardCount(input)} ways), ` +
        `a ${input.slice.generation} chip has ${hbm} GiB usable`,
    );
  } else if (trainer > TIGHT_FRACTION * hbm) {
    f.tight.add('trainer');
    f.reasons.push(`the trainer's state and activations take ${fmt(trainer)} of ${hbm} GiB usable per trainer chip`);
  }
  const share = s.util * hbm;
  const room = Math.floor((share - s.weights) / s.kvPerSeq);
  if (s.weights + s.kvPerSeq > share) {
    f.impossible.add('sampler');
    f.reasons.push(`vLLM's weights and one sequence's KV cache need ${fmt(s.weights + s.kvPerSeq)} per sampler chip, hbm_utilization_vllm=${s.util} allows ${fmt(share)} of ${hbm} GiB usable`);
  } else if (room < wanted) {
    f.tight.add('sampler');
    f.reasons.push(
      `vLLM's weights take ${fmt(s.weights)} of the ${fmt(share)} hbm_utilization_vllm=${s.util} allows per sampler chip, ` +
        `room for ${room} of the ${wanted} sequences of ${s.seqTokens} tokens per replica`,
    );
  }
}

/**
 * Trainer and sampler on the same chips: vLLM starts after the trainer's two weight copies are loaded and takes
 * hbm_utilization_vllm of each chip; gradients, optimizer state and activations must fit what it leaves.
 */
function sharedChips(input: HbmInput, t: Trainer, s: Sampler, wanted: number, f: Findings): void {
  const hbm = input.slice.usableHbmGibPerChip;
  const chips = `trainer and vLLM share the ${input.devices.trainer} chips`;
  const atStart = t.weights * 2 + s.weights + s.kvPerSeq;
  const share = s.util * hbm;
  const left = (1 - s.util) * hbm;
  const later = t.gradsAndOpt + t.act;
  const room = Math.floor((share - atStart + s.kvPerSeq) / s.kvPerSeq);
  if (atStart > share) {
    f.impossible.add('sampler');
    f.reasons.push(
      `${chips}: the trainer's two weight copies, vLLM's weights and one sequence's KV cache ` +
        `need ${fmt(atStart)} per chip when vLLM starts, hbm_utilization_vllm=${s.util} allows ${fmt(share)} of ${hbm} GiB usable`,
    );
  } else if (room < wanted) {
    f.tight.add('sampler');
    f.reasons.push(`vLLM's share leaves room for ${room} of the ${wanted} sequences of ${s.seqTokens} tokens`);
  }
  if (later > left) {
    f.impossible.add('trainer');
    f.reasons.push(
      `${chips}: gradients and optimizer state (${fmt(t.gradsAndOpt)}) and activations (${fmt(t.act)}) ` +
        `need ${fmt(later)} per chip, the ${fmt(left)} hbm_utilization_vllm=${s.util} leaves of ${hbm} GiB usable`,
    );
  } else if (later > TIGHT_FRACTION * left) {
    f.tight.add('trainer');
    f.reasons.push(`gradients, optimizer state and activations take ${fmt(later)} of the ${fmt(left)} hbm_utilization_vllm=${s.util} leaves per chip`);
  }
}

/**
 * RL memory (the header of jobs/hbm.ts): the trainer holds actor weights at `weight_dtype` (rl.yml: bfloat16) and a
 * reference copy, always (`model_creation_utils.create_models_and_meshes`), gradients and the optimizer (AdamW at the
 * weights' dtype, or the adafactor patch's factored moment); vLLM holds a copy per rollout replica and its KV cache.
 */
export function rlMemory(input: HbmInput): HbmEstimate {
  const parts: HbmPart[] = [];
  const t = trainerSide(input, parts);
  const s = samplerSide(input, parts, t.seqLen);
  const wanted = Math.ceil((t.batch * t.generations) / s.replicas);
  const f: Findings = { impossible: new Set(), tight: new Set(), reasons: [] };
  if (input.devices.split) splitChips(input, t, s, wanted, f);
  else sharedChips(input, t, s, wanted, f);
  const impossible = f.impossible.size > 0;
  return { verdict: verdictOf(impossible, f.tight.size > 0), parts, reasons: f.reasons, sides: [...(impossible ? f.impossible : f.tight)] };
}

/**
 * `hf_subset` of an RL dataset: the entry's `config`; else, for a dataset other than rl.yml's openai/gsm8k, `null`
 * (None: `load_dataset(name=None)` takes the dataset's default config). rl.yml l.245 sets `hf_subset: 'main'`, which
 * train_rl.py get_dataset (l.180) passes as `load_dataset(dataset_name, name=hf_subset, ...)` whatever the dataset, so a
 * dataset without a `main` config failed there, after the model loaded. Run on CPU with MaxText 0.2.4 and datasets
 * 5.0.1 (scripts/upstream-checks/rl_subset.py): `hf_subset=null` reaches RLConfig as None, and a local dataset of one
 * (`default`) config loads with name None and fails with `main` ("BuilderConfig 'main' not found. Available: ['default']").
 */
export function rlSubset(d: DatasetSpec): MaxTextArgs {
  if (d.config !== undefined) return { hf_subset: d.config };
  return (d.hf ?? '') === RL_BUILT_IN_DATASET ? {} : { hf_subset: OMEGACONF_NONE };
}
/** The command-line value pyconfig's OmegaConf reads as None (`hf_subset=null` -> `None`, run with MaxText 0.2.4). */
export const OMEGACONF_NONE = 'null';
/** rl.yml's dataset (l.241-242), whose config is rl.yml's `main`. */
const RL_BUILT_IN_DATASET = 'openai/gsm8k';

/** RL's dataset: hf, config (`hf_subset`), splits and template; the columns are read by name. */
function rlDataset(d: DatasetSpec, at: string) {
  const problems = hfProblem(d, at, RL.exampleDataset);
  if (d.columns !== undefined) {
    problems.push(
      `${at}.columns: RL reads a question column (problem, prompt or question) and an answer column (answer, solution or expected_answer) ` +
        `by name (MaxText rl/utils_rl.py process_data), got ${JSON.stringify(d.columns)}; use a dataset with those columns, or a processor file (dataset.processor) whose process_data reads yours`,
    );
  }
  const hf = d.hf ?? '';
  const args = {
    dataset_name: hf,
    eval_dataset_name: hf,
    ...rlSubset(d),
    ...optional('train_split', d.split),
    ...optional('eval_split', d.evalSplit),
  };
  return { args, problems };
}

/** The steps a new RL pipeline trains without `steps`: the RL tutorials' 50 batches. */
const RL_STEPS = 50;

/** The RL row. */
export const RL: MethodRow = {
  kind: 'rl',
  methods: { grpo: { 'rl.loss_algo': LOSS_ALGO.grpo }, gspo: { 'rl.loss_algo': LOSS_ALGO.gspo } },
  module: 'maxtext.trainers.post_train.rl.train_rl',
  configFile: 'src/maxtext/configs/post_train/rl.yml',
  configClass: 'RLConfig',
  loss: 'GRPO (rl.loss_algo=grpo) or GSPO-token (gspo-token) policy gradient over generations scored by the reward functions',
  stepsKey: 'num_batches',
  defaultSteps: RL_STEPS,
  // RLConfig `train_steps` = num_batches x rl.num_iterations x train_fraction x num_epoch.
  lastStep: (args) =>
    Math.floor(
      numArg(args, 'num_batches', RL_DEFAULTS.num_batches) *
        numArg(args, 'rl.num_iterations', RL_DEFAULTS['rl.num_iterations']) *
        numArg(args, 'train_fraction', RL_DEFAULTS.train_fraction) *
        numArg(args, 'num_epoch', RL_DEFAULTS.num_epoch),
    ),
  checkpointSubdir: 'actor/',
  keepsCheckpoints: true,
  defaults: RL_DEFAULTS,
  vocabTiling: false,
  memory: (input) => rlMemory(input),
  rollout: true,
  // RL reads scan_layers from the checkpoint when not given.
  scanLayersDefault: undefined,
  resumeRepeats: "RL's first step samples with the base weights until the next weight sync",
  log: TUNIX_TRAIN_LINES,
  // jobs/eval.ts gsm8k_reasoning: GSM8K in the template and answer format the run trained with, not lm-eval's 5-shot gsm8k.
  defaultEval: ['gsm8k_reasoning'],
  heldoutEval: false,
  builtInDataset: RL_BUILT_IN_DATASET,
  exampleDataset: 'openai/gsm8k',
  // RL reads its columns by name, as strings (utils_rl.py process_data formats them into the template): no type is refused.
  columnTypesProblem: () => undefined,
  dataset: (d, at) => rlDataset(d, at),
  // One optimizer step trains on batch_size prompts x rl.num_generations sequences padded to max_target_length (Tunix
  // pads prompts to max_prefill_predict_length and completions to the rest). The rollouts are not counted: vLLM stops
  // a completion at its end-of-sequence token, so their length bounds nothing from below.
  stepTokens: (args) => {
    const batch = numArg(args, 'batch_size', RL_DEFAULTS.batch_size);
    const generations = numArg(args, 'rl.num_generations', RL_DEFAULTS['rl.num_generations']);
    const seq = numArg(args, 'max_target_length', RL_DEFAULTS.max_target_length);
    return { tokens: batch * generations * seq, label: `${batch} prompts x ${generations} generations x ${seq} tokens` };
  },
  stepSettings: ['promptsPerStep', 'generationsPerPrompt', 'maxCompletionLength'],
  settings: {
    promptsPerStep: { key: 'batch_size', source: 'configs/post_train/rl.yml l.110', default: 1, kind: 'int', doc: 'prompts per training step' },
    generationsPerPrompt: { key: 'rl.num_generations', source: 'configs/post_train/rl.yml l.39', default: 2, kind: 'int', doc: 'completions sampled per prompt (at least 2)' },
    maxPromptLength: { key: 'max_prefill_predict_length', source: 'configs/post_train/rl.yml l.163', default: 256, kind: 'int', doc: 'maximum prompt length, tokens (longer prompts are dropped)' },
    maxCompletionLength: {
      key: 'max_target_length',
      source: 'configs/post_train/rl.yml l.163-164 (max_target_length 1024 - max_prefill_predict_length 256; train_rl.py generates the difference)',
      default: 768,
      kind: 'int',
      doc: 'maximum completion length, tokens: sets max_target_length = maxPromptLength + this',
      toArgs: (value, args) => ({ max_target_length: numArg(args, 'max_prefill_predict_length', RL_DEFAULTS.max_prefill_predict_length) + value }),
      fromArgs: (args) =>
        numArg(args, 'max_target_length', RL_DEFAULTS.max_target_length) - numArg(args, 'max_prefill_predict_length', RL_DEFAULTS.max_prefill_predict_length),
    },
    learningRate: { key: 'learning_rate', source: 'configs/post_train/rl.yml l.134', default: 3e-6, kind: 'nonneg', doc: 'peak learning rate' },
    beta: { key: 'rl.grpo_beta', source: 'configs/post_train/rl.yml l.48', default: 0.08, kind: 'nonneg', doc: 'KL penalty coefficient against the reference model' },
    numIterations: { key: 'rl.num_iterations', source: 'configs/post_train/rl.yml l.43', default: 1, kind: 'int', doc: 'optimizer passes over each batch of generations' },
  },
  reward: true,
  datasetFiles: true,
  lora: false,
  multiHostBase: false,
  /**
   * Tutorial 002's single-host shape (no Pathways; MaxText's standalone vLLM sampler on the same chips); RL on a
   * multi-host slice needs Pathways: extend rl-qwen3 or rl-gemma4.
   */
  base: {
    name: 'rl',
    tutorial: '-',
    description: 'RL (train_rl) on a single TPU VM, McJAX',
    ...BASE_SHAPE,
    toMaxText: {
      args: { scan_layers: true, use_multimodal: false, hardware: 'cpu', skip_jax_distributed_system: true, checkpoint_storage_use_zarr3: 1, checkpoint_storage_use_ocdbt: 1 },
      flags: { lazy_load_tensors: false },
    },
    train: {
      kind: 'rl',
      args: { run_name: 'rl', num_batches: RL_STEPS, num_test_batches: 10, rollout_data_parallelism: 1, rollout_tensor_parallelism: -1 },
      env: {},
    },
    toHf: { args: TO_HF_ARGS },
    tpuVmEnv: true,
  },
};
