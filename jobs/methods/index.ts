/**
 * The method table: one row per MaxText post-training trainer (SFT, RL, DPO), each in its own file, as jobs/tpu.ts and
 * jobs/models.ts are rows. Everything the program does differently per method is a field of the row (module and
 * config file, loss, checkpoint layout, memory model, start-up rules, restart semantics, log lines, default eval, data
 * checks, base recipe); nothing outside jobs/methods/ tests a method by name (__tests__/architecture.test.ts). Pure.
 */
import type { HbmEstimate, HbmInput } from '../hbm';
import type { MaxTextArgs, Recipe, RlTrain } from '../recipes/types';
import { DPO } from './dpo';
import { RL } from './rl';
import { SFT } from './sft';
import type { MethodRow, TrainingSetting, TrainKind } from './types';

export type { ColumnType, DatasetSpec, MethodRow, TrainKind } from './types';
export { DEFAULT_SFT_COLUMNS } from './sft';
export { LOSS_ALGO } from './rl';

/** The rows, by trainer kind. */
export const METHOD_TABLE: Readonly<Record<TrainKind, MethodRow>> = { sft: SFT, rl: RL, dpo: DPO };
/** Every row, in table order. */
export const METHOD_ROWS: readonly MethodRow[] = Object.values(METHOD_TABLE);

/** The post-training methods a config entry may name, in table order: sft, grpo, gspo, dpo. */
export const METHODS: readonly string[] = METHOD_ROWS.flatMap((r) => Object.keys(r.methods));
/** A method name (METHODS). */
export type Method = string;

/** The row of a trainer kind. */
export function methodRow(kind: TrainKind): MethodRow {
  return METHOD_TABLE[kind];
}

/** The row a recipe trains with. */
export function rowOf(recipe: Pick<Recipe, 'train'>): MethodRow {
  return METHOD_TABLE[recipe.train.kind];
}

/** The row that runs `method`, or undefined for a name not in METHODS. */
export function rowOfMethod(method: string): MethodRow | undefined {
  return METHOD_ROWS.find((r) => Object.prototype.hasOwnProperty.call(r.methods, method));
}

/**
 * The typed training setting of `row` that owns MaxText `key` (the key it sets), with its name, or undefined: an
 * override of an owned key is refused (jobs/pipeline.ts), whatever the entry's `training` says, so each value that runs
 * has one config key.
 */
export function settingOwning(row: MethodRow, key: string): { readonly name: string; readonly setting: TrainingSetting } | undefined {
  const found = Object.entries(row.settings).find(([, s]) => s.key === key);
  return found ? { name: found[0], setting: found[1] } : undefined;
}

/** The MaxText keys that select `method` within its row (e.g. gspo: `rl.loss_algo=gspo-token`). */
export function methodArgs(method: string): MaxTextArgs {
  return rowOfMethod(method)?.methods[method] ?? {};
}

/** The method a recipe trains with: the one whose selecting keys its arguments carry, else its row's first. */
export function methodOf(recipe: Pick<Recipe, 'train'>): Method {
  const row = rowOf(recipe);
  const names = Object.keys(row.methods);
  const set = Object.entries(row.methods).filter(([, keys]) => Object.keys(keys).length > 0 && Object.entries(keys).every(([k, v]) => recipe.train.args[k] === v));
  return set[0]?.[0] ?? names[0];
}

/** The HBM estimate of one training step: the memory model of the input's row. */
export function estimateHbm(input: HbmInput): HbmEstimate {
  return METHOD_TABLE[input.kind].memory(input);
}

/** The sampler-side settings only RL's training carries (source patches, VLLM_HOST_IP, the Pathways head's memory). */
export function rolloutSettings(train: Recipe['train']): Pick<RlTrain, 'patches' | 'exportVllmHostIp' | 'memoryLimit'> {
  return train.kind === 'rl' ? { patches: train.patches, exportVllmHostIp: train.exportVllmHostIp, memoryLimit: train.memoryLimit } : {};
}
