/**
 * The workflow engine that sequences a pipeline's steps in the cluster: Argo Workflows, its Helm values, and the one
 * Workflow per pipeline whose DAG creates the step JobSets in order. Pure; no cdktf.
 *
 * Facts read at argoproj/argo-workflows v4.1.2 (16a52d67daf2f4a8a76fa8bec02a76a46aa46257), [AW] below:
 * - A `resource` template runs as a pod whose main container runs `kubectl <action> -f /tmp/manifest.yaml -o json`
 *   in-process, then, unless the action is delete, polls the object until a requirement of `failureCondition` matches
 *   (any one: OR) or every requirement of `successCondition` matches (AND); conditions are Kubernetes label-selector
 *   requirements whose keys are gjson paths into the object — [AW] workflow/executor/resource.go `ExecResource`,
 *   `getKubectlArguments`, `WaitResource`, `matchConditions`; cmd/argoexec/commands/resource.go. An object that is gone
 *   (404) while polled fails the step ("The resource has been deleted while its status was still being checked"); a
 *   kubectl error that is not transient fails it ("no more retries ..."). There is no poll timeout.
 * - A step pod that disappears (deleted, its node lost) marks the node Error "pod deleted" — [AW]
 *   workflow/controller/operator.go `podReconciliation` (markNodeError); a pod that failed with a message (an eviction,
 *   a node shutdown) or whose main container exited non-zero marks it Failed — operator.go `inferFailedReason`.
 * - `retryStrategy.retryPolicy` Always retries Failed and Error children, OnError only Error; `backoff.duration *
 *   factor^n` capped by `cap`, and no retry once `maxDuration` has passed since the first attempt started — [AW]
 *   operator.go `processNodeRetries`. Template `activeDeadlineSeconds` becomes the step pod's deadline — [AW]
 *   workflow/controller/workflowpod.go.
 * - A DAG's phase is its leaf tasks' branch phase: a task that Failed but whose dependant (through `depends` on
 *   `.Failed`) then Succeeded leaves the branch Succeeded — [AW] workflow/controller/dag.go `assessDAGPhase`.
 * - `setOwnerReference: true` adds a controller ownerReference to the Workflow (blockOwnerDeletion) to the inline
 *   manifest — [AW] operator.go (resource template pod).
 *
 * Why each step is two tasks (`<step>` creates, `<step>-wait` watches), see docs/operations.md "How a pipeline runs":
 * the create runs once (`action: create`: a re-run against an existing JobSet fails AlreadyExists and creates nothing);
 * the wait is `action: get`, which can never create, so any number of retries of it (its pod lost, evicted, the
 * controller restarted) re-attach to the same JobSet. `apply` cannot serve as the re-attaching action: once Kueue has
 * admitted a JobSet it has written the flavor's nodeSelector and tolerations into the pod templates (atomic fields in
 * the JobSet v0.12.0 CRD), so re-applying the original manifest is a change of an immutable spec.
 * A flex-start TPU step has a third task, `<step>-watch` (a `script` template, jobs/lost-host.ts), that re-requests the
 * step's slice when its pods have had no node for LOST_HOST.minutes.
 */
import type { Pipeline, PipelineStep } from './pipeline';
import { verdictExitHandler, VERDICT_TEMPLATES } from './rehearsal-record';
import { LOST_HOST, LOST_HOST_BUDGET_MESSAGE, LOST_HOST_SCRIPT } from './lost-host';
import { sha256Of } from './spec-key';

