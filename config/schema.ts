/**
 * The one config schema (zod). Values come from a JSON file (config/example.json by default) with
 * environment variables on top (the tutorials' names: PROJECT, REGION, ZONE, CLUSTER_NAME, GCS_BUCKET,
 * RESERVATION, TOPOLOGY, CLUSTER_NODEPOOL_COUNT, ...). `load.ts` records where each value came from so
 * every error names the env var or the file key.
 *
 * HF_TOKEN is deliberately absent: the token never enters Terraform (DESIGN.md).
 */
import { evalConfig, serveConfig } from './eval-schema';
import { z } from 'zod';
import { CAPACITY_TYPES, capacityOf, CapacityType, FLEX_START_MAX_RUN_HOURS, GKE_LIMITS, reservationProblem } from '../jobs/capacity';
import { imageReferenceProblem } from '../jobs/image-ref';
import { MACHINE_SHAPES } from '../jobs/machines';
import { RUN_ID_PATTERN } from '../jobs/names';
import { DEFAULT_STALL_ALERT_MINUTES } from '../jobs/notifications';
import { ARGO_NAMESPACE, RELEASE_NAMESPACES } from '../jobs/argo';
import { DEFAULT_RUN_ID, MAX_QUEUE_MINUTES, MAX_STEP_TIMEOUT_MINUTES } from '../jobs/pipeline';
import {
  BUCKET_ACCESS_LEVELS,
  DEFAULT_BUCKET_ACCESS,
  DEFAULT_DELETION_PROTECTION,
  DEFAULT_RELEASE_CHANNEL,
  DEFAULT_SCRATCH_EXPIRY_DAYS,
  DEFAULT_SOFT_DELETE_DAYS,
  DEFAULT_UPGRADE_EXCLUSION_DAYS,
  isValidSoftDeleteDays,
  RELEASE_CHANNELS,
} from '../jobs/platform';
import { sliceProblem, tpuSlice, TPU_MACHINE_TYPES, TpuMachineType } from '../jobs/tpu';
import { regionProblem, zoneProblem } from '../jobs/zones';

export { CAPACITY_TYPES } from '../jobs/capacity';

const CLUSTER_NAME = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** Namespaces Kubernetes creates for itself (system components, public bootstrap data, node heartbeats). */
export const RESERVED_NAMESPACES = ['kube-system', 'kube-public', 'kube-node-lease'] as const;

const REGION = /^[a-z]+-[a-z]+[0-9]+$/;
const IPV4_CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

