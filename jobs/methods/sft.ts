/**
 * SFT: `maxtext.trainers.post_train.sft.train_sft` (AI-Hypercomputer/maxtext maxtext-v0.2.4), configs/post_train/sft.yml
 * over base.yml, validated as types.py MaxTextConfig. One row of the method table. Pure; no cdktf.
 *
 * Data (types.py HfDataset, DatasetGeneral; sft.yml): `dataset_type=hf`, `hf_path`, `hf_name` (the dataset config),
 * `train_split` (sft.yml l.39 default `train_sft`), `hf_eval_split` (l.40 `test_sft`), `train_data_columns` (l.41: ['messages']).
 * Checkpoints: Tunix PeftTrainer under `<run>/checkpoints/<step>/model_params`; train_sft keeps every one (its
 * CheckpointManagerOptions take checkpoint_period and async_checkpointing only).
 * Resume: google/tunix c4ec573d tunix/sft/peft_trainer.py `PeftTrainer.train` skips already-trained batches only when
 * no data hooks load them, and train_sft installs `SFTDataHooks` (trainers/post_train/hooks.py `BaseDataHooks`: a fresh
 * iterator, `load_next_train_batch` ignores the restored step).
 */
import { dtypeBytes, HbmEstimate, HbmInput, HbmPart, loraEnabled, num, stateGib, str, wholeChipsEstimate } from '../hbm';
import { SFT_DEFAULTS } from '../maxtext-defaults';
import { METRIC_LOGGER_LINES } from '../run-log';
import { BASE_SHAPE, columnListProblem, hfDatasetArgs, hfProblem, numArg, perDeviceStepTokens, TO_HF_ARGS, TO_MAXTEXT_ARGS } from './common';
import type { ColumnType, DatasetSpec, MethodRow } from './types';

/** The chat column(s) SFT trains on when the dataset does not say (sft.yml l.41 `train_data_columns`). */
export const DEFAULT_SFT_COLUMNS: readonly string[] = ['messages'];

/**
 * SFT memory: weights at `weight_dtype` (types.py default float32), gradients at the weights' dtype, AdamW `mu` at
 * `mu_dtype` (default: `weight_dtype`) and `nu` at the weights' dtype; with `lora.enable_lora` only the adapters are
 * differentiated (train_sft.py `setup_trainer_state`; utils/lora_utils.py `wrt=nnx.LoRAParam`): the frozen base is
 * weights only. One pass: `per_device_batch_size` x chips sequences of `max_target_length`.
 */
export function sftMemory(input: HbmInput): HbmEstimate {
  const { args } = input;
  const wName = str(args['weight_dtype']) ?? SFT_DEFAULTS.weight_dtype;
  const w = dtypeBytes(wName) ?? 4;
  const mu = dtypeBytes(str(args['mu_dtype']) ?? wName) ?? w;
  const lora = loraEnabled(args);
  const parts: HbmPart[] = [{ what: `weights (${wName})`, on: 'chips', gibPerChip: stateGib(input, w) }];
  if (!lora) {
    parts.push({ what: 'gradients', on: 'chips', gibPerChip: stateGib(input, w) });
    parts.push({ what: 'AdamW mu + nu', on: 'chips', gibPerChip: stateGib(input, mu + w) });
  }
  const pdbs = num(args, 'per_device_batch_size', SFT_DEFAULTS.per_device_batch_size);
  const seqLen = num(args, 'max_target_length', SFT_DEFAULTS.max_target_length);
  const pass = { sequences: pdbs * input.devices.trainer, seqLen, label: `per_device_batch_size=${pdbs} x ${seqLen} tokens`, weightBytes: w };
  return wholeChipsEstimate(input, SFT, parts, pass, lora ? 'frozen weights (lora.enable_lora)' : 'weights, gradients and AdamW state');
}

/** The steps a new SFT pipeline trains without `steps`: tutorial 003's 1000. */
const SFT_STEPS = 1000;

/**
 * The column sets MaxText's SFT data processing accepts, in any order (maxtext-v0.2.4
 * input_pipeline/data_processing_utils.py `validate_and_configure_sft_columns`, l.61: `supported_columns`; called by
 * hf_data_processing.py l.343 whenever `use_sft`): any other set fails an assertion after the model loaded.
 */
export const SFT_COLUMN_SETS: readonly (readonly string[])[] = [['prompt', 'completion'], ['messages'], ['question', 'answer']];

/** Why SFT's columns are refused, or undefined. */
export function sftColumnsProblem(columns: readonly string[], at: string): string | undefined {
  const empty = columnListProblem(columns, at, 'at least one column (the chat messages, e.g. ["messages"])');
  if (empty) return empty;
  const same = (set: readonly string[]) => set.length === columns.length && set.every((c) => columns.includes(c));
  if (SFT_COLUMN_SETS.some(same)) return undefined;
  return (
    `${at}.columns: MaxText's SFT data processing accepts the columns ${SFT_COLUMN_SETS.map((s) => JSON.stringify(s)).join(', ')} (in any order; ` +
    `input_pipeline/data_processing_utils.py validate_and_configure_sft_columns), got ${JSON.stringify(columns)}; use a dataset (or a copy of it) whose columns are named so`
  );
}

/**
 * Why MaxText's SFT data path refuses these columns holding these types, or undefined. maxtext-v0.2.4
 * input_pipeline/hf_data_processing.py l.339-355: after validate_and_configure_sft_columns,
 * instruction_data_processing.convert_to_conversational_format turns only `question`/`answer` text into messages
 * (l.203-211) and `assert input_pipeline_utils.is_conversational(...)` ("Dataset is not in conversational format.")
 * requires every other column to be a list of `{role, content}` messages. Run on local data of each layout with
 * MaxText 0.2.4 (scripts/upstream-checks/column_layouts.py): messages accepted, prompt/completion as messages accepted,
 * question/answer as text accepted; prompt/completion as text and messages as text refused. A column of unknown type passes.
 */
