/**
 * What the rows of the method table share: the base shape of a new pipeline, the export arguments, and the dataset
 * checks every method makes. Pure; no cdktf.
 */
import { hfIdProblem } from '../hf-id';
import { CONVERSION_MAX_RESTARTS, CONVERSION_TIMEOUT_MINUTES, TUTORIAL_IMAGE } from '../recipes/common';
import { numberArg } from '../recipes/types';
import type { MaxTextArgs } from '../recipes/types';
import type { DatasetSpec } from './types';

/**
 * What every method's base shares: a single-VM v6e-8 on McJAX with the tutorial image and the conversions' limits.
 * McJAX (one JAX process per TPU VM), conversions on the CPU pool with McJAX checkpoint storage (OCDBT + Zarr3 on,
 * `$((1 - USE_PATHWAYS))`), scanned layers everywhere.
 */
export const BASE_SHAPE = {
  model: { name: '', hfRepo: '' },
  slice: { machineType: 'ct6e-standard-8t', topology: '2x4' },
  image: TUTORIAL_IMAGE,
  runtime: 'mcjax',
  maxRestarts: { 'to-maxtext': CONVERSION_MAX_RESTARTS, 'to-hf': CONVERSION_MAX_RESTARTS },
  timeoutMinutes: { 'to-maxtext': CONVERSION_TIMEOUT_MINUTES, train: 720, 'to-hf': CONVERSION_TIMEOUT_MINUTES },
} as const;

/** to_maxtext arguments of a base whose training runs McJAX on the TPU VMs (conversion on the CPU pool). */
export const TO_MAXTEXT_ARGS = {
  scan_layers: true,
  use_multimodal: false,
  skip_jax_distributed_system: true,
  checkpoint_storage_use_zarr3: 1,
  checkpoint_storage_use_ocdbt: 1,
  hardware: 'cpu',
} as const;

/** to_huggingface arguments of every base. */
export const TO_HF_ARGS = { skip_jax_distributed_system: true, hardware: 'cpu', scan_layers: true, use_multimodal: false, weight_dtype: 'bfloat16' } as const;

/** `{ key: value }` when the value is set, else `{}`. */
export const optional = (key: string, value: string | undefined): MaxTextArgs => (value !== undefined ? { [key]: value } : {});

/**
 * MaxText's Hugging Face dataset arguments (one home for the trainers that read `dataset_type=hf`: SFT, DPO): the
 * repository, its config and split, the evaluation split where the method scores one, and the columns.
 */
export function hfDatasetArgs(d: DatasetSpec, columns: readonly string[], evalSplit?: string): MaxTextArgs {
  return {
    dataset_type: 'hf',
    hf_path: d.hf ?? '',
    ...optional('hf_name', d.config),
    ...optional('train_split', d.split),
    ...optional('hf_eval_split', evalSplit),
    train_data_columns: [...columns],
  };
}

/** A number argument or its default: recipes/types.ts numberArg (one home), under the name the rows use. */
export { numberArg as numArg } from '../recipes/types';

/**
 * Tokens of one step of a trainer that puts `per_device_batch_size` sequences of `max_target_length` on every chip
 * (jobs/step-time.ts's lower bound): SFT, and DPO with `sequences` 2 (the chosen and the rejected of each pair).
 */
export function perDeviceStepTokens(
  args: MaxTextArgs,
  chips: number,
  defaults: { readonly per_device_batch_size: number; readonly max_target_length: number },
  sequences?: { readonly count: number; readonly what: string },
): { tokens: number; label: string } {
  const pdbs = numberArg(args, 'per_device_batch_size', defaults.per_device_batch_size);
  const seq = numberArg(args, 'max_target_length', defaults.max_target_length);
  const each = sequences ? ` x ${sequences.count} (${sequences.what})` : '';
  return { tokens: (sequences?.count ?? 1) * pdbs * chips * seq, label: `per_device_batch_size=${pdbs}${each} x ${chips} chips x ${seq} tokens` };
}

/** `hf` is required by every method. */
export function hfProblem(d: DatasetSpec, at: string, example: string): string[] {
  if (d.hf === undefined || d.hf.trim() === '') return [`${at}.hf: is required (the Hugging Face dataset repository, e.g. ${example})`];
  // The id's syntax (jobs/hf-id.ts): a URL, control characters, no owner, spaces around it.
  const idProblem = hfIdProblem(d.hf, example);
  return idProblem ? [`${at}.hf: '${d.hf}' ${idProblem}`] : [];
}

/** An RL-only key (`template`, `evalSplit`) on a method that does not read it. */
export function rlOnlyProblems(d: DatasetSpec, at: string, method: string): string[] {
  const key = d.template !== undefined ? 'template' : d.processor !== undefined ? 'processor' : d.evalSplit !== undefined ? 'evalSplit' : undefined;
  return key ? [`${at}: ${key} is for RL (data_template_path, dataset_processor_path, eval_split); ${method} reads hf, config, split and columns`] : [];
}

/** A list of column names: at least one, none empty. */
export function columnListProblem(columns: readonly string[] | undefined, at: string, what: string): string | undefined {
  if (columns === undefined) return undefined;
  if (columns.length === 0 || columns.some((c) => c.trim() === '')) return `${at}.columns: must name ${what}, got ${JSON.stringify(columns)}`;
  return undefined;
}
