/**
 * Every pod the argo-workflows chart (argoproj/argo-helm argo-workflows-1.0.18, 4f4cc4f9) makes in ARGO_NAMESPACE meets
 * Pod Security `restricted`, the level the namespace enforces (jobs/argo.ts ARGO_NAMESPACE_LABELS).
 *
 * The pods are put together the way the chart's templates do it, from the chart's default values (quoted below with
 * their lines in charts/argo-workflows/values.yaml) merged under ours as Helm merges values (maps deep, lists replaced):
 * templates/controller/workflow-controller-deployment.yaml l.37-38, 83-84, 122-123 (pod securityContext =
 * controller.podSecurityContext, the container's = controller.securityContext, volumes = controller.volumes);
 * templates/server/server-deployment.yaml l.41-42, 57-58, 146-150 (likewise, plus the `tmp` volume = server.tmpVolume);
 * templates/crds-install-job.yaml l.68-69, 84-88, 93-94 (crds.upgradeJob.*, a hostPath volume only when
 * crds.upgradeJob.hostPath is set). The `restricted` checks are Kubernetes' Pod Security Standards (kubernetes/kubernetes
 * staging/src/k8s.io/pod-security-admission/policy, the restricted level: the baseline checks plus
 * allowPrivilegeEscalation false, runAsNonRoot, seccomp RuntimeDefault|Localhost, capabilities drop ALL / add at most
 * NET_BIND_SERVICE, the restricted volume types). The images run as uid 8737 (argo-workflows v4.1.2 Dockerfile
 * l.120, 132: `USER 8737`), so runAsNonRoot admits them.
 */
import { argoChartValues } from '../../jobs/argo';

/** The chart's defaults that reach the pods' security (values.yaml at argo-workflows-1.0.18). */
const CHART_DEFAULTS = {
  crds: {
    upgradeJob: {
      hostPath: '', // l.32
      podSecurityContext: {}, // l.38
      securityContext: { readOnlyRootFilesystem: true, runAsNonRoot: true, allowPrivilegeEscalation: false, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' }, capabilities: { drop: ['ALL'] } }, // l.44-54
    },
  },
  controller: {
    podSecurityContext: {}, // l.176
    securityContext: { readOnlyRootFilesystem: true, runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }, // l.219-226
    volumes: [] as unknown[],
  },
  server: {
    podSecurityContext: {}, // l.588
    securityContext: { readOnlyRootFilesystem: false, runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }, // l.593-599
    tmpVolume: { emptyDir: {} }, // l.729
    volumes: [] as unknown[],
  },
};

type Obj = Record<string, any>;
function merge(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && base[k] && typeof base[k] === 'object' && !Array.isArray(base[k]) ? merge(base[k], v) : v;
  }
  return out;
}

/** The pod specs of the chart's Deployments and CRD Job, from merged values. */
function chartPods(values: Obj): Record<string, Obj> {
  const v = merge(CHART_DEFAULTS, values);
  const job = v.crds.upgradeJob;
  return {
    controller: { securityContext: v.controller.podSecurityContext, containers: [{ name: 'controller', securityContext: v.controller.securityContext }], volumes: v.controller.volumes },
    server: { securityContext: v.server.podSecurityContext, containers: [{ name: 'argo-server', securityContext: v.server.securityContext }], volumes: [{ name: 'tmp', ...v.server.tmpVolume }, ...v.server.volumes] },
    'crd-install': { securityContext: job.podSecurityContext, containers: [{ name: 'kubectl', securityContext: job.securityContext }], volumes: job.hostPath ? [{ name: 'crds', hostPath: { path: job.hostPath } }] : [] },
  };
}

const RESTRICTED_VOLUMES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

/** What `restricted` refuses in a pod, as messages (empty: admitted). */
function restrictedViolations(pod: Obj): string[] {
  const out: string[] = [];
  const psc = pod.securityContext ?? {};
  if (pod.hostNetwork || pod.hostPID || pod.hostIPC) out.push('host namespaces');
  for (const vol of pod.volumes ?? []) {
    const type = Object.keys(vol).find((k) => k !== 'name');
    if (!type || !RESTRICTED_VOLUMES.includes(type)) out.push(`volume ${vol.name}: ${type}`);
  }
  for (const c of pod.containers) {
    const sc = c.securityContext ?? {};
    if (sc.privileged) out.push(`${c.name}: privileged`);
    if (sc.allowPrivilegeEscalation !== false) out.push(`${c.name}: allowPrivilegeEscalation != false`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) out.push(`${c.name}: capabilities not dropping ALL`);
    if ((sc.capabilities?.add ?? []).some((a: string) => a !== 'NET_BIND_SERVICE')) out.push(`${c.name}: capabilities added`);
    if ((sc.runAsNonRoot ?? psc.runAsNonRoot) !== true) out.push(`${c.name}: runAsNonRoot != true`);
    if ((sc.runAsUser ?? psc.runAsUser) === 0) out.push(`${c.name}: runAsUser 0`);
    const seccomp = (sc.seccompProfile ?? psc.seccompProfile)?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') out.push(`${c.name}: seccompProfile ${seccomp ?? 'unset'}`);
    if ((c.ports ?? []).some((p: Obj) => p.hostPort)) out.push(`${c.name}: hostPort`);
  }
  return out;
}

const values = argoChartValues({ namespace: 'pipelines', systemPool: 'system' });

test.each(Object.entries(chartPods(values)))('the chart\'s %s pod is admitted under `restricted`', (_name, pod) => {
  expect(restrictedViolations(pod)).toEqual([]);
});

test('the chart\'s defaults alone are not: the controller and argo-server set no seccomp profile (what our values add)', () => {
  const pods = chartPods({});
  expect(restrictedViolations(pods.controller)).toEqual(['controller: seccompProfile unset']);
  expect(restrictedViolations(pods.server)).toEqual(['argo-server: seccompProfile unset']);
  expect(restrictedViolations(pods['crd-install'])).toEqual([]);
});

test('the checker refuses what `restricted` refuses (a hostPath CRD source, a root container, an escalation)', () => {
  const pods = chartPods(merge(values, { crds: { upgradeJob: { hostPath: '/crds' } }, controller: { securityContext: { runAsUser: 0, allowPrivilegeEscalation: true } } }));
  expect(restrictedViolations(pods['crd-install'])).toEqual(['volume crds: hostPath']);
  expect(restrictedViolations(pods.controller)).toEqual(['controller: allowPrivilegeEscalation != false', 'controller: runAsUser 0']);
});
