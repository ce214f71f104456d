/**
 * DPO: `maxtext.trainers.post_train.dpo.train_dpo` (AI-Hypercomputer/maxtext maxtext-v0.2.4), configs/post_train/dpo.yml
 * over base.yml (pyconfig.py l.54 maps the module to `post_train/dpo.yml`), validated as types.py MaxTextConfig with
 * its `dpo: DPO` block (types.py l.1541-1553) and train_dpo.py `validate_config` (no `optimizer_memory_host_offload`, no
 * `num_vocab_tiling` > 1). One row of the method table. Pure; no cdktf.
 *
 * - Trainer: Tunix `DPOTrainer` (google/tunix c4ec573d tunix/sft/dpo/dpo_trainer.py, `class DPOTrainer(peft_trainer.
 *   PeftTrainer)`), so checkpoints sit where SFT's do (`<run>/checkpoints/<step>/model_params`, every one kept:
 *   train_dpo.py `get_tunix_config` builds CheckpointManagerOptions from checkpoint_period and async_checkpointing only).
 * - The reference model: `ref_model = nnx.clone(model) if mt_config.dpo.algo == "dpo" else None` (train_dpo.py
 *   `setup_trainer_state`): a second full copy of the weights, frozen.
 * - Data (input_pipeline/hf_data_processing.py l.427-430 with `use_dpo`, dpo_utils.py `DPODataFormatting.map`):
 *   `train_data_columns` names 2 columns (chosen, rejected: the shared prefix becomes the prompt) or 3 (prompt, chosen,
 *   rejected); any other count raises "DPODataFormatting expects 2 or 3 columns". dpo.yml l.24 default
 *   ['chosen', 'rejected'] (Anthropic/hh-rlhf's). types.py refuses `packing` with DPO (l.3719, l.3974): dpo.yml l.10
 *   sets it false, and this project never passes it.
 * - One pass: the chosen and the rejected sequences of each example in one batch (dpo_trainer.py `_prepare_inputs`
 *   concatenates them along the batch: `chosen_logps = completion_logps[: batch_size // 2]`), so 2 x
 *   `per_device_batch_size` x chips sequences of `max_target_length`. The reference model's log-probabilities are
 *   computed before the training pass (not counted, as RL's reference logits).
 * - In-training evaluation: dpo.yml l.15 `eval_interval: 5` reads `hf_eval_split: 'test'` (l.26), which a dataset
 *   without a `test` split does not have (input_pipeline_interface.py l.108 builds the eval iterator when
 *   `eval_interval > 0`); the base passes `eval_interval=0`, as MaxText's DPO tutorial does (docs/tutorials/
 *   posttraining/dpo.md), and the eval step scores the export.
 * - Log lines: train_dpo installs `DPOTrainingHooks(BaseTrainingHooks)` (dpo/hooks.py), so it prints MaxText's metric
 *   logger lines as train_sft does. Resume: `DPODataHooks(BaseDataHooks)`, as SFT: the data restarts at the first example.
 */
import { dtypeBytes, HbmEstimate, HbmInput, HbmPart, num, stateGib, str, wholeChipsEstimate } from '../hbm';
import { DPO_DEFAULTS } from '../maxtext-defaults';
import { METRIC_LOGGER_LINES } from '../run-log';
import { BASE_SHAPE, hfDatasetArgs, hfProblem, numArg, perDeviceStepTokens, rlOnlyProblems, TO_HF_ARGS, TO_MAXTEXT_ARGS } from './common';
import type { ColumnType, DatasetSpec, MethodRow } from './types';

/**
 * DPO memory: the policy's weights at `weight_dtype` (types.py default float32, dpo.yml sets none), the frozen
 * reference copy (algo `dpo`; ORPO has none), gradients at the weights' dtype and AdamW `mu` (`mu_dtype`) + `nu`; one
 * pass of 2 x `per_device_batch_size` x chips sequences (chosen and rejected) of `max_target_length`.
 */
