/**
 * The fit check against what fails on the chips (issue 25), over pipelines the config builds: multi-slice state per
 * slice as MaxText's mesh shards it, dot-product attention scores, the logits' gradients and FSDP's per-layer buffers,
 * XLA's usable HBM per generation; and advice that, applied back through config, is accepted. Sources: MaxText
 * maxtext-v0.2.4 `configs/base.yml` (mesh_axes, the dcn_ and ici_ defaults, logical_axis_rules), `configs/post_train/rl.yml`
 * (attention: dot_product), `utils/maxtext_utils.py` create_device_mesh, `layers/attention_op.py` apply_attention_dot.
 */
import { selectAndBuildPipelines } from '../../config/pipelines';
import { loadConfig } from '../../config/load';
import { HbmEstimate, HbmInput, materialisesScores, meshShards, trainerMesh } from '../../jobs/hbm';
import { estimateHbm } from '../../jobs/methods';
import { DCN_AXIS_KEYS, ICI_AXIS_KEYS, MESH_AXES, meshDefault } from '../../jobs/maxtext-defaults';
import { MODELS } from '../../jobs/models';
import { GENERATIONS, gkeVersionFloor, tpuSlice } from '../../jobs/tpu';
import { configFile } from '../util';

const GIB = 2 ** 30;
const part = (e: HbmEstimate, what: RegExp) => e.parts.filter((p) => what.test(p.what)).reduce((s, p) => s + p.gibPerChip, 0);

/** Pipelines from a config whose main slice is `topology` x `slices` and whose `pipelines.<name>` entry is `entry`. */
function fromConfig(name: string, entry: Record<string, unknown>, topology = '4x8', slices = 1) {
  const file = configFile((c) => {
    c.tpu.topology = topology;
    c.pipelines = { [name]: { runId: 'r1', enabled: true, ...entry } };
  });
  return selectAndBuildPipelines(loadConfig({ env: { PIPELINES: name, CLUSTER_NODEPOOL_COUNT: String(slices) }, file }));
}
function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
}

