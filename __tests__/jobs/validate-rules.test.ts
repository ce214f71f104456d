/**
 * The synth-time rules of jobs/validate.ts called in process, at their boundaries: RL on two or more slices, the
 * trainer/sampler split at exactly 2 VMs, the ICI / DCN / fraction / range checks on both sides of each limit, and
 * the messages whole. Upstream: maxtext-v0.2.4 `utils/model_creation_utils.py` setup_configs_and_devices (the split),
 * `utils/maxtext_utils.py` create_device_mesh and `utils/max_utils.py` fill_unspecified_mesh_axes (the mesh),
 * `configs/types.py` (ranges, DCN on one slice).
 */
import { RECIPES } from '../../jobs/recipes';
import { ruleContext, withTrainArgs } from './fixtures';
import { Recipe } from '../../jobs/recipes/types';
import { tpuSlice } from '../../jobs/tpu';
import {
  batchDivisibility,
  chipsPerVm,
  dcnParallelism,
  deviceFractions,
  hbmFit,
  hbmWarnings,
  iciParallelism,
  maxtextRanges,
  numGenerations,
  promptLength,
  rlDevices,
  rolloutParallelism,
  RULES,
  validateRecipe,
  weightDtypeOverride,
} from '../../jobs/validate';

const qwen = RECIPES['rl-qwen3'];
const llama = RECIPES['rl-llama3'];
const sft = RECIPES['sft-gemma4'];
const v6e32 = tpuSlice('ct6e-standard-4t', '4x8');
const v6e8x4 = tpuSlice('ct6e-standard-4t', '2x4');
const v6e8 = tpuSlice('ct6e-standard-8t', '2x4');

const ctxOf = ruleContext;
const withArgs = withTrainArgs;

describe('the trainer/sampler split (setup_configs_and_devices, single-slice mode)', () => {
  test('Pathways with exactly 2 VMs splits; 1 VM does not; McJAX (use_pathways false) never does', () => {
    // ct6e-standard-4t 2x4: 8 chips on 2 VMs of 4.
    expect(rlDevices(qwen, ctxOf(v6e8x4))).toEqual({ total: 8, vms: 2, split: true, trainer: 4, sampler: 4 });
    // chips_per_vm 8 on the same 8 chips counts 1 VM: no split, both sides on every chip.
    expect(rlDevices(withArgs(qwen, { chips_per_vm: 8 }), ctxOf(v6e8x4))).toEqual({ total: 8, vms: 1, split: false, trainer: 8, sampler: 8 });
    expect(rlDevices(withArgs(qwen, { use_pathways: false }), ctxOf(v6e8x4))).toMatchObject({ vms: 2, split: false, trainer: 8, sampler: 8 });
    // int() truncates: 0.3 x 8 = 2.4 -> 2.
    expect(rlDevices(withArgs(qwen, { trainer_devices_fraction: 0.3, sampler_devices_fraction: 0.7 }), ctxOf(v6e8x4))).toMatchObject({ trainer: 2, sampler: 5 });
  });

  test('two or more slices: the devices of every slice, split by the fractions', () => {
    expect(rlDevices(qwen, ctxOf(v6e32, 2))).toEqual({ total: 64, vms: 16, split: true, trainer: 32, sampler: 32 });
    expect(rlDevices(qwen, ctxOf(tpuSlice('ct6e-standard-4t', '4x4'), 3))).toEqual({ total: 48, vms: 12, split: true, trainer: 24, sampler: 24 });
  });

  test('the fractions: in (0, 1], at most 1 together, at least one device each; only where MaxText splits', () => {
    const f = (tf: number | undefined, sf: number | undefined, slice = v6e32, recipe = qwen) =>
      deviceFractions(withArgs(recipe, { trainer_devices_fraction: tf, sampler_devices_fraction: sf }), ctxOf(slice));
    expect(f(0.5, 0.5)).toEqual([]);
    expect(f(1, 0)).toEqual(['rl-qwen3: sampler_devices_fraction must be in (0, 1], got 0']);
    expect(f(1, 1)).toEqual(['rl-qwen3: trainer_devices_fraction + sampler_devices_fraction must be at most 1 (trainer and sampler devices would overlap), got 1 + 1 = 2']);
    expect(f(0.75, 0.25)).toEqual([]);
    // The sum may reach 1 exactly (and 1 + 1e-9 for rounding), not more.
    expect(f(0.7, 0.3 + 1e-10)).toEqual([]);
    expect(f(0.7, 0.31)).toEqual([
      'rl-qwen3: trainer_devices_fraction + sampler_devices_fraction must be at most 1 (trainer and sampler devices would overlap), got 0.7 + 0.31 = 1.01',
    ]);
    expect(f(1.5, 0.5)).toEqual(['rl-qwen3: trainer_devices_fraction must be in (0, 1], got 1.5']);
    expect(f(-0.5, 1.5)).toEqual(['rl-qwen3: trainer_devices_fraction must be in (0, 1], got -0.5', 'rl-qwen3: sampler_devices_fraction must be in (0, 1], got 1.5']);
    // 0.01 of 32 chips is 0 trainer chips.
    expect(f(0.01, 0.5)).toEqual(['rl-qwen3: the fractions leave 0 trainer and 16 sampler devices of 32; both need at least 1']);
    expect(f(0.5, 0.01)).toEqual(['rl-qwen3: the fractions leave 16 trainer and 0 sampler devices of 32; both need at least 1']);
    // Where MaxText does not split, every given fraction is named as having no effect.
    expect(f(0.5, 0.5, v6e8, llama)).toEqual([
      'rl-llama3: trainer_devices_fraction=0.5 has no effect: MaxText splits trainer and sampler devices only on Pathways with >= 2 VMs (runtime mcjax, 8 devices / chips_per_vm 8 = 1 VM); remove it',
      'rl-llama3: sampler_devices_fraction=0.5 has no effect: MaxText splits trainer and sampler devices only on Pathways with >= 2 VMs (runtime mcjax, 8 devices / chips_per_vm 8 = 1 VM); remove it',
    ]);
    expect(f(undefined, undefined, v6e8, llama)).toEqual([]);
    expect(deviceFractions(sft, ctxOf())).toEqual([]);
  });
});

