/**
 * The TPU table: the one place in the project that knows a TPU number, one row per generation.
 *
 * Everything else (node pools, Kueue quota, JobSet shapes, MaxText device checks, HBM fit checks, the plan review's
 * capacity section, the config's accepted machine types) derives from `tpuSlice(machineType, topology)`.
 * Adding a generation is one row in GENERATIONS plus tests.
 *
 * Modelled on AI-Hypercomputer/xpk `src/xpk/core/system_characteristics.py` (v1.9.0): one
 * `get_tpu_system_characteristics_map(...)` call per generation and machine type (GKE accelerator label, machine
 * type, supported topologies, tensorcores per chip, `pathways_tpu_version`), and everything per slice derived from
 * the topology: chips = product of the dimensions, VMs = chips / chips per VM, accelerator type
 * `<prefix>-<chips x tensorcores per chip>`, Pathways `--instance_type` `<pathways_tpu_version>:<topology>`, 3-D
 * topologies from `generate_tpu_topologies(max_cubes)`. Unlike xpk (whose chips per VM is 1 or 4), this table
 * also has the 8-chip single-host VMs (`ct6e-standard-8t`, `ct5lp-hightpu-8t`) GKE offers.
 *
 * Facts per generation: Cloud TPU docs v5e / v5p / v6e / tpu7x ("Supported configurations", "System architecture":
 * HBM per chip, vCPUs and RAM of a 4-chip VM) and GKE "Plan TPUs in GKE" (machine types, topologies, labels);
 * see ../shared/reference/cdktf-gke-terraform.md §3.1 and anchor-xpk-pathways-jobset.md §2.
 *
 * Pure: no cdktf import.
 */