/** Bucket naming rules (Cloud Storage "Bucket names"): the message says which one failed. */
export function bucketNameProblem(name: string): string | undefined {
  if (name.includes('.')) {
    // Names with dots may be up to 222 characters, each dot-separated component up to 63.
    if (name.length < 3 || name.length > 222 || name.split('.').some((c) => c.length > 63)) {
      return 'with dots must be 3-222 characters long, each dot-separated part at most 63';
    }
  } else if (name.length < 3 || name.length > 63) return `must be 3-63 characters long`;
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

/**
 * Cloud Storage creates a bucket whose name contains dots only for a caller who verified ownership of that domain
 * (Cloud Storage "Bucket names": "names containing dots require verification"). A warning, not an error: a user with
 * a verified domain may mean it.
 */
export function bucketDomainNotice(name: string, source: string): string | undefined {
  if (!name.includes('.')) return undefined;
  return (
    `${source}: bucket name '${name}' contains dots: Cloud Storage creates it only if you have verified ownership of ` +
    `the domain '${name}' (Search Console); otherwise the deploy fails with 403; use dashes instead (e.g. '${name.replace(/\./g, '-')}')`
  );
}

/** An IPv4 CIDR block as [first address, last address] (numbers), or undefined when it does not parse. */
export function cidrRange(cidr: string): { first: number; last: number; prefix: number; base: number } | undefined {
  const m = IPV4_CIDR.exec(cidr);
  if (!m) return undefined;
  const octets = m.slice(1, 5).map(Number);
  const prefix = Number(m[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return undefined;
  const base = ((octets[0] * 256 + octets[1]) * 256 + octets[2]) * 256 + octets[3];
  const size = 2 ** (32 - prefix);
  const first = base - (base % size);
  return { first, last: first + size - 1, prefix, base };
}

function dotted(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** Returns a reason when `cidr` is not a valid IPv4 CIDR block (including host bits set below the prefix). */
export function cidrProblem(cidr: string): string | undefined {
  const m = IPV4_CIDR.exec(cidr);
  // `curl -s ifconfig.me` answers over IPv6 where the machine has it; GKE's authorized networks take IPv4 blocks only.
  if (!m && cidr.includes(':')) return 'is IPv6; the control-plane allow-list takes IPv4 blocks only: your IPv4 address is curl -4 -s ifconfig.me';
  if (!m) return 'must be an IPv4 CIDR block such as 198.51.100.0/24';
  if (m.slice(1).some((part) => part.length > 1 && part.startsWith('0'))) {
    // inet_aton and some tools read a leading zero as octal (010 = 8); GKE reads decimal: the block is ambiguous.
    const plain = `${m.slice(1, 5).map(Number).join('.')}/${Number(m[5])}`;
    return `has a number with a leading zero (read as octal by some tools, as decimal by others); write it without: ${plain}`;
  }
  const r = cidrRange(cidr);
  if (!r) return 'has an octet above 255 or a prefix above 32';
  if (r.base !== r.first) return `has host bits set below the /${r.prefix} prefix (GKE rejects it); did you mean ${dotted(r.first)}/${r.prefix}?`;
  return undefined;
}

/** True when the blocks together cover every IPv4 address (e.g. 0.0.0.0/1 + 128.0.0.0/1): as open as 0.0.0.0/0. */
export function coversInternet(cidrs: readonly string[]): boolean {
  const ranges = cidrs
    .map(cidrRange)
    .filter((r): r is NonNullable<typeof r> => r !== undefined)
    .sort((a, b) => a.first - b.first);
  let next = 0;
  for (const r of ranges) {
    if (r.first > next) return false;
    next = Math.max(next, r.last + 1);
  }
  return next >= 2 ** 32;
}

/** Documentation ranges (RFC 5737): placeholders, never a real client. */
export const DOCUMENTATION_RANGES = ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'] as const;

/** True when `cidr` lies inside an RFC 5737 documentation range. */
export function isDocumentationRange(cidr: string): boolean {
  const r = cidrRange(cidr);
  if (!r) return false;
  return DOCUMENTATION_RANGES.some((doc) => {
    const d = cidrRange(doc)!;
    return r.first >= d.first && r.last <= d.last;
  });
}

const capacity = z.enum(CAPACITY_TYPES);
const flexStartMaxRunHours = z
  .number()
  .int()
  .min(FLEX_START_MAX_RUN_HOURS.min)
  .max(FLEX_START_MAX_RUN_HOURS.max)
  .default(FLEX_START_MAX_RUN_HOURS.default);

const tpuPool = z
  .object({
    /** GKE machine type of the slices (COMPUTE_TYPE): any machine type of the TPU table (jobs/tpu.ts). */
    machineType: z.enum(TPU_MACHINE_TYPES),
    /** Slice topology (TOPOLOGY). */
    topology: z.string().max(32),
    /** Number of identical slices, one node pool each (CLUSTER_NODEPOOL_COUNT). */
    slices: z.number().int(),
    /** reservation | spot | flex-start (TPU_CAPACITY). @default reservation */
    capacity: capacity.optional(),
    /** Reservation name or `projects/<p>/reservations/<r>`, required for capacity 'reservation' (RESERVATION). */
    reservation: z.string().max(256).optional(),
    /** Flex-start: the longest a node may live, hours. @default 72 (every attempt of a step shares one slice: the flex-start default of 4 restarts x 12 h of training is 60 h) */
    flexStartMaxRunHours,
  })
  .strict();

const singleHostPool = z
  .object({
    /** Keep the block but build no pool with `false`. @default true */
    enabled: z.boolean().default(true),
    /** reservation | spot | flex-start (SINGLE_HOST_CAPACITY). @default reservation */
    capacity: capacity.optional(),
    /** Reservation of the single-host pool (SINGLE_HOST_RESERVATION). */
    reservation: z.string().max(256).optional(),
    /** @default 72 */
    flexStartMaxRunHours,
  })
  .strict();

/** One attempt of a step, minutes: a whole number from 1 to MAX_STEP_TIMEOUT_MINUTES (30 days). */
const stepMinutes = z.number().int().min(1).max(MAX_STEP_TIMEOUT_MINUTES);

/** A pipeline's dataset (jobs/spec.ts DatasetSpec). */
const dataset = z
  .object({
    /** Hugging Face dataset repository, e.g. HuggingFaceH4/ultrachat_200k. */
    hf: z.string().max(256).optional(),
    /** The dataset's config (subset), e.g. main. @default - none */
    config: z.string().max(128).optional(),
    /** Training split. @default - MaxText's (train) */
    split: z.string().max(128).optional(),
    /** The evaluation split: RL eval_split, SFT hf_eval_split. @default - MaxText's (RL test, SFT test_sft) */
    evalSplit: z.string().max(128).optional(),
    /** Dataset commit, recorded in the run record. @default - none */
    revision: z.string().max(64).optional(),
    /** SFT: the chat column(s); DPO: [chosen, rejected] or [prompt, chosen, rejected]. @default - the method's (SFT ["messages"], DPO ["chosen", "rejected"]) */
    columns: z.array(z.string().max(128)).max(16).optional(),
    /**
     * What each column holds (the dataset's features; the lock's `columns` when it records them): plain `text`, a list
     * of `{role, content}` `messages`, a `number` or `other`; checked against what the method's MaxText data path
     * accepts. @default - not known (nothing refused for it)
     */
    columnTypes: z.record(z.string().max(128), z.enum(['text', 'messages', 'number', 'other'])).optional(),
    /** RL: a .json prompt template of this repository, shipped to the pods (data_template_path). @default - rl.yml's or the preset's */
    template: z.string().max(1024).optional(),
    /** RL: a .py file of this repository defining process_data, shipped to the pods (dataset_processor_path). @default - MaxText's built-in */
    processor: z.string().max(1024).optional(),
  })
  .strict();

/** The reward file: a path in this repository, or the path with the names of its reward functions. */
const reward = z.union([
  z.string().max(1024),
  z.object({ file: z.string().max(1024), functions: z.array(z.string().max(128)).min(1).max(16) }).strict(),
]);

/**
 * Most pipeline entries a config file may hold. Each entry is its own Terraform stack (its own state, deploy, status
 * poll and review section) synthesized on every `npm run synth`, where a stack costs ~0.1 s of CPU: 64 keep a synth of
 * every stack a few seconds, and a generated or mistyped file with thousands of entries a config error at once, before
 * any pipeline is built. Raise it here (and in docs/configuration.md) if a real deployment needs more.
 */
export const MAX_PIPELINES = 64;

const pipeline = z
  .object({
    /**
     * A preset to start from (rl-qwen3, rl-gemma4, sft-gemma4, rl-llama3); then change model, data or slice.
     * @default - the preset of the entry's own name, else the method's base (jobs/spec.ts METHOD_BASES)
     */
    extends: z.string().max(64).optional(),
    /** A method of the method table (jobs/methods/: sft, grpo, gspo, dpo). Required for a new pipeline. @default - the preset's */
    method: z.string().max(32).optional(),
    /** MaxText model key, a row of the model table (jobs/models.ts). Required for a new pipeline. @default - the preset's */
    model: z.string().max(64).optional(),
    /** Hugging Face repository to convert. Required for a new pipeline. @default - the preset's (or the key's HF_IDS repo) */
    hfModel: z.string().max(256).optional(),
    /** The repository commit to convert (40 hex). @default - none: the repository's head at conversion time */
    hfRevision: z.string().max(64).optional(),
    /** The repository's architecture (config.json), when its name does not say the model. @default - none */
    hfArchitecture: z.string().max(128).optional(),
    /** Tokenizer repository. @default - hfModel */
    tokenizer: z.string().max(256).optional(),
    /** The training data. Required for a new pipeline. @default - the preset's */
    dataset: dataset.optional(),
    /** RL: the reward file (a .py in this repository, shipped in a ConfigMap). @default - MaxText's built-in rewards */
    reward: reward.optional(),
    /** SFT: LoRA adapters instead of a full fine-tune. @default - none */
    lora: z.object({ rank: z.number(), alpha: z.number().optional(), modules: z.string().max(1024).optional() }).strict().optional(),
    /** Cloud TPU accelerator type to train on, e.g. v6e-8. @default - the preset's, else the main TPU slices' shape */
    slice: z.string().max(32).optional(),
    /** Training steps (SFT steps, RL num_batches). @default - the preset's, else 1000 (SFT) or 50 (RL) */
    steps: z.number().optional(),
    /**
     * Synthesize this pipeline's stack. `true` insists (a slice infra lacks is then an error); unset, a pipeline
     * whose slice infra lacks is left out with a notice. PIPELINES selects exactly the listed ones.
     * @default - enabled when infra has its slice
     */
    enabled: z.boolean().optional(),
    /** Appended to every JobSet name of the pipeline; change it to re-run (RUN_ID applies to all). */
    runId: z.string().max(64).default(DEFAULT_RUN_ID),
    /** Typed training settings of the method, by name (jobs/methods/ settings: names and ranges checked there). @default - each setting's default */
    training: z.record(z.union([z.number(), z.string().max(64), z.boolean()])).optional(),
    /** Container image (CLOUD_IMAGE_NAME applies to all). */
    image: z.string().max(1024).optional(),
    /** Where the two checkpoint conversions run. */
    conversionOn: z.enum(['cpu', 'tpu']).optional(),
    /** How long one attempt of each step may run, minutes (the Jobs' activeDeadlineSeconds). */
    timeoutMinutes: z
      .object({ 'to-maxtext': stepMinutes, train: stepMinutes, 'to-hf': stepMinutes })
      .partial()
      .strict()
      .optional(),
    /** How long a step may wait in Kueue's queue before the deploy stops waiting, minutes. @default 60 (DEFAULT_QUEUE_MINUTES) */
    queueMinutes: z.number().int().min(0).max(MAX_QUEUE_MINUTES).optional(),
    /**
     * Restarts of each step's JobSet after a failure that is not a known application error (a lost or preempted host).
     * @default - training: by capacity type (jobs/capacity.ts DEFAULT_TRAIN_MAX_RESTARTS); conversions: 1
     */
    maxRestarts: z.number().int().min(0).max(20).optional(),
    /**
     * Continue an earlier training run (its run name, the directory under trained/) at its newest checkpoint although
     * the spec changed, e.g. after raising `steps`. @default - the run the spec names
     */
    resumeRun: z.string().max(128).optional(),
    /** Retarget the pipeline to another slice shape that `infra` has. */
    machineType: z.enum(TPU_MACHINE_TYPES).optional(),
    topology: z.string().max(32).optional(),
    /** Recipe field overrides by MaxText key, e.g. { "batch_size": 16 }. */
    overrides: z.record(z.union([z.string().max(4096), z.number(), z.boolean()])).optional(),
    /** The eval step after to-hf (config/eval-schema.ts). @default - on, default tasks, no gate */
    eval: evalConfig.optional(),
    /** The opt-in serve-<pipeline> stack (config/eval-schema.ts). @default - none */
    serve: serveConfig.optional(),
    /**
     * Refuse the deploy (at plan) unless a passing `rehearse-<pipeline>` of exactly this combination left its proof in
     * the bucket (jobs/rehearsal.ts rehearsalProof). @default false
     */
    requireRehearsal: z.boolean().optional(),
  })
  .strict();

export const configSchema = z
  .object({
    project: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, 'must be a Google Cloud project id (6-30 lowercase letters, digits, dashes)'),
    region: z.string().regex(REGION, 'must be a Compute Engine region such as us-east5'),
    zone: z.string(),
    clusterName: z.string(),
    bucket: z.string(),
    /** Kubernetes namespace of the pipelines (not one Kubernetes reserves: RESERVED_NAMESPACES). */
    namespace: z
      .string()
      .max(63)
      .regex(CLUSTER_NAME, 'must be a DNS label')
      .refine((ns) => !(RESERVED_NAMESPACES as readonly string[]).includes(ns), {
        message: `is reserved for Kubernetes itself (${RESERVED_NAMESPACES.join(', ')}): use a namespace of your own, such as default`,
      })
      .refine((ns) => !(RELEASE_NAMESPACES as readonly string[]).includes(ns), {
        message: `is the controllers' own (${RELEASE_NAMESPACES.join(', ')}; ${ARGO_NAMESPACE} enforces Pod Security restricted, which the TPU steps' host network breaks): use a namespace of your own, such as default`,
      })
      .default('default'),
    /** Terraform state bucket; when set every stack uses a GCS backend with its own prefix (STATE_BUCKET). */
    stateBucket: z.string().optional(),
    controlPlane: z
      .object({
        /** CIDRs allowed to reach the public control-plane endpoint (AUTHORIZED_CIDR, comma-separated). */
        authorizedCidrs: z.array(z.string().max(64)).max(GKE_LIMITS.authorizedNetworks, `at most ${GKE_LIMITS.authorizedNetworks} CIDR blocks (GKE's authorized-networks limit)`),
        /** Explicit opt-in for 0.0.0.0/0 (ALLOW_PUBLIC_CONTROL_PLANE=true); the review flags it. */
        allowPublicAccess: z.boolean().default(false),
        /** GKE's DNS-based, IAM-authorized endpoint reachable from anywhere (hosted CI) (DNS_ENDPOINT). */
        dnsEndpoint: z.boolean().default(false),
      })
      .strict(),
    releaseChannel: z.enum(RELEASE_CHANNELS).default(DEFAULT_RELEASE_CHANNEL),
    /** GKE deletion protection; `npm run destroy -- infra` lifts it (an apply of infra's teardown form) before it destroys. */
    deletionProtection: z.boolean().default(DEFAULT_DELETION_PROTECTION),
    /**
     * Refuse synth when post-training.lock.json lacks an image digest, a model or a dataset a pipeline uses (set it in
     * prod's and CI's config; `npm run lock` writes the lock, docs/configuration.md "The lock"). @default false: a note
     */
    requireLock: z.boolean().default(false),
    /** Days from the first deploy during which GKE may not upgrade nodes or the minor version (0: no exclusion). @default 30 */
    upgradeExclusionDays: z.number().int().min(0).max(180).default(DEFAULT_UPGRADE_EXCLUSION_DAYS),
    tpu: tpuPool,
    /**
     * The optional single-host pool (one ct6e-standard-8t 2x4 VM, the single-host tutorial's v6e-8) next to the main
     * slices. It exists only when something asks for it: this block, SINGLE_HOST_RESERVATION or SINGLE_HOST_CAPACITY.
     * @default - no single-host pool
     */
    singleHost: singleHostPool.optional(),
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
        /** Roles of the service accounts on the bucket: admin | objects (BUCKET_ACCESS). @default admin (DEFAULT_BUCKET_ACCESS) */
        access: z.enum(BUCKET_ACCESS_LEVELS).default(DEFAULT_BUCKET_ACCESS),
        /** Days after which objects under the Pathways scratch prefix are deleted. */
        scratchExpiryDays: z.number().int().min(1).max(365).default(DEFAULT_SCRATCH_EXPIRY_DAYS),
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
        /**
         * Google accounts (the CI plan identity) that may read the controllers' Helm release Secrets, so their plans
         * see the releases (jobs/argo.ts RELEASE_NAMESPACES). @default [] (none)
         */
        releaseReaders: z
          .array(
            z
              .string()
              .max(254)
              .refine(
                (a) => z.string().email().safeParse(a).success,
                (a) => ({ message: `must be a Google account email such as plan@my-project.iam.gserviceaccount.com, got '${a}'` }),
              ),
          )
          .max(8, 'at most 8 accounts')
          .default([]),
      })
      .strict()
      .default({}),
    /**
     * Email notifications of pipeline steps (failed, restarted, stalled, completed, evicted by Kueue): Cloud Monitoring
     * channels and alert policies in infra (constructs/notifications.ts). Off with no address.
     */
    notify: z
      .object({
        /** Addresses to notify (NOTIFY_EMAIL, comma-separated). @default [] (off) */
        emails: z
          .array(
            z
              .string()
              .max(254)
              .refine(
                (a) => z.string().email().safeParse(a).success,
                (a) => ({ message: `must be an email address such as ml-team@example.com, got '${a}'` }),
              ),
          ).max(16, 'at most 16 addresses').default([]),
        /** Minutes without a new training step line before the stall alert fires. @default DEFAULT_STALL_ALERT_MINUTES (30) */
        stallMinutes: z.number().int().min(10).max(1440).default(DEFAULT_STALL_ALERT_MINUTES),
      })
      .strict()
      .default({}),
    pipelines: z.record(pipeline).refine((p) => Object.keys(p).length <= MAX_PIPELINES, `at most ${MAX_PIPELINES} pipeline entries`).default({}),
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
      if (c.stateBucket === c.bucket) {
        issue(
          ['stateBucket'],
          `the state bucket must not be the checkpoint bucket '${c.bucket}': infra creates, manages and may destroy the checkpoint ` +
            'bucket, so its own state would live inside what it deletes; use a separate bucket for Terraform state',
        );
      }
    }
    // The zone table (jobs/zones.ts): REGION must be a region it has, ZONE one of that region's zones.
    const badRegion = REGION.test(c.region) ? regionProblem(c.region) : undefined;
    if (badRegion) issue(['region'], badRegion);
    const badZone = badRegion ? undefined : zoneProblem(c.region, c.zone);
    if (badZone) issue(['zone'], badZone);
    const topologyProblem = sliceProblem(c.tpu.machineType, c.tpu.topology);
    if (topologyProblem) issue(['tpu', 'topology'], topologyProblem);
    checkSlices(c.tpu.machineType, c.tpu.topology, c.tpu.slices, topologyProblem === undefined, issue);
    checkCapacity(c.tpu.capacity, c.tpu.reservation, ['tpu'], issue);
    if (c.singleHost?.enabled && c.tpu.machineType === SINGLE_HOST_SLICE.machineType && c.tpu.topology === SINGLE_HOST_SLICE.topology) {
      issue(
        c.singleHost.reservation ? ['singleHost', 'reservation'] : c.singleHost.capacity ? ['singleHost', 'capacity'] : ['singleHost'],
        `the single-host pool (${SINGLE_HOST_SLICE.machineType} ${SINGLE_HOST_SLICE.topology}) duplicates the main TPU slices; drop SINGLE_HOST_RESERVATION / SINGLE_HOST_CAPACITY (or the singleHost block) or raise CLUSTER_NODEPOOL_COUNT instead`,
      );
    }
    if (c.singleHost?.enabled) checkCapacity(c.singleHost.capacity, c.singleHost.reservation, ['singleHost'], issue);
    if (c.singleHost?.enabled && c.singleHost.reservation && c.singleHost.reservation === c.tpu.reservation) {
      issue(
        ['singleHost', 'reservation'],
        `the single-host pool (${SINGLE_HOST_SLICE.machineType}) and the main slices (${c.tpu.machineType}) name the same reservation '${c.tpu.reservation}'; ` +
          'a reservation holds one machine type: give each pool its own',
      );
    }

    let cidrsValid = true;
    c.controlPlane.authorizedCidrs.forEach((cidr, i) => {
      const p = cidrProblem(cidr);
      if (p) {
        cidrsValid = false;
        issue(['controlPlane', 'authorizedCidrs', i], `authorized CIDR ${p}, got '${cidr}'`);
      }
      if (cidr.endsWith('/0') && !c.controlPlane.allowPublicAccess) {
        issue(
          ['controlPlane', 'authorizedCidrs', i],
          `'${cidr}' opens the control plane to the whole internet; list your own ranges, use the DNS endpoint (DNS_ENDPOINT=true), or opt in explicitly with ALLOW_PUBLIC_CONTROL_PLANE=true`,
        );
      }
    });
    const cidrs = c.controlPlane.authorizedCidrs;
    if (cidrsValid && !cidrs.some((x) => x.endsWith('/0')) && !c.controlPlane.allowPublicAccess && coversInternet(cidrs)) {
      issue(
        ['controlPlane', 'authorizedCidrs'],
        `the authorized CIDRs ${cidrs.join(', ')} together cover the whole internet (as open as 0.0.0.0/0); list your own ranges, ` +
          'use the DNS endpoint (DNS_ENDPOINT=true), or opt in explicitly with ALLOW_PUBLIC_CONTROL_PLANE=true',
      );
    }
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
        const problem = sliceProblem(p.machineType ?? c.tpu.machineType, p.topology);
        if (problem) issue(['pipelines', name, 'topology'], problem);
      }
      if (p.image !== undefined) {
        const problem = imageReferenceProblem(p.image);
        if (problem) issue(['pipelines', name, 'image'], problem);
      }
    }
  });