export function dpoMemory(input: HbmInput): HbmEstimate {
  const { args } = input;
  const wName = str(args['weight_dtype']) ?? DPO_DEFAULTS.weight_dtype;
  const w = dtypeBytes(wName) ?? 4;
  const mu = dtypeBytes(str(args['mu_dtype']) ?? wName) ?? w;
  const reference = (str(args['dpo.algo']) ?? DPO_DEFAULTS['dpo.algo']) === 'dpo';
  const parts: HbmPart[] = [{ what: `weights (${wName})`, on: 'chips', gibPerChip: stateGib(input, w) }];
  if (reference) parts.push({ what: 'reference weights (nnx.clone of the model, frozen)', on: 'chips', gibPerChip: stateGib(input, w) });
  parts.push({ what: 'gradients', on: 'chips', gibPerChip: stateGib(input, w) });
  parts.push({ what: 'AdamW mu + nu', on: 'chips', gibPerChip: stateGib(input, mu + w) });
  const pdbs = num(args, 'per_device_batch_size', DPO_DEFAULTS.per_device_batch_size);
  const seqLen = num(args, 'max_target_length', DPO_DEFAULTS.max_target_length);
  const label = `per_device_batch_size=${pdbs} x 2 (chosen, rejected) x ${seqLen} tokens`;
  const pass = { sequences: 2 * pdbs * input.devices.trainer, seqLen, label, weightBytes: w };
  return wholeChipsEstimate(input, DPO, parts, pass, `weights${reference ? ', reference copy' : ''}, gradients and AdamW state`);
}

/** Why DPO's columns are refused, or undefined: 2 (chosen, rejected) or 3 (prompt, chosen, rejected) distinct names. */
export function dpoColumnsProblem(columns: readonly string[], at: string): string | undefined {
  const ok = (columns.length === 2 || columns.length === 3) && columns.every((c) => c.trim() !== '') && new Set(columns).size === columns.length;
  if (ok) return undefined;
  return (
    `${at}.columns: DPO reads 2 columns [chosen, rejected] (the shared prefix is the prompt) or 3 [prompt, chosen, rejected], ` +
    `each a different non-empty name (MaxText input_pipeline/dpo_utils.py DPODataFormatting), got ${JSON.stringify(columns)}`
  );
}

/**
 * Why MaxText's DPO data path refuses these columns holding these types, or undefined. maxtext-v0.2.4
 * input_pipeline/input_pipeline_utils.py `tokenization` (l.317-326) tokenizes a string column as one text and a list
 * column element by element, and the DPO path applies no chat template (hf_data_processing.py: `use_sft` only), so a
 * column of `{role, content}` messages fails in the tokenizer (run on local data with MaxText 0.2.4 and transformers
 * 5.12.1: "text input must be of type `str` ...", scripts/upstream-checks/column_layouts.py). A column of unknown type passes.
 */
export function dpoColumnTypesProblem(columns: readonly string[], types: Readonly<Record<string, ColumnType>>, at: string): string | undefined {
  const notText = columns.filter((c) => types[c] !== undefined && types[c] !== 'text');
  if (notText.length === 0) return undefined;
  return (
    `${at}.columns: MaxText 0.2.4's DPO data path tokenizes plain text only and applies no chat template ` +
    `(input_pipeline/input_pipeline_utils.py tokenization), got ${notText.map((c) => `${c}: ${types[c]}`).join(', ')}; ` +
    `use a copy of the dataset whose ${JSON.stringify(columns)} hold text (the conversation rendered in the model's chat template)`
  );
}

/** DPO's dataset: hf, config, split and the preference columns. */
function dpoDataset(d: DatasetSpec, at: string) {
  const problems = [...hfProblem(d, at, DPO.exampleDataset), ...rlOnlyProblems(d, at, 'DPO')];
  const columns = d.columns ?? DPO_DEFAULTS.columns;
  const bad = dpoColumnsProblem(columns, at);
  if (bad) problems.push(bad);
  const typed = !bad && d.columnTypes ? dpoColumnTypesProblem(columns, d.columnTypes, at) : undefined;
  if (typed) problems.push(typed);
  return { args: hfDatasetArgs(d, columns), problems };
}

