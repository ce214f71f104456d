/**
 * `npm run status -- serve-<pipeline>`: what a serve stack (jobs/serve.ts) is doing, read from the cluster: the
 * endpoint (the Service's in-cluster name, and its internal load balancer address when it has one), the model path the
 * server mounts (read back from the Deployment's Cloud Storage FUSE volume, not from the local config), the served model
 * name, readiness, and the smoke test. Pure: the cluster's objects in, a status out (status/cluster.ts reads them).
 *
 * States, and the exit status they give (status/cli.ts EXIT):
 *   - ready (0): the Deployment has a ready replica (readiness probe GET /health passed);
 *   - failing (1): the Cloud Storage FUSE mount of the export failed (the gcsfuse sidecar ended with an error), the
 *     server crashed and is in CrashLoopBackOff (its last exit said apart: a crash with its exit code, an out-of-memory
 *     kill, or a kill by a failing startup/liveness probe), an image that cannot be pulled, a bad config, or the smoke
 *     test of the Deployment's current revision failed;
 *   - starting (3): no TPU node yet (the pod is unschedulable while the pool's node is created), or vLLM is loading and
 *     compiling the model (the startup probe's window is read from the Deployment; earlier restarts are named);
 *   - not-deployed (3): no Deployment of that name.
 */
import { modelPathOf, SERVE_LABEL, SERVE_REVISION_LABEL, serveNames } from '../jobs/serve';
import { Condition, ContainerStatus, isTrue, ObjectMeta, PodObject } from './model';

export interface DeploymentObject {
  readonly metadata: ObjectMeta;
  readonly spec?: {
    readonly replicas?: number;
    readonly template?: {
      readonly spec?: {
        readonly containers?: ReadonlyArray<{ readonly args?: readonly string[]; readonly startupProbe?: { readonly periodSeconds?: number; readonly failureThreshold?: number } }>;
        readonly volumes?: readonly unknown[];
      };
    };
  };
  readonly status?: { readonly readyReplicas?: number; readonly conditions?: readonly Condition[] };
}
export interface ServiceObject {
  readonly metadata: ObjectMeta;
  readonly spec?: { readonly type?: string; readonly ports?: ReadonlyArray<{ readonly port?: number }> };
  readonly status?: { readonly loadBalancer?: { readonly ingress?: ReadonlyArray<{ readonly ip?: string }> } };
}
export interface JobObject {
  readonly metadata: ObjectMeta;
  readonly status?: { readonly conditions?: readonly Condition[] };
}

/** One read of the serve stacks' objects (four list calls by the serve label, status/cluster.ts `serving`). */
export interface ServeSnapshot {
  readonly deployments: readonly DeploymentObject[];
  readonly services: readonly ServiceObject[];
  readonly jobs: readonly JobObject[];
  readonly pods: readonly PodObject[];
}

export const SERVE_STATES = ['not-deployed', 'starting', 'ready', 'failing'] as const;
export type ServeState = (typeof SERVE_STATES)[number];
export type SmokeState = 'passed' | 'failed' | 'running' | 'not-created';

export interface ServeStatus {
  readonly stack: string;
  readonly pipeline: string;
  readonly state: ServeState;
  /** Why, and what to do. */
  readonly reason: string;
  /** `<ready>/<desired>` replicas. */
  readonly ready: string;
  readonly modelPath?: string;
  readonly servedModelName?: string;
  /** The in-cluster address, `http://<name>.<ns>.svc.cluster.local:<port>`. */
  readonly endpoint?: string;
  /** The internal load balancer's address, `http://<ip>:<port>`, once GKE gave it one. */
  readonly internalAddress?: string;
  readonly smoke: SmokeState;
  /** How to reach it from this machine. */
  readonly portForward?: string;
}

/** Container reasons that do not go away by waiting: the server cannot start until something is fixed. */
const STUCK_REASONS = ['CrashLoopBackOff', 'ImagePullBackOff', 'ErrImagePull', 'CreateContainerConfigError', 'CreateContainerError', 'InvalidImageName'];
/** The container GKE's Cloud Storage FUSE CSI driver injects (a native sidecar on recent GKE, an ordinary container before). */
export const GCSFUSE_SIDECAR = 'gke-gcsfuse-sidecar';
/** Exit codes of a container the kubelet killed (SIGKILL 137 after the grace period, SIGTERM 143): a failed probe, unless OOMKilled. */
const KILLED_EXIT_CODES = [137, 143];

