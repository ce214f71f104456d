/**
 * MaxText defaults of the keys the synth-time checks read (jobs/validate.ts, jobs/hbm.ts): the value a run gets
 * when the recipe does not pass the key. RL: `src/maxtext/configs/post_train/rl.yml` over `types.py` (RLConfig);
 * SFT: `types.py` / base.yml. MaxText maxtext-v0.2.4; ../shared/reference/maxtext-post-training.md §1.3. Pure.
 */

/** rl.yml / RLConfig defaults. */
export const RL_DEFAULTS = {
  chips_per_vm: 4,
  trainer_devices_fraction: 0.5,
  sampler_devices_fraction: 0.5,
  rollout_tensor_parallelism: 1,
  rollout_data_parallelism: -1,
  rollout_expert_parallelism: 1,
  batch_size: 1,
  train_micro_batch_size: -1,
  'rl.num_generations': 2,
  /** RLConfig `num_batches` 4 (ge=1). */
  num_batches: 4,
  /** RLConfig `num_test_batches` 5: evaluation batches before and after training; 0 turns the evaluation off. */
  num_test_batches: 5,
  /** RLConfig `rl.num_iterations` 1, `train_fraction` 1, `num_epoch` 1: train_steps = num_batches x all three. */
  'rl.num_iterations': 1,
  train_fraction: 1,
  num_epoch: 1,
  max_target_length: 1024,
  max_prefill_predict_length: 256,
  kv_cache_buffer: 256,
  hbm_utilization_vllm: 0.72,
  weight_dtype: 'bfloat16',
  /** rl.yml l.90-91: `remat_policy: 'custom'` with `decoder_layer_input: 'offload'` (layer inputs kept on the host). */
  remat_policy: 'custom',
  decoder_layer_input: 'offload',
  /** rl.yml l.89 `attention: 'dot_product'` (materialises the [batch, heads, length, length] scores). */
  attention: 'dot_product',
} as const;

/** types.py / base.yml defaults a train_sft run gets (sft.yml sets none of these). */
export const SFT_DEFAULTS = {
  weight_dtype: 'float32',
  /** types.py `steps` 150_001. */
  steps: 150001,
  /** base.yml l.731; types.py `per_device_batch_size` 12. */
  per_device_batch_size: 12,
  /** base.yml; types.py `max_target_length` 2048. */
  max_target_length: 2048,
  /** base.yml l.358 `remat_policy: 'full'`; `decoder_layer_input: 'device'`. */
  remat_policy: 'full',
  decoder_layer_input: 'device',
  /** base.yml l.392 `attention: 'autoselected'` (flash/splash on TPU for training sequences of 128 tokens or more). */
  attention: 'autoselected',
} as const;

/**
 * Defaults both trainers share (types.py, equal in base.yml): activations in bfloat16 (`dtype`), the logits matmul
 * at `dtype` (`logits_dot_in_fp32: false`) then cast to float32 (`cast_logits_to_fp32: true`).
 */
export const MODEL_DEFAULTS = {
  dtype: 'bfloat16',
  logits_dot_in_fp32: false,
  cast_logits_to_fp32: true,
} as const;

/**
 * The mesh axes, in MaxText's order: base.yml l.531 `mesh_axes` (maxtext-v0.2.4), each with the `ici_<key>_parallelism` /
 * `dcn_<key>_parallelism` fields `maxtext_utils.create_device_mesh` reads for it (`stage` reads `*_pipeline_parallelism`).
 * The one list of the ICI and DCN axes: the synth-time mesh checks (jobs/validate.ts) and the HBM estimate's sharding
 * (jobs/hbm.ts) read it. `ici_sequence_parallelism` is a types.py field but not a base.yml mesh axis, so the mesh never
 * reads it. Defaults (types.py l.1222-1258, base.yml l.659-684): every axis 1 but `ici_fsdp_parallelism` and
 * `dcn_data_parallelism`, -1 (fills the devices of a slice, and the slices).
 */
export const MESH_AXES = [
  { axis: 'diloco', key: 'diloco' },
  { axis: 'data', key: 'data' },
  { axis: 'stage', key: 'pipeline' },
  { axis: 'fsdp', key: 'fsdp' },
  { axis: 'fsdp_transpose', key: 'fsdp_transpose' },
  { axis: 'context', key: 'context' },
  { axis: 'context_usp_ulysses', key: 'context_usp_ulysses' },
  { axis: 'context_autoregressive', key: 'context_autoregressive' },
  { axis: 'tensor', key: 'tensor' },
  { axis: 'tensor_sequence', key: 'tensor_sequence' },
  { axis: 'expert', key: 'expert' },
  { axis: 'autoregressive', key: 'autoregressive' },
] as const;

export type MeshAxis = (typeof MESH_AXES)[number]['axis'];

/** `ici_<key>_parallelism` of every mesh axis, in mesh order. */
export const ICI_AXIS_KEYS: readonly string[] = MESH_AXES.map((a) => `ici_${a.key}_parallelism`);
/** `dcn_<key>_parallelism` of every mesh axis, in mesh order. */
export const DCN_AXIS_KEYS: readonly string[] = MESH_AXES.map((a) => `dcn_${a.key}_parallelism`);

/** The MaxText default of an `ici_*` / `dcn_*` key: -1 for `ici_fsdp_parallelism` and `dcn_data_parallelism`, else 1. */
export function meshDefault(key: string): number {
  return key === 'ici_fsdp_parallelism' || key === 'dcn_data_parallelism' ? -1 : 1;
}

/**
 * Mesh axes that hold a full copy of the parameters (no logical rule of base.yml `logical_axis_rules` maps a weight
 * axis to them: weights shard over fsdp, fsdp_transpose, context, context_usp_ulysses, expert, tensor, tensor_sequence,
 * autoregressive and stage). `data` and `diloco` are replicas; `context_autoregressive` shards no weight either.
 */
export const REPLICA_AXES: ReadonlySet<MeshAxis> = new Set<MeshAxis>(['diloco', 'data', 'context_autoregressive']);

/**
 * dpo.yml (src/maxtext/configs/post_train/dpo.yml, maxtext-v0.2.4, line numbers of that file) over base.yml / types.py:
 * the defaults a train_dpo run gets. dpo.yml sets no weight_dtype, remat_policy or attention, so those are base.yml's
 * (as SFT_DEFAULTS).
 */
export const DPO_DEFAULTS = {
  /** types.py `weight_dtype` float32 (dpo.yml sets none). */
  weight_dtype: 'float32',
  /** dpo.yml l.13 `steps: 10`. */
  steps: 10,
  /** dpo.yml l.12 `per_device_batch_size: 2.0`. */
  per_device_batch_size: 2,
  /** dpo.yml l.14 `max_target_length: 512`. */
  max_target_length: 512,
  remat_policy: 'full',
  decoder_layer_input: 'device',
  attention: 'autoselected',
  /** dpo.yml l.29 `learning_rate: 5.0e-7`. */
  learning_rate: 5e-7,
  /** dpo.yml l.5 `algo: 'dpo'`; types.py DPO.algo: Literal["dpo", "orpo"]. */
  'dpo.algo': 'dpo',
  /** dpo.yml l.8 `dpo_beta: 0.1`. */
  'dpo.dpo_beta': 0.1,
  /** dpo.yml l.24 `train_data_columns: ['chosen', 'rejected']`. */
  columns: ['chosen', 'rejected'],
} as const;
