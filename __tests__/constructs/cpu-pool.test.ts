import { Testing } from 'cdktf';
import { CpuNodePool, CpuNodePoolProps } from '../../constructs/cpu-pool';

function synthPool(props: Partial<CpuNodePoolProps>): any {
  const out = Testing.synthScope((scope) => {
    new CpuNodePool(scope, 'pool', {
      name: 'cpu-np',
      cluster: { clusterId: 'c' },
      zone: 'us-east5-b',
      machineType: 'n4-highmem-64',
      serviceAccountEmail: 'np@p.iam.gserviceaccount.com',
      ...props,
    });
  });
  return Object.values(JSON.parse(out).resource.google_container_node_pool)[0];
}

test('autoscaling pool defaults: from 0, hyperdisk for N4, 200 GB, GKE metadata server, image streaming', () => {
  expect(synthPool({ maxNodes: 4 })).toMatchObject({
    autoscaling: { total_min_node_count: 0, total_max_node_count: 4 },
    node_config: {
      disk_type: 'hyperdisk-balanced',
      disk_size_gb: 200,
      workload_metadata_config: { mode: 'GKE_METADATA' },
      gcfs_config: { enabled: true },
    },
  });
});

test('overrides: fixed size, disk, min nodes, non-N4 machine defaults to pd-balanced', () => {
  expect(synthPool({ machineType: 'e2-standard-8', nodeCount: 2 })).toMatchObject({ node_count: 2, node_config: { disk_type: 'pd-balanced' } });
  expect(synthPool({ maxNodes: 3, minNodes: 1, diskType: 'pd-ssd', diskSizeGb: 500 })).toMatchObject({
    autoscaling: { total_min_node_count: 1, total_max_node_count: 3 },
    node_config: { disk_type: 'pd-ssd', disk_size_gb: 500 },
  });
});

test('throws when both or neither of nodeCount and maxNodes are set', () => {
  expect(() => synthPool({ nodeCount: 1, maxNodes: 2 })).toThrow('node pool cpu-np: set exactly one of nodeCount and maxNodes');
  expect(() => synthPool({})).toThrow('node pool cpu-np: set exactly one of nodeCount and maxNodes');
});
