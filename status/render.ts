/**
 * Renders step states: text (one line per step, a progress bar and ETA for training, detail lines below) and the
 * `--json` document `{"pipelines":[{"name","steps":[{"name","jobset","state","reason"?,"message"?,"progress"?}]}]}`.
 */
import { PipelineStatus, StepStatus } from './model';

/** `1h02m`, `4m05s`, `42s`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** `[#########...............]` for step/total. */
export function progressBar(step: number, total: number, width = 24): string {
  const filled = total > 0 ? Math.min(width, Math.floor((step / total) * width)) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

function stepLine(s: StepStatus, nameWidth: number, jobSetWidth: number): string {
  const parts: string[] = [];
  if (s.progress) {
    const pct = s.progress.total > 0 ? Math.floor((100 * s.progress.step) / s.progress.total) : 0;
    if (s.state === 'running') parts.push(`${progressBar(s.progress.step, s.progress.total)} ${s.progress.step}/${s.progress.total} (${pct}%)`);
  }
  if (s.state === 'running') {
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
    for (const s of p.steps) {
      lines.push(stepLine(s, nameWidth, jobSetWidth));
      for (const d of s.details) lines.push(`      ${d}`);
    }
  }
  return lines.join('\n') + '\n';
}

/** The `--json` document (exactly the documented keys). */
export function toJson(pipelines: readonly PipelineStatus[]): { pipelines: unknown[] } {
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
      })),
    })),
  };
}
