/**
 * The status model: listed cluster objects (JobSets, Kueue Workloads, Pods, Events, main-container logs) -> one
 * state per pipeline step. Pure: no client, no I/O, no clock (`now` is an input).
 *
 * Upstream behaviour modelled here (read at the pinned versions):
 *   - JobSet v0.12.0 (kubernetes-sigs/jobset, api/jobset/v1alpha2/jobset_types.go, pkg/constants/constants.go,
 *     pkg/controllers/failure_policy.go): conditions `Completed`, `Failed`, `Suspended`; `status.terminalState`
 *     `Completed|Failed`; a FailJobSet rule fails it with reason `FailJobSetFailurePolicyAction` and message
 *     "applying FailJobSet failure policy action (first failed job: <job>)".
 *   - Kueue v0.19.2 (kubernetes-sigs/kueue): the JobSet integration creates one Workload per JobSet, named
 *     `jobset-<name>-<5 hex of sha1>` (pkg/controller/jobframework/workload_names.go), controller-owned by the JobSet
 *     and labelled `kueue.x-k8s.io/job-uid=<JobSet uid>` (reconciler.go ConstructWorkload; constants.go). The
 *     JobSet's own labels are NOT copied (utils.go NewWorkload copies only configured label keys), so workloads are
 *     matched by owner, never by pipeline label. Conditions `QuotaReserved`, `Admitted`, `Evicted`, `Finished`,
 *     `PodsReady` (apis/kueue/v1beta2/workload_types.go). An unadmitted workload has QuotaReserved=False with the
 *     scheduler's message, e.g. "couldn't assign flavors to pod set worker: insufficient unused quota for
 *     google.com/tpu in flavor ..., 32 more needed" (pkg/scheduler/scheduler.go, flavorassigner/flavorassigner.go);
 *     admitted ones carry `status.admission.clusterQueue` and per pod set `resourceUsage`.
 *   - Progress lines of the main container: MaxText maxtext-v0.2.4 SFT logs "completed step: N, seconds: ..."
 *     (src/maxtext/common/metric_logger.py `_log_training_metrics`, called from post_train/hooks.py
 *     `on_train_step_end` with the step counter already incremented, so N steps are done). train_rl runs Tunix
 *     (google/tunix at c4ec573d, the commit MaxText 0.2.4 pins in extra_deps/post_train_github_deps.txt), whose
 *     PeftTrainer logs "Train step N training loss: ... - training perplexity: ..." once per optimizer step
 *     (tunix/sft/peft_trainer.py `_log_metrics`, step incremented before logging; the tqdm bar is disabled without a
 *     TTY). Totals: jobs/maxtext.ts `lastCheckpointStep` (SFT `steps`; RL `train_steps`).
 */
import { EngineView, engineView, pipelineWorkflowOf, WorkflowObject } from './workflow';
import { LOG_TIMESTAMP } from '../jobs/run-log';
import { methodRow, TrainKind } from '../jobs/methods';
import { RehearsalVerdict, rehearsalLines, rehearsalVerdict } from './rehearsal';
import { ChipPrice, duration, Evaluation, evaluationOf, Stall, STALL_FACTOR, STALL_FLOOR_SECONDS, stallOf, StepPoint, stepPoints, Usage, usage } from './metrics';
import { hfTokenSecretIdOf } from '../jobs/platform';
import type { PipelineRecord, RecordedStep } from '../jobs/record';
import { HF_TOKEN_VOLUME, secretCommand } from '../jobs/secrets';
import { TPU_RESOURCE } from '../jobs/tpu';
import { PODS_READY } from '../jobs/kueue';
import { CostRates, RunCost, runCost, runCostLine, Span } from './run-cost';
import { DownloadedCommits, withLineage } from './run-record';
import { JOBSET_POD_LABELS, MAIN_CONTAINER } from '../jobs/jobset';
import { EvalRecord, evalRecordOf } from './eval';

export const STATES = ['not-created', 'queued', 'pending', 'running', 'stalled', 'completed', 'failed'] as const;
export type StepState = (typeof STATES)[number];

/** Kueue v0.19.2 constants the model reads (pkg/controller/constants/constants.go, apis/kueue/v1beta2). */
export const KUEUE = {
  group: 'kueue.x-k8s.io',
  version: 'v1beta2',
  workloads: 'workloads',
  jobUidLabel: 'kueue.x-k8s.io/job-uid',
} as const;

// ---- the object shapes the model reads (a subset of what the API server returns) ----------------------------

type Time = string | Date;
export interface ObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly creationTimestamp?: Time;
  readonly ownerReferences?: ReadonlyArray<{ readonly kind?: string; readonly name?: string; readonly uid?: string }>;
}
export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: Time;
}
export interface JobSetObject {
  readonly metadata: ObjectMeta;
  readonly status?: { readonly conditions?: readonly Condition[]; readonly terminalState?: string; readonly restarts?: number };
}
export interface WorkloadObject {
  readonly metadata: ObjectMeta;
  readonly spec?: {
    readonly queueName?: string;
    readonly active?: boolean;
    /** From the job's `kueue.x-k8s.io/max-exec-time-seconds` label (Kueue v0.19.2 workload_types.go). */
    readonly maximumExecutionTimeSeconds?: number;
  };
  readonly status?: {
    readonly conditions?: readonly Condition[];
    readonly requeueState?: { readonly count?: number; readonly requeueAt?: Time };
    /** Kueue's admission checks on the workload (apis/kueue/v1beta2 workload_types.go AdmissionCheckState). */
    readonly admissionChecks?: ReadonlyArray<{ readonly name?: string; readonly state?: string; readonly message?: string }>;
    readonly admission?: {
      readonly clusterQueue?: string;
      readonly podSetAssignments?: ReadonlyArray<{ readonly name?: string; readonly resourceUsage?: Readonly<Record<string, string>> }>;
    };
  };
}
export interface ContainerState {
  readonly waiting?: { readonly reason?: string; readonly message?: string };
  readonly running?: { readonly startedAt?: Time };
  readonly terminated?: { readonly exitCode?: number; readonly reason?: string; readonly message?: string; readonly finishedAt?: Time };
}
export interface ContainerStatus {
  readonly name: string;
  readonly image?: string;
  readonly restartCount?: number;
  readonly state?: ContainerState;
  readonly lastState?: ContainerState;
}
export interface PodObject {
  readonly metadata: ObjectMeta;
  readonly spec?: {
    readonly nodeSelector?: Readonly<Record<string, string>>;
    readonly containers?: ReadonlyArray<{ readonly name: string; readonly image?: string }>;
    readonly initContainers?: ReadonlyArray<{ readonly name: string; readonly image?: string }>;
  };
  readonly status?: {
    readonly phase?: string;
    readonly startTime?: Time;
    readonly conditions?: readonly Condition[];
    readonly containerStatuses?: readonly ContainerStatus[];
    readonly initContainerStatuses?: readonly ContainerStatus[];
  };
}
export interface EventObject {
  readonly metadata?: ObjectMeta;
  readonly involvedObject?: { readonly kind?: string; readonly name?: string; readonly uid?: string };
  readonly reason?: string;
  readonly message?: string;
  readonly type?: string;
  readonly count?: number;
  readonly lastTimestamp?: Time;
  readonly eventTime?: Time;
}

