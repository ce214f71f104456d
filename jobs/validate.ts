/**
 * Synth-time checks of a recipe against the slice it targets: MaxText's start-up checks that can be known from
 * the config, so a wrong value fails `cdktf synth` instead of a pod after a 20-minute slice spin-up.
 * Each rule is a function returning messages that name the recipe, the field, the value and what fits.
 * Facts and MaxText defaults: ../shared/reference/maxtext-post-training.md §1.3, §4, §9. Pure; no cdktf.
 */
import { doesNotFit, sumRequests } from './machines';
import { findTpuGroup, Platform, TpuPoolGroup } from './platform';
import { gib, parseBytes } from './quantity';
import { ContainerResources, JsonValue, MaxTextArgs, numberArg, Recipe } from './recipes/types';
import { dtypeBytes, HbmEstimate, StepDevices } from './hbm';
import { estimateHbm, rolloutSettings, rowOf, settingOwning } from './methods';
import { imageReferenceProblem } from './image-ref';
import { DCN_AXIS_KEYS, ICI_AXIS_KEYS, meshDefault, RL_DEFAULTS } from './maxtext-defaults';
import { cutModelSize, hfRepoProblem, modelSize } from './models';
import { GENERATIONS, sliceShapeName, slicesForAcceleratorType, supportedTopologies, tpuSlice, TpuMachineType, TpuSlice } from './tpu';
import { RECIPES } from './recipes';

/** What the checks need besides the recipe. */
export interface ValidationContext {
  readonly slice: TpuSlice;
  readonly slices: number;
  /** Machine type of the CPU pool (Pathways head, conversions). */
  readonly cpuMachineType: string;
  readonly cpuPoolName: string;
  /** Resources of the pods that run on the CPU pool: name -> containers. */
  readonly cpuPods: Readonly<Record<string, readonly ContainerResources[]>>;
  /** MaxText keys whose value came from config overrides (for messages). @default - none */
  readonly overridden?: ReadonlySet<string>;
  /** Where those overrides came from. @default - the recipe name */
  readonly configSource?: string;
  /** Where the image came from (`CLOUD_IMAGE_NAME (env)` or `<file>: pipelines.<name>.image`). @default - none */
  readonly imageSource?: string;
  /** The pipeline was retargeted with machineType/topology: advice names those keys, not `slice`. @default false */
  readonly retargeted?: boolean;
}

type Rule = (recipe: Recipe, ctx: ValidationContext) => string[];

/** Message prefix: the recipe, plus the config source when one of `keys` was set there. */
function who(recipe: Recipe, ctx: ValidationContext, ...keys: string[]): string {
  if (!ctx.configSource) return recipe.name;
  if (keys.some((k) => ctx.overridden?.has(k))) return `${recipe.name} (${ctx.configSource}.overrides)`;
  // Keys the entry's typed settings set (jobs/spec.ts applyTraining): the setting when one, else the block.
  const settings = [...new Set(keys.map((k) => recipe.trainingKeys?.[k]).filter((n): n is string => n !== undefined))];
  if (settings.length === 0) return recipe.name;
  return `${recipe.name} (${ctx.configSource}.training${settings.length === 1 ? `.${settings[0]}` : ''})`;
}

function py(v: JsonValue | undefined): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return String(v);
}
function divisors(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1).filter((d) => n % d === 0);
}

/** Trainer and sampler device counts as MaxText's setup_configs_and_devices computes them (single-slice mode). */
export function rlDevices(recipe: Recipe, ctx: ValidationContext): { total: number; vms: number; split: boolean; trainer: number; sampler: number } {
  const args = recipe.train.args;
  const total = ctx.slice.chips * ctx.slices;
  const vms = Math.floor(total / numberArg(args, 'chips_per_vm', RL_DEFAULTS.chips_per_vm));
  const usePathways = args['use_pathways'] !== false;
  const split = usePathways && vms >= 2;
  const tf = numberArg(args, 'trainer_devices_fraction', RL_DEFAULTS.trainer_devices_fraction);
  const sf = numberArg(args, 'sampler_devices_fraction', RL_DEFAULTS.sampler_devices_fraction);
  return {
    total,
    vms,
    split,
    trainer: split ? Math.floor(total * tf) : total,
    sampler: split ? Math.floor(total * sf) : total,
  };
}

/**
 * The mesh axes of one family (jobs/maxtext-defaults.ts ICI_AXIS_KEYS or DCN_AXIS_KEYS) set in `args`, plus the
 * family's -1 default (`ici_fsdp_parallelism`, `dcn_data_parallelism`) when absent, in MaxText's order.
 */
function meshAxes(args: MaxTextArgs, keys: readonly string[]): Array<[string, number]> {
  return keys.filter((k) => typeof args[k] === 'number' || meshDefault(k) === -1).map((k) => [k, typeof args[k] === 'number' ? (args[k] as number) : meshDefault(k)]);
}

/** Checks a set of mesh axes (at most one -1) against a device count. */
function meshMessages(prefix: string, axes: Array<[string, number]>, devices: number, what: string): string[] {
  const bad = axes.filter(([, v]) => !(Number.isInteger(v) && (v === -1 || v > 0)));
  if (bad.length > 0) return bad.map(([k, v]) => `${prefix}: ${k} must be -1 or a positive integer, got ${v}`);
  const fill = axes.filter(([, v]) => v === -1);
  if (fill.length > 1) {
    return [`${prefix}: at most one of ${axes.map(([k]) => k).join(', ')} may be -1, got ${fill.map(([k]) => `${k}=-1`).join(', ')}`];
  }
  const fixed = axes.filter(([, v]) => v !== -1);
  const product = fixed.reduce((p, [, v]) => p * v, 1);
  const shown = `${fixed.map(([, v]) => v).join('x') || '1'}=${product}`;
  if (fill.length === 1) {
    if (devices % product !== 0) {
      return [
        `${prefix}: ${fixed.map(([k]) => k).join(' x ')} must divide the ${devices} ${what} ` +
          `(${fill[0][0]}=-1 takes the rest), got ${shown}; products that fit: ${divisors(devices).join(', ')}`,
      ];
    }
    return [];
  }
  if (product !== devices) {
    return [`${prefix}: ${fixed.map(([k]) => k).join(' x ')} must equal the ${devices} ${what}, got ${shown}`];
  }
  return [];
}

