/**
 * Whether a new plan does what the reviewed plan did: the deploy after a merge re-plans and applies only when the new
 * plan's actions equal the reviewed ones (the saved-plan discipline of Atlantis and Terraform Cloud, where what is
 * applied is what was reviewed). Compared, per `resource_changes` entry keyed by address and deposed key: the actions,
 * action_reason, previous_address (a `moved` block), importing (an `import` block), before, after, after_unknown, the
 * sensitivity marks and replace_paths (Terraform v1.11.4 internal/command/jsonplan/resource.go `ResourceChange`,
 * `Importing`); no-op and read entries are skipped unless they import or move (they change state);
 * then `output_changes` and the checks' statuses. Not compared: timestamps, prior_state and planned_values (derived),
 * configuration (a merge commit renames nothing Terraform plans). Numbers compare as written (ExactNumber: 2^53+1 is
 * not 2^53, Terraform's 2e309 is not 1e309). Differences name addresses and fields, never values.
 * Pure.
 */
import { canonical, isObj } from './values';

const FIELDS = [
  'actions', 'action_reason', 'previous_address', 'importing', 'before', 'after', 'after_unknown', 'before_sensitive', 'after_sensitive', 'replace_paths',
] as const;

function changesOf(plan: unknown): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const list = isObj(plan) && Array.isArray(plan.resource_changes) ? plan.resource_changes : [];
  for (const rc of list) {
    if (!isObj(rc) || !isObj(rc.change)) continue;
    const actions = Array.isArray(rc.change.actions) ? rc.change.actions : [];
    // A no-op that imports (`change.importing`) or moves (`previous_address`) changes state: compared like any change.
    const statesChange = rc.change.importing !== undefined || (rc.previous_address !== undefined && rc.previous_address !== rc.address);
    if (actions.every((a) => a === 'no-op' || a === 'read') && !statesChange) continue;
    out.set(`${String(rc.address)}${rc.deposed ? ` (deposed ${String(rc.deposed)})` : ''}`, { ...rc.change, action_reason: rc.action_reason, previous_address: rc.previous_address });
  }
  return out;
}

function checksOf(plan: unknown): Map<string, string> {
  const list = isObj(plan) && Array.isArray(plan.checks) ? plan.checks : [];
  return new Map(list.filter(isObj).map((c) => [String(isObj(c.address) ? c.address.to_display : '?'), String(c.status)]));
}

/** How `next` differs from `reviewed` (empty: the same changes), one line per address. */
export function planDifferences(reviewed: unknown, next: unknown): string[] {
  const a = changesOf(reviewed);
  const b = changesOf(next);
  const out: string[] = [];
  for (const [address, change] of b) {
    const old = a.get(address);
    if (!old) out.push(`${address}: ${canonical(change.actions)} is not in the reviewed plan`);
    else {
      const fields = FIELDS.filter((f) => canonical(old[f]) !== canonical(change[f]));
      if (fields.length) out.push(`${address}: ${fields.join(', ')} differ from the reviewed plan`);
    }
  }
  for (const address of a.keys()) if (!b.has(address)) out.push(`${address}: reviewed, but not in the new plan`);
  const outputs = (p: unknown) => (isObj(p) && isObj(p.output_changes) ? p.output_changes : {});
  for (const name of new Set([...Object.keys(outputs(reviewed)), ...Object.keys(outputs(next))])) {
    if (canonical(outputs(reviewed)[name]) !== canonical(outputs(next)[name])) out.push(`output ${name}: differs from the reviewed plan`);
  }
  const ca = checksOf(reviewed);
  for (const [address, status] of checksOf(next)) if (ca.get(address) !== status) out.push(`${address}: ${status} (reviewed: ${ca.get(address) ?? 'absent'})`);
  return out;
}
