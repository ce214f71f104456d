/**
 * Domain facts extracted from one synthesized stack's Terraform JSON: TPU slices, CPU pools, IAM grants, the
 * control plane, Workload Identity, JobSets and pipelines, Kueue quota, buckets and secrets.
 *
 * Written against resource TYPES and attributes (snake_case, as Terraform JSON has them), never against the
 * construct ids that name resources. Pure: no file system, no cdktf; TPU numbers come from `jobs/tpu.ts`.
 */
import { parseAllDocuments } from 'yaml';
import { supportedTopologies, tpuSlice, TpuSlice, isTpuMachineType, TPU_RESOURCE, TPU_TOPOLOGY_LABEL } from '../jobs/tpu';
import { TUTORIAL_MAXTEXT_OUTPUT } from '../jobs/names';
import type { TerraformJson } from './load';

/** A Terraform resource as it appears in the JSON: `type.name` plus its attributes. */
export interface TfResource {
  readonly address: string;
  readonly type: string;
  readonly name: string;
  readonly attrs: Record<string, unknown>;
}

export type TpuCapacityKind = 'reservation' | 'spot' | 'flex-start' | 'on-demand';

export interface TpuPool {
  readonly stack: string;
  readonly address: string;
  /** Node pool name (`tpu-v6e-32-0`), or the resource name when the attribute is computed. */
  readonly name: string;
  readonly machineType: string;
  readonly topology?: string;
  /** Slice facts from the TPU table; undefined when machine type and topology do not form a v6e slice. */
  readonly slice?: TpuSlice;
  /** Why `slice` is undefined. */
  readonly sliceError?: string;
  readonly nodeCount?: number;
  readonly autoscaling?: Record<string, unknown>;
  readonly capacity: TpuCapacityKind;
  readonly reservationType?: string;
  readonly reservations: readonly string[];
  readonly serviceAccount?: string;
  readonly zones: readonly string[];
}

export interface CpuPool {
  readonly stack: string;
  readonly address: string;
  readonly name: string;
  readonly machineType: string;
  readonly nodeCount?: number;
  readonly minNodes?: number;
  readonly maxNodes?: number;
  readonly spot: boolean;
  readonly serviceAccount?: string;
}

export type IamScope = 'project' | 'bucket' | 'secret' | 'service-account' | 'other';

export interface IamGrant {
  readonly stack: string;
  readonly address: string;
  readonly member: string;
  readonly role: string;
  readonly scope: IamScope;
  /** The project, bucket, secret or service account the grant is on. */
  readonly target: string;
}

export interface ControlPlane {
  readonly stack: string;
  readonly address: string;
  readonly name: string;
  /** Undefined when `master_authorized_networks_config` is absent (any address may reach the IP endpoint). */
  readonly authorizedNetworks?: ReadonlyArray<{ cidr: string; displayName?: string }>;
  readonly gcpPublicCidrsAccess: boolean;
  readonly privateNodes: boolean;
  readonly privateEndpoint: boolean;
  /** DNS-based endpoint (IAM-authorized) reachable from outside Google's network. */
  readonly dnsEndpointExternal: boolean;
  /** False only when the IP endpoints are explicitly disabled. */
  readonly ipEndpointEnabled: boolean;
  readonly legacyAbac: boolean;
  readonly deletionProtection: boolean;
  readonly removeDefaultNodePool: boolean;
  readonly defaultPoolServiceAccount?: string;
}

export interface WorkloadIdentityBinding {
  readonly stack: string;
  readonly address: string;
  /** Google service account the Kubernetes service account acts as. */
  readonly gsa: string;
  /** `namespace/ksa` parsed from the member, or the raw member. */
  readonly ksa: string;
}

export type GcsAccess = 'read' | 'write' | 'uses';

export interface GcsPathUse {
  readonly path: string;
  readonly access: GcsAccess;
  /** The flag or env var that carries it (`load_parameters_path`), when there is one. */
  readonly key?: string;
}

export type StepKind = 'conversion' | 'training' | 'export' | 'other';