export function sftColumnTypesProblem(columns: readonly string[], types: Readonly<Record<string, ColumnType>>, at: string): string | undefined {
  const qa = columns.includes('question') && columns.includes('answer');
  if (qa) return undefined;
  const notMessages = columns.filter((c) => types[c] !== undefined && types[c] !== 'messages');
  if (notMessages.length === 0) return undefined;
  const found = notMessages.map((c) => `${c}: ${types[c]}`).join(', ');
  return (
    `${at}.columns: MaxText's SFT data path needs ${JSON.stringify(columns)} to hold lists of {role, content} messages, got ${found} ` +
    `(it converts only question/answer text to messages: input_pipeline/instruction_data_processing.py convert_to_conversational_format, ` +
    `then asserts is_conversational: hf_data_processing.py "Dataset is not in conversational format."); ` +
    `for plain prompt/completion text use a copy of the dataset with the columns named question and answer, or a messages column`
  );
}

/** SFT's dataset: hf, config, splits and the chat column(s); the evaluation split is the one the `heldout` eval task scores. */
function sftDataset(d: DatasetSpec, at: string) {
  const problems = hfProblem(d, at, SFT.exampleDataset);
  const rlOnly = d.template !== undefined ? 'template' : d.processor !== undefined ? 'processor' : undefined;
  if (rlOnly) problems.push(`${at}: ${rlOnly} is for RL (data_template_path, dataset_processor_path); SFT reads hf, config, split, evalSplit and columns`);
  const columns = d.columns ?? DEFAULT_SFT_COLUMNS;
  const bad = d.columns !== undefined ? sftColumnsProblem(d.columns, at) : undefined;
  if (bad) problems.push(bad);
  const typed = !bad && d.columnTypes ? sftColumnTypesProblem(columns, d.columnTypes, at) : undefined;
  if (typed) problems.push(typed);
  return { args: hfDatasetArgs(d, columns, d.evalSplit), problems };
}

/** The SFT row. */
export const SFT: MethodRow = {
  kind: 'sft',
  methods: { sft: {} },
  module: 'maxtext.trainers.post_train.sft.train_sft',
  configFile: 'src/maxtext/configs/post_train/sft.yml',
  configClass: 'MaxTextConfig',
  loss: 'cross-entropy on the completion tokens (sft.yml sft_train_on_completion_only: true)',
  stepsKey: 'steps',
  defaultSteps: SFT_STEPS,
  lastStep: (args) => numArg(args, 'steps', SFT_DEFAULTS.steps),
  checkpointSubdir: '',
  keepsCheckpoints: false,
  defaults: SFT_DEFAULTS,
  vocabTiling: true,
  memory: (input) => sftMemory(input),
  rollout: false,
  // base.yml `scan_layers: True`: an SFT run that does not pass it trains scanned.
  scanLayersDefault: true,
  resumeRepeats: 'SFT reads its data again from the first example',
  log: METRIC_LOGGER_LINES,
  // jobs/eval.ts HELDOUT_TASK: the dataset's own evaluation split.
  defaultEval: ['heldout'],
  heldoutEval: true,
  exampleDataset: 'HuggingFaceH4/ultrachat_200k',
  columnTypesProblem: (columns, types, at) => sftColumnTypesProblem(columns, types, at),
  dataset: (d, at) => sftDataset(d, at),
  stepTokens: (args, chips) => perDeviceStepTokens(args, chips, SFT_DEFAULTS),
  stepSettings: ['perDeviceBatch', 'maxSeqLen'],
  settings: {
    learningRate: { key: 'learning_rate', source: 'configs/post_train/sft.yml l.22', default: 2e-5, kind: 'nonneg', doc: 'peak learning rate' },
    schedule: { key: 'lr_schedule_type', source: 'configs/base.yml l.871 (types.py LearningRateScheduleType)', default: 'cosine', kind: 'enum', values: ['cosine', 'wsd'], doc: 'learning rate schedule' },
    warmupFraction: { key: 'warmup_steps_fraction', source: 'configs/base.yml l.875', default: 0.1, kind: 'fraction', doc: 'fraction of the steps spent warming up' },
    maxSeqLen: { key: 'max_target_length', source: 'configs/base.yml l.880', default: 2048, kind: 'int', doc: 'maximum sequence length, tokens' },
    perDeviceBatch: { key: 'per_device_batch_size', source: "this project's SFT base (base.yml l.731 has 12)", default: 1, kind: 'positive', doc: 'sequences per chip per step' },
    packing: { key: 'packing', source: 'configs/post_train/sft.yml l.21', default: true, kind: 'bool', doc: 'pack several examples into one sequence' },
  },
  reward: false,
  datasetFiles: false,
  lora: true,
  multiHostBase: true,
  base: {
    name: 'sft',
    tutorial: '-',
    description: 'SFT (train_sft) on multi-host JAX',
    ...BASE_SHAPE,
    toMaxText: { args: TO_MAXTEXT_ARGS, flags: { lazy_load_tensors: true } },
    train: {
      kind: 'sft',
      args: { run_name: 'sft', dataset_type: 'hf', per_device_batch_size: 1, steps: SFT_STEPS, skip_jax_distributed_system: false },
      env: { JAX_PLATFORMS: 'tpu,cpu', ENABLE_PJRT_COMPATIBILITY: 'true' },
    },
    toHf: { args: TO_HF_ARGS },
  },
};
