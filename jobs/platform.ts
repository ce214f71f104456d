/**
 * The platform: what `infra` builds and what every pipeline runs on, derived in one place from config.
 *
 * Names that both the `infra` stack and the pipeline stacks must agree on (service accounts, queue,
 * namespace, secret, pool names) are computed here and nowhere else. Pure; no cdktf.
 */
import { createHash } from 'crypto';
import type { Capacity } from './capacity';
import { sliceShapeName, TpuSlice } from './tpu';

export type { Capacity } from './capacity';

/** One group of identical TPU slices: one node pool per slice. */
export interface TpuPoolGroup {
  readonly slice: TpuSlice;
  /** Number of slices (node pools) of this shape. */
  readonly count: number;
  readonly capacity: Capacity;
  /** Node pool names, one per slice: `tpu-v6e-32-0`, `tpu-v6e-32-1`, ... */
  readonly poolNames: readonly string[];
}

export interface PlatformInput {
  readonly project: string;
  readonly region: string;
  readonly zone: string;
  readonly clusterName: string;
  readonly bucket: string;
  /** Kubernetes namespace of the pipeline workloads. */
  readonly namespace: string;
  readonly cpuMachineType: string;
  readonly tpuGroups: ReadonlyArray<{ slice: TpuSlice; count: number; capacity: Capacity }>;
}

export interface Platform {
  readonly project: string;
  readonly region: string;
  readonly zone: string;
  readonly clusterName: string;
  readonly bucket: string;
  readonly namespace: string;
  /** Node pool for Pathways heads and conversions. */
  readonly cpuPool: { readonly name: string; readonly machineType: string };
  readonly tpuGroups: readonly TpuPoolGroup[];
  /** Kubernetes service account every pipeline step's pod runs as, `<cluster>-workloads` (Workload Identity -> workloadGsaEmail). */
  readonly serviceAccountName: string;
  /**
   * Kubernetes service account a rehearsal's verdict writer runs as, `<cluster>-workloads-verdict` (verdictKsaNameOf):
   * the only one that may read the namespace's pods and logs; Workload Identity -> verdictGsaEmail (its own).
   */
  readonly verdictServiceAccountName: string;
  /** Google service account ids (the part before `@`) and emails. */
  readonly nodeGsaId: string;
  readonly nodeGsaEmail: string;
  readonly workloadGsaId: string;
  readonly workloadGsaEmail: string;
  /**
   * The verdict writer's Google service account `<cluster>-gke-vw-sa` (its KSA verdictServiceAccountName acts as it):
   * write on the bucket's `*.rehearsal.json` objects only and the HF token, nothing the steps' account has beyond that.
   */
  readonly verdictGsaId: string;
  readonly verdictGsaEmail: string;
  /** Secret Manager secret that holds the Hugging Face token (created empty by `infra`): `<cluster>-hf-token` (hfTokenSecretIdOf). */
  readonly hfTokenSecretId: string;
  /** The `gcloud secrets versions add` command that stores the token in it (jobs/secrets.ts secretCommand). */
  readonly hfTokenSecretCommand: string;
  /** Kueue objects. */
  readonly localQueue: string;
  readonly clusterQueue: string;
  /** ResourceFlavor of the CPU pool (TPU flavors are one per slice shape: jobs/kueue.ts `tpuFlavorName`). */
  readonly cpuFlavor: string;
  /** Bucket prefix Pathways uses as scratch space; a lifecycle rule expires it. */
  readonly pathwaysScratchPrefix: string;
}

/**
 * Display name of an internet-wide control-plane allow-list entry that was opted into explicitly
 * (ALLOW_PUBLIC_CONTROL_PLANE): the cluster construct writes it, the plan review reads it.
 */
export const PUBLIC_OPT_IN_NAME = 'public-opt-in';

/**
 * Name of the Terraform local that lists the example-config placeholders still in a stack's config: the preflight
 * guard (constructs/preflight.ts) fails the plan on it, the plan review reports it.
 */
export const PLACEHOLDERS_LOCAL = 'preflight_placeholders';

/** Node pool name of the system pool (the controllers, the workflow engine and its step pods). */
export const SYSTEM_POOL_NAME = 'system';

/** Node pool name of the CPU pool (Pathways heads, conversions). */
export const CPU_POOL_NAME = 'cpu-np';

/**
 * Secret Manager secret id of the Hugging Face token: `<cluster>-hf-token`, so two clusters in one project (dev and
 * prod) each have their own secret. Secret ids allow [A-Za-z0-9_-], up to 255 characters; a cluster name is at most
 * 40 of [a-z0-9-].
 */
