/**
 * The method table (jobs/methods/): each row's facts against the MaxText files they were read from
 * (AI-Hypercomputer/maxtext maxtext-v0.2.4), and DPO, the row added through the table alone: its command line, data
 * checks, memory model, checkpoint layout, restart semantics, log lines and default eval.
 */
import type { Deployment } from '../../jobs/deployment';
import { EVAL_TASKS, HELDOUT_TASK } from '../../jobs/eval';
import { HbmInput } from '../../jobs/hbm';
import { lastCheckpointStep } from '../../jobs/maxtext';
import { estimateHbm, METHOD_ROWS, METHOD_TABLE, METHODS, methodOf, rowOfMethod } from '../../jobs/methods';
import { dpoColumnsProblem } from '../../jobs/methods/dpo';
import { MODELS } from '../../jobs/models';
import { tpuSlice } from '../../jobs/tpu';
import { parseProgress } from '../../status/model';
import { stepPoints } from '../../status/metrics';
import { deployPipelines, pipelinesError } from '../util';

/** pyconfig.py l.51-57 (maxtext-v0.2.4): the config file each post-training module loads when none is given. */
const PYCONFIG_MODULE_CONFIGS: Readonly<Record<string, string>> = {
  'maxtext.trainers.post_train.dpo.train_dpo': 'post_train/dpo.yml',
  'maxtext.trainers.post_train.rl.train_rl': 'post_train/rl.yml',
  'maxtext.trainers.post_train.sft.train_sft': 'post_train/sft.yml',
};

const DPO_ENTRY = {
  method: 'dpo',
  model: 'llama3.1-8b',
  hfModel: 'meta-llama/Llama-3.1-8B-Instruct',
  dataset: { hf: 'argilla/distilabel-intel-orca-dpo-pairs', split: 'train', columns: ['input', 'chosen', 'rejected'] },
  slice: 'v6e-8',
};
const trainScript = (d: Deployment, name: string): string =>
  (d.pipelines.find((p) => p.name === name)!.steps.find((s) => s.name === 'train')!.manifest as any).spec.replicatedJobs[0].template.spec.template.spec
    .containers[0].command[2];

describe('the table', () => {
  test('methods, in table order; each names its row', () => {
    expect(METHODS).toEqual(['sft', 'grpo', 'gspo', 'dpo']);
    expect(METHODS.map((m) => rowOfMethod(m)!.kind)).toEqual(['sft', 'rl', 'rl', 'dpo']);
    expect(rowOfMethod('ppo')).toBeUndefined();
  });

  test.each(METHOD_ROWS.map((r) => [r.kind, r] as const))('%s: module and config file as pyconfig maps them', (_kind, row) => {
    expect(`src/maxtext/configs/${PYCONFIG_MODULE_CONFIGS[row.module]}`).toBe(row.configFile);
  });

  test.each(METHOD_ROWS.map((r) => [r.kind, r] as const))('%s: the default eval tasks are tasks of the eval step; heldout only where the row says', (_kind, row) => {
    for (const task of row.defaultEval) expect(Object.keys(EVAL_TASKS)).toContain(task);
    expect(row.defaultEval.includes(HELDOUT_TASK)).toBe(row.heldoutEval);
  });

  test('each base is its own method: methodOf(base) is the row\'s first method', () => {
    for (const row of METHOD_ROWS) expect(methodOf(row.base)).toBe(Object.keys(row.methods)[0]);
    expect(methodOf({ train: { ...METHOD_TABLE.rl.base.train, args: { 'rl.loss_algo': 'gspo-token' } } } as any)).toBe('gspo');
  });
});

