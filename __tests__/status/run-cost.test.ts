/**
 * The whole run's cost (status/run-cost.ts), in process: training's chips, the conversion's and export's CPU-pool
 * node-hours, the cluster fee over the run's span; training on a reservation is "already paid for by the reservation".
 * Prices: jobs/prices.json (GKE cluster management fee $0.10/h; CPU per vCPU- and GiB-hour by family).
 */
import { emptyWorld, iso, jobSet, pipeline, platform, record, step, workload } from '../../bench/fake-kube-api';
import { loadPrices, cpuHourly, money } from '../../jobs/prices';
import { pipelineStatus, Snapshot, stepSpans } from '../../status/model';
import { CostRates, runCost, runCostLine } from '../../status/run-cost';
import { costJson, renderText } from '../../status/render';
import { chipPrices } from '../../status/cli';
import { renderRunReport } from '../../status/report';

const prices = loadPrices();
const llamaRecord = record('rl-llama3');
const llama = pipeline('rl-llama3');
const rates: CostRates = { cpuNodeHour: cpuHourly(prices, llamaRecord.cpuMachineType), clusterFeePerHour: prices.clusterManagementFeePerHour, money: (n) => money(prices, n) };
const ended = (minutes: number) => ({ terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done', lastTransitionTime: iso(minutes) }] });

/** rl-llama3 run end to end: to-maxtext 06:00-06:30, train 06:30-08:30 (admitted 06:31), to-hf 08:30-09:00. */
function finishedRun(): Snapshot {
  const w = emptyWorld();
  const at = (js: any, minutes: number) => ((js.metadata.creationTimestamp = iso(minutes)), js);
  w.jobSets.push(at(jobSet(step(llama, 'to-maxtext'), ended(30)), 0));
  const train = at(jobSet(step(llama, 'train'), ended(150)), 30);
  w.jobSets.push(train, at(jobSet(step(llama, 'to-hf'), ended(180)), 150));
  w.workloads.push(workload(train, true, { chips: 8 }));
  return w;
}

test('the spans: creation to the Completed/Failed condition, or to now while running; steps not created have none', () => {
  const w = finishedRun();
  const spans = stepSpans(llamaRecord, w, Date.parse(iso(999)));
  expect([...spans.entries()].map(([k, s]) => [k, (s.until - s.from) / 60_000])).toEqual([['to-maxtext', 30], ['train', 120], ['to-hf', 30]]);
  const running = emptyWorld();
  running.jobSets.push(jobSet(step(llama, 'to-maxtext')));
  expect((stepSpans(llamaRecord, running, Date.parse(iso(12))).get('to-maxtext')!.until - Date.parse(iso(0))) / 60_000).toBe(12);
  expect(runCost(llamaRecord, new Map(), undefined, rates)).toBeUndefined();
  // A Failed condition ends a span too; a False one does not; a JobSet of the same name in another namespace is not the step's.
  const other = emptyWorld();
  const failedJs = jobSet(step(llama, 'to-maxtext'), { conditions: [{ type: 'Completed', status: 'False', lastTransitionTime: iso(3) }, { type: 'Failed', status: 'True', lastTransitionTime: iso(7) }] });
  const elsewhere = jobSet(step(llama, 'train'));
  elsewhere.metadata.namespace = 'team-b';
  other.jobSets.push(failedJs, elsewhere);
  const s = stepSpans(llamaRecord, other, Date.parse(iso(50)));
  expect([...s.keys()]).toEqual(['to-maxtext']);
  expect((s.get('to-maxtext')!.until - s.get('to-maxtext')!.from) / 60_000).toBe(7);
});

test('a reserved training: chips already paid for by the reservation; the run adds CPU node-hours and the cluster fee', () => {
  expect(llamaRecord.capacity).toBe('reservation');
  const status = pipelineStatus(llamaRecord, finishedRun(), new Map(), { clusterQueue: platform.clusterQueue, now: Date.parse(iso(999)), price: chipPrices(), costRates: () => rates });
  const c = status.cost!.cost;
  const node = rates.cpuNodeHour!;
  expect(c.cpuSteps).toEqual([
    { step: 'to-maxtext', nodeHours: 0.5, cost: 0.5 * node },
    { step: 'to-hf', nodeHours: 0.5, cost: 0.5 * node },
  ]);
  expect(c.clusterFee).toEqual({ hours: 3, cost: 3 * 0.1 });
  // Training from its admission (06:01, the fixture's condition time) to its end (08:30): 8 chips.
  const chipHours = (8 * (150 - 1)) / 60;
  expect(c.training!.chipHours).toBeCloseTo(chipHours, 9);
  expect(c.training!.reserved).toBe(true);
  expect(c.added).toBeCloseTo(node + 0.3, 9);
  expect(c.total).toBeCloseTo(node + 0.3 + c.training!.cost!, 9);
  // The eval step after to-hf (this world has the single-host slice it runs on) has not run: the run is not over yet.
  expect(status.steps.map((x) => x.state)).toEqual(['completed', 'completed', 'completed', 'not-created']);
  expect(status.cost!.text).toBe(
    `run cost so far: training ${chipHours.toFixed(1)} chip-hours ~${money(prices, c.training!.cost!)} (already paid for by the reservation); ` +
      `to-maxtext + to-hf 1.00 cpu-np node-hours (${llamaRecord.cpuMachineType}) ~${money(prices, node)}; cluster fee 3h00m x ${money(prices, 0.1)}/h ~${money(prices, 0.3)}; ` +
      `total ~${money(prices, c.total!)}, of which ~${money(prices, c.added!)} beyond the reservation`,
  );
  expect(renderText([status])).toContain(`\n  ${status.cost!.text}\n`);
  expect(renderRunReport(status, { generatedAt: 0, cluster: 'c' })).toContain(`## Whole run\n\n- ${status.cost!.text}\n`);
  expect(costJson(c)).toMatchObject({ training: { reserved: true }, cpu: [{ step: 'to-maxtext', nodeHours: 0.5 }, { step: 'to-hf', nodeHours: 0.5 }], clusterFee: { hours: 3, cost: 0.3 } });
});

test('spot training is what the run adds; a CPU machine type with no price leaves the total out', () => {
  const spot = { ...llamaRecord, capacity: 'spot' as const };
  const w = finishedRun();
  const spans = stepSpans(spot, w, Date.parse(iso(999)));
  const usage = { chips: 8, admittedAt: 0, until: 3_600_000, ended: true, chipHours: 8, cost: 8 * 0.81, estimateChipHours: 8 };
  const c = runCost(spot, spans, { usage, points: [] }, rates)!;
  expect(c.training).toEqual({ chipHours: 8, cost: 8 * 0.81, reserved: false });
  expect(c.added).toBeCloseTo(c.total!, 9);
  expect(runCostLine(c, rates, true)).not.toContain('reservation');
  const unpriced = runCost(spot, spans, { usage, points: [] }, { ...rates, cpuNodeHour: undefined })!;
  expect(unpriced.total).toBeUndefined();
  expect(unpriced.cpuSteps.every((s) => s.cost === undefined)).toBe(true);
  expect(runCostLine(unpriced, rates, false)).toMatch(/^run cost so far: .*cpu-np node-hours \(.*\) \(no price for this machine type\); cluster fee /);
});

test("the eval step's chips count in the run: at its own pool's rate, apart when its pool is reserved", () => {
  const usage = (chipHours: number, cost: number) => ({ usage: { chips: 4, admittedAt: 0, until: 3_600_000, ended: true, chipHours, cost, estimateChipHours: chipHours }, points: [] });
  const spans = stepSpans(llamaRecord, finishedRun(), Date.parse(iso(999)));
  const evalStep = llamaRecord.steps.find((s) => s.name === 'eval')!;
  expect(evalStep.tpuPool).toBeDefined();
  // The eval pool on spot: what the run adds, with training's reserved chips apart.
  const spotEval = { ...llamaRecord, steps: llamaRecord.steps.map((s) => (s === evalStep ? { ...s, tpuPool: { ...s.tpuPool!, capacity: 'spot' as const } } : s)) };
  const c = runCost(spotEval, spans, usage(16, 20), rates, usage(2, 3))!;
  expect(c.evaluation).toEqual({ chipHours: 2, cost: 3, reserved: false });
  const cpu = c.cpuSteps.reduce((n, s) => n + s.cost!, 0);
  expect(c.total).toBeCloseTo(cpu + c.clusterFee.cost + 20 + 3, 9);
  expect(c.added).toBeCloseTo(cpu + c.clusterFee.cost + 3, 9);
  expect(runCostLine(c, rates, true)).toMatch(
    new RegExp(`^run cost: training 16\\.0 chip-hours ~\\S+ \\(already paid for by the reservation\\); eval 2\\.00 chip-hours ~${money(prices, 3).replace('$', '\\$')}; to-maxtext`),
  );
  expect(costJson(c)).toMatchObject({ eval: { chipHours: 2, cost: 3, reserved: false } });
  // A reserved eval pool: apart, like reserved training; an unpriced one leaves the total out.
  const reservedEval = { ...spotEval, steps: spotEval.steps.map((s) => (s.name === 'eval' ? { ...s, tpuPool: { ...s.tpuPool!, capacity: 'reservation' as const } } : s)) };
  const reserved = runCost(reservedEval, spans, undefined, rates, usage(2, 3))!;
  expect(reserved.evaluation!.reserved).toBe(true);
  expect(reserved.added).toBeCloseTo(cpu + c.clusterFee.cost, 9);
  expect(reserved.total).toBeCloseTo(cpu + c.clusterFee.cost + 3, 9);
  expect(runCostLine(reserved, rates, true)).toContain(`eval 2.00 chip-hours ~${money(prices, 3)} (already paid for by the reservation)`);
  expect(runCostLine(reserved, rates, true)).toContain(`beyond the reservation`);
  const unpriced = runCost(spotEval, spans, undefined, rates, { usage: { ...usage(2, 0).usage, cost: undefined }, points: [] })!;
  expect([unpriced.total, unpriced.added]).toEqual([undefined, undefined]);
  expect(runCostLine(unpriced, rates, false)).toContain('eval 2.00 chip-hours (no price)');
});
