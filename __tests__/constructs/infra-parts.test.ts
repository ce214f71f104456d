import { Testing } from 'cdktf';
import { TrainingBucket } from '../../constructs/bucket';
import { Controllers } from '../../constructs/controllers';
import { GkeCluster, GkeClusterProps } from '../../constructs/gke-cluster';
import { Network } from '../../constructs/network';
import * as path from 'path';

const one = (out: string, type: string): any => Object.values(JSON.parse(out).resource[type])[0];

describe('Network', () => {
  test('defaults: blueprint ranges, Private Google Access, NAT, MTU 8896', () => {
    const out = Testing.synthScope((s) => new Network(s, 'n', { name: 'c', region: 'us-east5' }));
    expect(one(out, 'google_compute_subnetwork')).toMatchObject({
      ip_cidr_range: '192.168.0.0/18',
      private_ip_google_access: true,
      secondary_ip_range: [
        { range_name: 'pods', ip_cidr_range: '10.4.0.0/14' },
        { range_name: 'services', ip_cidr_range: '10.0.32.0/20' },
      ],
    });
    expect(one(out, 'google_compute_network')).toMatchObject({ mtu: 8896, auto_create_subnetworks: false });
    expect(one(out, 'google_compute_router_nat')).toMatchObject({ source_subnetwork_ip_ranges_to_nat: 'ALL_SUBNETWORKS_ALL_IP_RANGES' });
  });

  test('overrides: ranges and MTU', () => {
    const out = Testing.synthScope(
      (s) => new Network(s, 'n', { name: 'c', region: 'r', nodeCidr: '10.10.0.0/20', podsCidr: '10.20.0.0/14', servicesCidr: '10.30.0.0/20', mtu: 1460 }),
    );
    expect(one(out, 'google_compute_subnetwork').secondary_ip_range[0].ip_cidr_range).toBe('10.20.0.0/14');
    expect(one(out, 'google_compute_network').mtu).toBe(1460);
  });
});

describe('GkeCluster', () => {
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
  test('defaults: REGULAR channel, deletion protection, no DNS endpoint, default master range', () => {
    const cluster = one(Testing.synthScope((s) => new GkeCluster(s, 'g', base)), 'google_container_cluster');
    expect(cluster).toMatchObject({
      release_channel: { channel: 'REGULAR' },
      deletion_protection: true,
      control_plane_endpoints_config: { dns_endpoint_config: { allow_external_traffic: false } },
      private_cluster_config: { master_ipv4_cidr_block: '172.16.0.32/28' },
    });
  });
  test('overrides', () => {
    const cluster = one(
      Testing.synthScope(
        (s) => new GkeCluster(s, 'g', { ...base, releaseChannel: 'STABLE', deletionProtection: false, dnsEndpoint: true, masterCidr: '172.16.1.0/28' }),
      ),
      'google_container_cluster',
    );
    expect(cluster).toMatchObject({
      release_channel: { channel: 'STABLE' },
      deletion_protection: false,
      control_plane_endpoints_config: { dns_endpoint_config: { allow_external_traffic: true } },
      private_cluster_config: { master_ipv4_cidr_block: '172.16.1.0/28' },
    });
  });
  test('default maintenance: weekend-night windows, and no node or minor upgrades for 30 days from a start stored once', () => {
    const out = JSON.parse(Testing.synthScope((s) => new GkeCluster(s, 'g', base)));
    const cluster: any = Object.values(out.resource.google_container_cluster)[0];
    const [startId, start]: [string, any] = Object.entries(out.resource.terraform_data)[0] as any;
    expect(start).toEqual({ input: '${plantimestamp()}', lifecycle: { ignore_changes: ['input'] } });
    expect(cluster.maintenance_policy).toEqual({
      recurring_window: { start_time: '2026-01-03T02:00:00Z', end_time: '2026-01-03T08:00:00Z', recurrence: 'FREQ=WEEKLY;BYDAY=SA,SU' },
      maintenance_exclusion: [
        {
          exclusion_name: 'no-minor-or-node-upgrades',
          start_time: `\${terraform_data.${startId}.output}`,
          end_time: `\${timeadd(terraform_data.${startId}.output, "720h")}`,
          exclusion_options: { scope: 'NO_MINOR_OR_NODE_UPGRADES' },
        },
      ],
    });
  });
  test('override: upgradeExclusionDays 0 keeps only the window; a bad value is an error', () => {
    const out = JSON.parse(Testing.synthScope((s) => new GkeCluster(s, 'g', { ...base, upgradeExclusionDays: 0 })));
    const cluster: any = Object.values(out.resource.google_container_cluster)[0];
    expect(cluster.maintenance_policy.maintenance_exclusion).toBeUndefined();
    expect(out.resource.terraform_data).toBeUndefined();
    expect(() => Testing.synthScope((s) => new GkeCluster(s, 'g', { ...base, upgradeExclusionDays: 1.5 }))).toThrow(
      'cluster c: upgradeExclusionDays must be a whole number of days >= 0, got 1.5',
    );
  });
});

