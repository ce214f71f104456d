/**
 * What MaxText's config code accepts, for the keys and flags this project passes (tests only). Model of
 * AI-Hypercomputer/maxtext maxtext-v0.2.4:
 * - src/maxtext/configs/pyconfig.py `_prepare_for_pydantic`: every `key=value` must be a field of the config class
 *   (searched recursively through nested models, `_check_for_invalid_keys`), else `ValueError("'<key>' not in ...")`;
 *   the class is `types.MaxTextConfig`, or `types.RLConfig` for train_rl (train_rl.py `pyconfig.initialize(...,
 *   config_class=types.RLConfig)`). Dotted keys (`rl.x`, `lora.x`) set fields of the nested `rl: RL` / `lora: LoRA`
 *   models; LoRA is `extra="forbid"`.
 * - src/maxtext/configs/types.py: the class that declares each key (FIELDS), the Literal / enum / range constraints
 *   (CONSTRAINTS), and the validators modelled in `configProblems` (`hf_path can't be empty when dataset_type=hf`).
 * - argparse / absl flags: to_maxtext.py `parse_known_args` (an unknown `--flag` would reach pyconfig as a key) and
 *   to_huggingface.py `flags.DEFINE_*`.
 * A key this project starts passing must be looked up there and added with its class.
 */
import { MAXTEXT_CONFIG_KEYS } from '../../jobs/maxtext-keys';

/**
 * key -> the types.py class that declares it, per config class: the keys this project's recipes pass, read by hand (a
 * cross-check of the generated jobs/maxtext-keys.ts, which configProblems reads: every key here must be there).
 */
export const FIELDS: Readonly<Record<'MaxTextConfig' | 'RLConfig', Readonly<Record<string, string>>>> = {
  MaxTextConfig: {
    base_output_directory: 'RunInfo', model_name: 'RunInfo', run_name: 'RunInfo',
    hardware: 'HardwareAndMesh', scan_layers: 'HardwareAndMesh', load_parameters_path: 'Checkpointing',
    checkpoint_period: 'Checkpointing', enable_checkpointing: 'Checkpointing',
    checkpoint_storage_use_ocdbt: 'OrbaxStorage', checkpoint_storage_use_zarr3: 'OrbaxStorage',
    skip_jax_distributed_system: 'DevelopmentAndDebugging', use_multimodal: 'MultimodalGeneral', weight_dtype: 'DataTypes',
    dataset_type: 'DatasetGeneral', per_device_batch_size: 'DatasetGeneral', train_data_columns: 'DatasetGeneral',
    hf_path: 'HfDataset', hf_name: 'HfDataset', train_split: 'TfdsDataset', profiler: 'Profiling', steps: 'TrainingLoop',
    tokenizer_path: 'Tokenizer', override_model_config: 'RunInfo', base_num_decoder_layers: 'ModelArchitecture',
    'lora.enable_lora': 'LoRA', 'lora.lora_rank': 'LoRA', 'lora.lora_alpha': 'LoRA', 'lora.lora_module_path': 'LoRA', 'lora.lora_restore_path': 'LoRA',
    // train_dpo (pyconfig.py l.54: post_train/dpo.yml over base.yml, MaxTextConfig): the DPO block and the eval interval.
    eval_interval: 'TrainingLoop', hf_eval_split: 'HfDataset', eval_data_columns: 'DatasetGeneral', packing: 'DatasetGeneral',
    'dpo.algo': 'DPO', 'dpo.dpo_beta': 'DPO', 'dpo.dpo_label_smoothing': 'DPO', 'dpo.max_prompt_length': 'DPO',
  },
  RLConfig: {
    base_output_directory: 'RunInfo', model_name: 'RunInfo', run_name: 'RunInfo', load_parameters_path: 'Checkpointing',
    checkpoint_period: 'Checkpointing', enable_checkpointing: 'Checkpointing', max_num_checkpoints_to_keep: 'Checkpointing',
    scan_layers: 'HardwareAndMesh', allow_split_physical_axes: 'HardwareAndMesh', debug: 'RLConfig',
    batch_size: 'RLDataset', num_batches: 'RLDataset', num_test_batches: 'RLDataset', train_micro_batch_size: 'RLDataset', hf_subset: 'RLDataset',
    dataset_name: 'TfdsDataset', eval_dataset_name: 'TfdsDataset', train_split: 'TfdsDataset', eval_split: 'TfdsDataset', hf_name: 'HfDataset',
    data_template_path: 'Tokenizer', tokenizer_path: 'Tokenizer',
    chips_per_vm: 'RLCluster', rollout_data_parallelism: 'RLCluster', rollout_expert_parallelism: 'RLCluster', rollout_tensor_parallelism: 'RLCluster',
    sampler_devices_fraction: 'RLCluster', trainer_devices_fraction: 'RLCluster',
    async_scheduling: 'VLLM', enable_dp_attention: 'VLLM', hbm_utilization_vllm: 'VLLM', vllm_additional_config: 'VLLM', vllm_hf_overrides: 'VLLM',
    decode_sampling_nucleus_p: 'Decoding', decode_sampling_temperature: 'Decoding', decode_sampling_top_k: 'Decoding',
    max_prefill_predict_length: 'InferenceGeneral', max_target_length: 'InferenceGeneral',
    grad_dtype: 'DataTypes', mu_dtype: 'AdamW', learning_rate: 'Optimizer', learning_rate_schedule_steps: 'Optimizer',
    ici_expert_parallelism: 'IciParallelism', ici_fsdp_parallelism: 'IciParallelism', ici_tensor_parallelism: 'IciParallelism',
    ragged_gather_reduce_fallback: 'MoEGeneral', remat_policy: 'RematAndOffload',
    reward_functions: 'RLReward', reward_functions_path: 'RLReward', dataset_processor_path: 'RLDataset',
    override_model_config: 'RunInfo', base_num_decoder_layers: 'ModelArchitecture',
    'rl.loss_algo': 'RL', 'rl.num_generations': 'RL', 'rl.reshard_chunk_size': 'RL',
  },
};

