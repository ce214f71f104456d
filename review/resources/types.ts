/**
 * The contract of one resource describer (review/resources/<resource-type>.ts, one file per Terraform resource type,
 * as infracost lays out `internal/providers/terraform/google/`): read one resource's attributes into domain facts,
 * and word a change of it the way a reviewer thinks.
 */
import type { TerraformJson } from '../load';
import type { TfResource } from '../values';

/** Reads a local Helm chart's values.yaml and templates, for quota the values do not carry. */
export type ChartReader = (chart: string) => { values?: string; templates?: readonly string[] } | undefined;

export interface ExtractContext {
  readonly stack: string;
  /** The whole stack, for `${...}` references. */
  readonly json: TerraformJson;
  readonly readChart?: ChartReader;
}

/**
 * One resource before and after a change (synthesis diff or plan); either side may be absent. `F` is the facts a
 * describer reads of it (review/model.ts StackModel is one): a type parameter, so this contract imports no model that
 * imports the describers (issue 47: review/model <-> resources/types was an import cycle).
 */
export interface ChangeContext<F = unknown> {
  readonly type: string;
  readonly name: string;
  readonly before: unknown;
  readonly after: unknown;
  /** `added` / `removed`, undefined for a change in place. */
  readonly verb?: 'added' | 'removed';
  /** The facts of this one resource before and after (only its own entries). */
  readonly b?: F;
  readonly a?: F;
  /** The whole stacks around it (synthesis diff only). */
  readonly context?: { readonly before?: TerraformJson; readonly after?: TerraformJson };
}

/** `F`: the facts its `extract` adds to a stack's model (review/model.ts StackFacts holds every describer's). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ResourceDescriber<F = any> {
  /** Terraform resource types this describer reads. */
  readonly types: readonly string[];
  /** Facts this resource adds to its stack's model. */
  extract(r: TfResource, ctx: ExtractContext): Partial<F>;
  /** Reviewer lines for a change; undefined when this describer has nothing to say (a generic line is used). */
  describe?(change: ChangeContext<F>): string[] | undefined;
}
