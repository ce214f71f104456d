/**
 * What `NOTIFY_EMAIL` notifies about, as data: the Kubernetes events of a pipeline step's JobSet and Kueue Workload
 * that Cloud Monitoring alert policies match in Cloud Logging, and the log-based metric of training step lines whose
 * absence is a stall. Pure; constructs/notifications.ts turns it into Terraform resources.
 *
 * Facts, read at the pinned versions:
 *   - JobSet v0.12.0 (kubernetes-sigs/jobset) emits its events on the JobSet object through the manager's recorder
 *     `mgr.GetEventRecorder("jobset")` (main.go): reasons in pkg/constants/constants.go; conditions set by
 *     pkg/controllers/jobset_controller.go `setCondition` emit an event with the condition's reason and type.
 *     Failed (Warning): `FailedJobs` (failure_policy.go, no failure policy), `ReachedMaxRestarts` (failure_policy.go,
 *     in_place_restart.go), `FailJobSetFailurePolicyAction` (failure_policy.go). Completed (Normal):
 *     `AllJobsCompleted` (jobset_controller.go). Restarted (Warning, failure_policy.go): `RestartJobSetFailurePolicyAction`,
 *     `RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction`, and per Job `RestartJobFailurePolicyAction`,
 *     `RestartJobAndIgnoreMaxRestartsFailurePolicyAction`; a JobSet restart also sets the `Restarting` condition with
 *     reason `DefaultFailurePolicy` / `FailurePolicy_<rule>`, whose event is left out (one message per restart).
 *   - Kueue v0.19.2 (kubernetes-sigs/kueue) emits an eviction event on the Workload (Normal) with reason
 *     `EvictedDueTo<reason>` (pkg/workload/evict/evict.go `reportEvictedWorkload`, pkg/workload/patching/patching.go
 *     `ReasonWithCause`), e.g. `EvictedDueToPreempted`, `EvictedDueToPodsReadyTimeout`, `EvictedDueToNodeFailures`,
 *     and `EvictedDueToDeactivatedDueTo<cause>` (apis/kueue/v1beta2/workload_types.go). The Workload of a JobSet is
 *     named `jobset-<jobset>-<5 hex>` (pkg/controller/jobframework/workload_names.go).
 *   - Both controllers record through the events.k8s.io API (controller-runtime GetEventRecorder), whose reporting
 *     controller is not the legacy `source.component`, so the filters match the involved object and the reason, not
 *     the source.
 *   - GKE exports cluster events to Cloud Logging as `log_id("events")` with the core/v1 Event as `jsonPayload`
 *     (`jsonPayload.reason`, `jsonPayload.involvedObject.kind|name|namespace`, `jsonPayload.message`), when the
 *     cluster logs SYSTEM_COMPONENTS (constructs/gke-cluster.ts enables it and WORKLOADS) (GKE "About GKE logs": events
 *     are collected by a kube-system deployment). Events of objects other than pods and nodes are on
 *     `resource.type="k8s_cluster"` (GoogleCloudPlatform/gcpdiag's GKE rules query it with `log_id("events")`); the
 *     filters do not rely on that mapping: they select the cluster by `resource.labels.cluster_name`, which the
 *     k8s_cluster, k8s_node and k8s_pod resources all carry.
 *   - Filter syntax (Cloud Logging query language, "Troubleshoot Logging query language"): a line break between
 *     comparisons is AND; `field = ("a" OR "b")` matches either value; `=~` is an RE2 regular expression search
 *     (anchored here with ^ and $); REGEXP_EXTRACT takes a regular expression with exactly one capturing group.
 *   - Container stdout/stderr is `resource.type="k8s_container"` with `resource.labels.namespace_name`, `pod_name`,
 *     `container_name`; absl writes to stderr as plain text (`textPayload`).
 */
import { RUN_ID_PATTERN, jobSetName } from './names';
import { METHOD_ROWS, methodRow, TrainKind } from './methods';
import { STEP_NAMES } from './recipes/types';
import { JOBSET_POD_LABELS } from './jobset';
import type { Pipeline } from './pipeline';

/** The Cloud Monitoring incident severities this project uses. */
export type Severity = 'CRITICAL' | 'ERROR' | 'WARNING';

/** One class of event that notifies: which object, which reasons (exactly these, or every reason with a prefix). */
export interface EventClass {
  /** Construct id and display-name part: `failed`, `restarted`, `completed`, `evicted`. */
  readonly id: 'failed' | 'restarted' | 'completed' | 'evicted';
  /** What happened, for the message: `failed`. */
  readonly verb: string;
  readonly kind: 'JobSet' | 'Workload';
  /** Exactly these reasons. @default - reasonPrefix */
  readonly reasons?: readonly string[];
  /** Every reason starting with this. @default - reasons */
  readonly reasonPrefix?: string;
  readonly severity: Severity;
  /** What to do, for the message. */
  readonly next: string;
}