/** Value constraints types.py enforces on keys this project sets from config. */
export const CONSTRAINTS: Readonly<Record<string, (v: string) => boolean>> = {
  // RL.loss_algo: Literal["grpo", "gspo-token"].
  'rl.loss_algo': (v) => ['grpo', 'gspo-token'].includes(v),
  // DatasetType enum.
  dataset_type: (v) => ['synthetic', 'hf', 'grain', 'tfds', 'c4_mlperf', 'olmo_grain'].includes(v),
  // LoRA.lora_rank: NonNegativeInt; lora_alpha: NonNegativeFloat.
  'lora.lora_rank': (v) => /^\d+$/.test(v),
  'lora.lora_alpha': (v) => Number(v) >= 0,
  'lora.enable_lora': (v) => /^(True|False)$/.test(v),
  // DPO.algo: Literal["dpo", "orpo"]; dpo_label_smoothing: ge=0, le=1; max_prompt_length: gt=0.
  'dpo.algo': (v) => ['dpo', 'orpo'].includes(v),
  'dpo.dpo_label_smoothing': (v) => Number(v) >= 0 && Number(v) <= 1,
  'dpo.max_prompt_length': (v) => /^[1-9]\d*$/.test(v),
};

/** Model-YAML keys this project may set on the command line (a rehearsal's cut, jobs/rehearsal.ts). */
export const MODEL_YAML_KEYS = ['base_num_decoder_layers'] as const;

/** argparse (to_maxtext.py) / absl (to_huggingface.py) flags of the conversions. */
export const CONVERSION_FLAGS: Readonly<Record<string, readonly string[]>> = {
  'maxtext.checkpoint_conversion.to_maxtext': ['lazy_load_tensors', 'eager_load_method', 'hf_model_path', 'revision', 'save_dtype', 'simulated_cpu_devices_count'],
  'maxtext.checkpoint_conversion.to_huggingface': ['override_model_architecture', 'hf_model_path', 'parallel_threads'],
};

