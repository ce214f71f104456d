/**
 * The one config schema (zod). Values come from a JSON file (config/example.json by default) with
 * environment variables on top (the tutorials' names: PROJECT, REGION, ZONE, CLUSTER_NAME, GCS_BUCKET,
 * RESERVATION, TOPOLOGY, CLUSTER_NODEPOOL_COUNT, ...). `load.ts` records where each value came from so
 * every error names the env var or the file key.
 *
 * HF_TOKEN is deliberately absent: the token never enters Terraform (DESIGN.md).
 */
import { z } from 'zod';
import { MACHINE_SHAPES } from '../jobs/machines';
import { RUN_ID_PATTERN } from '../jobs/names';
import { DEFAULT_RUN_ID } from '../jobs/pipeline';
import { DEFAULT_SOFT_DELETE_DAYS, isValidSoftDeleteDays } from '../jobs/platform';
import { supportedTopologies, TPU_V6E_MACHINE_TYPES, TpuMachineType } from '../jobs/tpu';

const CLUSTER_NAME = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const REGION = /^[a-z]+-[a-z]+[0-9]+$/;
const IPV4_CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

/** Where a TPU pool's capacity comes from. */
export const CAPACITY_TYPES = ['reservation', 'spot', 'flex-start'] as const;

/** Bucket naming rules (Cloud Storage "Bucket names"): the message says which one failed. */
export function bucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return `must be 3-63 characters long`;
  if (!/^[a-z0-9][a-z0-9._-]*[a-z0-9]$/.test(name)) {
    return 'may contain only lowercase letters, digits, dashes, underscores and dots, and must start and end with a letter or digit';
  }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(name)) return 'must not look like an IP address';
  if (name.startsWith('goog') || name.includes('google') || name.includes('g00gle')) {
    return "must not start with 'goog' or contain 'google'";
  }
  if (name.includes('..') || name.includes('.-') || name.includes('-.')) return 'must not contain .., .- or -.';
  return undefined;
}

