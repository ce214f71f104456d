/**
 * HBM estimate of a training step against its slice: does the model's training state fit the chips at all
 * (impossible -> a synth error), and with room to spare (tight -> a warning)? Pure arithmetic; no cdktf.
 *
 * What is counted, per parameter (bytes by dtype: float32 4, bfloat16/float16 2, int8/fp8 1):
 *
 * - SFT (`train_sft`, every chip of every slice, fully sharded): weights at `weight_dtype` (MaxText `types.py`
 *   default float32), gradients at the weights' dtype, AdamW state `mu` at `mu_dtype` (default: `weight_dtype`) and
 *   `nu` at the weights' dtype. (MaxText maxtext-v0.2.4 `src/maxtext/configs/types.py`: `weight_dtype`, `grad_dtype`,
 *   `mu_dtype`, `opt_type` adamw.)
 * - RL (`train_rl`, GRPO through Tunix), trainer: actor weights at `weight_dtype` (rl.yml: bfloat16), a reference
 *   copy when `rl.grpo_beta` != 0 (default 0.08), gradients at the weights' dtype, and the optimizer: MaxText's RL
 *   `utils_rl.get_optimizer` builds `optax.adamw` without a `mu_dtype`, so `mu` and `nu` take the weights' dtype;
 *   with the recipes' adafactor patch (`patches.adafactor`) the second moment is factored (rows + columns per
 *   matrix) and there is no momentum, counted as 1% of a float32 per parameter.
 * - RL, sampler (vLLM): one copy of the weights per rollout replica (bfloat16, or `vllm_additional_config.
 *   maxtext_config.weight_dtype`) sharded over the replica's `rollout_tensor_parallelism x
 *   rollout_expert_parallelism` chips, and the KV cache: 2 x layers x KV heads x head dim values per token, at least
 *   one sequence of `max_target_length + kv_cache_buffer` tokens (vLLM refuses to start without room for one), ideally
 *   `batch_size x rl.num_generations` of them. vLLM may use `hbm_utilization_vllm` of each sampler chip.
 * - vLLM on TPU sizes its KV cache as `hbm_utilization_vllm` x total HBM minus the HBM already in use on its chips,
 *   and refuses to start when that is <= 0 (vllm-project/tpu-inference v0.27.0 `tpu_inference/worker/tpu_worker.py`
 *   `determine_available_memory`). Where trainer and sampler share the chips (MaxText splits them only on Pathways
 *   with >= 2 VMs), what is in use then includes the trainer's weights; gradients and optimizer state must fit the
 *   `1 - hbm_utilization_vllm` left. When MaxText creates the optimizer state relative to vLLM's start was not
 *   verified, so a colocated step over vLLM's share is a warning; only state larger than the chips is an error.
 *
 * Not counted: activations (remat-dependent), XLA scratch, the logits buffer. That is what the headroom is for:
 * above TIGHT_FRACTION of a chip (or of vLLM's share) is a warning.
 */
import { RL_DEFAULTS, SFT_DEFAULTS } from './maxtext-defaults';
import type { ModelSize } from './models';
import type { JsonValue, MaxTextArgs } from './recipes/types';
import type { TpuSlice } from './tpu';

/** Above this fraction of a chip's HBM (or of vLLM's share of it) the fit is tight: a warning. */
export const TIGHT_FRACTION = 0.85;

const DTYPE_BYTES: Readonly<Record<string, number>> = {
  float32: 4,
  fp32: 4,
  bfloat16: 2,
  bf16: 2,
  float16: 2,
  fp16: 2,
  int8: 1,
  fp8: 1,
};

/** Bytes of one value of a MaxText dtype name; undefined for a name this table does not know. */
export function dtypeBytes(dtype: string): number | undefined {
  return DTYPE_BYTES[dtype.toLowerCase()];
}

const GIB = 2 ** 30;

/** One line of the estimate: what, where it lives, GiB per chip. */
export interface HbmPart {
  readonly what: string;
  readonly on: 'trainer' | 'sampler' | 'chips';
  readonly gibPerChip: number;
}

/** Device counts the step runs on (jobs/validate.ts `rlDevices` for RL). */
export interface StepDevices {
  /** Chips the trainer's state is sharded over. */
  readonly trainer: number;
  /** Chips vLLM runs on (RL only). */
  readonly sampler: number;
  /** Trainer and sampler on separate chips (Pathways, >= 2 VMs). */
  readonly split: boolean;
}

