/**
 * The fit check's advice (jobs/validate.ts knobs, largerSlices, and the text hbmFit and hbmWarnings build from them),
 * in process: which overrides are tried on which side, at which values and in which order (nearest first), only for
 * keys the recipe passes to training; which larger slices are named. The advised values themselves are applied back
 * through config in __tests__/jobs/fit-check.test.ts ("advice works").
 */
import { RECIPES } from '../../jobs/recipes';
import { ruleContext, withTrainArgs } from './fixtures';
import { Recipe } from '../../jobs/recipes/types';
import { tpuSlice } from '../../jobs/tpu';
import { imageReferenceProblem } from '../../jobs/image-ref';
import { hfRepoProblem } from '../../jobs/models';
import {
  batchDivisibility,
  binaryMemoryUnits,
  checkpointStorage,
  chipsPerVm,
  deviceFractions,
  hbmFit,
  hbmWarnings,
  hfRepositories,
  imageReferences,
  knobs,
  largerSlices,
  maxtextRanges,
  numGenerations,
  promptLength,
  vllmModelName,
} from '../../jobs/validate';

const qwen = RECIPES['rl-qwen3'];
const gemma = RECIPES['rl-gemma4'];
const llama = RECIPES['rl-llama3'];
const sft = RECIPES['sft-gemma4'];
const v6e32 = tpuSlice('ct6e-standard-4t', '4x8');
const ctxOf = ruleContext;
const withArgs = withTrainArgs;
const keysOf = (k: ReturnType<typeof knobs>) => k.map((x) => x.keys.join('+'));

