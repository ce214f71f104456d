/**
 * `steps` so large that no checkpoint lands before the train step's deadline (issue 32 item 6): refused at synth,
 * naming `pipelines.<name>.steps`, the bound (jobs/step-time.ts) and the fix; each fix said is accepted.
 */
import { deployPipelines, pipelinesError } from '../util';

const SFT = { method: 'sft', model: 'llama3.1-8b', hfModel: 'meta-llama/Llama-3.1-8B-Instruct', dataset: { hf: 'HuggingFaceH4/ultrachat_200k', split: 'train_sft' }, slice: 'v6e-8' };
const DPO = { method: 'dpo', model: 'llama3.1-8b', hfModel: 'meta-llama/Llama-3.1-8B-Instruct', dataset: { hf: 'argilla/distilabel-intel-orca-dpo-pairs', split: 'train', columns: ['input', 'chosen', 'rejected'] }, slice: 'v6e-8' };


describe('refused: the first checkpoint cannot land before the deadline', () => {
  test('SFT: 2,000,000 steps checkpoint first at step 500,000, which takes longer than the 720-minute deadline', () => {
    // 6 x 8.03e9 x (1 x 8 chips x 2048 tokens) / (8 x 918e12) = 0.1075 s a step; 500,000 steps = 896 min; 720 - 36 = 684.
    const message = pipelinesError({ mine: { ...SFT, steps: 2_000_000 } });
    expect(message).toMatch(
      /\S+config\.json: pipelines\.mine\.steps: the first checkpoint \(step 500000 of 2000000: checkpoint_period 500000, a quarter of the run\) cannot land before training's deadline: /,
    );
    expect(message).toContain(
      "a step needs at least 0.107 s (6 x 8.03e+9 parameters x (per_device_batch_size=1 x 8 chips x 2048 tokens) = 7.89e+14 FLOPs at the peak 7344 TFLOP/s of v6e-8, jobs/step-time.ts), " +
        'so 500000 steps need at least 895.7 min',
    );
    expect(message).toMatch(/pipelines\.mine\.timeoutMinutes\.train 720 less the 36-minute start-up budget \(weights read and compiled\) leaves 684\.0 min; an attempt that never checkpoints restarts from step 0 on every retry\. /);
    expect(message).toMatch(/Set steps to at most (\d+) \(checkpoints every quarter of the run: \d+ training steps fit\), or raise timeoutMinutes\.train to at least (\d+), or lower training\.perDeviceBatch, training\.maxSeqLen, or train on a larger slice/);
    const [, atMost, minutes] = /at most (\d+) .* at least (\d+),/.exec(message)!;
    // Each fix said is accepted.
    expect(() => deployPipelines({ mine: { ...SFT, steps: Number(atMost) } })).not.toThrow();
    expect(() => deployPipelines({ mine: { ...SFT, steps: 2_000_000, timeoutMinutes: { train: Number(minutes) } } })).not.toThrow();
  });

  test('a larger step through the typed settings is refused sooner; the bound reads them', () => {
    // maxSeqLen 8192 with perDeviceBatch 4 (16x the tokens): 200,000 steps checkpoint first at 50,000 x 1.72 s.
    const message = pipelinesError({ mine: { ...SFT, steps: 200_000, training: { maxSeqLen: 8192, perDeviceBatch: 4 } } });
    expect(message).toContain('pipelines.mine.steps: the first checkpoint (step 50000 of 200000');
    expect(message).toContain('(per_device_batch_size=4 x 8 chips x 8192 tokens)');
  });

  test('DPO counts the chosen and the rejected sequence of each pair', () => {
    const message = pipelinesError({ mine: { ...DPO, steps: 2_000_000, training: { maxSeqLen: 1024 } } });
    expect(message).toContain('(per_device_batch_size=1 x 2 (chosen, rejected) x 8 chips x 1024 tokens)');
    expect(message).toContain('pipelines.mine.steps: the first checkpoint (step 500000 of 2000000');
  });

  test('RL (a preset, a shorter timeoutMinutes.train): the trained sequences, the start-up budget counted twice (trainer and vLLM)', () => {
    // rl-qwen3: 8 prompts x 4 generations x 512 tokens, 3.3e9 active; 32 chips: 0.011 s a step, 200,000 steps 36.8 min.
    // Start-up: 2 x (61 GB / 50 MB/s + 30 min) = 101 min of the 120.
    const message = pipelinesError({ 'rl-qwen3': { steps: 800_000, timeoutMinutes: { train: 120 } } });
    expect(message).toContain('pipelines.rl-qwen3.steps: the first checkpoint (step 200000 of 800000');
    expect(message).toContain('6 x 3.30e+9 active parameters x (8 prompts x 4 generations x 512 tokens)');
    expect(message).toContain('timeoutMinutes.train 120 less the 101-minute start-up budget');
    expect(message).toContain('or lower training.promptsPerStep, training.generationsPerPrompt, training.maxCompletionLength');
    const [, atMost] = /at most (\d+) /.exec(message)!;
    expect(() => deployPipelines({ 'rl-qwen3': { steps: Number(atMost), timeoutMinutes: { train: 120 } } })).not.toThrow();
  });
});
