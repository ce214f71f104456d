/**
 * Reviewer-facing lines for one resource change, shared by the synthesis diff (`--base`) and the plan review:
 * the facts of the resource before and after are extracted with the stack around them (so `${...}` references
 * resolve), then the resource type's describer words the change.
 */
import type { TerraformJson } from './load';
import { extractStack, StackModel } from './model';
import { describerFor } from './resources';
import { hasUnknown, isObj, KNOWN_AFTER_APPLY } from './values';

function single(type: string, name: string, attrs: unknown, context?: TerraformJson): StackModel | undefined {
  if (!isObj(attrs)) return undefined;
  const json = { ...(context ?? {}), resource: { ...(context?.resource ?? {}), [type]: { [name]: attrs } } } as TerraformJson;
  const m = extractStack('x', json);
  const address = `${type}.${name}`;
  // A pipeline Workflow's steps are at `<address>#<step>` (resources/kubernetes-manifest.ts).
  const mine = <T extends { address: string }>(xs: readonly T[]) => xs.filter((x) => x.address === address || x.address.startsWith(`${address}#`));
  return {
    ...m,
    tpuPools: mine(m.tpuPools),
    cpuPools: mine(m.cpuPools),
    grants: mine(m.grants),
    controlPlanes: mine(m.controlPlanes),
    jobsets: mine(m.jobsets),
    buckets: mine(m.buckets),
    kueue: mine(m.kueue),
  };
}

/** Lines for one resource given its attributes before and after (either may be undefined). */
export function describeResource(
  type: string,
  name: string,
  before: unknown,
  after: unknown,
  context?: { before?: TerraformJson; after?: TerraformJson },
): string[] {
  const lines = describeOnce(type, name, before, after, context);
  if (lines === undefined) return before === undefined || after === undefined ? [`${type}.${name} ${before === undefined ? 'added' : 'removed'}`] : [];
  // Nothing said (terraform_data without its JobSets around it): nothing to mark either.
  if (lines.length === 0 || before === undefined || after === undefined || !hasUnknown(after)) return lines;
  // A describer reads an unknown value as missing (`chips 32 -> -`, `8 nodes -> ? nodes`, `private nodes yes -> no`).
  // One rule for every describer: describe again with each unknown value as it was before; an `a -> b` part that
  // is not in that second description comes from an unknown value, and its new side is `(known after apply)`.
  const known = describeOnce(type, name, before, knownAsBefore(after, before), context) ?? [];
  return lines.map((line, i) => {
    const same = new Set(parts(known[i] ?? ''));
    return parts(line)
      .map((part) => (same.has(part) || !part.includes(' -> ') ? part : part.replace(/ -> (?:(?! \(Terraform ).)*/, ` -> ${KNOWN_AFTER_APPLY}`)))
      .join(', ');
  });
}

function describeOnce(type: string, name: string, before: unknown, after: unknown, context?: { before?: TerraformJson; after?: TerraformJson }): string[] | undefined {
  const verb = before === undefined ? 'added' : after === undefined ? 'removed' : undefined;
  const describe = describerFor(type)?.describe;
  if (!describe) return undefined;
  // `b` and `a` (the facts of one resource, read with the stack around it) are built when a describer reads them, once:
  // the terraform_data and logging-metric describers never do, and a plan has thousands of such changes.
  let b: StackModel | undefined | null = null;
  let a: StackModel | undefined | null = null;
  return describe({
    type,
    name,
    before,
    after,
    verb,
    get b() {
      return b === null ? (b = single(type, name, before, context?.before)) : b;
    },
    get a() {
      return a === null ? (a = single(type, name, after, context?.after)) : a;
    },
    context,
  });
}

/** A describer line's comma-separated parts (`TPU pool x: topology 4x8 -> 4x4`, `chips 32 -> 16`, ...). */
function parts(line: string): string[] {
  return line.split(', ');
}

/** `after` with every unknown value replaced by the value at the same place before (or left out). */
function knownAsBefore(after: unknown, before: unknown): unknown {
  if (after === KNOWN_AFTER_APPLY) return before;
  if (Array.isArray(after)) return after.map((v, i) => knownAsBefore(v, Array.isArray(before) ? before[i] : undefined));
  if (isObj(after)) {
    const b = isObj(before) ? before : {};
    return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, knownAsBefore(v, b[k])]).filter(([, v]) => v !== undefined));
  }
  return after;
}
