/**
 * Kueue objects (kueue.x-k8s.io/v1beta2) for the platform, and the Kueue manager configuration.
 *
 * Kueue v0.19 matches a ResourceFlavor on that flavor's own node label keys only
 * (kubernetes-sigs/kueue v0.19.2, pkg/scheduler/flavorassigner/flavorassigner.go, `checkFlavorForPodSets`): a pod
 * whose node selector names none of a flavor's keys matches it. So label keys cannot keep CPU pods off a TPU
 * flavor; a taint can. Each TPU flavor therefore:
 *  - declares `nodeTaints` google.com/tpu=present:NoSchedule (what GKE puts on TPU nodes), which Kueue checks against
 *    the pod's own tolerations (CPU pods have none, so they skip every TPU flavor), and declares no flavor
 *    toleration of that taint (flavor `tolerations` are added to every pod for that check and would let CPU pods
 *    through);
 *  - is one slice shape: accelerator AND topology labels, with the chips, vCPUs and memory of all slices of that
 *    shape as quota, so 2x4 work cannot be admitted against 4x8 quota.
 * The CPU flavor (`cloud.google.com/gke-nodepool: cpu-np`) comes last and holds no TPU quota, so a TPU pod that
 * matches it (its selector names no node pool) never fits there.
 * A flex-start flavor (its pools are queued, jobs/capacity.ts QUEUED_PROVISIONING) also gets a ProvisioningRequest
 * admission check of its own, attached to that flavor only (`admissionChecksStrategy.onFlavors`), and tolerates the
 * taint GKE puts on queued nodes (`cloud.google.com/gke-queued`; that toleration does not tolerate google.com/tpu, so
 * CPU pods still skip the flavor). See `provisioningObjects`.
 * One ClusterQueue with a single resource group covering google.com/tpu, cpu and memory (split groups leave
 * Pathways heads pending), and the LocalQueue pipelines submit to. Pure; the infra stack ships the objects through
 * the local Helm chart charts/kueue-queues and the manager configuration as the Kueue chart's values.
 */
import { Capacity, QUEUED_PROVISIONING, queuedProvisioningOf } from './capacity';
import { allocatable, machineShape } from './machines';
import { NODE_POOL_LABEL } from './jobset';
import { Platform, TpuPoolGroup } from './platform';
import { sliceShapeName, TPU_RESOURCE, TPU_TAINT, TpuSlice } from './tpu';

export const KUEUE_API_VERSION = 'kueue.x-k8s.io/v1beta2';
/** The Kueue integration framework of the only workload kind the pipelines submit (JobSet). */
export const JOBSET_FRAMEWORK = 'jobset.x-k8s.io/jobset';
/** Port Kueue's webhook server listens on (Kueue chart values, `webhook.port`). */
export const KUEUE_WEBHOOK_PORT = 9443;

export interface KueueOptions {
  readonly platform: Platform;
  /** Upper bound of the CPU pool's autoscaler: its nodes' allocatable capacity is the CPU flavor's quota. */
  readonly cpuPoolMaxNodes: number;
}

/** Quota of one TPU slice-shape flavor. */
export interface TpuFlavorQuota {
  readonly flavor: string;
  readonly slice: TpuSlice;
  /** Where the flavor's slices get their VMs (every slice of one shape shares it). */
  readonly capacity: Capacity;
  readonly chips: number;
  readonly cpu: number;
  readonly memoryGi: number;
}

/** Quota numbers, exposed for outputs, the review and tests. */
export interface KueueQuota {
  /** google.com/tpu of all flavors. */
  readonly tpuChips: number;
  readonly tpuFlavors: readonly TpuFlavorQuota[];
  readonly cpuFlavorCpu: number;
  readonly cpuFlavorMemoryGi: number;
}

/** ResourceFlavor name of a TPU slice shape: `tpu-v6e-32`, `tpu-v6e-8-8t`. */
export function tpuFlavorName(slice: TpuSlice): string {
  return `tpu-${sliceShapeName(slice)}`;
}