describe('the ICI mesh (one list of axes, jobs/maxtext-defaults.ts)', () => {
  const ici = (args: Record<string, unknown>, recipe = qwen, slice = v6e32, slices = 1) => iciParallelism(withArgs(recipe, args), ctxOf(slice, slices));

  test('values: -1 or a positive whole number; at most one -1', () => {
    expect(ici({})).toEqual([]);
    expect(ici({ ici_expert_parallelism: 0 })).toEqual(['rl-qwen3: ici_expert_parallelism must be -1 or a positive integer, got 0']);
    expect(ici({ ici_expert_parallelism: 1.5 })).toEqual(['rl-qwen3: ici_expert_parallelism must be -1 or a positive integer, got 1.5']);
    expect(ici({ ici_expert_parallelism: -2 })).toEqual(['rl-qwen3: ici_expert_parallelism must be -1 or a positive integer, got -2']);
    expect(ici({ ici_context_autoregressive_parallelism: -1 })).toEqual([
      'rl-qwen3: at most one of ici_fsdp_parallelism, ici_context_autoregressive_parallelism, ici_tensor_parallelism, ici_expert_parallelism may be -1, got ici_fsdp_parallelism=-1, ici_context_autoregressive_parallelism=-1',
    ]);
  });

  test('with a -1 the others divide the devices; without, they equal them (16 trainer devices of a v6e-32)', () => {
    expect(ici({ ici_fsdp_parallelism: 2, ici_expert_parallelism: 4 })).toEqual([]);
    expect(ici({ ici_fsdp_parallelism: 1, ici_expert_parallelism: 4 })).toEqual([
      'rl-qwen3: ici_fsdp_parallelism x ici_tensor_parallelism x ici_expert_parallelism must equal the 16 trainer devices, got 1x2x4=8',
    ]);
    expect(ici({ ici_expert_parallelism: 16 })).toEqual([
      'rl-qwen3: ici_tensor_parallelism x ici_expert_parallelism must divide the 16 trainer devices (ici_fsdp_parallelism=-1 takes the rest), got 2x16=32; products that fit: 1, 2, 4, 8, 16',
    ]);
    // Axes the old list missed: diloco, context_usp_ulysses, context_autoregressive, pipeline.
    expect(ici({ ici_diloco_parallelism: 2, ici_pipeline_parallelism: 2, ici_expert_parallelism: 2 })).toEqual([]);
    expect(ici({ ici_context_usp_ulysses_parallelism: 3 })).toEqual([
      'rl-qwen3: ici_context_usp_ulysses_parallelism x ici_tensor_parallelism x ici_expert_parallelism must divide the 16 trainer devices (ici_fsdp_parallelism=-1 takes the rest), got 3x2x4=24; products that fit: 1, 2, 4, 8, 16',
    ]);
  });

  test('ici_sequence_parallelism is no mesh axis of base.yml: 1 passes, anything else has no effect and is refused', () => {
    expect(ici({ ici_sequence_parallelism: 1 })).toEqual([]);
    expect(ici({ ici_sequence_parallelism: 2 })).toEqual([
      "rl-qwen3: ici_sequence_parallelism=2 has no effect: it is not one of MaxText's mesh axes (base.yml mesh_axes); remove it, or use ici_context_parallelism",
    ]);
    expect(iciParallelism(withArgs(sft, { ici_sequence_parallelism: 4 }), ctxOf())).toHaveLength(1);
  });

  test('SFT meshes each slice; RL meshes the trainer devices, then the sampler devices when they differ, each per slice', () => {
    expect(iciParallelism(withArgs(sft, { ici_fsdp_parallelism: 16 }), ctxOf())).toEqual([
      'sft-gemma4: ici_fsdp_parallelism must equal the 32 devices per slice, got 16=16',
    ]);
    expect(iciParallelism(withArgs(sft, { ici_fsdp_parallelism: 32 }), ctxOf(v6e32, 2))).toEqual([]);
    // 0.75 / 0.25 of 32: 24 trainer devices (3 x 8), 8 sampler devices: tensor 2 x expert 4 divides both.
    expect(ici({ trainer_devices_fraction: 0.75, sampler_devices_fraction: 0.25 })).toEqual([]);
    // Fixed fsdp 2: 2 x 2 x 4 = 16 is neither 24 trainer devices nor (checked only once the trainer passes) 8 sampler ones.
    expect(ici({ trainer_devices_fraction: 0.75, sampler_devices_fraction: 0.25, ici_fsdp_parallelism: 2 })).toEqual([
      'rl-qwen3: ici_fsdp_parallelism x ici_tensor_parallelism x ici_expert_parallelism must equal the 24 trainer devices, got 2x2x4=16',
    ]);
    expect(ici({ trainer_devices_fraction: 0.5, sampler_devices_fraction: 0.25 })).toEqual([]);
    // 0.125 of 32 = 4 sampler devices, which 2 x 4 does not divide (the trainer's 24 it does).
    expect(ici({ trainer_devices_fraction: 0.75, sampler_devices_fraction: 0.125 })).toEqual([
      'rl-qwen3: ici_tensor_parallelism x ici_expert_parallelism must divide the 4 sampler devices (ici_fsdp_parallelism=-1 takes the rest), got 2x4=8; products that fit: 1, 2, 4',
    ]);
    // Two slices: 32 trainer devices are 16 per slice.
    expect(ici({ ici_fsdp_parallelism: 2 }, qwen, v6e32, 2)).toEqual([]);
    expect(ici({ ici_fsdp_parallelism: 4 }, qwen, v6e32, 2)).toEqual([
      'rl-qwen3: ici_fsdp_parallelism x ici_tensor_parallelism x ici_expert_parallelism must equal the 16 trainer devices of each of the 2 slices, got 4x2x4=32',
    ]);
  });
});