/** The pinned engine: Argo Workflows, its images, its CRDs and the Helm chart that installs it. */
export const ARGO_WORKFLOWS = {
  /** Controller and executor image tag (quay.io/argoproj/workflow-controller, argoexec). */
  appVersion: 'v4.1.2',
  commit: '16a52d67daf2f4a8a76fa8bec02a76a46aa46257',
  chartRepository: 'https://argoproj.github.io/argo-helm',
  chart: 'argo-workflows',
  /**
   * argoproj/argo-helm argo-workflows-1.0.18 (4f4cc4f9; appVersion v4.0.6), the newest chart whose values were read:
   * `images.tag` runs v4.1.2 with it and `crds.upgradeJob.crdBaseURL` installs v4.1.2's own full CRDs (the CRD the
   * Workflow is validated against). Charts 1.1.x/2.0.x (v4.1.0/v4.1.1) exist, their values were not available.
   */
  chartVersion: '1.0.18',
  /** Where the chart's CRD Job downloads the full CRDs (same file names as the chart's files/crds/minimal). */
  crdBaseUrl: 'https://raw.githubusercontent.com/argoproj/argo-workflows/v4.1.2/manifests/base/crds/full',
} as const;

/** The Helm release name; the chart's fullname is then `argo-workflows` (no release/chart prefix doubling). */
export const ARGO_RELEASE = 'argo-workflows';
/** The service account every step pod of a pipeline Workflow runs as (chart `workflow.serviceAccount`). */
export const WORKFLOW_SERVICE_ACCOUNT = 'argo-workflow';
/** The argo-server Service (ClusterIP only) and port: `<fullname>-server` : 2746. */
export const ARGO_SERVER = { service: `${ARGO_RELEASE}-server`, port: 2746 } as const;
/** GKE's node label for a node's pool: the controller, the UI and every step pod run on the system pool. */
export const NODE_POOL_LABEL = 'cloud.google.com/gke-nodepool';
/** Seconds between the wait step's reads of its JobSet (executor `RESOURCE_STATE_CHECK_INTERVAL`, default 5s). */
export const STATE_CHECK_SECONDS = 30;

/**
 * What a step's pods may do (chart `workflow.rbac.rules`, appended to the Role that already grants workflowtaskresults
 * create/patch), all in the pipelines' namespace (singleNamespace: a Role): create JobSets (the create task) and get
 * them (the wait task polls with one GET per check). The lost-host watcher of a flex-start step (LOST_HOST) also gets
 * the step's Kueue Workload (listed by its `kueue.x-k8s.io/job-uid` label) and patches it (`spec.active`, its count
 * annotations), lists the JobSet's pods (has each a node?), and deletes the JobSet when the step's restart budget is
 * spent. No patch or update of a JobSet: the Workflow never changes a JobSet it made. `workflows/finalizers: update`
 * lets the ownerReference's blockOwnerDeletion pass where OwnerReferencesPermissionEnforcement is on
 * (argoproj/argo-workflows#922).
 */
