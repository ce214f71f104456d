/**
 * Reads `terraform show -json <planfile>` output for one stack: the real actions (create / update / replace /
 * delete / forget, deposed objects apart), worded like the synthesis diff. The rules in review/rules/plan-*.ts turn
 * them into findings.
 *
 * Field names follow Terraform's JSON plan format as hashicorp/terraform v1.11.4 writes it
 * (`internal/command/jsonplan/plan.go` and `resource.go`): top-level `format_version`, `terraform_version`,
 * `resource_changes` (omitempty: absent when nothing changes), `errored`, `complete`, `applyable`; per change
 * `address`, `mode`, `type`, `name`, `deposed` (the deposed object's key), `action_reason` (`replace_because_tainted`,
 * `replace_because_cannot_update`, `replace_by_request`, `replace_by_triggers`, `delete_because_no_resource_config`,
 * ...), and `change.{actions, before, after, after_unknown, replace_paths}`. `actions` is one of ["no-op"],
 * ["create"], ["read"], ["update"], ["delete","create"], ["create","delete"], ["delete"], ["forget"],
 * ["create","forget"] (`actionString`). Values unknown until apply are absent from `after` and `true` at the same
 * path of `after_unknown`. Pure.
 */
import { describeResource } from './describe';
import { attributeChanges, AttributeChange } from './attributes';
import { isObj } from './values';

export type PlanAction = 'create' | 'update' | 'replace' | 'delete' | 'read' | 'no-op' | 'forget';

/** How a value unknown until apply is shown. */
export const KNOWN_AFTER_APPLY = '(known after apply)';

export interface PlannedChange {
  readonly address: string;
  readonly type: string;
  readonly name: string;
  readonly action: PlanAction;
  /** For replace: Terraform's order (`delete-first` leaves a gap; `create-first` needs room for both). */
  readonly replaceOrder?: 'delete-first' | 'create-first';
  /** Terraform's `action_reason`. @default - none */
  readonly reason?: string;
  /** The deposed object's key: this change is about a leftover of a failed create_before_destroy. */
  readonly deposed?: string;
  /** Attribute paths that force the replacement (`placement_policy[0].tpu_topology`). */
  readonly replacePaths: readonly string[];
  readonly summary: readonly string[];
  readonly attributes: readonly AttributeChange[];
  readonly before?: unknown;
  /** `after` with every value unknown until apply set to KNOWN_AFTER_APPLY. */
  readonly after?: unknown;
}

export interface PlanReview {
  readonly stack: string;
  readonly file: string;
  readonly terraformVersion?: string;
  /** Terraform stopped planning part way (`errored: true`): the actions are incomplete. */
  readonly errored: boolean;
  readonly changes: readonly PlannedChange[];
  readonly counts: Readonly<Record<PlanAction | 'deposed', number>>;
  /** Managed-resource addresses of the plan that the stack does not synthesize (checked only when given). */
  readonly foreign: readonly string[];
  /** The synthesized stack whose addresses the plan matches best, when that is another stack. */
  readonly likelyStack?: string;
  /** Where Terraform runs for this stack (`cdktf.out/stacks/<stack>`), for commands the report shows. */
  readonly workingDir: string;
}

export interface PlanReviewOptions {
  /** Managed-resource addresses each synthesized stack declares, to check the plan belongs to `stack`. @default - not checked */
  readonly stackAddresses?: ReadonlyMap<string, ReadonlySet<string>>;
  /** @default `cdktf.out/stacks/<stack>` */
  readonly workingDir?: string;
}

interface RawChange {
  address?: string;
  mode?: string;
  type?: string;
  name?: string;
  deposed?: string;
  action_reason?: string;
  change?: { actions?: string[]; before?: unknown; after?: unknown; after_unknown?: unknown; replace_paths?: unknown[][] };
}

/** Maps a Terraform actions list to one action. */
export function planAction(actions: readonly string[]): PlanAction {
  if (actions.includes('delete') && actions.includes('create')) return 'replace';
  if (actions.includes('forget')) return 'forget';
  const [first] = actions;
  if (first === 'create' || first === 'update' || first === 'delete' || first === 'read') return first;
  return 'no-op';
}

function pathText(parts: readonly unknown[]): string {
  return parts.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/** `after` with the paths `after_unknown` marks `true` set to KNOWN_AFTER_APPLY. */
export function withUnknowns(after: unknown, unknown: unknown): unknown {
  if (unknown === true) return KNOWN_AFTER_APPLY;
  if (Array.isArray(unknown)) {
    const base = Array.isArray(after) ? [...after] : [];
    unknown.forEach((u, i) => {
      if (u !== false && u !== undefined) base[i] = withUnknowns(base[i], u);
    });
    return base;
  }
  if (isObj(unknown)) {
    const base: Record<string, unknown> = isObj(after) ? { ...after } : {};
    for (const [k, u] of Object.entries(unknown)) {
      if (u !== false) base[k] = withUnknowns(base[k], u);
    }
    return base;
  }
  return after;
}

/** The value at a flattened path (`a.b[0].c`). */
function valueAt(value: unknown, path: string): unknown {
  let v = value;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (Array.isArray(v)) v = v[Number(part)];
    else if (isObj(v)) v = v[part];
    else return undefined;
  }
  return v;
}

