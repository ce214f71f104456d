/**
 * The domain model of one synthesized stack: every resource read by its type's describer (review/resources/), then
 * the facts that span resources (Workload Identity from grants, the pipeline's step graph).
 *
 * Written against resource TYPES and attributes (snake_case, as Terraform JSON has them), never against the
 * construct ids that name resources. Pure: no file system, no cdktf; TPU numbers come from `jobs/tpu.ts`.
 */
import type { TerraformJson } from './load';
import { dependencyMap, Pipeline, pipelineOf } from './pipeline-graph';
import { REHEARSAL_OUTPUT, TUTORIAL_MAXTEXT_OUTPUT } from '../jobs/names';
import { EVAL_OUTPUT } from '../jobs/eval';
import { PLACEHOLDERS_LOCAL } from '../jobs/platform';
import type { ControlPlane } from './resources/container-cluster';
import type { CpuPool, TpuPool } from './resources/container-node-pool';
import type { KueueQuota } from './resources/helm-release';
import type { IamGrant } from './resources/iam-member';
import { describerFor } from './resources';
import type { JobSetStep, SecretMount } from './resources/kubernetes-manifest';
import type { WorkloadIdentityBinding } from './resources/kubernetes-service-account';
import type { SecretContainer } from './resources/secret-manager-secret';
import type { Bucket } from './resources/storage-bucket';
import type { AlertPolicy } from './resources/monitoring-alert-policy';
import type { NotificationChannel } from './resources/monitoring-notification-channel';
import type { ChartReader } from './resources/types';
import { resources, TfResource } from './values';

export type { ControlPlane } from './resources/container-cluster';
export type { CpuPool, TpuCapacityKind, TpuPool } from './resources/container-node-pool';
export type { KueueQuota } from './resources/helm-release';
export type { IamGrant, IamScope } from './resources/iam-member';
export type { GcsAccess, GcsPathUse, JobSetStep, SecretMount, StepKind } from './resources/kubernetes-manifest';
export { gcsUses, stepKind } from './resources/kubernetes-manifest';
export type { WorkloadIdentityBinding } from './resources/kubernetes-service-account';
export type { SecretContainer } from './resources/secret-manager-secret';
export type { Bucket } from './resources/storage-bucket';
export type { AlertPolicy } from './resources/monitoring-alert-policy';
export type { NotificationChannel } from './resources/monitoring-notification-channel';
export type { ChartReader } from './resources/types';
export type { Pipeline } from './pipeline-graph';
export { dependencyMap, pipelineOf } from './pipeline-graph';
export { block, durationSeconds, humanDuration, isObj, resolveRefs, resources } from './values';
export type { TfResource } from './values';

/** The facts describers extract, one list per kind. */
export interface StackFacts {
  readonly tpuPools: readonly TpuPool[];
  readonly cpuPools: readonly CpuPool[];
  readonly grants: readonly IamGrant[];
  readonly controlPlanes: readonly ControlPlane[];
  readonly workloadIdentity: readonly WorkloadIdentityBinding[];
  readonly jobsets: readonly JobSetStep[];
  readonly kueue: readonly KueueQuota[];
  readonly buckets: readonly Bucket[];
  readonly secrets: readonly SecretContainer[];
  readonly secretMounts: readonly SecretMount[];
  /** Addresses of secret versions whose payload is in the Terraform config. */
  readonly secretVersionsWithData: readonly string[];
  /** Who is notified (NOTIFY_EMAIL). */
  readonly notificationChannels: readonly NotificationChannel[];
  /** What notifies them. */
  readonly alertPolicies: readonly AlertPolicy[];
}

/** Everything the review knows about one stack. */
export interface StackModel extends StackFacts {
  readonly name: string;
  readonly resources: readonly TfResource[];
  readonly pipeline?: Pipeline;
  /** Data sources that read a secret's payload into state (`secret_data`): the version data source unless `fetch_secret_data = false`, the access one always. */
  readonly secretReadsIntoState: readonly string[];
  /** Example-config placeholders the stack's preflight guard lists (constructs/preflight.ts): its plan fails at once. */
  readonly placeholders: readonly string[];
}

/** Secret-payload reads among the stack's data sources (hashicorp/google v6.50.0: `fetch_secret_data` defaults to true). */
function secretReads(json: TerraformJson): string[] {
  const versions = json.data?.google_secret_manager_secret_version ?? {};
  return [
    ...Object.keys(versions)
      .filter((n) => versions[n]!.fetch_secret_data !== false)
      .map((n) => `data.google_secret_manager_secret_version.${n}`),
    ...Object.keys(json.data?.google_secret_manager_secret_version_access ?? {}).map((n) => `data.google_secret_manager_secret_version_access.${n}`),
  ];
}