export const WORKFLOW_RBAC_RULES: readonly Record<string, readonly string[]>[] = [
  { apiGroups: ['jobset.x-k8s.io'], resources: ['jobsets'], verbs: ['create', 'get', 'delete'] },
  { apiGroups: ['kueue.x-k8s.io'], resources: ['workloads'], verbs: ['get', 'list', 'patch'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
  { apiGroups: ['argoproj.io'], resources: ['workflows/finalizers'], verbs: ['update'] },
];

/**
 * The namespace of Argo Workflows' own components: the controller, argo-server and the chart's CRD Job, and the Helm
 * release (its Secrets). Pod Security `restricted` (ARGO_NAMESPACE_LABELS). The Workflows, their step pods and their
 * service account stay in the pipelines' namespace, which the controller manages (`--managed-namespace`).
 */
export const ARGO_NAMESPACE = 'argo';
/**
 * The namespaces infra's Helm releases live in (constructs/controllers.ts: jobset, kueue and its queues and the JobSet
 * admission policy, Argo Workflows), and so where Helm keeps their release Secrets: never the pipelines' namespace
 * (config refuses it there).
 */
export const RELEASE_NAMESPACES = ['jobset-system', 'kueue-system', ARGO_NAMESPACE] as const;
/**
 * Pod Security Admission labels of ARGO_NAMESPACE: `restricted` enforced (and warned, audited) at the cluster's own
 * version (no `-version` label: the API server's). Every pod the chart makes there meets it with argoChartValues'
 * security contexts (__tests__/jobs/argo-pod-security.test.ts).
 */
export const ARGO_NAMESPACE_LABELS = {
  'pod-security.kubernetes.io/enforce': 'restricted',
  'pod-security.kubernetes.io/warn': 'restricted',
  'pod-security.kubernetes.io/audit': 'restricted',
} as const;

/** The service accounts the chart makes in ARGO_NAMESPACE (argo-helm 1.0.18 _helpers.tpl: `<fullname>-workflow-controller`, `<fullname>-server`). */
export const ARGO_CONTROLLER_SERVICE_ACCOUNT = `${ARGO_RELEASE}-workflow-controller`;
export const ARGO_SERVER_SERVICE_ACCOUNT = `${ARGO_RELEASE}-server`;

/**
 * What the controller may do in the pipelines' namespace (a Role there, bound to its service account in
 * ARGO_NAMESPACE): the workflow-facing rules of the chart's own controller Role (argo-helm argo-workflows-1.0.18
 * templates/controller/workflow-controller-cluster-roles.yaml l.24-118), without its secrets and leases rules
 * (those stay in the chart's Role in ARGO_NAMESPACE, where its leader-election Lease and ConfigMap live).
 */
export const CONTROLLER_MANAGED_RBAC_RULES: readonly Record<string, readonly string[]>[] = [
  { apiGroups: [''], resources: ['pods'], verbs: ['create', 'get', 'list', 'watch', 'update', 'patch', 'delete'] },
  { apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'watch', 'list'] },
  { apiGroups: [''], resources: ['persistentvolumeclaims', 'persistentvolumeclaims/finalizers'], verbs: ['create', 'update', 'delete', 'get'] },
  {
    apiGroups: ['argoproj.io'],
    resources: ['workflows', 'workflows/finalizers', 'workflowtasksets', 'workflowtasksets/finalizers', 'workflowtasksets/status', 'workflowartifactgctasks'],
    verbs: ['get', 'list', 'watch', 'update', 'patch', 'delete', 'create'],
  },
  { apiGroups: ['argoproj.io'], resources: ['workflowtemplates', 'workflowtemplates/finalizers'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['argoproj.io'], resources: ['workflowtaskresults', 'workflowtaskresults/finalizers'], verbs: ['list', 'watch', 'deletecollection'] },
  { apiGroups: ['argoproj.io'], resources: ['cronworkflows', 'cronworkflows/finalizers'], verbs: ['get', 'list', 'watch', 'update', 'patch', 'delete'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'list'] },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['create', 'get', 'delete'] },
];

/**
 * argo-server's own Role in ARGO_NAMESPACE (the chart's, `server.rbac.create`, is off): its ConfigMap, events and its
 * namespace's pods and logs. No Secret at all (the chart's Role reads every Secret of its namespace, for SSO, which is
 * off) and no Workflow write: with `authModes: [client]` every call on the pipelines' Workflows is made with the user's
 * own token (argo-workflows v4.1.2, its argo-server-auth-mode page under docs), so argo-server has no Role in the pipelines' namespace.
 */
export const SERVER_RBAC_RULES: readonly Record<string, readonly string[]>[] = [
  { apiGroups: [''], resources: ['configmaps', 'events'], verbs: ['get', 'watch', 'list'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
];

/** Where the controller and its UI run and which namespace it manages. */
export interface ArgoValuesOptions {
  /** The pipelines' namespace: the only one the controller manages; the Workflows, step pods and their service account live there. */
  readonly namespace: string;
  /** Name of the system node pool. */
  readonly systemPool: string;
}

/** A restricted pod securityContext (Pod Security Standards `restricted`: runAsNonRoot, seccomp RuntimeDefault). */
export const RESTRICTED_POD_SECURITY = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } as const;
/** A restricted container securityContext (no privilege escalation, every capability dropped, non-root, seccomp). */
export const RESTRICTED_CONTAINER_SECURITY = {
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
} as const;

const rules = (rs: readonly Record<string, readonly string[]>[]) => rs.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs] }));

