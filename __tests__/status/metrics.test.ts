/** status/metrics.ts: step series, the stall rule, the evaluation, chip-hours and the sparkline (pure, in-process). */
import { evalLine, iso, rfc3339Nano, rlLine, sftLine } from '../../bench/fake-kube-api';
import { evaluationOf, medianStepSeconds, sparkline, STALL_FACTOR, STALL_FLOOR_SECONDS, stallOf, stepPoints, usage } from '../../status/metrics';

const MIN = 60_000;
const at = (minutes: number) => Date.parse(iso(minutes));

test('step lines: step, time (RFC3339Nano as the API serves it) and loss; a step logged again after a restart counts once', () => {
  expect(rfc3339Nano(at(1) + 123)).toBe('2026-12-01T06:01:00.123Z');
  expect(rfc3339Nano(at(1))).toBe('2026-12-01T06:01:00Z');
  const log = [
    sftLine(1, 10, 2.5),
    `2026-12-01T06:02:00.123456789Z I1201 metric_logger.py:230] completed step: 20, seconds: 1.9, TFLOP/s/device: 1, Tokens/s/device: 1, total_weights: 1, loss: 2.250, lm_loss: 2.250, perplexity: 9`,
    'Restoring checkpoint 10',
    sftLine(5, 20, 2.2),
  ].join('\n');
  expect(stepPoints('sft', log)).toEqual([
    { step: 10, at: at(1), loss: 2.5 },
    { step: 20, at: at(5), loss: 2.2 },
  ]);
  expect(stepPoints('rl', rlLine(3, 7, 0.25))).toEqual([{ step: 7, at: at(3), loss: 0.25 }]);
  // lm_loss is not the loss: the first `loss:` after the step is.
  expect(stepPoints('sft', sftLine(1, 1, 0.5))[0]!.loss).toBe(0.5);
});

test(`stall rule default: the ${STALL_FLOOR_SECONDS / 60}-minute floor for fast steps`, () => {
  const points = Array.from({ length: 10 }, (_, i) => ({ step: i + 1, at: at(i) })); // one step a minute
  expect(medianStepSeconds(points)).toBe(60);
  expect(stallOf(points, at(9) + 10 * MIN)).toBeUndefined(); // exactly the floor
  expect(stallOf(points, at(9) + 10 * MIN + 1000)).toMatchObject({ lastStep: 10, thresholdSeconds: 600, silentSeconds: 601, medianSeconds: 60 });
});

test(`stall rule: ${STALL_FACTOR} x the median step time when that is longer than the floor`, () => {
  const points = [0, 4, 8, 12].map((m, i) => ({ step: i + 1, at: at(m) })); // 4 minutes a step
  expect(stallOf(points, at(12) + 19 * MIN)).toBeUndefined();
  expect(stallOf(points, at(12) + 21 * MIN)).toMatchObject({ thresholdSeconds: 20 * 60, lastStep: 4 });
});

test('stall rule: one step line (no interval yet) uses the floor; no step line yet is never a stall', () => {
  expect(stallOf([{ step: 1, at: at(0) }], at(11))).toMatchObject({ thresholdSeconds: 600 });
  expect(stallOf([], at(500))).toBeUndefined();
  expect(stallOf([{ step: 1 }], at(500))).toBeUndefined();
});

test('evaluation: before, after and the change in accuracy points; one side alone; none', () => {
  const log = [evalLine(1, 'Pre', 10, 80, 0.1), rlLine(2, 1), evalLine(3, 'Post', 34, 80, 0.45)].join('\n');
  expect(evaluationOf(log)).toEqual({
    before: { correct: 10, total: 80, accuracy: 12.5, meanReward: 0.1 },
    after: { correct: 34, total: 80, accuracy: 42.5, meanReward: 0.45 },
    accuracyChange: 30,
  });
  expect(evaluationOf(evalLine(1, 'Pre', 1, 3, 0))).toEqual({ before: { correct: 1, total: 3, accuracy: 33.33, meanReward: 0 } });
  expect(evaluationOf(rlLine(1, 1))).toBeUndefined();
});

test('usage: chips x hours from admission, priced; the review bound is chips x the wait timeout', () => {
  const price = { rate: 'on-demand', chipHour: 2.7, currency: 'USD', money: (n: number) => `$${n.toFixed(2)}` };
  expect(usage(32, at(0), at(90), true, 600, price)).toEqual({
    chips: 32,
    admittedAt: at(0),
    until: at(90),
    ended: true,
    chipHours: 48,
    cost: 48 * 2.7,
    estimateCost: 320 * 2.7,
    rate: 'on-demand',
    currency: 'USD',
    costText: '$129.60',
    estimateCostText: '$864.00',
    estimateChipHours: 320,
  });
  expect(usage(8, at(0), at(30), false, 60)).toEqual({ chips: 8, admittedAt: at(0), until: at(30), ended: false, chipHours: 4, estimateChipHours: 8 });
  expect(usage(8, at(0), at(30), false, 60, { ...price, estimate: true }).costText).toBe('$10.80 (estimate)');
});

test('sparkline: the lowest value is the lowest bar; long series are bucketed to the width; flat is mid', () => {
  expect(sparkline([3, 2, 1])).toBe('█▅▁');
  expect(sparkline([1, 1, 1])).toBe('▄▄▄');
  expect(sparkline(Array.from({ length: 400 }, (_, i) => 400 - i), 40)).toHaveLength(40);
  expect(sparkline([])).toBe('');
});