/** The preflight guard's list of placeholders (a local), empty when there is none. */
function placeholdersOf(json: TerraformJson): string[] {
  const locals = json.locals;
  const list = locals && typeof locals === 'object' ? (locals as Record<string, unknown>)[PLACEHOLDERS_LOCAL] : undefined;
  return Array.isArray(list) ? list.map(String) : [];
}

const FACT_KEYS = [
  'tpuPools', 'cpuPools', 'grants', 'controlPlanes', 'workloadIdentity', 'jobsets', 'kueue', 'buckets', 'secrets', 'secretMounts',
  'secretVersionsWithData', 'notificationChannels', 'alertPolicies',
] as const satisfies ReadonlyArray<keyof StackFacts>;

/** Adds the stack's `tutorial_maxtext` output (jobs/names.ts) to its pipeline. */
function withMaxTextDifference(pipeline: Pipeline | undefined, json: TerraformJson): Pipeline | undefined {
  const note = json.output?.[TUTORIAL_MAXTEXT_OUTPUT]?.value;
  const gate = json.output?.[EVAL_OUTPUT]?.value;
  const withNote = pipeline && typeof note === 'string' ? { ...pipeline, maxtextDifference: note } : pipeline;
  const withGate = withNote && typeof gate === 'string' ? { ...withNote, evalGate: gate } : withNote;
  return withGate ? { ...withGate, ...rehearsalLines(json) } : withGate;
}

/**
 * The stack's `rehearsal` output (constructs/rehearsal-check.ts): its expression holds the proof object and the key;
 * a postcondition on the proofs' data source means requireRehearsal; a plain text says why it cannot be rehearsed.
 */
function rehearsalLines(json: TerraformJson): Pick<Pipeline, 'rehearsalCheck' | 'rehearsalRequired'> {
  const rehearsal = json.output?.[REHEARSAL_OUTPUT]?.value;
  if (typeof rehearsal !== 'string') return {};
  const proof = /contains\(\[for o in [^\]]+\], "([^"]+)"\)/.exec(rehearsal)?.[1];
  const key = /passed \(key ([0-9a-f]+)\)/.exec(rehearsal)?.[1];
  if (!proof || !key) return { rehearsalCheck: rehearsal };
  const required = Object.values(json.data?.google_storage_bucket_objects ?? {}).some((d) => {
    const lifecycle = (d as { lifecycle?: { postcondition?: unknown[] } }).lifecycle;
    return (lifecycle?.postcondition ?? []).length > 0;
  });
  return {
    rehearsalCheck: `the plan lists the bucket's rehearsal proofs: the \`${REHEARSAL_OUTPUT}\` output says passed when a passing rehearsal of this combination (key ${key}; images compared by ${/the same image digests/.test(rehearsal) ? 'digest' : 'tag'}) left ${proof}, else stale or none`,
    ...(required ? { rehearsalRequired: `the plan fails unless a passing rehearsal of this combination (key ${key}) left ${proof} in the bucket; the \`${REHEARSAL_OUTPUT}\` output says passed, stale or none` } : {}),
  };
}

/** Extracts the domain model of one stack. */
export function extractStack(name: string, json: TerraformJson, readChart?: ChartReader): StackModel {
  const rs = resources(json);
  const facts: Record<keyof StackFacts, unknown[]> = Object.fromEntries(FACT_KEYS.map((k) => [k, []])) as never;
  for (const r of rs) {
    const found = describerFor(r.type)?.extract(r, { stack: name, json, readChart }) ?? {};
    for (const key of FACT_KEYS) facts[key].push(...((found[key] as unknown[] | undefined) ?? []));
  }
  const grants = facts.grants as IamGrant[];
  // Workload Identity: the IAM side (roles/iam.workloadIdentityUser on the GSA) before the annotation side.
  const fromGrants: WorkloadIdentityBinding[] = grants
    .filter((g) => g.role === 'roles/iam.workloadIdentityUser')
    .map((g) => ({ stack: name, address: g.address, gsa: g.target, ksa: /\.svc\.id\.goog\[([^\]]+)\]/.exec(g.member)?.[1] ?? g.member }));
  const jobsets = facts.jobsets as JobSetStep[];
  return {
    ...(facts as unknown as StackFacts),
    name,
    resources: rs,
    workloadIdentity: [...fromGrants, ...(facts.workloadIdentity as WorkloadIdentityBinding[])],
    pipeline: withMaxTextDifference(pipelineOf(name, jobsets, dependencyMap(json)), json),
    secretReadsIntoState: secretReads(json),
    placeholders: placeholdersOf(json),
  };
}
