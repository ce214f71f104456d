/**
 * Turns the validated config into the Platform every stack shares (jobs/platform.ts).
 */
import { Capacity, derivePlatform, Platform } from '../jobs/platform';
import { tpuSlice } from '../jobs/tpu';
import { LoadedConfig, sourceOf } from './load';
import { Config } from './schema';

/** The single-host slice shape of the optional single-host pool (the single-host RL tutorial's v6e-8 VM). */
export const SINGLE_HOST_SHAPE = { machineType: 'ct6e-standard-8t', topology: '2x4' } as const;

function capacityOf(type: Config['tpu']['capacity'], reservation: string | undefined, maxRunHours: number): Capacity {
  switch (type) {
    case 'reservation':
      return { type, reservation: reservation ?? '' };
    case 'spot':
      return { type };
    case 'flex-start':
      return { type, maxRunDurationSeconds: maxRunHours * 3600 };
  }
}

export function platformFromConfig(loaded: LoadedConfig): Platform {
  const c = loaded.config;
  const groups = [
    {
      slice: tpuSlice(c.tpu.machineType, c.tpu.topology, sourceOf(loaded, 'tpu.topology')),
      count: c.tpu.slices,
      capacity: capacityOf(c.tpu.capacity, c.tpu.reservation, c.tpu.flexStartMaxRunHours),
    },
  ];
  if (c.singleHost.enabled) {
    groups.push({
      slice: tpuSlice(SINGLE_HOST_SHAPE.machineType, SINGLE_HOST_SHAPE.topology),
      count: 1,
      capacity: capacityOf(c.singleHost.capacity, c.singleHost.reservation, c.singleHost.flexStartMaxRunHours),
    });
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
