/**
 * Tutorial 002 (Simplified Chinese): Llama 3.1 8B Instruct GRPO on one v6e-8 VM (`ct6e-standard-8t`), McJAX, no
 * Pathways, GSM8K (rl.yml's default dataset). The tutorial's local /dev/shm paths become the bucket layout every
 * pipeline uses; its RUN_NAME=$(date ...) becomes the fixed `rl` so the export finds the checkpoint. Every other
 * value below is the tutorial's.
 */
import { Recipe } from './types';
import { CONVERSION_MAX_RESTARTS, CONVERSION_TIMEOUT_MINUTES, TUTORIAL_IMAGE } from './common';

export const rlLlama3: Recipe = {
  name: 'rl-llama3',
  tutorial: '002',
  description: 'Llama 3.1 8B Instruct GRPO (train_rl) on a single v6e-8 host, McJAX',
  model: { name: 'llama3.1-8b-Instruct', hfRepo: 'meta-llama/Llama-3.1-8B-Instruct' },
  slice: { machineType: 'ct6e-standard-8t', topology: '2x4' },
  // The tutorial pip-installs maxtext[tpu-post-train]==0.2.3 on the VM; this pipeline runs the 0.2.4 image like
  // the others (a visible choice: tutorialMaxText). RL defaults that differ between the two, from
  // AI-Hypercomputer/maxtext src/maxtext/configs/post_train/rl.yml maxtext-v0.2.3 -> maxtext-v0.2.4 (docs/pipelines.md,
  // "Tutorial 002 and MaxText 0.2.3"): `debug.rl: true` became `debug: false` (pinned below); the
  // `rl.degenerate_group_masking: true` key is gone (0.2.3 passed it to the agentic GRPO learner only; this
  // tutorial does not use agentic rollout, and 0.2.4 would refuse the key); `chat_template_path` -> `data_template_path`
  // and `hf_name` -> `hf_subset` with the same values; `tokenizer_type: huggingface` is now set by RLConfig itself.
  image: TUTORIAL_IMAGE,
  tutorialMaxText: {
    version: '0.2.3',
    why: "one image for every pipeline, the version this program's MaxText checks model; the tutorial's flags mean the same in both",
  },
  runtime: 'mcjax',
  maxRestarts: { 'to-maxtext': CONVERSION_MAX_RESTARTS, 'to-hf': CONVERSION_MAX_RESTARTS },
  timeoutMinutes: { 'to-maxtext': CONVERSION_TIMEOUT_MINUTES, train: 240, 'to-hf': CONVERSION_TIMEOUT_MINUTES },
  toMaxText: {
    args: {
      scan_layers: true,
      use_multimodal: false,
      hardware: 'cpu',
      skip_jax_distributed_system: true,
      // $((1 - USE_PATHWAYS)) with USE_PATHWAYS=0.
      checkpoint_storage_use_zarr3: 1,
      checkpoint_storage_use_ocdbt: 1,
    },
    flags: { lazy_load_tensors: false },
  },
  train: {
    kind: 'rl',
    args: {
      run_name: 'rl',
      chips_per_vm: 8,
      num_batches: 50,
      num_test_batches: 10,
      rollout_data_parallelism: 1,
      rollout_tensor_parallelism: -1,
      // 0.2.3's rl.yml `debug: {rl: true}` (dataset samples, eval responses, vLLM logs); 0.2.4 defaults it off.
      debug: true,
    },
    env: {},
  },
  toHf: {
    // The tutorial exports with HF_MODEL_NAME=llama3.1-8b (its shell has HF_TOKEN exported, as every step here does).
    modelName: 'llama3.1-8b',
    args: { scan_layers: true, use_multimodal: false, weight_dtype: 'bfloat16' },
  },
  tpuVmEnv: true,
};