describe('knobs: the overrides tried on the side that does not fit', () => {
  test('RL trainer, split (rl-qwen3 on a v6e-32: 16 trainer devices): smaller micro batches, then a larger trainer share', () => {
    expect(knobs(qwen, ctxOf(), ['trainer'])).toEqual([
      // Divisors of batch_size 8 below the current micro batch 8, largest first.
      { keys: ['train_micro_batch_size'], values: [[4], [2], [1]] },
      // A larger trainer fraction with the sampler taking the rest (rounded to 0.01), nearest first.
      { keys: ['trainer_devices_fraction', 'sampler_devices_fraction'], values: [[0.625, 0.38], [0.75, 0.25], [0.875, 0.13]] },
    ]);
    // max_target_length 512 has no 256-step below it above max_prefill_predict_length 256; remat is full, mu bf16.
  });
  test('a micro batch of -1 (= batch_size) counts as the whole batch; a trainer fraction already at 0.75 leaves one step', () => {
    const k = knobs(withArgs(qwen, { train_micro_batch_size: -1, trainer_devices_fraction: 0.75, sampler_devices_fraction: 0.25 }), ctxOf(), ['trainer']);
    expect(k).toEqual([
      { keys: ['train_micro_batch_size'], values: [[4], [2], [1]] },
      { keys: ['trainer_devices_fraction', 'sampler_devices_fraction'], values: [[0.875, 0.13]] },
    ]);
    expect(knobs(withArgs(qwen, { trainer_devices_fraction: 0.875, sampler_devices_fraction: 0.125 }), ctxOf(), ['trainer'])).toEqual([{ keys: ['train_micro_batch_size'], values: [[4], [2], [1]] }]);
  });
  test('the fraction pair only when the recipe passes both fractions', () => {
    expect(keysOf(knobs(withArgs(qwen, { sampler_devices_fraction: undefined }), ctxOf(), ['trainer']))).toEqual(['train_micro_batch_size']);
    expect(keysOf(knobs(withArgs(qwen, { trainer_devices_fraction: undefined }), ctxOf(), ['trainer']))).toEqual(['train_micro_batch_size']);
  });
  test('RL trainer without a split (McJAX): a smaller vLLM share of HBM in 0.05 steps down to 0.05, instead of fractions', () => {
    const k = knobs(withArgs(qwen, { use_pathways: false }), ctxOf(), ['trainer']);
    expect(k).toEqual([
      { keys: ['train_micro_batch_size'], values: [[4], [2], [1]] },
      { keys: ['hbm_utilization_vllm'], values: [0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15, 0.1, 0.05].map((v) => [v]) },
    ]);
  });
  test('rl-gemma4: micro batch 2 of 4 tries 1; max_target_length 640 tries 512 (above the 256-token prompt), not 768 or 256', () => {
    expect(knobs(gemma, ctxOf(), ['trainer'])).toEqual([
      { keys: ['train_micro_batch_size'], values: [[1]] },
      { keys: ['max_target_length'], values: [[512]] },
      { keys: ['trainer_devices_fraction', 'sampler_devices_fraction'], values: [[0.625, 0.38], [0.75, 0.25], [0.875, 0.13]] },
    ]);
  });
  test('a non-full remat policy tries full; a 4-byte weight or optimizer dtype tries bfloat16; 2-byte ones are left', () => {
    const k = knobs(withArgs(qwen, { remat_policy: 'minimal', weight_dtype: 'float32', mu_dtype: 'float32' }), ctxOf(), ['trainer']);
    expect(k.filter((x) => ['remat_policy', 'weight_dtype', 'mu_dtype'].includes(x.keys[0]))).toEqual([
      { keys: ['remat_policy'], values: [['full']] },
      { keys: ['weight_dtype'], values: [['bfloat16']] },
      { keys: ['mu_dtype'], values: [['bfloat16']] },
    ]);
    expect(keysOf(knobs(withArgs(qwen, { remat_policy: 'full', weight_dtype: 'bfloat16', mu_dtype: 'bfloat16' }), ctxOf(), ['trainer']))).toEqual([
      'train_micro_batch_size',
      'trainer_devices_fraction+sampler_devices_fraction',
    ]);
  });
  test('SFT trainer: per_device_batch_size down by 1 to 1 (a fractional one from its ceiling), max_target_length down by 256 to 256', () => {
    const k = knobs(withArgs(sft, { per_device_batch_size: 4, max_target_length: 2048 }), ctxOf(), ['trainer']);
    expect(k).toEqual([
      { keys: ['per_device_batch_size'], values: [[3], [2], [1]] },
      { keys: ['max_target_length'], values: [1792, 1536, 1280, 1024, 768, 512, 256].map((v) => [v]) },
    ]);
    expect(knobs(withArgs(sft, { per_device_batch_size: 2.5 }), ctxOf(), ['trainer'])).toEqual([{ keys: ['per_device_batch_size'], values: [[2], [1]] }]);
    expect(knobs(withArgs(sft, { max_target_length: 300 }), ctxOf(), ['trainer'])).toEqual([{ keys: ['max_target_length'], values: [[256]] }]);
  });
  test('only keys the recipe passes are named: the tutorials as written offer nothing for SFT or single-host RL', () => {
    expect(knobs(sft, ctxOf(), ['trainer'])).toEqual([]);
    expect(knobs(llama, ctxOf(tpuSlice('ct6e-standard-8t', '2x4')), ['trainer', 'sampler'])).toEqual([]);
  });
  test('RL sampler: a larger vLLM share up to 0.9, nearest first; rollout parallelism x2.. up to the sampler devices', () => {
    expect(knobs(qwen, ctxOf(), ['sampler'])).toEqual([
      { keys: ['hbm_utilization_vllm'], values: [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9].map((v) => [v]) },
      { keys: ['rollout_tensor_parallelism'], values: [[2], [4], [8], [16]] },
      // expert parallelism 4: 8 and 16 fit the 16 sampler devices, 32 does not.
      { keys: ['rollout_expert_parallelism'], values: [[8], [16]] },
    ]);
    // A -1 rollout axis (fill) is not multiplied.
    expect(keysOf(knobs(withArgs(qwen, { rollout_tensor_parallelism: -1 }), ctxOf(), ['sampler']))).toEqual(['hbm_utilization_vllm', 'rollout_expert_parallelism']);
  });
  test('max_target_length on the sampler side only when the trainer side does not already try it, and once', () => {
    expect(keysOf(knobs(gemma, ctxOf(), ['sampler']))).toEqual(['hbm_utilization_vllm', 'rollout_tensor_parallelism', 'rollout_expert_parallelism', 'max_target_length']);
    const both = keysOf(knobs(gemma, ctxOf(), ['trainer', 'sampler']));
    expect(both.filter((k) => k === 'max_target_length')).toHaveLength(1);
    expect(both).toEqual([
      'train_micro_batch_size',
      'max_target_length',
      'trainer_devices_fraction+sampler_devices_fraction',
      'hbm_utilization_vllm',
      'rollout_tensor_parallelism',
      'rollout_expert_parallelism',
    ]);
    expect(knobs(gemma, ctxOf(), [])).toEqual([]);
  });
  test('a vLLM share at 0.9 or above leaves nothing larger to try', () => {
    expect(keysOf(knobs(withArgs(qwen, { hbm_utilization_vllm: 0.9 }), ctxOf(), ['sampler']))).toEqual(['rollout_tensor_parallelism', 'rollout_expert_parallelism']);
    expect(knobs(withArgs(qwen, { hbm_utilization_vllm: 0.85 }), ctxOf(), ['sampler'])[0]).toEqual({ keys: ['hbm_utilization_vllm'], values: [[0.9]] });
  });
});

