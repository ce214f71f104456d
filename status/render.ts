/**
 * Renders step states: text (one line per step, a progress bar and ETA for training, detail lines below) and the
 * `--json` document `{"pipelines":[{"name","steps":[{"name","jobset","state","reason"?,"message"?,"progress"?,"stall"?,"run"?}]}]}`
 * (`run`: chips, admittedAt, endedAt?, chipHours, cost?, currency?, rate?, estimate {chipHours, cost?}, loss [[step, loss]], evaluation?,
 * eval? {evalJson, trainedModel, baseModel, samples, seed, image, results [{task, metric, higherIsBetter, base, trained, delta}], gate?}).
 */
import { engineLines } from './workflow';
import { duration, sparkline } from './metrics';
import { PipelineStatus, RunSummary, StepStatus } from './model';
import { evalLines } from './eval';
import type { RunCost, TpuStepCost } from './run-cost';

export { duration } from './metrics';

/** `[#########...............]` for step/total. */
export function progressBar(step: number, total: number, width = 24): string {
  const filled = total > 0 ? Math.min(width, Math.floor((step / total) * width)) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

function stepLine(s: StepStatus, nameWidth: number, jobSetWidth: number): string {
  const parts: string[] = [];
  if (s.progress) {
    const pct = s.progress.total > 0 ? Math.floor((100 * s.progress.step) / s.progress.total) : 0;
    if (s.state === 'running' || s.state === 'stalled') parts.push(`${progressBar(s.progress.step, s.progress.total)} ${s.progress.step}/${s.progress.total} (${pct}%)`);
  }
  if (s.state === 'running' || s.state === 'stalled') {
    const timing = [
      s.elapsedSeconds !== undefined ? `elapsed ${duration(s.elapsedSeconds)}` : undefined,
      s.etaSeconds !== undefined ? `ETA ${duration(s.etaSeconds)}` : undefined,
      s.chips ? `${s.chips} chips` : undefined,
    ].filter((x): x is string => x !== undefined);
    if (timing.length > 0) parts.push(timing.join(', '));
  }
  if (s.reason) parts.push(`${s.reason}:`);
  if (s.message) parts.push(s.message);
  return `  ${s.name.padEnd(nameWidth)}  ${s.state.padEnd(11)}  ${s.jobset.padEnd(jobSetWidth)}  ${parts.join(' ')}`.trimEnd();
}

/** The text report: a header line per pipeline, a line per step, detail lines indented under it. */
export function renderText(pipelines: readonly PipelineStatus[]): string {
  const steps = pipelines.flatMap((p) => p.steps);
  const nameWidth = Math.max(...steps.map((s) => s.name.length), 4);
  const jobSetWidth = Math.max(...steps.map((s) => s.jobset.length), 6);
  const lines: string[] = [];
  for (const p of pipelines) {
    lines.push(p.name);
    if (p.engine) for (const l of engineLines(p.engine)) lines.push(`  ${l}`);
    for (const s of p.steps) {
      lines.push(stepLine(s, nameWidth, jobSetWidth));
      for (const d of [...s.details, ...(s.run ? runLines(s.run) : [])]) lines.push(`      ${d}`);
    }
    if (p.cost) lines.push(`  ${p.cost.text}`);
    for (const l of p.rehearsal?.lines ?? []) lines.push(`  ${l}`);
  }
  return lines.join('\n') + '\n';
}

/** `12.3` / `420` for chip-hours. */
export function chipHoursText(n: number): string {
  return n >= 100 || Number.isInteger(n) ? String(Math.round(n)) : n.toFixed(n >= 10 ? 1 : 2);
}

/** The loss series as numbers: [[step, loss], ...] (points without a loss left out). */
export function lossSeries(run: RunSummary): Array<[number, number]> {
  return run.points.filter((p) => p.loss !== undefined).map((p) => [p.step, p.loss!]);
}

/** Text lines of what a training step did: chip-hours and cost against the review's bound, the loss trend, the evaluation. */
export function runLines(run: RunSummary): string[] {
  const out: string[] = [];
  const u = run.usage;
  if (u) {
    const span = `${u.chips} chips x ${duration((u.until - u.admittedAt) / 1000)} from admission${u.ended ? '' : ' so far'}`;
    const cost = u.costText ? ` ~${u.costText} at the ${u.rate} rate` : '';
    const bound = `review estimate at most ${chipHoursText(u.estimateChipHours)} chip-hours${u.estimateCostText ? ` (~${u.estimateCostText})` : ''}`;
    out.push(`chip-hours ${chipHoursText(u.chipHours)} (${span})${cost}; ${bound}`);
  }
  const loss = lossSeries(run);
  if (loss.length > 0) {
    const first = loss[0]!;
    const last = loss[loss.length - 1]!;
    out.push(`loss ${first[1]} -> ${last[1]} ${sparkline(loss.map((l) => l[1]))} (steps ${first[0]}-${last[0]}, ${loss.length} points)`);
  }
  const e = run.evaluation;
  if (e) {
    const acc = (r?: { accuracy: number; correct: number; total: number }) => (r ? `${r.accuracy}% (${r.correct}/${r.total})` : '?');
    const change = e.accuracyChange !== undefined ? ` (${e.accuracyChange >= 0 ? '+' : ''}${e.accuracyChange} points)` : '';
    const reward = e.before?.meanReward !== undefined || e.after?.meanReward !== undefined ? `, mean reward ${e.before?.meanReward ?? '?'} -> ${e.after?.meanReward ?? '?'}` : '';
    out.push(`evaluation: accuracy ${acc(e.before)} before -> ${acc(e.after)} after${change}${reward}`);
  }
  if (run.eval) out.push(...evalLines(run.eval));
  return out;
}

function runJson(run: RunSummary): Record<string, unknown> {
  const u = run.usage;
  return {
    ...(u
      ? {
          chips: u.chips,
          admittedAt: new Date(u.admittedAt).toISOString(),
          ...(u.ended ? { endedAt: new Date(u.until).toISOString() } : {}),
          chipHours: Math.round(u.chipHours * 1000) / 1000,
          ...(u.cost !== undefined ? { cost: Math.round(u.cost * 100) / 100, currency: u.currency, rate: u.rate } : {}),
          estimate: { chipHours: Math.round(u.estimateChipHours * 1000) / 1000, ...(u.estimateCost !== undefined ? { cost: Math.round(u.estimateCost * 100) / 100 } : {}) },
        }
      : {}),
    loss: lossSeries(run),
    ...(run.evaluation ? { evaluation: run.evaluation } : {}),
    ...(run.eval ? { eval: run.eval } : {}),
  };
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** A pipeline's `cost`: {training?: {chipHours, cost?, reserved}, cpu: [{step, nodeHours, cost?}], clusterFee: {hours, cost}, total?, added?}. */
const tpuJson = (t: TpuStepCost) => ({ chipHours: round(t.chipHours, 3), ...(t.cost !== undefined ? { cost: round(t.cost, 2) } : {}), reserved: t.reserved });

export function costJson(c: RunCost): Record<string, unknown> {
  return {
    ...(c.training ? { training: tpuJson(c.training) } : {}),
    ...(c.evaluation ? { eval: tpuJson(c.evaluation) } : {}),
    cpu: c.cpuSteps.map((s) => ({ step: s.step, nodeHours: round(s.nodeHours, 3), ...(s.cost !== undefined ? { cost: round(s.cost, 2) } : {}) })),
    clusterFee: { hours: round(c.clusterFee.hours, 3), cost: round(c.clusterFee.cost, 2) },
    ...(c.total !== undefined ? { total: round(c.total, 2) } : {}),
    ...(c.added !== undefined ? { added: round(c.added, 2) } : {}),
  };
}

/** The `--json` document (exactly the documented keys). */
/** Where a status was read from: the cluster, where its records were listed, and the local config it was built with. */
export interface StatusSource {
  readonly cluster: string;
  readonly server: string;
  readonly recordsReadFrom: string;
  /** The local config file and environment variables (config/load.ts origin line). */
  readonly localConfig: string;
}

export function toJson(pipelines: readonly PipelineStatus[], source?: StatusSource): { pipelines: unknown[]; source?: StatusSource } {
  return {
    pipelines: pipelines.map((p) => ({
      name: p.name,
      steps: p.steps.map((s) => ({
        name: s.name,
        jobset: s.jobset,
        state: s.state,
        ...(s.reason !== undefined ? { reason: s.reason } : {}),
        ...(s.message !== undefined ? { message: s.message } : {}),
        ...(s.progress !== undefined ? { progress: { step: s.progress.step, total: s.progress.total } } : {}),
        ...(s.stall !== undefined
          ? { stall: { lastStep: s.stall.lastStep, lastStepAt: new Date(s.stall.lastAt).toISOString(), silentSeconds: s.stall.silentSeconds, thresholdSeconds: s.stall.thresholdSeconds } }
          : {}),
        ...(s.run !== undefined ? { run: runJson(s.run) } : {}),
        ...(s.commits !== undefined ? { commits: { ...s.commits } } : {}),
      })),
      ...(p.cost ? { cost: costJson(p.cost.cost) } : {}),
      ...(p.engine ? { engine: p.engine } : {}),
      ...(p.rehearsal ? { rehearsal: p.rehearsal.verdict } : {}),
    })),
    ...(source ? { source } : {}),
  };
}