export interface HbmInput {
  readonly model: string;
  readonly size: ModelSize;
  readonly kind: 'rl' | 'sft';
  readonly args: MaxTextArgs;
  /** The recipe's adafactor source patch (RL). @default false */
  readonly adafactor?: boolean;
  readonly slice: TpuSlice;
  readonly devices: StepDevices;
}

export interface HbmEstimate {
  readonly verdict: 'fits' | 'tight' | 'impossible';
  readonly parts: readonly HbmPart[];
  /** Why the verdict is not `fits`; one sentence each. @default - none */
  readonly reasons: readonly string[];
}

function num(args: MaxTextArgs, key: string, fallback: number): number {
  const v = args[key];
  return typeof v === 'number' ? v : fallback;
}

function str(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function gib(bytes: number): number {
  return bytes / GIB;
}

const fmt = (g: number) => `${g.toFixed(1)} GiB`;

/** The rollout replica size (tensor x expert chips), filling the one -1 axis as MaxText does. */
function replicaChips(args: MaxTextArgs, sampler: number): number {
  const axes = {
    tp: num(args, 'rollout_tensor_parallelism', RL_DEFAULTS.rollout_tensor_parallelism),
    dp: num(args, 'rollout_data_parallelism', RL_DEFAULTS.rollout_data_parallelism),
    ep: num(args, 'rollout_expert_parallelism', RL_DEFAULTS.rollout_expert_parallelism),
  };
  const fixed = Object.values(axes).filter((x) => x !== -1).reduce((p, x) => p * x, 1);
  const fill = Math.max(1, Math.floor(sampler / Math.max(1, fixed)));
  const tp = axes.tp === -1 ? fill : axes.tp;
  const ep = axes.ep === -1 ? fill : axes.ep;
  return Math.max(1, tp * ep);
}

/** The estimate for one training step on one slice shape. */
export function estimateHbm(input: HbmInput): HbmEstimate {
  const { args, size, slice, devices } = input;
  const hbm = slice.hbmGibPerChip;
  const parts: HbmPart[] = [];
  const reasons: string[] = [];
  let impossible = false;
  let tight = false;

  if (input.kind === 'sft') {
    const w = dtypeBytes(str(args['weight_dtype']) ?? SFT_DEFAULTS.weight_dtype) ?? 4;
    const mu = dtypeBytes(str(args['mu_dtype']) ?? str(args['weight_dtype']) ?? SFT_DEFAULTS.weight_dtype) ?? w;
    const per = (bytesPerParam: number) => gib(size.params * bytesPerParam) / devices.trainer;
    parts.push({ what: `weights (${str(args['weight_dtype']) ?? SFT_DEFAULTS.weight_dtype})`, on: 'chips', gibPerChip: per(w) });
    parts.push({ what: 'gradients', on: 'chips', gibPerChip: per(w) });
    parts.push({ what: 'AdamW mu + nu', on: 'chips', gibPerChip: per(mu + w) });
    const total = parts.reduce((s, p) => s + p.gibPerChip, 0);
    if (total > hbm) {
      impossible = true;
      reasons.push(`weights, gradients and AdamW state need ${fmt(total)} per chip over ${devices.trainer} chips, a ${slice.generation} chip has ${hbm} GiB`);
    } else if (total > TIGHT_FRACTION * hbm) {
      tight = true;
      reasons.push(`weights, gradients and AdamW state take ${fmt(total)} of ${hbm} GiB per chip, leaving little for activations`);
    }
    return { verdict: impossible ? 'impossible' : tight ? 'tight' : 'fits', parts, reasons };
  }

  // RL: trainer state.
  const wName = str(args['weight_dtype']) ?? RL_DEFAULTS.weight_dtype;
  const w = dtypeBytes(wName) ?? 2;
  const reference = num(args, 'rl.grpo_beta', RL_DEFAULTS['rl.grpo_beta']) !== 0;
  const optimizerBytes = input.adafactor ? 0.01 * 4 : 2 * w;
  const trainerPer = (bytesPerParam: number) => gib(size.params * bytesPerParam) / devices.trainer;
  const weights = trainerPer(w);
  const referenceWeights = reference ? trainerPer(w) : 0;
  const gradsAndOpt = trainerPer(w + optimizerBytes);
  parts.push({ what: `actor weights (${wName})`, on: 'trainer', gibPerChip: weights });
  if (reference) parts.push({ what: 'reference weights (rl.grpo_beta != 0)', on: 'trainer', gibPerChip: referenceWeights });
  parts.push({ what: `gradients + ${input.adafactor ? 'adafactor (factored)' : 'AdamW mu + nu'}`, on: 'trainer', gibPerChip: gradsAndOpt });

  // RL: sampler (vLLM).
  const mc = args['vllm_additional_config'];
  const maxtextConfig = mc && typeof mc === 'object' && !Array.isArray(mc) ? (mc as Record<string, JsonValue>)['maxtext_config'] : undefined;
  const vName =
    (maxtextConfig && typeof maxtextConfig === 'object' && !Array.isArray(maxtextConfig)
      ? str((maxtextConfig as Record<string, JsonValue>)['weight_dtype'])
      : undefined) ?? 'bfloat16';
  const v = dtypeBytes(vName) ?? 2;
  const replica = replicaChips(args, devices.sampler);
  const samplerWeights = gib(size.params * v) / replica;
  const seqTokens = num(args, 'max_target_length', RL_DEFAULTS.max_target_length) + num(args, 'kv_cache_buffer', RL_DEFAULTS.kv_cache_buffer);
  const kvPerSeq = gib(2 * size.layers * size.kvHeads * size.headDim * v * seqTokens) / replica;
  const util = num(args, 'hbm_utilization_vllm', RL_DEFAULTS.hbm_utilization_vllm);
  const vllmShare = util * hbm;
  parts.push({ what: `vLLM weights (${vName}, one copy per ${replica}-chip replica)`, on: 'sampler', gibPerChip: samplerWeights });
  parts.push({ what: `KV cache, one ${seqTokens}-token sequence`, on: 'sampler', gibPerChip: kvPerSeq });
  const sequences = num(args, 'batch_size', RL_DEFAULTS.batch_size) * num(args, 'rl.num_generations', RL_DEFAULTS['rl.num_generations']);

  if (devices.split) {
    const trainer = weights + referenceWeights + gradsAndOpt;
    if (trainer > hbm) {
      impossible = true;
      reasons.push(`the trainer's weights, reference copy, gradients and optimizer state need ${fmt(trainer)} per chip over ${devices.trainer} trainer chips, a ${slice.generation} chip has ${hbm} GiB`);
    } else if (trainer > TIGHT_FRACTION * hbm) {
      tight = true;
      reasons.push(`the trainer's state takes ${fmt(trainer)} of ${hbm} GiB per trainer chip, leaving little for activations`);
    }
    const sampler = samplerWeights + kvPerSeq;
    if (sampler > vllmShare) {
      impossible = true;
      reasons.push(
        `vLLM's weights and one sequence's KV cache need ${fmt(sampler)} per sampler chip, hbm_utilization_vllm=${util} allows ${fmt(vllmShare)} of ${hbm} GiB`,
      );
    } else {
      const kvSeqs = Math.floor((vllmShare - samplerWeights) / kvPerSeq);
      if (samplerWeights > TIGHT_FRACTION * vllmShare || kvSeqs < Math.ceil(sequences / Math.max(1, devices.sampler / replica))) {
        tight = true;
        reasons.push(
          `vLLM's weights take ${fmt(samplerWeights)} of the ${fmt(vllmShare)} hbm_utilization_vllm=${util} allows per sampler chip, ` +
            `room for ${kvSeqs} sequences of ${seqTokens} tokens per replica`,
        );
      }
    }
  } else {
    const total = weights + referenceWeights + gradsAndOpt + samplerWeights + kvPerSeq;
    if (total > hbm) {
      impossible = true;
      reasons.push(`trainer and vLLM share the ${devices.trainer} chips and need ${fmt(total)} per chip, a ${slice.generation} chip has ${hbm} GiB`);
    } else if (weights + referenceWeights + samplerWeights + kvPerSeq > vllmShare || gradsAndOpt > (1 - util) * hbm || total > TIGHT_FRACTION * hbm) {
      tight = true;
      reasons.push(
        `trainer and vLLM share the chips: ${fmt(total)} of ${hbm} GiB per chip, gradients and optimizer state ${fmt(gradsAndOpt)} ` +
          `against the ${fmt((1 - util) * hbm)} hbm_utilization_vllm=${util} leaves`,
      );
    }
  }
  return { verdict: impossible ? 'impossible' : tight ? 'tight' : 'fits', parts, reasons };
}

/** Total GiB per chip of an estimate's parts on one side (for messages and the review). */
export function partsTotal(estimate: HbmEstimate, on: HbmPart['on']): number {
  return estimate.parts.filter((p) => p.on === on).reduce((s, p) => s + p.gibPerChip, 0);
}
