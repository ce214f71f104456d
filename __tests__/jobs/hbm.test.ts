/**
 * The HBM estimate (jobs/hbm.ts) part by part, and the fit rules built on it (jobs/validate.ts) over the pipelines
 * the config builds: the tutorials and what is known to fit pass; what runs out of memory fails, each message naming
 * the side that does not fit and overrides (or slices) that would, with values that do fit when applied.
 */
import { selectAndBuildPipelines } from '../../config/pipelines';
import { loadConfig } from '../../config/load';
import { dtypeBytes, HbmEstimate, HbmInput, logitsBytes, TIGHT_FRACTION } from '../../jobs/hbm';
import { estimateHbm } from '../../jobs/methods';
import { MODELS } from '../../jobs/models';
import { buildPipeline, Pipeline } from '../../jobs/pipeline';
import { derivePlatform, Platform } from '../../jobs/platform';
import { RECIPES } from '../../jobs/recipes';
import { Recipe } from '../../jobs/recipes/types';
import { tpuSlice } from '../../jobs/tpu';
import { maxTextCalls } from '../models/maxtext-script';
import { podSets } from '../models/synthesized';
import { configFile, exampleConfig, WITH_SINGLE_HOST } from '../util';

const GIB = 2 ** 30;
const part = (e: HbmEstimate, what: RegExp) => e.parts.filter((p) => what.test(p.what)).reduce((s, p) => s + p.gibPerChip, 0);
const v6e32 = tpuSlice('ct6e-standard-4t', '4x8');

/** A platform with exactly one slice shape. */
function platformOf(machineType: string, topology: string): Platform {
  return derivePlatform({
    project: 'my-project',
    region: 'us-east5',
    zone: 'us-east5-b',
    clusterName: 'tpt',
    bucket: 'my-bucket',
    namespace: 'default',
    cpuMachineType: 'n4-highmem-64',
    tpuGroups: [{ slice: tpuSlice(machineType, topology), count: 1, capacity: { type: 'reservation', reservation: 'res' } }],
  });
}

/**
 * Builds the pipelines from a config whose main slice is `topology` (ct6e-standard-4t) and whose
 * `pipelines.<name>` entry carries `entry` (overrides, machineType/topology): what a user's config does.
 */
function fromConfig(name: string, entry: Record<string, unknown>, topology = '4x8', env: Record<string, string> = {}) {
  const file = configFile((c) => {
    c.tpu.topology = topology;
    // No single-host slice here: the eval step is off so its left-out notice does not mix with the HBM notices.
    c.pipelines = { [name]: { runId: 'r1', enabled: true, eval: { enabled: false }, ...entry } };
  });
  return selectAndBuildPipelines(loadConfig({ env: { PIPELINES: name, ...env }, file }));
}
function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
}
/** A MaxText key as the synthesized train step passes it (the train_rl / train_sft call in its container script). */
function trainArg(p: Pipeline, key: string): string | undefined {
  const train = p.steps.find((s) => s.name === 'train')!;
  const scripts = podSets(train.manifest as any).flatMap((ps) => (ps.pod.containers ?? []).map((c: any) => c.command?.[2]).filter(Boolean));
  const calls = scripts.flatMap((script: string) => maxTextCalls(script)).filter((c) => /\.train_(rl|sft)$/.test(c.module));
  expect(calls).toHaveLength(1);
  return calls[0].args[key];
}

/** The value an HBM error advises for `key` (`key=value (now ...)`). */
/** A build's notices but the one any entry with typed settings gets (no hfRevision pinned: jobs/spec.ts applyModel). */
const notices = (built: { notices: readonly string[] }) => built.notices.filter((n) => !/: no hfRevision: /.test(n));
function advised(message: string, key: string): number {
  const m = new RegExp(`\\b${key.replace('.', '\\.')}=([0-9.]+) \\(now`).exec(message);
  if (!m) throw new Error(`no advice for ${key} in: ${message}`);
  return Number(m[1]);
}

