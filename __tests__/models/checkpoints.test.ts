/**
 * Checkpoints and run identity over every training step the app synthesizes, read from the container scripts
 * (__tests__/models/maxtext-script.ts). MaxText maxtext-v0.2.4: train_rl and train_sft save every `checkpoint_period`
 * steps (trainers/post_train/rl/train_rl.py `save_interval_steps=checkpoint_period, max_to_keep=
 * max_num_checkpoints_to_keep`; sft/train_sft.py and dpo/train_dpo.py `save_interval_steps=checkpoint_period`, no max_to_keep) and restore
 * the newest checkpoint under `<base_output_directory>/<run_name>/checkpoints` (configs/types.py checkpoint_dir).
 */
import { buildPipeline } from '../../jobs/pipeline';
import { checkpointPeriod, CHECKPOINTS_TO_KEEP, conversionKey } from '../../jobs/maxtext';
import { RECIPES } from '../../jobs/recipes';
import { MAIN_CONTAINER } from '../../jobs/jobset';
import { testPlatform } from '../jobs/fixtures';
import { maxTextCalls } from './maxtext-script';
import { allConfigurations, Obj, podSets } from './synthesized';

/**
 * The trained checkpoint to_huggingface reads: `load_parameters_path`, or for a LoRA run `lora.lora_restore_path` (its
 * "Merged" mode, with the converted base as `load_parameters_path`: maxtext-v0.2.4
 * src/maxtext/checkpoint_conversion/to_huggingface.py module docstring).
 */
const exportSource = (args: Record<string, string>, script: string): string => {
  const lora = args['lora.lora_restore_path'];
  if (lora === undefined) return args.load_parameters_path;
  // The adapters are re-rooted first (jobs/maxtext.ts loraRerootLines: `python3 - <trained> <copy> <<'REROOT'`).
  const reroot = new RegExp(`^python3 - (\\S+) ${lora} <<'REROOT'$`, 'm').exec(script);
  return reroot ? reroot[1] : lora;
};

const trainCalls = allConfigurations().flatMap(([c, s]) =>
  s.jobSets
    .filter((j) => j.manifest.metadata.labels['tpu-post-training/step'] === 'train')
    .map((j) => {
      const script: string = podSets(j.manifest).flatMap((p) => p.pod.containers).find((x: Obj) => x.name === MAIN_CONTAINER).command[2];
      return [`${c}: ${j.manifest.metadata.name}`, maxTextCalls(script)[0], s.jobSets.find((x) => x.manifest.metadata.name === j.manifest.metadata.name.replace(/-train$/, '-to-hf'))!] as const;
    }),
);

describe.each(trainCalls)('%s checkpoints often enough to lose at most a quarter of the run', (_label, call, toHf) => {
  // train_rl trains num_batches x rl.num_iterations steps; train_sft and train_dpo `steps` (Tunix max_steps).
  const total = call.module.endsWith('train_rl') ? Number(call.args.num_batches) * Number(call.args['rl.num_iterations'] ?? 1) : Number(call.args.steps);
  const period = Number(call.args.checkpoint_period);

  test('checkpoint_period is explicit, at most a quarter of the steps, and divides them', () => {
    expect(call.args.enable_checkpointing).toBe('True');
    expect(period).toBeGreaterThan(0);
    expect(period).toBeLessThanOrEqual(total / 4);
    expect(total % period).toBe(0);
  });

  test('the export reads a step that is saved', () => {
    const hfScript: string = podSets(toHf.manifest).flatMap((p) => p.pod.containers).find((x: Obj) => x.name === MAIN_CONTAINER).command[2];
    const step = Number(/checkpoints\/(?:actor\/)?(\d+)\/model_params/.exec(exportSource(maxTextCalls(hfScript)[0].args, hfScript))![1]);
    expect(step).toBe(total);
    expect(step % period).toBe(0);
  });

  test('older checkpoints are bounded: RL keeps CHECKPOINTS_TO_KEEP, SFT and DPO write at most 20 per run', () => {
    if (call.module.endsWith('train_rl')) expect(Number(call.args.max_num_checkpoints_to_keep)).toBe(CHECKPOINTS_TO_KEEP);
    expect(total / period).toBeLessThanOrEqual(20);
  });

  test('the run name ends in a 12-hex key of the spec', () => {
    expect(call.args.run_name).toMatch(/-[0-9a-f]{12}$/);
  });
});

test('checkpointPeriod: the largest divisor at most a quarter; a step count without one near a quarter is refused, naming the field', () => {
  expect([1000, 50, 3, 48, 7].map((n) => checkpointPeriod(n))).toEqual([{ period: 250 }, { period: 10 }, { period: 1 }, { period: 12 }, { period: 1 }]);
  expect(() => buildPipeline(RECIPES['sft-gemma4'], testPlatform(), { runId: 'r1', overrides: { steps: 1009 }, configSource: 'pipelines.sft-gemma4' })).toThrow(
    'pipelines.sft-gemma4.overrides.steps: 1009 training steps have no divisor between 51 and 252: checkpointing every quarter of the run and on its last step would write 1009 checkpoints; use a step count such as 1008 or 1010',
  );
});

test('the first deploy after this change keeps existing converted checkpoints: conversion keys are unchanged', () => {
  // The keys the four recipes had before the run-identity change (jobs/maxtext.ts conversionKey then hashed the same inputs).
  expect(Object.values(RECIPES).map(conversionKey).sort()).toEqual(['31b1ba716b9a', '67e312377b8c', 'd00cd514be8a', 'd383affb4060']);
});