/**
 * The objects the release renders outside ARGO_NAMESPACE (chart `extraObjects`, argo-helm 1.0.18
 * templates/extra-manifests.yaml), in the pipelines' namespace: the step pods' service account and Role
 * (WORKFLOW_RBAC_RULES plus the executor's workflowtaskresults create/patch, as the chart's workflow Role has), and
 * the controller's Role there (CONTROLLER_MANAGED_RBAC_RULES), each with its RoleBinding; and argo-server's own Role
 * in ARGO_NAMESPACE (SERVER_RBAC_RULES). One release, so an upgrade from the release that lived in the pipelines'
 * namespace removes the old objects (helm uninstall) before it makes these under the same names.
 */
export function argoExtraObjects(o: ArgoValuesOptions): Record<string, unknown>[] {
  const ns = o.namespace;
  const role = (name: string, namespace: string, rs: readonly Record<string, readonly string[]>[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace }, rules: rules(rs) });
  const binding = (name: string, namespace: string, sa: { name: string; namespace: string }) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', ...sa }],
  });
  const workflowRole = `${ARGO_RELEASE}-workflow`;
  const controllerRole = `${ARGO_RELEASE}-workflow-controller`;
  const serverRole = `${ARGO_RELEASE}-server`;
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: WORKFLOW_SERVICE_ACCOUNT, namespace: ns } },
    role(workflowRole, ns, [{ apiGroups: ['argoproj.io'], resources: ['workflowtaskresults'], verbs: ['create', 'patch'] }, ...WORKFLOW_RBAC_RULES]),
    binding(workflowRole, ns, { name: WORKFLOW_SERVICE_ACCOUNT, namespace: ns }),
    role(controllerRole, ns, CONTROLLER_MANAGED_RBAC_RULES),
    binding(controllerRole, ns, { name: ARGO_CONTROLLER_SERVICE_ACCOUNT, namespace: ARGO_NAMESPACE }),
    role(serverRole, ARGO_NAMESPACE, SERVER_RBAC_RULES),
    binding(serverRole, ARGO_NAMESPACE, { name: ARGO_SERVER_SERVICE_ACCOUNT, namespace: ARGO_NAMESPACE }),
  ];
}

/**
 * Values of the argo-workflows chart (names read at argo-helm argo-workflows-1.0.18 charts/argo-workflows/values.yaml),
 * released into ARGO_NAMESPACE: `singleNamespace` (Roles, `--namespaced`) plus `--managed-namespace <pipelines'
 * namespace>` for the controller and argo-server (argo-workflows v4.1.2, its managed-namespace page under docs; the chart does not
 * template it: `extraArgs`), the workflow service account and RBAC in the pipelines' namespace (argoExtraObjects; the
 * chart would make them in its own), argo-server as a ClusterIP Service only (reached by port-forward with the user's
 * own token: authModes client) with its narrowed Role, no cluster-scoped templates or aggregate roles, `restricted`
 * security contexts on every pod the chart makes (the controller's and server's lack seccomp by default, values.yaml
 * l.176, 219-226, 588, 593-599; the CRD Job's pod context is empty, l.38), the step pods sized so they are not
 * BestEffort (a lost step pod costs a retry).
 */