test('GkeCluster refuses an internet-wide CIDR unless allowPublicAccess says it is meant, and labels it', () => {
  const props: GkeClusterProps = {
    name: 'c', region: 'r', project: 'p', networkId: 'n', subnetworkId: 's',
    authorizedCidrs: ['0.0.0.0/0'], nodeZone: 'us-east5-b',
    defaultPoolServiceAccount: 'np@p.iam.gserviceaccount.com',
  };
  expect(() => Testing.synthScope((s) => new GkeCluster(s, 'g', props))).toThrow(
    'cluster c: authorizedCidrs contains 0.0.0.0/0, which opens the control plane to the internet; set allowPublicAccess (ALLOW_PUBLIC_CONTROL_PLANE=true) to mean it, or use the DNS endpoint',
  );
  const cluster = one(Testing.synthScope((s) => new GkeCluster(s, 'g', { ...props, allowPublicAccess: true })), 'google_container_cluster');
  expect(cluster.master_authorized_networks_config.cidr_blocks).toEqual([{ cidr_block: '0.0.0.0/0', display_name: 'public-opt-in' }]);
});

describe('TrainingBucket', () => {
  test('defaults: 7-day scratch expiry, no force destroy, soft delete off', () => {
    const out = Testing.synthScope((s) => new TrainingBucket(s, 'b', { name: 'bkt', location: 'us-east5', writer: 'serviceAccount:x', scratchPrefix: 'pathways/' }));
    expect(one(out, 'google_storage_bucket')).toMatchObject({
      force_destroy: false,
      lifecycle_rule: [{ condition: { age: 7 } }],
      // Explicitly 0: leaving the block out would keep GCS's 7-day default for every deleted checkpoint.
      soft_delete_policy: { retention_duration_seconds: 0 },
    });
    expect(Object.keys(JSON.parse(out).resource.google_storage_bucket_iam_member)).toHaveLength(1);
  });
  test('override: host-network pods act as the node account, which gets storage.admin on the bucket', () => {
    const out = Testing.synthScope(
      (s) => new TrainingBucket(s, 'b', { name: 'bkt', location: 'r', writer: 'serviceAccount:wl', scratchPrefix: 'p/', hostNetworkWriter: 'serviceAccount:np' }),
    );
    expect(Object.values(JSON.parse(out).resource.google_storage_bucket_iam_member)).toContainEqual(
      expect.objectContaining({ role: 'roles/storage.admin', member: 'serviceAccount:np' }),
    );
  });
  test('overrides', () => {
    const out = Testing.synthScope(
      (s) => new TrainingBucket(s, 'b', { name: 'bkt', location: 'r', writer: 'serviceAccount:x', scratchPrefix: 'p/', scratchExpiryDays: 2, forceDestroy: true }),
    );
    expect(one(out, 'google_storage_bucket')).toMatchObject({ force_destroy: true, lifecycle_rule: [{ condition: { age: 2, matches_prefix: ['p/'] } }] });
  });
  test('override: soft delete kept for 14 days', () => {
    const out = Testing.synthScope(
      (s) => new TrainingBucket(s, 'b', { name: 'bkt', location: 'r', writer: 'serviceAccount:x', scratchPrefix: 'p/', softDeleteDays: 14 }),
    );
    expect(one(out, 'google_storage_bucket')).toMatchObject({ soft_delete_policy: { retention_duration_seconds: 14 * 86400 } });
  });
  test.each([3, 91, 7.5, -1])('softDeleteDays %s is refused: GCS takes 0 or 7 to 90', (days) => {
    expect(() =>
      Testing.synthScope((s) => new TrainingBucket(s, 'b', { name: 'bkt', location: 'r', writer: 'serviceAccount:x', scratchPrefix: 'p/', softDeleteDays: days })),
    ).toThrow(`softDeleteDays must be 0 (off) or a whole number of days from 7 to 90, got ${days}`);
  });
});

