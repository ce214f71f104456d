import { ContainerNodePool } from '@cdktf/provider-google/lib/container-node-pool';
import { Testing } from 'cdktf';
import { TpuSlicePool } from '../../constructs/tpu-slice-pool';
import { Capacity } from '../../jobs/platform';
import { tpuSlice } from '../../jobs/tpu';

function synthPool(machineType: string, topology: string, capacity: Capacity, diskSizeGb?: number): any {
  const out = Testing.synthScope((scope) => {
    new TpuSlicePool(scope, 'pool', {
      name: 'tpu-test-0',
      cluster: { clusterId: 'projects/p/locations/r/clusters/c' },
      slice: tpuSlice(machineType, topology),
      zone: 'us-east5-b',
      capacity,
      serviceAccountEmail: 'np@p.iam.gserviceaccount.com',
      diskSizeGb,
    });
  });
  return Object.values(JSON.parse(out).resource.google_container_node_pool)[0];
}

const reservation: Capacity = { type: 'reservation', reservation: 'res' };

test('GIVEN a 4x4 reservation slice THEN 4 nodes, COMPACT 4x4, specific reservation (defaults)', () => {
  const out = Testing.synthScope((scope) => {
    new TpuSlicePool(scope, 'pool', {
      name: 'tpu-v6e-16-0',
      cluster: { clusterId: 'c' },
      slice: tpuSlice('ct6e-standard-4t', '4x4'),
      zone: 'us-east5-b',
      capacity: reservation,
      serviceAccountEmail: 'np@p.iam.gserviceaccount.com',
    });
  });
  expect(out).toHaveResourceWithProperties(ContainerNodePool, {
    name: 'tpu-v6e-16-0',
    node_count: 4,
    placement_policy: { type: 'COMPACT', tpu_topology: '4x4' },
    node_locations: ['us-east5-b'],
  });
  const pool = synthPool('ct6e-standard-4t', '4x4', reservation);
  expect(pool.node_config).toMatchObject({ disk_size_gb: 100, disk_type: 'hyperdisk-balanced', image_type: 'COS_CONTAINERD' });
});

test('disk size override', () => {
  expect(synthPool('ct6e-standard-4t', '4x8', reservation, 300).node_config.disk_size_gb).toBe(300);
});

test('a single-host slice has no placement policy', () => {
  const pool = synthPool('ct6e-standard-8t', '2x4', reservation);
  expect(pool.node_count).toBe(1);
  expect(pool.placement_policy).toBeUndefined();
});

test('ct6e-standard-4t 2x4 is two VMs: COMPACT placement', () => {
  expect(synthPool('ct6e-standard-4t', '2x4', reservation)).toMatchObject({
    node_count: 2,
    placement_policy: { type: 'COMPACT', tpu_topology: '2x4' },
  });
});

test('upgrades replace nodes without a surge slice (no spare reserved capacity)', () => {
  for (const capacity of [{ type: 'spot' as const }, { type: 'reservation' as const, reservation: 'r' }]) {
    expect(synthPool('ct6e-standard-4t', '4x8', capacity).upgrade_settings).toEqual({ strategy: 'SURGE', max_surge: 0, max_unavailable: 1 });
  }
});

test('spot: NO_RESERVATION, spot nodes, fixed size', () => {
  const pool = synthPool('ct6e-standard-4t', '4x8', { type: 'spot' });
  expect(pool).toMatchObject({ node_count: 8, node_config: { spot: true, reservation_affinity: { consume_reservation_type: 'NO_RESERVATION' } } });
  expect(pool.autoscaling).toBeUndefined();
});

test('flex-start: autoscales 0 -> all VMs with per-zone limits (total limits break TPU flex-start), auto-repair off, max run duration', () => {
  const pool = synthPool('ct6e-standard-4t', '4x8', { type: 'flex-start', maxRunDurationSeconds: 7200 });
  expect(pool.autoscaling.total_min_node_count).toBeUndefined();
  expect(pool.autoscaling.total_max_node_count).toBeUndefined();
  expect(pool.upgrade_settings).toBeUndefined();
  expect(pool).toMatchObject({
    autoscaling: { min_node_count: 0, max_node_count: 8, location_policy: 'ANY' },
    management: { auto_repair: false, auto_upgrade: true },
    node_config: { flex_start: true, max_run_duration: '7200s' },
  });
});

test('GIVEN a tpu7x multi-host slice THEN a HIGH_THROUGHPUT workload policy with the topology places it (no tpu_topology)', () => {
  const out = JSON.parse(
    Testing.synthScope((scope) => {
      new TpuSlicePool(scope, 'pool', {
        name: 'tpu-tpu7x-2x2x2-0',
        cluster: { clusterId: 'c' },
        slice: tpuSlice('tpu7x-standard-4t', '2x2x2'),
        zone: 'us-central1-c',
        capacity: reservation,
        serviceAccountEmail: 'np@p.iam.gserviceaccount.com',
      });
    }),
  );
  const [policy] = Object.values(out.resource.google_compute_resource_policy) as any[];
  expect(policy).toEqual({
    name: 'tpu-tpu7x-2x2x2-0-placement-policy',
    region: 'us-central1',
    workload_policy: { type: 'HIGH_THROUGHPUT', accelerator_topology: '2x2x2' },
  });
  const [pool] = Object.values(out.resource.google_container_node_pool) as any[];
  expect(pool.node_count).toBe(2);
  expect(pool.placement_policy).toEqual({ type: 'COMPACT', policy_name: expect.stringMatching(/^\$\{google_compute_resource_policy\.pool_workload-policy_\w+\.name\}$/) });
});

test('GIVEN a v5p multi-host slice THEN COMPACT placement with its 3-D topology, no workload policy', () => {
  const pool = synthPool('ct5p-hightpu-4t', '2x2x2', reservation);
  expect(pool.placement_policy).toEqual({ type: 'COMPACT', tpu_topology: '2x2x2' });
  expect(pool.node_count).toBe(2);
});
