import { ContainerNodePool } from '@cdktf/provider-google/lib/container-node-pool';
import { Testing } from 'cdktf';
import { PROVIDER_NODE_POOL_TIMEOUT_MINUTES, TpuSlicePool, tpuPoolTimeoutMinutes, workloadPolicyName } from '../../constructs/tpu-slice-pool';
import { Capacity } from '../../jobs/platform';
import { tpuSlice } from '../../jobs/tpu';

function synthPool(machineType: string, topology: string, capacity: Capacity, diskSizeGb?: number, queuedProvisioning?: boolean): any {
  const out = Testing.synthScope((scope) => {
    new TpuSlicePool(scope, 'pool', {
      name: 'tpu-test-0',
      cluster: { clusterId: 'projects/p/locations/r/clusters/c', clusterName: 'c' },
      slice: tpuSlice(machineType, topology),
      zone: 'us-east5-b',
      capacity,
      queuedProvisioning,
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
      cluster: { clusterId: 'c', clusterName: 'c' },
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

const flexStart: Capacity = { type: 'flex-start', maxRunDurationSeconds: 7200 };

test('flex-start (default): queued provisioning, and the pool names the TPU labels its flavor selects', () => {
  const pool = synthPool('ct6e-standard-4t', '4x8', flexStart);
  expect(pool.queued_provisioning).toEqual({ enabled: true });
  expect(pool.node_config.labels).toEqual({ 'cloud.google.com/gke-tpu-accelerator': 'tpu-v6e-slice', 'cloud.google.com/gke-tpu-topology': '4x8' });
  // Everything else a flex-start pool had stays: the queued pool still scales 0 -> all VMs with no reservation.
  expect(pool).toMatchObject({
    autoscaling: { min_node_count: 0, max_node_count: 8, location_policy: 'ANY' },
    node_config: { flex_start: true, reservation_affinity: { consume_reservation_type: 'NO_RESERVATION' } },
  });
  expect(synthPool('ct6e-standard-8t', '2x4', flexStart).queued_provisioning).toEqual({ enabled: true });
});

test('reservation and spot pools are never queued and name no labels (unchanged)', () => {
  for (const capacity of [reservation, { type: 'spot' } as Capacity]) {
    const pool = synthPool('ct6e-standard-4t', '4x8', capacity);
    expect({ type: capacity.type, queued: pool.queued_provisioning, labels: pool.node_config.labels }).toEqual({ type: capacity.type, queued: undefined, labels: undefined });
  }
});

test('queuedProvisioning: false keeps a flex-start pool a plain flex-start pool (a pool no Kueue workload asks for)', () => {
  const pool = synthPool('ct6e-standard-8t', '2x4', flexStart, undefined, false);
  expect(pool.queued_provisioning).toBeUndefined();
  expect(pool.node_config.labels).toBeUndefined();
  expect(pool).toMatchObject({ autoscaling: { min_node_count: 0, max_node_count: 1 }, node_config: { flex_start: true } });
});

test('queuedProvisioning on a reservation or spot pool is an error naming the key, the capacity and the pool', () => {
  expect(() => synthPool('ct6e-standard-4t', '4x8', { type: 'spot' }, undefined, true)).toThrow(
    `queuedProvisioning needs capacity 'flex-start' (GKE obtains a queued pool's nodes only through ProvisioningRequests, scaling it from 0 with no reservation), got capacity "spot" for pool "tpu-test-0"; drop queuedProvisioning or choose capacity 'flex-start'`,
  );
  expect(() => synthPool('ct6e-standard-4t', '4x8', reservation, undefined, true)).toThrow(/^queuedProvisioning needs capacity 'flex-start' .* got capacity "reservation" for pool "tpu-test-0"/);
});

function tpu7x(clusterName: string, zone = 'us-central1-c') {
  return JSON.parse(
    Testing.synthScope((scope) => {
      new TpuSlicePool(scope, 'pool', {
        name: 'tpu-tpu7x-2x2x2-0',
        cluster: { clusterId: 'c', clusterName },
        slice: tpuSlice('tpu7x-standard-4t', '2x2x2'),
        zone,
        capacity: reservation,
        serviceAccountEmail: 'np@p.iam.gserviceaccount.com',
      });
    }),
  );
}

test('GIVEN a tpu7x multi-host slice THEN Cluster Toolkit\'s form: a HIGH_THROUGHPUT workload policy, COMPACT + policy_name + tpu_topology', () => {
  const out = tpu7x('post-train');
  const [policy] = Object.values(out.resource.google_compute_resource_policy) as any[];
  expect(policy).toEqual({
    name: 'post-train-tpu-tpu7x-2x2x2-0-placement',
    region: 'us-central1',
    workload_policy: { type: 'HIGH_THROUGHPUT', accelerator_topology: '2x2x2' },
  });
  const [pool] = Object.values(out.resource.google_container_node_pool) as any[];
  expect(pool.node_count).toBe(2);
  expect(pool.placement_policy).toEqual({
    type: 'COMPACT',
    policy_name: expect.stringMatching(/^\$\{google_compute_resource_policy\.pool_workload-policy_\w+\.name\}$/),
    tpu_topology: '2x2x2',
  });
});

test('two clusters in one region get two workload policy names (a name is per project and region: the second got 409)', () => {
  const name = (cluster: string) => (Object.values(tpu7x(cluster).resource.google_compute_resource_policy)[0] as any).name;
  expect(name('team-a')).not.toBe(name('team-b'));
  expect(name('team-a')).toBe('team-a-tpu-tpu7x-2x2x2-0-placement');
});

test('a workload policy name over 63 characters is an error naming CLUSTER_NAME', () => {
  expect(() => workloadPolicyName('abcdefghijklmnopqrst', 'tpu-tpu7x-16x16x16-01234567890123')).toThrow(
    "workload policy name 'abcdefghijklmnopqrst-tpu-tpu7x-16x16x16-01234567890123-placement' is 64 characters; Compute Engine allows 63: shorten CLUSTER_NAME",
  );
});

test('every generation boots from the disk type its VMs support (the TPU table row): pd-balanced on v5e/v5p', () => {
  const cases: Array<[string, string, string]> = [
    ['ct5lp-hightpu-4t', '4x4', 'pd-balanced'],
    ['ct5lp-hightpu-8t', '2x4', 'pd-balanced'],
    ['ct5p-hightpu-4t', '2x2x2', 'pd-balanced'],
    ['ct6e-standard-4t', '4x8', 'hyperdisk-balanced'],
    ['tpu7x-standard-4t', '2x2x1', 'hyperdisk-balanced'],
  ];
  for (const [machineType, topology, disk] of cases) {
    expect({ machineType, disk: synthPool(machineType, topology, reservation).node_config.disk_type }).toEqual({ machineType, disk });
  }
});

test('create and update timeouts are sized to the slice, above the provider\'s 30-minute default', () => {
  expect(synthPool('ct6e-standard-4t', '4x8', reservation).timeouts).toEqual({ create: '68m', update: '68m' });
  expect(synthPool('ct6e-standard-8t', '2x4', reservation).timeouts).toEqual({ create: '61m', update: '61m' });
  expect(synthPool('ct5p-hightpu-4t', '8x16x16', reservation).timeouts).toEqual({ create: '572m', update: '572m' });
  for (const vms of [1, 8, 64, 1024]) expect(tpuPoolTimeoutMinutes({ vms })).toBeGreaterThan(PROVIDER_NODE_POOL_TIMEOUT_MINUTES + vms / 2);
});

test('GIVEN a v5p multi-host slice THEN COMPACT placement with its 3-D topology, no workload policy', () => {
  const pool = synthPool('ct5p-hightpu-4t', '2x2x2', reservation);
  expect(pool.placement_policy).toEqual({ type: 'COMPACT', tpu_topology: '2x2x2' });
  expect(pool.node_count).toBe(2);
});