export function hfTokenSecretIdOf(clusterName: string): string {
  return `${clusterName}-hf-token`;
}

/** Google service account ids: 6-30 characters of [a-z0-9-], a letter first, no dash last (IAM "Create service accounts"). */
export const GSA_ID_MAX = 30;

/**
 * A service account id from a name that carries the cluster: the name itself when it fits GSA_ID_MAX, else its first
 * characters and 6 hex digits of its SHA-256 (`<cut>-<hash>`, 30 characters), so two names that differ only past the
 * cut still get two ids. `<cluster>-gke-np-sa` always fits (a cluster name is at most 20 characters, config/schema.ts).
 */
export function accountIdOf(name: string): string {
  if (name.length <= GSA_ID_MAX) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 6);
  return `${name.slice(0, GSA_ID_MAX - hash.length - 1).replace(/-+$/, '')}-${hash}`;
}

/**
 * The Kubernetes service account every pipeline step's pod runs as: `<cluster>-workloads`. Workload Identity's principal for
 * it is `serviceAccount:<project>.svc.id.goog[<namespace>/<ksa>]` (workloadIdentityMember): the pool
 * `<project>.svc.id.goog` is one per project, shared by every cluster in it (GKE "Workload Identity Federation for
 * GKE": "identity sameness"), so a KSA name without the cluster would make dev's pods and prod's pods the same
 * principal. The `principal://.../subject/ns/<ns>/sa/<ksa>` form names the same per-project subject (and needs the
 * project number); the per-cluster `principalSet://.../kubernetes.cluster/...` form covers every KSA of a cluster, too
 * broad. So the cluster goes into the KSA name, which the google provider v6.50.0's `google_service_account_iam_member`
 * takes as it always did.
 */
export function workloadKsaNameOf(clusterName: string): string {
  return `${clusterName}-workloads`;
}

/**
 * The Kubernetes service account a rehearsal's verdict writer runs as: `<cluster>-workloads-verdict`. Its own, so that
 * the Role that reads the namespace's pods and logs (constructs/identity.ts) is bound to the writer alone, never to the
 * KSA every pipeline step (users' reward code included) runs as. The cluster in its name, as workloadKsaNameOf says why.
 */
export function verdictKsaNameOf(clusterName: string): string {
  return `${workloadKsaNameOf(clusterName)}-verdict`;
}

/** Workload Identity's IAM member for a KSA: `serviceAccount:<project>.svc.id.goog[<namespace>/<ksa>]`. */
export function workloadIdentityMember(project: string, namespace: string, ksa: string): string {
  return `serviceAccount:${project}.svc.id.goog[${namespace}/${ksa}]`;
}

/** Derives every shared name from the config values. */
export function derivePlatform(input: PlatformInput): Platform {
  const nodeGsaId = accountIdOf(`${input.clusterName}-gke-np-sa`);
  const workloadGsaId = accountIdOf(`${input.clusterName}-gke-wl-sa`);
  const verdictGsaId = accountIdOf(`${input.clusterName}-gke-vw-sa`);
  const email = (id: string) => `${id}@${input.project}.iam.gserviceaccount.com`;
  return {
    project: input.project,
    region: input.region,
    zone: input.zone,
    clusterName: input.clusterName,
    bucket: input.bucket,
    namespace: input.namespace,
    cpuPool: { name: CPU_POOL_NAME, machineType: input.cpuMachineType },
    tpuGroups: input.tpuGroups.map((group) => ({
      ...group,
      poolNames: Array.from({ length: group.count }, (_, i) => `tpu-${sliceShapeName(group.slice)}-${i}`),
    })),
    serviceAccountName: workloadKsaNameOf(input.clusterName),
    verdictServiceAccountName: verdictKsaNameOf(input.clusterName),
    nodeGsaId,
    nodeGsaEmail: email(nodeGsaId),
    workloadGsaId,
    workloadGsaEmail: email(workloadGsaId),
    verdictGsaId,
    verdictGsaEmail: email(verdictGsaId),
    hfTokenSecretId: hfTokenSecretIdOf(input.clusterName),
    hfTokenSecretCommand: secretCommand(input.project, hfTokenSecretIdOf(input.clusterName)),
    localQueue: 'user-queue',
    clusterQueue: 'cluster-queue',
    cpuFlavor: 'cpu-np',
    pathwaysScratchPrefix: 'pathways/',
  };
}