function smokeOf(job: JobObject | undefined): SmokeState {
  if (!job) return 'not-created';
  if (isTrue(job.status?.conditions, 'Complete')) return 'passed';
  if (isTrue(job.status?.conditions, 'Failed')) return 'failed';
  return 'running';
}

/**
 * The smoke Job of the Deployment's current revision (jobs/serve.ts SERVE_REVISION_LABEL): a Job of an earlier
 * revision says nothing about the server now. A Deployment without the label (an older stack) has the Job of the fixed name.
 */
function smokeJobOf(jobs: readonly JobObject[], d: DeploymentObject, name: string, fixedName: string): JobObject | undefined {
  const revision = d.metadata.labels?.[SERVE_REVISION_LABEL];
  if (revision === undefined) return jobs.find((j) => j.metadata.name === fixedName);
  return jobs.find((j) => j.metadata.labels?.[SERVE_LABEL] === name && j.metadata.labels?.[SERVE_REVISION_LABEL] === revision);
}

/** The newest pod (a Recreate rollout leaves at most one live, but an old one may still be terminating). */
function newestPod(pods: readonly PodObject[]): PodObject | undefined {
  return [...pods].sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')))[0];
}

/** Minutes the startup probe allows (period x failure threshold), read from the Deployment. */
function startupMinutes(d: DeploymentObject): number | undefined {
  const probe = d.spec?.template?.spec?.containers?.[0]?.startupProbe;
  return probe?.periodSeconds && probe.failureThreshold ? Math.round((probe.periodSeconds * probe.failureThreshold) / 60) : undefined;
}

/** Why the gcsfuse sidecar stopped, or undefined while it runs: the export's mount failed. */
function fuseFailure(pod: PodObject | undefined): string | undefined {
  const all = [...(pod?.status?.initContainerStatuses ?? []), ...(pod?.status?.containerStatuses ?? [])];
  const sidecar = all.find((c) => c.name === GCSFUSE_SIDECAR);
  const ended = sidecar?.state?.terminated ?? (sidecar?.state?.waiting?.reason === 'CrashLoopBackOff' ? sidecar.lastState?.terminated : undefined);
  if (!ended || ended.exitCode === 0) return undefined;
  return `exit code ${ended.exitCode ?? '?'}${ended.message ? `: ${ended.message.trim().split('\n').slice(-1)[0]}` : ''}`;
}

/** How the server container last ended: a crash, an out-of-memory kill, or a kill by a failing probe. */
function lastEnd(c: ContainerStatus | undefined, minutes: number | undefined): string | undefined {
  const t = c?.lastState?.terminated;
  if (!c || !t) return undefined;
  const times = `${c.restartCount ?? 1} time(s)`;
  if (t.reason === 'OOMKilled') return `was killed for using too much host memory (OOMKilled), restarted ${times}`;
  if (t.exitCode !== undefined && KILLED_EXIT_CODES.includes(t.exitCode)) {
    return `was killed by the kubelet (exit ${t.exitCode}), restarted ${times}: a failing probe (the startup probe allows ${minutes ?? '?'} minutes, liveness 30 s), see the Unhealthy events in kubectl describe pod`;
  }
  return `crashed with exit code ${t.exitCode ?? '?'}${t.reason ? ` (${t.reason})` : ''}, restarted ${times}`;
}

function whyNotReady(p: { namespace: string; name: string; stack: string; smokeJobName: string }, d: DeploymentObject, pod: PodObject | undefined, smoke: SmokeState): { state: ServeState; reason: string } {
  const logs = `kubectl logs -n ${p.namespace} deployment/${p.name}`;
  const minutes = startupMinutes(d);
  const fuse = fuseFailure(pod);
  if (fuse) {
    return { state: 'failing', reason: `the Cloud Storage FUSE mount of the export failed (${GCSFUSE_SIDECAR} ${fuse}); check that the export exists and the server's read grant, then kubectl logs -n ${p.namespace} ${pod?.metadata.name ?? 'the pod'} -c ${GCSFUSE_SIDECAR}` };
  }
  const server = pod?.status?.containerStatuses?.find((c) => c.name === 'vllm') ?? pod?.status?.containerStatuses?.find((c) => c.name !== GCSFUSE_SIDECAR);
  const ended = lastEnd(server, minutes);
  const waiting = server?.state?.waiting;
  if (waiting?.reason && STUCK_REASONS.includes(waiting.reason)) {
    return { state: 'failing', reason: `the server cannot start: ${waiting.reason}${waiting.message ? ` (${waiting.message})` : ''}${ended ? `; it last ${ended}` : ''}; read ${logs} --previous` };
  }
  if (smoke === 'failed') return { state: 'failing', reason: `the smoke test got no chat completion; read kubectl logs -n ${p.namespace} job/${p.smokeJobName} and ${logs}` };
  if (!pod) return { state: 'starting', reason: 'no server pod yet' };
  const scheduled = (pod.status?.conditions ?? []).find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') {
    return { state: 'starting', reason: `waiting for a TPU node of the serve pool: ${scheduled.message ?? scheduled.reason ?? 'not scheduled yet'}` };
  }
  return { state: 'starting', reason: `vLLM is loading and compiling the model${minutes ? ` (the startup probe allows ${minutes} minutes)` : ''}${ended ? `; it ${ended}` : ''}; follow it with ${logs} -f` };
}