/**
 * ICI parallelism product (at most one -1) vs the devices of one slice of each mesh: `maxtext_utils.create_device_mesh`
 * checks it against `len(devices) // num_slices` (SFT: the slice's chips; RL: the trainer devices, then the sampler
 * devices, which single-slice RL meshes with the same config, each over the slices). `ici_sequence_parallelism` is not
 * a base.yml mesh axis: the mesh never reads it.
 */
export const iciParallelism: Rule = (recipe, ctx) => {
  const args = recipe.train.args;
  const axes = meshAxes(args, ICI_AXIS_KEYS);
  const prefix = who(recipe, ctx, ...axes.map(([k]) => k), 'ici_sequence_parallelism');
  const ignored = numberArg(args, 'ici_sequence_parallelism', 1) === 1
    ? []
    : [`${prefix}: ici_sequence_parallelism=${py(args['ici_sequence_parallelism'])} has no effect: it is not one of MaxText's mesh axes (base.yml mesh_axes); remove it, or use ici_context_parallelism`];
  const perSlice = (devices: number) => Math.floor(devices / Math.max(1, ctx.slices));
  const slices = ctx.slices > 1 ? ` of each of the ${ctx.slices} slices` : '';
  if (!rowOf(recipe).rollout) return [...ignored, ...meshMessages(prefix, axes, ctx.slice.chips, 'devices per slice')];
  const d = rlDevices(recipe, ctx);
  const trainer = meshMessages(prefix, axes, perSlice(d.trainer), `trainer devices${slices}`);
  if (trainer.length > 0 || d.sampler === d.trainer) return [...ignored, ...trainer];
  // Single-slice RL builds the rollout mesh from the same config over the sampler devices.
  return [...ignored, ...meshMessages(prefix, axes, perSlice(d.sampler), `sampler devices${slices}`)];
};

/**
 * DCN parallelism (the axes across slices, `dcn_data_parallelism` -1 by default) vs the slices: with 2 or more,
 * `create_device_mesh` fills and checks their product against `num_slices`; on one slice MaxTextConfig refuses a
 * product above 1 ("DCN parallelism requested but only one slice available", types.py).
 */
export const dcnParallelism: Rule = (recipe, ctx) => {
  const args = recipe.train.args;
  const axes = meshAxes(args, DCN_AXIS_KEYS);
  const prefix = who(recipe, ctx, ...axes.map(([k]) => k));
  if (ctx.slices > 1) return meshMessages(prefix, axes, ctx.slices, 'slices');
  const product = Math.abs(axes.reduce((p, [, v]) => p * v, 1));
  if (product <= 1) return [];
  return [`${prefix}: ${axes.filter(([, v]) => v !== 1 && v !== -1).map(([k, v]) => `${k}=${v}`).join(', ')} needs as many slices, got 1 slice (MaxText: "DCN parallelism requested but only one slice available"); remove it`];
};

/** Rollout (vLLM) tensor x data x expert parallelism vs the sampler devices. */
export const rolloutParallelism: Rule = (recipe, ctx) => {
  if (!rowOf(recipe).rollout) return [];
  const args = recipe.train.args;
  const keys = ['rollout_tensor_parallelism', 'rollout_data_parallelism', 'rollout_expert_parallelism'] as const;
  const axes: Array<[string, number]> = keys.map((k) => [k, numberArg(args, k, RL_DEFAULTS[k])]);
  return meshMessages(who(recipe, ctx, ...keys), axes, rlDevices(recipe, ctx).sampler, 'sampler devices');
};

/** trainer/sampler fractions: only meaningful where MaxText splits (Pathways, >= 2 VMs); then they must fit. */
export const deviceFractions: Rule = (recipe, ctx) => {
  if (!rowOf(recipe).rollout) return [];
  const args = recipe.train.args;
  const keys = ['trainer_devices_fraction', 'sampler_devices_fraction'];
  const prefix = who(recipe, ctx, ...keys);
  const d = rlDevices(recipe, ctx);
  const given = keys.filter((k) => args[k] !== undefined);
  if (!d.split || recipe.runtime !== 'pathways') {
    return given.map(
      (k) =>
        `${prefix}: ${k}=${py(args[k])} has no effect: MaxText splits trainer and sampler devices only on Pathways with >= 2 VMs ` +
        `(runtime ${recipe.runtime}, ${d.total} devices / chips_per_vm ${numberArg(args, 'chips_per_vm', RL_DEFAULTS.chips_per_vm)} = ${d.vms} VM); remove it`,
    );
  }
  const tf = numberArg(args, keys[0], RL_DEFAULTS.trainer_devices_fraction);
  const sf = numberArg(args, keys[1], RL_DEFAULTS.sampler_devices_fraction);
  const out: string[] = [];
  for (const [k, v] of [[keys[0], tf], [keys[1], sf]] as const) {
    if (!(v > 0 && v <= 1)) out.push(`${prefix}: ${k} must be in (0, 1], got ${v}`);
  }
  if (out.length === 0 && tf + sf > 1 + 1e-9) {
    out.push(`${prefix}: ${keys[0]} + ${keys[1]} must be at most 1 (trainer and sampler devices would overlap), got ${tf} + ${sf} = ${tf + sf}`);
  }
  if (out.length === 0 && (d.trainer < 1 || d.sampler < 1)) {
    out.push(`${prefix}: the fractions leave ${d.trainer} trainer and ${d.sampler} sampler devices of ${d.total}; both need at least 1`);
  }
  return out;
};

