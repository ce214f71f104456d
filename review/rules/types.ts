/**
 * One review rule per file (checkov's one-check-per-file is the model): a unique id, what it checks, and a check
 * over the whole review context. Findings name the Terraform address, say what is wrong in the reviewer's terms and
 * give the fix. Errors make `npm run review` exit 1.
 */
import type { StackDiff } from '../diff';
import type { StackModel } from '../model';
import type { PlanReview } from '../plan';
import type { PriceTable } from '../../jobs/prices';

export type Severity = 'error' | 'warning' | 'note';

export interface Finding {
  readonly severity: Severity;
  /** The id of the rule that found it, e.g. `control-plane-open`. */
  readonly rule: string;
  readonly stack: string;
  readonly address: string;
  readonly message: string;
  readonly fix: string;
}

/** A stack's synthesized text and JSON, for the secret scan. */
export interface StackText {
  readonly stack: string;
  readonly text: string;
  readonly json: unknown;
  /** The entries of the stack's folder (directories end in `/`), for stack-folder-files. @default - not listed */
  readonly files?: readonly string[];
}

export interface ReviewContext {
  readonly models: readonly StackModel[];
  readonly texts: readonly StackText[];
  readonly plans: readonly PlanReview[];
  readonly prices: PriceTable;
  /** The change against `--base`, per stack. @default - none (no --base) */
  readonly diffs?: readonly StackDiff[];
  /** Stacks whose plan step failed (`--plan-failed`). @default - none */
  readonly failedPlans?: readonly string[];
  /** The step each failed stack's plan died at (`--plan-failed <stack>=<step>`). @default - not known */
  readonly failedSteps?: Readonly<Record<string, string>>;
  /** Steps at which the CI plan job died outside any stack's plan (`--plan-job-failed`). @default - none */
  readonly planJobFailed?: readonly string[];
  /** Stacks the CI plan job planned (`--expect-plan`, its stacks.txt). @default - none */
  readonly expectedPlans?: readonly string[];
  /** How each `--reviewed` plan differs from the new plan of its stack. @default - none */
  readonly reviewed?: ReadonlyArray<{ readonly stack: string; readonly file: string; readonly differences: readonly string[] }>;
}

export interface Rule {
  /** Unique, stable, the file's name. */
  readonly id: string;
  /** One line: the condition this rule reports. */
  readonly summary: string;
  check(ctx: ReviewContext): Finding[];
}

/** Builds a finding of `rule`. */
export function finding(
  rule: string,
  severity: Severity,
  where: { readonly stack: string; readonly address: string },
  message: string,
  fix: string,
): Finding {
  return { severity, rule, stack: where.stack, address: where.address, message, fix };
}