/** Node label keys GKE puts on TPU nodes; pods select on them. */
export const TPU_ACCELERATOR_LABEL = 'cloud.google.com/gke-tpu-accelerator';
export const TPU_TOPOLOGY_LABEL = 'cloud.google.com/gke-tpu-topology';
/** The extended resource a pod requests to get TPU chips. */
export const TPU_RESOURCE = 'google.com/tpu';
/** GKE taints every TPU node `google.com/tpu=present:NoSchedule`. */
export const TPU_TAINT = { key: TPU_RESOURCE, value: 'present', effect: 'NO_SCHEDULE' } as const;
/** The matching pod toleration (Kubernetes spelling of the effect). */
export const TPU_TOLERATION = { key: TPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' } as const;

/** One GKE machine type of a generation. */
interface MachineRow {
  /** Chips attached to one VM (one GKE node). */
  readonly chipsPerVm: number;
  /** Topologies GKE accepts for a node pool of this machine type. */
  readonly topologies: readonly string[];
  /** How to describe the topologies in an error message when the list is long. @default - the list */
  readonly topologyRule?: string;
  /** Host vCPUs and memory (GiB) of one VM. */
  readonly hostVcpus: number;
  readonly hostMemoryGib: number;
}

/** One TPU generation: the row xpk's get_tpu_system_characteristics_map takes. */
interface GenerationRow {
  /** Cloud TPU accelerator type prefix (`v6e` in `v6e-32`; xpk `prefix`). */
  readonly prefix: string;
  /** TensorCores per chip: Cloud TPU accelerator types count TensorCores (`v5p-16` is 8 chips). */
  readonly tensorcoresPerChip: number;
  /** `cloud.google.com/gke-tpu-accelerator` value (xpk `gke_accelerator`). */
  readonly acceleratorLabel: string;
  /** Pathways `--instance_type` prefix (xpk `pathways_tpu_version`). */
  readonly pathwaysVersion: string;
  /** HBM per chip, GiB (the data sheet). */
  readonly hbmGibPerChip: number;
  /**
   * HBM per chip a program may use, GiB: XLA:TPU's compile-time limit, what its out-of-memory error reports as
   * `Used <n>G of <limit>G hbm` (openxla/xla docs/errors/error_1000.md shows the message). Below the data sheet: the
   * runtime reserves the rest. The fit check (jobs/hbm.ts) holds a step against this figure, not hbmGibPerChip.
   */
  readonly usableHbmGibPerChip: number;
  /** Where usableHbmGibPerChip comes from. */
  readonly usableHbmSource: string;
  /**
   * Peak dense bf16 compute of one chip, TFLOP/s (the Cloud TPU page's "Peak compute per chip (bf16)"): no step can run
   * faster than its FLOPs over this figure times the chips (jobs/step-time.ts). int8/fp8 peaks are at most twice it on
   * every generation here (v5e 393 TOPs, v6e 1836, tpu7x fp8 4614; v5p fp8 = bf16 459).
   */
  readonly peakBf16Tflops: number;
  /** Where peakBf16Tflops comes from. */
  readonly peakBf16Source: string;
  /**
   * The oldest GKE version whose TPU node pools support the generation, or undefined when every version a release
   * channel offers does (the cluster then takes its channel's default). Applied as the cluster's minimum version.
   * @default - none
   */
  readonly minGkeVersion?: string;
  /** Where minGkeVersion comes from. @default - none */
  readonly minGkeVersionSource?: string;
  /** The machine type whose pool names carry no `-<n>t` suffix (the 4-chip VM of multi-host slices). */
  readonly defaultMachineType: string;
  /** Multi-host pools are placed by a GCE workload policy named in their COMPACT placement (xpk `tpu_type_requires_workload_policy`). */
  readonly requiresWorkloadPolicy: boolean;
  /**
   * Boot disk type of the generation's VMs (GKE `disk_type`): Cloud TPU "Attach durable block storage"
   * (cloud.google.com/tpu/docs/setup-persistent-disk): v6e supports Hyperdisk Balanced (and Hyperdisk ML), v5e and v5p
   * Balanced Persistent Disk only; tpu7x as Cluster Toolkit v1.95.0 examples/gke-tpu-7x/gke-tpu-7x.yaml sets it.
   */
  readonly bootDiskType: 'pd-balanced' | 'hyperdisk-balanced';
  readonly machines: Readonly<Record<string, MachineRow>>;
}

/** 2-D slice shapes of v5e and v6e on 4-chip VMs (2x2 is one VM; 2x4 and larger are multi-host). */
const TWO_D_4T = ['2x2', '2x4', '4x4', '4x8', '8x8', '8x16', '16x16'] as const;

/**
 * xpk `generate_tpu_topologies(max_cubes)`: 2x2x1, 2x2x2, 2x2x4, 2x4x4, then every AxBxC with A <= B <= C multiples
 * of 4 up to 256 and (A/4)(B/4)(C/4) <= maxCubes.
 */
export function cubeTopologies(maxCubes: number): string[] {
  const out = ['2x2x1', '2x2x2', '2x2x4', '2x4x4'];
  // The cube count grows with each of A <= B <= C, so each loop stops at the first side that exceeds maxCubes (the
  // table is built on every synth; the whole 64^3 grid took ~2 ms per generation).
  for (let x = 4; x <= 256 && (x / 4) ** 3 <= maxCubes; x += 4) {
    for (let y = x; y <= 256 && (x / 4) * (y / 4) ** 2 <= maxCubes; y += 4) {
      for (let z = y; z <= 256 && (x / 4) * (y / 4) * (z / 4) <= maxCubes; z += 4) out.push(`${x}x${y}x${z}`);
    }
  }
  return out;
}

const cubeRule = (maxCubes: number) =>
  `2x2x1, 2x2x2, 2x2x4, 2x4x4, or AxBxC with A <= B <= C multiples of 4 and (A/4)x(B/4)x(C/4) <= ${maxCubes}`;

/** The generations. Keys are the names config and messages use. */
export const GENERATIONS = {
  v5e: {
    prefix: 'v5litepod',
    tensorcoresPerChip: 1,
    acceleratorLabel: 'tpu-v5-lite-podslice',
    pathwaysVersion: 'tpuv5e',
    hbmGibPerChip: 16,
    usableHbmGibPerChip: 15.75,
    usableHbmSource: "XLA:TPU out-of-memory reports on v5e/v5litepod: 'Used <n>G of 15.75G hbm'",
    peakBf16Tflops: 197,
    peakBf16Source: 'docs.cloud.google.com/tpu/docs/v5e: "Peak compute per chip (bf16) 197 TFLOPs" (Int8 393 TOPs)',
    defaultMachineType: 'ct5lp-hightpu-4t',
    requiresWorkloadPolicy: false,
    bootDiskType: 'pd-balanced',
    machines: {
      'ct5lp-hightpu-1t': { chipsPerVm: 1, topologies: ['1x1'], hostVcpus: 24, hostMemoryGib: 48 },
      'ct5lp-hightpu-4t': { chipsPerVm: 4, topologies: TWO_D_4T, hostVcpus: 112, hostMemoryGib: 192 },
      'ct5lp-hightpu-8t': { chipsPerVm: 8, topologies: ['2x4'], hostVcpus: 224, hostMemoryGib: 384 },
    },
  },
  v5p: {
    prefix: 'v5p',
    tensorcoresPerChip: 2,
    acceleratorLabel: 'tpu-v5p-slice',
    pathwaysVersion: 'tpuv5',
    // The Cloud TPU v5p page says 95 ("HBM capacity per chip (GiB) 95"; earlier "95GB"), yet XLA offers a program
    // 95.74 GiB (below; XLA's "G" is GiB: 15.75 of v5e's 16, 31.25 of v6e's 32), so the page rounds down: the chip
    // holds at least 95.74 GiB, and 96 is the whole GiB that holds it with the same small reserve as the others.
    hbmGibPerChip: 96,
    usableHbmGibPerChip: 95.74,
    usableHbmSource: "XLA:TPU out-of-memory reports on v5p: 'Used <n>G of 95.74G hbm' (openxla/xla docs/errors/error_1000.md: 'exceeding available bytes: 95.74G')",
    peakBf16Tflops: 459,
    peakBf16Source: 'docs.cloud.google.com/tpu/docs/v5p: "Peak compute per chip (bf16) 459 TFLOPs"; tpu7x page table: v5p BF16 459, FP8 459',
    defaultMachineType: 'ct5p-hightpu-4t',
    requiresWorkloadPolicy: false,
    bootDiskType: 'pd-balanced',
    machines: {
      'ct5p-hightpu-4t': { chipsPerVm: 4, topologies: cubeTopologies(140), topologyRule: cubeRule(140), hostVcpus: 208, hostMemoryGib: 448 },
    },
  },
  v6e: {
    prefix: 'v6e',
    tensorcoresPerChip: 1,
    acceleratorLabel: 'tpu-v6e-slice',
    pathwaysVersion: 'tpuv6e',
    hbmGibPerChip: 32,
    usableHbmGibPerChip: 31.25,
    usableHbmSource: "XLA:TPU out-of-memory reports on v6e: 'Ran out of memory in memory space hbm. Used <n>G of 31.25G hbm'",
    peakBf16Tflops: 918,
    peakBf16Source: 'docs.cloud.google.com/tpu/docs/v6e: "Peak compute per chip (bf16) 918 TFLOPs" (Int8 1836 TOPs)',
    defaultMachineType: 'ct6e-standard-4t',
    requiresWorkloadPolicy: false,
    bootDiskType: 'hyperdisk-balanced',
    machines: {
      'ct6e-standard-1t': { chipsPerVm: 1, topologies: ['1x1'], hostVcpus: 44, hostMemoryGib: 48 },
      'ct6e-standard-4t': { chipsPerVm: 4, topologies: TWO_D_4T, hostVcpus: 180, hostMemoryGib: 720 },
      'ct6e-standard-8t': { chipsPerVm: 8, topologies: ['2x4'], hostVcpus: 180, hostMemoryGib: 1440 },
    },
  },
  tpu7x: {
    prefix: 'tpu7x',
    tensorcoresPerChip: 2,
    acceleratorLabel: 'tpu7x',
    pathwaysVersion: 'tpu7x',
    hbmGibPerChip: 192,
    usableHbmGibPerChip: 189.5,
    usableHbmSource: "XLA:TPU out-of-memory reports on tpu7x: 'Used <n>G of 94.75G hbm' per TensorCore, two TensorCores per chip",
    // 4614 is the page's FP8 figure; bf16 is half of it.
    peakBf16Tflops: 2307,
    peakBf16Source: 'docs.cloud.google.com/tpu/docs/tpu7x: "Peak compute per chip (BF16) (TFLOPs) 2307", "(FP8) 4614"',
    minGkeVersion: '1.34.0-gke.2201000',
    minGkeVersionSource:
      'GKE "Plan TPUs in GKE" (Ironwood: 1.34.0-gke.2201000 or later); Cluster Toolkit v1.95.0 examples/gke-tpu-7x pin version_prefix 1.35.',
    defaultMachineType: 'tpu7x-standard-4t',
    requiresWorkloadPolicy: true,
    bootDiskType: 'hyperdisk-balanced',
    machines: {
      'tpu7x-standard-4t': { chipsPerVm: 4, topologies: cubeTopologies(144), topologyRule: cubeRule(144), hostVcpus: 224, hostMemoryGib: 960 },
    },
  },
} as const satisfies Record<string, GenerationRow>;

export type TpuGeneration = keyof typeof GENERATIONS;
type MachinesOf<G extends TpuGeneration> = keyof (typeof GENERATIONS)[G]['machines'];
/** Every GKE TPU machine type of the table. */
export type TpuMachineType = { [G in TpuGeneration]: MachinesOf<G> }[TpuGeneration] & string;

const MACHINE_INDEX: ReadonlyMap<string, { generation: TpuGeneration; row: GenerationRow; machine: MachineRow }> = new Map(
  (Object.entries(GENERATIONS) as Array<[TpuGeneration, GenerationRow]>).flatMap(([generation, row]) =>
    Object.entries(row.machines).map(([machineType, machine]) => [machineType, { generation, row, machine }] as const),
  ),
);

/** Every machine type of the table, in table order (a non-empty tuple for zod's enum). */
export const TPU_MACHINE_TYPES = [...MACHINE_INDEX.keys()] as [TpuMachineType, ...TpuMachineType[]];

/** Everything derived from (machine type, topology) for one slice. */
export interface TpuSlice {
  readonly generation: TpuGeneration;
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
  /** Cloud TPU accelerator type name, e.g. `v6e-32`, `v5p-16` (TensorCores for v5p/tpu7x). */
  readonly acceleratorType: string;
  /** `cloud.google.com/gke-tpu-accelerator` of the slice's nodes, e.g. `tpu-v6e-slice`. */
  readonly acceleratorLabel: string;
  /** Node labels a pod selects to land on this slice. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Container resource limits for one pod per VM. */
  readonly podResources: Readonly<Record<string, string>>;
  /** Pathways `--instance_type` value, e.g. `tpuv6e:4x8`. */
  readonly pathwaysInstanceType: string;
  /** HBM of one chip and of the slice, GiB. */
  readonly hbmGibPerChip: number;
  readonly hbmGib: number;
  /** HBM of one chip a program may use (XLA's limit), GiB, and where that figure comes from. */
  readonly usableHbmGibPerChip: number;
  readonly usableHbmSource: string;
  /** vCPUs and memory (GiB) of all VMs of the slice: the Kueue TPU flavor's cpu/memory quota per slice. */
  readonly hostVcpus: number;
  readonly hostMemoryGib: number;
  /** A multi-host pool of this generation needs a GCE workload policy (tpu7x) placing it, named in COMPACT placement. */
  readonly requiresWorkloadPolicy: boolean;
  /** Boot disk type the generation's VMs support (`pd-balanced` for v5e/v5p, `hyperdisk-balanced` for v6e/tpu7x). */
  readonly bootDiskType: 'pd-balanced' | 'hyperdisk-balanced';
}

/** The generation a machine type belongs to, or undefined when the table has no such machine type. */
export function generationOf(machineType: string): TpuGeneration | undefined {
  return MACHINE_INDEX.get(machineType)?.generation;
}

/** Topologies GKE supports for a machine type. */
export function supportedTopologies(machineType: TpuMachineType): readonly string[] {
  return MACHINE_INDEX.get(machineType)?.machine.topologies ?? [];
}

/** The topologies of a machine type as an error message shows them (the list, or its rule when long). */
export function describeTopologies(machineType: TpuMachineType): string {
  const entry = MACHINE_INDEX.get(machineType);
  if (!entry) return '';
  return entry.machine.topologyRule ?? entry.machine.topologies.join(', ');
}

/** True when `value` names a TPU machine type of the table. */
export function isTpuMachineType(value: string): value is TpuMachineType {
  return MACHINE_INDEX.has(value);
}

/** Why (machineType, topology) is not a slice of the table, or undefined when it is. Never throws; cheap. */
export function sliceProblem(machineType: string, topology: string, source = 'topology'): string | undefined {
  const entry = MACHINE_INDEX.get(machineType);
  if (!entry) return `machine type must be one of ${TPU_MACHINE_TYPES.join(', ')}, got '${machineType}'`;
  if (!entry.machine.topologies.includes(topology)) {
    return `${source} must be one of ${describeTopologies(machineType as TpuMachineType)} for ${machineType}, got '${topology}'`;
  }
  return undefined;
}

/**
 * Derives the slice facts for a machine type and topology.
 *
 * @param source where the values came from, used in error messages (e.g. `TOPOLOGY (env)`).
 * @throws when the machine type is not in the table or the topology is not supported for it.
 */
export function tpuSlice(machineType: string, topology: string, source = 'topology'): TpuSlice {
  const problem = sliceProblem(machineType, topology, source);
  if (problem) throw new Error(problem);
  const { generation, row, machine } = MACHINE_INDEX.get(machineType)!;
  const chips = topology.split('x').reduce((product, dim) => product * Number(dim), 1);
  const chipsPerVm = Math.min(machine.chipsPerVm, chips);
  const vms = chips / chipsPerVm;
  return {
    generation,
    machineType: machineType as TpuMachineType,
    topology,
    chips,
    chipsPerVm,
    vms,
    multiHost: vms > 1,
    acceleratorType: `${row.prefix}-${chips * row.tensorcoresPerChip}`,
    acceleratorLabel: row.acceleratorLabel,
    nodeSelector: { [TPU_ACCELERATOR_LABEL]: row.acceleratorLabel, [TPU_TOPOLOGY_LABEL]: topology },
    podResources: { [TPU_RESOURCE]: String(chipsPerVm) },
    pathwaysInstanceType: `${row.pathwaysVersion}:${topology}`,
    hbmGibPerChip: row.hbmGibPerChip,
    hbmGib: chips * row.hbmGibPerChip,
    usableHbmGibPerChip: row.usableHbmGibPerChip,
    usableHbmSource: row.usableHbmSource,
    hostVcpus: machine.hostVcpus * vms,
    hostMemoryGib: machine.hostMemoryGib * vms,
    requiresWorkloadPolicy: row.requiresWorkloadPolicy && vms > 1,
    bootDiskType: row.bootDiskType,
  };
}

/**
 * Stable short name of a slice shape, used in node pool names (Terraform addresses: never change a name this gives).
 * The accelerator type (`v6e-32`, `v5p-16`), or `<prefix>-<topology>` for 3-D generations where several topologies
 * share a chip count (`v5p-4x4x16` and `v5p-4x8x8`); a `-<n>t` suffix when the VM is not the generation's
 * default machine type (`v6e-8-8t`).
 */
export function sliceShapeName(slice: TpuSlice): string {
  const row: GenerationRow = GENERATIONS[slice.generation];
  const base = slice.topology.split('x').length === 3 ? `${row.prefix}-${slice.topology}` : slice.acceleratorType;
  const suffix = slice.machineType === row.defaultMachineType ? '' : `-${MACHINE_INDEX.get(slice.machineType)!.machine.chipsPerVm}t`;
  return `${base}${suffix}`;
}

/**
 * The accelerator types messages give as examples, one per generation of the table, in its order: each generation's
 * largest single-VM slice (`v5litepod-8, v5p-8, v6e-8 or tpu7x-8`). Derived, so a new row is named and no hand list
 * disagrees with the table.
 */
export function acceleratorTypeExamples(): string {
  const examples = Object.values(GENERATIONS).map((row) => {
    const single = Object.entries(row.machines)
      .flatMap(([machineType, m]) => (m.topologies as readonly string[]).map((t) => tpuSlice(machineType, t)))
      .filter((slice) => slice.vms === 1)
      .sort((a, b) => b.chips - a.chips);
    return single[0]!.acceleratorType;
  });
  return `${examples.slice(0, -1).join(', ')} or ${examples[examples.length - 1]}`;
}

/**
 * Every slice of the table with a given Cloud TPU accelerator type (`v6e-32`), fewest VMs first: the TPU API's
 * `v6e-8` is the one 8-chip VM, so a tutorial's TPU_TYPE reads as that one unless the machine type says otherwise.
 */
export function slicesForAcceleratorType(acceleratorType: string): TpuSlice[] {
  const m = /^([a-z0-9]+)-(\d+)$/.exec(acceleratorType);
  if (!m) return [];
  const out: TpuSlice[] = [];
  for (const [machineType, { row, machine }] of MACHINE_INDEX) {
    if (row.prefix !== m[1]) continue;
    for (const topology of machine.topologies) {
      const slice = tpuSlice(machineType, topology);
      if (slice.acceleratorType === acceleratorType) out.push(slice);
    }
  }
  return out.sort((a, b) => a.vms - b.vms);
}

/**
 * True when two slice shapes carry the same node labels (accelerator and topology): Kueue flavors and pod node
 * selectors, which select on those labels only, could not tell them apart (e.g. ct6e-standard-4t 2x4 and
 * ct6e-standard-8t 2x4).
 */
export function sameNodeLabels(a: TpuSlice, b: TpuSlice): boolean {
  const key = (s: TpuSlice) => JSON.stringify(Object.entries(s.nodeSelector).sort(([x], [y]) => (x < y ? -1 : 1)));
  return a.machineType !== b.machineType && key(a) === key(b);
}

/** The GKE version floor of a generation (GENERATIONS `minGkeVersion`) with its source, or undefined when it has none. */
export function gkeVersionFloor(generation: TpuGeneration): { version: string; source: string } | undefined {
  const row: GenerationRow = GENERATIONS[generation];
  return row.minGkeVersion ? { version: row.minGkeVersion, source: row.minGkeVersionSource ?? '' } : undefined;
}

/**
 * The cluster's `min_master_version` for a version floor: its minor version as a GKE version alias (`1.34.0-gke.2201000`
 * -> `1.34`), never one exact patch. The google provider sends `min_master_version` as the cluster's
 * `initialClusterVersion` on create (hashicorp/terraform-provider-google v6.50.0
 * google/services/container/resource_container_cluster.go, resourceContainerClusterCreate), so an exact patch fails the
 * create once GKE stops offering it; GKE resolves `1.X` to the newest `1.X` patch it offers (GKE API
 * `Cluster.initialClusterVersion`: "1.X", "1.X.Y", "latest", "-" are accepted aliases), which is past the floor's patch
 * for as long as the floor is a patch GKE published. On update the provider upgrades the master only when its current
 * version is lower than this one (go-version comparison, resourceContainerClusterUpdate): any 1.34 or later master
 * satisfies `1.34`, so GKE's own upgrades never plan a change. Cluster Toolkit pins a prefix too (v1.95.0
 * examples/gke-tpu-7x: `version_prefix` 1.35).
 */
export function minMasterVersionOf(floor: string): string {
  const m = /^(\d+)\.(\d+)/.exec(floor);
  if (!m) throw new Error(`not a GKE version: '${floor}'`);
  return `${m[1]}.${m[2]}`;
}

/**
 * The GKE version a cluster needs for TPU pools of these generations: the highest floor among them (versions compare
 * by their numbers, `1.34.0-gke.2201000` as 1, 34, 0, 2201000), or undefined when none has a floor.
 */
export function clusterVersionFloor(generations: readonly TpuGeneration[]): { version: string; source: string } | undefined {
  const key = (v: string) => (v.match(/\d+/g) ?? []).map(Number);
  const newer = (a: string, b: string) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
    return false;
  };
  let floor: { version: string; source: string } | undefined;
  for (const g of generations) {
    const f = gkeVersionFloor(g);
    if (f && (!floor || newer(f.version, floor.version))) floor = f;
  }
  return floor;
}
