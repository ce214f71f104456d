/**
 * `google_container_node_pool`: TPU slices (recognised through the project's TPU table, jobs/tpu.ts) and CPU pools.
 *
 * What Terraform does with a change, from hashicorp/terraform-provider-google v6.50.0,
 * `google/services/container/resource_container_node_pool.go` and `node_config.go`:
 * - ForceNew (a change replaces the pool): `placement_policy` (the whole block, so `tpu_topology` too),
 *   `queued_provisioning`, `max_pods_per_node`, `initial_node_count`, `name`, `name_prefix`, `project`, `cluster`,
 *   `location`, and in `node_config` among others `spot`, `preemptible`, `flex_start`, `reservation_affinity`,
 *   `service_account`, `metadata`.
 * - In place: `node_count` (`NodePools.SetSize`, resourceContainerNodePoolUpdate -> nodePoolUpdate), `autoscaling`
 *   (cluster update `DesiredNodePoolAutoscaling`), `node_locations` and `node_config.machine_type` / disk fields
 *   (`UpdateNodePool`), labels, taints, tags, `management`, `version`, `upgrade_settings`.
 * A multi-host TPU slice is atomic (GKE "About TPUs in GKE", shared/reference/cdktf-gke-terraform.md §3.1): nodes
 * cannot be added to it after creation, and GKE creates or repairs all of its VMs at once.
 */
import type { CapacityType } from '../../jobs/capacity';
import { isTpuMachineType, supportedTopologies, tpuSlice, TpuSlice, TPU_TOPOLOGY_LABEL } from '../../jobs/tpu';
import { arrow, block, bool, isObj, list, nameOf, num, resolveRefs, str, TfResource } from '../values';
import { attributeChanges } from '../attributes';
import type { ChangeContext, ExtractContext, ResourceDescriber } from './types';

/** The facts this describer adds to a stack's model and reads of a change (review/model.ts StackFacts). */
type Facts = { readonly tpuPools: readonly TpuPool[]; readonly cpuPools: readonly CpuPool[] };

/** The capacity vocabulary (jobs/capacity.ts), plus what a pool that names none gets. */
export type TpuCapacityKind = CapacityType | 'on-demand';

