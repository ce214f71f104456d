/**
 * Pure JobSet builders (`jobset.x-k8s.io/v1alpha2`): Pathways head + workers, multi-host JAX, and a single CPU pod,
 * plus the pod pieces every pipeline pod shares (service account, Kueue queue label, HF-token volume, failure
 * policy, TPU node selector and toleration from jobs/tpu.ts). Pure; no cdktf.
 *
 * Every field JobSet's webhook would default and the CRD marks as required (failure rule names, completionMode,
 * network, success/startup policy, pod restartPolicy) is set explicitly, and `compact()` drops empty/undefined
 * values so manifests contain no nulls. Shapes follow `gcluster job submit` v1.103 (../shared/reference/
 * anchor-cluster-toolkit.md §3.5/3.6) minus `ttlSecondsAfterFinished` (DESIGN: a TTL makes Terraform re-create and
 * re-run a finished JobSet) and minus `privileged` (the cgroup hack it served is a real memory limit here).
 */
import { CoordinatorShape, ReplicatedJobShape } from './names';
import { hfTokenVolume, hfTokenVolumeMount } from './secrets';
import { TPU_TOLERATION, TpuSlice } from './tpu';
import { ContainerResources, EnvMap } from './recipes/types';

export const JOBSET_API_VERSION = 'jobset.x-k8s.io/v1alpha2';
export const QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';
export const EXCLUSIVE_TOPOLOGY = 'alpha.jobset.sigs.k8s.io/exclusive-topology';
export const NODE_POOL_LABEL = 'cloud.google.com/gke-nodepool';

/**
 * Helm values of the JobSet chart: its controller (and webhook) on the system pool (kubernetes-sigs/jobset v0.12.0
 * charts/jobset/values.yaml `controller.nodeSelector`, default {}; templates/controller/deployment.yaml writes it).
 */
export function jobsetChartValues(systemPool: string): Record<string, unknown> {
  return { controller: { nodeSelector: { [NODE_POOL_LABEL]: systemPool } } };
}
/**
 * Labels the JobSet controller (v0.12, pkg/constants) and the Job controller put on every pod of a JobSet; the
 * status CLI and `logsCommand` select pods by them.
 */
export const JOBSET_POD_LABELS = {
  jobSetName: 'jobset.sigs.k8s.io/jobset-name',
  replicatedJob: 'jobset.sigs.k8s.io/replicatedjob-name',
  jobIndex: 'jobset.sigs.k8s.io/job-index',
  completionIndex: 'batch.kubernetes.io/job-completion-index',
} as const;
/** Name of the container that runs MaxText in every step (the tutorials' `kubectl logs -c workload-container`). */
export const MAIN_CONTAINER = 'workload-container';

/** Replicated job names. */
export const RJOB = { head: 'pathways-head', worker: 'worker', slice: 'slice', convert: 'convert' } as const;

/**
 * Pathways images. Only tags that can be shown to exist are used: `latest` is what the tutorials run (`gcluster job
 * submit --pathways` and xpk default to it), and what MaxText's own Pathways CI runs at maxtext-v0.2.4
 * (.github/workflows/run_pathways_tests.yml). No `jax-0.11.0` tag (the JAX of tpu_post_training:0.2.4) appears in any
 * upstream source, and a missing tag would sit in ImagePullBackOff holding the slice until the deploy's wait ends.
 * `latest` moves, so it is pulled Always and the plan review flags it: pin a digest you have checked with
 * `gcloud artifacts docker images describe <image>:latest` in the recipe (`pathways.proxyImage` / `serverImage`).
 */
export const PATHWAYS_IMAGES = {
  proxy: 'us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server:latest',
  server: 'us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:latest',
} as const;
export const PATHWAYS_PORTS = { proxy: 29000, resourceManager: 29001, worker: 29005 } as const;

/** Head pod container resources (gcluster's Pathways template). */
export const PATHWAYS_DEFAULTS: Readonly<Record<'proxy' | 'resourceManager' | 'workload', ContainerResources>> = {
  proxy: { limits: { cpu: '16', memory: '100Gi' } },
  resourceManager: { limits: { cpu: '8', memory: '32Gi' } },
  workload: { requests: { cpu: '2', memory: '8Gi' }, limits: { cpu: '24', memory: '100Gi' } },
};

