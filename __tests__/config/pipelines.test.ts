/** buildPipelines: the one place that turns a config into the pipelines (the stacks and `npm run status` use it). */
import { buildPipelines } from '../../config/pipelines';
import { RECIPES } from '../../jobs/recipes';
import { exampleConfig, WITH_SINGLE_HOST } from '../util';

test('default: every recipe infra has the slice for, in recipe order, with the config run id', () => {
  expect(buildPipelines(exampleConfig()).map((p) => p.name)).toEqual(['rl-qwen3', 'rl-gemma4', 'sft-gemma4']);
  const pipelines = buildPipelines(exampleConfig(WITH_SINGLE_HOST));
  expect(pipelines.map((p) => p.name)).toEqual(Object.keys(RECIPES));
  expect(pipelines[0]).toMatchObject({ runId: 'r1', steps: [{ jobSetName: 'rl-qwen3-r1-to-maxtext' }, { jobSetName: 'rl-qwen3-r1-train' }, { jobSetName: 'rl-qwen3-r1-to-hf' }, { jobSetName: 'rl-qwen3-r1-eval' }] });
});

test('override: PIPELINES and RUN_ID choose the pipelines and their JobSet names', () => {
  const pipelines = buildPipelines(exampleConfig({ PIPELINES: 'sft-gemma4', RUN_ID: 'r7' }));
  expect(pipelines.map((p) => [p.name, p.steps[1].jobSetName])).toEqual([['sft-gemma4', 'sft-gemma4-r7-train']]);
});

test('a recipe asked for that does not fit the config throws, naming the source; merely enabled ones are left out', () => {
  expect(() => buildPipelines(exampleConfig({ TOPOLOGY: '4x4', PIPELINES: 'rl-qwen3' }))).toThrow(
    /PIPELINES \(env\): rl-qwen3 trains on ct6e-standard-4t 4x8 \(v6e-32\), infra has ct6e-standard-4t 4x4/,
  );
  const { selectAndBuildPipelines } = require('../../config/pipelines');
  const { pipelines, notices } = selectAndBuildPipelines(exampleConfig({ TOPOLOGY: '4x4' }));
  expect(pipelines).toEqual([]);
  // One line per slice shape infra lacks: the three v6e-32 pipelines together, rl-llama3's v6e-8 apart.
  expect(notices).toHaveLength(2);
  expect(notices[0]).toMatch(/^rl-qwen3, rl-gemma4 and sft-gemma4 left out: they train on ct6e-standard-4t 4x8/);
  expect(notices[1]).toMatch(/^rl-llama3 left out: rl-llama3 trains on ct6e-standard-8t 2x4/);
});

test('the hint for a missing main shape names a reservation only where the main slices consume one', () => {
  const { selectAndBuildPipelines } = require('../../config/pipelines');
  for (const capacity of ['spot', 'flex-start']) {
    const { notices } = selectAndBuildPipelines(exampleConfig({ TOPOLOGY: '4x4', TPU_CAPACITY: capacity }));
    expect(notices[0]).toContain(`COMPUTE_TYPE=ct6e-standard-4t TOPOLOGY=4x8 (TPU_TYPE=v6e-32) (${capacity} capacity: no reservation needed) makes it the main slice shape`);
    expect(notices[0]).not.toContain('RESERVATION');
  }
});