/** Groups of the same shape merged (two groups of one shape share one flavor and add up). */
function byShape(groups: readonly TpuPoolGroup[]): TpuFlavorQuota[] {
  const out = new Map<string, TpuFlavorQuota>();
  for (const g of groups) {
    const flavor = tpuFlavorName(g.slice);
    const prev = out.get(flavor);
    // One flavor is one admission rule: a shape whose slices were queued and not queued alike could not be admitted
    // right (the check would wait for a request GKE never serves on the fixed pools, or skip the queued ones).
    if (prev && JSON.stringify(prev.capacity) !== JSON.stringify(g.capacity)) {
      throw new Error(
        `TPU flavor ${JSON.stringify(flavor)}: every slice of one shape must share one capacity, got ${JSON.stringify(prev.capacity)} and ` +
          `${JSON.stringify(g.capacity)}; give the shapes different capacities in different topologies, or one capacity`,
      );
    }
    out.set(flavor, {
      flavor,
      slice: g.slice,
      capacity: g.capacity,
      chips: (prev?.chips ?? 0) + g.slice.chips * g.count,
      cpu: (prev?.cpu ?? 0) + g.slice.hostVcpus * g.count,
      memoryGi: (prev?.memoryGi ?? 0) + g.slice.hostMemoryGib * g.count,
    });
  }
  return [...out.values()];
}

/**
 * Whole CPUs of one CPU-pool node the CPU flavor's quota counts (allocatable, rounded down). A Pathways head requests
 * exactly this (jobs/pipeline.ts), so Kueue counts it as one node and never admits more heads than the pool has nodes.
 */
export function cpuQuotaCoresPerNode(machineType: string): number {
  return Math.floor(allocatable(machineShape(machineType, 'cpuPool.machineType')).millicores / 1000);
}

export function kueueQuota(options: KueueOptions): KueueQuota {
  const { platform } = options;
  const free = allocatable(machineShape(platform.cpuPool.machineType, 'cpuPool.machineType'));
  const tpuFlavors = byShape(platform.tpuGroups);
  return {
    tpuChips: tpuFlavors.reduce((sum, f) => sum + f.chips, 0),
    tpuFlavors,
    cpuFlavorCpu: cpuQuotaCoresPerNode(platform.cpuPool.machineType) * options.cpuPoolMaxNodes,
    cpuFlavorMemoryGi: Math.floor(free.bytes / 2 ** 30) * options.cpuPoolMaxNodes,
  };
}

/**
 * The ResourceFlavors (TPU shapes first, CPU last: the order Kueue tries them), each flex-start flavor's
 * ProvisioningRequestConfig and AdmissionCheck, the ClusterQueue and the LocalQueue.
 */
export function kueueObjects(options: KueueOptions): Record<string, unknown>[] {
  const { platform } = options;
  const quota = kueueQuota(options);
  const queued = quota.tpuFlavors.filter((f) => queuedProvisioningOf(f.capacity));
  return [
    ...quota.tpuFlavors.map(tpuFlavor),
    resourceFlavor(platform.cpuFlavor, { nodeLabels: { [NODE_POOL_LABEL]: platform.cpuPool.name } }),
    ...queued.flatMap((f) => provisioningObjects(f)),
    clusterQueue(platform, quota, queued),
    {
      apiVersion: KUEUE_API_VERSION,
      kind: 'LocalQueue',
      metadata: { name: platform.localQueue, namespace: platform.namespace },
      spec: { clusterQueue: platform.clusterQueue },
    },
  ];
}

function resourceFlavor(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: KUEUE_API_VERSION, kind: 'ResourceFlavor', metadata: { name }, spec };
}

/** A TPU shape's flavor: its node labels, the TPU taint, and the queued-node toleration when its slices are queued. */
function tpuFlavor(f: TpuFlavorQuota): Record<string, unknown> {
  return resourceFlavor(f.flavor, {
    nodeLabels: { ...f.slice.nodeSelector },
    nodeTaints: [{ key: TPU_TAINT.key, value: TPU_TAINT.value, effect: 'NoSchedule' }],
    ...(queuedProvisioningOf(f.capacity) ? { tolerations: [{ ...QUEUED_TOLERATION }] } : {}),
  });
}

/** The ClusterQueue: one resource group over TPU chips, CPU and memory, each queued flavor behind its admission check. */
function clusterQueue(platform: Platform, quota: KueueQuota, queued: readonly TpuFlavorQuota[]): Record<string, unknown> {
  return {
    apiVersion: KUEUE_API_VERSION,
    kind: 'ClusterQueue',
    metadata: { name: platform.clusterQueue },
    spec: {
      namespaceSelector: {},
      queueingStrategy: 'BestEffortFIFO',
      preemption: { withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'Never' },
      ...(queued.length > 0
        ? { admissionChecksStrategy: { admissionChecks: queued.map((f) => ({ name: provisioningCheckName(f.flavor), onFlavors: [f.flavor] })) } }
        : {}),
      resourceGroups: [{ coveredResources: [TPU_RESOURCE, 'cpu', 'memory'], flavors: flavorQuotas(platform, quota) }],
    },
  };
}