/**
 * Exit codes that mean "the infrastructure stopped me" when a pod runs alone (a conversion, a single-host
 * training): 137 (SIGKILL: preemption, node loss, OOM kill), 143 (SIGTERM: maintenance, drain), 42 (the xpk/libtpu
 * convention for a retryable TPU runtime error). Any other non-zero exit of such a pod's main container is an
 * application error and fails the JobSet at once (see ExitPolicy `failFast`).
 */
export const INFRASTRUCTURE_EXIT_CODES: readonly number[] = [42, 137, 143];

/**
 * The cluster autoscaler's per-pod opt-out of scale-down (GKE cluster autoscaler FAQ, "What types of pods can
 * prevent CA from removing a node?"): every pipeline pod carries `"false"`, so a conversion or a Pathways head on the
 * autoscaled CPU pool is never evicted to consolidate nodes (it would cost the step, not just a reschedule).
 */
export const SAFE_TO_EVICT_ANNOTATION = 'cluster-autoscaler.kubernetes.io/safe-to-evict';

/**
 * How a replicated job's failures end (Kubernetes Job controller pkg/controller/job: pod failure policy rules in order,
 * FailJob -> reason PodFailurePolicy, Count/no match -> failed pods > backoffLimit -> BackoffLimitExceeded; with
 * restartPolicy OnFailure container restarts >= backoffLimit -> BackoffLimitExceeded):
 * - `failFast`: a pod that runs alone (its exit code is its own): restartPolicy Never, backoffLimit 0, pod failure
 *   policy Count on DisruptionTarget, FailJob on any other exit code but INFRASTRUCTURE_EXIT_CODES. An application
 *   error fails the JobSet at once; a lost host restarts it.
 * - `restartJobSet`: one process of a program that spans hosts (multi-host JAX, the Pathways head's JAX client): when
 *   a host is lost, its peers exit 1 on the coordination error, often before the lost pod is marked disrupted, so an
 *   exit code cannot tell a lost host from an application error. No pod failure policy: any failure is
 *   BackoffLimitExceeded (backoffLimit 0), which matches no FailJobSet rule, so the JobSet restarts (bounded by
 *   maxRestarts) and resumes from its newest checkpoint; an application error ends it after maxRestarts + 1 attempts.
 *   This is how xpk runs the Pathways head (src/xpk/templates/pathways_workload_create.yaml.j2: no podFailurePolicy,
 *   backoffLimit 0, JobSet failurePolicy maxRestarts).
 * - `inPlace`: Pathways workers (restartPolicy OnFailure, backoffLimit 4 x pods): a crashed worker restarts and
 *   rejoins the resource manager; the head decides the run.
 */
export type ExitPolicy = 'failFast' | 'restartJobSet' | 'inPlace';

type Obj = Record<string, unknown>;

/** Drops undefined, empty arrays and empty objects, recursively; manifests never carry nulls or `{}`. */
export function compact<T>(value: T): T {
  if (Array.isArray(value)) {
    return value.map((v) => compact(v)).filter((v) => v !== undefined) as unknown as T;
  }
  if (value !== null && typeof value === 'object') {
    const out: Obj = {};
    for (const [k, v] of Object.entries(value as Obj)) {
      const c = compact(v);
      if (c === undefined || c === null) continue;
      if (Array.isArray(c) && c.length === 0) continue;
      if (typeof c === 'object' && !Array.isArray(c) && Object.keys(c as Obj).length === 0) continue;
      out[k] = c;
    }
    return out as T;
  }
  return value;
}