describe('largerSlices: the smallest larger slice of the generation that fits, and one that fits tightly before it', () => {
  const name = (s?: { machineType: string; topology: string }) => (s ? `${s.machineType} ${s.topology}` : undefined);
  test('rl-llama3 from a v6e-4: the one-VM v6e-8 fits tightly, the two-VM v6e-8 has room (fewer VMs first at equal chips)', () => {
    const r = largerSlices(llama, ctxOf(tpuSlice('ct6e-standard-4t', '2x2')));
    expect([name(r.tight), name(r.fits)]).toEqual(['ct6e-standard-8t 2x4', 'ct6e-standard-4t 2x4']);
  });
  test('sft-gemma4 (31B) from a v6e-4: nothing up to the v6e-32 fits, which has room; no tight one before it', () => {
    const r = largerSlices(sft, ctxOf(tpuSlice('ct6e-standard-4t', '2x2')));
    expect([name(r.tight), name(r.fits)]).toEqual([undefined, 'ct6e-standard-4t 4x8']);
  });
  test('only larger slices: from the largest v6e slice there is none', () => {
    expect(largerSlices(sft, ctxOf(tpuSlice('ct6e-standard-4t', '16x16')))).toEqual({});
  });
});

describe('the advice as the error and the warning say it', () => {
  test('impossible with overrides and a larger slice: both, joined with "or"; the source is the config key when given', () => {
    const big = withArgs(qwen, { max_target_length: 8192 });
    const [message] = hbmFit(big, ctxOf(v6e32, 1, { configSource: 'cfg.json: pipelines.rl-qwen3', overridden: new Set(['max_target_length']) }));
    expect(message).toMatch(/^rl-qwen3 \(cfg\.json: pipelines\.rl-qwen3\.overrides\): qwen3-30b-a3b does not fit ct6e-standard-4t 4x8 \(v6e-32, 31\.25 GiB usable HBM per chip\): /);
    // Each knob's nearest value that fits (micro batch 4 does not, 2 does; 256-token steps down from 8192), then the
    // larger slices: the first that fits tightly, the first with room.
    expect(message.slice(message.indexOf('; to fit: '))).toBe(
      // max_target_length is owned by training.maxCompletionLength (max_target_length - maxPromptLength 256): advised there.
      '; to fit: set cfg.json: pipelines.rl-qwen3.training maxCompletionLength=3328 (now 7936); or set cfg.json: pipelines.rl-qwen3.overrides train_micro_batch_size=2 (now 8); ' +
        'or train on ct6e-standard-4t 8x8 (v6e-64), which fits tightly, or ct6e-standard-4t 8x16 (v6e-128) or larger ' +
        '(cfg.json: pipelines.rl-qwen3.slice: v6e-64 or v6e-128, with that slice in infra) (estimate: jobs/hbm.ts)',
    );
  });
  test('without a config source the key is pipelines.<name>; two slices name the count and offer no larger slice', () => {
    const big = withArgs(qwen, { max_target_length: 8192 });
    const [two] = hbmFit(big, ctxOf(v6e32, 2));
    expect(two).toMatch(/^rl-qwen3: qwen3-30b-a3b does not fit 2x ct6e-standard-4t 4x8 /);
    expect(two).toContain('set pipelines.rl-qwen3.overrides ');
    expect(two).not.toContain('train on ');
  });
  test('a slice-only answer for SFT: the larger slice and where to set it, as the `slice` key (issue 32)', () => {
    const [message] = hbmFit(sft, ctxOf(tpuSlice('ct6e-standard-4t', '2x4')));
    expect(message).toContain('; to fit: train on ct6e-standard-4t 4x8 (v6e-32) or larger (pipelines.sft-gemma4.slice: v6e-32, with that slice in infra) (estimate: jobs/hbm.ts)');
  });
  test('a slice `slice` cannot select (v6e-8 selects the one-VM ct6e-standard-8t, not ct6e-standard-4t 2x4) is named by machineType/topology', () => {
    const [message] = hbmFit(withArgs(llama, { max_target_length: 4096 }), ctxOf(tpuSlice('ct6e-standard-4t', '2x2')));
    expect(message).toContain('to fit: train on ct6e-standard-4t 2x4 (v6e-8) or larger (pipelines.rl-llama3.machineType/topology: ct6e-standard-4t 2x4, with that slice in infra)');
  });
  test('nothing fits anywhere: says so, naming the recipe and the generation', () => {
    const huge = withArgs(sft, { per_device_batch_size: 64, max_target_length: 131072 });
    const [message] = hbmFit(huge, ctxOf(tpuSlice('ct6e-standard-4t', '16x16')));
    expect(message).toContain('to fit: no override of sft-gemma4 and no larger v6e slice makes it fit (estimate: jobs/hbm.ts)');
  });
  test('a fit is no error and no warning; a tight fit warns with the room it could have', () => {
    expect(hbmFit(qwen, ctxOf())).toEqual([]);
    const [tight] = hbmWarnings(llama, ctxOf(tpuSlice('ct6e-standard-8t', '2x4')));
    expect(tight).toMatch(/^rl-llama3: llama3\.1-8b-Instruct fits ct6e-standard-8t 2x4 \(v6e-8-8t\) tightly: .*; an out-of-memory error at start-up is possible/);
    expect(tight).toMatch(/\(estimate: jobs\/hbm\.ts\)$/);
  });
});