/** Every override an HBM message advises (`key=value (now ...)`, pairs as `a=x with b=y (now ...)`). */
function advisedOverrides(message: string): Array<Record<string, number>> {
  const out: Array<Record<string, number>> = [];
  for (const m of message.matchAll(/((?:[A-Za-z_.]+=[0-9.]+(?: with )?)+) \(now/g)) {
    out.push(Object.fromEntries([...m[1].matchAll(/([A-Za-z_.]+)=([0-9.]+)/g)].map((p) => [p[1], Number(p[2])])));
  }
  return out;
}
/**
 * `entry` with advised values applied as the config spells them: a typed setting (camelCase, `training.<name>`) under
 * `training`, a MaxText key (snake_case) under `overrides` (an override of a key a setting owns is refused).
 */
function applied(entry: Record<string, any>, advised: Record<string, number>): Record<string, unknown> {
  const isSetting = (k: string) => /^[a-z]+[A-Z]/.test(k);
  const pick = (setting: boolean) => Object.fromEntries(Object.entries(advised).filter(([k]) => isSetting(k) === setting));
  return { ...entry, training: { ...entry.training, ...pick(true) }, overrides: { ...entry.overrides, ...pick(false) } };
}
/** Every slice an HBM message advises (`train on <machine> <topology> (...)`, `or <machine> <topology> (...)`). */
function advisedSlices(message: string): Array<{ machineType: string; topology: string }> {
  return [...message.matchAll(/(?:train on|or) (ct6e-standard-\dt) (\d+x\d+) \(/g)].map((m) => ({ machineType: m[1], topology: m[2] }));
}

describe('multi-slice: every slice holds the state its mesh shards (dcn_data_parallelism -1, base.yml)', () => {
  test('the mesh: ICI axes over one slice, the DCN default making slices data-parallel replicas', () => {
    const mesh = trainerMesh({}, 32, 2);
    expect([mesh.fsdp, mesh.data]).toEqual([16, 2]);
    expect(meshShards(mesh).state).toBe(16);
    expect(meshShards(mesh).batch).toBe(32);
    // dcn_fsdp_parallelism = slices (dcn_data 1) shards the state over every chip of every slice.
    const fsdpAcross = trainerMesh({ dcn_fsdp_parallelism: 2, dcn_data_parallelism: 1 }, 32, 2);
    expect([fsdpAcross.fsdp, fsdpAcross.data, meshShards(fsdpAcross).state]).toEqual([32, 1, 32]);
    // One slice: no DCN axis, whatever dcn_* say; the ICI data axis holds replicas too.
    expect(meshShards(trainerMesh({ ici_data_parallelism: 2 }, 16)).state).toBe(8);
    expect(trainerMesh({ dcn_fsdp_parallelism: 4 }, 16, 1).fsdp).toBe(16);
  });

  test('Gemma4-31B SFT on 2 x v6e-16 is refused like one v6e-16 (the state is per slice), on 2 x v6e-32 accepted', () => {
    const two = errorOf(() => fromConfig('sft-gemma4', { topology: '4x4' }, '4x4', 2));
    expect(two).toMatch(
      /- sft-gemma4: gemma4-31b does not fit 2x ct6e-standard-4t 4x4 \(v6e-16, 31\.25 GiB usable HBM per chip\): weights, gradients and AdamW state \(28\.9 GiB, sharded 16 ways\) and activations \(10\.1 GiB\) need 39\.0 GiB per chip over 32 chips/,
    );
    expect(errorOf(() => fromConfig('sft-gemma4', { topology: '4x4' }, '4x4', 1))).toMatch(/\(28\.9 GiB, sharded 16 ways\)/);
    const { pipelines, notices } = fromConfig('sft-gemma4', {}, '4x8', 2);
    // No fit notice (the eval step is left out on this infra, which has no single-host slice: its own notice).
    expect([pipelines[0].slices, notices.filter((n) => !n.includes("eval step left out"))]).toEqual([2, []]);
  });

  test('RL on two slices: the ICI mesh covers the trainer devices of one slice, and so does the state', () => {
    // rl-qwen3 on 2 x v6e-16: 32 chips, 16 trainer devices (fraction 0.5), 8 per slice = tensor 2 x expert 4.
    const { pipelines, notices } = fromConfig('rl-qwen3', { topology: '4x4' }, '4x4', 2);
    expect([pipelines[0].slices, notices.filter((n) => !n.includes("eval step left out"))]).toEqual([2, []]);
    // ici_expert_parallelism 8 needs 16 per slice: refused, naming the per-slice count.
    expect(errorOf(() => fromConfig('rl-qwen3', { topology: '4x4', overrides: { ici_expert_parallelism: 8 } }, '4x4', 2))).toContain(
      'ici_tensor_parallelism x ici_expert_parallelism must divide the 8 trainer devices of each of the 2 slices (ici_fsdp_parallelism=-1 takes the rest), got 2x8=16; products that fit: 1, 2, 4, 8',
    );
  });
});

describe('attention: the kernel the config selects', () => {
  const qwen = (args: Record<string, unknown>): HbmEstimate =>
    estimateHbm({
      model: 'qwen3-30b-a3b',
      size: MODELS['qwen3-30b-a3b'],
      kind: 'rl',
      args: { ici_tensor_parallelism: 2, ici_expert_parallelism: 4, ici_fsdp_parallelism: -1, train_micro_batch_size: 8, batch_size: 8, 'rl.num_generations': 4, ...args } as HbmInput['args'],
      slice: tpuSlice('ct6e-standard-4t', '4x8'),
      devices: { trainer: 16, sampler: 16, split: true },
      adafactor: true,
    });

  test('dot_product (rl.yml) keeps one layer of [batch, heads, length, length] scores and exponentials; flash and splash do not', () => {
    // 32 sequences over 8 batch shards (fsdp 2 x expert 4), 32 heads over tensor 2: 4 x 16 x 8192 x 8192 x 2 bytes, twice.
    expect(part(qwen({ max_target_length: 8192 }), /^attention scores/)).toBeCloseTo((2 * 4 * 16 * 8192 * 8192 * 2) / GIB, 6);
    expect(part(qwen({ max_target_length: 8192, float32_logits: true }), /^attention scores/)).toBeCloseTo((2 * 4 * 16 * 8192 * 8192 * 4) / GIB, 6);
    expect(part(qwen({ max_target_length: 8192, attention: 'flash' }), /^attention scores/)).toBe(0);
    expect([materialisesScores('dot_product', 8192), materialisesScores('autoselected', 127), materialisesScores('autoselected', 128), materialisesScores('flash', 64)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    // SFT's base.yml default is autoselected: splash for training lengths.
    const sft = estimateHbm({ model: 'gemma4-31b', size: MODELS['gemma4-31b'], kind: 'sft', args: { per_device_batch_size: 1 }, slice: tpuSlice('ct6e-standard-4t', '4x8'), devices: { trainer: 32, sampler: 0, split: false } });
    expect(part(sft, /^attention scores/)).toBe(0);
  });

  test('rl-qwen3 at max_target_length=8192 is refused (was "tight"); each advised value, applied through config, is accepted', () => {
    // max_target_length 8192 = maxPromptLength 256 + maxCompletionLength 7936.
    const long = { training: { maxCompletionLength: 7936 } };
    const message = errorOf(() => fromConfig('rl-qwen3', long));
    expect(message).toContain('and activations (42.5 GiB) need 53.2 GiB per chip over 16 trainer chips');
    const overrides = advisedOverrides(message);
    // max_target_length 3584 advised as the typed setting that owns it: 3584 - 256.
    expect(overrides).toEqual([{ maxCompletionLength: 3328 }, { train_micro_batch_size: 2 }]);
    for (const o of overrides) expect(() => fromConfig('rl-qwen3', applied(long, o))).not.toThrow();
    const slices = advisedSlices(message);
    expect(slices).toEqual([
      { machineType: 'ct6e-standard-4t', topology: '8x8' },
      { machineType: 'ct6e-standard-4t', topology: '8x16' },
    ]);
    for (const s of slices) expect(() => fromConfig('rl-qwen3', { ...s, ...long }, s.topology)).not.toThrow();
  });
});

describe('logits, the loss backward and FSDP transients', () => {
  test("one layer's weights gathered and its gradient before the reduce-scatter, over the axes FSDP does not gather", () => {
    const sft = (args: Record<string, unknown>, chips = 32) =>
      estimateHbm({ model: 'gemma4-31b', size: MODELS['gemma4-31b'], kind: 'sft', args: args as HbmInput['args'], slice: tpuSlice('ct6e-standard-4t', '4x8'), devices: { trainer: chips, sampler: 0, split: false } });
    const layer = 31e9 / 60;
    expect(part(sft({ per_device_batch_size: 1 }), /gathered by FSDP/)).toBeCloseTo((2 * layer * 4) / GIB, 6);
    expect(part(sft({ per_device_batch_size: 1, ici_tensor_parallelism: 4 }), /gathered by FSDP/)).toBeCloseTo((2 * layer * 4) / 4 / GIB, 6);
    // No FSDP axis left (tensor parallelism over every chip): nothing gathered.
    expect(part(sft({ per_device_batch_size: 1, ici_fsdp_parallelism: 1, ici_tensor_parallelism: 32 }), /gathered by FSDP/)).toBe(0);
  });

  test('usable HBM is XLA\'s limit per generation, from the TPU table with its source; the GKE floor of tpu7x', () => {
    const usable = Object.fromEntries(Object.entries(GENERATIONS).map(([g, row]) => [g, row.usableHbmGibPerChip]));
    expect(usable).toEqual({ v5e: 15.75, v5p: 95.74, v6e: 31.25, tpu7x: 189.5 });
    for (const row of Object.values(GENERATIONS)) expect(row.usableHbmSource).toMatch(/XLA:TPU out-of-memory reports/);
    expect(tpuSlice('ct6e-standard-4t', '4x8')).toMatchObject({ usableHbmGibPerChip: 31.25, hbmGibPerChip: 32 });
    expect(gkeVersionFloor('tpu7x')).toEqual({ version: '1.34.0-gke.2201000', source: expect.stringContaining('Cluster Toolkit v1.95.0') });
    expect(gkeVersionFloor('v6e')).toBeUndefined();
  });
});

describe('advice works', () => {
  test('rl-gemma4 on a v6e-16 is never advised a trainer fraction the mesh does not divide; what it is advised is accepted', () => {
    // 16 chips, tensor 2 x expert 4 = 8: 0.75 would give 12 trainer chips (not a multiple of 8).
    // max_prefill_predict_length 256: completions of 3840 and 7936 tokens make max_target_length 4096 and 8192.
    const entries: Array<Record<string, any>> = [
      { training: { promptsPerStep: 16 }, overrides: { train_micro_batch_size: 16 } },
      { training: { maxCompletionLength: 3840 } },
      { training: { maxCompletionLength: 7936 } },
    ];
    for (const entry of entries) {
      let text: string;
      try {
        text = fromConfig('rl-gemma4', { topology: '4x4', ...entry }, '4x4').notices.join('\n');
      } catch (err) {
        text = (err as Error).message;
      }
      expect(text).toMatch(/gemma4-26b (fits|does not fit)/);
      expect(text).not.toMatch(/trainer_devices_fraction/);
      for (const o of advisedOverrides(text)) {
        expect(o).not.toEqual(expect.objectContaining({ ...entry.training, ...entry.overrides }));
        expect(() => fromConfig('rl-gemma4', { topology: '4x4', ...applied(entry, o) }, '4x4')).not.toThrow();
      }
      for (const s of advisedSlices(text)) expect(() => fromConfig('rl-gemma4', { ...s, ...entry }, s.topology)).not.toThrow();
    }
  });

  test('a trainer fraction is advised where the mesh divides it, and it is accepted', () => {
    // rl-qwen3 on a v6e-32 at 5120 tokens: 0.75 x 32 = 24 trainer chips (3 x 8), 0.25 x 32 = 8 sampler chips.
    const long = { training: { maxCompletionLength: 5120 - 256 } };
    const message = errorOf(() => fromConfig('rl-qwen3', long));
    const overrides = advisedOverrides(message);
    expect(overrides).toEqual([{ maxCompletionLength: 3328 }, { train_micro_batch_size: 4 }, { trainer_devices_fraction: 0.75, sampler_devices_fraction: 0.25 }]);
    for (const o of overrides) expect(() => fromConfig('rl-qwen3', applied(long, o))).not.toThrow();
    for (const s of advisedSlices(message)) expect(() => fromConfig('rl-qwen3', { ...s, ...long }, s.topology)).not.toThrow();
  });
});

describe('one list of mesh axes (base.yml mesh_axes)', () => {
  test('ICI and DCN keys of every mesh axis, stage read from *_pipeline_parallelism; the -1 defaults', () => {
    expect(MESH_AXES.map((a) => a.axis)).toEqual([
      'diloco', 'data', 'stage', 'fsdp', 'fsdp_transpose', 'context', 'context_usp_ulysses', 'context_autoregressive', 'tensor', 'tensor_sequence', 'expert', 'autoregressive',
    ]);
    expect(ICI_AXIS_KEYS).toContain('ici_context_autoregressive_parallelism');
    expect(ICI_AXIS_KEYS).toContain('ici_pipeline_parallelism');
    expect(ICI_AXIS_KEYS).not.toContain('ici_sequence_parallelism');
    expect(DCN_AXIS_KEYS[1]).toBe('dcn_data_parallelism');
    expect([meshDefault('ici_fsdp_parallelism'), meshDefault('dcn_data_parallelism'), meshDefault('ici_data_parallelism'), meshDefault('dcn_fsdp_parallelism')]).toEqual([-1, -1, 1, 1]);
  });
});

describe('the estimate in process: every branch of jobs/hbm.ts', () => {
  const v6e32 = tpuSlice('ct6e-standard-4t', '4x8');
  const base = (kind: 'rl' | 'sft', args: Record<string, unknown>, devices: HbmInput['devices'], model = kind === 'rl' ? 'qwen3-30b-a3b' : 'gemma4-31b', slice = v6e32) =>
    estimateHbm({ model, size: MODELS[model], kind, args: args as HbmInput['args'], slice, devices });
  const split = { trainer: 16, sampler: 16, split: true };

  test('partsTotal sums one side; the verdict names the sides', () => {
    const { partsTotal } = require('../../jobs/hbm');
    const e = base('rl', {}, split);
    expect(partsTotal(e, 'trainer')).toBeCloseTo(e.parts.filter((p) => p.on === 'trainer').reduce((s, p) => s + p.gibPerChip, 0), 9);
    expect(partsTotal(e, 'sampler')).toBeGreaterThan(0);
    expect(partsTotal(e, 'chips')).toBe(0);
  });

  test('LoRA given flat, as 1, or as a lora object; dtypes the table does not know fall back to the default bytes', () => {
    const state = (args: Record<string, unknown>) => part(base('sft', { per_device_batch_size: 1, ...args }, { trainer: 32, sampler: 0, split: false }), /^weights|^gradients$|^AdamW/);
    const full = state({});
    expect(state({ 'lora.enable_lora': 1 })).toBeCloseTo(full / 4, 9);
    expect(state({ lora: { enable_lora: true } })).toBeCloseTo(full / 4, 9);
    expect(state({ 'lora.enable_lora': 0 })).toBeCloseTo(full, 9);
    expect(state({ weight_dtype: 'complex64' })).toBeCloseTo(full, 9);
    expect(state({ mu_dtype: 'bfloat16' })).toBeCloseTo((full * 14) / 16, 9);
    const rl = (args: Record<string, unknown>) => part(base('rl', args, split), /^actor|^reference/);
    expect(rl({ weight_dtype: 'complex64' })).toBeCloseTo(rl({}), 9);
    expect(rl({ weight_dtype: 'float32' })).toBeCloseTo(2 * rl({}), 9);
  });

  test('vLLM: the rollout replica fills a -1 axis, its weights follow maxtext_config.weight_dtype, the KV cache kv_cache_buffer', () => {
    const sampler = (args: Record<string, unknown>) => base('rl', args, split);
    const vocab = 151936 * 2048 * 2;
    // tensor -1 over 16 sampler chips with data 1: one 16-chip replica.
    expect(part(sampler({ rollout_tensor_parallelism: -1, rollout_data_parallelism: 1, rollout_expert_parallelism: 1 }), /^vLLM weights/)).toBeCloseTo(
      ((30.5e9 - vocab) * 2) / GIB / 16 + (vocab * 2) / GIB,
      6,
    );
    expect(part(sampler({ vllm_additional_config: { maxtext_config: { weight_dtype: 'float32' } } }), /^vLLM weights/)).toBeCloseTo(
      2 * part(sampler({}), /^vLLM weights/),
      6,
    );
    expect(part(sampler({ kv_cache_buffer: 768, max_target_length: 256 }), /^KV cache/)).toBeCloseTo((2 * 48 * 4 * 128 * 2 * 1024) / GIB, 6);
  });

  test('remat: full keeps every layer input; custom with decoder_layer_input device keeps them too; another policy counts as full', () => {
    const inputs = (args: Record<string, unknown>) => part(base('rl', { max_target_length: 512, ...args }, split), /^saved layer inputs/);
    const full = inputs({ remat_policy: 'full' });
    expect(full).toBeGreaterThan(0);
    expect(inputs({})).toBe(0);
    expect(inputs({ remat_policy: 'custom', decoder_layer_input: 'device' })).toBeCloseTo(full, 9);
    expect(inputs({ remat_policy: 'minimal' })).toBeCloseTo(full, 9);
    // RL refuses vocabulary tiling: num_vocab_tiling does not shrink RL logits.
    const logits = (args: Record<string, unknown>) => part(base('rl', { max_target_length: 512, ...args }, split), /^logits/);
    expect(logits({ num_vocab_tiling: 4 })).toBeCloseTo(logits({}), 9);
    // Context parallelism splits the length.
    expect(logits({ ici_context_parallelism: 2, ici_fsdp_parallelism: 1, ici_tensor_parallelism: 2, ici_expert_parallelism: 4 })).toBeCloseTo(
      // rl.yml's batch_size 1 x 2 generations = 2 sequences over 4 batch shards (expert): one each.
      (1 * 256 * Math.ceil(151936 / 2) * 10) / GIB,
      6,
    );
  });

  test('tight and impossible, with their messages, on each side', () => {
    // SFT tight: 31B on 32 chips at per_device_batch_size 2 is above 85% of 31.25 GiB but fits.
    const sftTight = base('sft', { per_device_batch_size: 2 }, { trainer: 32, sampler: 0, split: false });
    expect([sftTight.verdict, sftTight.sides]).toEqual(['tight', ['trainer']]);
    expect(sftTight.reasons[0]).toMatch(/^weights, gradients and AdamW state \(14\.4 GiB, sharded 32 ways\) and activations \(16\.3 GiB\) take 30\.7 GiB of 31\.25 GiB usable per chip$/);
    const sftFits = base('sft', { per_device_batch_size: 1 }, { trainer: 32, sampler: 0, split: false });
    expect([sftFits.verdict, sftFits.reasons, sftFits.sides]).toEqual(['fits', [], []]);
    const lora = base('sft', { per_device_batch_size: 8, 'lora.enable_lora': true }, { trainer: 32, sampler: 0, split: false });
    expect(lora.reasons[0]).toMatch(/^frozen weights \(lora\.enable_lora\)/);
    // RL split, trainer tight: the reason says so; the sampler side can be tight on its own.
    const trainerTight = estimateHbm({
      model: 'qwen3-30b-a3b',
      size: MODELS['qwen3-30b-a3b'],
      kind: 'rl',
      args: { max_target_length: 4096, ici_tensor_parallelism: 2, ici_expert_parallelism: 4, train_micro_batch_size: 8, batch_size: 8, 'rl.num_generations': 4, rollout_expert_parallelism: 4, hbm_utilization_vllm: 0.55 },
      adafactor: true,
      slice: v6e32,
      devices: split,
    });
    expect(trainerTight.verdict).toBe('tight');
    expect(trainerTight.sides).toContain('trainer');
    expect(trainerTight.reasons.join()).toMatch(/the trainer's state and activations take \d+\.\d GiB of 31\.25 GiB usable per trainer chip/);
    const shared = (util: number, args: Record<string, unknown> = {}) =>
      base('rl', { hbm_utilization_vllm: util, rollout_data_parallelism: 1, rollout_tensor_parallelism: -1, ...args }, { trainer: 8, sampler: 8, split: false }, 'llama3.1-8b-Instruct', tpuSlice('ct6e-standard-8t', '2x4'));
    expect(shared(0.72).reasons).toEqual(['gradients, optimizer state and activations take 7.9 GiB of the 8.8 GiB hbm_utilization_vllm=0.72 leaves per chip']);
    const noRoom = shared(0.2);
    expect([noRoom.verdict, noRoom.sides]).toEqual(['impossible', ['sampler']]);
    expect(noRoom.reasons[0]).toMatch(/^trainer and vLLM share the 8 chips: the trainer's two weight copies, vLLM's weights and one sequence's KV cache need 7\.3 GiB per chip when vLLM starts, hbm_utilization_vllm=0\.2 allows 6\.3 GiB of 31\.25 GiB usable$/);
    // Room for one sequence but not the rollout batch: the sampler is tight.
    const few = shared(0.26, { batch_size: 64, 'rl.num_generations': 8, max_target_length: 8192, kv_cache_buffer: 256 });
    expect(few.reasons.join()).toMatch(/vLLM's share leaves room for \d+ of the 512 sequences of 8448 tokens/);
  });
});
