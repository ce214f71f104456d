/**
 * constructs/cluster-resource.ts and node-pool-resource.ts (on constructs/configured-resource.ts) stand in for
 * provider-google's generated ContainerCluster (3.6 MB a synth no longer loads) and ContainerNodePool (1.1 MB): the same
 * JSON for the cluster's real configurations (constructs/gke-cluster.ts clusterConfig), for the CPU and TPU pools'
 * (constructs/cpu-pool.ts, tpu-slice-pool.ts), and for a cluster that sets every kind of value the converter has to get
 * right. The generated classes are loaded here, in the test only, as the reference.
 */
import { ContainerCluster } from '@cdktf/provider-google/lib/container-cluster';
import { ContainerNodePool } from '@cdktf/provider-google/lib/container-node-pool';
import type { ContainerClusterConfig } from '@cdktf/provider-google/lib/container-cluster';
import { GoogleProvider } from '@cdktf/provider-google/lib/provider';
import { App, Fn, TerraformOutput, TerraformStack, Testing } from 'cdktf';
import * as fs from 'fs';
import * as path from 'path';
import { BuiltinData } from '../../constructs/builtin-data';
import { ClusterResource } from '../../constructs/cluster-resource';
import { MAP_ATTRIBUTES } from '../../constructs/configured-resource';
import { NodePoolResource } from '../../constructs/node-pool-resource';
import { CpuNodePool, CpuNodePoolProps } from '../../constructs/cpu-pool';
import { TpuSlicePool, TpuSlicePoolProps } from '../../constructs/tpu-slice-pool';
import { clusterConfig, GkeClusterProps } from '../../constructs/gke-cluster';
import { tpuSlice } from '../../jobs/tpu';

const BASE: GkeClusterProps = {
  name: 'tpu-post-train',
  region: 'us-east5',
  networkId: 'projects/p/global/networks/n',
  subnetworkId: 'projects/p/regions/us-east5/subnetworks/s',
  project: 'my-tpu-project',
  authorizedCidrs: ['203.0.113.0/24'],
  defaultPoolServiceAccount: 'nodes@my-tpu-project.iam.gserviceaccount.com',
  nodeZone: 'us-east5-b',
};

type Make = (stack: TerraformStack, config: ContainerClusterConfig) => { id: string; endpoint: string; dns: string; ca: string };
const generated: Make = (stack, config) => {
  const c = new ContainerCluster(stack, 'cluster', config);
  return { id: c.id, endpoint: c.endpoint, dns: c.controlPlaneEndpointsConfig.dnsEndpointConfig.endpoint, ca: c.masterAuth.clusterCaCertificate };
};
const lean: Make = (stack, config) => {
  const c = new ClusterResource(stack, 'cluster', config);
  return { id: c.id, endpoint: c.endpoint, dns: c.dnsEndpoint, ca: c.clusterCaCertificate };
};

/** A stack with a start time, the cluster made by `make` from `config(start)`, and an output per reference. */
function synthWith(make: Make, config: (start: BuiltinData) => ContainerClusterConfig): string {
  const stack = new TerraformStack(Testing.app() as App, 'infra');
  new GoogleProvider(stack, 'google', { project: BASE.project });
  const start = new BuiltinData(stack, 'start', '${plantimestamp()}');
  for (const [name, value] of Object.entries(make(stack, config(start)))) new TerraformOutput(stack, name, { value });
  return Testing.synth(stack);
}

const VARIANTS: Array<[string, Partial<GkeClusterProps>, number]> = [
  ['the example', {}, 30],
  ['no upgrade exclusion', {}, 0],
  ['the DNS endpoint, a minimum version, RAPID, no deletion protection', { dnsEndpoint: true, minMasterVersion: '1.34', releaseChannel: 'RAPID', deletionProtection: false }, 7],
  ['an internet-wide CIDR opted in, several CIDRs', { authorizedCidrs: ['10.0.0.0/8', '0.0.0.0/0'], allowPublicAccess: true }, 30],
];

test.each(VARIANTS)('the JSON of %s is the generated class\'s', (_, props, days) => {
  const config = (start: BuiltinData) => clusterConfig({ ...BASE, ...props }, '172.16.0.32/28', days, days > 0 ? start : undefined);
  const json = synthWith(lean, config);
  expect(json).toEqual(synthWith(generated, config));
  const tf = JSON.parse(json);
  expect(tf.resource.google_container_cluster.cluster.private_cluster_config.master_ipv4_cidr_block).toBe('172.16.0.32/28');
  expect(tf.output.ca.value).toBe('${google_container_cluster.cluster.master_auth[0].cluster_ca_certificate}');
});

