/**
 * What a fault costs, per pipeline and capacity type (`npm run bench -- faults`; also printed by `npm run bench`).
 * Pure arithmetic over what the app builds (jobs/): no cluster, no timing.
 *
 * - One preemption: the slice's chips x (the work since the last checkpoint + the slice's downtime), where the work
 *   is at most one checkpoint interval (the step's attempt deadline x checkpoint_period / steps: an upper bound, training
 *   runs at most that long) and the downtime is how long the slice is gone, shown for a 20-minute, a 90-minute and a
 *   3-hour outage (Kueue does not time a recovery out: jobs/kueue.ts PODS_READY). Before the restart changes: the whole
 *   step, chips x the attempt deadline, for the Pathways pipelines (maxRestarts 0, and the head's exit 1 failed the
 *   JobSet) and for multi-host SFT when its peers' exit 1 is seen first.
 * - Never-ready pods: the longest a workload holds TPU quota per admission (the PodsReady timeout) and in all before
 *   Kueue deactivates it, against the 12 h (the Jobs' activeDeadlineSeconds) the issue assumed.
 */
import { loadDeployment } from '../config/deployment';
import { CAPACITY_TYPES, CapacityType, DEFAULT_TRAIN_MAX_RESTARTS, FLEX_START_MAX_RUN_HOURS } from '../jobs/capacity';
import { PODS_READY } from '../jobs/kueue';
import { checkpointPeriod, lastCheckpointStep } from '../jobs/maxtext';
import { buildPipeline, Pipeline } from '../jobs/pipeline';
import { Platform } from '../jobs/platform';
import { RECIPES } from '../jobs/recipes';

/** The slice outages the preemption cost is shown for, minutes. */
export const OUTAGE_MINUTES = [20, 90, 180] as const;

export interface FaultRow {
  readonly pipeline: string;
  readonly capacity: CapacityType;
  readonly chips: number;
  readonly maxRestarts: number;
  /** The work one preemption loses at most (one checkpoint interval), hours. */
  readonly lostWorkHours: number;
  /** Chip-hours one preemption costs at most, for each slice outage in OUTAGE_MINUTES: chips x (lost work + outage). */
  readonly preemption: ReadonlyArray<{ readonly outageMinutes: number; readonly chipHours: number }>;
  /** Chip-hours one preemption cost before this change, at most (the whole step). */
  readonly preemptionToday: number;
  /** Longest a never-ready workload holds TPU quota now: per admission and until deactivated, hours. */
  readonly neverReadyPerAdmissionHours: number;
  readonly neverReadyTotalHours: number;
  /** The issue's "today": the attempt deadline, hours. */
  readonly neverReadyTodayHours: number;
}

function withCapacity(platform: Platform, type: CapacityType): Platform {
  const capacity = type === 'reservation' ? undefined : type === 'spot' ? { type } : { type, maxRunDurationSeconds: FLEX_START_MAX_RUN_HOURS.default * 3600 };
  return capacity ? { ...platform, tpuGroups: platform.tpuGroups.map((g) => ({ ...g, capacity })) } : platform;
}

export function faultRows(): FaultRow[] {
  const base = loadDeployment({ env: { SINGLE_HOST_RESERVATION: 'example-v6e-8-reservation' } }).platform;
  const rows: FaultRow[] = [];
  for (const name of Object.keys(RECIPES)) {
    for (const capacity of CAPACITY_TYPES) {
      const p: Pipeline = buildPipeline(RECIPES[name], withCapacity(base, capacity), { runId: 'r1' });
      const train = p.steps.find((s) => s.name === 'train')!;
      const chips = p.slice.chips * p.slices;
      const total = lastCheckpointStep(p.recipe.train);
      const cp = checkpointPeriod(total);
      const period = 'period' in cp ? cp.period : total;
      const runHours = train.timeoutMinutes / 60;
      const lostWorkHours = runHours * (period / total);
      rows.push({
        pipeline: name,
        capacity,
        chips,
        maxRestarts: DEFAULT_TRAIN_MAX_RESTARTS[capacity],
        lostWorkHours,
        preemption: OUTAGE_MINUTES.map((m) => ({ outageMinutes: m, chipHours: chips * (lostWorkHours + m / 60) })),
        preemptionToday: chips * runHours,
        neverReadyPerAdmissionHours: PODS_READY.timeoutMinutes / 60,
        neverReadyTotalHours: ((PODS_READY.backoffLimitCount + 1) * PODS_READY.timeoutMinutes) / 60,
        neverReadyTodayHours: runHours,
      });
    }
  }
  return rows;
}

export function printFaultRows(rows: readonly FaultRow[] = faultRows()): void {
  const outages = OUTAGE_MINUTES.map((m) => (m % 60 === 0 ? `${m / 60} h` : `${m} min`));
  console.log('\nfaults: chip-hours one preemption costs (at most: chips x (work since the last checkpoint + slice outage)), and TPU quota held by never-ready pods');
  console.log(
    `${'pipeline'.padEnd(12)} ${'capacity'.padEnd(12)} ${'chips'.padStart(5)} ${'maxRestarts'.padStart(11)} ${'lost work'.padStart(9)} ` +
      `${outages.map((o) => `outage ${o}`.padStart(14)).join(' ')} ${'before'.padStart(8)} ${'never-ready now'.padStart(24)} ${'today'.padStart(7)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.pipeline.padEnd(12)} ${r.capacity.padEnd(12)} ${String(r.chips).padStart(5)} ${String(r.maxRestarts).padStart(11)} ` +
        `${`${r.lostWorkHours.toFixed(1)} h`.padStart(9)} ` +
        `${r.preemption.map((p) => `${p.chipHours.toFixed(0)} ch`.padStart(14)).join(' ')} ${`${r.preemptionToday.toFixed(0)} ch`.padStart(8)} ` +
        `${`${(r.neverReadyPerAdmissionHours * 60).toFixed(0)} min/admission, ${r.neverReadyTotalHours.toFixed(1)} h`.padStart(24)} ${`${r.neverReadyTodayHours.toFixed(0)} h`.padStart(7)}`,
    );
  }
  console.log(
    '("today" for never-ready pods is the issue\'s assumption, the attempt deadline; Kueue v0.19.2 with a v1beta2 Configuration ' +
      'that omits waitForPodsReady already evicts after 30 min, but requeues without end.)',
  );
}