/**
 * Attribute changes of a plan change; a value known only after apply is one change at its own path
 * (`output: {"batch_size":40} -> (known after apply)`), not a removal of everything under it.
 */
export function planAttributeChanges(before: unknown, after: unknown): AttributeChange[] {
  const all = attributeChanges(before, after);
  const unknown = all.filter((c) => c.after === JSON.stringify(KNOWN_AFTER_APPLY)).map((c) => c.path);
  const under = (path: string, parent: string) => path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
  return all
    .filter((c) => !(c.after === undefined && unknown.some((u) => under(c.path, u))))
    .map((c) => {
      if (!unknown.includes(c.path) || c.before !== undefined) return c;
      const old = valueAt(before, c.path);
      return old === undefined || old === null ? c : { ...c, before: JSON.stringify(old) };
    });
}

/** A resource address without its instance key (`a.b[0]`, `a.b["x"]` -> `a.b`). */
export function baseAddress(address: string): string {
  return address.replace(/\[[^\]]*\]$/, '');
}

/** Reviews one stack's plan JSON; throws naming the file when it is not a Terraform plan. */
export function reviewPlan(stack: string, file: string, plan: unknown, options: PlanReviewOptions = {}): PlanReview {
  if (!isObj(plan) || typeof plan.format_version !== 'string') {
    throw new Error(`${file}: not a Terraform JSON plan (no format_version); produce it with \`terraform show -json <planfile>\``);
  }
  if (plan.resource_changes !== undefined && !Array.isArray(plan.resource_changes)) {
    throw new Error(`${file}: resource_changes must be a list, got ${typeof plan.resource_changes}`);
  }
  const counts: Record<PlanAction | 'deposed', number> = { create: 0, update: 0, replace: 0, delete: 0, read: 0, 'no-op': 0, forget: 0, deposed: 0 };
  const changes: PlannedChange[] = [];
  const seen = new Set<string>();
  for (const raw of (plan.resource_changes ?? []) as RawChange[]) {
    if (raw.mode === 'data') continue;
    const actions = raw.change?.actions ?? ['no-op'];
    const action = planAction(actions);
    const address = raw.address ?? `${raw.type}.${raw.name}`;
    if (!address.startsWith('module.')) seen.add(baseAddress(address));
    if (raw.deposed) counts.deposed += 1;
    else counts[action] += 1;
    if (actions.includes('create') && actions.includes('forget')) counts.create += 1;
    if (action === 'no-op' || action === 'read') continue;
    const type = raw.type ?? address.split('.')[0] ?? '';
    const name = raw.name ?? address;
    const before = action === 'create' ? undefined : raw.change?.before ?? undefined;
    const gone = action === 'delete' || (action === 'forget' && !actions.includes('create'));
    const after = gone ? undefined : withUnknowns(raw.change?.after ?? undefined, raw.change?.after_unknown);
    const summary = raw.deposed
      ? [`deposed object ${raw.deposed} of ${address} (left by a create-before-destroy replacement that did not finish) is deleted`]
      : describeResource(type, name, before, after);
    changes.push({
      address,
      type,
      name,
      action,
      replaceOrder: action === 'replace' ? (actions[0] === 'delete' ? 'delete-first' : 'create-first') : undefined,
      reason: raw.action_reason,
      deposed: raw.deposed,
      replacePaths: (raw.change?.replace_paths ?? []).map(pathText),
      summary,
      attributes: action === 'update' || action === 'replace' ? planAttributeChanges(before, after) : [],
      before,
      after,
    });
  }
  // Addresses the plan manages that this stack does not declare; deletes of removed resources are expected.
  let foreign: string[] = [];
  let likelyStack: string | undefined;
  const mine = options.stackAddresses?.get(stack);
  if (mine) {
    const deleted = new Set(changes.filter((c) => c.action === 'delete').map((c) => baseAddress(c.address)));
    foreign = [...seen].filter((a) => !mine.has(a) && !deleted.has(a));
    if (foreign.length) {
      const score = (set: ReadonlySet<string>) => [...seen].filter((a) => set.has(a)).length;
      const best = [...options.stackAddresses!.entries()].filter(([s]) => s !== stack).sort((x, y) => score(y[1]) - score(x[1]))[0];
      if (best && score(best[1]) > score(mine)) likelyStack = best[0];
    }
  }
  return {
    stack,
    file,
    terraformVersion: typeof plan.terraform_version === 'string' ? plan.terraform_version : undefined,
    errored: plan.errored === true,
    changes,
    counts,
    foreign,
    likelyStack,
    workingDir: options.workingDir ?? `cdktf.out/stacks/${stack}`,
  };
}