/** chips_per_vm must be the slice's chips per VM, or MaxText miscounts VMs and splits a single host. */
export const chipsPerVm: Rule = (recipe, ctx) => {
  if (!rowOf(recipe).rollout) return [];
  const value = numberArg(recipe.train.args, 'chips_per_vm', RL_DEFAULTS.chips_per_vm);
  if (value === ctx.slice.chipsPerVm) return [];
  return [
    `${who(recipe, ctx, 'chips_per_vm')}: chips_per_vm must equal the ${ctx.slice.chipsPerVm} chips per VM of ` +
      `${ctx.slice.machineType}, got ${value}${recipe.train.args['chips_per_vm'] === undefined ? ' (MaxText default)' : ''}`,
  ];
};

/** batch_size must be a multiple of train_micro_batch_size (Tunix RLTrainingConfig). */
export const batchDivisibility: Rule = (recipe, ctx) => {
  if (!rowOf(recipe).rollout) return [];
  const args = recipe.train.args;
  const batch = numberArg(args, 'batch_size', RL_DEFAULTS.batch_size);
  const micro = numberArg(args, 'train_micro_batch_size', RL_DEFAULTS.train_micro_batch_size);
  if (micro === -1 || (micro > 0 && batch % micro === 0)) return [];
  return [
    `${who(recipe, ctx, 'batch_size', 'train_micro_batch_size')}: batch_size must be a multiple of train_micro_batch_size, ` +
      `got batch_size=${batch}, train_micro_batch_size=${micro}; micro batch sizes that fit: ${divisors(batch).join(', ')}`,
  ];
};

/** GRPO needs at least two generations per prompt. */
export const numGenerations: Rule = (recipe, ctx) => {
  if (!rowOf(recipe).rollout) return [];
  const n = numberArg(recipe.train.args, 'rl.num_generations', RL_DEFAULTS['rl.num_generations']);
  if (n >= 2) return [];
  return [`${who(recipe, ctx, 'rl.num_generations')}: rl.num_generations must be at least 2 (GRPO compares generations of one prompt), got ${n}`];
};

/** Prompts longer than max_prefill_predict_length are dropped; the completion budget is the difference. */
export const promptLength: Rule = (recipe, ctx) => {
  if (!rowOf(recipe).rollout) return [];
  const args = recipe.train.args;
  const target = numberArg(args, 'max_target_length', RL_DEFAULTS.max_target_length);
  const prefill = numberArg(args, 'max_prefill_predict_length', RL_DEFAULTS.max_prefill_predict_length);
  if (prefill < target) return [];
  return [
    `${who(recipe, ctx, 'max_target_length', 'max_prefill_predict_length')}: max_prefill_predict_length must be less than ` +
      `max_target_length (MaxText silently drops longer prompts and generates max_target_length - max_prefill_predict_length tokens), ` +
      `got ${prefill} >= ${target}`,
  ];
};

/**
 * scan_layers must be the same in conversion, training and export. RL reads it from the checkpoint when not
 * given; SFT falls back to base.yml's `scan_layers: True`, so an SFT run that does not pass it trains scanned.
 */
export const scanLayers: Rule = (recipe, ctx) => {
  const values: Array<[string, boolean]> = [['to-maxtext', recipe.toMaxText.args.scan_layers]];
  const given = recipe.train.args['scan_layers'];
  const train = typeof given === 'boolean' ? given : rowOf(recipe).scanLayersDefault;
  if (train !== undefined) values.push([typeof given === 'boolean' ? 'train' : 'train (base.yml default)', train]);
  values.push(['to-hf', recipe.toHf.args.scan_layers]);
  if (values.every(([, v]) => v === values[0][1])) return [];
  return [
    `${who(recipe, ctx, 'scan_layers')}: scan_layers must be equal in conversion, training and export, got ` +
      `${values.map(([s, v]) => `${s}=${py(v)}`).join(', ')}`,
  ];
};

/** Pathways reads and writes checkpoints without OCDBT/Zarr3; Zarr3 needs OCDBT anywhere. */
export const checkpointStorage: Rule = (recipe, ctx) => {
  const keys = ['checkpoint_storage_use_zarr3', 'checkpoint_storage_use_ocdbt'];
  const prefix = who(recipe, ctx, ...keys);
  const out: string[] = [];
  const steps: Array<[string, MaxTextArgs]> = [
    ['to-maxtext', recipe.toMaxText.args as unknown as MaxTextArgs],
    ['train', recipe.train.args],
  ];
  for (const [step, args] of steps) {
    const zarr3 = args[keys[0]];
    const ocdbt = args[keys[1]];
    if (zarr3 === undefined && ocdbt === undefined) continue;
    const on = (v: JsonValue | undefined) => v === 1 || v === true;
    if (recipe.runtime === 'pathways' && (on(zarr3) || on(ocdbt))) {
      out.push(
        `${prefix}: ${step} has checkpoint_storage_use_zarr3=${py(zarr3)}, checkpoint_storage_use_ocdbt=${py(ocdbt)}, ` +
          'but Pathways (runtime pathways) needs both 0',
      );
    } else if (on(zarr3) && !on(ocdbt)) {
      out.push(`${prefix}: ${step} has checkpoint_storage_use_zarr3=${py(zarr3)} without checkpoint_storage_use_ocdbt; Zarr3 requires OCDBT (set both 1 or both 0)`);
    }
  }
  return out;
};

