/**
 * The TPU v6e (Trillium) table: the one place in the project that knows a TPU number.
 *
 * Everything else (node pools, Kueue quota, JobSet shapes, MaxText device checks, the plan review's
 * capacity section) derives from `tpuSlice(machineType, topology)`. Facts from the Cloud TPU v6e
 * "Supported configurations" table and GKE's "About TPUs in GKE" (see ../shared/reference/cdktf-gke-terraform.md §3.1).
 *
 * Pure: no cdktf import.
 */

/** The GKE machine types of TPU v6e. */
export const TPU_V6E_MACHINE_TYPES = ['ct6e-standard-1t', 'ct6e-standard-4t', 'ct6e-standard-8t'] as const;
export type TpuMachineType = (typeof TPU_V6E_MACHINE_TYPES)[number];

/** The GKE node label value every v6e node carries (`cloud.google.com/gke-tpu-accelerator`). */
export const TPU_V6E_ACCELERATOR = 'tpu-v6e-slice';
/** Node label keys GKE puts on TPU nodes; pods select on them. */
export const TPU_ACCELERATOR_LABEL = 'cloud.google.com/gke-tpu-accelerator';
export const TPU_TOPOLOGY_LABEL = 'cloud.google.com/gke-tpu-topology';
/** The extended resource a pod requests to get TPU chips. */
export const TPU_RESOURCE = 'google.com/tpu';
/** GKE taints every TPU node `google.com/tpu=present:NoSchedule`. */
export const TPU_TAINT = { key: TPU_RESOURCE, value: 'present', effect: 'NO_SCHEDULE' } as const;
/** The matching pod toleration (Kubernetes spelling of the effect). */
export const TPU_TOLERATION = { key: TPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' } as const;
/** HBM per v6e chip, GiB (Cloud TPU v6e doc). */
export const TPU_V6E_HBM_GIB_PER_CHIP = 32;

interface MachineRow {
  /** Chips attached to one VM (one GKE node). */
  readonly chipsPerVm: number;
  /** Topologies GKE accepts for a node pool of this machine type. */
  readonly topologies: readonly string[];
  /** Host vCPUs and memory of one VM (Cloud TPU v6e doc, "VM types"). */
  readonly hostVcpus: number;
  readonly hostMemoryGib: number;
}

/** v6e machine type -> chips per VM and the topologies supported on GKE. */
const MACHINES: Record<TpuMachineType, MachineRow> = {
  'ct6e-standard-1t': { chipsPerVm: 1, topologies: ['1x1'], hostVcpus: 44, hostMemoryGib: 48 },
  'ct6e-standard-4t': {
    chipsPerVm: 4,
    topologies: ['2x4', '4x4', '4x8', '8x8', '8x16', '16x16'],
    hostVcpus: 180,
    hostMemoryGib: 720,
  },
  'ct6e-standard-8t': { chipsPerVm: 8, topologies: ['2x4'], hostVcpus: 180, hostMemoryGib: 1440 },
};

/** Everything derived from (machine type, topology) for one slice. */
export interface TpuSlice {
  readonly machineType: TpuMachineType;
  readonly topology: string;
  /** Chips in the slice (product of the topology). */
  readonly chips: number;
  /** Chips on one VM: the `google.com/tpu` request of one pod that owns a node. */
  readonly chipsPerVm: number;
  /** VMs (= GKE nodes = pods of one replicated job) in one slice. */
  readonly vms: number;
  /** More than one VM: the node pool is atomic, needs COMPACT placement, pods form an indexed job. */
  readonly multiHost: boolean;
  /** Cloud TPU accelerator type name, e.g. `v6e-32`. */
  readonly acceleratorType: string;
  /** Node labels a pod selects to land on this slice. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Container resource limits for one pod per VM. */
  readonly podResources: Readonly<Record<string, string>>;
  /** Pathways `--instance_type` value, e.g. `tpuv6e:4x8`. */
  readonly pathwaysInstanceType: string;
  /** Total HBM of the slice, GiB. */
  readonly hbmGib: number;
  /** vCPUs and memory (GiB) of all VMs of the slice: the Kueue TPU flavor's cpu/memory quota per slice. */
  readonly hostVcpus: number;
  readonly hostMemoryGib: number;
}

/** Topologies GKE supports for a v6e machine type. */
export function supportedTopologies(machineType: TpuMachineType): readonly string[] {
  return MACHINES[machineType].topologies;
}

/** True when `value` names a v6e machine type. */
export function isTpuMachineType(value: string): value is TpuMachineType {
  return (TPU_V6E_MACHINE_TYPES as readonly string[]).includes(value);
}

/**
 * Derives the slice facts for a machine type and topology.
 *
 * @param source where the values came from, used in error messages (e.g. `TOPOLOGY (env)`).
 * @throws when the machine type is not a v6e type or the topology is not supported for it.
 */
export function tpuSlice(machineType: string, topology: string, source = 'topology'): TpuSlice {
  if (!isTpuMachineType(machineType)) {
    throw new Error(
      `machine type must be one of ${TPU_V6E_MACHINE_TYPES.join(', ')}, got '${machineType}'`,
    );
  }
  const row = MACHINES[machineType];
  if (!row.topologies.includes(topology)) {
    throw new Error(
      `${source} must be one of ${row.topologies.join(', ')} for ${machineType}, got '${topology}'`,
    );
  }
  const chips = topology.split('x').reduce((product, dim) => product * Number(dim), 1);
  const vms = chips / row.chipsPerVm;
  return {
    machineType,
    topology,
    chips,
    chipsPerVm: row.chipsPerVm,
    vms,
    multiHost: vms > 1,
    acceleratorType: `v6e-${chips}`,
    nodeSelector: { [TPU_ACCELERATOR_LABEL]: TPU_V6E_ACCELERATOR, [TPU_TOPOLOGY_LABEL]: topology },
    podResources: { [TPU_RESOURCE]: String(row.chipsPerVm) },
    pathwaysInstanceType: `tpuv6e:${topology}`,
    hbmGib: chips * TPU_V6E_HBM_GIB_PER_CHIP,
    hostVcpus: row.hostVcpus * vms,
    hostMemoryGib: row.hostMemoryGib * vms,
  };
}

/** Stable short name of a slice shape, used in node pool names: `v6e-32`, or `v6e-8-8t` for the 8-chip VM. */
export function sliceShapeName(slice: TpuSlice): string {
  const suffix = slice.machineType === 'ct6e-standard-4t' ? '' : `-${slice.chipsPerVm}t`;
  return `${slice.acceleratorType}${suffix}`;
}