export interface JobSetStep {
  readonly stack: string;
  readonly address: string;
  readonly name: string;
  readonly namespace?: string;
  readonly kind: StepKind;
  readonly images: ReadonlyArray<{ image: string; container: string }>;
  readonly ttlSecondsAfterFinished?: unknown;
  readonly queueName?: string;
  /** TPU chips the JobSet requests in total (replicas x parallelism x per-pod `google.com/tpu`). */
  readonly tpuChips: number;
  /** Topology and chips per VM of the slice the TPU pods select (from nodeSelector and limits). */
  readonly tpuTopology?: string;
  readonly tpuChipsPerPod?: number;
  /** Node pools selected by name (`cloud.google.com/gke-nodepool`). */
  readonly nodePools: readonly string[];
  readonly model?: string;
  /** `timeouts.create` in seconds: how long Terraform waits, an upper bound of how long the step holds its slice. */
  readonly timeoutSeconds?: number;
  readonly timeoutText?: string;
  readonly waits: boolean;
  /** Addresses this step's resource depends on. */
  readonly dependsOn: readonly string[];
  readonly gcs: readonly GcsPathUse[];
}

export interface Pipeline {
  readonly stack: string;
  /** Steps in execution order. */
  readonly steps: readonly JobSetStep[];
  /** Edges `from -> to` between step names. */
  readonly edges: ReadonlyArray<readonly [string, string]>;
  readonly images: readonly string[];
  readonly model?: string;
  readonly tpuTopology?: string;
  readonly tpuChipsPerPod?: number;
  readonly tpuChips: number;
  /** Sum over TPU steps of chips x timeout hours. */
  readonly chipHours: number;
  readonly gcsRead: readonly string[];
  readonly gcsWritten: readonly string[];
  /** The stack's note that it runs another MaxText than its tutorial installs. @default - none */
  readonly maxtextDifference?: string;
}

export interface KueueQuota {
  readonly stack: string;
  readonly address: string;
  /** Nominal `google.com/tpu` quota summed over flavors; undefined when not found. */
  readonly tpuChips?: number;
}

export interface Bucket {
  readonly stack: string;
  readonly address: string;
  readonly name: string;
  readonly location?: string;
  readonly uniformAccess: boolean;
  readonly publicAccessPrevention?: string;
  readonly forceDestroy: boolean;
}

/** A SecretProviderClass: which Secret Manager secrets pods of this stack can mount. */
export interface SecretMount {
  readonly stack: string;
  readonly address: string;
  readonly name: string;
  readonly secrets: readonly string[];
}

export interface SecretContainer {
  readonly stack: string;
  readonly address: string;
  readonly secretId: string;
}

/** Everything the review knows about one stack. */
export interface StackModel {
  readonly name: string;
  readonly resources: readonly TfResource[];
  readonly tpuPools: readonly TpuPool[];
  readonly cpuPools: readonly CpuPool[];
  readonly grants: readonly IamGrant[];
  readonly controlPlanes: readonly ControlPlane[];
  readonly workloadIdentity: readonly WorkloadIdentityBinding[];
  readonly jobsets: readonly JobSetStep[];
  readonly pipeline?: Pipeline;
  readonly kueue: readonly KueueQuota[];
  readonly buckets: readonly Bucket[];
  readonly secrets: readonly SecretContainer[];
  readonly secretMounts: readonly SecretMount[];
  /** Addresses of secret versions whose payload is in the Terraform config. */
  readonly secretVersionsWithData: readonly string[];
}

/** Reads a local Helm chart's values.yaml and templates, for quota the values do not carry. */
export type ChartReader = (chart: string) => { values?: string; templates?: readonly string[] } | undefined;

// ---------------------------------------------------------------------------------------------------------------
// small helpers