export interface TpuPool {
  readonly stack: string;
  readonly address: string;
  /** Node pool name (`tpu-v6e-32-0`), or the resource name when the attribute is computed. */
  readonly name: string;
  readonly machineType: string;
  readonly topology?: string;
  /** Slice facts from the TPU table; undefined when machine type and topology do not form a slice there. */
  readonly slice?: TpuSlice;
  /** Why `slice` is undefined. */
  readonly sliceError?: string;
  readonly nodeCount?: number;
  readonly autoscaling?: Record<string, unknown>;
  /** Lower bound of the autoscaler (the larger of the per-zone and total bounds); undefined without autoscaling. */
  readonly minNodes?: number;
  readonly maxNodes?: number;
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

/** Attribute paths (plan or synthesis, leading segment) whose change makes Terraform replace the pool (v6.50.0). */
export const FORCE_NEW = [
  'placement_policy', 'queued_provisioning', 'max_pods_per_node', 'initial_node_count', 'name', 'name_prefix', 'project',
  'cluster', 'location', 'node_config.spot', 'node_config.preemptible', 'node_config.flex_start',
  'node_config.reservation_affinity', 'node_config.service_account', 'node_config.metadata',
] as const;

/** In-place changes GKE cannot apply to a multi-host slice: why, per leading attribute path. */
export const SLICE_IN_PLACE_BREAKS: Readonly<Record<string, string>> = {
  node_count:
    'Terraform resizes the pool in place (NodePools.SetSize), but a multi-host slice is atomic: its node count is fixed by the topology and nodes cannot be added or removed after creation',
  autoscaling: 'Terraform changes the autoscaler in place, but a multi-host slice scales only as a whole (0 <-> all VMs)',
  node_locations: 'Terraform moves the pool to other zones in place (UpdateNodePool), but a slice lives in one zone with its reservation',
  'node_config.machine_type': 'Terraform changes the machine type in place (UpdateNodePool), which recreates every VM; the topology fixes the TPU machine type',
  'node_config.disk_size_gb': 'Terraform changes the boot disk in place (UpdateNodePool), which recreates every VM of the slice at once',
  'node_config.disk_type': 'Terraform changes the boot disk in place (UpdateNodePool), which recreates every VM of the slice at once',
};

/** Normalises a plan/synthesis attribute path (`node_config[0].machine_type`, `node_config.machine_type`). */
export function leadingPath(path: string): string {
  const clean = path.replace(/\[\d+\]/g, '');
  const [first, second] = clean.split('.');
  return first === 'node_config' && second ? `node_config.${second}` : first!;
}

export function forcesReplacement(path: string): boolean {
  const p = path.replace(/\[\d+\]/g, '');
  return FORCE_NEW.some((f) => p === f || p.startsWith(`${f}.`));
}

function bounds(autoscaling: Record<string, unknown> | undefined): { min?: number; max?: number } {
  if (!autoscaling) return {};
  // Provider state carries both the per-zone and the total_ bounds; the unused pair reads 0.
  return {
    min: Math.max(num(autoscaling.min_node_count) ?? 0, num(autoscaling.total_min_node_count) ?? 0),
    max: Math.max(num(autoscaling.max_node_count) ?? 0, num(autoscaling.total_max_node_count) ?? 0),
  };
}

/** True when the node pool's machine type is a TPU machine type of the project's table. */
export function isTpuPoolAttrs(attrs: unknown): boolean {
  return isObj(attrs) && isTpuMachineType(String(block(attrs.node_config)?.machine_type ?? ''));
}

function tpuPool(r: TfResource, { stack, json }: ExtractContext): TpuPool {
  const nodeConfig = block(r.attrs.node_config) ?? {};
  const machineType = str(nodeConfig.machine_type) ?? '';
  const labels = isObj(nodeConfig.labels) ? nodeConfig.labels : {};
  let topology = str(block(r.attrs.placement_policy)?.tpu_topology) ?? str(labels[TPU_TOPOLOGY_LABEL]);
  // A pool that names no topology is one VM (a multi-host slice needs placement_policy.tpu_topology): the machine
  // type's one single-VM topology, which GKE infers (ct6e-standard-4t: 2x2; a one-topology machine type: that one).
  if (!topology && isTpuMachineType(machineType)) {
    const single = supportedTopologies(machineType).filter((t) => !tpuSlice(machineType, t).multiHost);
    if (single.length === 1) topology = single[0];
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
  const autoscaling = block(r.attrs.autoscaling);
  const { min, max } = bounds(autoscaling);
  return {
    stack,
    address: r.address,
    name: nameOf(r),
    machineType,
    topology,
    slice,
    sliceError,
    nodeCount: num(r.attrs.node_count) ?? num(r.attrs.initial_node_count),
    autoscaling,
    minNodes: min,
    maxNodes: max,
    capacity,
    reservationType,
    reservations,
    serviceAccount: sa === undefined ? undefined : resolveRefs(sa, json),
    zones: list(r.attrs.node_locations).map(String),
  };
}

function cpuPool(r: TfResource, { stack, json }: ExtractContext): CpuPool {
  const nodeConfig = block(r.attrs.node_config) ?? {};
  const { min, max } = bounds(block(r.attrs.autoscaling));
  const sa = str(nodeConfig.service_account);
  return {
    stack,
    address: r.address,
    name: nameOf(r),
    machineType: str(nodeConfig.machine_type) ?? 'e2-medium',
    nodeCount: num(r.attrs.node_count) ?? num(r.attrs.initial_node_count),
    minNodes: min,
    maxNodes: max,
    spot: bool(nodeConfig.spot) || bool(nodeConfig.preemptible),
    serviceAccount: sa === undefined ? undefined : resolveRefs(sa, json),
  };
}

export function capacityText(p: { capacity: string; reservations: readonly string[] }): string {
  return p.capacity === 'reservation' ? `reservation ${p.reservations.join(',') || '(none)'}` : p.capacity;
}

/** True when the pool may sit at zero nodes (autoscaled from 0, e.g. flex-start 0..N, or a fixed size of 0). */
export function scalesFromZero(p: { autoscaling?: unknown; minNodes?: number; nodeCount?: number }): boolean {
  return p.autoscaling ? (p.minNodes ?? 0) === 0 : p.nodeCount === 0;
}

/**
 * What Terraform does with a TPU pool change (provider v6.50.0): a ForceNew attribute replaces the pool; otherwise
 * the change is applied in place, which a multi-host slice cannot take for the attributes in SLICE_IN_PLACE_BREAKS.
 */
export function whatTerraformDoes(before: unknown, after: unknown, pool: TpuPool): string {
  const paths = attributeChanges(before, after).map((c) => c.path);
  const forcing = [...new Set(paths.filter(forcesReplacement).map(leadingPath))];
  if (forcing.length) return ` (Terraform replaces the pool: ${forcing.join(', ')} cannot change in place)`;
  const breaking = [...new Set(paths.map(leadingPath))].filter((x) => SLICE_IN_PLACE_BREAKS[x]);
  if (breaking.length && pool.slice?.multiHost) return ` (Terraform changes ${breaking.join(', ')} in place, which a multi-host slice cannot take)`;
  return '';
}

function describe({ b, a, verb, before, after }: ChangeContext<Facts>): string[] | undefined {
  const bt = b?.tpuPools[0];
  const at = a?.tpuPools[0];
  if (bt || at) {
    const p = (at ?? bt)!;
    const shape = (x = p) =>
      x.slice ? `${x.machineType} ${x.slice.topology}, ${x.slice.chips} chips, ${x.slice.vms} hosts, ${capacityText(x)}` : `${x.machineType} ${x.topology ?? ''}`;
    if (verb) return [`TPU pool ${p.name} ${verb}: ${shape()}`];
    if (!bt || !at) {
      // A TPU pool on one side only: its machine type changed to or from a non-TPU one (or is unknown until apply).
      const other = (bt ? a?.cpuPools[0] : b?.cpuPools[0])?.machineType ?? '-';
      const [from, to] = bt ? [bt.machineType, other] : [other, at!.machineType];
      return [`TPU pool ${p.name}: machine type ${from} -> ${to}${whatTerraformDoes(before, after, p)}`];
    }
    const parts = [
      arrow('machine type', bt!.machineType, at!.machineType),
      arrow('topology', bt!.topology, at!.topology),
      arrow('chips', bt!.slice?.chips, at!.slice?.chips),
      arrow('hosts', bt!.slice?.vms, at!.slice?.vms),
      arrow('node count', bt!.nodeCount, at!.nodeCount),
      arrow('capacity', capacityText(bt!), capacityText(at!)),
      arrow('autoscaling', bt!.autoscaling, at!.autoscaling, (v) => (v ? JSON.stringify(v) : 'off')),
      arrow('service account', bt!.serviceAccount, at!.serviceAccount),
      arrow('zones', bt!.zones.join(','), at!.zones.join(',')),
    ].filter(Boolean);
    return parts.length ? [`TPU pool ${p.name}: ${parts.join(', ')}${whatTerraformDoes(before, after, at!)}`] : [];
  }
  const bc = b?.cpuPools[0];
  const ac = a?.cpuPools[0];
  if (!bc && !ac) return undefined;
  const p = (ac ?? bc)!;
  const size = (x = p) => (x.minNodes !== undefined || x.maxNodes !== undefined ? `${x.minNodes ?? 0}-${x.maxNodes ?? '?'} nodes` : `${x.nodeCount ?? '?'} nodes`);
  if (verb) return [`CPU pool ${p.name} ${verb}: ${p.machineType}, ${size()}${p.spot ? ', spot' : ''}`];
  const parts = [
    arrow('machine type', bc!.machineType, ac!.machineType),
    arrow('size', size(bc!), size(ac!)),
    arrow('spot', bc!.spot, ac!.spot),
    arrow('service account', bc!.serviceAccount, ac!.serviceAccount),
  ].filter(Boolean);
  return parts.length ? [`CPU pool ${p.name}: ${parts.join(', ')}`] : [];
}

export const containerNodePool: ResourceDescriber<Facts> = {
  types: ['google_container_node_pool'],
  extract: (r, ctx) => (isTpuPoolAttrs(r.attrs) ? { tpuPools: [tpuPool(r, ctx)] } : { cpuPools: [cpuPool(r, ctx)] }),
  describe,
};
