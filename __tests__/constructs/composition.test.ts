/**
 * Composition (aws-eks `Cluster.addNodegroupCapacity` / `Cluster.fromClusterAttributes` as the model): the cluster
 * construct adds its pools and hands out the endpoint both stack kinds use; dependencies are props.
 */
import * as fs from 'fs';
import * as path from 'path';
import { TerraformOutput, TerraformStack, Testing } from 'cdktf';
import { GkeCluster, GkeClusterProps } from '../../constructs/gke-cluster';
import { Identity } from '../../constructs/identity';
import { tpuSlice } from '../../jobs/tpu';
import { examplePlatform } from '../util';

const base: GkeClusterProps = {
  name: 'c',
  region: 'us-east5',
  project: 'p',
  networkId: 'n',
  subnetworkId: 's',
  authorizedCidrs: ['198.51.100.0/24'],
  nodeZone: 'us-east5-b',
  defaultPoolServiceAccount: 'np@p.iam.gserviceaccount.com',
};

test('addTpuSlicePool / addCpuPool: the pool joins this cluster in its zone as its node identity, next to the cluster', () => {
  const app = Testing.app();
  const stack = new TerraformStack(app, 's');
  const cluster = new GkeCluster(stack, 'gke', base);
  const tpu = cluster.addTpuSlicePool('tpu-v6e-32-0', {
    name: 'tpu-v6e-32-0',
    slice: tpuSlice('ct6e-standard-4t', '4x8'),
    capacity: { type: 'reservation', reservation: 'r' },
  });
  const cpu = cluster.addCpuPool('cpu-pool', { name: 'cpu-np', machineType: 'n4-highmem-64', maxNodes: 4 });
  // Created in the cluster's scope with the given id: the Terraform address a deployment already has.
  expect(tpu.node.path).toBe('s/tpu-v6e-32-0');
  expect(cpu.node.path).toBe('s/cpu-pool');
  const pools = JSON.parse(Testing.synth(stack)).resource.google_container_node_pool;
  for (const pool of Object.values(pools) as any[]) {
    expect(pool.cluster).toMatch(/^\$\{google_container_cluster\.gke_cluster_\w+\.id\}$/);
    expect(pool.node_locations).toEqual(['us-east5-b']);
    expect(pool.node_config.service_account).toBe('np@p.iam.gserviceaccount.com');
  }
  // An explicit zone or identity wins.
  const other = cluster.addCpuPool('other', { name: 'o', machineType: 'e2-standard-8', nodeCount: 1, zone: 'us-east5-c' });
  expect(JSON.parse(Testing.synth(stack)).resource.google_container_node_pool[other.pool.friendlyUniqueId].node_locations).toEqual(['us-east5-c']);
});

test('endpoint(): the IP endpoint with the CA, or the DNS endpoint; fromClusterAttributes gives the same shape from a data source', () => {
  const app = Testing.app();
  const stack = new TerraformStack(app, 's');
  const created = new GkeCluster(stack, 'gke', base);
  const found = GkeCluster.fromClusterAttributes(stack, 'cluster', { name: 'c', location: 'us-east5', project: 'p' });
  const values = { ip: created.endpoint(false).host, dns: created.endpoint(true).host, 'found-ip': found.endpoint(false).host, 'found-dns': found.endpoint(true).host };
  for (const [id, value] of Object.entries(values)) new TerraformOutput(stack, id, { value });
  expect(created.endpoint(false).caCertificateBase64).toBeDefined();
  expect(created.endpoint(true).caCertificateBase64).toBeUndefined();
  const out = JSON.parse(Testing.synth(stack));
  expect(out.output.ip.value).toMatch(/^https:\/\/\$\{google_container_cluster\.gke_cluster_\w+\.endpoint\}$/);
  expect(out.output.dns.value).toMatch(/control_plane_endpoints_config\[0\]\.dns_endpoint_config\[0\]\.endpoint\}$/);
  expect(out.output['found-ip'].value).toBe('https://${data.google_container_cluster.cluster.endpoint}');
  expect(out.output['found-dns'].value).toBe('https://${data.google_container_cluster.cluster.control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint}');
  expect(out.data.google_container_cluster.cluster).toEqual({ name: 'c', location: 'us-east5', project: 'p' });
});

test('Identity.bindWorkloads: the binding waits for the cluster and the KSA for a node pool, from props, once', () => {
  const app = Testing.app();
  const stack = new TerraformStack(app, 's');
  const identity = new Identity(stack, 'identity', { platform: examplePlatform() });
  const cluster = new GkeCluster(stack, 'gke', base);
  const pool = cluster.addCpuPool('system-pool', { name: 'system', machineType: 'e2-standard-8', nodeCount: 1 });
  const b = identity.bindWorkloads({ cluster: cluster.cluster, nodePool: pool.pool });
  expect(b.workloadIdentityBinding.node.path).toBe('s/identity/cluster-workload-identity');
  expect(b.kubernetesServiceAccount.node.path).toBe('s/identity/cluster-ksa');
  // The rehearsal verdict writer's own KSA, its Workload Identity binding, and its pod-logs Role and binding.
  expect([b.verdictIdentityBinding, b.verdictServiceAccount, b.podLogsRole, b.podLogsBinding].map((c) => c.node.path)).toEqual([
    's/identity/cluster-verdict-workload-identity',
    's/identity/cluster-verdict-ksa',
    's/identity/cluster-verdict-pod-logs',
    's/identity/cluster-verdict-pod-logs-binding',
  ]);
  const out = JSON.parse(Testing.synth(stack));
  for (const binding of Object.values(out.resource.google_service_account_iam_member)) {
    expect(binding).toMatchObject({ depends_on: [expect.stringMatching(/^google_container_cluster\.gke_cluster_/)] });
  }
  expect(Object.values(out.resource.kubernetes_service_account_v1)).toHaveLength(2);
  for (const ksa of Object.values(out.resource.kubernetes_service_account_v1)) {
    expect(ksa).toMatchObject({ depends_on: [expect.stringMatching(/^google_container_node_pool\.system-pool_/)] });
  }
  expect(() => identity.bindWorkloads({ cluster: cluster.cluster, nodePool: pool.pool })).toThrow('s/identity: bindWorkloads was already called');
});

test('stacks pass dependencies as props: no `.dependsOn =` assignment after construction', () => {
  const root = path.join(__dirname, '..', '..');
  const files = ['stacks', 'constructs'].flatMap((d) => fs.readdirSync(path.join(root, d)).map((f) => path.join(d, f)));
  // constructs/project-apis.ts is an aspect: it adds each resource's API services when the app synthesizes.
  const offenders = files
    .filter((f) => f.endsWith('.ts') && f !== path.join('constructs', 'project-apis.ts'))
    .filter((f) => /\.dependsOn\s*=[^=]/.test(fs.readFileSync(path.join(root, f), 'utf8')));
  expect(offenders).toEqual([]);
});
