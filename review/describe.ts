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
  const mine = <T extends { address: string }>(xs: readonly T[]) => xs.filter((x) => x.address === address);
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
  const verb = before === undefined ? 'added' : after === undefined ? 'removed' : undefined;
  const describer = describerFor(type);
  const lines = describer?.describe?.({
    type,
    name,
    before,
    after,
    verb,
    b: single(type, name, before, context?.before),
    a: single(type, name, after, context?.after),
    context,
  });
  if (lines !== undefined) return hasUnknown(after) ? lines.map(unknownAfter) : lines;
  return verb ? [`${type}.${name} ${verb}`] : [];
}

/**
 * A describer reads an unknown value as missing and shows it as `-` or `?` (`chips 32 -> -`, `8 nodes -> ? nodes`);
 * in a plan whose `after` holds unknowns, that side is `(known after apply)`. One rule for every describer.
 */
function unknownAfter(line: string): string {
  return line.replace(/ -> (?:-|\?(?: nodes)?|\? ?-\? ?nodes?|0-\? nodes)(?=[,;)]|$| \()/g, ` -> ${KNOWN_AFTER_APPLY}`);
}