/** vllm_additional_config.maxtext_config.model_name must be the model being trained. */
export const vllmModelName: Rule = (recipe, ctx) => {
  const extra = recipe.train.args['vllm_additional_config'];
  const mc = extra && typeof extra === 'object' && !Array.isArray(extra) ? (extra as Record<string, JsonValue>)['maxtext_config'] : undefined;
  const name = mc && typeof mc === 'object' && !Array.isArray(mc) ? (mc as Record<string, JsonValue>)['model_name'] : undefined;
  if (name === undefined || name === recipe.model.name) return [];
  return [
    `${who(recipe, ctx, 'vllm_additional_config', 'model_name')}: vllm_additional_config.maxtext_config.model_name must be ` +
      `the trained model '${recipe.model.name}', got '${String(name)}'`,
  ];
};

function podTotals(containers: readonly ContainerResources[], kind: 'requests' | 'limits'): { millicores: number; bytes: number } {
  // A container without a request gets its limit as request (Kubernetes defaulting).
  return sumRequests(
    containers.map((c) => {
      const r = kind === 'requests' ? { ...c.limits, ...c.requests } : { ...c.requests, ...c.limits };
      return { cpu: r.cpu ?? '0', memory: r.memory ?? '0' };
    }),
  );
}

/** Pods on the CPU pool (Pathways head, conversions) must fit one node of its machine type, requests and limits. */
export const cpuPodFit: Rule = (recipe, ctx) => {
  const out: string[] = [];
  for (const [pod, containers] of Object.entries(ctx.cpuPods)) {
    for (const kind of ['requests', 'limits'] as const) {
      const total = podTotals(containers, kind);
      const reason = doesNotFit(total, ctx.cpuMachineType);
      if (reason) {
        out.push(
          `${who(recipe, ctx)}: the ${pod} pod's ${kind} (cpu ${total.millicores / 1000}, memory ${gib(total.bytes)}) do not fit ` +
            `one ${ctx.cpuPoolName} node: ${reason}; set cpuPool.machineType (config) to a larger machine from jobs/machines.ts ` +
            `or lower the ${pod} pod's resources in the recipe`,
        );
        break;
      }
    }
  }
  return out;
};

/** tpuVmEnv describes one VM; a multi-VM slice gets its TPU env from GKE. */
export const tpuVmEnvSingleHost: Rule = (recipe, ctx) =>
  recipe.tpuVmEnv && ctx.slice.multiHost
    ? [`${recipe.name}: tpuVmEnv is only valid on a single-VM slice, got ${ctx.slice.machineType} ${ctx.slice.topology} (${ctx.slice.vms} VMs)`]
    : [];

/** Pathways recipes need their Pathways settings. */
export const pathwaysSettings: Rule = (recipe) =>
  recipe.runtime === 'pathways' && !recipe.pathways
    ? [`${recipe.name}.pathways: runtime 'pathways' needs the pathways settings (proxyEnv, serverEnv, workerEnv; {} for none), got none`]
    : [];

/** Trainer/sampler chips of the training step on `slice` x `slices` (RL: MaxText's split; SFT: every chip). */
function stepDevices(recipe: Recipe, slice: TpuSlice, slices: number): StepDevices {
  if (!rowOf(recipe).rollout) return { trainer: slice.chips * slices, sampler: 0, split: false, slices };
  const d = rlDevices(recipe, { slice, slices } as ValidationContext);
  return { trainer: d.trainer, sampler: d.sampler, split: d.split, slices };
}

function estimateOn(recipe: Recipe, slice: TpuSlice, slices: number): HbmEstimate | undefined {
  const full = modelSize(recipe.model.name);
  if (!full) return undefined;
  // A cut model (a rehearsal, jobs/rehearsal.ts): MaxText builds base_num_decoder_layers layers when
  // override_model_config lets the CLI replace the model YAML's (maxtext-v0.2.4 configs/pyconfig.py:479-486).
  const cut = recipe.train.args['base_num_decoder_layers'];
  const size = recipe.train.args['override_model_config'] === true && typeof cut === 'number' ? cutModelSize(full, cut) : full;
  return estimateHbm({
    model: recipe.model.name,
    size,
    kind: recipe.train.kind,
    args: recipe.train.args,
    adafactor: rolloutSettings(recipe.train).patches?.adafactor === true,
    slice,
    devices: stepDevices(recipe, slice, slices),
  });
}

/** The messages of every rule but the fit check itself. */
function otherMessages(recipe: Recipe, ctx: ValidationContext): string[] {
  return RULES.filter((rule) => rule !== hbmFit).flatMap((rule) => rule(recipe, ctx));
}

/**
 * True when `after` breaks a rule that `before` passed: a message `before` does not have (by text, or on another slice,
 * where messages name the slice, by count).
 */
function newMessages(before: readonly string[], after: readonly string[], byCount: boolean): boolean {
  return byCount ? after.length > before.length : after.some((m) => !before.includes(m));
}

const withArgs = (recipe: Recipe, set: MaxTextArgs): Recipe => ({ ...recipe, train: { ...recipe.train, args: { ...recipe.train.args, ...set } } }) as Recipe;
const sliceName = (s: TpuSlice) => `${s.machineType} ${s.topology} (${sliceShapeName(s)})`;

/**
 * Larger slices of the same generation (any machine type) the step fits on, smallest first: the first that fits
 * at all, and when that one is only tight, the first with room too.
 */