/** Each TPU flavor's chips, CPU and memory (all of its slices), then the CPU flavor's (no chips). */
function flavorQuotas(platform: Platform, quota: KueueQuota): Array<Record<string, unknown>> {
  return [
    ...quota.tpuFlavors.map((f) => ({
      name: f.flavor,
      resources: [
        { name: TPU_RESOURCE, nominalQuota: f.chips },
        { name: 'cpu', nominalQuota: f.cpu },
        { name: 'memory', nominalQuota: `${f.memoryGi}Gi` },
      ],
    })),
    {
      name: platform.cpuFlavor,
      resources: [
        { name: TPU_RESOURCE, nominalQuota: 0 },
        { name: 'cpu', nominalQuota: quota.cpuFlavorCpu },
        { name: 'memory', nominalQuota: `${quota.cpuFlavorMemoryGi}Gi` },
      ],
    },
  ];
}

/** The controller of Kueue's built-in ProvisioningRequest admission check (apis/kueue/v1beta2 provisioningrequestconfig_types.go). */
export const PROVISIONING_CONTROLLER = 'kueue.x-k8s.io/provisioning-request';

/** The pod toleration of GKE's queued-node taint (jobs/capacity.ts QUEUED_PROVISIONING), as a flavor adds it. */
export const QUEUED_TOLERATION = {
  key: QUEUED_PROVISIONING.taint.key,
  operator: 'Equal',
  value: QUEUED_PROVISIONING.taint.value,
  effect: QUEUED_PROVISIONING.taint.effect,
} as const;

/**
 * How often Kueue asks GKE again for a flex-start slice that GKE refused (ProvisioningRequest `Failed`, or
 * `BookingExpired` before the workload was admitted), set explicitly at Kueue v0.19.2's own defaults
 * (apis/kueue/v1beta2/provisioningrequestconfig_types.go `retryStrategy`: 3, 60 s, 1800 s). From
 * pkg/controller/admissionchecks/provisioning/controller.go `syncCheckStates`: attempt n <= backoffLimitCount sets the
 * check to Retry with `requeueAfterSeconds` = base x 2^(n-1) capped at max (pkg/workload/admissionchecks.go
 * `UpdateAdmissionCheckRequeueState`); the workload controller then evicts the workload (the quota goes back,
 * pkg/controller/core/workload_controller.go `reconcileCheckBasedEviction`) and it queues again after the backoff, with a
 * new request `<workload>-<check>-<n+1>`. Attempt 4 failing sets the check Rejected, and the workload is deactivated
 * (reason AdmissionCheck): Kueue deletes the JobSet DEACTIVATED_RETENTION_MINUTES later and the Workflow ends Failed (jobs/argo.ts). These
 * evictions do not count toward waitForPodsReady's requeues (no `UpdateRequeueState`).
 */
export const PROVISIONING_RETRY = { backoffLimitCount: 3, backoffBaseSeconds: 60, backoffMaxSeconds: 1800 } as const;

/** Name of a flavor's AdmissionCheck and of the ProvisioningRequestConfig it reads: `tpu-v6e-32-provisioning`. */
export function provisioningCheckName(flavor: string): string {
  return `${flavor}-provisioning`;
}

/**
 * The ProvisioningRequestConfig and AdmissionCheck of one queued (flex-start) flavor, as GKE documents flex-start with
 * Kueue and Cluster Toolkit writes them for TPUs (cluster-toolkit v1.95.0 examples/gke-consumption-options/
 * dws-flex-start-queued-provisioning/tpu-dws-queues.yaml.tftpl). Kueue v0.19.2 (pkg/controller/admissionchecks/
 * provisioning/controller.go) creates one ProvisioningRequest per workload that holds quota on the flavor:
 * - `managedResources: [google.com/tpu]`: only the pod sets that request TPUs go into it (`requiredPodSets`,
 *   `podUses`); a Pathways head (cpu-np) does not, and a workload with no TPU pod set needs no request (`reqIsNeeded`);
 * - `parameters` reach the request as they are (`parametersKueueToProvisioning`): `maxRunDurationSeconds`, the
 *   flex-start VMs' life (GKE's default is 7 days; the pool's own `max_run_duration` says the same), and `tpu-topology`,
 *   the slice's topology, which Cluster Toolkit's TPU blueprints pass (its meaning is not documented in what was read);
 * - the check is Ready, and the workload Admitted (pkg/workload/admissionchecks.go `SyncAdmittedCondition`), only when
 *   GKE sets the request Provisioned; `podSetUpdates` then give the pods the consume-provisioning-request annotations.
 * No `podSetMergePolicy`: a workload has one TPU pod set per replicated job, and nothing to merge.
 */