describe('the other rules: each guard, boundary and message whole', () => {
  const v6e8x4 = tpuSlice('ct6e-standard-4t', '2x4');
  test('fractions on a split that is not Pathways have no effect, named with the runtime and VM count', () => {
    const mc = { ...qwen, runtime: 'mcjax' } as Recipe;
    expect(deviceFractions(mc, ctxOf())).toEqual([
      'rl-qwen3: trainer_devices_fraction=0.5 has no effect: MaxText splits trainer and sampler devices only on Pathways with >= 2 VMs (runtime mcjax, 32 devices / chips_per_vm 4 = 8 VM); remove it',
      'rl-qwen3: sampler_devices_fraction=0.5 has no effect: MaxText splits trainer and sampler devices only on Pathways with >= 2 VMs (runtime mcjax, 32 devices / chips_per_vm 4 = 8 VM); remove it',
    ]);
    expect(deviceFractions(sft, ctxOf())).toEqual([]);
  });
  test('one trainer or one sampler device is enough; none is refused', () => {
    expect(deviceFractions(withArgs(qwen, { trainer_devices_fraction: 0.125, sampler_devices_fraction: 0.875 }), ctxOf(v6e8x4))).toEqual([]);
    expect(deviceFractions(withArgs(qwen, { trainer_devices_fraction: 0.875, sampler_devices_fraction: 0.125 }), ctxOf(v6e8x4))).toEqual([]);
    expect(deviceFractions(withArgs(qwen, { trainer_devices_fraction: 0.1, sampler_devices_fraction: 0.9 }), ctxOf(v6e8x4))).toEqual([
      'rl-qwen3: the fractions leave 0 trainer and 7 sampler devices of 8; both need at least 1',
    ]);
  });
  test('chips_per_vm: the message says when the value is MaxText default, and not when the recipe set it', () => {
    const v6e8 = tpuSlice('ct6e-standard-8t', '2x4');
    expect(chipsPerVm(qwen, ctxOf(v6e8))).toEqual(['rl-qwen3: chips_per_vm must equal the 8 chips per VM of ct6e-standard-8t, got 4 (MaxText default)']);
    expect(chipsPerVm(withArgs(qwen, { chips_per_vm: 2 }), ctxOf())).toEqual(['rl-qwen3: chips_per_vm must equal the 4 chips per VM of ct6e-standard-4t, got 2']);
    expect(chipsPerVm(sft, ctxOf(v6e8))).toEqual([]);
  });
  test('batch divisibility: a negative micro batch is refused whole; -1 is the whole batch; SFT is not checked', () => {
    expect(batchDivisibility(withArgs(qwen, { train_micro_batch_size: -2 }), ctxOf())).toEqual([
      'rl-qwen3: batch_size must be a multiple of train_micro_batch_size, got batch_size=8, train_micro_batch_size=-2; micro batch sizes that fit: 1, 2, 4, 8',
    ]);
    expect(batchDivisibility(withArgs(qwen, { train_micro_batch_size: -1 }), ctxOf())).toEqual([]);
    expect(batchDivisibility(withArgs(sft, { batch_size: 3, train_micro_batch_size: 2 }), ctxOf())).toEqual([]);
  });
  test('RL-only rules ignore SFT: generations, prompt length', () => {
    expect(numGenerations(withArgs(sft, { 'rl.num_generations': 1 }), ctxOf())).toEqual([]);
    expect(promptLength(withArgs(sft, { max_target_length: 256, max_prefill_predict_length: 512 }), ctxOf())).toEqual([]);
    expect(promptLength(withArgs(qwen, { max_prefill_predict_length: 512 }), ctxOf())).toEqual([
      'rl-qwen3: max_prefill_predict_length must be less than max_target_length (MaxText silently drops longer prompts and generates max_target_length - max_prefill_predict_length tokens), got 512 >= 512',
    ]);
  });
  test('checkpoint storage: one of the two set is checked; true counts as on; Pathways needs both off', () => {
    const tm = (r: Recipe, args: Record<string, unknown>) => ({ ...r, toMaxText: { ...r.toMaxText, args: { ...r.toMaxText.args, ...args } } }) as Recipe;
    expect(checkpointStorage(withArgs(qwen, { checkpoint_storage_use_ocdbt: 1 }), ctxOf())).toEqual([
      'rl-qwen3: train has checkpoint_storage_use_zarr3=undefined, checkpoint_storage_use_ocdbt=1, but Pathways (runtime pathways) needs both 0',
    ]);
    expect(checkpointStorage(tm(qwen, { checkpoint_storage_use_zarr3: true }), ctxOf())[0]).toMatch(/^rl-qwen3: to-maxtext has checkpoint_storage_use_zarr3=True, /);
    expect(checkpointStorage(withArgs(llama, { checkpoint_storage_use_zarr3: true }), ctxOf())).toEqual([
      'rl-llama3: train has checkpoint_storage_use_zarr3=True without checkpoint_storage_use_ocdbt; Zarr3 requires OCDBT (set both 1 or both 0)',
    ]);
    expect(checkpointStorage(withArgs(llama, { checkpoint_storage_use_zarr3: true, checkpoint_storage_use_ocdbt: true }), ctxOf())).toEqual([]);
    expect(checkpointStorage(withArgs(llama, { checkpoint_storage_use_zarr3: 0, checkpoint_storage_use_ocdbt: 0 }), ctxOf())).toEqual([]);
  });
  test("vLLM's model name: another model is refused whole", () => {
    const other = withArgs(qwen, { vllm_additional_config: { maxtext_config: { model_name: 'gemma4-26b' } } });
    expect(vllmModelName(other, ctxOf())).toEqual(["rl-qwen3: vllm_additional_config.maxtext_config.model_name must be the trained model 'qwen3-30b-a3b', got 'gemma4-26b'"]);
    expect(vllmModelName(withArgs(qwen, { vllm_additional_config: ['x'] }), ctxOf())).toEqual([]);
  });
  test('ranges are checked only where given: a recipe without any of the keys passes', () => {
    expect(maxtextRanges(llama, ctxOf())).toEqual([]);
    expect(maxtextRanges(withArgs(llama, { kv_cache_buffer: 'x' }), ctxOf())).toEqual([
      "rl-llama3: kv_cache_buffer must be a whole number > 0 (MaxText's config schema rejects it at start-up), got x",
    ]);
  });
  test('image references: each field named; the image source only on the image itself', () => {
    const bad = { ...qwen, image: 'bad ref', pathways: { ...qwen.pathways!, proxyImage: 'bad proxy', serverImage: 'bad server' } } as Recipe;
    expect(imageReferences(bad, ctxOf(v6e32, 1, { imageSource: 'CLOUD_IMAGE_NAME (env)' }))).toEqual([
      `rl-qwen3 (CLOUD_IMAGE_NAME (env)): image: ${imageReferenceProblem('bad ref')}`,
      `rl-qwen3: pathways.proxyImage: ${imageReferenceProblem('bad proxy')}`,
      `rl-qwen3: pathways.serverImage: ${imageReferenceProblem('bad server')}`,
    ]);
    expect(imageReferences(bad, ctxOf())[0]).toBe(`rl-qwen3: image: ${imageReferenceProblem('bad ref')}`);
    expect(imageReferences(qwen, ctxOf())).toEqual([]);
  });
  test('binary memory units: whole quantities only; a decimal unit gets the kernel reading', () => {
    const mem = (m: string) => binaryMemoryUnits({ ...qwen, train: { ...qwen.train, memoryLimit: m } } as Recipe, ctxOf());
    for (const ok of ['190Gi', '1.5Gi', '512Mi', '64Ki', '2Ti']) expect(mem(ok)).toEqual([]);
    expect(mem('190G')).toEqual([`rl-qwen3: train.memoryLimit must use a binary unit (Ki, Mi, Gi, Ti), got '190G' (Kubernetes reads G as a power of 10: '190G' is 177.0Gi; the kernel's 190G is 190Gi)`]);
    expect(mem('64k')[0]).toContain("the kernel's 64k is 64Ki)");
    for (const bad of ['x190Gi', '190Gix', '1.Gi', '1.xGi']) expect(mem(bad)).toEqual([`rl-qwen3: train.memoryLimit must use a binary unit (Ki, Mi, Gi, Ti), got '${bad}'`]);
    for (const bad of ['x190G', '190Gx']) expect(mem(bad)[0]).not.toContain('Kubernetes reads');
    expect(mem('1.5G')[0]).toContain("the kernel's 1.5G is 1.5Gi)");
    const conv = { ...qwen, toMaxText: { ...qwen.toMaxText, resources: { requests: { memory: '100G' }, limits: { memory: '120Gi' } } } } as Recipe;
    expect(binaryMemoryUnits(conv, ctxOf()).map((m) => m.split(' must')[0])).toEqual(['rl-qwen3: toMaxText.resources.requests.memory']);
  });
  test("Hugging Face repositories set by overrides: another model's refused, the model's own, gs:// and local paths not", () => {
    const flags = (r: Recipe, hf: string) => ({ ...r, toMaxText: { ...r.toMaxText, flags: { ...r.toMaxText.flags, hf_model_path: hf } } }) as Recipe;
    const gemmaRepo = RECIPES['rl-gemma4'].model.hfRepo;
    expect(hfRepositories(flags(qwen, gemmaRepo), ctxOf())).toEqual([`rl-qwen3: hf_model_path '${gemmaRepo}' ${hfRepoProblem('qwen3-30b-a3b', gemmaRepo)}`]);
    expect(hfRepositories(withArgs(qwen, { tokenizer_path: gemmaRepo }), ctxOf())).toEqual([`rl-qwen3: tokenizer_path '${gemmaRepo}' ${hfRepoProblem('qwen3-30b-a3b', gemmaRepo)}`]);
    for (const fine of [qwen.model.hfRepo, 'gs://b/tok', '/models/tok']) {
      expect(hfRepositories(flags(withArgs(qwen, { tokenizer_path: fine }), fine), ctxOf())).toEqual([]);
    }
  });
});
