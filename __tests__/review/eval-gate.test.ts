/**
 * The review states the eval step and its gate (jobs/eval.ts gateText, through the pipeline stack's `eval_gate` output),
 * and prices the serve stack's TPU pool per hour like any other pool.
 */
import { Testing } from 'cdktf';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { extractStack } from '../../review/model';
import { loadPrices } from '../../jobs/prices';
import { renderReport } from '../../review/report';
import { review } from '../../review/findings';
import { PipelineStack } from '../../stacks/pipeline-stack';
import { ServeStack } from '../../stacks/serve-stack';
import { testPlatform } from '../jobs/fixtures';

function stackJson(gate?: { metric: string; minDelta: number }) {
  const p = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1', eval: gate ? { gate } : {} });
  return JSON.parse(Testing.synth(new PipelineStack(Testing.app(), 'rl-qwen3', { platform: testPlatform(), pipeline: p })));
}
const md = (json: any, name = 'rl-qwen3') => {
  const model = extractStack(name, json);
  return renderReport({ models: [model], findings: review([model]), prices: loadPrices(), source: 'test' });
};

test('a gate: the review says which metric must improve by how much, and that the pipeline fails otherwise', () => {
  const json = stackJson({ metric: 'answer_accuracy,none', minDelta: 0.02 });
  expect(json.output.eval_gate.value).toBe(
    'gsm8k_reasoning (samples gsm8k_reasoning: 500; seed 1234) on v6e-8, base Qwen/Qwen3-30B-A3B-Instruct-2507 vs the export; gate: answer_accuracy,none must improve by at least 0.02 over the base model, else the pipeline fails',
  );
  expect(extractStack('rl-qwen3', json).pipeline?.evalGate).toBe(json.output.eval_gate.value);
  expect(md(json)).toContain(`Eval step: ${json.output.eval_gate.value}.`);
});

test('no gate: the review says the scores are only recorded', () => {
  expect(md(stackJson())).toContain('no gate: the scores are recorded, the pipeline does not fail on them.');
});

test('the serve stack: its TPU pool is in the review with an hourly price', () => {
  const p = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1', serve: { enabled: true } });
  const json = JSON.parse(Testing.synth(new ServeStack(Testing.app(), 'serve-rl-qwen3', { platform: testPlatform(), plan: p.serve! })));
  const model = extractStack('serve-rl-qwen3', json);
  expect(model.tpuPools.map((t) => [t.name, t.slice?.acceleratorType, t.capacity])).toEqual([['serve-rl-qwen3', 'v6e-4', 'spot']]);
  const text = md(json, 'serve-rl-qwen3');
  // One v6e-4 at the spot estimate: 4 chips x $0.81/chip-h, billed while the pool (the stack) exists.
  expect(text).toContain('| serve-rl-qwen3 | ct6e-standard-4t | 2x2 | 4 | 1 | spot | spot $0.81/chip-h (estimate) | $3.24 (a fixed size: billed while the pool exists) | $3.24 |');
});