export function argoChartValues(o: ArgoValuesOptions): Record<string, unknown> {
  const onSystem = { [NODE_POOL_LABEL]: o.systemPool };
  const managed = ['--managed-namespace', o.namespace];
  return {
    images: { tag: ARGO_WORKFLOWS.appVersion },
    crds: {
      install: true,
      keep: true,
      full: true,
      upgradeJob: { crdBaseURL: ARGO_WORKFLOWS.crdBaseUrl, nodeSelector: onSystem, podSecurityContext: RESTRICTED_POD_SECURITY, securityContext: { ...RESTRICTED_CONTAINER_SECURITY, readOnlyRootFilesystem: true, runAsUser: 65532, runAsGroup: 65532 } },
    },
    singleNamespace: true,
    createAggregateRoles: false,
    workflow: {
      serviceAccount: { create: false, name: WORKFLOW_SERVICE_ACCOUNT },
      rbac: { create: false },
    },
    controller: {
      nodeSelector: onSystem,
      extraArgs: managed,
      clusterWorkflowTemplates: { enabled: false },
      podSecurityContext: RESTRICTED_POD_SECURITY,
      securityContext: { ...RESTRICTED_CONTAINER_SECURITY, readOnlyRootFilesystem: true },
    },
    executor: {
      resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } },
      env: [{ name: 'RESOURCE_STATE_CHECK_INTERVAL', value: `${STATE_CHECK_SECONDS}s` }],
    },
    server: {
      enabled: true,
      serviceType: 'ClusterIP',
      authModes: ['client'],
      extraArgs: managed,
      nodeSelector: onSystem,
      clusterWorkflowTemplates: { enabled: false },
      rbac: { create: false },
      podSecurityContext: RESTRICTED_POD_SECURITY,
      securityContext: { ...RESTRICTED_CONTAINER_SECURITY, readOnlyRootFilesystem: false },
    },
    extraObjects: argoExtraObjects(o),
  };
}

/** The command that opens the engine's UI on localhost (npm run workflows-ui prints it): argo-server lives in ARGO_NAMESPACE. */
export function argoUiCommand(): string {
  return `kubectl -n ${ARGO_NAMESPACE} port-forward svc/${ARGO_SERVER.service} ${ARGO_SERVER.port}:${ARGO_SERVER.port}`;
}

/** Characters of the Workflow spec's hash in the Workflow's name. */
export const WORKFLOW_HASH_LENGTH = 10;
/** Longest Workflow name: it is the value of the label `workflows.argoproj.io/workflow` on every step pod. */
export const MAX_WORKFLOW_NAME = 63;

/**
 * `<pipeline>-<runId>-<hash>`, hash = sha256 of the Workflow's whole `spec` (canonical JSON, jobs/spec-key.ts): the
 * JobSets, the step windows (`queueMinutes` goes into each wait's pod deadline and retry `maxDuration`), the Workflow's
 * own deadline, the service account, the exit handler. An unchanged pipeline keeps its Workflow (Terraform plans
 * nothing); any change of what the run does names a new Workflow (Terraform replaces it: a new run), never an in-place
 * update of the live object, which Argo v4.1.2 would act on mid-run or ignore once finished (__tests__/models/
 * argo-live-update.ts says what it does with each).
 */
export function workflowName(pipeline: Pipeline, o: WorkflowOptions): string {
  return nameOf(pipeline, workflowSpec(pipeline, o));
}

function nameOf(pipeline: Pick<Pipeline, 'name' | 'runId'>, spec: Record<string, unknown>): string {
  return `${pipeline.name}-${pipeline.runId}-${sha256Of(spec).slice(0, WORKFLOW_HASH_LENGTH)}`;
}

/** The DAG task names of a step: the create, the wait and (flex-start steps only) the lost-host watcher. */
export function stepTasks(step: string): { readonly create: string; readonly wait: string; readonly watch: string } {
  return { create: step, wait: `${step}-wait`, watch: `${step}-watch` };
}

/** JobSet v0.12.0 `status.terminalState` (api/jobset/v1alpha2/jobset_types.go): empty until the JobSet ends. */
export const SUCCESS_CONDITION = 'status.terminalState == Completed';
export const FAILURE_CONDITION = 'status.terminalState == Failed';

/**
 * Node messages that end a wait for good (no retry): the JobSet failed, or it is gone. A failed main container's
 * message is `main: Error (exit code 64): <the executor's error>` (cmd/argoexec/main.go writes the error as the
 * termination message; operator.go `inferFailedReason` prefixes it); the errors are resource.go's
 * `failure condition '<requirement>' evaluated true`, kubectl's `Error from server (NotFound)` on the first read, and
 * `The resource has been deleted while its status was still being checked` on a later one.
 */