export function largerSlices(recipe: Recipe, ctx: ValidationContext): { tight?: TpuSlice; fits?: TpuSlice } {
  const slice = ctx.slice;
  const generation = GENERATIONS[slice.generation];
  const before = otherMessages(recipe, ctx);
  const candidates = (Object.keys(generation.machines) as TpuMachineType[])
    .flatMap((m) => supportedTopologies(m).map((t) => tpuSlice(m, t)))
    .filter((s) => s.chips > slice.chips)
    .sort((a, b) => a.chips - b.chips || a.vms - b.vms);
  let tight: TpuSlice | undefined;
  for (const candidate of candidates) {
    // chips_per_vm follows the slice (the chipsPerVm rule checks it separately).
    const moved = rowOf(recipe).rollout ? withArgs(recipe, { chips_per_vm: candidate.chipsPerVm }) : recipe;
    // Advised only where every other rule still passes (the mesh must divide the new devices, ...).
    if (newMessages(before, otherMessages(moved, { ...ctx, slice: candidate, slices: 1 }), true)) continue;
    const verdict = estimateOn(moved, candidate, 1)?.verdict;
    if (verdict === 'fits') return { tight, fits: candidate };
    if (verdict === 'tight' && !tight) tight = candidate;
  }
  return { tight };
}

/** One override (or a pair that only works together) and the values it is tried at, nearest first. */
export interface Knob {
  readonly keys: readonly string[];
  readonly values: ReadonlyArray<readonly JsonValue[]>;
}

/** Candidate values below `from` in `step`s down to `min` (steps of the advice: 256 tokens, 0.05 of HBM, 1 sequence). */
const descending = (from: number, step: number, min: number) =>
  Array.from({ length: Math.max(0, Math.ceil((from - min) / step)) }, (_, i) => from - (i + 1) * step).filter((v) => v >= min);
const round2 = (v: number) => Math.round(v * 100) / 100;

/**
 * The overrides that can move HBM on the failing side. Only keys the recipe passes to training are named (config
 * overrides reach only keys a step already has, jobs/pipeline.ts overrideArgs); each knob is tried in the direction
 * that relieves that side, and a value is advised only when the estimate then fits and no other rule breaks.
 */
export function knobs(recipe: Recipe, ctx: ValidationContext, sides: readonly string[]): Knob[] {
  const args = recipe.train.args;
  const has = (k: string) => args[k] !== undefined;
  const out: Knob[] = [];
  const one = (key: string, values: JsonValue[]) => {
    if (has(key) && values.length > 0) out.push({ keys: [key], values: values.map((v) => [v]) });
  };
  const row = rowOf(recipe);
  const rl = row.rollout;
  const d = rl ? rlDevices(recipe, ctx) : undefined;
  const util = numberArg(args, 'hbm_utilization_vllm', RL_DEFAULTS.hbm_utilization_vllm);
  const target = numberArg(args, 'max_target_length', row.defaults.max_target_length);
  const floor = rl ? numberArg(args, 'max_prefill_predict_length', RL_DEFAULTS.max_prefill_predict_length) + 1 : 128;
  const shorter = descending(Math.ceil(target / 256) * 256, 256, 256).filter((v) => v < target && v >= floor);
  if (sides.includes('trainer')) {
    if (!rl) {
      const pdbs = numberArg(args, 'per_device_batch_size', row.defaults.per_device_batch_size ?? 1);
      one('per_device_batch_size', descending(Math.ceil(pdbs), 1, 1).filter((v) => v < pdbs));
    } else {
      const batch = numberArg(args, 'batch_size', RL_DEFAULTS.batch_size);
      const micro = numberArg(args, 'train_micro_batch_size', RL_DEFAULTS.train_micro_batch_size);
      one('train_micro_batch_size', divisors(batch).reverse().filter((v) => v < (micro > 0 ? micro : batch)));
    }
    one('max_target_length', shorter);
    const remat = args['remat_policy'];
    if (typeof remat === 'string' && remat !== 'full') one('remat_policy', ['full']);
    for (const key of ['weight_dtype', 'mu_dtype']) {
      const v = args[key];
      if (typeof v === 'string' && (dtypeBytes(v) ?? 0) > 2) one(key, ['bfloat16']);
    }
    if (d && !d.split) one('hbm_utilization_vllm', descending(util, 0.05, 0.05).map(round2));
    if (d?.split && has('trainer_devices_fraction') && has('sampler_devices_fraction')) {
      const tf = numberArg(args, 'trainer_devices_fraction', RL_DEFAULTS.trainer_devices_fraction);
      const values = [0.625, 0.75, 0.875].filter((v) => v > tf).map((v) => [v, round2(1 - v)] as JsonValue[]);
      if (values.length > 0) out.push({ keys: ['trainer_devices_fraction', 'sampler_devices_fraction'], values });
    }
  }
  if (sides.includes('sampler')) {
    one('hbm_utilization_vllm', descending(0.95, 0.05, util + 0.001).map(round2).reverse());
    for (const key of ['rollout_tensor_parallelism', 'rollout_expert_parallelism']) {
      const v = numberArg(args, key, 1);
      if (v > 0 && d) one(key, [2, 4, 8, 16, 32, 64].map((m) => v * m).filter((x) => x <= d.sampler));
    }
    if (!sides.includes('trainer')) one('max_target_length', shorter);
  }
  return out;
}

/**
 * One advised value as the config spells it: `key=value` for an override, `<setting>=<value>` for a key a typed training
 * setting owns (jobs/methods/ `settings`: an override of it is refused, jobs/pipeline.ts), the value read back from the
 * moved recipe.
 */