export const EVENT_CLASSES: readonly EventClass[] = [
  {
    id: 'failed',
    verb: 'failed',
    kind: 'JobSet',
    reasons: ['FailedJobs', 'ReachedMaxRestarts', 'FailJobSetFailurePolicyAction'],
    severity: 'ERROR',
    next: 'Why, and the last log lines: `npm run status -- <pipeline>`; the whole log: `npm run logs -- <pipeline> <step>`.',
  },
  {
    id: 'restarted',
    verb: 'restarted',
    kind: 'JobSet',
    reasons: [
      'RestartJobSetFailurePolicyAction',
      'RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction',
      'RestartJobFailurePolicyAction',
      'RestartJobAndIgnoreMaxRestartsFailurePolicyAction',
    ],
    severity: 'WARNING',
    next: `It resumes from its newest checkpoint (${METHOD_ROWS.map((r) => r.resumeRepeats).join('; ')}); restarts left and progress: \`npm run status -- <pipeline>\`.`,
  },
  {
    id: 'completed',
    verb: 'completed',
    kind: 'JobSet',
    reasons: ['AllJobsCompleted'],
    severity: 'WARNING',
    next: 'What it cost and achieved: `npm run status -- <pipeline> --report`.',
  },
  {
    id: 'evicted',
    verb: 'was evicted by Kueue (its pods are stopped; it is requeued)',
    kind: 'Workload',
    reasonPrefix: 'EvictedDueTo',
    severity: 'WARNING',
    next: 'Why, and what holds the quota now: `npm run status -- <pipeline>`.',
  },
];

/**
 * The stall rule, in one place. `status` (status/metrics.ts) calls a running training step stalled when its last step
 * line is older than max(STALL_FLOOR_SECONDS, STALL_FACTOR x the median interval between its step lines). A Cloud
 * Monitoring absence condition cannot compute a median, so the alert uses a fixed window,
 * DEFAULT_STALL_ALERT_MINUTES (`notify.stallMinutes`), three floors: past what a checkpoint save or an evaluation
 * pass takes. Seconds of silence that never count as a stall (a checkpoint save, an evaluation pass):
 */
export const STALL_FLOOR_SECONDS = 600;
/** A stall is this many median step intervals without a step line. */
export const STALL_FACTOR = 5;

/**
 * Everything the notifications say, as data: per event class its filter, label extractors and message; the step-line
 * metric; the stall threshold and message. Derived once with the deployment (config/deployment.ts), so the construct
 * (constructs/notifications.ts) only turns it into resources.
 */
export interface NotificationPlan {
  readonly clusterName: string;
  readonly events: ReadonlyArray<{
    readonly id: EventClass['id'];
    readonly kind: EventClass['kind'];
    readonly severity: Severity;
    readonly filter: string;
    readonly labelExtractors: Readonly<Record<string, string>>;
    readonly subject: string;
    readonly content: string;
  }>;
  /** The log-based metric of training step lines (its `name`, the metric id under logging.googleapis.com/user/). */
  readonly stepLines: { readonly name: string; readonly filter: string; readonly labelExtractors: Readonly<Record<string, string>> };
  /** The stall alert: a PromQL condition (stallQuery) and its message. */
  readonly stall: { readonly minutes: number; readonly query: string; readonly subject: string; readonly content: string };
}

/**
 * The notification plan of `scope`: `container` prints the step lines; a stall is `stallMinutes` without one
 * (@default DEFAULT_STALL_ALERT_MINUTES).
 */
export function notificationPlan(scope: NotificationScope, container: string, stallMinutes: number = DEFAULT_STALL_ALERT_MINUTES): NotificationPlan {
  return {
    clusterName: scope.clusterName,
    events: EVENT_CLASSES.map((cls) => ({
      id: cls.id,
      kind: cls.kind,
      severity: cls.severity,
      filter: eventFilter(cls, scope),
      labelExtractors: eventLabelExtractors(cls, scope),
      ...eventMessage(cls),
    })),
    stepLines: stepLineMetric(scope, container),
    stall: { minutes: stallMinutes, query: stallQuery(scope, container, stallMinutes), ...stallMessage(stallMinutes) },
  };
}

/** Minutes without a new training step line after which the stall alert fires (a fixed alert threshold). */
export const DEFAULT_STALL_ALERT_MINUTES = 3 * (STALL_FLOOR_SECONDS / 60);

/** A pipeline as far as notifications are concerned. */
export interface NotifiedPipeline {
  readonly name: string;
  /** The trainer kind: its method table row says which step lines the training container prints (jobs/run-log.ts). */
  readonly kind: TrainKind;
  /** The replicated job of the training step's main pod (`slice`, or `pathways-head`). */
  readonly trainMainReplicatedJob: string;
}

