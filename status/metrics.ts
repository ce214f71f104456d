/**
 * What a training step did, from its main container's log and its Kueue workload: the step series (step, time, loss),
 * stalls, MaxText's RL evaluation before and after training, and the chip-hours held with their price. Pure: no
 * client, no clock (`now` is an input). The log line formats live in jobs/run-log.ts.
 *
 * Stall rule (the choice, stated once): a running training step is stalled when its last step line is older than
 * max(STALL_FLOOR_SECONDS, STALL_FACTOR x the median interval between its step lines in the window read). The floor
 * keeps a fast SFT run (seconds per step) from looking stalled during a checkpoint save; the factor scales to RL steps
 * (minutes each). With one step line there is no interval yet and the floor alone applies; before the first step
 * line (loading, compiling) nothing is called stalled.
 *
 * Chip-hours: the TPU chips of the Kueue admission (pkg/scheduler: `status.admission.podSetAssignments[].resourceUsage`,
 * kueue v0.19.2) times the time from admission (the `Admitted` condition's lastTransitionTime, else `QuotaReserved`'s)
 * to the end (the JobSet's `Completed`/`Failed` condition time) or now. An eviction and readmission moves the
 * Admitted time: the hours before the last admission are not counted (a lower bound then).
 */
import { STALL_FACTOR, STALL_FLOOR_SECONDS } from '../jobs/notifications';
import { EVAL_PATTERN, LOG_TIMESTAMP } from '../jobs/run-log';
import { methodRow, TrainKind } from '../jobs/methods';

export { STALL_FACTOR, STALL_FLOOR_SECONDS } from '../jobs/notifications';

export interface StepPoint {
  readonly step: number;
  /** Epoch ms of the line (`timestamps=true`). @default - unknown */
  readonly at?: number;
  /** The loss printed on the line. @default - none printed */
  readonly loss?: number;
}

function stampOf(line: string): number | undefined {
  const m = LOG_TIMESTAMP.exec(line);
  if (!m) return undefined;
  const ms = new Date(m[1]!).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/** Every step line of a log, in order; a step printed again (after a restart) replaces the earlier point. */
export function stepPoints(kind: TrainKind, log: string): StepPoint[] {
  const { progress, loss: lossLine } = methodRow(kind).log;
  const byStep = new Map<number, StepPoint>();
  for (const line of log.split('\n')) {
    const m = progress.exec(line);
    if (!m) continue;
    const loss = lossLine.exec(line);
    const step = Number(m[1]);
    byStep.delete(step);
    byStep.set(step, { step, at: stampOf(line), ...(loss ? { loss: Number(loss[1]) } : {}) });
  }
  return [...byStep.values()];
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1]! + s[mid]!) / 2;
}

export interface Stall {
  readonly lastStep: number;
  /** Epoch ms of the last step line. */
  readonly lastAt: number;
  readonly silentSeconds: number;
  readonly thresholdSeconds: number;
  /** Median seconds between step lines. @default - one step line only */
  readonly medianSeconds?: number;
}

/** Seconds per step (median of the intervals between consecutive timed step lines, per step). */
export function medianStepSeconds(points: readonly StepPoint[]): number | undefined {
  const timed = points.filter((p) => p.at !== undefined);
  const intervals: number[] = [];
  for (let i = 1; i < timed.length; i++) {
    const steps = timed[i]!.step - timed[i - 1]!.step;
    if (steps > 0) intervals.push((timed[i]!.at! - timed[i - 1]!.at!) / 1000 / steps);
  }
  return median(intervals);
}

/** The stall of a running step, or undefined while its steps keep coming (see the module doc for the rule). */
export function stallOf(points: readonly StepPoint[], now: number): Stall | undefined {
  const last = [...points].reverse().find((p) => p.at !== undefined);
  if (!last) return undefined;
  const medianSeconds = medianStepSeconds(points);
  const thresholdSeconds = Math.max(STALL_FLOOR_SECONDS, medianSeconds !== undefined ? STALL_FACTOR * medianSeconds : 0);
  const silentSeconds = Math.round((now - last.at!) / 1000);
  if (silentSeconds <= thresholdSeconds) return undefined;
  return { lastStep: last.step, lastAt: last.at!, silentSeconds, thresholdSeconds: Math.round(thresholdSeconds), ...(medianSeconds !== undefined ? { medianSeconds } : {}) };
}

export interface EvalResult {
  readonly correct: number;
  readonly total: number;
  /** Percent. */
  readonly accuracy: number;
  /** @default - not printed */
  readonly meanReward?: number;
}

