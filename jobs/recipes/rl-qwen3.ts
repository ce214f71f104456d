/**
 * Tutorial 000 (German): Qwen3-30B-A3B-Instruct-2507 GRPO on a v6e-32 (4x8) slice with Pathways;
 * HF -> MaxText -> RL -> HF. Every value below is the tutorial's; comments name the ones this project changes.
 */
import { Recipe } from './types';
import {
  CONVERSION_MAX_RESTARTS,
  CONVERSION_TIMEOUT_MINUTES,
  MAXTEXT_FOR_CAUSAL_LM,
  PATHWAYS_TUTORIAL_ENV,
  TUTORIAL_IMAGE,
} from './common';

const MODEL = 'qwen3-30b-a3b';
const HF_REPO = 'Qwen/Qwen3-30B-A3B-Instruct-2507';

export const rlQwen3: Recipe = {
  name: 'rl-qwen3',
  tutorial: '000',
  description: 'Qwen3-30B-A3B GRPO (train_rl) on Pathways, v6e-32',
  model: { name: MODEL, hfRepo: HF_REPO },
  slice: { machineType: 'ct6e-standard-4t', topology: '4x8' },
  image: TUTORIAL_IMAGE,
  runtime: 'pathways',
  maxRestarts: { 'to-maxtext': CONVERSION_MAX_RESTARTS, 'to-hf': CONVERSION_MAX_RESTARTS },
  timeoutMinutes: { 'to-maxtext': CONVERSION_TIMEOUT_MINUTES, train: 720, 'to-hf': CONVERSION_TIMEOUT_MINUTES },
  toMaxText: {
    args: {
      scan_layers: true,
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
      data_template_path: 'maxtext/examples/chat_templates/openmathinstruct2_rl.json',
      num_batches: 50,
      num_test_batches: 0,
      batch_size: 8,
      train_micro_batch_size: 8,
      max_target_length: 512,
      max_prefill_predict_length: 256,
      mu_dtype: 'bfloat16',
      grad_dtype: 'bfloat16',
      rollout_tensor_parallelism: 1,
      rollout_expert_parallelism: 4,
      trainer_devices_fraction: 0.5,
      sampler_devices_fraction: 0.5,
      tokenizer_path: HF_REPO,
      ici_tensor_parallelism: 2,
      ici_expert_parallelism: 4,
      ici_fsdp_parallelism: -1,
      hbm_utilization_vllm: 0.55,
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
      // The tutorial sets these inline (`JAX_PLATFORMS=proxy,cpu ENABLE_PATHWAYS_PERSISTENCE=1 python3 ...`) and by export.
      JAX_PLATFORMS: 'proxy,cpu',
      ENABLE_PATHWAYS_PERSISTENCE: '1',
      VLLM_ENABLE_V1_MULTIPROCESSING: '0',
    },
    exportVllmHostIp: true,
    patches: { vllmReshardChunkSize: 4, adafactor: true },
    // Tutorial: `echo 190G > /sys/fs/cgroup/memory.max`; here a real limit on the workload container. The kernel reads
    // G as 2^30 (memparse), so the tutorial's limit is 190 GiB: in Kubernetes that is 190Gi (190G would be 10^9 bytes).
    memoryLimit: '190Gi',
  },
  toHf: {
    args: {
      skip_jax_distributed_system: true,
      hardware: 'cpu',
      scan_layers: true,
      use_multimodal: false,
      weight_dtype: 'bfloat16',
    },
    overrideModelArchitecture: true,
  },
  pathways: { proxyEnv: PATHWAYS_TUTORIAL_ENV, serverEnv: PATHWAYS_TUTORIAL_ENV, workerEnv: PATHWAYS_TUTORIAL_ENV },
};