type Obj = Record<string, unknown>;

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Terraform JSON renders a single nested block as an object, sometimes as a one-element list. */
export function block(value: unknown): Obj | undefined {
  if (Array.isArray(value)) return isObj(value[0]) ? value[0] : undefined;
  return isObj(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

function num(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) return Number(value);
  return undefined;
}

function bool(value: unknown): boolean {
  return value === true || value === 'true';
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

/** Every resource of a Terraform JSON document, in file order. */
export function resources(json: TerraformJson): TfResource[] {
  const out: TfResource[] = [];
  for (const [type, byName] of Object.entries(json.resource ?? {})) {
    for (const [name, attrs] of Object.entries(byName ?? {})) {
      out.push({ address: `${type}.${name}`, type, name, attrs: attrs as Obj });
    }
  }
  return out;
}

/**
 * Replaces `${type.name.attr}` references to resources of the same stack with the literal value when the
 * referenced attribute is a literal input (or a service account's email/member, derived from account_id).
 * Unresolvable references are shown as `type.name.attr`.
 */
export function resolveRefs(value: string, json: TerraformJson): string {
  return value.replace(/\$\{([^}]+)\}/g, (_match, expr: string) => {
    const parts = expr.trim().split('.');
    const isData = parts[0] === 'data';
    const [type, name, attr] = isData ? parts.slice(1) : parts;
    const attrs = (isData ? json.data : json.resource)?.[type ?? '']?.[name ?? ''];
    const literal = (v: unknown) => (typeof v === 'string' && !v.includes('${')) || typeof v === 'number';
    if (attrs && attr) {
      if (literal(attrs[attr])) return String(attrs[attr]);
      if (type === 'google_service_account' && literal(attrs.account_id)) {
        const email = `${String(attrs.account_id)}@${literal(attrs.project) ? String(attrs.project) : providerProject(json)}.iam.gserviceaccount.com`;
        return attr === 'member' ? `serviceAccount:${email}` : email;
      }
      if (type === 'google_secret_manager_secret' && literal(attrs.secret_id)) return String(attrs.secret_id);
      if ((attr === 'id' || attr === 'name') && literal(attrs.name)) return String(attrs.name);
    }
    return expr.trim();
  });
}

/** The google provider's project, which resources without `project` inherit. */
function providerProject(json: TerraformJson): string {
  const google = (json.provider as Record<string, unknown> | undefined)?.google;
  const project = block(google)?.project;
  return typeof project === 'string' && !project.includes('${') ? project : 'PROJECT';
}

/** Formats seconds the way a reviewer reads them: `12h`, `1h30m`, `45m`, `90s`. */
export function humanDuration(seconds: number | undefined): string | undefined {
  if (seconds === undefined) return undefined;
  if (seconds % 60 !== 0 || seconds < 60) return `${seconds}s`;
  const h = Math.floor(seconds / 3600);
  const m = (seconds % 3600) / 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}`;
}

/** Parses a Terraform/Go duration (`24h`, `1h30m`, `90m`, `3600s`) into seconds. */
export function durationSeconds(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text.trim()) return undefined;
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1), 0);
}

// ---------------------------------------------------------------------------------------------------------------
// node pools

const TPU_MACHINE_PREFIX = 'ct6e-';

function poolName(r: TfResource): string {
  const name = str(r.attrs.name);
  return name && !name.includes('${') ? name : r.name;
}

function tpuPool(stack: string, r: TfResource, json: TerraformJson): TpuPool {
  const nodeConfig = block(r.attrs.node_config) ?? {};
  const machineType = str(nodeConfig.machine_type) ?? '';
  const labels = isObj(nodeConfig.labels) ? nodeConfig.labels : {};
  let topology = str(block(r.attrs.placement_policy)?.tpu_topology) ?? str(labels[TPU_TOPOLOGY_LABEL]);
  // A single-host machine type has exactly one topology; GKE infers it when the pool does not say.
  if (!topology && isTpuMachineType(machineType) && supportedTopologies(machineType).length === 1) {
    topology = supportedTopologies(machineType)[0];
  }
  let slice: TpuSlice | undefined;
  let sliceError: string | undefined;
  try {
    slice = tpuSlice(machineType, topology ?? '', `${r.address} topology`);
  } catch (error) {
    sliceError = (error as Error).message;
  }
  const affinity = block(nodeConfig.reservation_affinity);
  const reservationType = str(affinity?.consume_reservation_type);
  const reservations = list(affinity?.values).map((v) => resolveRefs(String(v), json));
  const capacity: TpuCapacityKind = bool(nodeConfig.flex_start)
    ? 'flex-start'
    : bool(nodeConfig.spot) || bool(nodeConfig.preemptible)
      ? 'spot'
      : reservationType && reservationType !== 'NO_RESERVATION' && reservationType !== 'UNSPECIFIED'
        ? 'reservation'
        : 'on-demand';
  const sa = str(nodeConfig.service_account);
  return {
    stack,
    address: r.address,
    name: poolName(r),
    machineType,
    topology,
    slice,
    sliceError,
    nodeCount: num(r.attrs.node_count) ?? num(r.attrs.initial_node_count),
    autoscaling: block(r.attrs.autoscaling),
    capacity,
    reservationType,
    reservations,
    serviceAccount: sa === undefined ? undefined : resolveRefs(sa, json),
    zones: list(r.attrs.node_locations).map(String),
  };
}

function cpuPool(stack: string, r: TfResource, json: TerraformJson): CpuPool {
  const nodeConfig = block(r.attrs.node_config) ?? {};
  const autoscaling = block(r.attrs.autoscaling);
  const sa = str(nodeConfig.service_account);
  return {
    stack,
    address: r.address,
    name: poolName(r),
    machineType: str(nodeConfig.machine_type) ?? 'e2-medium',
    nodeCount: num(r.attrs.node_count) ?? num(r.attrs.initial_node_count),
    // Provider state carries both the per-zone and the total_ bounds; the unused pair reads 0.
    minNodes: autoscaling ? Math.max(num(autoscaling.min_node_count) ?? 0, num(autoscaling.total_min_node_count) ?? 0) : undefined,
    maxNodes: autoscaling ? Math.max(num(autoscaling.max_node_count) ?? 0, num(autoscaling.total_max_node_count) ?? 0) : undefined,
    spot: bool(nodeConfig.spot) || bool(nodeConfig.preemptible),
    serviceAccount: sa === undefined ? undefined : resolveRefs(sa, json),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// IAM

function iamScope(type: string): IamScope {
  if (type.startsWith('google_project_iam')) return 'project';
  if (type.startsWith('google_storage_bucket_iam')) return 'bucket';
  if (type.startsWith('google_secret_manager_secret_iam')) return 'secret';
  if (type.startsWith('google_service_account_iam')) return 'service-account';
  return 'other';
}

function iamTarget(r: TfResource, json: TerraformJson): string {
  const a = r.attrs;
  const raw = str(a.bucket) ?? str(a.secret_id) ?? str(a.service_account_id) ?? str(a.project) ?? '';
  return resolveRefs(raw, json) || '(provider project)';
}

function grants(stack: string, rs: TfResource[], json: TerraformJson): IamGrant[] {
  const out: IamGrant[] = [];
  for (const r of rs) {
    if (!/^google_.+_iam_(member|binding)$/.test(r.type)) continue;
    const members = r.type.endsWith('_member') ? [r.attrs.member] : list(r.attrs.members);
    for (const member of members) {
      out.push({
        stack,
        address: r.address,
        member: resolveRefs(String(member ?? ''), json),
        role: resolveRefs(String(r.attrs.role ?? ''), json),
        scope: iamScope(r.type),
        target: iamTarget(r, json),
      });
    }
  }
  return out;
}

function workloadIdentity(stack: string, all: IamGrant[], rs: TfResource[], json: TerraformJson): WorkloadIdentityBinding[] {
  const out: WorkloadIdentityBinding[] = all
    .filter((g) => g.role === 'roles/iam.workloadIdentityUser')
    .map((g) => {
      const match = /\.svc\.id\.goog\[([^\]]+)\]/.exec(g.member);
      return { stack, address: g.address, gsa: g.target, ksa: match?.[1] ?? g.member };
    });
  for (const r of rs.filter((x) => x.type === 'kubernetes_service_account' || x.type === 'kubernetes_service_account_v1')) {
    const metadata = block(r.attrs.metadata) ?? {};
    const annotations = isObj(metadata.annotations) ? metadata.annotations : {};
    const gsa = str(annotations['iam.gke.io/gcp-service-account']);
    if (gsa) {
      out.push({
        stack,
        address: r.address,
        gsa: resolveRefs(gsa, json),
        ksa: `${resolveRefs(str(metadata.namespace) ?? 'default', json)}/${resolveRefs(str(metadata.name) ?? r.name, json)} (annotation)`,
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// control plane

function controlPlane(stack: string, r: TfResource, json: TerraformJson): ControlPlane {
  const a = r.attrs;
  const man = block(a.master_authorized_networks_config);
  const priv = block(a.private_cluster_config) ?? {};
  const endpoints = block(a.control_plane_endpoints_config) ?? {};
  const dns = block(endpoints.dns_endpoint_config);
  const ip = block(endpoints.ip_endpoints_config);
  const nodeConfig = block(a.node_config);
  const sa = str(nodeConfig?.service_account);
  return {
    stack,
    address: r.address,
    name: poolName(r),
    authorizedNetworks: man
      ? list(man.cidr_blocks).filter(isObj).map((c) => ({ cidr: String(c.cidr_block), displayName: str(c.display_name) }))
      : undefined,
    gcpPublicCidrsAccess: bool(man?.gcp_public_cidrs_access_enabled),
    privateNodes: bool(priv.enable_private_nodes),
    privateEndpoint: bool(priv.enable_private_endpoint),
    dnsEndpointExternal: bool(dns?.allow_external_traffic),
    ipEndpointEnabled: ip?.enabled === undefined ? true : bool(ip.enabled),
    legacyAbac: bool(a.enable_legacy_abac),
    // Provider >= 5 defaults deletion_protection to true.
    deletionProtection: a.deletion_protection === undefined ? true : bool(a.deletion_protection),
    removeDefaultNodePool: bool(a.remove_default_node_pool),
    defaultPoolServiceAccount: sa === undefined ? undefined : resolveRefs(sa, json),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// JobSets and pipelines

/** Flags whose value is a path the step writes (MaxText `key=value` and CLI `--key`). */
const WRITE_KEY = /(output|save|dest|target|write|export|upload|scratch|gcs_location|run_dir|^out)/i;
/** Flags whose value is a path the step reads. */
const READ_KEY = /(load|input|source|src|from|read|dataset|data_?path|tokenizer|checkpoint|model_path|params)/i;
const GCS = /gs:\/\/[^\s"'`,;)]+/g;