export interface Evaluation {
  /** `Pre RL Training:` (before the first step). @default - not in the log */
  readonly before?: EvalResult;
  /** `Post RL Training:` (after the last step). @default - not in the log */
  readonly after?: EvalResult;
  /** after - before, accuracy points. @default - one of them missing */
  readonly accuracyChange?: number;
}

/** MaxText train_rl's evaluation lines (jobs/run-log.ts EVAL_PATTERN); undefined when the log has none. */
export function evaluationOf(log: string): Evaluation | undefined {
  let before: EvalResult | undefined;
  let after: EvalResult | undefined;
  for (const line of log.split('\n')) {
    const m = EVAL_PATTERN.exec(line);
    if (!m) continue;
    const r: EvalResult = { correct: Number(m[2]), total: Number(m[3]), accuracy: Number(m[4]), ...(m[5] !== undefined ? { meanReward: Number(m[5]) } : {}) };
    if (m[1] === 'Pre') before = r;
    else after = r;
  }
  if (!before && !after) return undefined;
  const change = before && after ? Math.round((after.accuracy - before.accuracy) * 100) / 100 : undefined;
  return { ...(before ? { before } : {}), ...(after ? { after } : {}), ...(change !== undefined ? { accuracyChange: change } : {}) };
}

/** The price of a pipeline's chips (from the review's price table, jobs/prices.ts). */
export interface ChipPrice {
  /** `on-demand`, `spot`, ... (jobs/prices.ts RATE_TEXT). */
  readonly rate: string;
  /** Price of one chip-hour. @default - the table has no price for this TPU generation and rate */
  readonly chipHour?: number;
  /** The price is an estimate, not a list price. @default false */
  readonly estimate?: boolean;
  readonly currency: string;
  /** Formats an amount in the table's currency. */
  money(amount: number): string;
}

export interface Usage {
  readonly chips: number;
  /** Epoch ms of the Kueue admission. */
  readonly admittedAt: number;
  /** Epoch ms of the end, or now while running. */
  readonly until: number;
  readonly ended: boolean;
  readonly chipHours: number;
  /** At the price table's rate. @default - no price */
  readonly cost?: number;
  /** The review's bound: chips x the step's wait timeout (timeouts.create, jobs/pipeline.ts waitMinutes). */
  readonly estimateChipHours: number;
  /** @default - no price */
  readonly estimateCost?: number;
  /** The rate priced at (`on-demand`, `spot`, ...). @default - no price */
  readonly rate?: string;
  /** The currency (the price table's). @default - no price */
  readonly currency?: string;
  /** `cost` and `estimateCost` as the price table formats money; `(estimate)` when the rate is one. @default - no price */
  readonly costText?: string;
  readonly estimateCostText?: string;
}

/** Chip-hours held from `admittedAt` to `until`, priced. */
export function usage(chips: number, admittedAt: number, until: number, ended: boolean, waitMinutes: number, price?: ChipPrice): Usage {
  const chipHours = (chips * Math.max(0, until - admittedAt)) / 3_600_000;
  const estimateChipHours = (chips * waitMinutes) / 60;
  const rate = price?.chipHour;
  return {
    chips,
    admittedAt,
    until,
    ended,
    chipHours,
    ...(rate !== undefined && price
      ? {
          cost: chipHours * rate,
          estimateCost: estimateChipHours * rate,
          rate: price.rate,
          currency: price.currency,
          costText: `${price.money(chipHours * rate)}${price.estimate ? ' (estimate)' : ''}`,
          estimateCostText: price.money(estimateChipHours * rate),
        }
      : {}),
    estimateChipHours,
  };
}

const BARS = '▁▂▃▄▅▆▇█';

/** A one-line chart of `values` (at most `width` characters; longer series are averaged into buckets). */
export function sparkline(values: readonly number[], width = 40): string {
  if (values.length === 0) return '';
  const buckets = values.length <= width ? values.map((v) => [v]) : Array.from({ length: width }, (_, i) => values.slice(Math.floor((i * values.length) / width), Math.floor(((i + 1) * values.length) / width)));
  const means = buckets.map((b) => b.reduce((s, v) => s + v, 0) / b.length);
  const lo = Math.min(...means);
  const hi = Math.max(...means);
  return means.map((v) => BARS[hi === lo ? 3 : Math.round(((v - lo) / (hi - lo)) * (BARS.length - 1))]).join('');
}

/** `1h02m`, `4m05s`, `42s`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