/** One poll's worth of listed objects. */
export interface Snapshot {
  readonly jobSets: readonly JobSetObject[];
  /** Workloads of the namespace, or of the cluster when it could list them (for "what else holds the quota"). */
  readonly workloads: readonly WorkloadObject[];
  readonly pods: readonly PodObject[];
  readonly events: readonly EventObject[];
  /** The pipelines' Argo Workflows (status/workflow.ts). @default - not read (an older caller, or the list failed) */
  readonly workflows?: readonly WorkflowObject[];
}

/** A request for the main container's log lines (for progress or a failure's last lines). */
export interface LogRequest {
  readonly pod: string;
  readonly container: string;
  readonly tailLines: number;
  /** Why the log is read (progress of a running step, or the last lines of a failed one). */
  readonly purpose: 'progress' | 'failure';
  /**
   * Also read the log's first bytes (a training step: MaxText's evaluation before training is near the start); the
   * whole log when it is shorter. @default - the tail only
   */
  readonly headBytes?: number;
  /** Read the whole log (the run report's curve). @default false */
  readonly full?: boolean;
}

export interface Progress {
  readonly step: number;
  readonly total: number;
}

/** The state of one step. `details` are extra text lines (log tail, ETA, ...) the JSON output leaves out. */
export interface StepStatus {
  readonly name: string;
  readonly jobset: string;
  readonly state: StepState;
  readonly reason?: string;
  readonly message?: string;
  readonly progress?: Progress;
  /** Seconds to the end at the current rate. @default - unknown */
  readonly etaSeconds?: number;
  /** Seconds since the main container started. @default - not running */
  readonly elapsedSeconds?: number;
  /** TPU chips the step holds (Kueue admission). @default - none */
  readonly chips?: number;
  /** Why a running training step is `stalled` (status/metrics.ts stallOf). @default - not stalled */
  readonly stall?: Stall;
  /** What a training step did so far: chip-hours, loss series, evaluation. @default - not a training step, or no workload and no log */
  readonly run?: RunSummary;
  /** The commits a completed step downloaded, from its run record in the bucket (status/run-record.ts). @default - not read */
  readonly commits?: DownloadedCommits;
  readonly details: readonly string[];
}

/** What a training step did (status/metrics.ts). */
export interface RunSummary {
  /** Chip-hours from the Kueue admission. @default - never admitted */
  readonly usage?: Usage;
  /** The step lines read (step, time, loss). */
  readonly points: readonly StepPoint[];
  /** MaxText's RL evaluation before/after training. @default - none in the log */
  readonly evaluation?: Evaluation;
  /** The eval step's eval.json (status/eval.ts). @default - not the eval step, or no EVAL_RESULT line in its log */
  readonly eval?: EvalRecord;
}

export interface PipelineStatus {
  readonly name: string;
  readonly steps: readonly StepStatus[];
  /** The whole run's cost (status/run-cost.ts) and its line. @default - no step created, or no rates */
  readonly cost?: { readonly cost: RunCost; readonly text: string };
  /** Where the pipeline's Workflow and each step's tasks stand (status/workflow.ts). @default - no Workflow found or read */
  readonly engine?: EngineView;
  /** A rehearsal's verdict and its lines (status/rehearsal.ts). @default - not a rehearsal */
  readonly rehearsal?: { readonly verdict: RehearsalVerdict; readonly lines: readonly string[] };
}

// ---- helpers ----------------------------------------------------------------------------------------------------

/** The condition of `type`, if the object has one (Kubernetes conditions are keyed by type). */
export function condition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
export function isTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return condition(conditions, type)?.status === 'True';
}
function time(t: Time | undefined): number | undefined {
  if (t === undefined) return undefined;
  const ms = new Date(t).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}
function matches(labels: Readonly<Record<string, string>> | undefined, selector: Readonly<Record<string, string>>): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}
function newest<T extends { metadata: ObjectMeta }>(items: readonly T[]): T | undefined {
  return [...items].sort((a, b) => (time(b.metadata.creationTimestamp) ?? 0) - (time(a.metadata.creationTimestamp) ?? 0))[0];
}

/** The workload Kueue created for a JobSet: owned by it (uid) or labelled with its uid. */
export function workloadOf(jobSet: JobSetObject, workloads: readonly WorkloadObject[]): WorkloadObject | undefined {
  const uid = jobSet.metadata.uid;
  const owned = workloads.filter(
    (w) =>
      (uid !== undefined && w.metadata.labels?.[KUEUE.jobUidLabel] === uid) ||
      (w.metadata.ownerReferences ?? []).some((o) => o.kind === 'JobSet' && (uid !== undefined ? o.uid === uid : o.name === jobSet.metadata.name)),
  );
  return newest(owned);
}

/** TPU chips a workload's admission holds. */
export function chipsHeld(workload: WorkloadObject): number {
  return (workload.status?.admission?.podSetAssignments ?? []).reduce((sum, ps) => sum + Number(ps.resourceUsage?.[TPU_RESOURCE] ?? 0), 0);
}

function isAdmitted(w: WorkloadObject): boolean {
  return isTrue(w.status?.conditions, 'Admitted');
}
function isFinished(w: WorkloadObject): boolean {
  return isTrue(w.status?.conditions, 'Finished');
}

