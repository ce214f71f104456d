import { ContainerCluster } from '@cdktf/provider-google/lib/container-cluster';
import { ContainerNodePool } from '@cdktf/provider-google/lib/container-node-pool';
import { StorageBucket } from '@cdktf/provider-google/lib/storage-bucket';
import { Release } from '@cdktf/provider-helm/lib/release';
import { bucketObjectsRoleId } from '../../jobs/platform';
import { Testing, TerraformStack } from 'cdktf';
import { loadDeployment } from '../../config/deployment';
import { buildApp } from '../../stacks/app';
import { configFile, defaultOutdir, resources, synthStack, synthStackString } from '../util';

function pools(env: Record<string, string> = {}): Record<string, any> {
  const byName: Record<string, any> = {};
  for (const pool of Object.values(resources(synthStack('infra', env), 'google_container_node_pool'))) byName[pool.name] = pool;
  return byName;
}

describe('infra stack: TPU pools', () => {
  test('default: one reservation-bound v6e-32 pool of 8 nodes with COMPACT 4x8 placement', () => {
    const pool = pools()['tpu-v6e-32-0'];
    expect(pool).toMatchObject({
      node_count: 8,
      node_locations: ['us-east5-b'],
      placement_policy: { type: 'COMPACT', tpu_topology: '4x8' },
      management: { auto_repair: true, auto_upgrade: true },
      node_config: {
        machine_type: 'ct6e-standard-4t',
        reservation_affinity: {
          consume_reservation_type: 'SPECIFIC_RESERVATION',
          key: 'compute.googleapis.com/reservation-name',
          values: ['my-v6e-32-reservation'],
        },
        taint: [{ key: 'google.com/tpu', value: 'present', effect: 'NO_SCHEDULE' }],
        workload_metadata_config: { mode: 'GKE_METADATA' },
      },
    });
    expect(pool.autoscaling).toBeUndefined();
    expect(pool.node_config.spot).toBeUndefined();
  });

  test.each([
    ['2x4', 2],
    ['4x4', 4],
    ['8x8', 16],
    ['16x16', 64],
  ])('topology %s sizes the pool at %i nodes', (topology, nodes) => {
    const pool = Object.values(pools({ TOPOLOGY: topology, PIPELINES: 'none' })).find((p) => p.placement_policy?.tpu_topology === topology);
    expect(pool.node_count).toBe(nodes);
  });

  test('CLUSTER_NODEPOOL_COUNT=2 gives two identical pools, one per slice', () => {
    const all = pools({ CLUSTER_NODEPOOL_COUNT: '2' });
    expect(Object.keys(all).filter((n) => n.startsWith('tpu-v6e-32-'))).toEqual(['tpu-v6e-32-0', 'tpu-v6e-32-1']);
    const { name: _a, ...first } = all['tpu-v6e-32-0'];
    const { name: _b, ...second } = all['tpu-v6e-32-1'];
    delete first['//'];
    delete second['//'];
    expect(second).toEqual(first);
  });

  test('the single-host pool: one ct6e-standard-8t node, no placement policy, its own reservation', () => {
    expect(pools()['tpu-v6e-8-8t-0']).toBeUndefined(); // only when something asks for it
    const pool = pools({ SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' })['tpu-v6e-8-8t-0'];
    expect(pool).toMatchObject({
      node_count: 1,
      node_config: {
        machine_type: 'ct6e-standard-8t',
        reservation_affinity: { consume_reservation_type: 'SPECIFIC_RESERVATION', values: ['my-v6e-8-reservation'] },
      },
    });
    expect(pool.placement_policy).toBeUndefined();
  });

  test('spot capacity: spot nodes, no reservation', () => {
    const pool = pools({ TPU_CAPACITY: 'spot' })['tpu-v6e-32-0'];
    expect(pool.node_config).toMatchObject({ spot: true, reservation_affinity: { consume_reservation_type: 'NO_RESERVATION' } });
    expect(pool.node_count).toBe(8);
  });

  test('flex-start capacity: flex-start nodes scaled 0 -> 8 at once, auto-repair off, max run duration', () => {
    const pool = pools({ TPU_CAPACITY: 'flex-start' })['tpu-v6e-32-0'];
    expect(pool).toMatchObject({
      autoscaling: { min_node_count: 0, max_node_count: 8 },
      management: { auto_repair: false },
      node_config: { flex_start: true, max_run_duration: '259200s', reservation_affinity: { consume_reservation_type: 'NO_RESERVATION' } },
      queued_provisioning: { enabled: true },
    });
    expect(pool.node_count).toBeUndefined();
    // Both slices of a flex-start config are queued; reservation and spot pools never are.
    expect(pools({ TPU_CAPACITY: 'flex-start', SINGLE_HOST_CAPACITY: 'flex-start' })['tpu-v6e-8-8t-0'].queued_provisioning).toEqual({ enabled: true });
    expect(pools({ TPU_CAPACITY: 'spot', SINGLE_HOST_CAPACITY: 'flex-start' })['tpu-v6e-32-0'].queued_provisioning).toBeUndefined();
  });

  test('every node pool runs as the dedicated node service account', () => {
    for (const pool of Object.values(pools())) {
      expect(pool.node_config.service_account).toMatch(/google_service_account\.identity_node-sa_\w+\.email/);
    }
  });

  test('system pool pinned to ZONE on e2-standard-8; cpu-np autoscales from zero', () => {
    const all = pools();
    expect(all.system).toMatchObject({ node_count: 1, node_locations: ['us-east5-b'], node_config: { machine_type: 'e2-standard-8' } });
    expect(all['cpu-np']).toMatchObject({
      autoscaling: { total_min_node_count: 0, total_max_node_count: 4 },
      node_locations: ['us-east5-b'],
      node_config: { machine_type: 'n4-highmem-64', disk_type: 'hyperdisk-balanced' },
    });
  });
});

describe('infra stack: cluster', () => {
  test('private nodes, allow-list, Workload Identity, add-ons, IPv6 Google access disabled', () => {
    expect(synthStackString('infra')).toHaveResourceWithProperties(ContainerCluster, {
      name: 'tpu-post-train',
      location: 'us-east5',
      deletion_protection: true,
      remove_default_node_pool: true,
      private_ipv6_google_access: 'PRIVATE_IPV6_GOOGLE_ACCESS_DISABLED',
      enable_shielded_nodes: true,
      release_channel: { channel: 'REGULAR' },
      workload_identity_config: { workload_pool: 'my-tpu-project.svc.id.goog' },
      private_cluster_config: expect.objectContaining({ enable_private_nodes: true, enable_private_endpoint: false }),
      master_authorized_networks_config: {
        gcp_public_cidrs_access_enabled: false,
        cidr_blocks: [{ cidr_block: '203.0.113.0/24', display_name: 'authorized-0' }],
      },
      addons_config: expect.objectContaining({ gcs_fuse_csi_driver_config: { enabled: true } }),
      secret_manager_config: { enabled: true },
      node_pool_defaults: { node_config_defaults: { gcfs_config: { enabled: true } } },
      control_plane_endpoints_config: { dns_endpoint_config: { allow_external_traffic: false } },
    });
  });

  test('no 0.0.0.0/0 anywhere by default', () => {
    expect(synthStackString('infra')).not.toContain('0.0.0.0/0');
  });

  test('0.0.0.0/0 only with the explicit opt-in', () => {
    const cluster = Object.values(
      resources(synthStack('infra', { AUTHORIZED_CIDR: '0.0.0.0/0', ALLOW_PUBLIC_CONTROL_PLANE: 'true' }), 'google_container_cluster'),
    )[0];
    expect(cluster.master_authorized_networks_config.cidr_blocks).toEqual([{ cidr_block: '0.0.0.0/0', display_name: 'public-opt-in' }]);
  });

  test('DNS endpoint option for hosted CI runners', () => {
    const synth = synthStack('infra', { DNS_ENDPOINT: 'true' });
    const cluster = Object.values(resources(synth, 'google_container_cluster'))[0];
    expect(cluster.control_plane_endpoints_config).toEqual({ dns_endpoint_config: { allow_external_traffic: true } });
    expect(synth.output.get_credentials_command.value).toContain('--dns-endpoint');
  });

  test('deletion protection can be turned off for teardown', () => {
    const cluster = Object.values(resources(synthStack('infra', { DELETION_PROTECTION: 'false' }), 'google_container_cluster'))[0];
    expect(cluster.deletion_protection).toBe(false);
  });
});

describe('infra stack: identities and access', () => {
  const synth = synthStack('infra');

  test('node service account: logging, monitoring, metadata writer, artifact registry reader; nothing else', () => {
    const roles = Object.values(resources(synth, 'google_project_iam_member')).map((m) => m.role);
    expect(roles.sort()).toEqual([
      'roles/artifactregistry.reader',
      'roles/logging.logWriter',
      'roles/monitoring.metricWriter',
      'roles/monitoring.viewer',
      'roles/stackdriver.resourceMetadata.writer',
    ]);
    for (const m of Object.values(resources(synth, 'google_project_iam_member'))) {
      expect(m.member).toMatch(/identity_node-sa/);
    }
  });

  test('no project-level admin or editor role for any service account', () => {
    for (const m of Object.values(resources(synth, 'google_project_iam_member'))) {
      expect(m.role).not.toMatch(/admin|editor|owner/i);
    }
  });

  test('storage.admin on the bucket only, to the workload service account and to the node account (host-network pods); the verdict writer objectUser on *.rehearsal.json only', () => {
    expect(Object.values(resources(synth, 'google_storage_bucket_iam_member'))).toEqual([
      expect.objectContaining({ role: 'roles/storage.admin', member: expect.stringMatching(/identity_node-sa_\w+\.member/) }),
      {
        bucket: expect.stringMatching(/^\$\{google_storage_bucket\.bucket_\w+\.name\}$/),
        role: 'roles/storage.objectUser',
        member: expect.stringMatching(/identity_verdict-sa_\w+\.member/),
        condition: {
          title: 'rehearsal-records-only',
          description: 'Only objects named *.rehearsal.json in my-tpu-project-post-training',
          expression: 'resource.name.startsWith("projects/_/buckets/my-tpu-project-post-training/objects/") && resource.name.endsWith(".rehearsal.json")',
        },
        depends_on: ['google_project_service.api-storage'],
      },
      expect.objectContaining({ role: 'roles/storage.admin', member: expect.stringMatching(/identity_workload-sa_\w+\.member/) }),
    ]);
  });

  test('BUCKET_ACCESS=objects: a custom role with object permissions + storage.buckets.get, bound on the bucket to both accounts', () => {
    const synth = synthStack('infra', { BUCKET_ACCESS: 'objects' });
    const [role] = Object.values(resources(synth, 'google_project_iam_custom_role'));
    expect(role).toMatchObject({
      role_id: 'tpt_my_tpu_project_post_training',
      permissions: ['storage.buckets.get', 'storage.objects.get', 'storage.objects.list', 'storage.objects.create', 'storage.objects.delete'],
    });
    expect(role.depends_on).toEqual(expect.arrayContaining(['google_project_service.api-iam']));
    const grants = Object.entries(resources(synth, 'google_storage_bucket_iam_member'));
    expect(grants.map(([id, g]) => [id.replace(/_[0-9A-F]{8}$/, ''), g.role, /identity_(\w+)-sa/.exec(g.member)![1]]).sort()).toEqual([
      ['bucket_host-network-writer', expect.stringMatching(/^\$\{google_project_iam_custom_role\.bucket_objects-role_\w+\.name\}$/), 'node'],
      ['bucket_verdict-writer', 'roles/storage.objectUser', 'verdict'],
      ['bucket_writer', expect.stringMatching(/^\$\{google_project_iam_custom_role\.bucket_objects-role_\w+\.name\}$/), 'workload'],
    ]);
    expect(resources(synthStack('infra'), 'google_project_iam_custom_role')).toEqual({});
    expect(() => synthStack('infra', { BUCKET_ACCESS: 'owner' })).toThrow("BUCKET_ACCESS (env): must be one of admin, objects, got 'owner'");
  });

  test('the custom role id fits IAM (a-zA-Z0-9_., at most 64), also for the longest bucket names', () => {
    expect(bucketObjectsRoleId('ckpt.example-co.com')).toBe('tpt_ckpt.example_co.com');
    const long = bucketObjectsRoleId('a'.repeat(63));
    expect(long).toMatch(/^tpt_a{51}_[0-9a-f]{8}$/);
    expect(long).toHaveLength(64);
  });

  test('secretAccessor is granted on the token secret only, to the steps\' and the verdict writer\'s GSAs', () => {
    expect(Object.values(resources(synth, 'google_secret_manager_secret_iam_member'))).toEqual([
      expect.objectContaining({ role: 'roles/secretmanager.secretAccessor', member: expect.stringMatching(/identity_workload-sa/) }),
      expect.objectContaining({ role: 'roles/secretmanager.secretAccessor', member: expect.stringMatching(/identity_verdict-sa/) }),
    ]);
  });

  test('service account ids derive from the cluster name', () => {
    expect(Object.values(resources(synth, 'google_service_account')).map((s) => s.account_id).sort()).toEqual([
      'tpu-post-train-gke-np-sa',
      'tpu-post-train-gke-vw-sa',
      'tpu-post-train-gke-wl-sa',
    ]);
  });

  test('Workload Identity: the KSA is annotated and bound to the workload GSA', () => {
    const byKsa = (name: string) => Object.values(resources(synth, 'google_service_account_iam_member')).find((b) => b.member.endsWith(`/${name}]`));
    const binding = byKsa('tpu-post-train-workloads');
    expect(binding).toMatchObject({
      role: 'roles/iam.workloadIdentityUser',
      member: 'serviceAccount:my-tpu-project.svc.id.goog[default/tpu-post-train-workloads]',
    });
    expect(binding.service_account_id).toMatch(/identity_workload-sa_\w+\.name/);
    expect(binding.depends_on).toEqual([expect.stringMatching(/^google_container_cluster\./), 'google_project_service.api-iam']);
    const ksa = Object.values(resources(synth, 'kubernetes_service_account_v1')).find((k) => k.metadata.name === 'tpu-post-train-workloads');
    expect(ksa.metadata).toMatchObject({ name: 'tpu-post-train-workloads', namespace: 'default' });
    expect(ksa.metadata.annotations['iam.gke.io/gcp-service-account']).toMatch(/identity_workload-sa_\w+\.email/);
  });

  test("the verdict writer's own KSA: annotated with its own GSA (<cluster>-gke-vw-sa) and bound to it by Workload Identity, not to the steps' GSA", () => {
    const bindings = Object.values(resources(synth, 'google_service_account_iam_member'));
    expect(bindings.map((b) => b.member).sort()).toEqual([
      'serviceAccount:my-tpu-project.svc.id.goog[default/tpu-post-train-workloads-verdict]',
      'serviceAccount:my-tpu-project.svc.id.goog[default/tpu-post-train-workloads]',
    ]);
    const verdict = bindings.find((b) => b.member.endsWith('/tpu-post-train-workloads-verdict]'));
    expect(verdict).toMatchObject({ role: 'roles/iam.workloadIdentityUser', service_account_id: expect.stringMatching(/^\$\{google_service_account\.identity_verdict-sa_\w+\.name\}$/) });
    expect(verdict.depends_on).toEqual([expect.stringMatching(/^google_container_cluster\./), 'google_project_service.api-iam']);
    const ksas = Object.values(resources(synth, 'kubernetes_service_account_v1'));
    expect(ksas.map((k) => k.metadata.name).sort()).toEqual(['tpu-post-train-workloads', 'tpu-post-train-workloads-verdict']);
    const ksa = ksas.find((k) => k.metadata.name === 'tpu-post-train-workloads-verdict');
    expect(ksa).toEqual({
      metadata: { name: 'tpu-post-train-workloads-verdict', namespace: 'default', annotations: { 'iam.gke.io/gcp-service-account': expect.stringMatching(/^\$\{google_service_account\.identity_verdict-sa_\w+\.email\}$/) } },
      depends_on: [expect.stringMatching(/^google_container_node_pool\./)],
    });
  });

  test("only the verdict writer's KSA may read pods and their logs in its namespace, nothing more; the steps' KSA is bound to no Role", () => {
    const roles = Object.values(resources(synth, 'kubernetes_role_v1'));
    expect(roles).toHaveLength(1);
    expect(roles[0]).toEqual({
      metadata: { name: 'tpu-post-train-workloads-verdict-pod-logs', namespace: 'default' },
      rule: [
        { api_groups: [''], resources: ['pods'], verbs: ['get', 'list'] },
        { api_groups: [''], resources: ['pods/log'], verbs: ['get'] },
      ],
      depends_on: [expect.stringMatching(/^google_container_node_pool\./)],
    });
    const bindings = Object.values(resources(synth, 'kubernetes_role_binding_v1'));
    expect(bindings).toEqual([
      {
        metadata: { name: 'tpu-post-train-workloads-verdict-pod-logs', namespace: 'default' },
        role_ref: { api_group: 'rbac.authorization.k8s.io', kind: 'Role', name: expect.stringMatching(/^\$\{kubernetes_role_v1\.identity_cluster-verdict-pod-logs_\w+\.metadata\[0\]\.name\}$/) },
        subject: [{ kind: 'ServiceAccount', name: 'tpu-post-train-workloads-verdict', namespace: 'default' }],
      },
    ]);
    // No binding of any kind names the KSA the pipeline steps run as.
    const subjects = Object.values({ ...resources(synth, 'kubernetes_role_binding_v1'), ...resources(synth, 'kubernetes_cluster_role_binding_v1') }).flatMap((b) => b.subject);
    expect(subjects.filter((x) => x.name === 'tpu-post-train-workloads')).toEqual([]);
  });

  test('the HF token secret is replicated in REGION only (gcp.resourceLocations refuses automatic replication unless global is allowed)', () => {
    expect(Object.values(resources(synth, 'google_secret_manager_secret')).map((s) => s.replication)).toEqual([
      { user_managed: { replicas: [{ location: 'us-east5' }] } },
    ]);
    const inRegion = Object.values(resources(synthStack('infra', { ZONE: 'europe-west4-a' }), 'google_secret_manager_secret'))[0];
    expect(inRegion.replication.user_managed.replicas).toEqual([{ location: 'europe-west4' }]);
  });

  test('the HF token secret has no version: the value never passes through Terraform', () => {
    expect(Object.keys(resources(synth, 'google_secret_manager_secret'))).toHaveLength(1);
    expect(resources(synth, 'google_secret_manager_secret_version')).toEqual({});
    expect(synth.output.hf_token_secret_command.value).toBe(
      `printf '%s' "$HF_TOKEN" | gcloud secrets versions add tpu-post-train-hf-token --project=my-tpu-project --data-file=-`,
    );
  });
});

describe('infra stack: bucket', () => {
  test('uniform access, public access prevention, no force destroy, scratch prefix expiry', () => {
    expect(synthStackString('infra')).toHaveResourceWithProperties(StorageBucket, {
      name: 'my-tpu-project-post-training',
      location: 'us-east5',
      uniform_bucket_level_access: true,
      public_access_prevention: 'enforced',
      force_destroy: false,
      lifecycle_rule: [{ action: { type: 'Delete' }, condition: { age: 7, matches_prefix: ['pathways/'] } }],
    });
  });
});

describe('infra stack: controllers and queues', () => {
  const synth = synthStack('infra');
  const releases = Object.values(resources(synth, 'helm_release'));

  test('JobSet and Kueue from their OCI charts at the configured versions', () => {
    expect(synthStackString('infra')).toHaveResourceWithProperties(Release, {
      name: 'jobset',
      repository: 'oci://registry.k8s.io/jobset/charts',
      chart: 'jobset',
      version: '0.12.0',
      namespace: 'jobset-system',
    });
    expect(synthStackString('infra')).toHaveResourceWithProperties(Release, {
      name: 'kueue',
      repository: 'oci://registry.k8s.io/kueue/charts',
      chart: 'kueue',
      version: '0.19.2',
      namespace: 'kueue-system',
    });
  });

  test('the local queue chart ships as an asset and renders after Kueue', () => {
    const queues = releases.find((r) => r.name === 'kueue-queues');
    expect(queues.chart).toMatch(/^assets\/controllers_queues-chart_\w+\/[0-9A-F]+$/);
    expect(queues.depends_on).toEqual([expect.stringMatching(/^helm_release\.controllers_kueue_/)]);
  });

  test('ClusterQueue TPU quota per slice shape = chips of all slices of that shape (one group covering tpu, cpu, memory)', () => {
    const objects = (env: Record<string, string>) =>
      JSON.parse(Object.values(resources(synthStack('infra', env), 'helm_release')).find((r) => r.name === 'kueue-queues').values[0]).objects;
    const quotas = (env: Record<string, string>) => {
      const cq = objects(env).find((o: any) => o.kind === 'ClusterQueue');
      expect(cq.spec.resourceGroups).toHaveLength(1);
      expect(cq.spec.resourceGroups[0].coveredResources).toEqual(['google.com/tpu', 'cpu', 'memory']);
      return Object.fromEntries(cq.spec.resourceGroups[0].flavors.map((f: any) => [f.name, f.resources[0].nominalQuota]));
    };
    expect(quotas({})).toEqual({ 'tpu-v6e-32': 32, 'cpu-np': 0 });
    const single = { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' };
    expect(quotas(single)).toEqual({ 'tpu-v6e-32': 32, 'tpu-v6e-8-8t': 8, 'cpu-np': 0 });
    expect(quotas({ ...single, CLUSTER_NODEPOOL_COUNT: '2' })).toEqual({ 'tpu-v6e-32': 64, 'tpu-v6e-8-8t': 8, 'cpu-np': 0 });
  });

  test('Kueue is installed with only the JobSet integration (no fail-closed pod, deployment, statefulset webhooks)', () => {
    const kueue = Object.values(resources(synthStack('infra'), 'helm_release')).find((r) => r.name === 'kueue');
    const config = JSON.parse(JSON.parse(kueue.values[0]).managerConfig.controllerManagerConfigYaml);
    expect(config).toMatchObject({ kind: 'Configuration', webhook: { port: 9443 }, integrations: { frameworks: ['jobset.x-k8s.io/jobset'] } });
  });

  test('versions are configurable', () => {
    const file = require('path').join(__dirname, '..', '..', 'config', 'example.json');
    const copy = JSON.parse(require('fs').readFileSync(file, 'utf8'));
    copy.controllers = { jobsetVersion: '0.11.1', kueueVersion: '0.18.0' };
    const tmp = require('path').join(require('os').tmpdir(), `tpt-versions-${process.pid}.json`);
    require('fs').writeFileSync(tmp, JSON.stringify(copy));
    const versions = Object.values(resources(synthStack('infra', { CONFIG_FILE: tmp }), 'helm_release')).map((r) => [r.name, r.version]);
    expect(versions).toEqual(expect.arrayContaining([['jobset', '0.11.1'], ['kueue', '0.18.0']]));
  });
});

describe('infra stack: backend and outputs', () => {
  test('local backend by default, outside cdktf.out', () => {
    expect(synthStack('infra').terraform.backend).toEqual({ local: { path: '../../../terraform.my-tpu-project.tpu-post-train.infra.tfstate' } });
  });

  test('STATE_BUCKET switches to a GCS backend with the prefix of the project, cluster and stack', () => {
    expect(synthStack('infra', { STATE_BUCKET: 'my-tf-state' }).terraform.backend).toEqual({
      gcs: { bucket: 'my-tf-state', prefix: 'tpu-post-training/my-tpu-project/tpu-post-train/infra' },
    });
  });

  test('outputs: credentials command, bucket URL, secret command, queue', () => {
    const { output } = synthStack('infra');
    expect(output.get_credentials_command.value).toBe(
      'gcloud container clusters get-credentials tpu-post-train --location=us-east5 --project=my-tpu-project',
    );
    expect(output.bucket_url.value).toMatch(/^gs:\/\/\$\{google_storage_bucket\.bucket_\w+\.name\}$/);
    expect(output.local_queue.value).toBe('default/user-queue');
    expect(output.tpu_node_pools.value).toEqual(['tpu-v6e-32-0']);
    expect(synthStack('infra', { SINGLE_HOST_RESERVATION: 'res-v6e-8' }).output.tpu_node_pools.value).toEqual(['tpu-v6e-32-0', 'tpu-v6e-8-8t-0']);
  });

  test('snapshot (tripwire; the assertions above are the contract)', () => {
    expect(synthStack('infra')).toMatchSnapshot();
  });
});

test('ContainerNodePool matcher sees the TPU pool', () => {
  expect(synthStackString('infra')).toHaveResourceWithProperties(ContainerNodePool, { name: 'tpu-v6e-32-0', node_count: 8 });
});

describe('the whole app against the infra config', () => {
  test('a pipeline asked for whose slice infra does not have fails the synth, saying how to fix it', () => {
    expect(() => synthStack('infra', { TOPOLOGY: '4x4', PIPELINES: 'rl-qwen3' })).toThrow(
      /PIPELINES \(env\): rl-qwen3 trains on ct6e-standard-4t 4x8 \(v6e-32\), infra has ct6e-standard-4t 4x4; COMPUTE_TYPE=ct6e-standard-4t TOPOLOGY=4x8/,
    );
  });

  test('pipelines merely enabled by default whose slice infra lacks are left out, not an error', () => {
    const { buildApp } = require('../../stacks/app');
    const app = buildApp(require('../util').exampleDeployment({ TOPOLOGY: '4x4' }), { outdir: require('cdktf').Testing.app().outdir });
    expect(app.node.children.map((c: any) => c.node.id)).toEqual(['infra']);
  });

  test('with PIPELINES=none only infra is synthesized', () => {
    const { buildApp } = require('../../stacks/app');
    const app = buildApp(require('../util').exampleDeployment({ PIPELINES: 'none' }), { outdir: require('cdktf').Testing.app().outdir });
    expect(app.node.children.map((c: any) => c.node.id)).toEqual(['infra']);
  });
});

describe('pipeline stacks reach the cluster', () => {
  test('by default through the IP endpoint with the cluster CA', () => {
    const provider = synthStack('rl-qwen3').provider.kubernetes[0];
    expect(provider.host).toMatch(/^https:\/\/\$\{data\.google_container_cluster\.cluster\.endpoint\}$/);
    expect(provider.cluster_ca_certificate).toContain('base64decode');
  });

  test('with DNS_ENDPOINT=true through the IAM-authorized DNS endpoint (hosted CI runners)', () => {
    const provider = synthStack('rl-qwen3', { DNS_ENDPOINT: 'true' }).provider.kubernetes[0];
    expect(provider.host).toContain('control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint');
    expect(provider.cluster_ca_certificate).toBeUndefined();
  });
});

test('infra: with DNS_ENDPOINT=true the Kubernetes and Helm providers use the DNS endpoint too', () => {
  const synth = synthStack('infra', { DNS_ENDPOINT: 'true' });
  expect(synth.provider.kubernetes[0].host).toContain('control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint');
  expect(synth.provider.helm[0].kubernetes.host).toContain('control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint');
  expect(synthStack('infra').provider.helm[0].kubernetes.host).toMatch(/google_container_cluster\.gke_cluster_\w+\.endpoint/);
});

describe('infra stack: upgrades and maintenance', () => {
  const cluster = (file?: string) => {
    const synth = file ? synthStackFromFile('infra', file) : synthStack('infra');
    return Object.values(resources(synth, 'google_container_cluster'))[0] as any;
  };
  function synthStackFromFile(name: string, patch: string): any {
    const fs = require('fs');
    const p = require('path');
    const copy = JSON.parse(fs.readFileSync(p.join(__dirname, '..', '..', 'config', 'example.json'), 'utf8'));
    Object.assign(copy, JSON.parse(patch));
    const tmp = p.join(require('os').tmpdir(), `tpt-upgrades-${process.pid}.json`);
    fs.writeFileSync(tmp, JSON.stringify(copy));
    return synthStack(name, { CONFIG_FILE: tmp });
  }
  test('default: a 30-day NO_MINOR_OR_NODE_UPGRADES exclusion and weekend windows', () => {
    const c = cluster();
    expect(c.maintenance_policy.recurring_window.recurrence).toBe('FREQ=WEEKLY;BYDAY=SA,SU');
    expect(c.maintenance_policy.maintenance_exclusion[0]).toMatchObject({
      exclusion_options: { scope: 'NO_MINOR_OR_NODE_UPGRADES' },
      end_time: expect.stringContaining('"720h"'),
    });
  });
  test('override: upgradeExclusionDays from the config file', () => {
    expect(cluster('{"upgradeExclusionDays": 90}').maintenance_policy.maintenance_exclusion[0].end_time).toContain('"2160h"');
    expect(cluster('{"upgradeExclusionDays": 0}').maintenance_policy.maintenance_exclusion).toBeUndefined();
  });
});

describe('a pipelines namespace of its own (not `default`): what lives in it waits for infra to create it', () => {
  test('the steps\' and the verdict writer\'s KSAs, the verdict Role (and so its binding) and the Kueue queues release depend on the namespace resource; with `default` none does', () => {
    const infraOf = (namespace: string) => {
      const d = loadDeployment({ file: configFile((c) => (c.namespace = namespace)), env: {} });
      return JSON.parse(Testing.synth(buildApp(d, { outdir: defaultOutdir() }).node.findChild('infra') as TerraformStack));
    };
    const own = infraOf('team-a');
    const ns = Object.entries(resources(own, 'kubernetes_namespace_v1')).find(([, n]) => n.metadata.name === 'team-a')!;
    const address = `kubernetes_namespace_v1.${ns[0]}`;
    const ksas = Object.values(resources(own, 'kubernetes_service_account_v1'));
    expect(ksas.map((k) => [k.metadata.namespace, k.depends_on.includes(address)])).toEqual([
      ['team-a', true],
      ['team-a', true],
    ]);
    const role = Object.values(resources(own, 'kubernetes_role_v1')).find((r) => r.metadata.name.endsWith('-pod-logs'));
    expect(role.depends_on).toContain(address);
    const binding = Object.values(resources(own, 'kubernetes_role_binding_v1')).find((b) => b.metadata.name.endsWith('-pod-logs'));
    expect(binding.role_ref.name).toMatch(/kubernetes_role_v1\./);
    const queues = Object.values(resources(own, 'helm_release')).find((r) => r.name === 'kueue-queues');
    expect(queues.depends_on).toContain(address);
    // Before: the namespace came only with the Argo release, which installs last; the KSAs, the Role and the LocalQueue raced it.
    const plain = infraOf('default');
    expect(resources(plain, 'kubernetes_namespace_v1')).not.toHaveProperty(ns[0]);
    expect(JSON.stringify(plain)).not.toContain('pipelines-namespace');
  });
});
