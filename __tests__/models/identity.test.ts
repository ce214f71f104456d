/**
 * Which identity each pod really runs as, and whether that identity's grants allow what its step does, over every
 * JobSet the app synthesizes.
 *
 * - GKE Workload Identity Federation: a pod on the pod network that runs as a KSA annotated
 *   `iam.gke.io/gcp-service-account` and bound by `roles/iam.workloadIdentityUser` acts as that Google service
 *   account; a pod with `hostNetwork: true` is not served by the GKE metadata server ("Pods that use the host network
 *   can't use Workload Identity Federation for GKE", GKE docs, Workload Identity limitations) and acts as the node's
 *   service account (node_config.service_account of the pool it runs on).
 * - The GKE Secret Manager add-on mounts a secret with the pod's KSA through Workload Identity (the CSI driver
 *   exchanges the KSA token; it does not use the metadata server), so the token file is read as the workload GSA.
 * - Permissions of predefined roles (Google Cloud IAM roles reference: Cloud Storage roles, Secret Manager roles),
 *   only the ones the steps use. MaxText checks the bucket (storage.buckets.get) before it reads or writes
 *   checkpoints; with only objectAdmin it reports the bucket as missing (MaxText multi-host docs).
 */
import { admitWorkload, admittedPod, schedulableOn } from './kueue';
import { allConfigurations, Obj, podSets, synthesize, Synthesized } from './synthesized';

/** What changes the bucket itself rather than its objects: its IAM policy, its settings (lifecycle, retention), the bucket. */
const BUCKET_ADMIN = ['storage.buckets.setIamPolicy', 'storage.buckets.update', 'storage.buckets.delete'];
const OBJECTS = ['storage.objects.get', 'storage.objects.list', 'storage.objects.create', 'storage.objects.delete', 'storage.objects.update'];

const ROLE_PERMISSIONS: Record<string, readonly string[]> = {
  'roles/storage.admin': ['storage.buckets.get', ...BUCKET_ADMIN, ...OBJECTS],
  'roles/storage.objectAdmin': OBJECTS,
  'roles/storage.objectViewer': ['storage.objects.get', 'storage.objects.list'],
  'roles/secretmanager.secretAccessor': ['secretmanager.versions.access'],
};

/**
 * What each step does with the checkpoint bucket. Every MaxText entry point checks the bucket first
 * (storage.buckets.get); to-maxtext lists and reads to find an existing conversion, writes the checkpoint and
 * replaces a partial one (create + delete); train reads the converted checkpoint, writes and rotates its own
 * checkpoints (get/list/create/delete), and the Pathways head writes its scratch data; to-hf reads the trained
 * checkpoint and writes (or replaces) the export; eval reads the export and writes eval.json beside it. None of them
 * changes the bucket itself.
 */
const STEP_PERMISSIONS: Record<string, readonly string[]> = {
  'to-maxtext': ['storage.buckets.get', 'storage.objects.get', 'storage.objects.list', 'storage.objects.create', 'storage.objects.delete'],
  train: ['storage.buckets.get', 'storage.objects.get', 'storage.objects.list', 'storage.objects.create', 'storage.objects.delete'],
  'to-hf': ['storage.buckets.get', 'storage.objects.get', 'storage.objects.list', 'storage.objects.create', 'storage.objects.delete'],
  // eval reads the export through the Cloud Storage FUSE mount and writes (or replaces) eval.json in it.
  eval: ['storage.objects.get', 'storage.objects.list', 'storage.objects.create', 'storage.objects.delete'],
};
const stepOf = (jobSetName: string) => Object.keys(STEP_PERMISSIONS).find((step) => jobSetName.endsWith(`-${step}`))!;

/** `${google_service_account.X.email}` / `.member` / `.name` -> `X`. */
function gsaRef(expr: string): string | undefined {
  return /\$\{google_service_account\.([^.]+)\.(email|member|name)\}/.exec(expr)?.[1];
}