/** The shape of the optional single-host pool: the single-host RL tutorial's one v6e-8 VM. */
export const SINGLE_HOST_SLICE = { machineType: 'ct6e-standard-8t', topology: '2x4' } as const satisfies {
  machineType: TpuMachineType;
  topology: string;
};

/** Slice count: at least 1, and all slices' VMs within GKE's nodes-per-cluster limit (a huge count fails here, fast). */
function checkSlices(
  machineType: TpuMachineType,
  topology: string,
  slices: number,
  shapeValid: boolean,
  issue: (path: (string | number)[], message: string) => void,
): void {
  if (slices < 1) {
    issue(['tpu', 'slices'], `number of slices must be at least 1, got ${slices}`);
    return;
  }
  const vms = shapeValid ? tpuSlice(machineType, topology).vms : 1;
  const max = Math.floor(GKE_LIMITS.nodesPerCluster / vms);
  if (slices > max) {
    issue(
      ['tpu', 'slices'],
      `number of slices must be at most ${max} for ${machineType} ${topology} (${vms} VMs each; GKE allows ${GKE_LIMITS.nodesPerCluster} nodes per cluster), got ${slices}`,
    );
  }
}

/** A capacity type with its reservation: a reservation is required for 'reservation' and refused with spot/flex-start. */
function checkCapacity(
  type: CapacityType | undefined,
  reservation: string | undefined,
  path: string[],
  issue: (path: (string | number)[], message: string) => void,
): void {
  const result = capacityOf(type ?? 'reservation', reservation);
  if ('problem' in result) issue([...path, type === undefined || type === 'reservation' ? 'reservation' : 'capacity'], result.problem);
  if (reservation !== undefined && reservation !== '') {
    const problem = reservationProblem(reservation);
    if (problem) issue([...path, 'reservation'], problem);
  }
}

/** The validated config. */
export type Config = z.infer<typeof configSchema>;
export type PipelineConfig = z.infer<typeof pipeline>;
