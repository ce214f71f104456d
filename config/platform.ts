/**
 * Turns the validated config into the Platform every stack shares (jobs/platform.ts): the main TPU slices, and
 * the single-host pool only when something asked for it (singleHost block, SINGLE_HOST_RESERVATION or
 * SINGLE_HOST_CAPACITY).
 */
import { Capacity, capacityOf, CapacityType, ReservationUse } from '../jobs/capacity';
import { derivePlatform, Platform } from '../jobs/platform';
import { sameNodeLabels, tpuSlice, TpuSlice } from '../jobs/tpu';
import { ConfigError, LoadedConfig, sourceOf } from './load';
import { SINGLE_HOST_SLICE } from './schema';


function capacity(loaded: LoadedConfig, block: string, type: CapacityType | undefined, reservation: string | undefined, hours: number): Capacity {
  const result = capacityOf(type ?? 'reservation', reservation, hours);
  // The schema already refused these; this keeps the types honest.
  if ('problem' in result) throw new ConfigError([`${sourceOf(loaded, `${block}.capacity`)}: ${result.problem}`]);
  return result.capacity;
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
