/** Domain facts of one planned change's before/after values, shared by the plan-* rules. */
import { extractStack, JobSetStep, TpuPool } from '../model';
import type { TerraformJson } from '../load';
import type { PlannedChange, PlanReview } from '../plan';
import { REASONS } from './plan-reasons';

function model(c: PlannedChange, values: unknown) {
  if (values === undefined || values === null || typeof values !== 'object') return undefined;
  return extractStack('plan', { resource: { [c.type]: { [c.name]: values } } } as TerraformJson);
}

export function jobSetOf(c: PlannedChange, side: 'before' | 'after'): JobSetStep | undefined {
  // A pipeline Workflow's steps are read by plan-deletes-running-workflow, not as one JobSet.
  if (isRecord(c[side]) && isRecord((c[side] as Record<string, unknown>).manifest) && ((c[side] as Record<string, any>).manifest.kind === 'Workflow')) return undefined;
  return c.type === 'kubernetes_manifest' ? model(c, c[side])?.jobsets[0] : undefined;
}

/** The JobSet steps of a pipeline Workflow on one side of a change (empty for anything else). */
export function workflowStepsOf(c: PlannedChange, side: 'before' | 'after'): JobSetStep[] {
  if (c.type !== 'kubernetes_manifest' || !isRecord(c[side])) return [];
  const manifest = (c[side] as Record<string, unknown>).manifest;
  if (!isRecord(manifest) || manifest.kind !== 'Workflow') return [];
  return [...(model(c, c[side])?.jobsets ?? [])];
}

export function tpuPoolOf(c: PlannedChange, side: 'before' | 'after'): TpuPool | undefined {
  return c.type === 'google_container_node_pool' ? model(c, c[side])?.tpuPools[0] : undefined;
}

/** Live (non-deposed) changes of every plan, with their plan. */
export function liveChanges(plans: readonly PlanReview[]): Array<{ plan: PlanReview; c: PlannedChange }> {
  return plans.flatMap((plan) => plan.changes.filter((c) => !c.deposed).map((c) => ({ plan, c })));
}

export function destroys(c: PlannedChange): boolean {
  return c.action === 'replace' || c.action === 'delete';
}

export function verb(c: PlannedChange): string {
  return c.action === 'replace' ? 'replaced' : 'deleted';
}

/** ` (forced by x)` / ` (the resource is tainted)`, or ''. */
export function why(c: PlannedChange): string {
  if (c.replacePaths.length) return ` (forced by ${c.replacePaths.join(', ')})`;
  return c.reason && REASONS[c.reason] ? ` (${REASONS[c.reason]})` : '';
}

/**
 * What a JobSet's state before the change says about a run in progress, from the object Terraform read
 * (`before.object.status`, the JobSet API v1alpha2 status of jobset v0.12.0 api/jobset/v1alpha2/jobset_types.go:
 * `terminalState`, `conditions` Completed/Failed/Suspended, `replicatedJobsStatus[].{active,ready}`, `restarts`).
 * '' when it is not running (finished, suspended, or no status in the plan).
 */
export function runningNow(c: PlannedChange): string {
  const object = isRecord(c.before) ? c.before.object : undefined;
  const status = isRecord(object) ? object.status : undefined;
  if (!isRecord(status)) return '';
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
  const isTrue = (type: string) => conditions.some((x) => x.type === type && x.status === 'True');
  if (typeof status.terminalState === 'string' && status.terminalState) return '';
  if (isTrue('Completed') || isTrue('Failed') || isTrue('Suspended')) return '';
  const jobs = Array.isArray(status.replicatedJobsStatus) ? status.replicatedJobsStatus.filter(isRecord) : [];
  const count = (k: string) => jobs.reduce((n, j) => n + (typeof j[k] === 'number' ? (j[k] as number) : 0), 0);
  const active = count('active');
  const ready = count('ready');
  if (active + ready === 0) return '';
  const restarts = typeof status.restarts === 'number' && status.restarts > 0 ? `, after ${status.restarts} restart(s)` : '';
  return `running now (${active || ready} job(s) active${restarts}): replacing it stops a training run in progress; ` +
    'the plan does not say at which step (`npm run status` shows it), and the new run starts again from its newest checkpoint at best';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
