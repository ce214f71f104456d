/**
 * A physical lower bound of a training step's time, and the refusal of a run whose first checkpoint cannot land before
 * its step's deadline (an attempt that never checkpoints restarts from step 0 on every retry, forever). The bound can
 * only refuse what is certainly impossible:
 * - FLOPs: a step trains at least 6 x active parameters x tokens (forward 2, backward 4 FLOPs per parameter per token:
 *   2 for the gradients of the activations, 2 for those of the weights; MoE: the parameters used per token, jobs/models.ts
 *   `activeParams`); with LoRA (`lora.enable_lora`) 4: train_sft differentiates only the adapters (maxtext-v0.2.4
 *   trainers/post_train/sft/train_sft.py `wrt = nnx.LoRAParam if is_lora_enabled else nnx.Param`), so the frozen base
 *   computes no weight gradients, only the activation gradients that reach the adapters below it (the adapters' own
 *   rank x (in + out) FLOPs are left out: they only add), the tokens being the method row's
 *   `stepTokens` (every sequence padded to max_target_length). Attention, the loss, the optimizer, a reference model
 *   and RL's rollouts are left out (each only adds time);
 * - speed: every chip of the slice at its generation's peak bf16 FLOP/s (jobs/tpu.ts `peakBf16Tflops`, the Cloud TPU
 *   pages), twice that when the run quantizes (`quantization` set: int8/fp8 peaks are at most twice bf16), with no
 *   communication, no host time and 100% utilization. MaxText's own published step (maxtext-v0.2.4
 *   docs/guides/monitoring_and_debugging/understand_logs_and_metrics.md: deepseek2-16b, v5p-8, per_device_batch_size
 *   24 x 2048 tokens, 5.667 s at 29.4% MFU) is 3.7 times this bound (__tests__/models/step-time.test.ts);
 * - deadline: the train step's timeoutMinutes (one attempt's activeDeadlineSeconds) less the start-up budget the
 *   stall alert already uses (jobs/notifications.ts trainStartMinutes: the weights read and compiled, twice for RL).
 * Pure; no cdktf.
 */
import { loraEnabled } from './hbm';
import { checkpointPeriod, lastCheckpointStep } from './maxtext';
import { rowOf } from './methods';
import { modelSize } from './models';
import { trainStartMinutes } from './vllm';
import { numberArg, Recipe } from './recipes/types';
import { GENERATIONS, TpuSlice } from './tpu';

/** FLOPs per parameter per trained token: forward 2, backward 4 (activation gradients 2, weight gradients 2). */
export const TRAIN_FLOPS_PER_PARAM_TOKEN = 6;
/** LoRA: forward 2 and the activation gradients 2; the frozen base computes no weight gradients (train_sft.py `wrt`). */
export const LORA_FLOPS_PER_PARAM_TOKEN = 4;

/** FLOPs per base parameter per trained token of a run with these training arguments. */
export function flopsPerParamToken(args: Recipe['train']['args']): number {
  return loraEnabled(args) ? LORA_FLOPS_PER_PARAM_TOKEN : TRAIN_FLOPS_PER_PARAM_TOKEN;
}

/** The lower bound of one step: its FLOPs, the slice's peak and the seconds, with what they were computed from. */
export interface StepBound {
  readonly flops: number;
  readonly peakFlopsPerSecond: number;
  readonly seconds: number;
  /** `6 x 3.3e9 active parameters x (8 prompts x 4 generations x 512 tokens)`; LoRA: `4 x ... frozen (LoRA) parameters x ...`. */
  readonly label: string;
}

/** Seconds no step can beat: `flops` over `chips` at `peakTflops` each. */
export function boundSeconds(flops: number, chips: number, peakTflops: number): number {
  return flops / (chips * peakTflops * 1e12);
}

