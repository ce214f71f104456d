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
import { allConfigurations, Obj, podSets } from './synthesized';

const ROLE_PERMISSIONS: Record<string, readonly string[]> = {
  'roles/storage.admin': ['storage.buckets.get', 'storage.objects.get', 'storage.objects.list', 'storage.objects.create', 'storage.objects.delete'],
  'roles/storage.objectAdmin': ['storage.objects.get', 'storage.objects.list', 'storage.objects.create', 'storage.objects.delete'],
  'roles/storage.objectViewer': ['storage.objects.get', 'storage.objects.list'],
  'roles/secretmanager.secretAccessor': ['secretmanager.versions.access'],
};

/** What every MaxText or Pathways container does with the checkpoint bucket. */
const BUCKET_PERMISSIONS = ['storage.buckets.get', 'storage.objects.get', 'storage.objects.list', 'storage.objects.create', 'storage.objects.delete'];

/** `${google_service_account.X.email}` / `.member` / `.name` -> `X`. */
function gsaRef(expr: string): string | undefined {
  return /\$\{google_service_account\.([^.]+)\.(email|member|name)\}/.exec(expr)?.[1];
}

describe.each(allConfigurations())('pods act as an identity whose grants cover their step (%s)', (_name, synth) => {
  const res = synth.infra.resource;
  const ksa = Object.values(res.kubernetes_service_account_v1 as Record<string, Obj>)[0].metadata;
  const wiBindings = Object.values((res.google_service_account_iam_member ?? {}) as Record<string, Obj>).filter(
    (b) => b.role === 'roles/iam.workloadIdentityUser',
  );
  const bucketGrants = Object.values((res.google_storage_bucket_iam_member ?? {}) as Record<string, Obj>);
  const secretGrants = Object.values((res.google_secret_manager_secret_iam_member ?? {}) as Record<string, Obj>);
  const permissionsOf = (gsa: string, grants: Obj[]) =>
    new Set(grants.filter((g) => gsaRef(g.member) === gsa).flatMap((g) => ROLE_PERMISSIONS[g.role] ?? []));
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
    for (const gsa of identities) {
      expect(gsa).toBeDefined();
      const granted = permissionsOf(gsa!, bucketGrants);
      expect(BUCKET_PERMISSIONS.filter((p) => !granted.has(p))).toEqual([]);
    }
    // The token volume is mounted through the pod's KSA, even on the host network.
    if ((ps.pod.volumes ?? []).some((v: Obj) => v.csi?.driver === 'secrets-store-gke.csi.k8s.io')) {
      expect(permissionsOf(workloadGsa(ps.pod)!, secretGrants).has('secretmanager.versions.access')).toBe(true);
    }
  });

  test('the model tells the roles apart: objectAdmin alone cannot get the bucket', () => {
    expect(ROLE_PERMISSIONS['roles/storage.objectAdmin']).not.toContain('storage.buckets.get');
    const hostNetworkPods = synth.jobSets.flatMap((js) => podSets(js.manifest)).filter((ps) => ps.pod.hostNetwork);
    expect(hostNetworkPods.length).toBeGreaterThan(0);
  });
});