export const FINAL_WAIT_MESSAGES = ['failure condition', '(NotFound)', 'has been deleted while its status'] as const;

/**
 * How the wait task retries: any Failed or Error attempt (a lost or evicted pod, a controller restart, an API error)
 * unless its message is final (FINAL_WAIT_MESSAGES), with backoff, never past the step's window: `maxDuration` counts
 * from the first attempt's start, and each attempt's pod deadline is capped by it.
 */
export function waitRetry(step: PipelineStep): Record<string, unknown> {
  return {
    limit: WAIT_RETRY_LIMIT,
    retryPolicy: 'Always',
    expression: FINAL_WAIT_MESSAGES.map((m) => `!(lastRetry.message contains ${JSON.stringify(m)})`).join(' && '),
    backoff: { duration: '30s', factor: 2, cap: '5m', maxDuration: `${step.waitMinutes}m` },
  };
}
/** Retries of a wait task (each only reads the JobSet again). */
export const WAIT_RETRY_LIMIT = 10;
/** Retries of a create task (a refused create, or its pod lost before or after kubectl ran: a second run then fails AlreadyExists). */
export const CREATE_RETRY_LIMIT = 8;

/**
 * Messages that end a create for good: the JobSet exists already (a retry after a create that ran, a re-deployed or
 * migrated run: the wait reads it), or the API server refused the object itself (an admission webhook or policy denied
 * it, the schema rejected it, RBAC forbids it), which no retry changes. Anything else is retried, above all an admission
 * webhook that cannot be reached: JobSet's and Kueue's webhooks intercept every JobSet create, and while either
 * controller restarts (an upgrade, a node drain) the API server answers `Error from server (InternalError): ... failed
 * calling webhook ...`. argoexec retries that kubectl error for only ~0.3 s (workflow/executor/resource.go `ExecResource`:
 * client-go `retry.DefaultBackoff`, 4 steps of 10 ms x 5, argoproj/argo-workflows v4.1.2), then exits 64 with the error
 * as its termination message (cmd/argoexec/main.go l.22-44) and the controller marks the node Failed, not Error
 * (workflow/controller/operator.go l.1864-1874: a main container's non-zero exit), so `retryPolicy: OnError` never
 * retried it.
 */
export const FINAL_CREATE_MESSAGES = ['(AlreadyExists)', 'denied the request', '(Invalid)', '(Forbidden)'] as const;

/**
 * How the create task retries: Failed and Error attempts (Always) unless the message is final (FINAL_CREATE_MESSAGES),
 * with backoff 10 s doubling to 2 min, at most CREATE_RETRY_LIMIT times and never past 15 minutes from the first
 * attempt (10 + 20 + 40 + 80 + 4 x 120 s = 630 s of waits): longer than a webhook's restart, bounded for an API that
 * stays down.
 */
export function createRetry(): Record<string, unknown> {
  return {
    limit: CREATE_RETRY_LIMIT,
    retryPolicy: 'Always',
    expression: FINAL_CREATE_MESSAGES.map((m) => `!(lastRetry.message contains ${JSON.stringify(m)})`).join(' && '),
    backoff: { duration: '10s', factor: 2, cap: '2m', maxDuration: '15m' },
  };
}

/**
 * The lost-host watcher of a flex-start step (jobs/lost-host.ts): a `script` template beside the step's wait, running
 * while the JobSet runs (it ends 0 once the JobSet ends or is gone). Retried like the wait (a lost pod, an eviction)
 * within the step's window, except after its budget-spent message. Its pod deadline is the wait's.
 */