/** Returns a reason when `cidr` is not a valid IPv4 CIDR block. */
export function cidrProblem(cidr: string): string | undefined {
  const m = IPV4_CIDR.exec(cidr);
  if (!m) return 'must be an IPv4 CIDR block such as 203.0.113.0/24';
  const octets = m.slice(1, 5).map(Number);
  const prefix = Number(m[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return 'has an octet above 255 or a prefix above 32';
  return undefined;
}

const capacity = z.enum(CAPACITY_TYPES);

const tpuPool = z
  .object({
    /** GKE machine type of the slices (COMPUTE_TYPE). */
    machineType: z.enum(TPU_V6E_MACHINE_TYPES),
    /** Slice topology (TOPOLOGY). */
    topology: z.string(),
    /** Number of identical slices, one node pool each (CLUSTER_NODEPOOL_COUNT). */
    slices: z.number().int(),
    /** reservation | spot | flex-start (TPU_CAPACITY). */
    capacity,
    /** Reservation name, required for capacity 'reservation' (RESERVATION). */
    reservation: z.string().optional(),
    /** Flex-start: the longest a node may live, hours. */
    flexStartMaxRunHours: z.number().int().min(1).max(168).default(24),
  })
  .strict();

const singleHostPool = z
  .object({
    /** Adds one ct6e-standard-8t 2x4 node pool for single-host pipelines (rl-llama3). */
    enabled: z.boolean(),
    capacity,
    /** Reservation name for the single-host pool (SINGLE_HOST_RESERVATION). */
    reservation: z.string().optional(),
    flexStartMaxRunHours: z.number().int().min(1).max(168).default(24),
  })
  .strict();

const pipeline = z
  .object({
    /** Synthesize this pipeline's stack (PIPELINES lists the enabled ones). @default true */
    enabled: z.boolean().default(true),
    /** Appended to every JobSet name of the pipeline; change it to re-run (RUN_ID applies to all). */
    runId: z.string().default(DEFAULT_RUN_ID),
    /** Container image (CLOUD_IMAGE_NAME applies to all). */
    image: z.string().optional(),
    /** Where the two checkpoint conversions run. */
    conversionOn: z.enum(['cpu', 'tpu']).optional(),
    /** How long one attempt of each step may run, minutes (the Jobs' activeDeadlineSeconds). */
    timeoutMinutes: z
      .object({ 'to-maxtext': z.number().int().positive(), train: z.number().int().positive(), 'to-hf': z.number().int().positive() })
      .partial()
      .strict()
      .optional(),
    /** How long a step may wait in Kueue's queue before the deploy stops waiting, minutes. @default 60 (DEFAULT_QUEUE_MINUTES) */
    queueMinutes: z.number().int().min(0).max(10080).optional(),
    /** Restarts of a JobSet after infrastructure failures (preemption, maintenance, SIGTERM/SIGKILL). */
    maxRestarts: z.number().int().min(0).max(20).optional(),
    /** Retarget the pipeline to another slice shape that `infra` has. */
    machineType: z.enum(TPU_V6E_MACHINE_TYPES).optional(),
    topology: z.string().optional(),
    /** Recipe field overrides by MaxText key, e.g. { "batch_size": 16 }. */
    overrides: z.record(z.union([z.string(), z.number(), z.boolean()])).optional(),
  })
  .strict();

export const configSchema = z
  .object({
    project: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, 'must be a Google Cloud project id (6-30 lowercase letters, digits, dashes)'),
    region: z.string().regex(REGION, 'must be a Compute Engine region such as us-east5'),
    zone: z.string(),
    clusterName: z.string(),
    bucket: z.string(),
    /** Kubernetes namespace of the pipelines. */
    namespace: z.string().regex(CLUSTER_NAME, 'must be a DNS label').max(63).default('default'),
    /** Terraform state bucket; when set every stack uses a GCS backend with its own prefix (STATE_BUCKET). */
    stateBucket: z.string().optional(),
    controlPlane: z
      .object({
        /** CIDRs allowed to reach the public control-plane endpoint (AUTHORIZED_CIDR, comma-separated). */
        authorizedCidrs: z.array(z.string()),
        /** Explicit opt-in for 0.0.0.0/0 (ALLOW_PUBLIC_CONTROL_PLANE=true); the review flags it. */
        allowPublicAccess: z.boolean().default(false),
        /** GKE's DNS-based, IAM-authorized endpoint reachable from anywhere (hosted CI) (DNS_ENDPOINT). */
        dnsEndpoint: z.boolean().default(false),
      })
      .strict(),
    releaseChannel: z.enum(['RAPID', 'REGULAR', 'STABLE']).default('REGULAR'),
    /** GKE deletion protection; set false (DELETION_PROTECTION=false) and deploy once before destroy. */
    deletionProtection: z.boolean().default(true),
    tpu: tpuPool,
    singleHost: singleHostPool,
    systemPool: z
      .object({ machineType: z.string().default('e2-standard-8'), nodes: z.number().int().min(1).max(10).default(1) })
      .strict()
      .default({}),
    cpuPool: z
      .object({ machineType: z.string().default('n4-highmem-64'), maxNodes: z.number().int().min(1).max(100).default(4) })
      .strict()
      .default({}),
    bucketSettings: z
      .object({
        /** Let `destroy` delete a bucket that still holds checkpoints. */
        forceDestroy: z.boolean().default(false),
        /** Days after which objects under the Pathways scratch prefix are deleted. */
        scratchExpiryDays: z.number().int().min(1).max(365).default(7),
        /**
         * Days a deleted or overwritten object stays restorable (and billed) in the checkpoint bucket: 0 = soft
         * delete off (the default: deleted checkpoints stop costing at once), or 7 to 90.
         */
        softDeleteDays: z
          .number()
          .refine(isValidSoftDeleteDays, (days) => ({ message: `must be 0 (soft delete off) or a whole number of days from 7 to 90, got ${days}` }))
          .default(DEFAULT_SOFT_DELETE_DAYS),
      })
      .strict()
      .default({}),
    controllers: z
      .object({
        jobsetVersion: z.string().regex(/^\d+\.\d+\.\d+$/, 'must be a chart version such as 0.12.0 (no leading v)').default('0.12.0'),
        kueueVersion: z.string().regex(/^\d+\.\d+\.\d+$/, 'must be a chart version such as 0.19.2 (no leading v)').default('0.19.2'),
      })
      .strict()
      .default({}),
    pipelines: z.record(pipeline).default({}),
  })
  .strict()
  .superRefine((c, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: z.ZodIssueCode.custom, path, message });
    if (!CLUSTER_NAME.test(c.clusterName) || c.clusterName.length > 20) {
      issue(
        ['clusterName'],
        `cluster name must start with a lowercase letter, contain only lowercase letters, digits and dashes, and be at most 20 characters (service account ids '<name>-gke-wl-sa' are limited to 30), got '${c.clusterName}'`,
      );
    }
    const bucketProblem = bucketNameProblem(c.bucket);
    if (bucketProblem) issue(['bucket'], `bucket name ${bucketProblem}, got '${c.bucket}'`);
    if (c.stateBucket !== undefined) {
      const p = bucketNameProblem(c.stateBucket);
      if (p) issue(['stateBucket'], `state bucket name ${p}, got '${c.stateBucket}'`);
    }
    if (!new RegExp(`^${c.region}-[a-z]$`).test(c.zone)) {
      issue(['zone'], `zone must be a zone of region ${c.region} (such as ${c.region}-b), got '${c.zone}'`);
    }
    checkTopology(c.tpu.machineType, c.tpu.topology, ['tpu', 'topology'], issue);
    if (c.tpu.slices < 1) issue(['tpu', 'slices'], `number of slices must be at least 1, got ${c.tpu.slices}`);
    checkReservation(c.tpu.capacity, c.tpu.reservation, ['tpu', 'reservation'], issue);
    if (c.singleHost.enabled && c.tpu.machineType === 'ct6e-standard-8t') {
      issue(
        ['singleHost', 'enabled'],
        "the single-host pool (ct6e-standard-8t 2x4) duplicates the main TPU slices; set singleHost.enabled to false or raise CLUSTER_NODEPOOL_COUNT instead",
      );
    }
    if (c.singleHost.enabled) checkReservation(c.singleHost.capacity, c.singleHost.reservation, ['singleHost', 'reservation'], issue);

    c.controlPlane.authorizedCidrs.forEach((cidr, i) => {
      const p = cidrProblem(cidr);
      if (p) issue(['controlPlane', 'authorizedCidrs', i], `authorized CIDR ${p}, got '${cidr}'`);
      if (cidr.endsWith('/0') && !c.controlPlane.allowPublicAccess) {
        issue(
          ['controlPlane', 'authorizedCidrs', i],
          `'${cidr}' opens the control plane to the whole internet; list your own ranges, use the DNS endpoint (DNS_ENDPOINT=true), or opt in explicitly with ALLOW_PUBLIC_CONTROL_PLANE=true`,
        );
      }
    });
    if (c.controlPlane.authorizedCidrs.length === 0 && !c.controlPlane.dnsEndpoint) {
      issue(
        ['controlPlane', 'authorizedCidrs'],
        'no authorized CIDR and no DNS endpoint: nothing could reach the control plane; set AUTHORIZED_CIDR or DNS_ENDPOINT=true',
      );
    }
    for (const [key, machine] of [
      ['systemPool', c.systemPool.machineType],
      ['cpuPool', c.cpuPool.machineType],
    ] as const) {
      if (!MACHINE_SHAPES[machine]) {
        issue([key, 'machineType'], `machine type must be one of ${Object.keys(MACHINE_SHAPES).join(', ')}, got '${machine}'`);
      }
    }
    for (const [name, p] of Object.entries(c.pipelines)) {
      // Format only: how long a run id may be depends on the pipeline's names (jobs/names.ts, checked when it is built).
      if (!RUN_ID_PATTERN.test(p.runId)) {
        issue(['pipelines', name, 'runId'], `run id must be lowercase letters, digits or dashes, starting and ending with a letter or digit, got '${p.runId}'`);
      }
      if (p.topology !== undefined) {
        checkTopology(p.machineType ?? c.tpu.machineType, p.topology, ['pipelines', name, 'topology'], issue);
      }
    }
  });

function checkTopology(
  machineType: TpuMachineType,
  topology: string,
  path: string[],
  issue: (path: (string | number)[], message: string) => void,
): void {
  const allowed = supportedTopologies(machineType);
  if (!allowed.includes(topology)) {
    issue(path, `topology must be one of ${allowed.join(', ')} for ${machineType}, got '${topology}'`);
  }
}

function checkReservation(
  type: (typeof CAPACITY_TYPES)[number],
  reservation: string | undefined,
  path: string[],
  issue: (path: (string | number)[], message: string) => void,
): void {
  if (type === 'reservation' && !reservation) {
    issue(path, "capacity 'reservation' needs a reservation name; set it, or choose capacity 'spot' or 'flex-start'");
  }
  if (reservation !== undefined && reservation !== '' && !/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(reservation)) {
    issue(path, `reservation name must be a lowercase Compute Engine resource name, got '${reservation}'`);
  }
}

/** The validated config. */
export type Config = z.infer<typeof configSchema>;
export type PipelineConfig = z.infer<typeof pipeline>;