/** The lower bound of one training step of `recipe` on `slices` x `slice`, or undefined for a model without a size. */
export function stepBound(recipe: Recipe, slice: TpuSlice, slices: number): StepBound | undefined {
  const size = modelSize(recipe.model.name);
  if (!size) return undefined;
  const chips = slice.chips * slices;
  const active = size.activeParams ?? size.params;
  const step = rowOf(recipe).stepTokens(recipe.train.args, chips);
  const perParamToken = flopsPerParamToken(recipe.train.args);
  const flops = perParamToken * active * step.tokens;
  const quantized = typeof recipe.train.args['quantization'] === 'string' && recipe.train.args['quantization'] !== '';
  const peakTflops = GENERATIONS[slice.generation].peakBf16Tflops * (quantized ? 2 : 1);
  return {
    flops,
    peakFlopsPerSecond: chips * peakTflops * 1e12,
    seconds: boundSeconds(flops, chips, peakTflops),
    label: `${perParamToken} x ${active.toPrecision(3)} ${size.activeParams !== undefined ? 'active ' : ''}${perParamToken === LORA_FLOPS_PER_PARAM_TOKEN ? 'frozen (LoRA) ' : ''}parameters x (${step.label})`,
  };
}

/** Minutes with one decimal, or seconds below a minute. */
const duration = (seconds: number) => (seconds < 60 ? `${seconds.toPrecision(3)} s` : `${(seconds / 60).toFixed(1)} min`);

/** What the deadline check needs beside the recipe. */
export interface DeadlineInput {
  readonly slice: TpuSlice;
  readonly slices: number;
  /** The train step's timeoutMinutes (one attempt). */
  readonly timeoutMinutes: number;
  /** Config source prefix, e.g. `cfg.json: pipelines.mine`. */
  readonly source: string;
}

/**
 * Why the first checkpoint (the checkpoint period, jobs/maxtext.ts, or the last step) cannot land before the train
 * step's deadline, or undefined (also when the model has no size or the start-up budget alone fills the deadline:
 * nothing certain then).
 */
export function firstCheckpointProblem(recipe: Recipe, input: DeadlineInput): string | undefined {
  const bound = stepBound(recipe, input.slice, input.slices);
  const row = rowOf(recipe);
  const startMinutes = trainStartMinutes(recipe.model.name, row.rollout);
  const last = lastCheckpointStep(recipe.train);
  const period = checkpointPeriod(last);
  if (!bound || startMinutes === undefined || 'problem' in period) return undefined;
  const availableSeconds = (input.timeoutMinutes - startMinutes) * 60;
  const first = Math.min(period.period, last);
  if (availableSeconds <= 0 || first * bound.seconds <= availableSeconds) return undefined;
  const fitting = Math.floor(availableSeconds / bound.seconds);
  const needMinutes = Math.ceil(startMinutes + (first * bound.seconds) / 60);
  // `steps` sets the row's stepsKey; RL trains num_batches x rl.num_iterations (x train_fraction x num_epoch) steps.
  const configSteps = numberArg(recipe.train.args, row.stepsKey, last);
  const atMost = Math.floor((fitting * 4 * configSteps) / last);
  const fewer =
    atMost >= 1
      ? `set steps to at most ${atMost} (checkpoints every quarter of the run: ${fitting} training steps fit)`
      : `not one step fits: make a step smaller or the slice larger`;
  return (
    `${input.source}.steps: the first checkpoint (step ${first} of ${last}: checkpoint_period ${period.period}, a quarter of the run) cannot land ` +
    `before training's deadline: a step needs at least ${duration(bound.seconds)} (${bound.label} = ${bound.flops.toPrecision(3)} FLOPs ` +
    `at the peak ${(bound.peakFlopsPerSecond / 1e12).toFixed(0)} TFLOP/s of ${input.slices > 1 ? `${input.slices}x ` : ''}${input.slice.acceleratorType}, jobs/step-time.ts), ` +
    `so ${first} steps need at least ${duration(first * bound.seconds)}, and ${input.source}.timeoutMinutes.train ${input.timeoutMinutes} less the ` +
    `${startMinutes}-minute start-up budget (weights read and compiled) leaves ${duration(availableSeconds)}; an attempt that never checkpoints ` +
    `restarts from step 0 on every retry. ${fewer[0].toUpperCase()}${fewer.slice(1)}, or raise timeoutMinutes.train to at least ${needMinutes}, ` +
    `or lower ${row.stepSettings.map((s) => `training.${s}`).join(', ')}, or train on a larger slice`
  );
}