/** What notifications need of a pipeline: its name, the step lines it prints, its training main pod's replicated job. */
export function notifiedPipeline(p: Pipeline): NotifiedPipeline {
  const train = p.steps.find((s) => s.name === 'train')!;
  return { name: p.name, kind: p.recipe.train.kind, trainMainReplicatedJob: train.mainPodSelector[JOBSET_POD_LABELS.replicatedJob] };
}

/** Where the events come from. */
export interface NotificationScope {
  readonly clusterName: string;
  readonly namespace: string;
  readonly pipelines: readonly NotifiedPipeline[];
}

const RUN_ID_RE2 = RUN_ID_PATTERN.source.replace(/^\^/, '').replace(/\$$/, '');
const PLACEHOLDER_RUN = 'runid0placeholder';

/** RE2 alternation of the pipelines' names (names are DNS labels: no regex metacharacter but '-'). */
function pipelineAlternation(scope: NotificationScope): string {
  return `(${scope.pipelines.map((p) => p.name).join('|')})`;
}

/** RE2 of every step's JobSet name, whatever the run id: jobs/names.ts jobSetName with the run id as a pattern. */
export function jobSetNameRe2(scope: NotificationScope): string {
  const probe = jobSetName('PIPELINE', PLACEHOLDER_RUN, 'STEP');
  const shape = probe.replace('PIPELINE', pipelineAlternation(scope)).replace(PLACEHOLDER_RUN, RUN_ID_RE2).replace('STEP', `(${STEP_NAMES.join('|')})`);
  return shape;
}

function objectNameRe2(cls: EventClass, scope: NotificationScope): string {
  // Kueue: `jobset-<jobset name>-<5 hex>` (workload_names.go).
  return cls.kind === 'Workload' ? `^jobset-${jobSetNameRe2(scope)}-[0-9a-f]{5}$` : `^${jobSetNameRe2(scope)}$`;
}

function reasonClause(cls: EventClass): string {
  if (cls.reasons) return `jsonPayload.reason=(${cls.reasons.map((r) => `"${r}"`).join(' OR ')})`;
  return `jsonPayload.reason=~"^${cls.reasonPrefix}"`;
}

/** The Cloud Logging filter of one event class (one clause per line). */
export function eventFilter(cls: EventClass, scope: NotificationScope): string {
  return [
    'log_id("events")',
    `resource.labels.cluster_name="${scope.clusterName}"`,
    `jsonPayload.involvedObject.namespace="${scope.namespace}"`,
    `jsonPayload.involvedObject.kind="${cls.kind}"`,
    `jsonPayload.involvedObject.name=~"${objectNameRe2(cls, scope)}"`,
    reasonClause(cls),
  ].join('\n');
}

/**
 * Labels each notification carries (one incident per JobSet and reason): pipeline, step, JobSet, reason. Cloud
 * Logging's REGEXP_EXTRACT takes a regular expression with exactly one capturing group.
 */
export function eventLabelExtractors(cls: EventClass, scope: NotificationScope): Record<string, string> {
  const name = 'jsonPayload.involvedObject.name';
  const prefix = cls.kind === 'Workload' ? 'jobset-' : '';
  const suffix = cls.kind === 'Workload' ? '-[0-9a-f]{5}$' : '$';
  return {
    pipeline: `REGEXP_EXTRACT(${name}, "^${prefix}${pipelineAlternation(scope)}-")`,
    step: `REGEXP_EXTRACT(${name}, "-(${STEP_NAMES.join('|')})${suffix}")`,
    jobset: cls.kind === 'Workload' ? `REGEXP_EXTRACT(${name}, "^jobset-(.+)-[0-9a-f]{5}$")` : `EXTRACT(${name})`,
    reason: 'EXTRACT(jsonPayload.reason)',
  };
}

/** The notification's subject and Markdown body (Cloud Monitoring expands `${log.extracted_label.*}`). */
export function eventMessage(cls: EventClass): { subject: string; content: string } {
  const l = (k: string) => `\${log.extracted_label.${k}}`;
  const what = cls.kind === 'Workload' ? `the Kueue workload of JobSet ${l('jobset')}` : `JobSet ${l('jobset')}`;
  return {
    subject: `tpu-post-training: ${l('pipeline')} ${l('step')} ${cls.id} (${l('reason')})`,
    content:
      `Pipeline **${l('pipeline')}**, step **${l('step')}**: ${what} ${cls.verb} (reason \`${l('reason')}\`).\n\n` +
      `${cls.next.replace(/<pipeline>/g, l('pipeline')).replace(/<step>/g, l('step'))}`,
  };
}

