/**
 * The deployment: the one validated domain object `config/` returns (config/deployment.ts `loadDeployment`) and the
 * entry points hand down. Every value is resolved (defaults applied), checked, and, where a message may need it,
 * carries where it came from (`RESERVATION (env)`, `config/example.json: tpu.topology`). Nothing below the entry
 * points reads config or asks it anything: stacks cut their props from this object, constructs take those props.
 *
 * Types only (no cdktf, no I/O), so `jobs/` stays pure and every layer may name them.
 */
import type { ReservationUse } from './capacity';
import type { NotificationPlan, NotifiedPipeline } from './notifications';
import type { Pipeline } from './pipeline';
import type { PipelineRecord } from './record';
import type { BucketAccess, PlaceholderRef, Platform } from './platform';

/** The GKE cluster's control plane and lifecycle settings. */
export interface ClusterSettings {
  /** Control-plane allow-list (0.0.0.0/0 only with the explicit opt-in). */
  readonly authorizedCidrs: readonly string[];
  /** The explicit opt-in for 0.0.0.0/0 (ALLOW_PUBLIC_CONTROL_PLANE). */
  readonly allowPublicAccess: boolean;
  /** GKE DNS-based endpoint open to IAM-authorized callers from anywhere (hosted CI). */
  readonly dnsEndpoint: boolean;
  readonly releaseChannel: string;
  readonly deletionProtection: boolean;
  /** No node or minor upgrades for this many days from the first deploy (constructs/gke-cluster.ts). */
  readonly upgradeExclusionDays: number;
  /** `gcloud container clusters get-credentials ...` for this cluster and endpoint (jobs/platform.ts credentialsCommand). */
  readonly credentialsCommand: string;
}

/** The CPU node pools next to the TPU slices (the TPU slices are `Platform.tpuGroups`). */
export interface NodePoolSettings {
  readonly system: { readonly machineType: string; readonly nodes: number };
  /** Autoscaler ceiling of `cpu-np` (its machine type is `Platform.cpuPool`). */
  readonly cpuMaxNodes: number;
}

/** The checkpoint bucket's settings (its name is `Platform.bucket`). */
export interface BucketSettings {
  readonly forceDestroy: boolean;
  readonly scratchExpiryDays: number;
  /** Soft-delete retention, days (0 = off). */
  readonly softDeleteDays: number;
  /** What the service accounts may do on the bucket (BUCKET_ACCESS_LEVELS). */
  readonly access: BucketAccess;
}

/** The JobSet and Kueue Helm releases and the local chart of the Kueue queues. */
export interface ControllerSettings {
  readonly jobsetVersion: string;
  readonly kueueVersion: string;
  /** Absolute path of charts/kueue-queues. */
  readonly queuesChartPath: string;
  /** Google accounts that may read the controllers' Helm release Secrets (the CI plan identity). */
  readonly releaseReaders: readonly string[];
}

/** The Kueue objects the queues chart renders and the TPU quota they grant (jobs/kueue.ts), derived from the platform. */
export interface QueueSettings {
  /** ResourceFlavors, ClusterQueue and LocalQueue, complete. */
  readonly objects: readonly Record<string, unknown>[];
  /** google.com/tpu quota of the ClusterQueue per slice-shape flavor. */
  readonly tpuChipsByFlavor: Readonly<Record<string, number>>;
}

/** Where every stack keeps its Terraform state (stacks/backend.ts). */
export interface StateSettings {
  /** GCS bucket for Terraform state (STATE_BUCKET). @default - local state file in `localStateDir` */
  readonly stateBucket?: string;
  /** Absolute directory the local state files go in: the repository root. */
  readonly localStateDir: string;
}

/** What the plan checks before anything is created (constructs/preflight.ts). */
export interface PreflightSettings {
  /** Example-config placeholders still in the config, each with the variable that replaces it. */
  readonly placeholders: readonly PlaceholderRef[];
  /** Reservations the TPU pools consume, each with where it was set (`ReservationUse.env`) and the fixes. */
  readonly reservations: readonly ReservationUse[];
}

/** Email notifications of the pipelines' steps (NOTIFY_EMAIL; constructs/notifications.ts). */
export interface NotifySettings {
  /** Addresses; none turns notifications off. */
  readonly emails: readonly string[];
  /** The pipelines whose JobSets the alerts cover; none turns notifications off. */
  readonly pipelines: readonly NotifiedPipeline[];
  /** Filters, messages and the stall threshold of the alerts (jobs/notifications.ts notificationPlan). */
  readonly plan: NotificationPlan;
}

/** The file in an output folder holding `EnvironmentOrigin.line` (main.ts writes it beside manifest.json, the review reads it). */
export const ENVIRONMENT_FILE = 'environment.txt';

/** Which environment this is and what it was built from: every synth, review and status line names it. */
export interface EnvironmentOrigin {
  /** `<project>.<cluster>`: the environment's name and its output folder's suffix (stacks/backend.ts environmentOutdir). */
  readonly name: string;
  /** The config file read, relative to the repository root when inside it. */
  readonly configFile: string;
  /** The environment variables that set a value. */
  readonly variables: readonly string[];
  /** `environment acme-tpu.dev-tpu (project acme-tpu, cluster dev-tpu, region us-east5), built from config/dev.json (CONFIG_FILE) and env ZONE` */
  readonly line: string;
}

export interface Deployment {
  /** Which environment this is and the config file and variables it was built from. */
  readonly origin: EnvironmentOrigin;
  /** Shared names and the TPU slice groups with their capacity (jobs/platform.ts). */
  readonly platform: Platform;
  /** Control plane and lifecycle of the GKE cluster. */
  readonly cluster: ClusterSettings;
  /** The system and CPU pools (the TPU pools are `platform.tpuGroups`). */
  readonly nodePools: NodePoolSettings;
  /** The checkpoint bucket's settings. */
  readonly bucket: BucketSettings;
  /** JobSet and Kueue versions, the queues chart. */
  readonly controllers: ControllerSettings;
  /** The Kueue objects the queues chart renders, and their TPU quota. */
  readonly queues: QueueSettings;
  /** Terraform state backend. */
  readonly state: StateSettings;
  /** Placeholders and reservations, checked at plan time before anything is created. */
  readonly preflight: PreflightSettings;
  /** Email notifications of the pipelines' steps: no address or no pipeline, no channel and no alert policy. */
  readonly notify: NotifySettings;
  /** The selected pipelines, recipes resolved, built and validated against the platform. */
  readonly pipelines: readonly Pipeline[];
  /** What each pipeline stack records in the cluster for `status` (jobs/record.ts), by pipeline name. */
  readonly records: Readonly<Record<string, PipelineRecord>>;
  /** One line each for what the user should know but is not an error; each once. The entry point prints them. */
  readonly notices: readonly string[];
  /**
   * What post-training.lock.json lacks for the stacks built, one line naming `npm run lock` (jobs/lock-apply.ts
   * unlockedNote); the entry point prints it after the notices. @default - none: everything is locked
   */
  readonly lockNote?: string;
  /**
   * The stacks a destroy removes (TEARDOWN, set by `npm run destroy -- <stacks>`): each synthesized for its teardown
   * (stacks/teardown.ts). Empty for every other command.
   */
  readonly teardown: readonly string[];
  /**
   * Where every value of the resolved config came from, by dotted config path (`tpu.topology` ->
   * `TOPOLOGY (env)` or `config/example.json: tpu.topology`): for messages about a value.
   */
  readonly provenance: Readonly<Record<string, string>>;
}
