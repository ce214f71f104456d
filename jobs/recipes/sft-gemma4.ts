/**
 * Tutorial 003 (German): Gemma 4 31B SFT on a v6e-32 slice, multi-host JAX (8 pods), UltraChat 200k,
 * 1000 steps. Every value below is the tutorial's.
 */
import { Recipe } from './types';
import { CONVERSION_MAX_RESTARTS, CONVERSION_TIMEOUT_MINUTES, TUTORIAL_IMAGE } from './common';

export const sftGemma4: Recipe = {
  name: 'sft-gemma4',
  tutorial: '003',
  description: 'Gemma 4 31B SFT (train_sft) on multi-host JAX, v6e-32, UltraChat 200k',
  model: { name: 'gemma4-31b', hfRepo: 'google/gemma-4-31b-it' },
  slice: { machineType: 'ct6e-standard-4t', topology: '4x8' },
  image: TUTORIAL_IMAGE,
  runtime: 'mcjax',
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
    // The tutorial passes no --hf_model_path: MaxText's HF_IDS['gemma4-31b'] is google/gemma-4-31b-it.
    flags: { lazy_load_tensors: true },
  },
  train: {
    kind: 'sft',
    args: {
      run_name: 'sft',
      dataset_type: 'hf',
      hf_path: 'HuggingFaceH4/ultrachat_200k',
      per_device_batch_size: 1,
      steps: 1000,
      profiler: 'xplane',
      checkpoint_storage_use_zarr3: 0,
      checkpoint_storage_use_ocdbt: 0,
      skip_jax_distributed_system: false,
    },
    env: {
      JAX_PLATFORMS: 'tpu,cpu',
      ENABLE_PJRT_COMPATIBILITY: 'true',
      JAX_TRACEBACK_FILTERING: 'off',
      LIBTPU_INIT_ARGS:
        ' --xla_tpu_scoped_vmem_limit_kib=61440 --xla_tpu_bf16_emission_mode=NATIVE_EMISSION' +
        ' --xla_tpu_enable_sparse_core_collective_offload_all_reduce=true' +
        ' --xla_tpu_use_single_sparse_core_for_all_gather_offload=true ',
    },
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
};