describe('the estimate, part by part', () => {
  const sft = (args: Record<string, unknown>, slice = v6e32, chips = 32): HbmEstimate =>
    estimateHbm({ model: 'gemma4-31b', size: MODELS['gemma4-31b'], kind: 'sft', args: args as HbmInput['args'], slice, devices: { trainer: chips, sampler: 0, split: false } });

  test('dtype sizes', () => {
    expect([dtypeBytes('float32'), dtypeBytes('bfloat16'), dtypeBytes('int8'), dtypeBytes('complex64')]).toEqual([4, 2, 1, undefined]);
  });

  test('SFT state: float32 weights + gradients + AdamW mu/nu = 16 bytes per parameter over every chip; bfloat16 halves it', () => {
    expect(part(sft({ per_device_batch_size: 1 }), /^weights|^gradients$|^AdamW/)).toBeCloseTo((31e9 * 16) / GIB / 32, 6);
    expect(part(sft({ per_device_batch_size: 1, weight_dtype: 'bfloat16', mu_dtype: 'bfloat16' }), /^weights|^gradients$|^AdamW/)).toBeCloseTo((31e9 * 8) / GIB / 32, 6);
  });

  test('SFT logits: per_device_batch_size x max_target_length x vocab x 10 bytes (float32 logits, their float32 and bfloat16 gradients) per chip', () => {
    // Gemma 4: vocab_size 262144 (configs/models/gemma4-31b.yml); max_target_length 2048 (base.yml).
    expect(part(sft({ per_device_batch_size: 8 }), /^logits/)).toBeCloseTo((8 * 2048 * 262144 * 10) / GIB, 6);
    // The same per chip on a larger slice: per_device_batch_size is per chip.
    expect(part(sft({ per_device_batch_size: 8 }, tpuSlice('ct6e-standard-4t', '8x8'), 64), /^logits/)).toBeCloseTo((8 * 2048 * 262144 * 10) / GIB, 6);
    // num_vocab_tiling computes them in chunks along batch x sequence.
    expect(part(sft({ per_device_batch_size: 8, num_vocab_tiling: 4 }), /^logits/)).toBeCloseTo((2 * 2048 * 262144 * 10) / GIB, 6);
    // logits_dot_in_fp32: the matmul is already float32: the logits and one float32 gradient, 8 bytes.
    expect(part(sft({ per_device_batch_size: 1, logits_dot_in_fp32: true }), /^logits/)).toBeCloseTo((2048 * 262144 * 8) / GIB, 6);
    // cast_logits_to_fp32 off: bfloat16 logits and their bfloat16 gradient, 4 bytes.
    expect(part(sft({ per_device_batch_size: 1, cast_logits_to_fp32: false }), /^logits/)).toBeCloseTo((2048 * 262144 * 4) / GIB, 6);
    expect([logitsBytes({}), logitsBytes({ dtype: 'float32' }), logitsBytes({ logits_dot_in_fp32: true }), logitsBytes({ cast_logits_to_fp32: false })]).toEqual([10, 8, 8, 4]);
  });

  test('SFT saved activations: remat_policy=full keeps each layer input (layers x tokens x hidden, bfloat16)', () => {
    expect(part(sft({ per_device_batch_size: 2 }), /saved layer inputs \(remat_policy=full\)/)).toBeCloseTo((60 * 2 * 2048 * 5376 * 2) / GIB, 6);
  });

  test('SFT with lora.enable_lora: the frozen base needs no gradients or optimizer state', () => {
    const e = sft({ per_device_batch_size: 1, 'lora.enable_lora': true });
    expect(part(e, /^gradients$|^AdamW/)).toBe(0);
    expect(part(e, /^weights/)).toBeCloseTo((31e9 * 4) / GIB / 32, 6);
  });

  const rl = (args: Record<string, unknown>, extra: Partial<HbmInput> = {}): HbmEstimate =>
    estimateHbm({
      model: 'qwen3-30b-a3b',
      size: MODELS['qwen3-30b-a3b'],
      kind: 'rl',
      args: args as HbmInput['args'],
      slice: v6e32,
      devices: { trainer: 16, sampler: 16, split: true },
      ...extra,
    });

  test('RL trainer: actor + reference (loaded even with rl.grpo_beta=0) + gradients + AdamW mu/nu in bf16, or ~0 optimizer with adafactor', () => {
    const state = /^actor weights|^reference|^gradients/;
    expect(part(rl({}), state)).toBeCloseTo((30.5e9 * 10) / GIB / 16, 6);
    expect(part(rl({}, { adafactor: true }), state)).toBeCloseTo((30.5e9 * 6.04) / GIB / 16, 6);
    expect(part(rl({ 'rl.grpo_beta': 0 }), state)).toBeCloseTo((30.5e9 * 10) / GIB / 16, 6);
  });

  test('RL logits: train_micro_batch_size x num_generations sequences over the batch shards, at least one per shard, vocab over tensor', () => {
    // 8 x 4 = 32 sequences; 16 trainer chips = tensor 2 x expert 4 x fsdp 2: 8 batch shards -> 4 sequences each.
    const mesh = { ici_tensor_parallelism: 2, ici_expert_parallelism: 4, ici_fsdp_parallelism: -1, remat_policy: 'full' };
    const args = { ...mesh, batch_size: 8, train_micro_batch_size: 8, 'rl.num_generations': 4, max_target_length: 512 };
    expect(part(rl(args), /^logits/)).toBeCloseTo((4 * 512 * (151936 / 2) * 10) / GIB, 6);
    expect(part(rl(args), /saved layer inputs/)).toBeCloseTo((48 * 4 * 512 * (2048 / 2) * 2) / GIB, 6);
    // 1 x 4 = 4 sequences over 8 shards: one each, not half of one.
    expect(part(rl({ ...args, train_micro_batch_size: 1 }), /^logits/)).toBeCloseTo((1 * 512 * (151936 / 2) * 10) / GIB, 6);
    // rl.yml's remat_policy 'custom' offloads decoder_layer_input: nothing saved on the chip.
    expect(part(rl({ ...args, remat_policy: undefined }), /saved layer inputs/)).toBe(0);
  });

  test('RL sampler: one weight copy per rollout replica, the vocabulary matrices whole on every chip, plus one sequence of KV cache', () => {
    const e = rl({ rollout_tensor_parallelism: 1, rollout_expert_parallelism: 4, max_target_length: 512, kv_cache_buffer: 256 });
    const vocab = 151936 * 2048 * 2; // untied: embedding + output projection (configs/inference/vllm.yml: vocab, embed_vocab -> [])
    const kv = (2 * 48 * 4 * 128 * 2 * 768) / GIB / 4;
    expect(part(e, /^vLLM weights/)).toBeCloseTo(((30.5e9 - vocab) * 2) / GIB / 4 + (vocab * 2) / GIB, 6);
    expect(part(e, /^KV cache/)).toBeCloseTo(kv, 6);
  });

  test('vLLM without room for one sequence is impossible (the sampler side); without room for the rollout batch it is tight', () => {
    const args = { rollout_expert_parallelism: 4, batch_size: 8, 'rl.num_generations': 4 };
    const none = rl({ ...args, hbm_utilization_vllm: 0.4 }, { adafactor: true });
    expect([none.verdict, none.sides]).toEqual(['impossible', ['sampler']]);
    // 15.1 GiB of weights against 0.55 x 31.25 = 17.2 GiB usable: room for 2 of the 8 x 4 / 4 replicas = 8 sequences of
    // 33024 tokens (0.76 GiB each).
    const few = rl({ ...args, hbm_utilization_vllm: 0.55, max_target_length: 32768 }, { adafactor: true });
    expect(few.reasons.join()).toMatch(/room for 2 of the 8 sequences of 33024 tokens per replica/);
  });

  test('shared chips: gradients, optimizer state and activations over what hbm_utilization_vllm leaves are impossible (the trainer side)', () => {
    const llama = (util: number) =>
      estimateHbm({
        model: 'llama3.1-8b-Instruct',
        size: MODELS['llama3.1-8b-Instruct'],
        kind: 'rl',
        args: { hbm_utilization_vllm: util, rollout_data_parallelism: 1, rollout_tensor_parallelism: -1 },
        slice: tpuSlice('ct6e-standard-8t', '2x4'),
        devices: { trainer: 8, sampler: 8, split: false },
      });
    // Gradients + AdamW in bfloat16: 8.03e9 x 6 bytes / 8 chips = 5.6 GiB, against (1 - 0.9) x 31.25 = 3.1 GiB.
    expect([llama(0.9).verdict, llama(0.9).sides]).toEqual(['impossible', ['trainer']]);
    // With the logits' gradients and FSDP's per-layer buffers, 7.9 GiB of the 8.75 GiB that 0.72 leaves: tight.
    expect([llama(0.72).verdict, llama(0.72).sides]).toEqual(['tight', ['trainer']]);
    expect(llama(0.65).verdict).toBe('fits');
    expect(TIGHT_FRACTION).toBe(0.85);
  });
});