/**
 * Other workloads holding quota in `clusterQueue`, as `JobSet x in ns (ClusterQueue q, N google.com/tpu)`: admitted
 * ones, and those whose quota is reserved while an admission check waits (a flex-start workload waiting for GKE to
 * provision its slice holds its quota all that time).
 */
export function quotaHolders(workload: WorkloadObject, all: readonly WorkloadObject[], clusterQueue: string): string[] {
  return all
    .filter((w) => !(w.metadata.name === workload.metadata.name && w.metadata.namespace === workload.metadata.namespace))
    .filter((w) => (isAdmitted(w) || isTrue(w.status?.conditions, 'QuotaReserved')) && !isFinished(w) && w.status?.admission?.clusterQueue === clusterQueue)
    .map((w) => {
      const owner = (w.metadata.ownerReferences ?? []).find((o) => o.kind === 'JobSet')?.name;
      const chips = chipsHeld(w);
      const what = owner ? `JobSet ${owner}` : `workload ${w.metadata.name}`;
      return `${what} in ${w.metadata.namespace ?? '?'} (ClusterQueue ${w.status?.admission?.clusterQueue}${chips > 0 ? `, ${chips} ${TPU_RESOURCE}` : ''})`;
    })
    .sort();
}

/** Pods of a JobSet. */
export function podsOf(jobSet: string, pods: readonly PodObject[]): PodObject[] {
  return pods.filter((p) => p.metadata.labels?.[JOBSET_POD_LABELS.jobSetName] === jobSet);
}

/** The step's main pod (newest with the main-pod labels). */
export function mainPodOf(step: Pick<RecordedStep, 'mainPodSelector'>, pods: readonly PodObject[]): PodObject | undefined {
  return newest(pods.filter((p) => matches(p.metadata.labels, step.mainPodSelector)));
}

// ---- progress ---------------------------------------------------------------------------------------------------

/** Per-step progress lines: MaxText SFT and Tunix RL (one home: jobs/run-log.ts). */

export interface LogProgress {
  readonly step: number;
  /** Time of the last progress line (from `timestamps=true`). @default - unknown */
  readonly at?: number;
  /** The first progress line in the window, for the rate. @default - only one line */
  readonly first?: { readonly step: number; readonly at?: number };
}

/** The last progress line of a log (lines may start with an RFC 3339 timestamp, as `timestamps=true` returns). */
export function parseProgress(kind: TrainKind, log: string): LogProgress | undefined {
  const pattern = methodRow(kind).log.progress;
  let first: { step: number; at?: number } | undefined;
  let last: { step: number; at?: number } | undefined;
  for (const line of log.split('\n')) {
    const m = pattern.exec(line);
    if (!m) continue;
    const stamp = LOG_TIMESTAMP.exec(line);
    const entry = { step: Number(m[1]), at: stamp ? time(stamp[1]) : undefined };
    first ??= entry;
    last = entry;
  }
  if (!last) return undefined;
  return { step: last.step, at: last.at, ...(first && first !== last ? { first } : {}) };
}

/** Seconds to `total` at the rate seen between two progress lines, or since the container started. */
export function eta(progress: LogProgress, total: number, startedAt: number | undefined, now: number): number | undefined {
  const remaining = total - progress.step;
  if (remaining <= 0) return 0;
  const f = progress.first;
  if (f && f.at !== undefined && progress.at !== undefined && progress.step > f.step && progress.at > f.at) {
    return Math.round((remaining * (progress.at - f.at)) / (progress.step - f.step) / 1000);
  }
  if (startedAt !== undefined && progress.step > 0) return Math.round((remaining * (now - startedAt)) / progress.step / 1000);
  return undefined;
}

/** The last `n` non-empty lines, without the timestamps `timestamps=true` adds. */
export function lastLines(log: string, n: number): string[] {
  return log
    .split('\n')
    .map((l) => l.replace(/^\d{4}-\d\d-\d\dT\S+\s/, ''))
    .filter((l) => l.trim() !== '')
    .slice(-n);
}

// ---- pending reasons --------------------------------------------------------------------------------------------