/** RE2 of the training main pods' names, unanchored: `<jobset>-<replicated job>-<job index>-<pod index>-<5 random>` (jobset v0.12.0); job 0, pod 0. */
function trainMainPodRe2(scope: NotificationScope): string {
  const rjobs = [...new Set(scope.pipelines.map((p) => p.trainMainReplicatedJob))];
  const trainJobSet = jobSetNameRe2(scope).replace(`(${STEP_NAMES.join('|')})`, 'train');
  return `${trainJobSet}-(${rjobs.join('|')})-0-0-[a-z0-9]{5}`;
}

/** The step-line metric's id (`logging.googleapis.com/user/<id>`). */
export function stepLineMetricName(clusterName: string): string {
  return `tpu-post-training/${clusterName}/training-step-lines`;
}

/**
 * A Cloud Monitoring metric type as a PromQL metric name (Cloud Monitoring "Mapping Cloud Monitoring metric names to
 * PromQL": the first `/` becomes `:`, every other character but letters, digits and `_` becomes `_`).
 */
export function promqlMetricName(metricType: string): string {
  const i = metricType.indexOf('/');
  const clean = (t: string) => t.replace(/[^A-Za-z0-9_]/g, '_');
  return `${clean(metricType.slice(0, i))}:${clean(metricType.slice(i + 1))}`;
}

/**
 * The stall condition, PromQL: a training main container that has been running longer than `minutes`
 * (`kubernetes.io/container/uptime`, a GKE system metric reported while the container runs) and printed no step line
 * in the last `minutes` (the step-line metric, no sample in the window). One series per pod: a completed, failed or
 * deleted pod has no running container, a restart's pending pods none yet, so none of them fires; each restart's new
 * pods are new series, so a second stall of the same JobSet opens a new incident (a notification) even while the
 * first is open. Log-based metric points exist only for intervals with matching entries, so `count_over_time` is
 * used, not `increase`.
 */
export function stallQuery(scope: NotificationScope, container: string, minutes: number): string {
  const where = `monitored_resource="k8s_container",cluster_name="${scope.clusterName}",namespace_name="${scope.namespace}"`;
  const uptime = `${promqlMetricName('kubernetes.io/container/uptime')}{${where},container_name="${container}",pod_name=~"${trainMainPodRe2(scope)}"}`;
  const lines = `${promqlMetricName(`logging.googleapis.com/user/${stepLineMetricName(scope.clusterName)}`)}{${where}}`;
  return (
    `(max by (namespace_name, pod_name) (${uptime}) > ${minutes * 60})\n` +
    `unless on (namespace_name, pod_name)\n` +
    `(count by (namespace_name, pod_name) (count_over_time(${lines}[${minutes}m])))`
  );
}

/** The log-based metric of training step lines: one count per line of a training step's main container. */
export function stepLineMetric(scope: NotificationScope, container: string): { name: string; filter: string; labelExtractors: Record<string, string> } {
  const pod = 'resource.labels.pod_name';
  const lines = [...new Set(scope.pipelines.map((p) => methodRow(p.kind).log.progressLql))];
  const rjobs = [...new Set(scope.pipelines.map((p) => p.trainMainReplicatedJob))];
  const mainPod = `^${trainMainPodRe2(scope)}$`;
  return {
    name: stepLineMetricName(scope.clusterName),
    filter: [
      'resource.type="k8s_container"',
      `resource.labels.cluster_name="${scope.clusterName}"`,
      `resource.labels.namespace_name="${scope.namespace}"`,
      `resource.labels.container_name="${container}"`,
      `${pod}=~"${mainPod}"`,
      `textPayload=~"${lines.length === 1 ? lines[0] : `(${lines.join('|')})`}"`,
    ].join('\n'),
    labelExtractors: {
      pipeline: `REGEXP_EXTRACT(${pod}, "^${pipelineAlternation(scope)}-")`,
      jobset: `REGEXP_EXTRACT(${pod}, "^(.+-train)-(?:${rjobs.join('|')})-0-0-[a-z0-9]{5}$")`,
    },
  };
}

/**
 * The stall notification. The incident names the pod (the query's `pod_name` label); the pod name starts with the
 * JobSet's, which starts with the pipeline's.
 */
export function stallMessage(minutes: number): { subject: string; content: string } {
  return {
    subject: `tpu-post-training: a training step stalled (running, no step line for ${minutes} min)`,
    content:
      `A training main container (its pod is named in this incident: \`<pipeline>-<run>-train-...\`) has been running for more ` +
      `than ${minutes} minutes and printed no training step line in the last ${minutes} minutes.\n\n` +
      `\`npm run status -- <pipeline>\` (state \`stalled\`, the last step and how long ago) and \`npm run logs -- <pipeline> train\`. ` +
      `A completed, failed or deleted step, and a restart whose pods are not running yet, never fire this alert.`,
  };
}