/** Collects `gs://` paths from a container's command, args and env, classified by the flag that carries them. */
export function gcsUses(texts: ReadonlyArray<{ text: string; key?: string }>): GcsPathUse[] {
  const out = new Map<string, GcsPathUse>();
  const add = (use: GcsPathUse) => {
    const id = `${use.access}:${use.path}`;
    if (!out.has(id)) out.set(id, use);
  };
  const classify = (key: string | undefined): GcsAccess =>
    key === undefined ? 'uses' : WRITE_KEY.test(key) ? 'write' : READ_KEY.test(key) ? 'read' : 'uses';
  for (const { text, key } of texts) {
    for (const match of text.matchAll(GCS)) {
      const at = match.index ?? 0;
      // `key=gs://`, `--key=gs://`, `--key gs://`, `--key "gs://`
      const before = text.slice(Math.max(0, at - 80), at);
      const flag = /(?:^|[\s"'])-{0,2}([A-Za-z][\w.-]*)(?:=|\s+)["']?$/.exec(before)?.[1];
      const path = match[0].replace(/[\\]+$/, '');
      add({ path, access: classify(flag ?? key), key: flag ?? key });
    }
  }
  return [...out.values()];
}

function podSpecs(manifest: Obj): Array<{ replicas: number; parallelism: number; spec: Obj; job: string }> {
  const spec = block(manifest.spec) ?? {};
  return list(spec.replicatedJobs)
    .filter(isObj)
    .map((rj) => {
      const jobSpec = block(block(rj.template)?.spec) ?? {};
      const podSpec = block(block(jobSpec.template)?.spec) ?? {};
      return {
        job: String(rj.name ?? ''),
        replicas: num(rj.replicas) ?? 1,
        parallelism: num(jobSpec.parallelism) ?? 1,
        spec: podSpec,
      };
    });
}

function containersOf(spec: Obj): Obj[] {
  return [...list(spec.initContainers), ...list(spec.containers)].filter(isObj);
}

/** Step kind: the pipeline's step label, else the step name's suffix, else the MaxText module it runs. */
export function stepKind(name: string, text: string, stepLabel?: string): StepKind {
  const label = `${stepLabel ?? ''} ${name}`.toLowerCase();
  if (/(^|[\s-])(to-hf|to-huggingface|export)\b/.test(label)) return 'export';
  if (/(^|[\s-])(to-maxtext|convert)\b/.test(label)) return 'conversion';
  if (/(^|[\s-])(train|sft|grpo)\b/.test(label)) return 'training';
  if (/\bto_huggingface\b/.test(text)) return 'export';
  if (/\bto_maxtext\b/.test(text)) return 'conversion';
  if (/\btrain_(rl|sft)\b|\btrain\.py\b/.test(text)) return 'training';
  return 'other';
}

function jobSet(stack: string, r: TfResource, json: TerraformJson): JobSetStep | undefined {
  const manifest = block(r.attrs.manifest);
  if (!manifest || manifest.kind !== 'JobSet') return undefined;
  const metadata = block(manifest.metadata) ?? {};
  const labels = isObj(metadata.labels) ? metadata.labels : {};
  const spec = block(manifest.spec) ?? {};
  const images: Array<{ image: string; container: string }> = [];
  const texts: Array<{ text: string; key?: string }> = [];
  let tpuChips = 0;
  let tpuTopology: string | undefined;
  let tpuChipsPerPod: number | undefined;
  const nodePools = new Set<string>();
  for (const pod of podSpecs(manifest)) {
    const selector = isObj(pod.spec.nodeSelector) ? pod.spec.nodeSelector : {};
    let podTpu = 0;
    for (const c of containersOf(pod.spec)) {
      if (typeof c.image === 'string') images.push({ image: c.image, container: `${pod.job}/${String(c.name ?? '')}` });
      for (const part of [...list(c.command), ...list(c.args)]) texts.push({ text: String(part) });
      for (const env of list(c.env).filter(isObj)) {
        if (typeof env.value === 'string') texts.push({ text: env.value, key: String(env.name ?? '') });
      }
      const resources = block(c.resources) ?? {};
      const limits = block(resources.limits) ?? block(resources.requests) ?? {};
      podTpu += num(limits[TPU_RESOURCE]) ?? 0;
    }
    if (podTpu > 0) {
      tpuChips += pod.replicas * pod.parallelism * podTpu;
      tpuChipsPerPod = podTpu;
      tpuTopology = str(selector[TPU_TOPOLOGY_LABEL]) ?? tpuTopology;
    }
    const pool = str(selector['cloud.google.com/gke-nodepool']);
    if (pool) nodePools.add(pool);
  }
  const allText = texts.map((t) => t.text).join(' ');
  const name = str(metadata.name) ?? r.name;
  const timeoutText = str(block(r.attrs.timeouts)?.create);
  return {
    stack,
    address: r.address,
    name,
    namespace: str(metadata.namespace),
    kind: stepKind(name, allText, str(labels['tpu-post-training/step'])),
    images,
    ttlSecondsAfterFinished: spec.ttlSecondsAfterFinished,
    queueName: str(labels['kueue.x-k8s.io/queue-name']),
    tpuChips,
    tpuTopology,
    tpuChipsPerPod,
    nodePools: [...nodePools],
    model: /\bmodel_name[=\s]+["']?([\w.-]+)/.exec(allText)?.[1],
    timeoutSeconds: durationSeconds(timeoutText),
    timeoutText: humanDuration(durationSeconds(timeoutText)) ?? timeoutText,
    waits: r.attrs.wait !== undefined,
    dependsOn: list(r.attrs.depends_on).map((d) => String(d).replace(/^\$\{|\}$/g, '')),
    gcs: gcsUses(texts).map((u) => ({ ...u, path: resolveRefs(u.path, json) })),
  };
}

const KIND_ORDER: Record<StepKind, number> = { conversion: 0, training: 1, other: 2, export: 3 };

/** Every resource's and data source's `depends_on`, by address (`type.name`, `data.type.name`). */
export function dependencyMap(json: TerraformJson): Map<string, string[]> {
  const deps = new Map<string, string[]>();
  const clean = (d: unknown) => String(d).replace(/^\$\{|\}$/g, '');
  for (const [prefix, blocks] of [['', json.resource], ['data.', json.data]] as const) {
    for (const [type, byName] of Object.entries(blocks ?? {})) {
      for (const [name, attrs] of Object.entries(byName ?? {})) deps.set(`${prefix}${type}.${name}`, list(attrs?.depends_on).map(clean));
    }
  }
  return deps;
}

/**
 * The JobSets a step waits for: its depends_on, followed through anything that is not a JobSet (a step's completion
 * gate is a data source that depends on the previous JobSet).
 */
function upstreamSteps(step: JobSetStep, steps: Map<string, JobSetStep>, deps: Map<string, string[]>): JobSetStep[] {
  const found: JobSetStep[] = [];
  const seen = new Set<string>();
  const visit = (address: string) => {
    if (seen.has(address)) return;
    seen.add(address);
    const hit = steps.get(address);
    if (hit && hit !== step) return void found.push(hit);
    for (const next of address === step.address ? step.dependsOn : deps.get(address) ?? []) visit(next);
  };
  visit(step.address);
  return found;
}

/** Orders steps by their dependencies (stable on the conversion -> training -> export convention). */
export function pipelineOf(stack: string, steps: JobSetStep[], deps: Map<string, string[]> = new Map()): Pipeline | undefined {
  if (steps.length === 0) return undefined;
  const byAddress = new Map(steps.map((s) => [s.address, s]));
  const edges: Array<[string, string]> = [];
  const upstream = new Map<string, string[]>();
  for (const s of steps) {
    const from = upstreamSteps(s, byAddress, deps);
    upstream.set(s.address, from.map((f) => f.address));
    for (const f of from) edges.push([f.name, s.name]);
  }
  const sorted = [...steps].sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
  const ordered: JobSetStep[] = [];
  const placed = new Set<string>();
  while (ordered.length < sorted.length) {
    const next =
      sorted.find((s) => !placed.has(s.address) && (upstream.get(s.address) ?? []).every((d) => placed.has(d))) ??
      sorted.find((s) => !placed.has(s.address))!;
    placed.add(next.address);
    ordered.push(next);
  }
  if (edges.length === 0) {
    for (let i = 1; i < ordered.length; i++) edges.push([ordered[i - 1]!.name, ordered[i]!.name]);
  }
  const position = (n: string) => ordered.findIndex((s) => s.name === n);
  edges.sort((x, y) => position(x[0]) - position(y[0]) || position(x[1]) - position(y[1]));
  const tpuSteps = ordered.filter((s) => s.tpuChips > 0);
  const uniq = (xs: string[]) => [...new Set(xs)];
  const written = uniq(ordered.flatMap((s) => s.gcs.filter((g) => g.access === 'write').map((g) => g.path)));
  return {
    stack,
    steps: ordered,
    edges,
    images: uniq(ordered.flatMap((s) => s.images.map((i) => i.image))),
    model: ordered.find((s) => s.kind === 'training' && s.model)?.model ?? ordered.find((s) => s.model)?.model,
    tpuTopology: tpuSteps[0]?.tpuTopology,
    tpuChipsPerPod: tpuSteps[0]?.tpuChipsPerPod,
    tpuChips: Math.max(0, ...tpuSteps.map((s) => s.tpuChips)),
    chipHours: tpuSteps.reduce((sum, s) => sum + (s.tpuChips * (s.timeoutSeconds ?? 0)) / 3600, 0),
    gcsRead: uniq(
      ordered.flatMap((s) => s.gcs.filter((g) => g.access === 'read' || (g.access === 'uses' && !written.includes(g.path))).map((g) => g.path)),
    ),
    gcsWritten: written,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Kueue

/** Finds `{name: google.com/tpu, nominalQuota}` entries anywhere in a values tree. */
function tpuQuotaIn(value: unknown): number | undefined {
  let total: number | undefined;
  const visit = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!isObj(v)) return;
    if (v.name === TPU_RESOURCE && v.nominalQuota !== undefined) {
      total = (total ?? 0) + (num(v.nominalQuota) ?? 0);
      return;
    }
    Object.values(v).forEach(visit);
  };
  visit(value);
  return total;
}

function parseYamlValues(text: string): unknown[] {
  try {
    return parseAllDocuments(text).map((d) => d.toJS() as unknown);
  } catch {
    return [];
  }
}

/** Kueue quota from a helm_release: values (YAML strings), `set` entries, then the local chart's files. */
function kueueQuota(stack: string, r: TfResource, readChart?: ChartReader): KueueQuota | undefined {
  const chart = str(r.attrs.chart) ?? '';
  const text = JSON.stringify(r.attrs);
  const docs = list(r.attrs.values).flatMap((v) => (typeof v === 'string' ? parseYamlValues(v) : [v]));
  let tpu = tpuQuotaIn(docs);
  if (tpu === undefined) {
    for (const s of list(r.attrs.set).filter(isObj)) {
      if (/tpu/i.test(String(s.name)) && /quota|chips/i.test(String(s.name))) tpu = num(s.value) ?? tpu;
    }
  }
  const files = !/kueue|queue/i.test(`${chart} ${text}`) ? undefined : readChart?.(chart);
  if (tpu === undefined && files) {
    tpu = tpuQuotaIn(parseYamlValues(files.values ?? ''));
    for (const t of files.templates ?? []) {
      const literal = /name:\s*["']?google\.com\/tpu["']?\s*\n\s*nominalQuota:\s*["']?(\d+)/.exec(t);
      if (tpu === undefined && literal) tpu = Number(literal[1]);
    }
  }
  // The Kueue chart's own values name ClusterQueue only as a controller concurrency key; quota objects have these.
  const mentionsClusterQueue = /nominalQuota|resourceGroups/.test(text) || tpu !== undefined;
  if (!mentionsClusterQueue && !(files?.templates ?? []).some((t) => /ClusterQueue/.test(t))) return undefined;
  return { stack, address: r.address, tpuChips: tpu };
}

// ---------------------------------------------------------------------------------------------------------------

/** Adds the stack's `tutorial_maxtext` output (jobs/names.ts) to its pipeline. */
function withMaxTextDifference(pipeline: Pipeline | undefined, json: TerraformJson): Pipeline | undefined {
  const note = json.output?.[TUTORIAL_MAXTEXT_OUTPUT]?.value;
  return pipeline && typeof note === 'string' ? { ...pipeline, maxtextDifference: note } : pipeline;
}

/** Extracts the domain model of one stack. */
export function extractStack(name: string, json: TerraformJson, readChart?: ChartReader): StackModel {
  const rs = resources(json);
  const pools = rs.filter((r) => r.type === 'google_container_node_pool');
  const isTpu = (r: TfResource) => String(block(r.attrs.node_config)?.machine_type ?? '').startsWith(TPU_MACHINE_PREFIX);
  const allGrants = grants(name, rs, json);
  const jobsets = rs
    .filter((r) => r.type === 'kubernetes_manifest')
    .map((r) => jobSet(name, r, json))
    .filter((j): j is JobSetStep => j !== undefined);
  return {
    name,
    resources: rs,
    tpuPools: pools.filter(isTpu).map((r) => tpuPool(name, r, json)),
    cpuPools: pools.filter((r) => !isTpu(r)).map((r) => cpuPool(name, r, json)),
    grants: allGrants,
    controlPlanes: rs.filter((r) => r.type === 'google_container_cluster').map((r) => controlPlane(name, r, json)),
    workloadIdentity: workloadIdentity(name, allGrants, rs, json),
    jobsets,
    pipeline: withMaxTextDifference(pipelineOf(name, jobsets, dependencyMap(json)), json),
    kueue: rs
      .filter((r) => r.type === 'helm_release')
      .map((r) => kueueQuota(name, r, readChart))
      .filter((q): q is KueueQuota => q !== undefined),
    buckets: rs
      .filter((r) => r.type === 'google_storage_bucket')
      .map((r) => ({
        stack: name,
        address: r.address,
        name: resolveRefs(str(r.attrs.name) ?? r.name, json),
        location: str(r.attrs.location),
        uniformAccess: bool(r.attrs.uniform_bucket_level_access),
        publicAccessPrevention: str(r.attrs.public_access_prevention),
        forceDestroy: bool(r.attrs.force_destroy),
      })),
    secrets: rs
      .filter((r) => r.type === 'google_secret_manager_secret')
      .map((r) => ({ stack: name, address: r.address, secretId: resolveRefs(str(r.attrs.secret_id) ?? r.name, json) })),
    secretMounts: rs
      .filter((r) => r.type === 'kubernetes_manifest' && block(r.attrs.manifest)?.kind === 'SecretProviderClass')
      .map((r) => ({
        stack: name,
        address: r.address,
        name: str(block(block(r.attrs.manifest)?.metadata)?.name) ?? r.name,
        secrets: [...new Set([...JSON.stringify(r.attrs.manifest).matchAll(/projects\/[^/"\s\\]+\/secrets\/[^/"\s\\]+/g)].map((m) => m[0]))],
      })),
    secretVersionsWithData: rs
      .filter((r) => r.type === 'google_secret_manager_secret_version' && r.attrs.secret_data !== undefined)
      .map((r) => r.address),
  };
}
