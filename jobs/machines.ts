/**
 * CPU machine shapes the cluster's non-TPU pools may use, and what GKE leaves allocatable on them.
 *
 * Pipelines check their head and conversion pods against the `cpu-np` shape at synth, so a pod
 * that cannot be scheduled fails here and not after a cluster autoscaler timeout. Pure; no cdktf.
 */
import { gib, parseBytes, parseMillicores } from './quantity';

export interface MachineShape {
  readonly vcpus: number;
  readonly memoryGib: number;
}

/** Compute Engine machine types (vCPUs, memory in GiB) this project knows. Add a row to use another. */
export const MACHINE_SHAPES: Readonly<Record<string, MachineShape>> = {
  'e2-standard-8': { vcpus: 8, memoryGib: 32 },
  'e2-standard-16': { vcpus: 16, memoryGib: 64 },
  'n2-standard-8': { vcpus: 8, memoryGib: 32 },
  'n2-standard-64': { vcpus: 64, memoryGib: 256 },
  'n2-highmem-32': { vcpus: 32, memoryGib: 256 },
  'n2-highmem-64': { vcpus: 64, memoryGib: 512 },
  'n2-highmem-96': { vcpus: 96, memoryGib: 768 },
  'n4-standard-32': { vcpus: 32, memoryGib: 128 },
  'n4-standard-64': { vcpus: 64, memoryGib: 256 },
  'n4-highmem-32': { vcpus: 32, memoryGib: 256 },
  'n4-highmem-64': { vcpus: 64, memoryGib: 512 },
  'n4-highmem-80': { vcpus: 80, memoryGib: 640 },
};

/**
 * What GKE's system daemonsets (logging, metadata server, CSI drivers, GCS FUSE, Secret Manager
 * provider) take on every node, on top of kube-reserved. An estimate, kept deliberately generous.
 */
export const DAEMONSET_OVERHEAD = { millicores: 1000, bytes: 2 * 2 ** 30 } as const;

/** Allocatable capacity left for workload pods on one node. */
export interface Allocatable {
  readonly millicores: number;
  readonly bytes: number;
}

/** Looks up a machine shape; throws naming the known ones. */
export function machineShape(machineType: string, source = 'machine type'): MachineShape {
  const shape = MACHINE_SHAPES[machineType];
  if (!shape) {
    throw new Error(
      `${source} must be one of ${Object.keys(MACHINE_SHAPES).join(', ')}, got '${machineType}' ` +
        '(add its vCPUs and memory to MACHINE_SHAPES in jobs/machines.ts to use another)',
    );
  }
  return shape;
}

/**
 * Allocatable CPU and memory per GKE's node reservation rules (GKE docs, "Standard cluster architecture:
 * node allocatable resources"), minus the 100 MiB eviction threshold and DAEMONSET_OVERHEAD.
 */
export function allocatable(shape: MachineShape): Allocatable {
  const cores = shape.vcpus;
  const reservedCpu =
    60 + (cores > 1 ? 10 : 0) + 5 * Math.max(0, Math.min(cores, 4) - 2) + 2.5 * Math.max(0, cores - 4);
  const memGib = shape.memoryGib;
  const tiers: Array<[number, number]> = [
    [4, 0.25],
    [8, 0.2],
    [16, 0.1],
    [128, 0.06],
    [Infinity, 0.02],
  ];
  let reservedGib = 0;
  let floor = 0;
  for (const [ceiling, share] of tiers) {
    if (memGib > floor) reservedGib += (Math.min(memGib, ceiling) - floor) * share;
    floor = ceiling;
  }
  const bytes = (memGib - reservedGib) * 2 ** 30 - 100 * 2 ** 20 - DAEMONSET_OVERHEAD.bytes;
  return { millicores: cores * 1000 - reservedCpu - DAEMONSET_OVERHEAD.millicores, bytes };
}

/** A pod's total request (sum of its containers and native sidecars). */
export interface PodRequest {
  readonly cpu: string;
  readonly memory: string;
}

/**
 * Returns undefined when the pod fits one node of the machine type, else the reason
 * (e.g. `memory 300.0Gi > 247.5Gi allocatable on n4-standard-64`).
 */
export function doesNotFit(request: { millicores: number; bytes: number }, machineType: string): string | undefined {
  const free = allocatable(machineShape(machineType));
  if (request.bytes > free.bytes) {
    return `memory ${gib(request.bytes)} > ${gib(free.bytes)} allocatable on ${machineType}`;
  }
  if (request.millicores > free.millicores) {
    return `cpu ${request.millicores / 1000} > ${(free.millicores / 1000).toFixed(2)} allocatable on ${machineType}`;
  }
  return undefined;
}

/** Sums container requests; helper for callers that hold quantity strings. */
export function sumRequests(requests: readonly PodRequest[]): { millicores: number; bytes: number } {
  return requests.reduce(
    (acc, r) => ({ millicores: acc.millicores + parseMillicores(r.cpu), bytes: acc.bytes + parseBytes(r.memory) }),
    { millicores: 0, bytes: 0 },
  );
}