/** The status of `serve-<pipeline>` from one snapshot. */
export function serveStatus(pipeline: string, namespace: string, snapshot: ServeSnapshot): ServeStatus {
  const names = serveNames(pipeline);
  const named = <T extends { metadata: ObjectMeta }>(xs: readonly T[], name: string) => xs.find((x) => x.metadata.name === name && (x.metadata.namespace ?? namespace) === namespace);
  const d = named(snapshot.deployments, names.name);
  if (!d) {
    const smoke = smokeOf(named(snapshot.jobs, names.smokeJobName));
    return { stack: names.stack, pipeline, state: 'not-deployed', reason: `no Deployment ${namespace}/${names.name}: npm run deploy -- ${names.stack}`, ready: '0/0', smoke };
  }
  const smokeJob = smokeJobOf(snapshot.jobs.filter((j) => (j.metadata.namespace ?? namespace) === namespace), d, names.name, names.smokeJobName);
  const smoke = smokeOf(smokeJob);
  const service = named(snapshot.services, names.name);
  const port = service?.spec?.ports?.[0]?.port;
  const ip = service?.status?.loadBalancer?.ingress?.find((i) => i.ip)?.ip;
  const args = d.spec?.template?.spec?.containers?.[0]?.args ?? [];
  const served = args.indexOf('--served-model-name');
  const readyReplicas = d.status?.readyReplicas ?? 0;
  const pod = newestPod(snapshot.pods.filter((x) => x.metadata.labels?.[SERVE_LABEL] === names.name));
  const verdict = readyReplicas > 0 && smoke !== 'failed' ? { state: 'ready' as const, reason: 'serving (readiness GET /health passed)' } : whyNotReady({ namespace, ...names, smokeJobName: smokeJob?.metadata.name ?? names.smokeJobName }, d, pod, smoke);
  return {
    stack: names.stack,
    pipeline,
    ...verdict,
    ready: `${readyReplicas}/${d.spec?.replicas ?? 1}`,
    modelPath: modelPathOf(d),
    ...(served >= 0 && args[served + 1] ? { servedModelName: args[served + 1] } : {}),
    ...(service && port ? { endpoint: `http://${names.name}.${namespace}.svc.cluster.local:${port}` } : {}),
    ...(ip && port ? { internalAddress: `http://${ip}:${port}` } : {}),
    smoke,
    ...(service && port ? { portForward: `kubectl port-forward -n ${namespace} service/${names.name} ${port}:${port}` } : {}),
  };
}

/** The exit status of serve stacks: 1 when one is failing, 3 while one is not ready, else 0. */
export function serveExit(statuses: readonly ServeStatus[]): 0 | 1 | 3 {
  if (statuses.some((s) => s.state === 'failing')) return 1;
  return statuses.every((s) => s.state === 'ready') ? 0 : 3;
}

/** Text: one block per serve stack. */
export function renderServe(statuses: readonly ServeStatus[]): string {
  return statuses
    .map((s) => {
      const lines = [`${s.stack}  ${s.state}  ${s.ready} ready  smoke test ${s.smoke}`, `  ${s.reason}`];
      if (s.modelPath) lines.push(`  model     ${s.modelPath}${s.servedModelName ? ` (served as '${s.servedModelName}')` : ''}`);
      if (s.endpoint) lines.push(`  endpoint  ${s.endpoint}${s.internalAddress ? `, internal load balancer ${s.internalAddress}` : ''}`);
      if (s.portForward) lines.push(`  query     ${s.portForward}, then http://localhost:${s.portForward.split(':').pop()}/v1/chat/completions`);
      return `${lines.join('\n')}\n`;
    })
    .join('');
}