/** `Always` for `:latest` or untagged images, else `IfNotPresent`. */
export function pullPolicy(image: string): string {
  const tag = image.includes('@') ? 'digest' : (image.split('/').pop() ?? '').split(':')[1];
  return tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function fieldEnv(name: string, fieldPath: string): Obj {
  return { name, valueFrom: { fieldRef: { fieldPath } } };
}
/** Merges env lists by name: later values replace earlier ones in place; new names are appended. */
function mergeEnv(base: Obj[], extra: EnvMap): Obj[] {
  const out = [...base];
  for (const [name, value] of Object.entries(extra)) {
    const i = out.findIndex((e) => e.name === name);
    if (i >= 0) out[i] = { name, value };
    else out.push({ name, value });
  }
  return out;
}
function resources(r: ContainerResources | undefined): Obj | undefined {
  return r ? { requests: r.requests, limits: r.limits } : undefined;
}

/** Settings every pod of a pipeline shares. */
export interface PodCommon {
  /** Pipeline (stack) name: names the SecretProviderClass the token volume uses. */
  readonly pipeline: string;
  /** Kubernetes service account (Workload Identity). */
  readonly serviceAccountName: string;
  /** Labels on the JobSet and every pod (the Kueue queue label among them). */
  readonly labels: Readonly<Record<string, string>>;
  /** Pod annotations beyond the autoscaler opt-out (e.g. `gke-gcsfuse/volumes`). @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** Metadata and failure settings of one JobSet. */
export interface JobSetCommon {
  readonly name: string;
  readonly namespace: string;
  readonly pod: PodCommon;
  /** JobSet restarts on infrastructure failures. */
  readonly maxRestarts: number;
  /**
   * How long one attempt may run: every Job's `activeDeadlineSeconds` (counted from the Job's start, i.e. from
   * Kueue's admission; reset when Kueue suspends it). Past it the Job fails with DeadlineExceeded and the JobSet fails.
   */
  readonly activeDeadlineSeconds: number;
}

/** What a builder returns: the manifest and the replicated job shapes (for name checks and logs). */
export interface BuiltJobSet {
  readonly manifest: Obj;
  readonly replicatedJobs: readonly ReplicatedJobShape[];
  /** Replicated job whose pod 0/0 runs the step's main container (for `kubectl logs`). */
  readonly mainReplicatedJob: string;
  /** The coordinator pod. @default - none */
  readonly coordinator?: CoordinatorShape;
}

/**
 * Job failure reasons that fail the JobSet at once: an application exit code of a pod that runs alone
 * (PodFailurePolicy, only `failFast` Jobs produce it) and an attempt that ran past its deadline (DeadlineExceeded:
 * restarting it would run past the deploy's wait). Any other reason (BackoffLimitExceeded after a disruption, an
 * infrastructure exit code, or any exit of a `restartJobSet` pod) matches no rule, and JobSet's default action
 * restarts the JobSet while restartsCountTowardsMax < maxRestarts, then fails it with ReachedMaxRestarts
 * (jobset v0.12.0 pkg/controllers/failure_policy.go `findFirstFailedPolicyRuleAndJob`, `ruleIsApplicable`,
 * `restartJobSetActionApplier`).
 */
export const FAIL_JOBSET_REASONS: readonly string[] = ['PodFailurePolicy', 'DeadlineExceeded'];

/** JobSet failure policy: application errors and deadlines fail the JobSet, everything else restarts it. */
export function jobSetFailurePolicy(maxRestarts: number): Obj {
  return {
    maxRestarts,
    restartStrategy: 'BlockingRecreate',
    rules: [{ name: 'FailJobSetOnApplicationErrorOrDeadline', action: 'FailJobSet', onJobFailureReasons: [...FAIL_JOBSET_REASONS] }],
  };
}

/**
 * Job pod failure policy of a `failFast` pod: a disrupted pod (preemption, maintenance, drain) counts against
 * backoffLimit 0, so the Job fails with BackoffLimitExceeded and the JobSet restarts it; an application exit code
 * fails the Job with reason PodFailurePolicy, which `jobSetFailurePolicy` turns into FailJobSet. Requires pod
 * restartPolicy Never.
 */
export function podFailurePolicy(containerName: string): Obj {
  return {
    rules: [
      { action: 'Count', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      {
        action: 'FailJob',
        onExitCodes: { containerName, operator: 'NotIn', values: [...INFRASTRUCTURE_EXIT_CODES] },
      },
    ],
  };
}

function podMetadata(pod: PodCommon): Obj {
  return { labels: { ...pod.labels }, annotations: { ...pod.annotations, [SAFE_TO_EVICT_ANNOTATION]: 'false' } };
}
function baseJobSet(common: JobSetCommon, spec: Obj): Obj {
  return compact({
    apiVersion: JOBSET_API_VERSION,
    kind: 'JobSet',
    metadata: { name: common.name, namespace: common.namespace, labels: { ...common.pod.labels } },
    spec: {
      network: { enableDNSHostnames: true, publishNotReadyAddresses: true },
      failurePolicy: jobSetFailurePolicy(common.maxRestarts),
      ...spec,
    },
  });
}

/** The main (MaxText) container. */
export interface MainContainer {
  readonly image: string;
  readonly script: string;
  /** Container env. @default - none */
  readonly env?: EnvMap;
  /** Requests and limits. @default - none (the TPU request is added on TPU pods) */
  readonly resources?: ContainerResources;
  /** More volumes and their container mounts, after the token's (the pipeline's files, jobs/recipe-files.ts). @default - none */
  readonly extraVolumes?: ReadonlyArray<{ readonly volume: Obj; readonly mount: Obj }>;
}

const extraMounts = (c: MainContainer): Obj[] => (c.extraVolumes ?? []).map((v) => v.mount);
const extraVolumes = (c: MainContainer): Obj[] => (c.extraVolumes ?? []).map((v) => v.volume);

function mainContainer(c: MainContainer, extraEnv: Obj[] = [], extra: Obj = {}): Obj {
  return {
    name: MAIN_CONTAINER,
    image: c.image,
    imagePullPolicy: pullPolicy(c.image),
    command: ['/bin/bash', '-c', c.script],
    env: mergeEnv(extraEnv, c.env ?? {}),
    resources: resources(c.resources),
    volumeMounts: [hfTokenVolumeMount()],
    ...extra,
  };
}

/** TPU pod placement: slice node selector, TPU toleration, host network, chips per VM. */
function tpuPodSpec(slice: TpuSlice): Obj {
  return {
    nodeSelector: { ...slice.nodeSelector },
    tolerations: [{ ...TPU_TOLERATION }],
    hostNetwork: true,
    dnsPolicy: 'ClusterFirstWithHostNet',
    terminationGracePeriodSeconds: 30,
  };
}

/** What varies between the replicated jobs this project builds. */
interface ReplicatedJobInput {
  readonly name: string;
  /** Jobs of this replicated job (slices). */
  readonly replicas: number;
  /** Pods per Job (VMs per slice, or 1). */
  readonly pods: number;
  /** Node label whose value a Job gets to itself. @default - none */
  readonly exclusiveTopology?: string;
  /**
   * How the Job's failures end (ExitPolicy). Pathways workers restart in place (restartPolicy OnFailure, backoffLimit
   * 4 x pods), as xpk (src/xpk/templates/pathways_workload_create.yaml.j2) and the PathwaysJob controller (NumVMs*4) run them.
   */
  readonly exitPolicy: ExitPolicy;
  /** Pod spec fields beyond the service account and restart policy. */
  readonly podSpec: Obj;
}

/** Container restarts in place a Pathways worker Job allows per pod (xpk and PathwaysJob: 4 x VMs per Job). */
export const PATHWAYS_WORKER_RESTARTS_PER_POD = 4;

/**
 * One replicated job of indexed Jobs, the pipeline's pod labels and service account, and the attempt's deadline.
 * `failFast` and `restartJobSet` pods run once (backoffLimit 0, restartPolicy Never: retries are the JobSet's, see
 * failurePolicy; a podFailurePolicy requires Never); `inPlace` pods restart in place (OnFailure).
 */
function replicatedJob(common: JobSetCommon, r: ReplicatedJobInput): Obj {
  const once = r.exitPolicy !== 'inPlace';
  return {
    name: r.name,
    replicas: r.replicas,
    template: {
      metadata: r.exclusiveTopology ? { annotations: { [EXCLUSIVE_TOPOLOGY]: r.exclusiveTopology } } : undefined,
      spec: {
        completionMode: 'Indexed',
        parallelism: r.pods,
        completions: r.pods,
        backoffLimit: once ? 0 : PATHWAYS_WORKER_RESTARTS_PER_POD * r.pods,
        activeDeadlineSeconds: common.activeDeadlineSeconds,
        podFailurePolicy: r.exitPolicy === 'failFast' ? podFailurePolicy(MAIN_CONTAINER) : undefined,
        template: {
          metadata: podMetadata(common.pod),
          spec: {
            serviceAccountName: common.pod.serviceAccountName,
            restartPolicy: once ? 'Never' : 'OnFailure',
            ...r.podSpec,
          },
        },
      },
    },
  };
}

/** Volumes and mounts a single-host TPU pod adds to the token volume (the eval step's bucket mount). */
export interface PodStorage {
  readonly volumes: readonly Obj[];
  readonly volumeMounts: readonly Obj[];
}

/**
 * One pod on one single-host TPU VM, every chip of it, on the pod network (not the host's: one host needs no
 * cross-host TPU traffic, as in Google's single-host vLLM tutorial and tpu-inference's GKE example), that runs alone
 * (`failFast`): the eval step's vLLM servers.
 */
export function singleHostTpuJobSet(common: JobSetCommon, main: MainContainer, slice: TpuSlice, storage: PodStorage): BuiltJobSet {
  if (slice.multiHost) throw new Error(`singleHostTpuJobSet needs a one-VM slice, got ${slice.machineType} ${slice.topology}`);
  const manifest = baseJobSet(common, {
    successPolicy: { operator: 'All' },
    startupPolicy: { startupPolicyOrder: 'AnyOrder' },
    replicatedJobs: [
      replicatedJob(common, {
        name: RJOB.slice,
        replicas: 1,
        pods: 1,
        exitPolicy: 'failFast',
        podSpec: {
          nodeSelector: { ...slice.nodeSelector },
          tolerations: [{ ...TPU_TOLERATION }],
          terminationGracePeriodSeconds: 30,
          containers: [
            mainContainer(main, [], {
              resources: { ...resources(main.resources), limits: { ...main.resources?.limits, ...slice.podResources } },
              volumeMounts: [DSHM_MOUNT, hfTokenVolumeMount(), ...storage.volumeMounts],
            }),
          ],
          volumes: [DSHM, hfTokenVolume(common.pod.pipeline), ...storage.volumes],
        },
      }),
    ],
  });
  return { manifest, replicatedJobs: [{ name: RJOB.slice, replicas: 1, parallelism: 1 }], mainReplicatedJob: RJOB.slice };
}

/** A single pod on a CPU node pool (conversions). */
export function cpuPodJobSet(common: JobSetCommon, main: MainContainer, nodePool: string): BuiltJobSet {
  const manifest = baseJobSet(common, {
    successPolicy: { operator: 'All' },
    startupPolicy: { startupPolicyOrder: 'AnyOrder' },
    replicatedJobs: [
      replicatedJob(common, {
        name: RJOB.convert,
        replicas: 1,
        pods: 1,
        exitPolicy: 'failFast',
        podSpec: {
          nodeSelector: { [NODE_POOL_LABEL]: nodePool },
          containers: [mainContainer(main)],
          volumes: [hfTokenVolume(common.pod.pipeline)],
        },
      }),
    ],
  });
  return {
    manifest,
    replicatedJobs: [{ name: RJOB.convert, replicas: 1, parallelism: 1 }],
    mainReplicatedJob: RJOB.convert,
  };
}

/**
 * Multi-host JAX (McJAX): one indexed replicated job per slice, one pod per TPU VM, DNS hostnames so GKE's TPU
 * webhook can inject TPU_WORKER_ID / TPU_WORKER_HOSTNAMES, one slice per node pool. When the pods are one JAX
 * program on more than one host (`onePerHostProgram`, training), a lost host makes its peers exit 1, so they run
 * `restartJobSet`; pods that each run on their own (a conversion where index 0 works and the rest exit 0) and a
 * single-host program run `failFast`.
 */
export function multiHostJaxJobSet(
  common: JobSetCommon,
  main: MainContainer,
  slice: TpuSlice,
  slices: number,
  onePerHostProgram: boolean,
): BuiltJobSet {
  const manifest = baseJobSet(common, {
    successPolicy: { operator: 'All' },
    startupPolicy: { startupPolicyOrder: 'AnyOrder' },
    replicatedJobs: [
      replicatedJob(common, {
        name: RJOB.slice,
        replicas: slices,
        pods: slice.vms,
        exclusiveTopology: NODE_POOL_LABEL,
        exitPolicy: onePerHostProgram && slices * slice.vms > 1 ? 'restartJobSet' : 'failFast',
        podSpec: {
          ...tpuPodSpec(slice),
          containers: [
            mainContainer(main, [], {
              resources: { ...resources(main.resources), limits: { ...main.resources?.limits, ...slice.podResources } },
              volumeMounts: [DSHM_MOUNT, hfTokenVolumeMount(), ...extraMounts(main)],
            }),
          ],
          volumes: [DSHM, hfTokenVolume(common.pod.pipeline), ...extraVolumes(main)],
        },
      }),
    ],
  });
  return {
    manifest,
    replicatedJobs: [{ name: RJOB.slice, replicas: slices, parallelism: slice.vms }],
    mainReplicatedJob: RJOB.slice,
  };
}

/** Pathways-specific inputs. */
export interface PathwaysInput {
  readonly slice: TpuSlice;
  readonly slices: number;
  /** `--gcs_scratch_location` (gs://). */
  readonly scratch: string;
  /** Node pool of the head pod. */
  readonly headNodePool: string;
  readonly proxyEnv: EnvMap;
  readonly serverEnv: EnvMap;
  readonly workerEnv: EnvMap;
  /** @default PATHWAYS_IMAGES.proxy */
  readonly proxyImage?: string;
  /** @default PATHWAYS_IMAGES.server */
  readonly serverImage?: string;
}

const COORDINATOR = "metadata.labels['jobset.sigs.k8s.io/coordinator']";
/**
 * A memory-backed /dev/shm for pods that run JAX/vLLM on the TPU VM: the container runtime's default is 64 MiB, which
 * vLLM's and JAX's shared-memory transfers exhaust (xpk mounts the same emptyDir `medium: Memory` on every workload
 * pod, src/xpk/templates). It counts against the pod's memory like any tmpfs.
 */
const DSHM = { name: 'dshm', emptyDir: { medium: 'Memory' } };
const DSHM_MOUNT = { name: 'dshm', mountPath: '/dev/shm' };
const ABSL = { ABSL_FLAGS: '--pathways_pipe_unreachable_timeout=60s' };
const SHARED_TMP = { name: 'shared-tmp', hostPath: { path: '/tmp', type: 'DirectoryOrCreate' } };
const SHARED_TMP_MOUNT = { name: 'shared-tmp', mountPath: '/tmp' };

/** The three head containers' resources (the fit check in jobs/validate.ts sums them). */
export function pathwaysHeadResources(workload: ContainerResources | undefined): ContainerResources[] {
  return [PATHWAYS_DEFAULTS.proxy, PATHWAYS_DEFAULTS.resourceManager, workload ?? PATHWAYS_DEFAULTS.workload];
}

/**
 * Pathways as a plain JobSet (what gcluster --pathways and xpk >= 1.8 emit): `pathways-head` (1 pod on the CPU
 * pool; proxy and resource manager as native sidecars; the workload container talks to the proxy through
 * JAX_BACKEND_TARGET) and `worker` (`pathways-worker`, one replicated job per slice, one pod per VM, exclusive per
 * node pool). Coordinator = head, startup InOrder, success = head succeeded.
 *
 * Workers run without a podFailurePolicy and restart in place (OnFailure, backoffLimit 4 x VMs): a worker that crashes
 * comes back and rejoins the resource manager; only a Job that exhausts its backoff fails and restarts the JobSet
 * (bounded by maxRestarts). The head runs `restartJobSet` as xpk runs it: when a worker's host is lost the JAX client
 * exits 1, its Job fails BackoffLimitExceeded and the whole JobSet is recreated (restartStrategy BlockingRecreate),
 * resuming from the newest checkpoint; an application error ends it after maxRestarts + 1 attempts.
 */
export function pathwaysJobSet(common: JobSetCommon, main: MainContainer, pw: PathwaysInput): BuiltJobSet {
  const coordinator: CoordinatorShape = { replicatedJob: RJOB.head, jobIndex: 0, podIndex: 0 };
  const manifest = baseJobSet(common, {
    coordinator,
    startupPolicy: { startupPolicyOrder: 'InOrder' },
    successPolicy: { operator: 'All', targetReplicatedJobs: [RJOB.head] },
    replicatedJobs: [pathwaysHead(common, main, pw), pathwaysWorkers(common, pw)],
  });
  return {
    manifest,
    replicatedJobs: [
      { name: RJOB.head, replicas: 1, parallelism: 1 },
      { name: RJOB.worker, replicas: pw.slices, parallelism: pw.slice.vms },
    ],
    mainReplicatedJob: RJOB.head,
    coordinator,
  };
}

/** Container ports, all TCP. */
function tcpPorts(...p: number[]): Array<{ containerPort: number; protocol: string }> {
  return p.map((containerPort) => ({ containerPort, protocol: 'TCP' }));
}

/** The arguments the proxy and every worker pass to find the resource manager and the scratch bucket. */
function pathwaysArgs(pw: PathwaysInput): { rmAddress: string; scratch: string } {
  return { rmAddress: `--resource_manager_address=$(PATHWAYS_HEAD):${PATHWAYS_PORTS.resourceManager}`, scratch: `--gcs_scratch_location=${pw.scratch}` };
}

/** The head's two native sidecars: the proxy the workload talks to, and the resource manager the workers join. */
function pathwaysSidecars(pw: PathwaysInput): Obj[] {
  const serverImage = pw.serverImage ?? PATHWAYS_IMAGES.server;
  const proxyImage = pw.proxyImage ?? PATHWAYS_IMAGES.proxy;
  const { rmAddress, scratch } = pathwaysArgs(pw);
  return [
    {
      name: 'pathways-proxy',
      image: proxyImage,
      imagePullPolicy: pullPolicy(proxyImage),
      restartPolicy: 'Always',
      args: [`--server_port=${PATHWAYS_PORTS.proxy}`, rmAddress, scratch],
      env: mergeEnv([fieldEnv('PATHWAYS_HEAD', COORDINATOR)], { ...ABSL, ...pw.proxyEnv }),
      ports: tcpPorts(PATHWAYS_PORTS.proxy),
      resources: resources(PATHWAYS_DEFAULTS.proxy),
    },
    {
      name: 'pathways-rm',
      image: serverImage,
      imagePullPolicy: pullPolicy(serverImage),
      restartPolicy: 'Always',
      args: [
        `--server_port=${PATHWAYS_PORTS.resourceManager}`,
        scratch,
        '--node_type=resource_manager',
        `--instance_count=${pw.slices}`,
        `--instance_type=${pw.slice.pathwaysInstanceType}`,
      ],
      env: mergeEnv(
        [
          fieldEnv('REPLICATED_JOB_NAME', "metadata.annotations['jobset.sigs.k8s.io/replicatedjob-name']"),
          fieldEnv('JOBSET_NAME', "metadata.annotations['jobset.sigs.k8s.io/jobset-name']"),
          fieldEnv('HOST_ADDRESS', COORDINATOR),
        ],
        { TPU_SKIP_MDS_QUERY: 'true', ...ABSL, ...pw.serverEnv },
      ),
      ports: tcpPorts(PATHWAYS_PORTS.resourceManager, PATHWAYS_PORTS.resourceManager + 1),
      resources: resources(PATHWAYS_DEFAULTS.resourceManager),
    },
  ];
}

/** `pathways-head`: one pod on the CPU pool, the sidecars and the workload container (JAX through the proxy). */
function pathwaysHead(common: JobSetCommon, main: MainContainer, pw: PathwaysInput): Obj {
  return replicatedJob(common, {
    name: RJOB.head,
    replicas: 1,
    pods: 1,
    exclusiveTopology: 'kubernetes.io/hostname',
    // The JAX client exits 1 when it loses a worker: its exit code cannot tell a lost host from its own error.
    exitPolicy: 'restartJobSet',
    podSpec: {
      nodeSelector: { [NODE_POOL_LABEL]: pw.headNodePool },
      hostNetwork: true,
      dnsPolicy: 'ClusterFirstWithHostNet',
      initContainers: pathwaysSidecars(pw),
      containers: [
        {
          ...mainContainer(
            main,
            mergeEnv([fieldEnv('PATHWAYS_HEAD', COORDINATOR)], {
              JAX_PLATFORMS: 'proxy',
              XCLOUD_ENVIRONMENT: 'GCP',
              JAX_BACKEND_TARGET: `grpc://$(PATHWAYS_HEAD):${PATHWAYS_PORTS.proxy}`,
              ...ABSL,
            }),
          ),
          volumeMounts: [SHARED_TMP_MOUNT, hfTokenVolumeMount(), ...extraMounts(main)],
        },
      ],
      volumes: [SHARED_TMP, hfTokenVolume(common.pod.pipeline), ...extraVolumes(main)],
    },
  });
}

/** `worker`: one replicated job per slice, one `pathways-worker` pod per VM; no pod failure policy, they restart in place and the head decides success. */
function pathwaysWorkers(common: JobSetCommon, pw: PathwaysInput): Obj {
  const serverImage = pw.serverImage ?? PATHWAYS_IMAGES.server;
  const { rmAddress, scratch } = pathwaysArgs(pw);
  return replicatedJob(common, {
    name: RJOB.worker,
    replicas: pw.slices,
    pods: pw.slice.vms,
    exclusiveTopology: NODE_POOL_LABEL,
    exitPolicy: 'inPlace',
    podSpec: {
      ...tpuPodSpec(pw.slice),
      containers: [
        {
          name: 'pathways-worker',
          image: serverImage,
          imagePullPolicy: pullPolicy(serverImage),
          args: [`--server_port=${PATHWAYS_PORTS.worker}`, rmAddress, scratch],
          env: mergeEnv(
            [
              { name: 'XCLOUD_ENVIRONMENT', value: 'GCP' },
              { name: 'MEGASCALE_GRPC_ENABLE_XOR_TRACER', value: 'false' },
              fieldEnv('MEGASCALE_NUM_SLICES', "metadata.labels['jobset.sigs.k8s.io/replicatedjob-replicas']"),
              fieldEnv('JOBSET_NAME', "metadata.annotations['jobset.sigs.k8s.io/jobset-name']"),
              fieldEnv('REPLICATED_JOB_NAME', "metadata.annotations['jobset.sigs.k8s.io/replicatedjob-name']"),
              fieldEnv('MEGASCALE_SLICE_ID', `metadata.labels['${JOBSET_POD_LABELS.jobIndex}']`),
              fieldEnv('PATHWAYS_HEAD', COORDINATOR),
              fieldEnv('MEGASCALE_COORDINATOR_ADDRESS', COORDINATOR),
            ],
            { ...ABSL, ...pw.workerEnv },
          ),
          ports: tcpPorts(PATHWAYS_PORTS.worker, PATHWAYS_PORTS.worker + 1, 8471, 8080),
          resources: { limits: { ...pw.slice.podResources } },
          volumeMounts: [SHARED_TMP_MOUNT],
        },
      ],
      volumes: [SHARED_TMP],
    },
  });
}

/**
 * Env a single-host TPU VM program expects when the metadata server is not queried (tutorial 002's exports),
 * derived from the TPU table. Valid only for a one-VM slice.
 */
export function tpuVmEnv(slice: TpuSlice): EnvMap {
  const [x, y] = slice.topology.split('x');
  return {
    TPU_ACCELERATOR_TYPE: slice.acceleratorType,
    TPU_WORKER_ID: '0',
    TPU_SKIP_MDS_QUERY: '1',
    TPU_WORKER_HOSTNAMES: 'localhost',
    TPU_TOPOLOGY: slice.topology,
    TPU_CHIPS_PER_HOST_BOUNDS: `${x},${y},1`,
    TPU_HOST_BOUNDS: '1,1,1',
  };
}
