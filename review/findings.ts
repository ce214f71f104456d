/**
 * Runs the review rules (review/rules/, one file per rule) over the stack models, their texts and the plans.
 * Pure.
 */
import type { StackDiff } from './diff';
import type { StackModel } from './model';
import type { PlanReview } from './plan';
import { loadPrices, PriceTable } from '../jobs/prices';
import { RULES } from './rules';
import type { Finding, ReviewContext, Severity, StackText } from './rules/types';

export type { Finding, Severity, StackText } from './rules/types';
export { secretFindings } from './rules/secret-in-output';
export { imageTag } from './rules/image-unpinned';

const ORDER: Record<Severity, number> = { error: 0, warning: 1, note: 2 };

/** Every rule over all stacks and plans, errors first. */
export function review(
  models: readonly StackModel[],
  texts: readonly StackText[] = [],
  plans: readonly PlanReview[] = [],
  prices: PriceTable = loadPrices(),
  diffs?: readonly StackDiff[],
  failedPlans: readonly string[] = [],
  reviewed: ReviewContext['reviewed'] = [],
  /** What the CI plan job said about itself (review/rules/plan-job.ts). @default - nothing */
  planJob: Pick<ReviewContext, 'failedSteps' | 'planJobFailed' | 'expectedPlans'> = {},
): Finding[] {
  const ctx = { models, texts, plans, prices, diffs, failedPlans, reviewed, ...planJob };
  const all = RULES.flatMap((rule) => rule.check(ctx));
  return all.sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || a.stack.localeCompare(b.stack) || a.address.localeCompare(b.address));
}

export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((x) => x.severity === 'error');
}
