/**
 * The lower bound of a training step's time (jobs/step-time.ts) against what MaxText publishes, and against every
 * preset and example (none is refused): a model of the bound, each number with its source.
 */
import * as fs from 'fs';
import { loadDeployment } from '../../config/deployment';
import { checkpointPeriod, lastCheckpointStep } from '../../jobs/maxtext';
import { trainStartMinutes } from '../../jobs/notifications';
import { RECIPES } from '../../jobs/recipes';
import { rowOf } from '../../jobs/methods';
import { boundSeconds, firstCheckpointProblem, flopsPerParamToken, stepBound, TRAIN_FLOPS_PER_PARAM_TOKEN } from '../../jobs/step-time';
import { GENERATIONS, tpuSlice } from '../../jobs/tpu';

test('peak bf16 compute per chip: the Cloud TPU pages, each value with its source', () => {
  const peaks = Object.fromEntries(Object.entries(GENERATIONS).map(([g, row]) => [g, row.peakBf16Tflops]));
  // tpu7x: the page lists BF16 2307 and FP8 4614 TFLOPs per chip (docs.cloud.google.com/tpu/docs/tpu7x).
  expect(peaks).toEqual({ v5e: 197, v5p: 459, v6e: 918, tpu7x: 2307 });
  for (const [g, row] of Object.entries(GENERATIONS)) {
    expect([g, row.peakBf16Source]).toEqual([g, expect.stringContaining(`docs.cloud.google.com/tpu/docs/${g}`)]);
    expect(row.peakBf16Source).toContain(String(row.peakBf16Tflops));
  }
});

test("below MaxText's published step: deepseek2-16b on v5p-8, per_device_batch_size 24 x 2048 tokens, 5.667 s", () => {
  // maxtext-v0.2.4 docs/guides/monitoring_and_debugging/understand_logs_and_metrics.md: 4 devices (v5p-8), "Total
  // TFLOPs: 764.67" per device per step (MaxText's own count, attention included), "completed step: 9, seconds: 5.667",
  // MFU 29.40% of 459. DeepSeek-V2-Lite: 2.4B activated parameters (model card deepseek-ai/DeepSeek-V2-Lite).
  const chips = 4;
  const tokens = 24 * 2048 * chips;
  const flops = TRAIN_FLOPS_PER_PARAM_TOKEN * 2.4e9 * tokens;
  expect(flops).toBeLessThan(764.67e12 * chips);
  const bound = boundSeconds(flops, chips, GENERATIONS.v5p.peakBf16Tflops);
  expect(bound).toBeCloseTo(1.54, 2);
  expect(bound).toBeLessThan(5.667);
  // Even MaxText's own FLOP count at 100% of the peak is below the measured step: the bound leaves the same margin.
  expect(boundSeconds(764.67e12 * chips, chips, 459)).toBeLessThan(5.667);
});

test('the bound of each preset: 6 x active parameters x the tokens of one step over the slice at its peak', () => {
  const qwen = RECIPES['rl-qwen3'];
  const b = stepBound(qwen, tpuSlice('ct6e-standard-4t', '4x8'), 1)!;
  // 8 prompts x 4 generations x 512 tokens; 3.3B active of 30.5B; 32 chips x 918 TFLOP/s.
  expect(b.label).toBe('6 x 3.30e+9 active parameters x (8 prompts x 4 generations x 512 tokens)');
  expect(b.seconds).toBeCloseTo((6 * 3.3e9 * 8 * 4 * 512) / (32 * 918e12), 12);
  const sft = stepBound(RECIPES['sft-gemma4'], tpuSlice('ct6e-standard-4t', '4x8'), 1)!;
  expect(sft.label).toBe('6 x 3.10e+10 parameters x (per_device_batch_size=1 x 32 chips x 2048 tokens)');
  // Quantized training may run at the int8/fp8 peak: twice bf16.
  const q = { ...qwen, train: { ...qwen.train, args: { ...qwen.train.args, quantization: 'fp8' } } } as typeof qwen;
  expect(stepBound(q, tpuSlice('ct6e-standard-4t', '4x8'), 1)!.seconds).toBeCloseTo(b.seconds / 2, 12);
  // Two slices: twice the chips (and, for SFT, twice the tokens: the batch is per device).
  expect(stepBound(qwen, tpuSlice('ct6e-standard-4t', '4x8'), 2)!.seconds).toBeCloseTo(b.seconds / 2, 12);
});