function advisedText(recipe: Recipe, moved: Recipe, key: string, value: JsonValue): { text: string; training: boolean } {
  const owner = settingOwning(rowOf(recipe), key);
  if (!owner) return { text: `${key}=${py(value)}`, training: false };
  return { text: `${owner.name}=${owner.setting.fromArgs ? owner.setting.fromArgs(moved.train.args) : py(value)}`, training: true };
}

/** `key=value` (and pairs) that make the step fit this slice, as text; tight fits are marked; `training` when a typed setting is advised. */
function fittingOverrides(recipe: Recipe, ctx: ValidationContext, estimate: HbmEstimate, want: 'fits' | 'tight'): Array<{ text: string; training: boolean }> {
  const before = otherMessages(recipe, ctx);
  const out: Array<{ text: string; training: boolean }> = [];
  for (const knob of knobs(recipe, ctx, estimate.sides)) {
    let tight: { text: string; training: boolean } | undefined;
    let found: { text: string; training: boolean } | undefined;
    for (const values of knob.values) {
      const set: Record<string, JsonValue> = {};
      knob.keys.forEach((k, i) => (set[k] = values[i]));
      const moved = withArgs(recipe, set);
      // An advised value differs from the current one, and with it every other rule passes that passed before.
      if (knob.keys.every((k, i) => py(recipe.train.args[k]) === py(values[i]))) continue;
      const verdict = estimateOn(moved, ctx.slice, ctx.slices)?.verdict;
      if (verdict === 'impossible' || verdict === undefined || newMessages(before, otherMessages(moved, ctx), false)) continue;
      const texts = knob.keys.map((k, i) => advisedText(recipe, moved, k, values[i]));
      const text = texts.map((t) => t.text).join(' with ');
      const training = texts.some((t) => t.training);
      const now = `now ${knob.keys.map((k, i) => (texts[i].training ? advisedText(recipe, recipe, k, recipe.train.args[k]).text.replace(/^[^=]*=/, '') : py(recipe.train.args[k]))).join(', ')}`;
      if (verdict === 'fits') {
        found = { text: `${text} (${now})`, training };
        break;
      }
      tight ??= { text: `${text} (${now}; fits tightly)`, training };
    }
    if (found) out.push(found);
    else if (tight && want === 'tight') out.push(tight);
  }
  return out;
}

/** What to change for a failing (or tight) estimate: overrides that fit, and larger slices. */
function advice(recipe: Recipe, ctx: ValidationContext, estimate: HbmEstimate): string {
  const source = ctx.configSource ?? `pipelines.${recipe.name}`;
  const impossible = estimate.verdict === 'impossible';
  const overrides = fittingOverrides(recipe, ctx, estimate, impossible ? 'tight' : 'fits');
  const { tight, fits } = ctx.slices === 1 ? largerSlices(recipe, ctx) : {};
  const parts: string[] = [];
  const viaOverrides = overrides.filter((o) => !o.training).map((o) => o.text);
  const viaTraining = overrides.filter((o) => o.training).map((o) => o.text);
  if (viaTraining.length > 0) parts.push(`set ${source}.training ${viaTraining.join(', or ')}`);
  if (viaOverrides.length > 0) parts.push(`set ${source}.overrides ${viaOverrides.join(', or ')}`);
  const where = (...slices: TpuSlice[]) => `${sliceKeys(source, slices, ctx.retargeted === true)}, with that slice in infra`;
  if (impossible && tight && fits) parts.push(`train on ${sliceName(tight)}, which fits tightly, or ${sliceName(fits)} or larger (${where(tight, fits)})`);
  else if (impossible && tight) parts.push(`train on ${sliceName(tight)} or larger, which fits tightly (${where(tight)})`);
  else if (fits) parts.push(`train on ${sliceName(fits)} or larger (${where(fits)})`);
  if (impossible && !tight && !fits) parts.push(...pathwaysAdvice(recipe, ctx));
  if (parts.length === 0) return impossible ? `no override of ${recipe.name} and no larger ${ctx.slice.generation} slice makes it fit` : '';
  return parts.join('; or ');
}

/**
 * The config key that retargets to these slices: `slice` (a Cloud TPU accelerator type, jobs/spec.ts) when that type selects
 * this machine type and the pipeline was not retargeted with machineType/topology (which would win over `slice`), else
 * machineType/topology (e.g. v6e-8 selects ct6e-standard-8t 2x4, not ct6e-standard-4t 2x4).
 */
function sliceKeys(source: string, slices: readonly TpuSlice[], retargeted: boolean): string {
  const selects = (slice: TpuSlice) => {
    const selected = slicesForAcceleratorType(slice.acceleratorType)[0];
    return selected !== undefined && selected.machineType === slice.machineType && selected.topology === slice.topology;
  };
  return !retargeted && slices.every(selects)
    ? `${source}.slice: ${slices.map((s) => s.acceleratorType).join(' or ')}`
    : `${source}.machineType/topology: ${slices.map((s) => `${s.machineType} ${s.topology}`).join(' or ')}`;
}

/** The Pathways presets that run RL on a multi-host slice (a single-host McJAX RL pipeline cannot grow past one VM). */
const PATHWAYS_RL_PRESETS = ['rl-qwen3', 'rl-gemma4'] as const;

/**
 * RL on McJAX where no larger slice of its own shape fits (RL without extends runs on one TPU VM, jobs/spec.ts): where
 * a Pathways preset with this model fits its own slice, say so (`extends`), e.g. qwen3-8b on rl-qwen3's v6e-32.
 */
