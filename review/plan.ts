/**
 * Reads `terraform show -json <planfile>` output for one stack and reports the real actions
 * (create / update / replace / delete), worded like the synthesis diff, and flags as errors what destroys
 * capacity or work: a TPU node pool or the cluster replaced or deleted, a training JobSet replaced (it re-runs
 * training), the bucket deleted.
 *
 * Format: Terraform's JSON output format (`resource_changes[].change.actions` is one of ["no-op"], ["create"],
 * ["read"], ["update"], ["delete","create"], ["create","delete"], ["delete"], ["forget"]). Pure.
 */
import { attributeChanges, AttributeChange, describeResource } from './diff';
import type { Finding } from './findings';
import type { TerraformJson } from './load';
import { isTpuMachineType } from '../jobs/tpu';
import { extractStack, isObj, JobSetStep } from './model';

export type PlanAction = 'create' | 'update' | 'replace' | 'delete' | 'read' | 'no-op' | 'forget';

export interface PlannedChange {
  readonly address: string;
  readonly type: string;
  readonly action: PlanAction;
  /** For replace: Terraform's order (`delete-first` leaves a gap; `create-first` needs room for both). */
  readonly replaceOrder?: 'delete-first' | 'create-first';
  readonly reason?: string;
  /** Attribute paths that force the replacement (`placement_policy[0].tpu_topology`). */
  readonly replacePaths: readonly string[];
  readonly summary: readonly string[];
  readonly attributes: readonly AttributeChange[];
}

export interface PlanReview {
  readonly stack: string;
  readonly file: string;
  readonly terraformVersion?: string;
  readonly changes: readonly PlannedChange[];
  readonly counts: Readonly<Record<PlanAction, number>>;
  readonly findings: readonly Finding[];
}

interface RawChange {
  address?: string;
  mode?: string;
  type?: string;
  name?: string;
  action_reason?: string;
  change?: { actions?: string[]; before?: unknown; after?: unknown; replace_paths?: unknown[][] };
}

/** Maps a Terraform actions list to one action. */
export function planAction(actions: readonly string[]): PlanAction {
  if (actions.includes('delete') && actions.includes('create')) return 'replace';
  const [first] = actions;
  if (first === 'create' || first === 'update' || first === 'delete' || first === 'read' || first === 'forget') return first;
  return 'no-op';
}

