/** jobs/budget.ts: what steps spend, one attempt each and with every restart; CPU steps add wall time, no chip-hours. */
import { spendOf, spendRange, stepBudget } from '../../jobs/budget';

const steps = [
  { attemptMinutes: 15, maxRestarts: 2, chips: 0 },
  { attemptMinutes: 12, maxRestarts: 4, chips: 8 },
  { attemptMinutes: 30, maxRestarts: 0, chips: 32 },
];

test('one attempt of every step: wall minutes of all steps, chip-hours of the TPU ones', () => {
  expect(spendOf(steps)).toEqual({ wallMinutes: 57, chipHours: (12 * 8 + 30 * 32) / 60 });
});

test('the worst case multiplies each step by its attempts (maxRestarts + 1)', () => {
  expect(spendOf(steps, true)).toEqual({ wallMinutes: 45 + 60 + 30, chipHours: (60 * 8 + 30 * 32) / 60 });
  expect(spendRange(steps)).toEqual({ oneAttempt: spendOf(steps), worstCase: spendOf(steps, true) });
});

test('a built step: chips are the slice chips times its slices; a CPU step holds none', () => {
  expect(stepBudget({ timeoutMinutes: 10, maxRestarts: 1, tpu: { slice: { chips: 32 }, slices: 2 } })).toEqual({ attemptMinutes: 10, maxRestarts: 1, chips: 64 });
  expect(stepBudget({ timeoutMinutes: 10, maxRestarts: 1 })).toEqual({ attemptMinutes: 10, maxRestarts: 1, chips: 0 });
});
