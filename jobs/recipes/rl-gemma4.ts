/**
 * Tutorial 001 (Traditional Chinese): Gemma 4 26B-A4B GRPO on a v6e-32 slice with Pathways, OpenMathInstruct-2
 * template, `scan_layers=False` in all three steps. Every value below is the tutorial's.
 */
import { Recipe } from './types';
import {
  CONVERSION_MAX_RESTARTS,
  CONVERSION_TIMEOUT_MINUTES,
  MAXTEXT_FOR_CAUSAL_LM,
  PATHWAYS_TUTORIAL_ENV,
  TUTORIAL_IMAGE,
} from './common';

const MODEL = 'gemma4-26b';
const HF_REPO = 'google/gemma-4-26b-a4b-it';

export const rlGemma4: Recipe = {
  name: 'rl-gemma4',
  tutorial: '001',
  description: 'Gemma 4 26B-A4B GRPO (train_rl) on Pathways, v6e-32, unscanned layers',
  model: { name: MODEL, hfRepo: HF_REPO },
  slice: { machineType: 'ct6e-standard-4t', topology: '4x8' },
  image: TUTORIAL_IMAGE,
  runtime: 'pathways',
  maxRestarts: { 'to-maxtext': CONVERSION_MAX_RESTARTS, 'to-hf': CONVERSION_MAX_RESTARTS },
  timeoutMinutes: { 'to-maxtext': CONVERSION_TIMEOUT_MINUTES, train: 720, 'to-hf': CONVERSION_TIMEOUT_MINUTES },
  toMaxText: {
    args: {
      scan_layers: false,
      use_multimodal: false,
      skip_jax_distributed_system: true,
      checkpoint_storage_use_zarr3: 0,
      checkpoint_storage_use_ocdbt: 0,
      hardware: 'cpu',
    },
    flags: { hf_model_path: HF_REPO, lazy_load_tensors: true },
  },
  train: {
    kind: 'rl',
    args: {
      run_name: 'rl',
      scan_layers: false,
      data_template_path: 'maxtext/examples/chat_templates/openmathinstruct2_rl.json',
      num_batches: 50,
      batch_size: 4,
      train_micro_batch_size: 2,
      max_target_length: 640,
      max_prefill_predict_length: 256,
      mu_dtype: 'bfloat16',
      grad_dtype: 'bfloat16',
      rollout_tensor_parallelism: 4,
      rollout_expert_parallelism: 1,
      trainer_devices_fraction: 0.5,
      sampler_devices_fraction: 0.5,
      tokenizer_path: HF_REPO,
      ici_tensor_parallelism: 2,
      ici_expert_parallelism: 4,
      ici_fsdp_parallelism: -1,
      hbm_utilization_vllm: 0.7,
      remat_policy: 'full',
      async_scheduling: false,
      allow_split_physical_axes: true,
      ragged_gather_reduce_fallback: true,
      enable_dp_attention: false,
      decode_sampling_temperature: 0.8,
      decode_sampling_top_k: 50,
      decode_sampling_nucleus_p: 0.95,
      learning_rate: 2e-5,
      learning_rate_schedule_steps: 100,
      'rl.num_generations': 4,
      'rl.reshard_chunk_size': 4,
      debug: true,
      vllm_hf_overrides: MAXTEXT_FOR_CAUSAL_LM,
      vllm_additional_config: {
        maxtext_config: {
          model_name: MODEL,
          model_call_mode: 'inference',
          enable_dp_attention: false,
          allow_split_physical_axes: true,
          use_ragged_sort: false,
          ragged_gather_reduce_fallback: true,
          prefuse_moe_weights: true,
          weight_dtype: 'bfloat16',
        },
      },
    },
    env: {
      ...PATHWAYS_TUTORIAL_ENV,
      JAX_PLATFORMS: 'proxy,cpu',
      ENABLE_PATHWAYS_PERSISTENCE: '1',
      VLLM_ENABLE_V1_MULTIPROCESSING: '0',
    },
    exportVllmHostIp: true,
    patches: { adafactor: true },
  },
  toHf: {
    args: {
      skip_jax_distributed_system: true,
      hardware: 'cpu',
      scan_layers: false,
      use_multimodal: false,
      weight_dtype: 'bfloat16',
    },
    overrideModelArchitecture: true,
  },
  pathways: { proxyEnv: PATHWAYS_TUTORIAL_ENV, serverEnv: PATHWAYS_TUTORIAL_ENV, workerEnv: PATHWAYS_TUTORIAL_ENV },
};