function pathText(parts: readonly unknown[]): string {
  return parts.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

function jobSetOf(type: string, name: string, values: unknown): JobSetStep | undefined {
  if (type !== 'kubernetes_manifest' || !isObj(values)) return undefined;
  return extractStack('plan', { resource: { [type]: { [name]: values } } } as TerraformJson).jobsets[0];
}

function isTpuPool(type: string, values: unknown): boolean {
  if (type !== 'google_container_node_pool' || !isObj(values)) return false;
  const nodeConfig = Array.isArray(values.node_config) ? values.node_config[0] : values.node_config;
  return isObj(nodeConfig) && isTpuMachineType(String(nodeConfig.machine_type ?? ''));
}

/** Terraform's `action_reason` values, in words. */
const REASONS: Record<string, string> = {
  replace_by_triggers: 'replace_triggered_by: this step or an earlier one changed',
  replace_because_tainted: 'the resource is tainted',
  replace_by_request: 'requested with -replace',
  replace_because_cannot_update: 'an attribute cannot be updated in place',
  delete_because_no_resource_config: 'removed from the configuration',
};

function planFindings(stack: string, c: PlannedChange, before: unknown, after: unknown): Finding[] {
  const destroys = c.action === 'replace' || c.action === 'delete';
  const where = { stack, address: c.address };
  const why = c.replacePaths.length
    ? ` (forced by ${c.replacePaths.join(', ')})`
    : c.reason && REASONS[c.reason]
      ? ` (${REASONS[c.reason]})`
      : '';
  const verb = c.action === 'replace' ? 'replaced' : 'deleted';
  const out: Finding[] = [];
  const err = (rule: string, message: string, fix: string) => out.push({ severity: 'error', rule, ...where, message, fix });
  const warn = (rule: string, message: string, fix: string) => out.push({ severity: 'warning', rule, ...where, message, fix });
  if (!destroys) {
    const j = c.action === 'create' ? jobSetOf(c.type, c.address, after) : undefined;
    if (j && j.tpuChips > 0) {
      out.push({
        severity: 'note',
        rule: 'plan-starts-training',
        ...where,
        message: `JobSet ${j.name} will be created: it holds ${j.tpuChips} TPU chips for up to ${j.timeoutText ?? 'the provider default timeout'}`,
        fix: 'expected when a pipeline is (re)run on purpose',
      });
    }
    return out;
  }
  if (c.type === 'google_container_cluster') {
    err('plan-destroys-cluster', `the GKE cluster is ${verb}${why}: every node pool, slice and running workload goes with it`,
      'undo the attribute change that forces replacement, or do it in a planned maintenance window with `deletion_protection` lifted on purpose');
  } else if (isTpuPool(c.type, before) || isTpuPool(c.type, after)) {
    err('plan-destroys-tpu-pool', `${c.summary[0] ?? `TPU pool ${c.address}`}: the slice is ${verb}${why}; running training is killed and the reservation capacity may not come back`,
      'keep the pool (topology, machine type and reservation changes need a new pool next to the old one), or drain it and accept losing the slice');
  } else if (c.type === 'google_storage_bucket') {
    err('plan-deletes-bucket', `the bucket is ${verb}${why}: checkpoints and converted models in it are lost`,
      'keep the bucket; a rename needs a new bucket and a copy, not a replace');
  } else if (c.type === 'google_container_node_pool') {
    warn('plan-replaces-pool', `node pool ${c.address} is ${verb}${why}: pods on it are evicted`, 'check nothing is running on it (Pathways heads, conversions)');
  } else {
    const j = jobSetOf(c.type, c.address, before) ?? jobSetOf(c.type, c.address, after);
    if (j && (j.tpuChips > 0 || j.kind === 'training') && c.action === 'replace') {
      err('plan-reruns-training', `training JobSet ${j.name} is replaced${why}: training runs again from the start on ${j.tpuChips} chips`,
        'change the run id in the config only when a re-run is intended; otherwise revert the change to the JobSet');
    } else if (j) {
      warn(c.action === 'replace' ? 'plan-reruns-step' : 'plan-deletes-jobset', `JobSet ${j.name} (${j.kind}) is ${verb}${why}`,
        c.action === 'replace' ? 'expected only when the step should run again' : 'its outputs in GCS stay; the finished object leaves the cluster');
    } else if (c.type === 'google_secret_manager_secret') {
      warn('plan-deletes-secret', `secret ${c.address} is ${verb}: its versions (the HF token) are destroyed`, 'keep the secret; recreate the version afterwards if it must go');
    }
  }
  return out;
}

/** Reviews one stack's plan JSON. */
export function reviewPlan(stack: string, file: string, plan: unknown): PlanReview {
  if (!isObj(plan) || !Array.isArray(plan.resource_changes)) {
    throw new Error(`${file}: not a Terraform plan in JSON (no resource_changes); produce it with \`terraform show -json plan\``);
  }
  const counts: Record<PlanAction, number> = { create: 0, update: 0, replace: 0, delete: 0, read: 0, 'no-op': 0, forget: 0 };
  const changes: PlannedChange[] = [];
  const findings: Finding[] = [];
  for (const raw of plan.resource_changes as RawChange[]) {
    if (raw.mode === 'data') continue;
    const actions = raw.change?.actions ?? ['no-op'];
    const action = planAction(actions);
    counts[action] += 1;
    if (action === 'no-op' || action === 'read') continue;
    const type = raw.type ?? String(raw.address).split('.')[0] ?? '';
    const name = raw.name ?? String(raw.address);
    const before = action === 'create' ? undefined : raw.change?.before ?? undefined;
    const after = action === 'delete' || action === 'forget' ? undefined : raw.change?.after ?? undefined;
    const summary = describeResource(type, name, before, after);
    const change: PlannedChange = {
      address: raw.address ?? `${type}.${name}`,
      type,
      action,
      replaceOrder: action === 'replace' ? (actions[0] === 'delete' ? 'delete-first' : 'create-first') : undefined,
      reason: raw.action_reason,
      replacePaths: (raw.change?.replace_paths ?? []).map(pathText),
      summary,
      attributes: action === 'update' || action === 'replace' ? attributeChanges(before, after) : [],
    };
    changes.push(change);
    findings.push(...planFindings(stack, change, before, after));
  }
  return { stack, file, terraformVersion: typeof plan.terraform_version === 'string' ? plan.terraform_version : undefined, changes, counts, findings };
}