describe('accepted: the tutorials and what is known to fit', () => {
  test('the four tutorials as the example config builds them are accepted; only rl-llama3 on one v6e-8 host is tight, and says what gives room', () => {
    const { pipelines, notices } = selectAndBuildPipelines(exampleConfig(WITH_SINGLE_HOST));
    expect(pipelines.map((p) => p.name).sort()).toEqual(Object.keys(RECIPES).sort());
    // Sharing its 8 chips with vLLM (0.72 of each), its gradients, AdamW state, the logits' gradients and FSDP's
    // per-layer buffers take 7.9 of the 8.75 GiB left: above TIGHT_FRACTION, a note, not an error.
    expect(notices.filter((n) => /HBM|fits .* tightly|does not fit/.test(n))).toEqual([
      expect.stringMatching(
        /^rl-llama3: llama3\.1-8b-Instruct fits ct6e-standard-8t 2x4 \(v6e-8-8t\) tightly: gradients, optimizer state and activations take 7\.9 GiB of the 8\.8 GiB hbm_utilization_vllm=0\.72 leaves per chip; an out-of-memory error at start-up is possible \(estimate: jobs\/hbm\.ts\)$/,
      ),
    ]);
    // No room is advised: rl-llama3 passes no hbm_utilization_vllm, and on a v6e-16 (four 4-chip hosts) other rules
    // fail (its tpuVmEnv describes one VM, chips_per_vm 8), so no larger slice is named.
    const onV6e16 = errorOf(() => fromConfig('rl-llama3', { machineType: 'ct6e-standard-4t', topology: '4x4' }, '4x4'));
    expect(onV6e16).toMatch(/tpuVmEnv is only valid on a single-VM slice/);
  });

  test('Gemma 4 26B RL (rl-gemma4) retargeted to a v6e-16 fits', () => {
    const { pipelines, notices } = fromConfig('rl-gemma4', { topology: '4x4' }, '4x4');
    expect(pipelines.map((p) => p.slice.acceleratorType)).toEqual(['v6e-16']);
    expect(notices).toEqual([]);
  });

  test('Qwen3-30B-A3B RL with the adafactor patch fits a v6e-16; with AdamW it does not, and no config key enables the patch', () => {
    expect(fromConfig('rl-qwen3', { topology: '4x4' }, '4x4').notices).toEqual([]);
    const recipe = RECIPES['rl-qwen3'];
    const adamw = { ...recipe, train: { ...recipe.train, patches: { vllmReshardChunkSize: 4 } } } as Recipe;
    const message = errorOf(() => buildPipeline(adamw, platformOf('ct6e-standard-4t', '4x4'), { runId: 'r1', topology: '4x4' }));
    expect(message).toMatch(/the trainer's weights, reference copy, gradients and optimizer state \(35\.5 GiB\) and activations \(3\.4 GiB\) need 38\.9 GiB per chip over 8 trainer chips \(state sharded 8 ways\), a v6e chip has 31\.25 GiB usable/);
    expect(message).toMatch(/train on ct6e-standard-4t 4x8 \(v6e-32\) or larger/);
    expect(message).not.toMatch(/patches|adafactor|weight_dtype/);
  });

  test('Llama 3.1 8B SFT on a v6e-8 fits (the SFT recipe with the Llama model: there is no Llama SFT recipe)', () => {
    const llama = { ...RECIPES['sft-gemma4'], model: { name: 'llama3.1-8b-Instruct', hfRepo: 'meta-llama/Llama-3.1-8B-Instruct' } } as Recipe;
    const p = buildPipeline(llama, platformOf('ct6e-standard-8t', '2x4'), { runId: 'r1', machineType: 'ct6e-standard-8t', topology: '2x4' });
    expect(p.notices).toEqual([]);
  });
});

describe('refused: what runs out of memory, with advice that can be followed', () => {
  test('sft-gemma4 per_device_batch_size 8 on a v6e-32: logits and activations; lower per_device_batch_size to a value that fits', () => {
    const message = errorOf(() => fromConfig('sft-gemma4', { training: { perDeviceBatch: 8 } }));
    expect(message).toMatch(/sft-gemma4 \(.*pipelines\.sft-gemma4\.training\.perDeviceBatch\): gemma4-31b does not fit ct6e-standard-4t 4x8/);
    expect(message).toMatch(/weights, gradients and AdamW state \(14\.4 GiB, sharded 32 ways\) and activations \(53\.7 GiB\) need 68\.1 GiB per chip over 32 chips, a v6e chip has 31\.25 GiB usable/);
    // The typed setting that owns per_device_batch_size (an override of it is refused).
    expect(message).toMatch(/set .*pipelines\.sft-gemma4\.training perDeviceBatch=1 \(now 8\)/);
    // per_device_batch_size is per chip: no larger slice helps, so none is named; weight_dtype reaches only the export.
    expect(message).not.toMatch(/train on|weight_dtype/);
    const value = advised(message, 'perDeviceBatch');
    expect(value).toBeLessThan(8);
    const followed = fromConfig('sft-gemma4', { training: { perDeviceBatch: value } });
    expect(notices(followed)).toEqual([]);
    expect(trainArg(followed.pipelines[0], 'per_device_batch_size')).toBe(String(value));
  });

  test('rl-gemma4 max_target_length 32768: trainer logits and attention scores; lower max_target_length (no slice of one generation fits)', () => {
    // max_target_length 32768 = maxPromptLength 256 + maxCompletionLength 32512.
    const message = errorOf(() => fromConfig('rl-gemma4', { training: { maxCompletionLength: 32512 } }));
    expect(message).toMatch(/and activations \(75\.0 GiB\) need 83\.8 GiB per chip over 16 trainer chips/);
    // max_target_length 10496, advised as the setting that owns it: 10496 - 256.
    expect(message).toMatch(/training maxCompletionLength=10240 \(now 32512\)/);
    expect(message).not.toMatch(/train on/);
    // One prompt per micro-batch would still put a whole sequence on every chip: not advised.
    expect(message).not.toMatch(/train_micro_batch_size|hbm_utilization_vllm|patches/);
    const value = advised(message, 'maxCompletionLength');
    expect(value).toBeLessThan(32512);
    const followed = fromConfig('rl-gemma4', { training: { maxCompletionLength: value } });
    expect(notices(followed)).toEqual([]);
    expect(trainArg(followed.pipelines[0], 'max_target_length')).toBe(String(value + 256));
  });

  test('rl-qwen3 max_target_length 32768: lower train_micro_batch_size or max_target_length, each to a value that fits', () => {
    const message = errorOf(() => fromConfig('rl-qwen3', { training: { maxCompletionLength: 32512 } }));
    expect(message).toMatch(/qwen3-30b-a3b does not fit .* activations \(361\.0 GiB\)/);
    // One prompt per micro-batch still leaves 4 sequences of 32768 tokens of scores per chip: not advised.
    expect(message).not.toMatch(/train_micro_batch_size=/);
    const value = advised(message, 'maxCompletionLength');
    expect(value).toBe(3584 - 256);
    const followed = fromConfig('rl-qwen3', { training: { maxCompletionLength: value } });
    expect(trainArg(followed.pipelines[0], 'max_target_length')).toBe('3584');
    expect(notices(followed)).toEqual([]);
  });

  test("vLLM's share too small for its weights: raise hbm_utilization_vllm (not lower), or a larger rollout replica", () => {
    const message = errorOf(() => fromConfig('rl-qwen3', { overrides: { hbm_utilization_vllm: 0.4 } }));
    expect(message).toMatch(/vLLM's weights and one sequence's KV cache need 15\.1 GiB per sampler chip, hbm_utilization_vllm=0\.4 allows 12\.5 GiB of 31\.25 GiB usable/);
    expect(message).toMatch(/hbm_utilization_vllm=0\.5 \(now 0\.4\), or rollout_tensor_parallelism=2 \(now 1\), or rollout_expert_parallelism=8 \(now 4\)/);
    expect(message).not.toMatch(/trainer_devices_fraction|max_target_length/);
    const followed = fromConfig('rl-qwen3', { overrides: { hbm_utilization_vllm: advised(message, 'hbm_utilization_vllm') } });
    expect(followed.notices).toEqual([]);
    expect(trainArg(followed.pipelines[0], 'hbm_utilization_vllm')).toBe('0.5');
    expect(fromConfig('rl-qwen3', { overrides: { hbm_utilization_vllm: 0.4, rollout_tensor_parallelism: 2 } }).notices).toEqual([]);
  });

  test('shared chips (single host): gradients and optimizer state beyond what vLLM leaves are an error; lower hbm_utilization_vllm', () => {
    // rl-llama3 passes no hbm_utilization_vllm (config cannot reach it); a recipe that passes it can be overridden.
    const recipe = { ...RECIPES['rl-llama3'], train: { ...RECIPES['rl-llama3'].train, args: { ...RECIPES['rl-llama3'].train.args, hbm_utilization_vllm: 0.72 } } } as Recipe;
    const build = (util: number) => () =>
      buildPipeline(recipe, platformOf('ct6e-standard-8t', '2x4'), { runId: 'r1', overrides: { hbm_utilization_vllm: util }, configSource: 'pipelines.rl-llama3' });
    const message = errorOf(build(0.9));
    expect(message).toMatch(/trainer and vLLM share the 8 chips: gradients and optimizer state \(5\.6 GiB\) and activations \(2\.3 GiB\) need 7\.9 GiB per chip, the 3\.1 GiB hbm_utilization_vllm=0\.9 leaves of 31\.25 GiB usable/);
    expect(message).toMatch(/set pipelines\.rl-llama3\.overrides hbm_utilization_vllm=0\.7 \(now 0\.9\)/);
    // On one host MaxText does not split devices: no fraction is advised.
    expect(message).not.toMatch(/trainer_devices_fraction/);
    expect(build(advised(message, 'hbm_utilization_vllm'))().notices).toEqual([]);
  });

  test('31B SFT on a v6e-8 (single host): names the smallest slice that fits, never weight_dtype (it reaches only the export)', () => {
    const message = errorOf(() => fromConfig('sft-gemma4', { machineType: 'ct6e-standard-8t', topology: '2x4' }, '4x8', WITH_SINGLE_HOST));
    expect(message).toMatch(
      /gemma4-31b does not fit ct6e-standard-8t 2x4 \(v6e-8-8t, 31\.25 GiB usable HBM per chip\): weights, gradients and AdamW state \(57\.7 GiB, sharded 8 ways\) and activations \(10\.1 GiB\) need 67\.8 GiB per chip over 8 chips, a v6e chip has 31\.25 GiB usable; to fit: train on ct6e-standard-4t 4x8 \(v6e-32\) or larger \(.*pipelines\.sft-gemma4\.machineType\/topology: ct6e-standard-4t 4x8, with that slice in infra\)/,
    );
    expect(message).not.toMatch(/weight_dtype|per_device_batch_size/);
    // Why weight_dtype is never advised for SFT: an override of it reaches the export only, not train_sft, so one that
    // is not training's dtype is refused; training's own dtype is accepted (and reaches only the export).
    expect(errorOf(() => fromConfig('sft-gemma4', { overrides: { weight_dtype: 'bfloat16' } }))).toMatch(
      /- sft-gemma4 \(.*pipelines\.sft-gemma4\.overrides\): weight_dtype=bfloat16 reaches only the export \(to-hf\), not training: train_sft gets no weight_dtype and trains at MaxText's float32, so neither training nor its HBM changes; remove the override, or set it to float32 to export what training holds$/,
    );
    const same = fromConfig('sft-gemma4', { overrides: { weight_dtype: 'float32' } }).pipelines[0];
    expect(trainArg(same, 'weight_dtype')).toBeUndefined();
    expect(errorOf(() => fromConfig('rl-gemma4', { overrides: { weight_dtype: 'float32' } }))).toMatch(/weight_dtype=float32 reaches only the export \(to-hf\), not training: train_rl gets no weight_dtype and trains at MaxText's bfloat16/);
    expect(fromConfig('rl-gemma4', { overrides: { weight_dtype: 'bfloat16' } }).notices).toEqual([]);
  });

  test('31B SFT on a v6e-16: state (28.9 GiB) plus logits and activations no longer fit; the v6e-32 does', () => {
    const message = errorOf(() => fromConfig('sft-gemma4', { topology: '4x4' }, '4x4'));
    expect(message).toMatch(/weights, gradients and AdamW state \(28\.9 GiB, sharded 16 ways\) and activations \(10\.1 GiB\) need 39\.0 GiB per chip over 16 chips/);
    expect(message).toMatch(/train on ct6e-standard-4t 4x8 \(v6e-32\) or larger/);
  });
});

describe('models', () => {
  test('a model the size table does not know is not estimated, and says so', () => {
    const recipe = { ...RECIPES['rl-llama3'], model: { ...RECIPES['rl-llama3'].model, name: 'mixtral-8x7b' } } as Recipe;
    const p = buildPipeline(recipe, platformOf('ct6e-standard-8t', '2x4'), { runId: 'r1', eval: { enabled: false } });
    expect(p.notices).toEqual(["rl-llama3: no HBM estimate for model 'mixtral-8x7b' (add its size to jobs/models.ts)"]);
  });

  test('every recipe model has a size row; Gemma 4 26B-A4B has 25.2B parameters', () => {
    for (const recipe of Object.values(RECIPES)) expect(MODELS[recipe.model.name]).toBeDefined();
    expect(MODELS['gemma4-26b'].params).toBe(25.2e9);
  });
});