/** The steps a new DPO pipeline trains without `steps`. A project choice: dpo.yml's 10 is a smoke test. */
const DPO_STEPS = 1000;

/** The DPO row. */
export const DPO: MethodRow = {
  kind: 'dpo',
  methods: { dpo: {} },
  module: 'maxtext.trainers.post_train.dpo.train_dpo',
  configFile: 'src/maxtext/configs/post_train/dpo.yml',
  configClass: 'MaxTextConfig',
  loss: 'DPO: -log sigmoid(dpo_beta x the chosen-over-rejected log-ratio margin against the frozen reference)',
  stepsKey: 'steps',
  defaultSteps: DPO_STEPS,
  lastStep: (args) => numArg(args, 'steps', DPO_DEFAULTS.steps),
  checkpointSubdir: '',
  keepsCheckpoints: false,
  defaults: DPO_DEFAULTS,
  vocabTiling: false,
  memory: (input) => dpoMemory(input),
  rollout: false,
  // docs/tutorials/posttraining/dpo.md: scan_layers is read from the checkpoint's metadata when not given.
  scanLayersDefault: undefined,
  resumeRepeats: 'DPO reads its data again from the first example',
  log: METRIC_LOGGER_LINES,
  // A preference-tuned model is scored on truthfulness (multiple choice: no generation to judge).
  defaultEval: ['truthfulqa_mc2'],
  heldoutEval: false,
  exampleDataset: 'Anthropic/hh-rlhf',
  columnTypesProblem: (columns, types, at) => dpoColumnTypesProblem(columns, types, at),
  dataset: (d, at) => dpoDataset(d, at),
  // The chosen and the rejected sequence of each pair in one pass (dpo_trainer.py _prepare_inputs).
  stepTokens: (args, chips) => perDeviceStepTokens(args, chips, DPO_DEFAULTS, { count: 2, what: 'chosen, rejected' }),
  stepSettings: ['perDeviceBatch', 'maxSeqLen'],
  settings: {
    learningRate: { key: 'learning_rate', source: 'configs/post_train/dpo.yml l.29', default: 5e-7, kind: 'nonneg', doc: 'peak learning rate' },
    beta: { key: 'dpo.dpo_beta', source: 'configs/post_train/dpo.yml l.8', default: 0.1, kind: 'positive', doc: "DPO's beta: how far the policy may move from the reference" },
    maxSeqLen: { key: 'max_target_length', source: 'configs/post_train/dpo.yml l.14', default: 512, kind: 'int', doc: 'maximum sequence length (prompt and response), tokens' },
    maxPromptLength: {
      key: 'dpo.max_prompt_length',
      source: 'configs/post_train/dpo.yml l.9 (null: types.py l.3977-3978 takes max_target_length // 2)',
      default: 256,
      kind: 'int',
      doc: 'maximum prompt length, tokens (the response gets the rest)',
      fromArgs: (args) => numArg(args, 'dpo.max_prompt_length', Math.floor(numArg(args, 'max_target_length', DPO_DEFAULTS.max_target_length) / 2)),
    },
    perDeviceBatch: { key: 'per_device_batch_size', source: "this project's DPO base (dpo.yml l.12 has 2)", default: 1, kind: 'positive', doc: 'preference pairs per chip per step' },
  },
  reward: false,
  datasetFiles: false,
  lora: false,
  multiHostBase: true,
  base: {
    name: 'dpo',
    tutorial: '-',
    description: 'DPO (train_dpo) on multi-host JAX',
    ...BASE_SHAPE,
    toMaxText: { args: TO_MAXTEXT_ARGS, flags: { lazy_load_tensors: true } },
    train: {
      kind: 'dpo',
      args: { run_name: 'dpo', dataset_type: 'hf', per_device_batch_size: 1, steps: DPO_STEPS, eval_interval: 0, skip_jax_distributed_system: false },
      env: { JAX_PLATFORMS: 'tpu,cpu', ENABLE_PJRT_COMPATIBILITY: 'true' },
    },
    toHf: { args: TO_HF_ARGS },
  },
};