test('no preset and no example is refused: their first checkpoint lands with room to spare', () => {
  for (const r of Object.values(RECIPES)) {
    const slice = tpuSlice(r.slice.machineType, r.slice.topology);
    expect([r.name, firstCheckpointProblem(r, { slice, slices: 1, timeoutMinutes: r.timeoutMinutes.train, source: r.name })]).toEqual([r.name, undefined]);
    const last = lastCheckpointStep(r.train);
    const period = (checkpointPeriod(last) as { period: number }).period;
    const available = (r.timeoutMinutes.train - trainStartMinutes(r.model.name, rowOf(r).rollout)!) * 60;
    expect(period * stepBound(r, slice, 1)!.seconds).toBeLessThan(available / 10);
  }
  const examples = fs.readdirSync('config/examples').filter((f) => f.endsWith('.json'));
  expect(examples.length).toBeGreaterThanOrEqual(5);
  for (const file of examples) {
    for (const p of loadDeployment({ env: { CONFIG_FILE: `config/examples/${file}` } }).pipelines) {
      const train = p.steps.find((s) => s.name === 'train')!;
      expect([file, p.name, firstCheckpointProblem(p.recipe, { slice: p.slice, slices: p.slices, timeoutMinutes: train.timeoutMinutes, source: p.name })]).toEqual([file, p.name, undefined]);
    }
  }
});

test('not one step fits the time left: the message says so instead of a step count', () => {
  // 37 minutes less the 36-minute start-up budget of llama3.1-8b leaves 60 s; 2,000 sequences of 2048 tokens per chip
  // need 6 x 8.03e9 x 2000 x 8 x 2048 / (8 x 918e12) = 215 s (the HBM check would refuse it too; this is the bound alone).
  const base = RECIPES['sft-gemma4'];
  const r = { ...base, model: { name: 'llama3.1-8b', hfRepo: 'meta-llama/Llama-3.1-8B' }, train: { ...base.train, args: { ...base.train.args, per_device_batch_size: 2000, steps: 8 } } } as typeof base;
  const message = firstCheckpointProblem(r, { slice: tpuSlice('ct6e-standard-8t', '2x4'), slices: 1, timeoutMinutes: 37, source: 'pipelines.mine' });
  expect(message).toMatch(/^pipelines\.mine\.steps: the first checkpoint \(step 2 of 8: checkpoint_period 2, a quarter of the run\) cannot land before training's deadline: a step needs at least 3\.6 min /);
  expect(message).toContain('leaves 1.0 min; an attempt that never checkpoints restarts from step 0 on every retry. Not one step fits: make a step smaller or the slice larger, or raise timeoutMinutes.train to at least 44,');
  // No deadline left after the start-up budget, or a model without a size: nothing certain, nothing refused.
  expect(firstCheckpointProblem(r, { slice: tpuSlice('ct6e-standard-8t', '2x4'), slices: 1, timeoutMinutes: 36, source: 'pipelines.mine' })).toBeUndefined();
  expect(firstCheckpointProblem({ ...r, model: { name: 'mixtral-8x7b', hfRepo: 'x/y' } }, { slice: tpuSlice('ct6e-standard-8t', '2x4'), slices: 1, timeoutMinutes: 37, source: 'p' })).toBeUndefined();
});

test('LoRA: 4 x parameters x tokens: the frozen base computes no weight gradients (train_sft.py wrt = nnx.LoRAParam, issue 44)', () => {
  const base = RECIPES['sft-gemma4'];
  const slice = tpuSlice('ct6e-standard-4t', '4x8');
  const full = stepBound(base, slice, 1)!;
  const lora = { ...base, train: { ...base.train, args: { ...base.train.args, 'lora.enable_lora': true, 'lora.lora_rank': 16 } } } as typeof base;
  const b = stepBound(lora, slice, 1)!;
  expect(b.label).toBe('4 x 3.10e+10 frozen (LoRA) parameters x (per_device_batch_size=1 x 32 chips x 2048 tokens)');
  expect(b.seconds).toBeCloseTo((full.seconds * 4) / 6, 12);
  expect(flopsPerParamToken({ lora: { enable_lora: true } })).toBe(4);
  expect(flopsPerParamToken({ 'lora.enable_lora': false })).toBe(TRAIN_FLOPS_PER_PARAM_TOKEN);
});