function pathwaysAdvice(recipe: Recipe, ctx: ValidationContext): string[] {
  if (!rowOf(recipe).rollout || recipe.runtime !== 'mcjax') return [];
  const source = ctx.configSource ?? `pipelines.${recipe.name}`;
  const out: string[] = [];
  for (const name of PATHWAYS_RL_PRESETS) {
    const preset = RECIPES[name];
    if (!preset || preset.model.name === undefined) continue;
    const withModel = { ...preset, model: recipe.model } as Recipe;
    const slice = tpuSlice(preset.slice.machineType, preset.slice.topology);
    const verdict = estimateOn(withModel, slice, 1)?.verdict;
    if (verdict === 'fits' || verdict === 'tight') {
      out.push(`run it on Pathways: set ${source}.extends to ${name} (${sliceName(slice)}, where ${recipe.model.name} fits${verdict === 'tight' ? ' tightly' : ''}, with that slice in infra)`);
    }
  }
  return out.slice(0, 1);
}

/**
 * HBM fit of the training step (jobs/hbm.ts): impossible is an error naming the model, the slice, the side that
 * does not fit, and what would (overrides with their values, larger slices). A model without a row in
 * jobs/models.ts is not estimated (hbmWarnings says so).
 */
export const hbmFit: Rule = (recipe, ctx) => {
  const estimate = estimateOn(recipe, ctx.slice, ctx.slices);
  if (!estimate || estimate.verdict !== 'impossible') return [];
  return [
    `${who(recipe, ctx, ...Object.keys(recipe.train.args))}: ${recipe.model.name} does not fit ${ctx.slices > 1 ? `${ctx.slices}x ` : ''}${ctx.slice.machineType} ${ctx.slice.topology} ` +
      `(${sliceShapeName(ctx.slice)}, ${ctx.slice.usableHbmGibPerChip} GiB usable HBM per chip): ${estimate.reasons.join('; ')}; ` +
      `to fit: ${advice(recipe, ctx, estimate)} (estimate: jobs/hbm.ts)`,
  ];
};

/** Warnings of the training step's HBM estimate: a tight fit, or a model the estimate has no size for. */
export function hbmWarnings(recipe: Recipe, ctx: ValidationContext): string[] {
  if (!modelSize(recipe.model.name)) {
    return [`${recipe.name}: no HBM estimate for model '${recipe.model.name}' (add its size to jobs/models.ts)`];
  }
  const estimate = estimateOn(recipe, ctx.slice, ctx.slices);
  if (!estimate || estimate.verdict !== 'tight') return [];
  const room = advice(recipe, ctx, estimate);
  return [
    `${who(recipe, ctx, ...Object.keys(recipe.train.args))}: ${recipe.model.name} fits ${ctx.slice.machineType} ${ctx.slice.topology} (${sliceShapeName(ctx.slice)}) tightly: ` +
      `${estimate.reasons.join('; ')}; an out-of-memory error at start-up is possible${room ? ` — for room, ${room}` : ''} (estimate: jobs/hbm.ts)`,
  ];
}

/** Ranges MaxText's pydantic schema enforces (maxtext-v0.2.4 `src/maxtext/configs/types.py`), checked where given. */
const RANGES: ReadonlyArray<{ key: string; ok: (v: number) => boolean; want: string }> = [
  { key: 'hbm_utilization_vllm', ok: (v) => v > 0 && v <= 1, want: 'in (0, 1]' },
  { key: 'num_batches', ok: (v) => Number.isInteger(v) && v >= 1, want: 'a whole number >= 1' },
  { key: 'learning_rate', ok: (v) => v >= 0, want: '>= 0 (NonNegativeFloat)' },
  { key: 'batch_size', ok: (v) => Number.isInteger(v) && v >= 1, want: 'a whole number >= 1' },
  { key: 'train_micro_batch_size', ok: (v) => Number.isInteger(v) && (v === -1 || v >= 1), want: 'a whole number >= 1, or -1 (= batch_size)' },
  { key: 'rollout_micro_batch_size', ok: (v) => Number.isInteger(v) && (v === -1 || v >= 1), want: 'a whole number >= 1, or -1' },
  { key: 'eval_batch_size', ok: (v) => Number.isInteger(v) && (v === -1 || v >= 1), want: 'a whole number >= 1, or -1 (= batch_size)' },
  { key: 'kv_cache_buffer', ok: (v) => Number.isInteger(v) && v > 0, want: 'a whole number > 0' },
  { key: 'rl.num_iterations', ok: (v) => Number.isInteger(v) && v >= 1, want: 'a whole number >= 1' },
  { key: 'per_device_batch_size', ok: (v) => v > 0, want: '> 0' },
  { key: 'steps', ok: (v) => Number.isInteger(v) && (v === -1 || v >= 1), want: 'a whole number >= 1' },
];

export const maxtextRanges: Rule = (recipe, ctx) => {
  const args = recipe.train.args;
  const out: string[] = [];
  for (const { key, ok, want } of RANGES) {
    const v = args[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) {
      out.push(`${who(recipe, ctx, key)}: ${key} must be ${want} (MaxText's config schema rejects it at start-up), got ${py(v)}`);
    }
  }
  return out;
};

/** Every image a pipeline pulls must be a pinned reference (registry/path:tag or @sha256 digest). */
export const imageReferences: Rule = (recipe, ctx) => {
  const images: Array<[string, string | undefined]> = [
    ['image', recipe.image],
    ['pathways.proxyImage', recipe.pathways?.proxyImage],
    ['pathways.serverImage', recipe.pathways?.serverImage],
  ];
  return images.flatMap(([field, ref]) => {
    const problem = ref === undefined ? undefined : imageReferenceProblem(ref);
    return problem ? [`${recipe.name}${ctx.imageSource && field === 'image' ? ` (${ctx.imageSource})` : ''}: ${field}: ${problem}`] : [];
  });
};