/** Finds the slice group a pipeline targets, or undefined when `infra` has no such shape. */
export function findTpuGroup(platform: Platform, machineType: string, topology: string): TpuPoolGroup | undefined {
  return platform.tpuGroups.find((g) => g.slice.machineType === machineType && g.slice.topology === topology);
}


/** GKE release channels the cluster may follow, and the default. */
export const RELEASE_CHANNELS = ['RAPID', 'REGULAR', 'STABLE'] as const;
export const DEFAULT_RELEASE_CHANNEL = 'REGULAR';
/** GKE deletion protection of the cluster, on unless lifted explicitly before a destroy. */
export const DEFAULT_DELETION_PROTECTION = true;
/** Days after which objects under the Pathways scratch prefix expire. */
export const DEFAULT_SCRATCH_EXPIRY_DAYS = 7;

/** Days from the first deploy with no GKE node or minor upgrades (constructs/gke-cluster.ts says why). */
export const DEFAULT_UPGRADE_EXCLUSION_DAYS = 30;

/** Soft delete of the checkpoint bucket: off (constructs/bucket.ts TrainingBucketProps.softDeleteDays says why). */
export const DEFAULT_SOFT_DELETE_DAYS = 0;

/** The soft-delete retention GCS accepts: 0 (off) or 7 to 90 days. */
export function isValidSoftDeleteDays(days: number): boolean {
  return Number.isInteger(days) && (days === 0 || (days >= 7 && days <= 90));
}

/** A value the example config ships (`config/load.ts` Placeholder). */
export interface PlaceholderRef {
  readonly path: string;
  readonly env: string;
  readonly value: string;
  /** Its one-line description, `project 'my-tpu-project' (set PROJECT)` (config/load.ts findPlaceholders): the guard's message and the note. */
  readonly description: string;
}

/**
 * How the workload and node service accounts reach the checkpoint bucket, granted on the bucket only:
 * - `admin` (the default, what the tutorials grant): roles/storage.admin. It also lets any pod acting as either
 *   account (every host-network pod acts as the node account) change the bucket's IAM policy, its lifecycle and
 *   retention settings, and delete the bucket once empty (storage.buckets.setIamPolicy, .update, .delete).
 * - `objects`, for organisations that forbid bucket admin to workloads: a project custom role with exactly
 *   BUCKET_OBJECT_PERMISSIONS, bound on the bucket; nothing that changes the bucket itself.
 * Permissions per role: Google Cloud IAM "Cloud Storage roles".
 */
export const BUCKET_ACCESS_LEVELS = ['admin', 'objects'] as const;
export type BucketAccess = (typeof BUCKET_ACCESS_LEVELS)[number];
export const DEFAULT_BUCKET_ACCESS: BucketAccess = 'admin';
/**
 * The `objects` setting's permissions: read, list, write, delete objects (replacing an object needs create + delete),
 * and storage.buckets.get, which MaxText needs (with object permissions only it reports the bucket as missing).
 */
export const BUCKET_OBJECT_PERMISSIONS = [
  'storage.buckets.get',
  'storage.objects.get',
  'storage.objects.list',
  'storage.objects.create',
  'storage.objects.delete',
] as const;

/** Id of the `objects` custom role of a bucket: `tpt_<bucket>` in IAM's alphabet ([a-zA-Z0-9_.], 3-64 characters). */
export function bucketObjectsRoleId(bucket: string): string {
  const id = `tpt_${bucket.replace(/[^a-zA-Z0-9_.]/g, '_')}`;
  if (id.length <= 64) return id;
  return `${id.slice(0, 55)}_${createHash('sha256').update(bucket).digest('hex').slice(0, 8)}`;
}

/** The region of a Compute Engine zone (`us-east5-b` -> `us-east5`), or undefined when `zone` is not a zone name. */
export function regionOfZone(zone: string): string | undefined {
  return /^([a-z]+-[a-z]+[0-9]+)-[a-z]$/.exec(zone)?.[1];
}

/** `gcloud container clusters get-credentials ...`: writes the kubeconfig context (with the exec plugin) for the cluster. */
export function credentialsCommand(name: string, region: string, project: string, dnsEndpoint: boolean): string {
  return `gcloud container clusters get-credentials ${name} --location=${region} --project=${project}${dnsEndpoint ? ' --dns-endpoint' : ''}`;
}

/** The command that stores the token, reading it from the user's shell, never from this program. */
export function secretCommand(project: string, secretId: string): string {
  return `printf '%s' "$HF_TOKEN" | gcloud secrets versions add ${secretId} --project=${project} --data-file=-`;
}