const IMAGE_PULL = ['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'ErrImageNeverPull'];

interface Problem {
  readonly reason: string;
  readonly message: string;
}

function eventsFor(pod: PodObject, events: readonly EventObject[]): EventObject[] {
  return events
    .filter((e) => e.involvedObject?.name === pod.metadata.name && (e.involvedObject?.kind ?? 'Pod') === 'Pod')
    .sort((a, b) => (time(b.lastTimestamp ?? b.eventTime) ?? 0) - (time(a.lastTimestamp ?? a.eventTime) ?? 0));
}

/**
 * The advice for a container whose image cannot be pulled: the key (or code) that sets that container's image, from
 * the record (jobs/record.ts imageSource): the MaxText image is `pipelines.<name>.image`, the Pathways proxy, resource
 * manager and worker images are set in code (jobs/jobset.ts PATHWAYS_IMAGES).
 */
export function imageAdvice(step: RecordedStep, container: string): string {
  const source = step.images[container];
  if (!source) return 'check that the tag exists and the node service account can read it';
  return `check that the tag exists and the node service account can read it; this image is set by ${source.setBy}${source.effect ? ` (${source.effect})` : ''}`;
}

/** Why a pod of an admitted step is not running, with the fix; undefined when nothing is wrong. */
export function podProblem(pod: PodObject, events: readonly EventObject[], pipeline: PipelineRecord, step: RecordedStep): Problem | undefined {
  const name = pod.metadata.name ?? '?';
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  for (const cs of statuses) {
    const reason = cs.state?.waiting?.reason;
    if (reason && IMAGE_PULL.includes(reason)) {
      const image = cs.image ?? [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].find((c) => c.name === cs.name)?.image;
      return {
        reason,
        message:
          `pod ${name} container ${cs.name} cannot pull image ${image ?? '?'}` +
          (cs.state?.waiting?.message ? `: ${cs.state.waiting.message}` : '') +
          `; ${imageAdvice(step, cs.name)}`,
      };
    }
  }
  for (const cs of statuses) {
    if (cs.state?.waiting?.reason === 'CrashLoopBackOff') {
      const last = cs.lastState?.terminated;
      return {
        reason: 'CrashLoopBackOff',
        message:
          `pod ${name} container ${cs.name} keeps crashing (${cs.restartCount ?? 0} restarts` +
          (last ? `, last exit ${last.exitCode}${last.reason ? ` ${last.reason}` : ''}` : '') +
          `); its log: npm run logs -- ${pipeline.name} ${step.name}`,
      };
    }
  }
  if (pod.status?.phase === 'Running' || pod.status?.phase === 'Succeeded') return undefined;
  const podEvents = eventsFor(pod, events);
  const mount = podEvents.find((e) => e.reason === 'FailedMount');
  if (mount) {
    const token = (mount.message ?? '').includes(`volume "${HF_TOKEN_VOLUME}"`);
    return {
      reason: 'FailedMount',
      message: token
        ? `pod ${name} cannot mount the Hugging Face token (${mount.message}); add a token version: ${secretCommand(pipeline.project, hfTokenSecretIdOf(pipeline.cluster))}`
        : `pod ${name}: ${mount.message}`,
    };
  }
  const scheduled = condition(pod.status?.conditions, 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') {
    const event = podEvents.find((e) => e.reason === 'FailedScheduling');
    const selector = Object.entries(pod.spec?.nodeSelector ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    return {
      reason: 'Unschedulable',
      message: `pod ${name}: ${event?.message ?? scheduled.message ?? 'no node fits'}${selector ? ` (node selector ${selector})` : ''}`,
    };
  }
  return undefined;
}

// ---- the step state ---------------------------------------------------------------------------------------------

/** What a step's status needs besides the snapshot. */
export interface StatusContext {
  /** The ClusterQueue the pipelines' LocalQueue points to (jobs/platform.ts). */
  readonly clusterQueue: string;
  /** Epoch milliseconds. */
  readonly now: number;
  /**
   * The price of a step's TPU chips (the review's price table): the step's own pool, else the pipeline's training
   * slice (the eval step runs on another pool). @default - chip-hours without a price
   */
  readonly price?: (pipeline: PipelineRecord, step?: RecordedStep) => ChipPrice | undefined;
  /** The CPU node and cluster fee prices of the whole run's cost (status/run-cost.ts). @default - no whole-run cost */
  readonly costRates?: (pipeline: PipelineRecord) => CostRates;
}

/** Where a completed step's output is (the record's). */
export function outputOf(step: RecordedStep): string | undefined {
  return step.output;
}

/** Total steps of a step that reports progress (training), else undefined. */
export function totalSteps(step: RecordedStep): number | undefined {
  return step.totalSteps;
}

/** Whether status summarises the step's run (chip-hours, what it printed): training and the eval step. */
function summarised(step: RecordedStep): boolean {
  return totalSteps(step) !== undefined || step.name === 'eval';
}

function jobSetByName(snapshot: Snapshot, step: RecordedStep): JobSetObject | undefined {
  return snapshot.jobSets.find((j) => j.metadata.name === step.jobSetName && (j.metadata.namespace ?? step.namespace) === step.namespace);
}

/**
 * How a JobSet ended, or undefined while it has not (JobSet v0.12.0 api/jobset/v1alpha2/jobset_types.go:
 * `status.terminalState` Completed|Failed, or the `Completed` / `Failed` condition True). The one home of this test.
 */
export function jobSetEnd(js: JobSetObject): 'Completed' | 'Failed' | undefined {
  const t = js.status?.terminalState;
  if (t === 'Completed' || isTrue(js.status?.conditions, 'Completed')) return 'Completed';
  if (t === 'Failed' || isTrue(js.status?.conditions, 'Failed')) return 'Failed';
  return undefined;
}

/** The logs a poll must read: the main container of running training steps and of failed steps. */
export function logRequests(pipelines: readonly PipelineRecord[], snapshot: Snapshot, options: { readonly full?: boolean } = {}): LogRequest[] {
  const out: LogRequest[] = [];
  for (const pipeline of pipelines) {
    for (const step of pipeline.steps) {
      const js = jobSetByName(snapshot, step);
      if (!js) continue;
      const main = mainPodOf(step, snapshot.pods);
      if (!main?.metadata.name) continue;
      const end = jobSetEnd(js);
      const training = totalSteps(step) !== undefined;
      const head = training ? { headBytes: HEAD_BYTES, ...(options.full ? { full: true } : {}) } : {};
      if (end === 'Failed') out.push({ pod: main.metadata.name, container: MAIN_CONTAINER, tailLines: FAILURE_LINES, purpose: 'failure', ...head });
      else if (training && (end === 'Completed' || main.status?.phase === 'Running')) {
        out.push({ pod: main.metadata.name, container: MAIN_CONTAINER, tailLines: PROGRESS_WINDOW, purpose: 'progress', ...head });
      } else if (step.name === 'eval' && end === 'Completed') {
        out.push({ pod: main.metadata.name, container: MAIN_CONTAINER, tailLines: EVAL_LINES, purpose: 'progress' });
      }
    }
  }
  return out;
}

/** Log lines read from a completed eval step (its EVAL_RESULT line is among the last). */
export const EVAL_LINES = 20;
/** Lines of a failed main container shown. */
export const FAILURE_LINES = 20;
/** Log lines read to find the progress lines (and the rate between the first and last of them). */
export const PROGRESS_WINDOW = 400;
/** Bytes read from the start of a training step's log (MaxText's evaluation before training, the first losses). */
export const HEAD_BYTES = 1 << 20;

function started(main: PodObject | undefined): number | undefined {
  const cs = main?.status?.containerStatuses?.find((c) => c.name === MAIN_CONTAINER);
  return time(cs?.state?.running?.startedAt) ?? time(main?.status?.startTime);
}

/** Everything the step rules read about one step, gathered once. */
export interface StepFacts {
  readonly pipeline: PipelineRecord;
  readonly index: number;
  readonly step: RecordedStep;
  readonly snapshot: Snapshot;
  readonly ctx: StatusContext;
  /** The step's JobSet. @default - not created */
  readonly jobSet?: JobSetObject;
  /** Kueue's workload of the JobSet. @default - none (yet) */
  readonly workload?: WorkloadObject;
  readonly pods: readonly PodObject[];
  /** The main pod (job 0, completion index 0). @default - none (yet) */
  readonly main?: PodObject;
  /** The main container's log read for this poll. @default - not read */
  readonly log?: string;
}

/** The facts of step `index` of `pipeline` in `snapshot`. */
export function stepFacts(pipeline: PipelineRecord, index: number, snapshot: Snapshot, logs: ReadonlyMap<string, string>, ctx: StatusContext): StepFacts {
  const step = pipeline.steps[index]!;
  const jobSet = jobSetByName(snapshot, step);
  const pods = jobSet ? podsOf(step.jobSetName, snapshot.pods) : [];
  const main = jobSet ? mainPodOf(step, pods) : undefined;
  const log = main?.metadata.name ? logs.get(main.metadata.name) : undefined;
  const workload = jobSet ? workloadOf(jobSet, snapshot.workloads) : undefined;
  return { pipeline, index, step, snapshot, ctx, pods, ...(jobSet ? { jobSet } : {}), ...(workload ? { workload } : {}), ...(main ? { main } : {}), ...(log !== undefined ? { log } : {}) };
}

/** A step's state without its name and JobSet (stepStatus adds those). */
export type StepVerdict = Omit<StepStatus, 'name' | 'jobset'>;

/**
 * One rule of the step state: the verdict when it applies, else undefined. `STEP_RULES` tries them in order; the
 * first that applies decides.
 */
export type StepRule = (f: StepFacts) => StepVerdict | undefined;

/** No JobSet yet: why (the previous step failed, nothing of the pipeline is deployed, or it waits for the previous one). */
export const notCreatedRule: StepRule = ({ jobSet, pipeline, index, snapshot, step }) => {
  if (jobSet) return undefined;
  // Any earlier step that failed (its JobSet, or the engine's create of it) ends the run before this one.
  const wf = snapshot.workflows ? pipelineWorkflowOf(snapshot.workflows, pipeline.name) : undefined;
  const engine = wf ? engineView(wf, pipeline.steps.map((s) => s.name)) : undefined;
  const refused = (name: string) => engine?.steps.find((e) => e.step === name && e.createRefused);
  const own = refused(step.name);
  if (own) return { state: 'failed', message: `the engine's create of its JobSet was refused: ${own.message ?? 'no message'}`, details: [] };
  const failedBefore = pipeline.steps.slice(0, index).find((s) => {
    const js = jobSetByName(snapshot, s);
    return (js && jobSetEnd(js) === 'Failed') || refused(s.name);
  });
  if (failedBefore) return { state: 'not-created', message: `will not start: ${failedBefore.name} failed`, details: [] };
  const previous = pipeline.steps[index - 1];
  const anyCreated = pipeline.steps.some((s) => jobSetByName(snapshot, s));
  // The Workflow exists but no controller ever wrote its status: the engine has not picked it up (not "not deployed").
  if (!anyCreated && wf && !wf.status?.phase) {
    return {
      state: 'not-created',
      message: `Workflow ${wf.metadata.name ?? '?'} is deployed, but the workflow engine has not picked it up: is its controller running? (kubectl get pods -A -l app.kubernetes.io/component=workflow-controller)`,
      details: [],
    };
  }
  const message = !anyCreated ? `not deployed: npm run deploy -- ${pipeline.name}` : previous ? `starts when ${previous.name} completed` : 'not created';
  return { state: 'not-created', message, details: [] };
};

/** The JobSet completed: where its output is, a training step's full total and what it did. */
export const completedRule: StepRule = (f) => {
  if (!f.jobSet || jobSetEnd(f.jobSet) !== 'Completed') return undefined;
  const total = totalSteps(f.step);
  const run = summarised(f.step) ? runSummary(f) : undefined;
  const output = outputOf(f.step);
  return {
    state: 'completed',
    ...(output !== undefined ? { message: `output: ${output}` } : {}),
    ...(total !== undefined ? { progress: { step: total, total } } : {}),
    ...(run ? { run } : {}),
    details: [],
  };
};

/** The JobSet failed: its Failed condition and the main container's last lines. */
export const failedRule: StepRule = (f) => {
  if (!f.jobSet || jobSetEnd(f.jobSet) !== 'Failed') return undefined;
  const failed = condition(f.jobSet.status?.conditions, 'Failed');
  const tail = f.log !== undefined ? lastLines(f.log, FAILURE_LINES) : [];
  const run = summarised(f.step) ? runSummary(f) : undefined;
  return {
    state: 'failed',
    reason: failed?.reason ?? 'Failed',
    message: failed?.message ?? 'the JobSet failed',
    ...(run ? { run } : {}),
    details: tail.length > 0 ? [`last lines of ${f.main?.metadata.name}/${MAIN_CONTAINER}:`, ...tail.map((l) => `  ${l}`)] : [],
  };
};

/**
 * Why Kueue deactivated a workload (kubernetes-sigs/kueue v0.19.2, commit 8eab68778fc1b52affe165fdf5af29d1e9b4f3cb):
 * pkg/controller/core/workload_controller.go sets a `DeactivationTarget` condition (pkg/workload/workload.go
 * `SetDeactivationTarget`) with one of three reasons (apis/kueue/v1beta2/workload_types.go):
 *   - `RequeuingLimitExceeded` ("exceeding the maximum number of re-queuing retries", `triggerDeactivation`): the pods
 *     were not ready in time once more after waitForPodsReady's `backoffLimitCount` requeues;
 *   - `AdmissionCheck` (`reconcileCheckBasedEviction`): an admission check is Rejected, with the message
 *     `AdmissionCheck in Rejected state: "<check>" (<the check's message>)` (`buildAdmissionChecksMessage`); for
 *     flex-start the ProvisioningRequest check after its last failed attempt, or GKE's CapacityRevoked
 *     (pkg/controller/admissionchecks/provisioning/controller.go copies the request's condition message);
 *   - `MaximumExecutionTimeExceeded` ("exceeding the maximum execution time", `reconcileMaxExecutionTime`): admitted
 *     longer than `spec.maximumExecutionTimeSeconds`.
 * It then sets `spec.active: false`; the `!IsActive` branch of `Reconcile` evicts with reason
 * `DeactivatedDueTo<reason>` (pkg/workload/evict/evict.go `Evict`, patching.go `ReasonWithCause`) and message
 * "The workload is deactivated due to <message>", and removes the target condition. `spec.active: false` set by hand
 * evicts with reason `Deactivated` and "The workload is deactivated".
 */
export const DEACTIVATION_CAUSES = ['RequeuingLimitExceeded', 'AdmissionCheck', 'MaximumExecutionTimeExceeded'] as const;
export type DeactivationCause = (typeof DEACTIVATION_CAUSES)[number];

export interface Deactivation {
  /** Kueue's reason; `undefined`: deactivated by hand (or a reason this model does not know, shown as Kueue's). */
  readonly cause?: DeactivationCause;
  /** Kueue's reason as it is on the workload (`DeactivatedDueTo...`, `Deactivated`, or the target's reason). */
  readonly reason: string;
  /** Kueue's message without its "The workload is deactivated due to " head. @default - none given */
  readonly detail?: string;
}

const DEACTIVATED = 'Deactivated';
const DUE_TO = 'DueTo';
const DEACTIVATED_HEAD = /^The workload is deactivated( due to )?/;

/** A deactivated workload's cause, read from its Evicted condition or (before the eviction) its DeactivationTarget. */
export function deactivationOf(w: WorkloadObject): Deactivation | undefined {
  if (w.spec?.active !== false) return undefined;
  const evicted = condition(w.status?.conditions, 'Evicted');
  const target = condition(w.status?.conditions, 'DeactivationTarget');
  const from = evicted?.status === 'True' && evicted.reason?.startsWith(DEACTIVATED) ? evicted : target?.status === 'True' ? target : undefined;
  if (!from?.reason) return { reason: DEACTIVATED };
  const bare = from.reason.startsWith(DEACTIVATED + DUE_TO) ? from.reason.slice(DEACTIVATED.length + DUE_TO.length) : from.reason;
  const cause = DEACTIVATION_CAUSES.find((c) => c === bare);
  const detail = from.message?.replace(DEACTIVATED_HEAD, '');
  return { ...(cause ? { cause } : {}), reason: from.reason, ...(detail ? { detail } : {}) };
}

/** What to do about each cause, and the command that retries (the workload made active again). */
function deactivationText(d: Deactivation, w: WorkloadObject, namespace: string): string {
  const name = w.metadata.name ?? '<workload>';
  const retry = `kubectl patch workload -n ${namespace} ${name} --type=merge -p '{"spec":{"active":true}}'`;
  switch (d.cause) {
    case 'RequeuingLimitExceeded':
      return (
        `workload ${name} deactivated: its pods never became ready within ${PODS_READY.timeoutMinutes}m, ` +
        `${PODS_READY.backoffLimitCount + 1} times (Kueue's requeuing limit, ${PODS_READY.backoffLimitCount} requeues); ` +
        `fix the cause shown by kubectl describe pod, then ${retry}`
      );
    case 'AdmissionCheck':
      return (
        `workload ${name} deactivated: an admission check rejected it: ${d.detail ?? 'no message'}; no slice is held for it ` +
        `(flex-start: GKE failed the last ProvisioningRequest or revoked the capacity: kubectl describe provisioningrequests -n ${namespace}); ` +
        `when capacity is available, ${retry}`
      );
    case 'MaximumExecutionTimeExceeded': {
      const limit = w.spec?.maximumExecutionTimeSeconds;
      return (
        `workload ${name} deactivated: it ran past its maximum execution time (${limit !== undefined ? `${limit}s, ` : ''}` +
        `the JobSet's kueue.x-k8s.io/max-exec-time-seconds label; this project sets none); remove or raise the label, then ${retry}`
      );
    }
    default:
      return (
        `workload ${name} deactivated (${d.reason}${d.detail ? `: ${d.detail}` : ''}): not by one of Kueue's limits ` +
        `(spec.active set to false by hand?); to run it again, ${retry}`
      );
  }
}

/** Kueue deactivated the workload (`spec.active: false`): which of its limits, with Kueue's message and the fix. */
export const deactivatedRule: StepRule = ({ workload, pipeline }) => {
  const d = workload ? deactivationOf(workload) : undefined;
  if (!workload || !d) return undefined;
  return { state: 'failed', reason: d.cause ?? d.reason, message: deactivationText(d, workload, pipeline.namespace), details: [] };
};

/** Evicted because its pods were not ready in time (Kueue waitForPodsReady), and requeued: the quota went back. */
export const podsReadyTimeoutRule: StepRule = (f) => {
  const w = f.workload;
  if (!w || isAdmitted(w)) return undefined;
  const evicted = condition(w.status?.conditions, 'Evicted');
  if (!(evicted?.status === 'True' && evicted.reason === 'PodsReadyTimeout')) return undefined;
  return {
    state: 'queued',
    reason: 'PodsReadyTimeout',
    message:
      `evicted: pods not ready within ${PODS_READY.timeoutMinutes}m, requeued ${w.status?.requeueState?.count ?? 1} of ` +
      `${PODS_READY.backoffLimitCount} (workload ${w.metadata.name}; the quota went back)`,
    details: waitLines(f),
  };
};

/**
 * Quota reserved, not admitted: an admission check has not passed yet. On flex-start that is the ProvisioningRequest
 * check (jobs/kueue.ts provisioningObjects): Kueue admits once GKE has provisioned the slice, and the start window
 * opens then. The checks' own messages (GKE's, e.g. an estimate) are shown as Kueue copies them.
 */
export const admissionCheckRule: StepRule = (f) => {
  const w = f.workload;
  if (!w || isAdmitted(w) || !isTrue(w.status?.conditions, 'QuotaReserved')) return undefined;
  const waiting = (w.status?.admissionChecks ?? []).filter((c) => c.state !== 'Ready');
  if (waiting.length === 0) return undefined;
  const checks = waiting.map((c) => `${c.name ?? '?'} ${c.state ?? 'Pending'}${c.message ? ` (${c.message})` : ''}`).join('; ');
  return {
    state: 'queued',
    reason: 'AdmissionChecks',
    message:
      `workload ${w.metadata.name} holds its quota and waits for its admission checks: ${checks}; ` +
      `a flex-start step is admitted once GKE has provisioned its slice (kubectl get provisioningrequests -n ${f.pipeline.namespace})`,
    details: waitLines(f),
  };
};

/** Not admitted: Kueue's message (QuotaReserved=False, an eviction) and what holds the ClusterQueue's quota. */
export const queuedRule: StepRule = (f) => {
  const w = f.workload;
  if (!w || isAdmitted(w)) return undefined;
  const wc = w.status?.conditions;
  const evicted = condition(wc, 'Evicted');
  const reserved = condition(wc, 'QuotaReserved');
  const admitted = condition(wc, 'Admitted');
  const why = evicted?.status === 'True' ? evicted : reserved?.status === 'False' ? reserved : admitted ?? reserved;
  const holders = quotaHolders(w, f.snapshot.workloads, f.ctx.clusterQueue);
  return {
    state: 'queued',
    reason: why?.reason ?? 'Pending',
    message: `workload ${w.metadata.name}: ${why?.message ?? 'waiting for Kueue to evaluate it'}` + (holders.length > 0 ? `; quota held by ${holders.join(', ')}` : ''),
    details: waitLines(f),
  };
};

/** Suspended and no workload yet: Kueue has not seen it. */
export const suspendedRule: StepRule = (f) => {
  if (f.workload || !isTrue(f.jobSet?.status?.conditions, 'Suspended')) return undefined;
  return { state: 'queued', reason: 'Suspended', message: 'waiting for Kueue to create and admit its workload', details: waitLines(f) };
};

function held(f: StepFacts): { chips?: number } {
  const chips = f.workload ? chipsHeld(f.workload) : 0;
  return chips > 0 ? { chips } : {};
}

/** Admitted, and a pod cannot run: the image, the token mount, scheduling, a crash loop, with the fix. */
export const podProblemRule: StepRule = (f) => {
  for (const pod of f.pods) {
    const problem = podProblem(pod, f.snapshot.events, f.pipeline, f.step);
    if (problem) return { state: 'pending', reason: problem.reason, message: problem.message, ...held(f), details: waitLines(f) };
  }
  return undefined;
};

/** Admitted, and the main pod is not running yet (or not created). */
export const notRunningRule: StepRule = (f) => {
  const main = f.main;
  if (main?.status?.phase === 'Running' || main?.status?.phase === 'Succeeded') return undefined;
  const waiting = main?.status?.containerStatuses?.find((c) => c.name === MAIN_CONTAINER)?.state?.waiting?.reason;
  return {
    state: 'pending',
    reason: waiting ?? (main ? 'PodPending' : 'PodsNotCreated'),
    message: main ? `pod ${main.metadata.name} is ${main.status?.phase ?? 'Pending'}` : 'admitted; waiting for the JobSet controller to create pods',
    ...held(f),
    details: waitLines(f),
  };
};

/** Running (or stalled): progress and ETA from the log, restarts, what it did so far. */
export const runningRule: StepRule = (f) => {
  const { step, pipeline, ctx } = f;
  const startedAt = started(f.main);
  const elapsedSeconds = startedAt !== undefined ? Math.max(0, Math.round((ctx.now - startedAt) / 1000)) : undefined;
  const total = totalSteps(step);
  const parsed = total !== undefined && f.log !== undefined ? parseProgress(pipeline.trainKind, f.log) : undefined;
  const progress = total !== undefined ? { step: parsed?.step ?? 0, total } : undefined;
  const etaSeconds = parsed && total !== undefined ? eta(parsed, total, startedAt, ctx.now) : undefined;
  const restarts = f.jobSet?.status?.restarts ?? 0;
  const run = summarised(f.step) ? runSummary(f) : undefined;
  const stall = run ? stallOf(run.points, ctx.now) : undefined;
  const restartText = restarts > 0 ? `${restarts} JobSet restart(s), each resumed from the newest checkpoint (${methodRow(pipeline.trainKind).resumeRepeats})` : undefined;
  const why = stall
    ? { reason: 'Stalled', message: `${stallText(stall)}${restartText ? `; ${restartText}` : ''}; its log: npm run logs -- ${pipeline.name} ${step.name}` }
    : restartText
      ? { reason: 'Restarted', message: restartText }
      : {};
  return {
    state: stall ? 'stalled' : 'running',
    ...(progress ? { progress } : {}),
    ...(etaSeconds !== undefined && !stall ? { etaSeconds } : {}),
    ...(elapsedSeconds !== undefined ? { elapsedSeconds } : {}),
    ...held(f),
    ...why,
    ...(stall ? { stall } : {}),
    ...(run ? { run } : {}),
    details: total !== undefined && !parsed ? ['no progress line yet (loading the model, compiling)'] : [],
  };
};

/** The rules in the order they decide; the last always applies. */
export const STEP_RULES: readonly StepRule[] = [
  notCreatedRule,
  completedRule,
  failedRule,
  deactivatedRule,
  podsReadyTimeoutRule,
  admissionCheckRule,
  queuedRule,
  suspendedRule,
  podProblemRule,
  notRunningRule,
  runningRule,
];

/**
 * How long a queued or pending step has waited (since its JobSet was created) and how long the Workflow still waits
 * for it: the step's window (RecordedStep.waitMinutes, jobs/pipeline.ts waitMinutes; the wait task's deadline, jobs/argo.ts)
 * counts from its wait task's start, seconds after the create.
 */
export function waitLines(f: StepFacts): string[] {
  const created = time(f.jobSet?.metadata.creationTimestamp);
  if (created === undefined) return [];
  const waited = Math.max(0, Math.round((f.ctx.now - created) / 1000));
  const left = f.step.waitMinutes * 60 - waited;
  return [
    left > 0
      ? `waiting ${duration(waited)} since its JobSet was created; the Workflow waits up to ${duration(left)} more (this step's window: ${duration(f.step.waitMinutes * 60)})`
      : `waiting ${duration(waited)} since its JobSet was created: past this step's window (${duration(f.step.waitMinutes * 60)}), so the Workflow has ended the run Failed (docs/operations.md, "How a pipeline runs: the Workflow")`,
  ];
}

/** The state of one step. `logs` maps pod name -> log text read for it (see `logRequests`). */
export function stepStatus(pipeline: PipelineRecord, index: number, snapshot: Snapshot, logs: ReadonlyMap<string, string>, ctx: StatusContext): StepStatus {
  const f = stepFacts(pipeline, index, snapshot, logs, ctx);
  const verdict = STEP_RULES.reduce<StepVerdict | undefined>((found, rule) => found ?? rule(f), undefined)!;
  return { name: f.step.name, jobset: f.step.jobSetName, ...verdict };
}

/** `no new step for 42m00s (last step 300 at 2026-12-01T06:40:00.000Z; stalled after 10m00s = max(10m00s, 5 x 1m05s per step))`. */
export function stallText(s: Stall): string {
  const per = s.medianSeconds !== undefined ? `, ${STALL_FACTOR} x ${duration(s.medianSeconds)} per step` : '';
  return `no new step for ${duration(s.silentSeconds)} (last step ${s.lastStep} at ${new Date(s.lastAt).toISOString()}; stalled after ${duration(s.thresholdSeconds)} = max(${duration(STALL_FLOOR_SECONDS)}${per}))`;
}

/** When the workload was admitted (Admitted, else QuotaReserved, while True). */
export function admittedAt(w: WorkloadObject): number | undefined {
  const c = condition(w.status?.conditions, 'Admitted') ?? condition(w.status?.conditions, 'QuotaReserved');
  return c?.status === 'True' ? time(c.lastTransitionTime) : undefined;
}

/** When the JobSet ended (its Completed or Failed condition), else undefined. */
function endedAt(js: JobSetObject): number | undefined {
  const c = [condition(js.status?.conditions, 'Completed'), condition(js.status?.conditions, 'Failed')].find((x) => x?.status === 'True');
  return time(c?.lastTransitionTime);
}

/** What a training step did: chip-hours from its admission, its step lines, MaxText's evaluation. */
export function runSummary(f: StepFacts): RunSummary | undefined {
  const { workload, jobSet, step, pipeline, log, ctx } = f;
  const from = workload ? admittedAt(workload) : undefined;
  const ended = jobSet ? endedAt(jobSet) : undefined;
  const chips = (workload ? chipsHeld(workload) : 0) || (step.tpuChips ?? 0);
  const use = from !== undefined && chips > 0 ? usage(chips, from, ended ?? ctx.now, ended !== undefined, step.waitMinutes, ctx.price?.(pipeline, step)) : undefined;
  const training = step.name === 'train';
  const points = log !== undefined && training ? stepPoints(pipeline.trainKind, log) : [];
  const evaluation = log !== undefined && training ? evaluationOf(log) : undefined;
  const evalRecord = log !== undefined && step.name === 'eval' ? evalRecordOf(log) : undefined;
  if (!use && points.length === 0 && !evaluation && !evalRecord) return undefined;
  return { ...(use ? { usage: use } : {}), points, ...(evaluation ? { evaluation } : {}), ...(evalRecord ? { eval: evalRecord } : {}) };
}

/** Each created step's span, by step name: its JobSet's creation to its end (endedAt), or to `now` while it runs. */
export function stepSpans(pipeline: PipelineRecord, snapshot: Snapshot, now: number): Map<string, Span> {
  const out = new Map<string, Span>();
  for (const step of pipeline.steps) {
    const js = jobSetByName(snapshot, step);
    const from = js ? time(js.metadata.creationTimestamp) : undefined;
    if (js && from !== undefined) out.set(step.name, { from, until: Math.max(from, endedAt(js) ?? now) });
  }
  return out;
}

export function pipelineStatus(pipeline: PipelineRecord, snapshot: Snapshot, logs: ReadonlyMap<string, string>, ctx: StatusContext): PipelineStatus {
  const steps = withLineage(pipeline, pipeline.steps.map((_, i) => stepStatus(pipeline, i, snapshot, logs, ctx)));
  const rates = ctx.costRates?.(pipeline);
  const training = steps.find((s) => s.name !== 'eval' && s.run?.usage)?.run;
  const evaluation = steps.find((s) => s.name === 'eval')?.run;
  const cost = rates ? runCost(pipeline, stepSpans(pipeline, snapshot, ctx.now), training, rates, evaluation) : undefined;
  const ended = steps.some((s) => s.state === 'failed') || steps.every((s) => s.state === 'completed');
  const wf = snapshot.workflows ? pipelineWorkflowOf(snapshot.workflows, pipeline.name) : undefined;
  const engine = wf ? engineView(wf, pipeline.steps.map((s) => s.name)) : undefined;
  const verdict = pipeline.rehearsal ? rehearsalVerdict(pipeline.rehearsal, steps) : undefined;
  return {
    name: pipeline.name,
    steps,
    ...(cost && rates ? { cost: { cost, text: runCostLine(cost, rates, ended) } } : {}),
    ...(engine ? { engine } : {}),
    ...(verdict && pipeline.rehearsal ? { rehearsal: { verdict, lines: rehearsalLines(pipeline.rehearsal, verdict) } } : {}),
  };
}

/**
 * Exit status: 1 when any step failed, 0 when every step completed, else 3 (still running, stalled, queued, pending or
 * not created). A rehearsal whose verdict its Workflow's record gives (status/rehearsal.ts) counts as that verdict.
 */
export function exitCode(pipelines: readonly PipelineStatus[]): 0 | 1 | 3 {
  const verdict = (p: PipelineStatus) => p.rehearsal?.verdict.verdict;
  if (pipelines.some((p) => verdict(p) === 'failed' || p.steps.some((s) => s.state === 'failed'))) return 1;
  return pipelines.every((p) => verdict(p) === 'passed' || p.steps.every((s) => s.state === 'completed')) ? 0 : 3;
}

/** Whether a pipeline has ended (a watch stops when every named one has): all steps completed, or one failed. */
export function isDone(pipeline: PipelineStatus): boolean {
  return pipeline.steps.some((s) => s.state === 'failed') || pipeline.steps.every((s) => s.state === 'completed');
}

/** The step `npm run logs` shows by default: the running one, else the last one created. */
export function defaultLogStep(pipeline: PipelineRecord, snapshot: Snapshot): RecordedStep | undefined {
  const created = pipeline.steps.filter((s) => jobSetByName(snapshot, s));
  const running = created.find((s) => jobSetEnd(jobSetByName(snapshot, s)!) === undefined);
  return running ?? created[created.length - 1];
}
