/**
 * HBM estimate of a training step against its slice: does the step fit the chips at all (impossible -> a synth
 * error), and with room to spare (tight -> a warning)? Pure arithmetic; no cdktf. Sources are MaxText
 * maxtext-v0.2.4 (AI-Hypercomputer/maxtext) and the Tunix commit it pins (google/tunix c4ec573d).
 *
 * What is counted, per chip (bytes by dtype: float32 4, bfloat16/float16 2, int8/fp8 1):
 *
 * - SFT (`train_sft`, every chip of every slice, fully sharded): weights at `weight_dtype` (types.py default float32),
 *   gradients at the weights' dtype, AdamW `mu` at `mu_dtype` (default: `weight_dtype`) and `nu` at the weights'
 *   dtype (types.py `weight_dtype`, `grad_dtype`, `mu_dtype`, `opt_type` adamw). With `lora.enable_lora` only the
 *   adapters are differentiated (`train_sft.py` `setup_trainer_state` applies LoRA; `utils/lora_utils.py` builds the
 *   optimizer `wrt=nnx.LoRAParam`): the frozen base is weights only, the adapters are not counted.
 * - RL (`train_rl`, GRPO through Tunix), trainer: actor weights at `weight_dtype` (rl.yml: bfloat16) and a reference
 *   copy, always: `model_creation_utils.create_models_and_meshes` loads the reference model whatever `rl.grpo_beta`
 *   is (beta 0 only skips its forward pass, Tunix `grpo_learner.py`); gradients at the weights' dtype; the
 *   optimizer: `utils_rl.get_optimizer` builds `optax.adamw` without a `mu_dtype`, so `mu` and `nu` take the weights'
 *   dtype; with the recipes' adafactor source patch (`optax.adafactor(learning_rate=...)`: `factored=True`,
 *   `min_dim_size_to_factor=128`, `momentum=None`, optax 0.2.6) the second moment is factored (rows + columns per
 *   matrix, float32) and there is no momentum: counted as 1% of a float32 per parameter, an upper bound for the
 *   models here (a 2048 x 768 matrix keeps 0.2%; vectors below 128 stay whole).
 * - Usable HBM: XLA's limit per chip from the TPU table (`usableHbmGibPerChip`, 31.25 GiB on v6e), not the data sheet.
 * - Sharding (trainerMesh, meshShards): the ICI axes of base.yml `mesh_axes` over the chips of one slice, the DCN axes
 *   over the slices (`maxtext_utils.create_device_mesh`); weights, gradients and optimizer state divide by every axis
 *   but the replicas (data, diloco, context_autoregressive), so with `dcn_data_parallelism: -1` each slice holds a copy.
 * - Activations of one forward/backward pass, on the trainer's chips: the logits, the saved layer inputs, one layer's
 *   attention scores where the kernel materialises them (`dot_product`, rl.yml's; `layers/attention_op.py`
 *   `apply_attention_dot`: the scores and their exponentials), and FSDP's transients (one layer's weights gathered and
 *   its gradient before the reduce-scatter).
 *   Logits: `decoders.py` `_apply_output_head` computes tokens x `vocab_size` at `dtype` (bfloat16 unless
 *   `logits_dot_in_fp32`) and casts them to float32 (`cast_logits_to_fp32`, default true); the loss backward holds the
 *   float32 logits, their float32 gradient and the matmul's bfloat16 gradient: 10 bytes per token and
 *   vocabulary entry (logitsBytes), sharded as (`activation_embed_and_logits_batch`, `activation_length`, `activation_vocab`) =
 *   batch over data x stage x fsdp x fsdp_transpose x expert, length over context, vocabulary over tensor x
 *   tensor_sequence (base.yml and rl.yml `logical_axis_rules`). A batch smaller than its shards is not split
 *   further: each shard holds at least one sequence. Saved activations: `remat_policy` `full` (base.yml default)
 *   keeps each decoder layer's input, tokens x `base_emb_dim` at `dtype`, per layer (`decoders.py`
 *   `get_remat_policy`; embed over tensor); rl.yml's `custom` policy offloads `decoder_layer_input` to the host (0 on
 *   the chip); any other policy keeps at least what `full` keeps and is counted as `full`. Tokens per step: SFT
 *   `per_device_batch_size` x chips sequences of `max_target_length` (types.py `calculate_global_batch_sizes`: the
 *   micro-batch of one pass; `gradient_accumulation_steps` repeats passes, it does not grow them); RL
 *   `train_micro_batch_size` (or `batch_size`) prompts x `rl.num_generations` sequences of `max_target_length`
 *   (Tunix `rl/rl_learner.py`: "examples per micro-batch is train_micro_batch_size * sample_repeat"; train_rl.py
 *   sets `max_prompt_length + max_tokens_to_generate` = `max_target_length`).
 * - RL, sampler (vLLM): one copy of the weights per rollout replica (bfloat16, or `vllm_additional_config.
 *   maxtext_config.weight_dtype`) sharded over the replica's `rollout_tensor_parallelism x
 *   rollout_expert_parallelism` chips, except the vocabulary matrices (embedding, and the output projection when it
 *   is not tied), which every chip holds whole: MaxText's vLLM rules map `vocab` and `embed_vocab` to no mesh axis
 *   (`configs/inference/vllm.yml` `logical_axis_rules`). The KV cache: 2 x layers x KV heads x head dim values per
 *   token, at least one sequence of `max_target_length + kv_cache_buffer` tokens (vLLM refuses to start without room
 *   for one), ideally `batch_size x rl.num_generations` of them.
 * - vLLM on TPU sizes its KV cache as `hbm_utilization_vllm` x total HBM minus the HBM already in use on its chips,
 *   and refuses to start when that is <= 0 (vllm-project/tpu-inference v0.27.0 `tpu_inference/worker/tpu_worker.py`
 *   `determine_available_memory`): it takes its whole share. Where trainer and sampler share the chips (MaxText
 *   splits them only on Pathways with >= 2 VMs), what is in use when vLLM starts is the trainer's two weight copies
 *   (loaded first, `create_models_and_meshes`); Tunix's `RLCluster` builds the rollout engine before the actor's
 *   `rl_trainer.Trainer` (`tunix/rl/rl_cluster.py`), so optimizer state, gradients and activations come after vLLM
 *   took its share and must fit the `1 - hbm_utilization_vllm` it leaves, or the trainer runs out of memory.
 *
 * Not counted: XLA scratch, one layer's recomputed activations, the reference model's transient logits (computed
 * before the training pass, not during it). That is what the headroom is for: above TIGHT_FRACTION of what a side
 * may use is a warning. vLLM weights close to its share only shrink its KV cache, so the sampler is tight when the
 * KV cache has room for fewer sequences than a rollout batch, not by a fraction.
 */