describe('Controllers', () => {
  const chart = path.join(__dirname, '..', '..', 'charts', 'kueue-queues');
  const webhookAccess = { namePrefix: 'tpt', network: 'net-id', controlPlaneCidr: '172.16.0.32/28', nodeServiceAccount: 'np@p.iam.gserviceaccount.com' };
  const workflows = { namespace: 'pipelines', systemPool: 'system' };
  test('defaults: 900 s timeout, wait, namespaces created', () => {
    const out = Testing.synthScope(
      (s) => new Controllers(s, 'c', { jobsetVersion: '0.12.0', kueueVersion: '0.19.2', queuesChartPath: chart, queueObjects: [], webhookAccess, workflows }),
    );
    for (const release of Object.values(JSON.parse(out).resource.helm_release) as any[]) {
      expect(release).toMatchObject({ timeout: 900, wait: true });
    }
  });
  test('override: timeout', () => {
    const out = Testing.synthScope(
      (s) => new Controllers(s, 'c', { jobsetVersion: '0.12.0', kueueVersion: '0.19.2', queuesChartPath: chart, queueObjects: [], timeoutSeconds: 300, webhookAccess, workflows }),
    );
    expect(one(out, 'helm_release').timeout).toBe(300);
  });
  test('Argo Workflows: the pinned chart from argo-helm in its own restricted namespace, managing the pipelines\' namespace, after Kueue, on the system pool, UI ClusterIP only', () => {
    const out = JSON.parse(Testing.synthScope((s) => new Controllers(s, 'c', { jobsetVersion: '0.12.0', kueueVersion: '0.19.2', queuesChartPath: chart, queueObjects: [], webhookAccess, workflows })));
    const argo = Object.values(out.resource.helm_release).find((r: any) => r.name === 'argo-workflows') as any;
    const namespaces = Object.values(out.resource.kubernetes_namespace_v1) as any[];
    expect(namespaces.map((n) => n.metadata)).toEqual([
      { name: 'argo', labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/audit': 'restricted' } },
      { name: 'pipelines' },
    ]);
    expect(argo).toMatchObject({
      repository: 'https://argoproj.github.io/argo-helm',
      chart: 'argo-workflows',
      version: '1.0.18',
      namespace: 'argo',
      create_namespace: false,
    });
    expect(argo.depends_on).toEqual([
      expect.stringContaining('helm_release.c_kueue'),
      expect.stringContaining('kubernetes_namespace_v1.c_argo-namespace'),
      expect.stringContaining('kubernetes_namespace_v1.c_pipelines-namespace'),
    ]);
    const values = JSON.parse(argo.values[0]);
    expect(values).toMatchObject({
      images: { tag: 'v4.1.2' },
      singleNamespace: true,
      createAggregateRoles: false,
      crds: { full: true, upgradeJob: { crdBaseURL: 'https://raw.githubusercontent.com/argoproj/argo-workflows/v4.1.2/manifests/base/crds/full' } },
      controller: { nodeSelector: { 'cloud.google.com/gke-nodepool': 'system' }, clusterWorkflowTemplates: { enabled: false }, extraArgs: ['--managed-namespace', 'pipelines'] },
      server: { serviceType: 'ClusterIP', authModes: ['client'], nodeSelector: { 'cloud.google.com/gke-nodepool': 'system' }, extraArgs: ['--managed-namespace', 'pipelines'], rbac: { create: false } },
      workflow: { serviceAccount: { create: false }, rbac: { create: false } },
    });
    const extra = values.extraObjects as any[];
    const where = (kind: string, name: string) => extra.filter((o) => o.kind === kind && o.metadata.name === name).map((o) => o.metadata.namespace);
    expect(where('ServiceAccount', 'argo-workflow')).toEqual(['pipelines']);
    // The step pods may create, read and (the lost-host watcher, out of budget) delete JobSets, never change one; the
    // watcher also reads and patches the Kueue Workloads (spec.active, its count) and lists pods (jobs/lost-host.ts).
    const workflowRole = extra.find((o) => o.kind === 'Role' && o.metadata.name === 'argo-workflows-workflow');
    expect(workflowRole).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'argo-workflows-workflow', namespace: 'pipelines' },
      rules: [
        { apiGroups: ['argoproj.io'], resources: ['workflowtaskresults'], verbs: ['create', 'patch'] },
        { apiGroups: ['jobset.x-k8s.io'], resources: ['jobsets'], verbs: ['create', 'get', 'delete'] },
        { apiGroups: ['kueue.x-k8s.io'], resources: ['workloads'], verbs: ['get', 'list', 'patch'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
        { apiGroups: ['argoproj.io'], resources: ['workflows/finalizers'], verbs: ['update'] },
      ],
    });
    // The controller's Role in the pipelines' namespace, bound to its account in 'argo'; no Role of either reads a Secret.
    expect(extra.find((o) => o.kind === 'RoleBinding' && o.metadata.name === 'argo-workflows-workflow-controller')).toMatchObject({
      metadata: { namespace: 'pipelines' },
      subjects: [{ kind: 'ServiceAccount', name: 'argo-workflows-workflow-controller', namespace: 'argo' }],
    });
    expect(where('Role', 'argo-workflows-server')).toEqual(['argo']);
    for (const role of extra.filter((o) => o.kind === 'Role')) {
      expect({ role: role.metadata.name, secrets: role.rules.filter((r: any) => r.resources.includes('secrets')) }).toEqual({ role: role.metadata.name, secrets: [] });
    }
    expect(values.server.ingress).toBeUndefined();
  });
  test('the JobSet admission policy goes in as its own release of the local chart, in kueue-system, after Kueue', () => {
    const objects = [{ kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' } }];
    const out = JSON.parse(Testing.synthScope((s) => new Controllers(s, 'c', { jobsetVersion: '0.12.0', kueueVersion: '0.19.2', queuesChartPath: chart, queueObjects: [], webhookAccess, workflows, admissionObjects: objects })));
    const r = Object.values(out.resource.helm_release as Record<string, any>).find((x) => x.name === 'jobset-admission');
    expect(r).toMatchObject({ namespace: 'kueue-system', depends_on: [expect.stringContaining('helm_release.c_kueue')] });
    expect(JSON.parse(r.values[0])).toEqual({ objects });
  });
  test('releaseReaders: get,list on Secrets in each release namespace (jobset-system, kueue-system, argo), after it exists, bound to the accounts as Users; none by default', () => {
    const synth = (releaseReaders?: string[]) =>
      JSON.parse(Testing.synthScope((s) => new Controllers(s, 'c', { jobsetVersion: '0.12.0', kueueVersion: '0.19.2', queuesChartPath: chart, queueObjects: [], webhookAccess, workflows, releaseReaders })));
    expect(synth().resource.kubernetes_role_v1).toBeUndefined();
    expect(synth([]).resource.kubernetes_role_binding_v1).toBeUndefined();
    const out = synth(['plan@p.iam.gserviceaccount.com']);
    const roles = Object.values(out.resource.kubernetes_role_v1) as any[];
    expect(roles.map((r) => [r.metadata.namespace, r.rule, r.depends_on]).sort()).toEqual([
      ['argo', [{ api_groups: [''], resources: ['secrets'], verbs: ['get', 'list'] }], [expect.stringContaining('kubernetes_namespace_v1.c_argo-namespace')]],
      ['jobset-system', [{ api_groups: [''], resources: ['secrets'], verbs: ['get', 'list'] }], [expect.stringContaining('helm_release.c_jobset')]],
      ['kueue-system', [{ api_groups: [''], resources: ['secrets'], verbs: ['get', 'list'] }], [expect.stringContaining('helm_release.c_kueue')]],
    ]);
    const bindings = Object.values(out.resource.kubernetes_role_binding_v1) as any[];
    expect(bindings.map((b) => [b.metadata, b.subject]).sort((a, b) => (a[0].namespace < b[0].namespace ? -1 : 1))).toEqual(
      ['argo', 'jobset-system', 'kueue-system'].map((namespace) => [
        { name: 'helm-release-reader', namespace },
        [{ kind: 'User', name: 'plan@p.iam.gserviceaccount.com', api_group: 'rbac.authorization.k8s.io' }],
      ]),
    );
    // Every release of the construct lives in one of those namespaces, none in the pipelines' namespace.
    const releases = Object.values(out.resource.helm_release) as any[];
    expect([...new Set(releases.map((r) => r.namespace))].sort()).toEqual(['argo', 'jobset-system', 'kueue-system']);
  });
  test('the pipelines\' namespace `default` is not created (every cluster has it)', () => {
    const out = JSON.parse(Testing.synthScope((s) => new Controllers(s, 'c', { jobsetVersion: '0.12.0', kueueVersion: '0.19.2', queuesChartPath: chart, queueObjects: [], webhookAccess, workflows: { ...workflows, namespace: 'default' } })));
    expect((Object.values(out.resource.kubernetes_namespace_v1) as any[]).map((n) => n.metadata.name)).toEqual(['argo']);
  });
  test('JobSet and Kueue controllers (their webhooks) run on the system pool, as Argo\'s: chart values controller.nodeSelector (jobset v0.12.0) and controllerManager.nodeSelector (kueue v0.19.2)', () => {
    const out = JSON.parse(Testing.synthScope((s) => new Controllers(s, 'c', { jobsetVersion: '0.12.0', kueueVersion: '0.19.2', queuesChartPath: chart, queueObjects: [], webhookAccess, workflows })));
    const release = (name: string) => Object.values(out.resource.helm_release as Record<string, any>).find((r) => r.name === name);
    const onSystem = { 'cloud.google.com/gke-nodepool': 'system' };
    expect(JSON.parse(release('jobset').values[0])).toEqual({ controller: { nodeSelector: onSystem } });
    const kueue = JSON.parse(release('kueue').values[0]);
    expect(kueue.controllerManager).toEqual({ nodeSelector: onSystem });
    expect(JSON.parse(kueue.managerConfig.controllerManagerConfigYaml).integrations.frameworks).toEqual(['jobset.x-k8s.io/jobset']);
    // Before: neither release set a node selector (the JobSet release no values at all): the webhooks could land on any node.
  });
  test('the control plane may reach the webhooks (9443) and the Kueue visibility API (8082) on the nodes, from its range only', () => {
    const out = JSON.parse(Testing.synthScope((s) => new Controllers(s, 'c', { jobsetVersion: '0.12.0', kueueVersion: '0.19.2', queuesChartPath: chart, queueObjects: [], webhookAccess, workflows })));
    expect(Object.values(out.resource.google_compute_firewall)).toEqual([
      expect.objectContaining({
        name: 'tpt-control-plane-to-webhooks',
        network: 'net-id',
        direction: 'INGRESS',
        source_ranges: ['172.16.0.32/28'],
        target_service_accounts: ['np@p.iam.gserviceaccount.com'],
        allow: [{ protocol: 'tcp', ports: ['9443', '8082'] }],
      }),
    ]);
    const jobset = Object.values(out.resource.helm_release as Record<string, any>).find((r) => r.name === 'jobset');
    expect(jobset.depends_on).toContainEqual(expect.stringMatching(/^google_compute_firewall\./));
  });
});