export function provisioningObjects(f: Pick<TpuFlavorQuota, 'flavor' | 'slice' | 'capacity'>): Record<string, unknown>[] {
  if (f.capacity.type !== 'flex-start') {
    throw new Error(`TPU flavor ${JSON.stringify(f.flavor)}: a ProvisioningRequest admission check needs capacity 'flex-start', got ${JSON.stringify(f.capacity.type)}`);
  }
  const name = provisioningCheckName(f.flavor);
  return [
    {
      apiVersion: KUEUE_API_VERSION,
      kind: 'ProvisioningRequestConfig',
      metadata: { name },
      spec: {
        provisioningClassName: QUEUED_PROVISIONING.className,
        managedResources: [TPU_RESOURCE],
        parameters: { maxRunDurationSeconds: String(f.capacity.maxRunDurationSeconds), 'tpu-topology': f.slice.topology },
        retryStrategy: { ...PROVISIONING_RETRY },
      },
    },
    {
      apiVersion: KUEUE_API_VERSION,
      kind: 'AdmissionCheck',
      metadata: { name },
      spec: {
        controllerName: PROVISIONING_CONTROLLER,
        parameters: { apiGroup: 'kueue.x-k8s.io', kind: 'ProvisioningRequestConfig', name },
      },
    },
  ];
}

/**
 * Kueue's all-or-nothing admission (`waitForPodsReady`), set explicitly. At v0.19.2 the v1beta2 Configuration already
 * defaults it ON (apis/config/v1beta2/defaults.go: timeout 30m, recoveryTimeout = timeout, requeuing `Eviction`
 * timestamp, backoff 60 s doubling to 3600 s, and backoffLimitCount null = requeued forever;
 * pkg/util/waitforpodsready `Enabled` unless the DisableWaitForPodsReady gate), so a never-ready workload was
 * already evicted after 30 minutes, and then readmitted and evicted again without end. Here the count is bounded:
 * - timeout 20 min: longer than a healthy start (CPU pool scale-up ~5 min, pulling the ~10 GB post-training image and
 *   the Pathways images, TPU runtime start) yet short enough that quota is back long before any deploy wait ends;
 *   within the issue's bound of 30 minutes.
 * - recoveryTimeout "0s", i.e. none: pkg/controller/core/core.go `waitForPodsReady` keeps a recovery timeout only when
 *   it is > 0 (a pointer to 0s survives defaults.go's `cmp.Or`, which fills in `timeout` only for a missing key; validation
 *   rejects only negative values), so `admittedNotReadyWorkload` never times out a workload whose PodsReady went from
 *   True to False (reason WaitForRecovery, pkg/controller/jobframework/reconciler.go `generatePodsReadyCondition`).
 *   Every JobSet restart and every in-place worker loss keeps the same Workload, and Kueue never clears
 *   `status.requeueState.count` while it stays active, so with a recovery timeout each slow recovery would spend one
 *   requeue of the whole run (3 x 20 min + backoffs: one outage over ~87 min deactivated the training). A recovery is
 *   bounded instead by the Jobs' own `activeDeadlineSeconds` and the JobSet's `maxRestarts`; on flex-start, one whose
 *   pods have no node (a lost host of a queued slice) is ended by the lost-host watcher (jobs/lost-host.ts), which
 *   re-requests the slice. recoveryTimeout is one value for the whole manager, so it cannot do that for flex-start only.
 * - backoffLimitCount 3, backoff 60 s doubling (60, 120, 240 s): after 3 requeues the workload is deactivated
 *   (`spec.active=false`, reason `RequeuingLimitExceeded`, pkg/controller/core/workload_controller.go
 *   `triggerDeactivation`) and the JobSet stays suspended; `npm run status` says so and how to retry. Only workloads
 *   that never became ready (WaitForStart) spend these requeues.
 * An eviction sets the Workload's condition Evicted=True with reason `PodsReadyTimeout` and increments
 * `status.requeueState.count` (`reconcileNotReadyTimeout`, workload.UpdateRequeueState).
 */
export const PODS_READY = { timeoutMinutes: 20, recoveryTimeoutSeconds: 0, backoffLimitCount: 3, backoffBaseSeconds: 60, backoffMaxSeconds: 3600 } as const;

