/**
 * The plan review prices a stack at what it spends (jobs/budget.ts, the computation `npm run bench` uses): one attempt
 * of every TPU step to its deadline (the Jobs' activeDeadlineSeconds read back from the synthesized JobSets) as the
 * expected spend, and beside it the worst case with every restart the JobSet failure policy allows. The deploy's
 * window per step (queue allowance, every attempt, margins: jobs/pipeline.ts waitMinutes) is named last, as what it is.
 */
import { loadDeployment } from '../../config/deployment';
import { extractStack } from '../../review/model';
import { loadPrices } from '../../jobs/prices';
import { renderReport } from '../../review/report';
import { review } from '../../review/findings';
import { spendOf, stepBudget } from '../../jobs/budget';
import { rehearsalBudget, REHEARSAL_TARGETS } from '../../jobs/rehearsal';
import { synthStack, WITH_SINGLE_HOST } from '../util';

const env = { ...WITH_SINGLE_HOST, REHEARSE: 'rl-qwen3' };
const models = [extractStack('infra', synthStack('infra', env)), extractStack('rehearse-rl-qwen3', synthStack('rehearse-rl-qwen3', env)), extractStack('rl-qwen3', synthStack('rl-qwen3', env))];
const deployment = loadDeployment({ env });
const md = renderReport({ models, findings: review(models), prices: loadPrices(), source: 'synth' });
/** The report's rounding (review/report.ts round). */
const r1 = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
const section = (stack: string) => md.slice(md.indexOf(`### \`${stack}\`\n`)).split('\n### ')[0]!;

test('rehearse-rl-qwen3 is priced at what one attempt spends (the bench number, under the target), with the worst case beside it', () => {
  const p = models[1]!.pipeline!;
  const built = deployment.pipelines.find((x) => x.name === 'rehearse-rl-qwen3')!;
  expect(built.steps.filter((s) => s.tpu).map((s) => s.name)).toEqual(['train', 'eval']);
  // The review's numbers, read back from the synthesized JobSets, are the bench's, computed from the built steps.
  expect(p.spend!.oneAttempt.chipHours).toBeCloseTo(rehearsalBudget(built.steps).chipHours, 9);
  expect(p.spend!.worstCase.chipHours).toBeCloseTo(rehearsalBudget(built.steps, true).chipHours, 9);
  expect(p.spend!.oneAttempt.chipHours).toBeLessThan(REHEARSAL_TARGETS.chipHours);
  // The window (queue + every attempt + margins) is far above either.
  expect(p.chipHours).toBeGreaterThan(p.spend!.worstCase.chipHours);
  const text = section('rehearse-rl-qwen3');
  expect(text).toContain(
    `Expected spend, one attempt of every TPU step to its deadline: **${r1(p.spend!.oneAttempt.chipHours)} chip-hours** (~$`,
  );
  expect(text).toMatch(/: rh-rl-qwen3-r1-train 8 chips x 12m, rh-rl-qwen3-r1-eval 8 chips x 13m\.\n/);
  expect(text).toMatch(new RegExp(`Worst case, every restart a lost host allows: \\*\\*${r1(p.spend!.worstCase.chipHours)} chip-hours\\*\\* \\(~\\$[\\d.,]+ at the [^)]+\\): rh-rl-qwen3-r1-train \\d+ attempt\\(s\\), rh-rl-qwen3-r1-eval \\d+ attempt\\(s\\)\\.`));
  expect(text).toContain(`the steps' windows (the timeout column: queue allowance, every attempt, margins) add up to ${r1(p.chipHours)} chip-hours.`);
  expect(text).not.toContain('holds at most');
});

test('every pipeline is priced the same way: rl-qwen3 one attempt of train and eval, and every restart', () => {
  const p = models[2]!.pipeline!;
  const built = deployment.pipelines.find((x) => x.name === 'rl-qwen3')!;
  const tpu = built.steps.filter((s) => s.tpu);
  expect(p.spend!.oneAttempt).toEqual(spendOf(tpu.map(stepBudget)));
  expect(p.spend!.worstCase.chipHours).toBeCloseTo(tpu.reduce((sum, s) => sum + (s.maxRestarts + 1) * s.timeoutMinutes * s.tpu!.slice.chips * s.tpu!.slices, 0) / 60, 9);
  expect(section('rl-qwen3')).toContain(`Expected spend, one attempt of every TPU step to its deadline: **${r1(p.spend!.oneAttempt.chipHours)} chip-hours**`);
});

test('a JobSet without an attempt deadline keeps the window line: the review cannot say what one attempt spends', () => {
  const p = models[1]!.pipeline!;
  const noDeadline = { ...models[1]!, pipeline: { ...p, spend: undefined } };
  const text = renderReport({ models: [models[0]!, noDeadline], findings: [], prices: loadPrices(), source: 'synth' });
  expect(text).toMatch(/Pipeline holds at most \*\*[\d.]+ chip-hours\*\* \(~\$[\d.,]+ at the [^)]+\): rh-rl-qwen3-r1-train 8 chips x [\dhm ]+ \(timeout\)/);
});