import { DCN_AXIS_KEYS, ICI_AXIS_KEYS, MESH_AXES, MeshAxis, meshDefault, MODEL_DEFAULTS, REPLICA_AXES, RL_DEFAULTS } from './maxtext-defaults';
import type { TrainerDefaults, TrainKind } from './methods/kind';
import type { ModelSize } from './models';
import { numberArg as num, type JsonValue, type MaxTextArgs } from './recipes/types';

export { num };
import type { TpuSlice } from './tpu';

/**
 * Above this fraction of what a side may use (a chip's HBM, or what vLLM leaves) the fit is tight: a warning. A project
 * choice, not an upstream number: the 15% left is for what the estimate does not count (XLA scratch, one layer's
 * recomputed activations under remat).
 */
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
  /**
   * Slices the trainer's chips span (MaxText `num_slices`): the ICI axes cover trainer / slices chips each
   * (`maxtext_utils.create_device_mesh`: `num_devices // num_slices`), the DCN axes the slices. @default 1
   */
  readonly slices?: number;
}

export interface HbmInput {
  readonly model: string;
  readonly size: ModelSize;
  readonly kind: TrainKind;
  readonly args: MaxTextArgs;
  /** The recipe's adafactor source patch (RL). @default false */
  readonly adafactor?: boolean;
  readonly slice: TpuSlice;
  readonly devices: StepDevices;
}

/** The side of a step that is over (or near) what it may use: the trainer (SFT: the step), or vLLM. */
export type HbmSide = 'trainer' | 'sampler';

export interface HbmEstimate {
  readonly verdict: 'fits' | 'tight' | 'impossible';
  readonly parts: readonly HbmPart[];
  /** Why the verdict is not `fits`; one sentence each. @default - none */
  readonly reasons: readonly string[];
  /** The sides the reasons are about (for advice). @default - none */
  readonly sides: readonly HbmSide[];
}

