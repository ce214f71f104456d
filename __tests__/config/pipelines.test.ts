/** buildPipelines: the one place that turns a config into the pipelines (the stacks and `npm run status` use it). */
import { buildPipelines } from '../../config/pipelines';
import { RECIPES } from '../../jobs/recipes';
import { exampleConfig } from '../util';

test('default: every recipe, in recipe order, with the config run id', () => {
  const pipelines = buildPipelines(exampleConfig());
  expect(pipelines.map((p) => p.name)).toEqual(Object.keys(RECIPES));
  expect(pipelines[0]).toMatchObject({ runId: 'r1', steps: [{ jobSetName: 'rl-qwen3-r1-to-maxtext' }, { jobSetName: 'rl-qwen3-r1-train' }, { jobSetName: 'rl-qwen3-r1-to-hf' }] });
});

test('override: PIPELINES and RUN_ID choose the pipelines and their JobSet names', () => {
  const pipelines = buildPipelines(exampleConfig({ PIPELINES: 'sft-gemma4', RUN_ID: 'r7' }));
  expect(pipelines.map((p) => [p.name, p.steps[1].jobSetName])).toEqual([['sft-gemma4', 'sft-gemma4-r7-train']]);
});

test('a recipe that does not fit the config throws, naming the source', () => {
  expect(() => buildPipelines(exampleConfig({ TOPOLOGY: '4x4' }))).toThrow(/rl-qwen3.*targets a ct6e-standard-4t 4x8 slice/);
});