describe('the DCN mesh (across slices)', () => {
  const dcn = (args: Record<string, unknown>, slices: number, recipe = sft) => dcnParallelism(withArgs(recipe, args), ctxOf(v6e32, slices));
  test('on one slice a product above 1 is refused; -1 counts as 1', () => {
    expect(dcn({}, 1)).toEqual([]);
    expect(dcn({ dcn_data_parallelism: 1 }, 1)).toEqual([]);
    expect(dcn({ dcn_fsdp_parallelism: 2 }, 1)).toEqual([
      'sft-gemma4: dcn_fsdp_parallelism=2 needs as many slices, got 1 slice (MaxText: "DCN parallelism requested but only one slice available"); remove it',
    ]);
  });
  test('on 2 or more slices the product equals the slices, the one -1 filling them', () => {
    expect(dcn({}, 2)).toEqual([]);
    expect(dcn({ dcn_data_parallelism: 1, dcn_fsdp_parallelism: 2 }, 2)).toEqual([]);
    expect(dcn({ dcn_fsdp_parallelism: 3 }, 2)).toEqual([
      'sft-gemma4: dcn_fsdp_parallelism must divide the 2 slices (dcn_data_parallelism=-1 takes the rest), got 3=3; products that fit: 1, 2',
    ]);
    expect(dcn({ dcn_data_parallelism: 1, dcn_fsdp_parallelism: 3 }, 2)).toEqual([
      'sft-gemma4: dcn_data_parallelism x dcn_fsdp_parallelism must equal the 2 slices, got 1x3=3',
    ]);
  });
});