/**
 * Memory quantities in a recipe use binary units (Ki, Mi, Gi, Ti). The tutorials size memory the way the kernel reads
 * it (`190G` in memory.max is 190 x 2^30 bytes, lib/cmdline.c memparse), while Kubernetes reads `G` as 10^9: a decimal
 * unit here silently gives a step raised for running out of memory 7% less than the tutorial.
 */
export const binaryMemoryUnits: Rule = (recipe) => {
  const quantities: Array<[string, string | undefined]> = [
    ['train.memoryLimit', rolloutSettings(recipe.train).memoryLimit],
    ...(['toMaxText', 'toHf'] as const).flatMap((step) =>
      (['requests', 'limits'] as const).map((kind) => [`${step}.resources.${kind}.memory`, recipe[step].resources?.[kind]?.memory] as [string, string | undefined]),
    ),
  ];
  return quantities
    .filter(([, q]) => q !== undefined && !/^\d+(\.\d+)?(Ki|Mi|Gi|Ti)$/.test(q))
    .map(([field, q]) => {
      const decimal = /^(\d+(?:\.\d+)?)([kMGT])$/.exec(q!);
      const hint = decimal ? ` (Kubernetes reads ${decimal[2]} as a power of 10: '${q}' is ${gib(parseBytes(q!))}; the kernel's ${q} is ${decimal[1]}${decimal[2] === 'k' ? 'Ki' : `${decimal[2]}i`})` : '';
      return `${recipe.name}: ${field} must use a binary unit (Ki, Mi, Gi, Ti), got '${q}'${hint}`;
    });
};

/**
 * `hf_model_path` (to_maxtext) and `tokenizer_path` (training) set by overrides must be repositories of the model key
 * (jobs/models.ts hfRepoProblem): otherwise to_maxtext converts another family's weights under this key's mapping, and
 * the run fails on the cluster after the download. The pipeline's own repository was checked where it was set.
 */
export const hfRepositories: Rule = (recipe, ctx) => {
  const given: Array<[string, JsonValue | undefined]> = [
    ['hf_model_path', recipe.toMaxText.flags.hf_model_path],
    ['tokenizer_path', recipe.train.args['tokenizer_path']],
  ];
  return given.flatMap(([key, value]) => {
    if (typeof value !== 'string' || value === recipe.model.hfRepo || value.startsWith('gs://') || value.startsWith('/')) return [];
    const problem = hfRepoProblem(recipe.model.name, value, undefined, key === 'tokenizer_path');
    return problem ? [`${who(recipe, ctx, key)}: ${key} '${value}' ${problem}`] : [];
  });
};

/**
 * A `weight_dtype` override reaches a step only where the recipe passes the key (jobs/pipeline.ts overrideArgs), and no
 * recipe's training step passes it: training keeps MaxText's default (rl.yml `weight_dtype: 'bfloat16'`; base.yml
 * `weight_dtype: "float32"` for train_sft) and only the export (to-hf) changes. Refused when its value is not the dtype
 * training uses (it would read as a change to training, and to its HBM, that does not happen); the training dtype
 * itself is accepted (the export then writes what training holds, beside the earlier export).
 */
export const weightDtypeOverride: Rule = (recipe, ctx) => {
  if (!ctx.overridden?.has('weight_dtype') || recipe.train.args['weight_dtype'] !== undefined) return [];
  const row = rowOf(recipe);
  const trains: string = row.defaults.weight_dtype;
  const value = recipe.toHf.args.weight_dtype;
  if (value === trains) return [];
  return [
    `${who(recipe, ctx, 'weight_dtype')}: weight_dtype=${py(value)} reaches only the export (to-hf), not training: ` +
      `${row.module.split('.').pop()} gets no weight_dtype and trains at MaxText's ${trains}, so neither training nor its HBM changes; ` +
      `remove the override, or set it to ${trains} to export what training holds`,
  ];
};

/** Every rule, in the order messages are reported. */
export const RULES: readonly Rule[] = [
  iciParallelism,
  dcnParallelism,
  rolloutParallelism,
  deviceFractions,
  chipsPerVm,
  batchDivisibility,
  numGenerations,
  promptLength,
  scanLayers,
  checkpointStorage,
  vllmModelName,
  cpuPodFit,
  tpuVmEnvSingleHost,
  pathwaysSettings,
  binaryMemoryUnits,
  maxtextRanges,
  imageReferences,
  hfRepositories,
  weightDtypeOverride,
  hbmFit,
];

/** Runs every rule; throws one error listing all violations. Returns the warnings (tight HBM fits) otherwise. */
export function validateRecipe(recipe: Recipe, ctx: ValidationContext): string[] {
  const messages = RULES.flatMap((rule) => rule(recipe, ctx));
  if (messages.length > 0) throw new Error(messages.join('\n'));
  return hbmWarnings(recipe, ctx);
}

/** The `infra` slice group a pipeline targets; throws naming what infra has. */
export function targetGroup(recipe: Recipe, platform: Platform, source: string): TpuPoolGroup {
  const { machineType, topology } = recipe.slice;
  const group = findTpuGroup(platform, machineType, topology);
  if (group) return group;
  const have = platform.tpuGroups.map((g) => `${g.count}x ${g.slice.machineType} ${g.slice.topology}`).join(', ') || 'no TPU pools';
  throw new Error(
    `${source}: targets a ${machineType} ${topology} slice, but the infra config has ${have}; ` +
      `add that slice to infra, retarget the pipeline (machineType/topology), or leave it out (PIPELINES env or pipelines.<name>.enabled=false)`,
  );
}