/** The config class a module initializes. */
export function configClassOf(module: string): 'MaxTextConfig' | 'RLConfig' {
  return module === 'maxtext.trainers.post_train.rl.train_rl' ? 'RLConfig' : 'MaxTextConfig';
}

/** Why MaxText's config code would refuse one call, or [] when it accepts it. */
export function configProblems(call: { module: string; args: Record<string, string>; flags: Record<string, string> }): string[] {
  const cls = configClassOf(call.module);
  const out: string[] = [];
  for (const [key, value] of Object.entries(call.args)) {
    if (!(key in MAXTEXT_CONFIG_KEYS[cls])) out.push(`'${key}' not in ${cls} (pyconfig._prepare_for_pydantic)`);
    const ok = CONSTRAINTS[key];
    if (ok && !ok(value.replace(/^'|'$/g, ''))) out.push(`${key}=${value} violates types.py`);
  }
  // A key every model YAML sets (configs/models/<model>.yml `base_num_decoder_layers`) given on the command line: pyconfig
  // raises unless override_model_config=true (maxtext-v0.2.4 configs/pyconfig.py:479-486 and 128
  // validate_no_keys_overridden_twice; base.yml:24). The value must be a whole number >= 1 (types.py:521, int).
  for (const key of MODEL_YAML_KEYS) {
    if (key in call.args && call.args.override_model_config !== 'True') out.push(`${key} is set by the model YAML: pass override_model_config=True (pyconfig.py:479-486)`);
  }
  if ('base_num_decoder_layers' in call.args && !/^[1-9]\d*$/.test(call.args.base_num_decoder_layers)) out.push('base_num_decoder_layers must be an int >= 1 (types.py:521)');
  if (call.args.dataset_type === 'hf' && !call.args.hf_path) out.push("hf_path can't be empty when dataset_type=hf");
  if (call.args['lora.enable_lora'] === 'True' && !(Number(call.args['lora.lora_rank']) > 0)) out.push('lora_rank must be > 0 with enable_lora');
  if (call.module === 'maxtext.trainers.post_train.dpo.train_dpo') out.push(...dpoProblems(call.args));
  const allowed = CONVERSION_FLAGS[call.module];
  for (const flag of Object.keys(call.flags)) {
    if (!allowed || !allowed.includes(flag)) out.push(`--${flag} is not a flag of ${call.module}`);
  }
  return out;
}

/**
 * What train_dpo refuses at start-up beyond the key check (maxtext-v0.2.4): types.py `if self.use_dpo and self.packing`
 * ("DPO does not support packing", dpo.yml sets packing false), `dpo.max_prompt_length` (default max_target_length // 2)
 * must be below `max_target_length` (dpo.yml 512), train_dpo.py `validate_config` refuses `num_vocab_tiling` > 1, and
 * dpo_utils.py DPODataFormatting needs 2 or 3 `train_data_columns`.
 */
function dpoProblems(args: Record<string, string>): string[] {
  const out: string[] = [];
  if (/^(True|true|1)$/.test(args.packing ?? '')) out.push('DPO does not support packing (types.py)');
  const target = Number(args.max_target_length ?? 512);
  const prompt = Number(args['dpo.max_prompt_length'] ?? Math.floor(target / 2));
  if (prompt >= target) out.push(`dpo.max_prompt_length (${prompt}) must be less than max_target_length`);
  if (Number(args.num_vocab_tiling ?? 1) > 1) out.push('Vocab Tiling is not supported with DPO');
  const columns = (args.train_data_columns ?? "['chosen', 'rejected']").replace(/^'|'$/g, '');
  const n = (JSON.parse(columns.replace(/'/g, '"')) as string[]).length;
  if (n !== 2 && n !== 3) out.push(`DPODataFormatting expects 2 or 3 columns, got ${n}`);
  return out;
}
