/**
 * Turns the validated config into the Platform every stack shares (jobs/platform.ts): the main TPU slices, and
 * the single-host pool only when something asked for it (singleHost block, SINGLE_HOST_RESERVATION or
 * SINGLE_HOST_CAPACITY).
 */
import { Capacity, capacityOf, CapacityType, ReservationUse } from '../jobs/capacity';
import { derivePlatform, Platform } from '../jobs/platform';
import { describeTopologies, generationOf, sameNodeLabels, slicesForAcceleratorType, supportedTopologies, TPU_MACHINE_TYPES, TpuGeneration, tpuSlice, TpuSlice } from '../jobs/tpu';
import { ConfigError, LoadedConfig, sourceOf } from './load';
import { SINGLE_HOST_SLICE } from './schema';


function capacity(loaded: LoadedConfig, block: string, type: CapacityType | undefined, reservation: string | undefined, hours: number): Capacity {
  const result = capacityOf(type ?? 'reservation', reservation, hours);
  // The schema already refused these; this keeps the types honest.
  if ('problem' in result) throw new ConfigError([`${sourceOf(loaded, `${block}.capacity`)}: ${result.problem}`]);
  return result.capacity;
}

/** Machine types with at most this many topologies get one fix per VM count; the 3-D ones (hundreds) one per type. */
const FIX_PER_COUNT_MAX_TOPOLOGIES = 16;

/**
 * The variables that make the main TPU slices match a reservation of other VMs of the same generation (another
 * generation gets the generic advice), keyed by its machine type and by
 * machine type + VM count: a single-shape machine type by its accelerator type (`TPU_TYPE=v6e-8`), another by
 * COMPUTE_TYPE with the topology of exactly that many VMs.
 */
const mainFixes = new Map<TpuGeneration, Record<string, string>>();
function mainPoolFixes(generation: TpuGeneration): Record<string, string> {
  const cached = mainFixes.get(generation);
  if (cached) return cached;
  const out: Record<string, string> = {};
  const fix = (s: TpuSlice) => {
    const first = slicesForAcceleratorType(s.acceleratorType)[0];
    return first?.machineType === s.machineType && first.topology === s.topology
      ? `set TPU_TYPE=${s.acceleratorType}`
      : `set COMPUTE_TYPE=${s.machineType} and TOPOLOGY=${s.topology}`;
  };
  for (const machineType of TPU_MACHINE_TYPES.filter((m) => generationOf(m) === generation)) {
    const topologies = supportedTopologies(machineType);
    if (topologies.length === 1) {
      out[machineType] = fix(tpuSlice(machineType, topologies[0]));
      continue;
    }
    out[machineType] = `set COMPUTE_TYPE=${machineType} and a TOPOLOGY of ${describeTopologies(machineType)} whose VMs the reservation holds`;
    if (topologies.length > FIX_PER_COUNT_MAX_TOPOLOGIES) continue;
    for (const t of topologies) {
      const s = tpuSlice(machineType, t);
      out[`${machineType}/${s.vms}`] ??= fix(s);
    }
  }
  mainFixes.set(generation, out);
  return out;
}

/** The fixes for a reservation bound to the main slices (`tpu`) or to the single-host pool. */
function reservationFixes(block: 'tpu' | 'singleHost', reservation: string, slice: TpuSlice): Record<string, string> {
  const main = mainPoolFixes(slice.generation);
  if (block === 'tpu') return main;
  return Object.fromEntries(
    Object.entries(main).map(([key, fix]) => [
      key,
      `set SINGLE_HOST_RESERVATION to a reservation of ${SINGLE_HOST_SLICE.machineType} VMs; to use this one for the main slices instead, set RESERVATION=${reservation} and ${fix.replace(/^set /, '')}`,
    ]),
  );
}

/** The reservations the TPU pools consume, with the VMs of all slices bound to each. */
export function reservationUses(loaded: LoadedConfig, platform: Platform): ReservationUse[] {
  const out = new Map<string, ReservationUse>();
  platform.tpuGroups.forEach((group, i) => {
    if (group.capacity.type !== 'reservation') return;
    const key = group.capacity.reservation;
    const prev = out.get(key);
    out.set(key, {
      reservation: key,
      machineType: group.slice.machineType,
      vms: (prev?.vms ?? 0) + group.slice.vms * group.count,
      pools: [...(prev?.pools ?? []), ...group.poolNames],
      env: prev?.env ?? sourceOf(loaded, i === 0 ? 'tpu.reservation' : 'singleHost.reservation'),
      fixes: prev?.fixes ?? reservationFixes(i === 0 ? 'tpu' : 'singleHost', key, group.slice),
    });
  });
  return [...out.values()];
}

export function platformFromConfig(loaded: LoadedConfig): Platform {
  const c = loaded.config;
  const groups: Array<{ slice: TpuSlice; count: number; capacity: Capacity }> = [
    {
      slice: tpuSlice(c.tpu.machineType, c.tpu.topology, sourceOf(loaded, 'tpu.topology')),
      count: c.tpu.slices,
      capacity: capacity(loaded, 'tpu', c.tpu.capacity, c.tpu.reservation, c.tpu.flexStartMaxRunHours),
    },
  ];
  if (c.singleHost?.enabled) {
    groups.push({
      slice: tpuSlice(SINGLE_HOST_SLICE.machineType, SINGLE_HOST_SLICE.topology),
      count: 1,
      capacity: capacity(loaded, 'singleHost', c.singleHost.capacity, c.singleHost.reservation, c.singleHost.flexStartMaxRunHours),
    });
  }
  const [main, single] = groups;
  if (single && sameNodeLabels(main.slice, single.slice)) {
    throw new ConfigError([
      `${sourceOf(loaded, 'tpu.topology')}: ${main.slice.machineType} ${main.slice.topology} and the single-host pool's ` +
        `${single.slice.machineType} ${single.slice.topology} carry the same node labels ` +
        `(${Object.values(main.slice.nodeSelector).join(', ')}): Kueue and the scheduler could not tell the two shapes apart, ` +
        'so either could take the other\'s quota and nodes; choose another TOPOLOGY, or drop SINGLE_HOST_RESERVATION / SINGLE_HOST_CAPACITY',
    ]);
  }
  return derivePlatform({
    project: c.project,
    region: c.region,
    zone: c.zone,
    clusterName: c.clusterName,
    bucket: c.bucket,
    namespace: c.namespace,
    cpuMachineType: c.cpuPool.machineType,
    tpuGroups: groups,
  });
}