export function str(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function bool(value: JsonValue | undefined, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : value === 1 ? true : value === 0 ? false : fallback;
}

export function gib(bytes: number): number {
  return bytes / GIB;
}

export const fmt = (g: number) => `${g.toFixed(1)} GiB`;

/** `lora.enable_lora` given flat or as a `lora` object. */
export function loraEnabled(args: MaxTextArgs): boolean {
  const lora = args['lora'];
  const nested = lora && typeof lora === 'object' && !Array.isArray(lora) ? (lora as Record<string, JsonValue>)['enable_lora'] : undefined;
  return bool(args['lora.enable_lora'] ?? nested, false);
}

/** The trainer mesh: each axis's size, ICI x DCN, with the one -1 of each family filling its devices or slices. */
export type Mesh = Readonly<Record<MeshAxis, number>>;

/**
 * The trainer mesh as `maxtext_utils.create_device_mesh` builds it (maxtext-v0.2.4): the ICI axes
 * (`ici_<axis>_parallelism`, jobs/maxtext-defaults.ts MESH_AXES) over the chips of one slice (`devices // num_slices`),
 * the DCN axes over the slices (only when there are 2 or more: `dcn_data_parallelism` -1 makes slices data-parallel
 * replicas by default, base.yml l.660); `max_utils.fill_unspecified_mesh_axes` gives the one -1 of each family the rest.
 */
export function trainerMesh(args: MaxTextArgs, devices: number, slices = 1): Mesh {
  const fill = (keys: readonly string[], target: number) => {
    const v = keys.map((k) => num(args, k, meshDefault(k)));
    const fixed = v.filter((x) => x !== -1).reduce((p, x) => p * x, 1);
    return v.map((x) => (x === -1 ? Math.max(1, Math.floor(target / Math.max(1, fixed))) : x));
  };
  const n = Math.max(1, slices);
  const ici = fill(ICI_AXIS_KEYS, Math.max(1, Math.floor(devices / n)));
  const dcn = n > 1 ? fill(DCN_AXIS_KEYS, n) : ICI_AXIS_KEYS.map(() => 1);
  const out = {} as Record<MeshAxis, number>;
  MESH_AXES.forEach((a, i) => (out[a.axis] = ici[i] * dcn[i]));
  return out;
}

const product = (mesh: Mesh, axes: readonly MeshAxis[]) => axes.reduce((p, a) => p * mesh[a], 1);

/**
 * How the mesh shards what the estimate counts (base.yml `logical_axis_rules`, maxtext-v0.2.4): the parameters and
 * their gradients and optimizer state over every axis but the replicas (REPLICA_AXES: data, diloco,
 * context_autoregressive), so with MaxText's default `dcn_data_parallelism: -1` every slice holds a whole copy;
 * logits and layer inputs by `activation_embed_and_logits_batch` (data, stage, fsdp, fsdp_transpose, expert),
 * `activation_length` (context, context_usp_ulysses), `activation_vocab` (tensor, tensor_sequence) and
 * `activation_embed` (tensor); attention scores by `activation_batch_attn` (data, fsdp, fsdp_transpose, expert),
 * `activation_heads` (tensor, tensor_sequence, autoregressive) and `activation_q_length` (context,
 * context_usp_ulysses), the key length unsharded (`activation_kv_length: []`); a layer's weights stay split over the
 * axes FSDP does not gather (tensor, tensor_sequence, autoregressive, expert, stage: `mlp`, `heads`, `exp`, `layers`).
 */
export function meshShards(mesh: Mesh) {
  const all = MESH_AXES.map((a) => a.axis);
  return {
    state: product(mesh, all.filter((a) => !REPLICA_AXES.has(a))),
    batch: product(mesh, ['data', 'stage', 'fsdp', 'fsdp_transpose', 'expert']),
    length: product(mesh, ['context', 'context_usp_ulysses']),
    vocab: product(mesh, ['tensor', 'tensor_sequence']),
    embed: product(mesh, ['tensor']),
    attnBatch: product(mesh, ['data', 'fsdp', 'fsdp_transpose', 'expert']),
    heads: product(mesh, ['tensor', 'tensor_sequence', 'autoregressive']),
    gathered: product(mesh, ['fsdp', 'fsdp_transpose', 'context', 'context_usp_ulysses']),
    layerSplit: product(mesh, ['tensor', 'tensor_sequence', 'autoregressive', 'expert', 'stage']),
  };
}

/** Bytes per logits entry the loss holds at its peak (see the header): the logits, their float32 gradient, the matmul's. */
export function logitsBytes(args: MaxTextArgs): number {
  const act = dtypeBytes(str(args['dtype']) ?? MODEL_DEFAULTS.dtype) ?? 2;
  const dot = bool(args['logits_dot_in_fp32'], MODEL_DEFAULTS.logits_dot_in_fp32) ? 4 : act;
  const logits = bool(args['cast_logits_to_fp32'], MODEL_DEFAULTS.cast_logits_to_fp32) ? 4 : dot;
  return logits + logits + (dot !== logits ? dot : 0);
}

/** What the shared arithmetic needs of the trainer (its method table row): its config file's defaults, and whether it tiles the vocabulary. */
export interface MemoryTraits {
  readonly defaults: TrainerDefaults;
  readonly vocabTiling: boolean;
}

/**
 * True when the kernel materialises the [batch, heads, q_len, kv_len] scores (`layers/attention_op.py`
 * `apply_attention`: `dot_product`, or `autoselected` for a sequence under 128 tokens; flash/splash work in blocks).
 */
export function materialisesScores(kernel: string, seqLen: number): boolean {
  return kernel === 'dot_product' || (kernel === 'autoselected' && seqLen < 128);
}

/** Logits, saved layer inputs and one layer's attention scores of one pass over the trainer's chips, GiB per chip. */
export function activations(
  input: HbmInput,
  traits: MemoryTraits,
  sequences: number,
  seqLen: number,
): { logits: number; layerInputs: number; scores: number; remat: string; kernel: string } {
  const { args, size } = input;
  const defaults = traits.defaults;
  const shards = meshShards(trainerMesh(args, input.devices.trainer, input.devices.slices));
  const tokens = Math.ceil(sequences / shards.batch) * Math.ceil(seqLen / shards.length);
  const act = dtypeBytes(str(args['dtype']) ?? MODEL_DEFAULTS.dtype) ?? 2;
  const remat = str(args['remat_policy']) ?? defaults.remat_policy;
  const layerInput = str(args['decoder_layer_input']) ?? defaults.decoder_layer_input;
  const offloaded = remat === 'custom' && layerInput === 'offload';
  // SFT's loss (pre_train/train.py `loss_fn`, which train_sft uses) computes the logits in `num_vocab_tiling` chunks
  // when > 1 (base.yml: "tiled ... along the batch-sequence axis"); RLConfig and train_dpo refuse tiling.
  const tiles = traits.vocabTiling ? Math.max(1, num(args, 'num_vocab_tiling', 1)) : 1;
  // The attention kernel the config selects: `attention`, else the trainer's config file's.
  const kernel = str(args['attention']) ?? defaults.attention;
  // attention_op.py `apply_attention_dot`: the scores (`qk_product`, at `dtype`, or float32 with `float32_qk_product`
  // / `float32_logits`) and their exponentials (`compute_local_attention`), both [b, kv_heads, groups, q, kv].
  const scoreBytes = bool(args['float32_qk_product'], false) || bool(args['float32_logits'], false) ? 4 : act;
  const scores = materialisesScores(kernel, seqLen)
    ? gib(2 * Math.ceil(sequences / shards.attnBatch) * Math.ceil(size.heads / shards.heads) * Math.ceil(seqLen / shards.length) * seqLen * scoreBytes)
    : 0;
  return {
    logits: gib(Math.ceil(tokens / tiles) * Math.ceil(size.vocab / shards.vocab) * logitsBytes(args)),
    layerInputs: offloaded ? 0 : gib(size.layers * tokens * Math.ceil(size.hidden / shards.embed) * act),
    scores,
    remat,
    kernel,
  };
}

/**
 * FSDP's transients: while a layer runs, its weights gathered over the FSDP axes, and in the backward pass its
 * whole gradient before the reduce-scatter, each one layer of parameters at the weights' dtype, split only over the
 * axes FSDP does not gather (meshShards `layerSplit`). Zero when nothing is gathered (one FSDP shard).
 */
export function fsdpTransients(input: HbmInput, weightBytes: number): number {
  const shards = meshShards(trainerMesh(input.args, input.devices.trainer, input.devices.slices));
  if (shards.gathered <= 1) return 0;
  return gib((2 * (input.size.params / input.size.layers) * weightBytes) / shards.layerSplit);
}

/** The rollout replica size (tensor x expert chips), filling the one -1 axis as MaxText does. */
export function replicaChips(args: MaxTextArgs, sampler: number): number {
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

export const verdictOf = (impossible: boolean, tight: boolean) => (impossible ? 'impossible' : tight ? 'tight' : 'fits');

/** GiB per chip of `bytesPerParam` for every parameter, sharded as the trainer's state is (meshShards `state`). */
export function stateGib(input: HbmInput, bytesPerParam: number): number {
  return gib(input.size.params * bytesPerParam) / stateShardCount(input);
}

/** How many ways the trainer's state is sharded. */
export function stateShardCount(input: HbmInput): number {
  return meshShards(trainerMesh(input.args, input.devices.trainer, input.devices.slices)).state;
}

/** One training pass's activation parts (logits, saved layer inputs, attention scores, FSDP transients), pushed to `parts`; their sum. */
export function passParts(
  input: HbmInput,
  traits: MemoryTraits,
  parts: HbmPart[],
  pass: { readonly on: HbmPart['on']; readonly sequences: number; readonly seqLen: number; readonly label: string; readonly weightBytes: number },
): number {
  const a = activations(input, traits, pass.sequences, pass.seqLen);
  parts.push({ what: `logits and their gradients, ${pass.label} (${logitsBytes(input.args)} bytes per entry)`, on: pass.on, gibPerChip: a.logits });
  parts.push({ what: `saved layer inputs (remat_policy=${a.remat})`, on: pass.on, gibPerChip: a.layerInputs });
  if (a.scores > 0) parts.push({ what: `attention scores and their exponentials, one layer (attention=${a.kernel})`, on: pass.on, gibPerChip: a.scores });
  const t = fsdpTransients(input, pass.weightBytes);
  if (t > 0) parts.push({ what: "one layer's weights gathered by FSDP and its gradient before the reduce-scatter", on: pass.on, gibPerChip: t });
  return a.logits + a.layerInputs + a.scores + t;
}

/**
 * The estimate of a trainer that holds every chip of the slice(s) (SFT, DPO): `state` (weights, a reference copy,
 * gradients, optimizer state: already in `parts`) plus one pass's activations against the usable HBM of a chip.
 */
export function wholeChipsEstimate(
  input: HbmInput,
  traits: MemoryTraits,
  parts: HbmPart[],
  pass: { readonly sequences: number; readonly seqLen: number; readonly label: string; readonly weightBytes: number },
  what: string,
): HbmEstimate {
  const hbm = input.slice.usableHbmGibPerChip;
  const state = parts.reduce((s, p) => s + p.gibPerChip, 0);
  const act = passParts(input, traits, parts, { on: 'chips', ...pass });
  const total = state + act;
  const shards = stateShardCount(input);
  const reasons: string[] = [];
  if (total > hbm) {
    reasons.push(
      `${what} (${fmt(state)}, sharded ${shards} ways) and activations (${fmt(act)}) need ${fmt(total)} per chip over ${input.devices.trainer} chips, ` +
        `a ${input.slice.generation} chip has ${hbm} GiB usable`,
    );
  } else if (total > TIGHT_FRACTION * hbm) {
    reasons.push(`${what} (${fmt(state)}, sharded ${shards} ways) and activations (${fmt(act)}) take ${fmt(total)} of ${hbm} GiB usable per chip`);
  }
  const verdict = verdictOf(total > hbm, total <= hbm && total > TIGHT_FRACTION * hbm);
  return { verdict, parts, reasons, sides: verdict === 'fits' ? [] : ['trainer'] };
}

/** Total GiB per chip of an estimate's parts on one side (for messages and the review). */
export function partsTotal(estimate: HbmEstimate, on: HbmPart['on']): number {
  return estimate.parts.filter((p) => p.on === on).reduce((s, p) => s + p.gibPerChip, 0);
}