export function watchTemplate(step: PipelineStep, image: string = LOST_HOST.image): Record<string, unknown> {
  const env = {
    JOBSET: step.jobSetName,
    NAMESPACE: step.namespace,
    STEP: step.name,
    MAX_RESTARTS: String(step.maxRestarts),
    LOST_SECONDS: String(LOST_HOST.minutes * 60),
    POLL_SECONDS: String(LOST_HOST.pollSeconds),
  };
  return {
    name: stepTasks(step.name).watch,
    activeDeadlineSeconds: step.waitMinutes * 60,
    retryStrategy: { ...waitRetry(step), expression: `!(lastRetry.message contains ${JSON.stringify(LOST_HOST_BUDGET_MESSAGE)})` },
    script: {
      image,
      command: ['bash'],
      source: LOST_HOST_SCRIPT,
      env: Object.entries(env).map(([name, value]) => ({ name, value })),
      resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '128Mi' } },
    },
  };
}

/** Whether a step gets the lost-host watcher: it holds TPU slices of flex-start capacity (queued provisioning). */
export function watchesLostHost(step: Pick<PipelineStep, 'tpu'>): boolean {
  return step.tpu?.capacity === 'flex-start';
}

function stepTemplates(step: PipelineStep, watcherImage: string): Record<string, unknown>[] {
  const t = stepTasks(step.name);
  const ref = { apiVersion: step.manifest.apiVersion, kind: step.manifest.kind, metadata: { name: step.jobSetName, namespace: step.namespace } };
  return [
    ...(watchesLostHost(step) ? [watchTemplate(step, watcherImage)] : []),
    {
      name: t.create,
      retryStrategy: createRetry(),
      resource: { action: 'create', setOwnerReference: true, manifest: JSON.stringify(step.manifest) },
    },
    {
      name: t.wait,
      activeDeadlineSeconds: step.waitMinutes * 60,
      retryStrategy: waitRetry(step),
      resource: { action: 'get', manifest: JSON.stringify(ref), successCondition: SUCCESS_CONDITION, failureCondition: FAILURE_CONDITION },
    },
  ];
}

function dagTasks(steps: readonly PipelineStep[]): Record<string, unknown>[] {
  return steps.flatMap((step, i) => {
    const t = stepTasks(step.name);
    const previous = i > 0 ? stepTasks(steps[i - 1].name).wait : undefined;
    return [
      { name: t.create, template: t.create, ...(previous ? { depends: previous } : {}) },
      // A create that Failed (AlreadyExists: a re-deployed or migrated run) still lets the wait read the JobSet.
      { name: t.wait, template: t.wait, depends: `${t.create}.Succeeded || ${t.create}.Failed` },
      ...(watchesLostHost(step) ? [{ name: t.watch, template: t.watch, depends: `${t.create}.Succeeded || ${t.create}.Failed` }] : []),
    ];
  });
}

/**
 * `{{...}}` tags the workflow controller would substitute inside a step's JobSet: those starting with a workflow
 * variable prefix (workflow/common/common.go `GlobalVarValidWorkflowVariablePrefix`: item. steps. inputs. outputs. pod.
 * workflow. tasks.) or `=` (an expression). Any other tag is written back unchanged (util/template/simple_template.go
 * `simpleReplaceStrict`: "allow unresolved ... write the same string back"), e.g. the eval task's Jinja `{{ m['content'] }}`.
 */
export const ARGO_VARIABLE_PREFIXES = ['item.', 'steps.', 'inputs.', 'outputs.', 'pod.', 'workflow.', 'tasks.', '='] as const;

/** Every tag in the steps' manifests that Argo would rewrite, as `step: {{tag}}`. */
export function substitutedTags(steps: readonly PipelineStep[]): string[] {
  return steps.flatMap((step) =>
    [...JSON.stringify(step.manifest).matchAll(/\{\{(.*?)\}\}/g)]
      .filter((m) => ARGO_VARIABLE_PREFIXES.some((p) => m[1].trim().startsWith(p)))
      .map((m) => `${step.name}: ${m[0]}`),
  );
}

/** Margin of the Workflow's own deadline over the sum of its steps' windows, seconds (the create tasks, the backoffs). */
export const WORKFLOW_DEADLINE_MARGIN_SECONDS = 3600;