/**
 * How long Kueue keeps a JobSet whose Workload it deactivated (RequeuingLimitExceeded, a rejected admission check)
 * before deleting it: `objectRetentionPolicies.workloads.afterDeactivatedByKueue` (kubernetes-sigs/kueue v0.19.2
 * apis/config/v1beta2/configuration_types.go; GA since 0.17, pkg/features/kube_features.go;
 * pkg/controller/jobframework/reconciler.go `handleWorkloadAfterDeactivatedPolicy` deletes the job once the Evicted
 * condition, reason `Deactivated...`, is this old, and only while the Workload stays inactive). A deactivated JobSet
 * otherwise stays suspended with no `status.terminalState` and nothing on the JobSet tells it from a queued one, so
 * this deletion is what ends the pipeline's wait task (jobs/argo.ts: the JobSet is gone, a final message). The minutes
 * before it leave time to read the reason (`npm run status`) or re-activate the Workload, which cancels the deletion.
 */
export const DEACTIVATED_RETENTION_MINUTES = 10;

/** The longest a workload can be held by Kueue's requeuing of never-ready pods, minutes: every admission timing out plus every backoff. */
export function podsReadyRequeueMinutes(): number {
  let seconds = 0;
  for (let n = 1; n <= PODS_READY.backoffLimitCount; n++) {
    seconds += PODS_READY.timeoutMinutes * 60 + Math.min(PODS_READY.backoffBaseSeconds * 2 ** (n - 1), PODS_READY.backoffMaxSeconds);
  }
  return Math.ceil(seconds / 60) + PODS_READY.timeoutMinutes;
}

/**
 * The Kueue manager configuration (`config.kueue.x-k8s.io/v1beta2` Configuration), passed as the chart's
 * `managerConfig.controllerManagerConfigYaml` (JSON is YAML). It keeps the chart's v0.19.2 defaults
 * (charts/kueue/values.yaml) except `waitForPodsReady` (PODS_READY), `objectRetentionPolicies` (DEACTIVATED_RETENTION_MINUTES) and `integrations.frameworks`, which lists only the frameworks in use: the chart
 * renders the pod, deployment and statefulset mutating webhooks with `failurePolicy: Fail` exactly when those
 * frameworks are listed (charts/kueue/templates/webhook/manifests.yaml), i.e. cluster-wide webhooks that block
 * every Pod/Deployment/StatefulSet whenever Kueue is unreachable. Frameworks not listed get a no-op webhook
 * (pkg/controller/jobframework/setup.go).
 */
export function kueueManagerConfig(frameworks: readonly string[] = [JOBSET_FRAMEWORK]): Record<string, unknown> {
  return {
    apiVersion: 'config.kueue.x-k8s.io/v1beta2',
    kind: 'Configuration',
    health: { healthProbeBindAddress: ':8081' },
    metrics: { bindAddress: ':8443' },
    webhook: { port: KUEUE_WEBHOOK_PORT },
    leaderElection: { leaderElect: true, resourceName: 'c1f6bfd2.kueue.x-k8s.io' },
    controller: {
      groupKindConcurrency: {
        'Job.batch': 5,
        Pod: 5,
        'Workload.kueue.x-k8s.io': 10,
        'LocalQueue.kueue.x-k8s.io': 5,
        'ClusterQueue.kueue.x-k8s.io': 5,
        'ResourceFlavor.kueue.x-k8s.io': 1,
      },
    },
    clientConnection: { qps: 300, burst: 500 },
    waitForPodsReady: {
      timeout: `${PODS_READY.timeoutMinutes}m`,
      recoveryTimeout: `${PODS_READY.recoveryTimeoutSeconds}s`,
      blockAdmission: false,
      requeuingStrategy: {
        timestamp: 'Eviction',
        backoffLimitCount: PODS_READY.backoffLimitCount,
        backoffBaseSeconds: PODS_READY.backoffBaseSeconds,
        backoffMaxSeconds: PODS_READY.backoffMaxSeconds,
      },
    },
    objectRetentionPolicies: { workloads: { afterDeactivatedByKueue: `${DEACTIVATED_RETENTION_MINUTES}m` } },
    integrations: { frameworks: [...frameworks] },
  };
}

/**
 * Helm values of the Kueue chart: the manager configuration and, with `systemPool`, the controller on that pool
 * (kubernetes-sigs/kueue v0.19.2 charts/kueue/values.yaml `controllerManager.nodeSelector`, default {}: anywhere,
 * a TPU or CPU node included, where a TPU pool's repair or a CPU pool scaled to zero would take the webhook down).
 */
export function kueueChartValues(frameworks?: readonly string[], systemPool?: string): Record<string, unknown> {
  return {
    managerConfig: { controllerManagerConfigYaml: JSON.stringify(kueueManagerConfig(frameworks), null, 2) },
    ...(systemPool ? { controllerManager: { nodeSelector: { [NODE_POOL_LABEL]: systemPool } } } : {}),
  };
}
