/**
 * The HBM estimate (jobs/hbm.ts) and the fit rules built on it (jobs/validate.ts): the four tutorials pass, the
 * impossible fails naming model, slice and what fits, the tight warns.
 */
import { dtypeBytes, estimateHbm, partsTotal, TIGHT_FRACTION } from '../../jobs/hbm';
import { MODELS } from '../../jobs/models';
import { buildPipeline } from '../../jobs/pipeline';
import { derivePlatform, Platform } from '../../jobs/platform';
import { RECIPES } from '../../jobs/recipes';
import { Recipe } from '../../jobs/recipes/types';
import { tpuSlice } from '../../jobs/tpu';
import { testPlatform } from './fixtures';

const GIB = 2 ** 30;

/** A platform with exactly one slice shape. */
function platformOf(machineType: string, topology: string, count = 1): Platform {
  return derivePlatform({
    project: 'my-project',
    region: 'us-east5',
    zone: 'us-east5-b',
    clusterName: 'tpt',
    bucket: 'my-bucket',
    namespace: 'default',
    cpuMachineType: 'n4-highmem-64',
    tpuGroups: [{ slice: tpuSlice(machineType, topology), count, capacity: { type: 'reservation', reservation: 'res' } }],
  });
}

const retarget = (name: string, machineType: string, topology: string, extra: Record<string, unknown> = {}) => {
  const recipe = RECIPES[name];
  const r = { ...recipe, train: { ...recipe.train, args: { ...recipe.train.args, ...extra } } } as Recipe;
  return buildPipeline(r, platformOf(machineType, topology), { runId: 'r1', machineType, topology });
};

describe('the estimate, part by part', () => {
  test('dtype sizes', () => {
    expect([dtypeBytes('float32'), dtypeBytes('bfloat16'), dtypeBytes('int8'), dtypeBytes('complex64')]).toEqual([4, 2, 1, undefined]);
  });

  test('SFT: float32 weights + gradients + AdamW mu/nu = 16 bytes per parameter, sharded over every chip', () => {
    const e = estimateHbm({
      model: 'gemma4-31b',
      size: MODELS['gemma4-31b'],
      kind: 'sft',
      args: {},
      slice: tpuSlice('ct6e-standard-4t', '4x8'),
      devices: { trainer: 32, sampler: 0, split: false },
    });
    expect(partsTotal(e, 'chips')).toBeCloseTo((31e9 * 16) / GIB / 32, 6);
    expect(e.verdict).toBe('fits');
  });

  test('SFT in bfloat16 halves it', () => {
    const e = estimateHbm({
      model: 'gemma4-31b',
      size: MODELS['gemma4-31b'],
      kind: 'sft',
      args: { weight_dtype: 'bfloat16', mu_dtype: 'bfloat16' },
      slice: tpuSlice('ct6e-standard-8t', '2x4'),
      devices: { trainer: 8, sampler: 0, split: false },
    });
    expect(partsTotal(e, 'chips')).toBeCloseTo((31e9 * 8) / GIB / 8, 6);
  });

  test('RL trainer: actor + reference + gradients (bf16) + AdamW mu/nu in bf16, or ~0 with the adafactor patch', () => {
    const base = {
      model: 'qwen3-30b-a3b',
      size: MODELS['qwen3-30b-a3b'],
      kind: 'rl' as const,
      args: {},
      slice: tpuSlice('ct6e-standard-4t', '4x8'),
      devices: { trainer: 16, sampler: 16, split: true },
    };
    expect(partsTotal(estimateHbm(base), 'trainer')).toBeCloseTo((30.5e9 * 10) / GIB / 16, 6);
    expect(partsTotal(estimateHbm({ ...base, adafactor: true }), 'trainer')).toBeCloseTo((30.5e9 * 6.04) / GIB / 16, 6);
    // rl.grpo_beta=0 drops the reference copy.
    expect(partsTotal(estimateHbm({ ...base, args: { 'rl.grpo_beta': 0 } }), 'trainer')).toBeCloseTo((30.5e9 * 8) / GIB / 16, 6);
  });

  test('RL sampler: one weight copy per rollout replica (TP x EP chips) plus one sequence of KV cache', () => {
    const e = estimateHbm({
      model: 'qwen3-30b-a3b',
      size: MODELS['qwen3-30b-a3b'],
      kind: 'rl',
      args: { rollout_tensor_parallelism: 1, rollout_expert_parallelism: 4, max_target_length: 512, kv_cache_buffer: 256 },
      slice: tpuSlice('ct6e-standard-4t', '4x8'),
      devices: { trainer: 16, sampler: 16, split: true },
    });
    const kv = (2 * 48 * 4 * 128 * 2 * 768) / GIB / 4;
    expect(partsTotal(e, 'sampler')).toBeCloseTo((30.5e9 * 2) / GIB / 4 + kv, 6);
  });

  test('vLLM without room for one sequence is impossible; weights near hbm_utilization_vllm are tight', () => {
    const input = {
      model: 'qwen3-30b-a3b',
      size: MODELS['qwen3-30b-a3b'],
      kind: 'rl' as const,
      adafactor: true,
      slice: tpuSlice('ct6e-standard-4t', '4x8'),
      devices: { trainer: 16, sampler: 16, split: true },
    };
    // 14.2 GiB of weights per chip (TP1 x EP4) against 0.4 x 32 = 12.8 GiB.
    expect(estimateHbm({ ...input, args: { rollout_expert_parallelism: 4, hbm_utilization_vllm: 0.4 } }).verdict).toBe('impossible');
    // ... against 0.5 x 32 = 16 GiB: fits, but above TIGHT_FRACTION of vLLM's share.
    const tight = estimateHbm({ ...input, args: { rollout_expert_parallelism: 4, hbm_utilization_vllm: 0.5 } });
    expect(tight.verdict).toBe('tight');
    expect(14.2 / 16).toBeGreaterThan(TIGHT_FRACTION);
  });
});

