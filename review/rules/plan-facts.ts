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
  return c.type === 'kubernetes_manifest' ? model(c, c[side])?.jobsets[0] : undefined;
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