describe('the other rules at their limits', () => {
  test('rollout tensor x data x expert equals the sampler devices (16 of a v6e-32)', () => {
    const r = (args: Record<string, unknown>) => rolloutParallelism(withArgs(qwen, args), ctxOf());
    expect(r({})).toEqual([]);
    expect(r({ rollout_data_parallelism: 4 })).toEqual([]);
    expect(r({ rollout_data_parallelism: 2 })).toEqual([
      'rl-qwen3: rollout_tensor_parallelism x rollout_data_parallelism x rollout_expert_parallelism must equal the 16 sampler devices, got 1x2x4=8',
    ]);
    expect(rolloutParallelism(sft, ctxOf())).toEqual([]);
  });

  test('chips_per_vm: the MaxText default 4 is named as such on an 8-chip VM', () => {
    expect(chipsPerVm(withArgs(llama, { chips_per_vm: undefined }), ctxOf(v6e8))).toEqual([
      'rl-llama3: chips_per_vm must equal the 8 chips per VM of ct6e-standard-8t, got 4 (MaxText default)',
    ]);
    expect(chipsPerVm(llama, ctxOf(v6e8))).toEqual([]);
    expect(chipsPerVm(sft, ctxOf(v6e8))).toEqual([]);
  });

  test('batch divisibility, generations, prompt length: each side of the limit', () => {
    expect(batchDivisibility(withArgs(qwen, { train_micro_batch_size: -1 }), ctxOf())).toEqual([]);
    expect(batchDivisibility(withArgs(qwen, { train_micro_batch_size: 8 }), ctxOf())).toEqual([]);
    expect(batchDivisibility(withArgs(qwen, { train_micro_batch_size: 0 }), ctxOf())).toEqual([
      'rl-qwen3: batch_size must be a multiple of train_micro_batch_size, got batch_size=8, train_micro_batch_size=0; micro batch sizes that fit: 1, 2, 4, 8',
    ]);
    expect(batchDivisibility(sft, ctxOf())).toEqual([]);
    expect(numGenerations(withArgs(qwen, { 'rl.num_generations': 2 }), ctxOf())).toEqual([]);
    expect(numGenerations(withArgs(qwen, { 'rl.num_generations': 1 }), ctxOf())).toHaveLength(1);
    expect(numGenerations(sft, ctxOf())).toEqual([]);
    expect(promptLength(withArgs(qwen, { max_prefill_predict_length: 511 }), ctxOf())).toEqual([]);
    expect(promptLength(withArgs(qwen, { max_prefill_predict_length: 512 }), ctxOf())).toHaveLength(1);
    expect(promptLength(sft, ctxOf())).toEqual([]);
  });

  test('ranges: kv_cache_buffer 0 (MaxText refuses it at start-up), hbm_utilization_vllm at 1 and just above, steps -1', () => {
    const ranges = (args: Record<string, unknown>, recipe = qwen) => maxtextRanges(withArgs(recipe, args), ctxOf());
    expect(ranges({ kv_cache_buffer: 0 })).toEqual([
      "rl-qwen3: kv_cache_buffer must be a whole number > 0 (MaxText's config schema rejects it at start-up), got 0",
    ]);
    expect(ranges({ kv_cache_buffer: 1 })).toEqual([]);
    expect(ranges({ hbm_utilization_vllm: 1 })).toEqual([]);
    expect(ranges({ hbm_utilization_vllm: 1.01 })).toHaveLength(1);
    expect(ranges({ hbm_utilization_vllm: 0.001 })).toEqual([]);
    expect(ranges({ hbm_utilization_vllm: 'high' })).toEqual(["rl-qwen3: hbm_utilization_vllm must be in (0, 1] (MaxText's config schema rejects it at start-up), got high"]);
    expect(ranges({ hbm_utilization_vllm: true })).toEqual(["rl-qwen3: hbm_utilization_vllm must be in (0, 1] (MaxText's config schema rejects it at start-up), got True"]);
    expect(ranges({ learning_rate: Number.POSITIVE_INFINITY })).toHaveLength(1);
    expect(ranges({ steps: -1 }, sft)).toEqual([]);
    expect(ranges({ steps: 0 }, sft)).toHaveLength(1);
    expect(ranges({ per_device_batch_size: 0.5 }, sft)).toEqual([]);
    expect(ranges({ per_device_batch_size: 0 }, sft)).toHaveLength(1);
    for (const key of ['rollout_micro_batch_size', 'eval_batch_size', 'train_micro_batch_size']) {
      expect(ranges({ [key]: -1 })).toEqual([]);
      expect(ranges({ [key]: -2 })).toHaveLength(1);
      expect(ranges({ [key]: 1 })).toEqual([]);
    }
    expect(ranges({ 'rl.num_iterations': 1, num_batches: 1, batch_size: 1 })).toEqual([]);
    expect(ranges({ 'rl.num_iterations': 0 })).toHaveLength(1);
  });

  test('a weight_dtype override: training dtype accepted, another refused, naming the trainer; without override nothing', () => {
    const overridden = (recipe: Recipe, dtype: 'bfloat16' | 'float32') =>
      weightDtypeOverride({ ...recipe, toHf: { ...recipe.toHf, args: { ...recipe.toHf.args, weight_dtype: dtype } } } as Recipe, ctxOf(v6e32, 1, { overridden: new Set(['weight_dtype']), configSource: 'pipelines.x' }));
    expect(overridden(qwen, 'bfloat16')).toEqual([]);
    expect(overridden(qwen, 'float32')).toEqual([
      "rl-qwen3 (pipelines.x.overrides): weight_dtype=float32 reaches only the export (to-hf), not training: train_rl gets no weight_dtype and trains at MaxText's bfloat16, so neither training nor its HBM changes; remove the override, or set it to bfloat16 to export what training holds",
    ]);
    expect(overridden(sft, 'float32')).toEqual([]);
    expect(overridden(sft, 'bfloat16')).toHaveLength(1);
    expect(weightDtypeOverride(sft, ctxOf())).toEqual([]);
    // Where training passes weight_dtype, the override reaches it: nothing to refuse.
    expect(overridden(withArgs(sft, { weight_dtype: 'bfloat16' }), 'bfloat16')).toEqual([]);
  });
});

describe('the fit rule and its warnings', () => {
  test('a model without a size row is not estimated: no error, one warning naming the table', () => {
    const unknown = { ...qwen, model: { ...qwen.model, name: 'qwen3-235b' } } as Recipe;
    expect(hbmFit(unknown, ctxOf())).toEqual([]);
    expect(hbmWarnings(unknown, ctxOf())).toEqual(["rl-qwen3: no HBM estimate for model 'qwen3-235b' (add its size to jobs/models.ts)"]);
  });

  test('validateRecipe throws every message at once and returns the warnings otherwise', () => {
    expect(validateRecipe(qwen, ctxOf())).toEqual([]);
    expect(() => validateRecipe(withArgs(qwen, { 'rl.num_generations': 1, kv_cache_buffer: 0 }), ctxOf())).toThrow(
      /rl\.num_generations must be at least 2[\s\S]*\n.*kv_cache_buffer must be a whole number > 0/,
    );
    expect(RULES[RULES.length - 1]).toBe(hbmFit);
  });
});