describe('DPO: one row', () => {
  test('the command line: train_dpo with the dataset, the 3 columns, steps and eval_interval=0; no RL key', () => {
    const d = deployPipelines({ mine: DPO_ENTRY });
    const train = trainScript(d, 'mine');
    expect(train).toContain('python3 -m maxtext.trainers.post_train.dpo.train_dpo');
    for (const arg of ['hf_path=argilla/distilabel-intel-orca-dpo-pairs', 'train_split=train', `train_data_columns='["input", "chosen", "rejected"]'`, 'steps=1000', 'eval_interval=0', 'checkpoint_period=250']) {
      expect(train).toContain(arg);
    }
    expect(train).not.toMatch(/num_batches|rl\.|chips_per_vm|max_num_checkpoints_to_keep/);
  });

  test('checkpoint layout and restart model: the last step is `steps`, no actor/ directory, the data restarts at the first example', () => {
    const p = deployPipelines({ mine: { ...DPO_ENTRY, steps: 400 } }).pipelines[0];
    expect(lastCheckpointStep(p.recipe.train)).toBe(400);
    expect(p.paths.trainedCheckpoint).toBe(`${p.paths.trainCheckpointDir}400/model_params/`);
    expect(METHOD_TABLE.dpo.resumeRepeats).toBe('DPO reads its data again from the first example');
  });

  test('the default eval step scores truthfulqa_mc2; heldout is refused naming the method', () => {
    expect(deployPipelines({ mine: DPO_ENTRY }).pipelines[0].eval?.tasks).toEqual(['truthfulqa_mc2']);
    expect(pipelinesError({ mine: { ...DPO_ENTRY, eval: { tasks: ['heldout'] } } })).toContain("pipelines.mine.eval.tasks: 'heldout' scores an SFT dataset's evaluation split; mine trains with dpo");
  });

  test('log lines: MaxText\'s metric logger, as SFT (BaseTrainingHooks)', () => {
    const line = '2026-12-01T06:01:00Z completed step: 7, seconds: 1.2, TFLOP/s/device: 3, Tokens/s/device: 4, total_weights: 9, loss: 0.693, lm_loss: 0.6';
    expect(parseProgress('dpo', line)).toEqual({ step: 7, at: Date.parse('2026-12-01T06:01:00Z') });
    expect(stepPoints('dpo', line)).toEqual([{ step: 7, at: Date.parse('2026-12-01T06:01:00Z'), loss: 0.693 }]);
  });

  test('columns: 2 or 3 different names (dpo_utils.py DPODataFormatting)', () => {
    expect(dpoColumnsProblem(['chosen', 'rejected'], 'x')).toBeUndefined();
    expect(dpoColumnsProblem(['prompt', 'chosen', 'rejected'], 'x')).toBeUndefined();
    for (const bad of [['chosen'], ['a', 'b', 'c', 'd'], ['chosen', 'chosen'], ['chosen', ' ']]) {
      expect(dpoColumnsProblem(bad, 'x')).toBe(
        `x.columns: DPO reads 2 columns [chosen, rejected] (the shared prefix is the prompt) or 3 [prompt, chosen, rejected], each a different non-empty name (MaxText input_pipeline/dpo_utils.py DPODataFormatting), got ${JSON.stringify(bad)}`,
      );
    }
    expect(pipelinesError({ mine: { ...DPO_ENTRY, dataset: { hf: 'x/y', columns: ['messages'] } } })).toContain('pipelines.mine.dataset.columns: DPO reads 2 columns');
  });

  test('without columns: dpo.yml\'s [chosen, rejected]', () => {
    const d = deployPipelines({ mine: { ...DPO_ENTRY, dataset: { hf: 'Anthropic/hh-rlhf' } } });
    expect(trainScript(d, 'mine')).toContain(`train_data_columns='["chosen", "rejected"]'`);
  });

  test('refused: a reward file, LoRA, an RL template; each names the key and the method', () => {
    expect(pipelinesError({ mine: { ...DPO_ENTRY, reward: 'config/examples/rewards/final_number.py' } })).toContain(
      "pipelines.mine.reward: a reward file is for RL (grpo, gspo); mine trains with dpo, got 'config/examples/rewards/final_number.py'",
    );
    expect(pipelinesError({ mine: { ...DPO_ENTRY, lora: { rank: 8 } } })).toContain('pipelines.mine.lora: LoRA is for SFT only: MaxText 0.2.4 train_dpo never applies LoRA');
    expect(pipelinesError({ mine: { ...DPO_ENTRY, dataset: { hf: 'x/y', template: 't.json' } } })).toContain(
      'pipelines.mine.dataset: template is for RL (data_template_path, dataset_processor_path, eval_split); DPO reads hf, config, split and columns',
    );
  });

  test('a DPO entry cannot extend an SFT or RL preset', () => {
    expect(pipelinesError({ mine: { extends: 'sft-gemma4', method: 'dpo' } })).toContain(
      "pipelines.mine.method: 'dpo' cannot change sft-gemma4's method (sft); extend a preset of the same kind, or leave out extends",
    );
  });
});

describe('DPO memory model (jobs/methods/dpo.ts)', () => {
  const input = (args: Record<string, unknown>, chips = 8): HbmInput => ({
    model: 'llama3.1-8b',
    size: MODELS['llama3.1-8b'],
    kind: 'dpo',
    args: args as HbmInput['args'],
    slice: tpuSlice('ct6e-standard-8t', '2x4'),
    devices: { trainer: chips, sampler: 0, split: false },
  });
  const part = (e: ReturnType<typeof estimateHbm>, what: RegExp) => e.parts.find((p) => what.test(p.what))?.gibPerChip ?? 0;

  test('a frozen reference copy as large as the weights; ORPO (dpo.algo=orpo) has none', () => {
    const dpo = estimateHbm(input({ per_device_batch_size: 1 }));
    expect(part(dpo, /^reference weights/)).toBeCloseTo(part(dpo, /^weights/), 9);
    expect(part(estimateHbm(input({ per_device_batch_size: 1, 'dpo.algo': 'orpo' })), /^reference weights/)).toBe(0);
  });

  test('one pass holds chosen and rejected: the logits of 2 x per_device_batch_size x chips sequences, as SFT with twice the batch', () => {
    const dpo = estimateHbm(input({ per_device_batch_size: 1, max_target_length: 1024 }));
    const sft = estimateHbm({ ...input({ per_device_batch_size: 2, max_target_length: 1024 }), kind: 'sft' });
    expect(part(dpo, /^logits/)).toBeCloseTo(part(sft, /^logits/), 9);
    expect(dpo.parts.find((p) => /^logits/.test(p.what))!.what).toContain('per_device_batch_size=1 x 2 (chosen, rejected) x 1024 tokens');
  });

  test('defaults are dpo.yml\'s: float32 weights (types.py), per_device_batch_size 2 and max_target_length 512', () => {
    const e = estimateHbm(input({}));
    expect(e.parts[0].what).toBe('weights (float32)');
    expect(e.parts.find((p) => /^logits/.test(p.what))!.what).toContain('per_device_batch_size=2 x 2 (chosen, rejected) x 512 tokens');
  });

  test('the fit check refuses what does not fit, naming DPO\'s state', () => {
    const e = estimateHbm(input({ per_device_batch_size: 1 }, 1));
    expect(e.verdict).toBe('impossible');
    expect(e.reasons[0]).toMatch(/^weights, reference copy, gradients and AdamW state \(\d+\.\d GiB, sharded 1 ways\)/);
  });
});