test('every kind of value: maps keep their keys, lists of blocks, numbers, tokens, {} kept, unset blocks left out, meta-arguments', () => {
  const config = (start: BuiltinData): ContainerClusterConfig => ({
    name: 'c',
    location: 'us-east5',
    resourceLabels: { myTeam: 'ml', 'goog-x': 'y' },
    initialNodeCount: 3,
    enableL4IlbSubsetting: true,
    nodeConfig: { labels: { nodeRole: 'tpu' }, metadata: { 'disable-legacy-endpoints': 'true' }, diskSizeGb: 100, oauthScopes: ['a', 'b'] },
    // An empty block (the type asks for a field; the converter must still write {} as the generated class does).
    addonsConfig: { gcsFuseCsiDriverConfig: { enabled: true }, httpLoadBalancing: {} as never },
    // Every value unset: left out, as the generated OutputReference leaves it out.
    binaryAuthorization: { evaluationMode: undefined },
    maintenancePolicy: {
      recurringWindow: { startTime: 's', endTime: 'e', recurrence: 'r' },
      maintenanceExclusion: [
        { exclusionName: 'x', startTime: start.output, endTime: Fn.timeadd(start.output, '24h'), exclusionOptions: { scope: 'NO_UPGRADES' } },
        { exclusionName: 'y', startTime: 'a', endTime: 'b', exclusionOptions: { scope: undefined as never } },
      ],
    },
    masterAuthorizedNetworksConfig: { cidrBlocks: [{ cidrBlock: '10.0.0.0/8' }, { cidrBlock: '192.168.0.0/16', displayName: 'home' }] },
    lifecycle: { ignoreChanges: ['node_config'], preventDestroy: true },
    dependsOn: [start],
    timeouts: { create: '60m' },
  });
  const json = synthWith(lean, config);
  expect(json).toEqual(synthWith(generated, config));
  const cluster = JSON.parse(json).resource.google_container_cluster.cluster;
  expect(cluster.resource_labels).toEqual({ myTeam: 'ml', 'goog-x': 'y' });
  expect(cluster.node_config.labels).toEqual({ nodeRole: 'tpu' });
  expect(cluster.binary_authorization).toBeUndefined();
  expect(cluster.depends_on).toEqual(['terraform_data.start']);
});

/** The pool built by `make` in a stack, and the same config through the generated class: their resource bodies. */
function poolBodies(make: (stack: TerraformStack) => { pool: NodePoolResource }): [unknown, unknown] {
  const stack = new TerraformStack(Testing.app() as App, 'infra');
  new GoogleProvider(stack, 'google', { project: BASE.project });
  const { pool } = make(stack);
  new ContainerNodePool(stack, 'generated', pool.config);
  const pools = JSON.parse(Testing.synth(stack)).resource.google_container_node_pool as Record<string, Record<string, unknown>>;
  const body = (id: string) => Object.fromEntries(Object.entries(pools[id]!).filter(([k]) => k !== '//'));
  const lean = Object.keys(pools).find((id) => id !== 'generated')!;
  return [body(lean), body('generated')];
}

const CPU: CpuNodePoolProps = { name: 'cpu-np', cluster: { clusterId: 'c' }, zone: 'us-east5-b', machineType: 'n4-highmem-64', serviceAccountEmail: 'np@p.iam.gserviceaccount.com' };
test.each<[string, Partial<CpuNodePoolProps>]>([
  ['autoscaled', { maxNodes: 4 }],
  ['fixed size', { nodeCount: 1, machineType: 'e2-standard-8' }],
])("a CPU pool's JSON (%s) is the generated class's", (_, props) => {
  const [lean, generated] = poolBodies((stack) => new CpuNodePool(stack, 'cpu', { ...CPU, ...props }));
  expect(lean).toEqual(generated);
  expect(lean).toMatchObject({ name: 'cpu-np', node_locations: ['us-east5-b'] });
});

const TPU = (machineType: string, topology: string, capacity: TpuSlicePoolProps['capacity']): TpuSlicePoolProps => ({
  name: 'tpu-pool',
  cluster: { clusterId: 'c', clusterName: 'tpu-post-train' },
  zone: 'us-east5-b',
  serviceAccountEmail: 'np@p.iam.gserviceaccount.com',
  slice: tpuSlice(machineType, topology),
  capacity,
});
test.each<[string, TpuSlicePoolProps]>([
  ['v6e-32 on a reservation', TPU('ct6e-standard-4t', '4x8', { type: 'reservation', reservation: 'r' })],
  ['v6e-8 single host on spot', TPU('ct6e-standard-8t', '2x4', { type: 'spot' })],
  ['v6e-32 flex-start, queued', { ...TPU('ct6e-standard-4t', '4x8', { type: 'flex-start', maxRunDurationSeconds: 7200 }), queuedProvisioning: true }],
  ['tpu7x with its workload policy', TPU('tpu7x-standard-4t', '2x2x2', { type: 'reservation', reservation: 'r' })],
])("a TPU pool's JSON (%s) is the generated class's", (_, props) => {
  const [lean, generated] = poolBodies((stack) => new TpuSlicePool(stack, 'tpu', props));
  expect(lean).toEqual(generated);
  expect(lean).toMatchObject({ name: 'tpu-pool', node_config: { machine_type: props.slice.machineType } });
});

test('MAP_ATTRIBUTES names every map-valued attribute of the generated declarations (their keys are not snake_cased)', () => {
  const maps = new Set<string>();
  for (const lib of ['container-cluster', 'container-node-pool']) {
    const dir = path.dirname(require.resolve(`@cdktf/provider-google/lib/${lib}/index.d.ts`));
    const structs = path.join(dir, 'index-structs');
    const nested = fs.existsSync(structs) ? fs.readdirSync(structs).filter((f) => f.endsWith('.d.ts')).map((f) => path.join(structs, f)) : [];
    for (const file of [path.join(dir, 'index.d.ts'), ...nested]) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/readonly (\w+)\?: \{\s*\[key: string\]/g)) maps.add(m[1]!);
    }
  }
  expect(maps.size).toBeGreaterThanOrEqual(5);
  expect([...maps].filter((m) => !MAP_ATTRIBUTES.has(m))).toEqual([]);
});

test('cdktf synth --hcl is refused with the reason, not written without the arguments', () => {
  const app = Testing.app({ context: { hcl: true } }) as App;
  const stack = new TerraformStack(app, 'infra');
  new ClusterResource(stack, 'cluster', { name: 'c', location: 'us-east5' });
  expect(() => Testing.synthHcl(stack)).toThrow('infra/cluster: google_container_cluster is synthesized as JSON only (constructs/configured-resource.ts); run cdktf synth without --hcl');
});
