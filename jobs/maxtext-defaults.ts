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
 * What a resume (a JobSet restart, or `resumeRun`) repeats besides the steps since the restored checkpoint, by training
 * kind. SFT: google/tunix c4ec573d tunix/sft/peft_trainer.py `PeftTrainer.train` skips already-trained batches only
 * when no data hooks load them, and MaxText maxtext-v0.2.4 `train_sft` installs `SFTDataHooks`
 * (trainers/post_train/hooks.py `BaseDataHooks`: a fresh iterator, `load_next_train_batch` ignores the restored step).
 * RL: tunix/rl/rl_learner.py syncs the trainer's weights to the sampler after each global step, not at restore.
 */
export const RESUME_REPEATS: Readonly<Record<'sft' | 'rl', string>> = {
  sft: 'SFT reads its data again from the first example',
  rl: "RL's first step samples with the base weights until the next weight sync",
};
