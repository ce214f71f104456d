/**
 * The plan review prices a rehearsal stack (`rehearse-<pipeline>`, jobs/rehearsal.ts) like any pipeline stack: its TPU
 * steps on the single-host pool it runs on, at that pool's rate. The review's bound is the deploy's wait of each TPU
 * step (queue allowance, every restart a lost host allows, margins: jobs/pipeline.ts waitMinutes), so it is far above
 * what one attempt spends (jobs/rehearsal.ts rehearsalBudget, under REHEARSAL_TARGETS: __tests__/config/rehearsal.test.ts).
 */
import { loadDeployment } from '../../config/deployment';
import { extractStack } from '../../review/model';
import { loadPrices } from '../../jobs/prices';
import { renderReport } from '../../review/report';
import { review } from '../../review/findings';
import { rehearsalBudget, REHEARSAL_TARGETS } from '../../jobs/rehearsal';
import { synthStack, WITH_SINGLE_HOST } from '../util';

test('rehearse-rl-qwen3 is priced: its train and eval steps on one v6e-8 host, at the single-host pool rate', () => {
  const env = { ...WITH_SINGLE_HOST, REHEARSE: 'rl-qwen3' };
  const models = [extractStack('infra', synthStack('infra', env)), extractStack('rehearse-rl-qwen3', synthStack('rehearse-rl-qwen3', env))];
  const p = models[1]!.pipeline!;
  const built = loadDeployment({ env }).pipelines.find((x) => x.name === 'rehearse-rl-qwen3')!;
  const tpu = built.steps.filter((s) => s.tpu);
  expect(tpu.map((s) => s.name)).toEqual(['train', 'eval']);
  expect(p.chipHours).toBeCloseTo(tpu.reduce((sum, s) => sum + (8 * s.waitMinutes) / 60, 0), 6);
  expect(rehearsalBudget(built.steps).chipHours).toBeLessThan(REHEARSAL_TARGETS.chipHours);
  const md = renderReport({ models, findings: review(models), prices: loadPrices(), source: 'synth' });
  expect(md).toMatch(/Pipeline holds at most \*\*[\d.]+ chip-hours\*\* \(~\$[\d.,]+ at the [^)]+\): rh-rl-qwen3-r1-train 8 chips x [\dhm ]+ \(timeout\), rh-rl-qwen3-r1-eval 8 chips x [\dhm ]+ \(timeout\)\./);
});