const CONFIGS: Array<[string, Synthesized]> = [
  ...allConfigurations(),
  ['objects access', synthesize({ BUCKET_ACCESS: 'objects', SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' })],
];

describe.each(CONFIGS)('pods act as an identity whose grants cover their step (%s)', (name, synth) => {
  const res = synth.infra.resource;
  const ksa = Object.values(res.kubernetes_service_account_v1 as Record<string, Obj>)[0].metadata;
  const wiBindings = Object.values((res.google_service_account_iam_member ?? {}) as Record<string, Obj>).filter(
    (b) => b.role === 'roles/iam.workloadIdentityUser',
  );
  const bucketGrants = Object.values((res.google_storage_bucket_iam_member ?? {}) as Record<string, Obj>);
  const secretGrants = Object.values((res.google_secret_manager_secret_iam_member ?? {}) as Record<string, Obj>);
  // Custom roles grant what the synthesized role lists; predefined roles what ROLE_PERMISSIONS models.
  const customRoles = Object.entries((res.google_project_iam_custom_role ?? {}) as Record<string, Obj>);
  const rolePermissions = (role: string): readonly string[] =>
    customRoles.find(([id]) => role === `\${google_project_iam_custom_role.${id}.name}`)?.[1].permissions ?? ROLE_PERMISSIONS[role] ?? [];
  const permissionsOf = (gsa: string, grants: Obj[]) =>
    new Set(grants.filter((g) => gsaRef(g.member) === gsa).flatMap((g) => rolePermissions(g.role)));
  const cq = synth.kueueObjects.find((o) => o.kind === 'ClusterQueue')!;
  const flavors = synth.kueueObjects.filter((o) => o.kind === 'ResourceFlavor');

  const workloadGsa = (pod: Obj): string | undefined => {
    if (pod.serviceAccountName !== ksa.name) return undefined;
    const annotated = gsaRef(ksa.annotations['iam.gke.io/gcp-service-account']);
    const bound = wiBindings.some(
      (b) => gsaRef(b.service_account_id) === annotated && b.member.endsWith(`.svc.id.goog[${ksa.namespace}/${ksa.name}]`),
    );
    return bound ? annotated : undefined;
  };

  const cases = synth.jobSets.flatMap((js) => podSets(js.manifest).map((ps) => [`${js.manifest.metadata.name}/${ps.name}`, js, ps] as const));
  test.each(cases)('%s', (_label, js, ps) => {
    const decision = admitWorkload(cq, flavors, podSets(js.manifest))[ps.name];
    const pod = admittedPod(ps.pod, flavors.find((f) => f.metadata.name === decision.flavor)!);
    const pools = synth.nodePools.filter((p) => schedulableOn(pod, p));
    expect(pools.length).toBeGreaterThan(0);
    // The identity the pod's GCS calls use, on every pool it may land on.
    const identities = ps.pod.hostNetwork ? pools.map((p) => gsaRef(p.serviceAccount)) : [workloadGsa(ps.pod)];
    const needs = STEP_PERMISSIONS[stepOf(js.manifest.metadata.name)];
    expect(needs).toBeDefined();
    for (const gsa of identities) {
      expect(gsa).toBeDefined();
      const granted = permissionsOf(gsa!, bucketGrants);
      expect(needs.filter((p) => !granted.has(p))).toEqual([]);
      // With BUCKET_ACCESS=objects no pod can change the bucket itself; with admin (the default) every one can.
      expect(BUCKET_ADMIN.filter((p) => granted.has(p))).toEqual(name === 'objects access' ? [] : BUCKET_ADMIN);
    }
    // The token volume is mounted through the pod's KSA, even on the host network.
    if ((ps.pod.volumes ?? []).some((v: Obj) => v.csi?.driver === 'secrets-store-gke.csi.k8s.io')) {
      expect(permissionsOf(workloadGsa(ps.pod)!, secretGrants).has('secretmanager.versions.access')).toBe(true);
    }
  });

  test('the model tells the roles apart: objectAdmin alone cannot get the bucket; the objects setting binds its custom role', () => {
    expect(ROLE_PERMISSIONS['roles/storage.objectAdmin']).not.toContain('storage.buckets.get');
    const roles = [...new Set(bucketGrants.filter((g) => !g.condition).map((g) => g.role))];
    expect(roles).toEqual([name === 'objects access' ? expect.stringMatching(/^\$\{google_project_iam_custom_role\./) : 'roles/storage.admin']);
    const hostNetworkPods = synth.jobSets.flatMap((js) => podSets(js.manifest)).filter((ps) => ps.pod.hostNetwork);
    expect(hostNetworkPods.length).toBeGreaterThan(0);
  });

  test('the verdict writer acts as its own GSA: on the bucket only the *.rehearsal.json objects (an IAM condition), and the token; the steps\' GSA is not it', () => {
    const ksas = Object.values(res.kubernetes_service_account_v1 as Record<string, Obj>).map((k) => k.metadata);
    const verdictKsa = ksas.find((k) => k.name.endsWith('-workloads-verdict'))!;
    const verdictGsa = gsaRef(verdictKsa.annotations['iam.gke.io/gcp-service-account'])!;
    expect(verdictGsa).not.toBe(gsaRef(ksa.annotations['iam.gke.io/gcp-service-account']));
    expect(wiBindings.filter((b) => b.member.endsWith(`/${verdictKsa.name}]`)).map((b) => gsaRef(b.service_account_id))).toEqual([verdictGsa]);
    const grants = bucketGrants.filter((g) => gsaRef(g.member) === verdictGsa);
    expect(grants).toEqual([
      expect.objectContaining({
        role: 'roles/storage.objectUser',
        condition: expect.objectContaining({ expression: expect.stringMatching(/^resource\.name\.startsWith\("projects\/_\/buckets\/[^/]+\/objects\/"\) && resource\.name\.endsWith\("\.rehearsal\.json"\)$/) }),
      }),
    ]);
    expect(secretGrants.filter((g) => gsaRef(g.member) === verdictGsa).map((g) => g.role)).toEqual(['roles/secretmanager.secretAccessor']);
  });
});
