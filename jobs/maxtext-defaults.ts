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
  'rl.grpo_beta': 0.08,
  max_target_length: 1024,
  max_prefill_predict_length: 256,
  kv_cache_buffer: 256,
  hbm_utilization_vllm: 0.72,
  weight_dtype: 'bfloat16',
} as const;

/** types.py defaults a train_sft run gets. */
export const SFT_DEFAULTS = {
  weight_dtype: 'float32',
} as const;
