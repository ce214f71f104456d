/**
 * What a whole run cost so far, not only its training chips: the TPU chip-hours of training and of the eval step (each
 * from its Kueue admission, status/metrics.ts usage, the eval step's at its own pool's rate), the CPU-pool node-hours of the steps that run on `cpu-np` (the conversion and
 * the export: each holds one autoscaled `cpu-np` node while it runs), and the cluster's management fee over the run's
 * span (jobs/prices.json `clusterManagementFeePerHour`, GKE pricing). A TPU step on a reservation is "already paid
 * for by the reservation": a reservation is billed whether or not pods run (jobs/prices.json note), so it is counted
 * apart from what the run adds. Pure: no clock (`now` comes in), no I/O.
 */
import type { PipelineRecord } from '../jobs/record';
import { duration } from './metrics';
import type { Usage } from './metrics';

/** What a cost reads of a training step's summary (status/model.ts RunSummary; a shape here, so this module does not import the model that imports it). */
export interface CostSummary {
  readonly usage?: Usage;
}

/** The prices a run's cost needs (the CLI fills them from the review's price table). */
export interface CostRates {
  /** One `cpu-np` node (the record's CPU machine type) per hour. @default - no price for that machine type */
  readonly cpuNodeHour?: number;
  /** The cluster management fee per hour. */
  readonly clusterFeePerHour: number;
  /** Formats an amount in the table's currency. */
  money(amount: number): string;
}

/** One step's time on the CPU pool. */
export interface CpuStepCost {
  readonly step: string;
  readonly nodeHours: number;
  /** @default - no price */
  readonly cost?: number;
}

/** A TPU step's chips: chip-hours from its Kueue admission, their price, and whether a reservation already pays them. */
export interface TpuStepCost {
  readonly chipHours: number;
  /** @default - no price */
  readonly cost?: number;
  readonly reserved: boolean;
}

export interface RunCost {
  /** Training's chips (status/metrics.ts usage). @default - not admitted yet */
  readonly training?: TpuStepCost;
  /** The eval step's chips, at its own pool's rate. @default - no eval step, or not admitted yet */
  readonly evaluation?: TpuStepCost;
  readonly cpuSteps: readonly CpuStepCost[];
  /** The machine type of those CPU nodes. */
  readonly cpuMachineType: string;
  readonly clusterFee: { readonly hours: number; readonly cost: number };
  /** Everything priced, training included. @default - a part has no price */
  readonly total?: number;
  /** What the run adds to bills already running: the total without training on a reservation. @default - a part has no price */
  readonly added?: number;
}

/** A JobSet's time span: its creation to its end (Completed/Failed condition), or to `now` while it runs (status/model.ts stepSpans). */
export interface Span {
  readonly from: number;
  readonly until: number;
}

/** The whole run's cost from its steps' spans, training's usage and the rates. */
/** A TPU step's cost from its run summary; reserved when its pool consumes a reservation. */
function tpuCost(run: CostSummary | undefined, reserved: boolean): TpuStepCost | undefined {
  const u = run?.usage;
  return u ? { chipHours: u.chipHours, ...(u.cost !== undefined ? { cost: u.cost } : {}), reserved } : undefined;
}

export function runCost<R extends CostSummary>(
  pipeline: PipelineRecord,
  spans: ReadonlyMap<string, Span>,
  training: R | undefined,
  rates: CostRates,
  evaluation?: R,
): RunCost | undefined {
  if (spans.size === 0) return undefined;
  const hours = (s: Span) => (s.until - s.from) / 3_600_000;
  const cpuSteps = pipeline.steps
    .filter((s) => s.tpuChips === undefined && spans.has(s.name))
    .map((s): CpuStepCost => {
      const nodeHours = hours(spans.get(s.name)!);
      return { step: s.name, nodeHours, ...(rates.cpuNodeHour !== undefined ? { cost: nodeHours * rates.cpuNodeHour } : {}) };
    });
  const all = [...spans.values()];
  const span = { from: Math.min(...all.map((s) => s.from)), until: Math.max(...all.map((s) => s.until)) };
  const clusterFee = { hours: hours(span), cost: hours(span) * rates.clusterFeePerHour };
  const trainingCost = tpuCost(training, pipeline.capacity === 'reservation');
  const evalCost = tpuCost(evaluation, pipeline.steps.find((st) => st.name === 'eval')?.tpuPool?.capacity === 'reservation');
  const tpu = [trainingCost, evalCost].filter((t): t is TpuStepCost => t !== undefined);
  const sum = (xs: readonly TpuStepCost[]) => xs.reduce((n, t) => n + (t.cost ?? 0), 0);
  const cpuTotal = cpuSteps.every((c) => c.cost !== undefined) ? cpuSteps.reduce((n, c) => n + c.cost!, 0) : undefined;
  const added = cpuTotal !== undefined && tpu.every((t) => t.reserved || t.cost !== undefined) ? cpuTotal + clusterFee.cost + sum(tpu.filter((t) => !t.reserved)) : undefined;
  const total = cpuTotal !== undefined && tpu.every((t) => t.cost !== undefined) ? cpuTotal + clusterFee.cost + sum(tpu) : undefined;
  return {
    ...(trainingCost ? { training: trainingCost } : {}),
    ...(evalCost ? { evaluation: evalCost } : {}),
    cpuSteps,
    cpuMachineType: pipeline.cpuMachineType,
    clusterFee,
    ...(total !== undefined ? { total } : {}),
    ...(added !== undefined ? { added } : {}),
  };
}

const hoursText = (h: number) => (h >= 10 ? h.toFixed(1) : h.toFixed(2));

/**
 * One line: `run cost so far: training 384 chip-hours ~$725.76 (already paid for by the reservation); conversion and
 * export 0.50 cpu-np node-hours (n4-highmem-64) ~$2.10; cluster fee 14h30m x $0.10 ~$1.45; total ~$729.31, of which
 * ~$3.55 beyond the reservation`.
 */
export function runCostLine(c: RunCost, rates: CostRates, ended: boolean): string {
  const parts: string[] = [];
  for (const [what, t] of [['training', c.training], ['eval', c.evaluation]] as const) {
    if (!t) continue;
    const cost = t.cost !== undefined ? ` ~${rates.money(t.cost)}` : ' (no price)';
    parts.push(`${what} ${hoursText(t.chipHours)} chip-hours${cost}${t.reserved ? ' (already paid for by the reservation)' : ''}`);
  }
  if (c.cpuSteps.length > 0) {
    const nodeHours = c.cpuSteps.reduce((sum, s) => sum + s.nodeHours, 0);
    const priced = c.cpuSteps.every((s) => s.cost !== undefined);
    const cost = priced ? ` ~${rates.money(c.cpuSteps.reduce((sum, s) => sum + s.cost!, 0))}` : ' (no price for this machine type)';
    parts.push(`${c.cpuSteps.map((s) => s.step).join(' + ')} ${hoursText(nodeHours)} cpu-np node-hours (${c.cpuMachineType})${cost}`);
  }
  parts.push(`cluster fee ${duration(c.clusterFee.hours * 3600)} x ${rates.money(rates.clusterFeePerHour)}/h ~${rates.money(c.clusterFee.cost)}`);
  const total =
    c.total !== undefined ? `; total ~${rates.money(c.total)}${(c.training?.reserved || c.evaluation?.reserved) && c.added !== undefined ? `, of which ~${rates.money(c.added)} beyond the reservation` : ''}` : '';
  return `${ended ? 'run cost' : 'run cost so far'}: ${parts.join('; ')}${total}`;
}