/**
 * The Workflow's own deadline (`spec.activeDeadlineSeconds`, enforced by the controller: workflow/controller/
 * operator.go): the sum of every step's window plus a margin. Each step already ends within its window (its wait
 * pod's deadline); this is the backstop should a resource step's pod deadline leave the Workflow Running
 * (argoproj/argo-workflows#13937, open, reported on v3.6.0; not reproduced here).
 */
export function workflowDeadlineSeconds(steps: readonly PipelineStep[]): number {
  return steps.reduce((sum, s) => sum + s.waitMinutes * 60, 0) + WORKFLOW_DEADLINE_MARGIN_SECONDS;
}

export interface WorkflowOptions {
  /** Name of the system node pool, where the step pods run. */
  readonly systemPool: string;
}

/**
 * The pipeline's Workflow: one DAG task pair per step in order, each create carrying the step's JobSet manifest as
 * JSON, exactly the object jobs/ built. `foregroundDeletion` makes deleting the Workflow (a changed spec, a destroy)
 * wait until its JobSets are gone, so a new Workflow never finds the old run's JobSet under the same name.
 */
export function pipelineWorkflow(pipeline: Pipeline, o: WorkflowOptions): Record<string, unknown> {
  const spec = workflowSpec(pipeline, o);
  const name = nameOf(pipeline, spec);
  const problems: string[] = [];
  if (name.length > MAX_WORKFLOW_NAME) {
    problems.push(`Workflow name '${name}' is ${name.length} characters, over the ${MAX_WORKFLOW_NAME} a label value allows: shorten the pipeline name or runId`);
  }
  const tags = substitutedTags(pipeline.steps);
  if (tags.length > 0) problems.push(`the workflow engine would substitute these tags inside the JobSets, change them: ${tags.join('; ')}`);
  if (problems.length > 0) throw new Error(`pipeline ${pipeline.name}: ${problems.join('; ')}`);
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name, namespace: pipeline.namespace, labels: { ...pipeline.labels }, finalizers: ['foregroundDeletion'] },
    spec,
  };
}

/** The Workflow's spec: everything the run does (its name hashes all of it: workflowName). */
function workflowSpec(pipeline: Pipeline, o: WorkflowOptions): Record<string, unknown> {
  // A rehearsal writes its verdict record from an exit handler (jobs/rehearsal-record.ts); other pipelines have none.
  const exit = pipeline.verdictWriter ? verdictExitHandler(pipeline.verdictWriter) : undefined;
  return {
    entrypoint: 'pipeline',
    activeDeadlineSeconds: workflowDeadlineSeconds(pipeline.steps),
    serviceAccountName: WORKFLOW_SERVICE_ACCOUNT,
    nodeSelector: { [NODE_POOL_LABEL]: o.systemPool },
    podGC: { strategy: 'OnPodSuccess' },
    ...(exit ? { onExit: exit.onExit } : {}),
    templates: [{ name: 'pipeline', dag: { tasks: dagTasks(pipeline.steps) } }, ...pipeline.steps.flatMap((s) => stepTemplates(s, pipeline.recipe.imagePins?.[LOST_HOST.image] ?? LOST_HOST.image)), ...(exit?.templates ?? [])],
  };
}

/** The step JobSet manifests inside a Workflow, in DAG order (what the review and the tests read back; not an exit handler's). */
export function workflowJobSets(workflow: Record<string, unknown>): Record<string, unknown>[] {
  const templates = ((workflow.spec as { templates?: unknown[] } | undefined)?.templates ?? []) as Array<{ name?: string; resource?: { action?: string; manifest?: string } }>;
  const steps = templates.filter((t) => t.name !== VERDICT_TEMPLATES.create);
  return steps.filter((t) => t.resource?.action === 'create' && typeof t.resource.manifest === 'string').map((t) => JSON.parse(t.resource!.manifest!));
}