describe('the tutorials and the cases the issue names', () => {
  test('the four tutorials fit their slices with no warning', () => {
    const platform = testPlatform();
    for (const recipe of Object.values(RECIPES)) {
      expect(buildPipeline(recipe, platform, { runId: 'r1' }).notices).toEqual([]);
    }
  });

  test('31B SFT on one v6e-8 fails, naming the model, the slice and what would fit', () => {
    expect(() => retarget('sft-gemma4', 'ct6e-standard-8t', '2x4')).toThrow(
      'sft-gemma4: gemma4-31b does not fit ct6e-standard-8t 2x4 (v6e-8-8t, 32 GiB HBM per chip): weights, gradients and AdamW state ' +
        'need 57.7 GiB per chip over 8 chips, a v6e chip has 32 GiB; it fits ct6e-standard-4t 4x8 (v6e-32) or larger, ' +
        'or set weight_dtype=bfloat16 (halves weights, gradients and AdamW state) (estimate: jobs/hbm.ts)',
    );
  });

  test('31B SFT on a v6e-16 (4x4) fits but is tight: a warning, not an error', () => {
    const p = retarget('sft-gemma4', 'ct6e-standard-4t', '4x4');
    expect(p.notices).toEqual([expect.stringMatching(/^sft-gemma4: gemma4-31b fits ct6e-standard-4t 4x4 \(v6e-16\) tightly: .*28\.9 GiB of 32 GiB/)]);
  });

  test('30B-A3B RL on a 4x4 fits: 8 trainer chips hold the adafactor state (21.4 GiB each), vLLM replicas are unchanged', () => {
    const p = retarget('rl-qwen3', 'ct6e-standard-4t', '4x4');
    expect(p.notices).toEqual([]);
    // ... but with AdamW instead of the adafactor patch the trainer needs 35.5 GiB per 32 GiB chip.
    const recipe = RECIPES['rl-qwen3'];
    const adamw = { ...recipe, train: { ...recipe.train, patches: { vllmReshardChunkSize: 4 } } } as Recipe;
    expect(() => buildPipeline(adamw, platformOf('ct6e-standard-4t', '4x4'), { runId: 'r1', topology: '4x4' })).toThrow(
      /qwen3-30b-a3b does not fit ct6e-standard-4t 4x4 \(v6e-16, 32 GiB HBM per chip\): the trainer's weights, reference copy, gradients and optimizer state need 35\.5 GiB per chip over 8 trainer chips.*it fits ct6e-standard-4t 4x8 \(v6e-32\) or larger, or enable the adafactor patch/,
    );
  });

  test('a model the size table does not know is not estimated, and says so', () => {
    const recipe = { ...RECIPES['rl-llama3'], model: { ...RECIPES['rl-llama3'].model, name: 'llama3.1-70b' } } as Recipe;
    const p = buildPipeline(recipe, testPlatform(), { runId: 'r1' });
    expect(p.notices).toEqual(["rl-llama3: no HBM estimate for model 'llama3.1-70b' (add its size to jobs/models.ts)"]);
  });

  test('every recipe model has a size row', () => {
    for (const recipe of Object.values(RECIPES)) expect(MODELS[recipe.model.name]).toBeDefined();
  });
});
