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
 *   - Argo Workflows v4.1.2 (argoproj/argo-workflows 16a52d67) records on the Workflow object (core/v1 Events, source
 *     component `workflow-controller`, workflow/events/event_recorder_manager.go:73-77): a Warning `WorkflowFailed`
 *     with the Workflow's message when it ends Failed or Error (workflow/controller/operator.go:2786-2796
 *     `markWorkflowPhase`, only when `workflowEvents` is enabled: config/workflow_events.go:9-11 makes it on unless set
 *     false, and argo-helm argo-workflows-1.0.18 renders `workflowEvents.enabled: true` into the controller ConfigMap,
 *     charts/argo-workflows/values.yaml:463-467, templates/controller/workflow-controller-config-map.yaml:210-211), and a
 *     Warning `WorkflowTimedOut` when its deadline ends a reconcile or its entry/exit template (operator.go:369, 429,
 *     514). A Workflow past its `activeDeadlineSeconds` ends Failed, so it sends WorkflowFailed as well.
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
import { trainStartMinutes } from './vllm';

export { trainStartMinutes } from './vllm';
import { WORKFLOW_HASH_LENGTH } from './argo';

/** The Cloud Monitoring incident severities this project uses. */
export type Severity = 'CRITICAL' | 'ERROR' | 'WARNING';

/** One class of event that notifies: which object, which reasons (exactly these, or every reason with a prefix). */
export interface EventClass {
  /** Construct id and display-name part: `failed`, `restarted`, `completed`, `evicted`, `workflow-failed`. */
  readonly id: 'failed' | 'restarted' | 'completed' | 'evicted' | 'workflow-failed';
  /** What happened, for the message: `failed`. */
  readonly verb: string;
  /** The involved object: a step's JobSet or Kueue Workload, or the pipeline's Workflow (jobs/argo.ts). */
  readonly kind: 'JobSet' | 'Workload' | 'Workflow';
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
  {
    id: 'workflow-failed',
    verb: 'ended Failed or Error, or ran out of time',
    kind: 'Workflow',
    reasons: ['WorkflowFailed', 'WorkflowTimedOut'],
    severity: 'ERROR',
    next: 'Which step and why: `npm run status -- <pipeline>` (the Workflow\'s DAG and each step); the engine\'s UI: `npm run workflows-ui`.',
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
  /** The log-based metric of Kueue's `Admitted` and `EvictedDueTo*` events on the steps' Workloads (labels jobset, reason). */
  readonly workloadEvents: { readonly name: string; readonly filter: string; readonly labelExtractors: Readonly<Record<string, string>> };
  /** The never-started alert: a step admitted NEVER_STARTED_MINUTES ago whose pods never ran a container (neverStartedQuery). */
  readonly neverStarted: { readonly minutes: number; readonly query: string; readonly subject: string; readonly content: string };
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
    workloadEvents: workloadEventMetric(scope),
    neverStarted: { minutes: NEVER_STARTED_MINUTES, query: neverStartedQuery(scope), ...neverStartedMessage(NEVER_STARTED_MINUTES) },
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
  /**
   * Minutes after the training container starts by which its first step line is due (trainStartMinutes): until then
   * no step line is not a stall. @default - no start-up budget: the stall threshold alone
   */
  readonly firstStepDueMinutes?: number;
}


/** What notifications need of a pipeline: its name, the step lines it prints, its training main pod's replicated job, its start-up budget. */
export function notifiedPipeline(p: Pipeline): NotifiedPipeline {
  const train = p.steps.find((s) => s.name === 'train')!;
  const due = trainStartMinutes(p.recipe.model.name, methodRow(p.recipe.train.kind).rollout);
  return {
    name: p.name,
    kind: p.recipe.train.kind,
    trainMainReplicatedJob: train.mainPodSelector[JOBSET_POD_LABELS.replicatedJob],
    ...(due !== undefined ? { firstStepDueMinutes: due } : {}),
  };
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

/** RE2 of every pipeline's Workflow name, whatever the run id: jobs/argo.ts workflowName `<pipeline>-<runId>-<hash>`. */
export function workflowNameRe2(scope: NotificationScope): string {
  return `${pipelineAlternation(scope)}-${RUN_ID_RE2}-[0-9a-f]{${WORKFLOW_HASH_LENGTH}}`;
}

function objectNameRe2(cls: EventClass, scope: NotificationScope): string {
  // Kueue: `jobset-<jobset name>-<5 hex>` (workload_names.go).
  if (cls.kind === 'Workflow') return `^${workflowNameRe2(scope)}$`;
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
  if (cls.kind === 'Workflow') {
    // No step: the Workflow's message names it (`child '<workflow>.<step>-wait' failed`, the DAG's failed task).
    return {
      pipeline: `REGEXP_EXTRACT(${name}, "^${pipelineAlternation(scope)}-")`,
      workflow: `EXTRACT(${name})`,
      reason: 'EXTRACT(jsonPayload.reason)',
      message: 'EXTRACT(jsonPayload.message)',
    };
  }
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
  if (cls.kind === 'Workflow') {
    return {
      subject: `tpu-post-training: ${l('pipeline')} Workflow ${cls.id} (${l('reason')})`,
      content:
        `Pipeline **${l('pipeline')}**: Workflow ${l('workflow')} ${cls.verb} (reason \`${l('reason')}\`): ${l('message')}\n\n` +
        `${cls.next.replace(/<pipeline>/g, l('pipeline'))}`,
    };
  }
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
 * The stall condition, PromQL, per group of pipelines with one first-step due time D (NotifiedPipeline
 * firstStepDueMinutes; at least `minutes`): a training main container (`kubernetes.io/container/uptime`, a GKE system
 * metric reported while the container runs) that printed no step line in the last `minutes` (the step-line metric, no
 * sample in the window) AND either has run longer than D (its first step line is overdue, or its lines stopped), or
 * has run longer than `minutes` and printed a step line in the last D (it had started stepping, then stopped). So a
 * container still loading and compiling before its first step line never fires, one that stepped and went silent
 * fires after `minutes`. One series per pod: a completed, failed or deleted pod has no running container, a
 * restart's pending pods none yet, so none of them fires (a step whose pods never start: neverStartedQuery); each
 * restart's new pods are new series. Log-based metric points exist only for intervals with matching entries, so
 * `count_over_time` is used, not `increase`. `and`/`unless` bind tighter than `or` (Prometheus operator precedence);
 * every clause is parenthesized anyway.
 */
export function stallQuery(scope: NotificationScope, container: string, minutes: number): string {
  const where = `monitored_resource="k8s_container",cluster_name="${scope.clusterName}",namespace_name="${scope.namespace}"`;
  const lines = `${promqlMetricName(`logging.googleapis.com/user/${stepLineMetricName(scope.clusterName)}`)}{${where}}`;
  const by = 'on (namespace_name, pod_name)';
  const linesIn = (m: number) => `(count by (namespace_name, pod_name) (count_over_time(${lines}[${m}m])))`;
  const groups = new Map<number, NotifiedPipeline[]>();
  for (const p of scope.pipelines) {
    const due = Math.max(minutes, p.firstStepDueMinutes ?? minutes);
    groups.set(due, [...(groups.get(due) ?? []), p]);
  }
  const clauses = [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([due, ps]) => {
      const pods = trainMainPodRe2({ ...scope, pipelines: ps });
      const up = `(max by (namespace_name, pod_name) (${promqlMetricName('kubernetes.io/container/uptime')}{${where},container_name="${container}",pod_name=~"${pods}"}))`;
      if (due === minutes) return `(${up} > ${minutes * 60})`;
      return `((${up} > ${due * 60})\nor\n((${up} > ${minutes * 60}) and ${by} ${linesIn(due)}))`;
    });
  const running = clauses.length === 0 ? '(vector(0) > 1)' : clauses.length === 1 ? clauses[0] : `(${clauses.join('\nor\n')})`;
  return `${running}\nunless ${by}\n${linesIn(minutes)}`;
}

/**
 * Minutes from a step's admission by Kueue until its pods must have run a container: the nodes exist at admission
 * (a reservation's are up; a flex-start slice is provisioned before its ProvisioningRequest admission check passes,
 * kubernetes-sigs/kueue v0.19.2 pkg/controller/admissionchecks/provisioning/controller.go), so what remains is
 * scheduling and pulling the step's images (the MaxText and Pathways images, tens of GB unpacked). A planning figure.
 */
export const NEVER_STARTED_MINUTES = 30;
/** Minutes the never-started condition holds for one admission (how long it looks back past NEVER_STARTED_MINUTES). */
export const NEVER_STARTED_WINDOW_MINUTES = 10;

/** The log-based metric of Kueue's admission and eviction events on the steps' Workloads. */
export function workloadEventMetric(scope: NotificationScope): { name: string; filter: string; labelExtractors: Record<string, string> } {
  const name = 'jsonPayload.involvedObject.name';
  return {
    name: `tpu-post-training/${scope.clusterName}/workload-events`,
    filter: [
      'log_id("events")',
      `resource.labels.cluster_name="${scope.clusterName}"`,
      `jsonPayload.involvedObject.namespace="${scope.namespace}"`,
      'jsonPayload.involvedObject.kind="Workload"',
      `jsonPayload.involvedObject.name=~"^jobset-${jobSetNameRe2(scope)}-[0-9a-f]{5}$"`,
      'jsonPayload.reason=~"^(Admitted|EvictedDueTo.*)$"',
    ].join('\n'),
    labelExtractors: { jobset: `REGEXP_EXTRACT(${name}, "^jobset-(.+)-[0-9a-f]{5}$")`, reason: 'EXTRACT(jsonPayload.reason)' },
  };
}

/**
 * The never-started condition, PromQL, one series per JobSet: Kueue admitted the step's Workload (its `Admitted`
 * event, kubernetes-sigs/kueue v0.19.2 pkg/scheduler/scheduler.go recordWorkloadAdmissionEvents without admission
 * checks, pkg/controller/core/workload_controller.go once they pass) between T = NEVER_STARTED_MINUTES and
 * T + NEVER_STARTED_WINDOW_MINUTES ago, no eviction since (an evicted step's pods are stopped on purpose), and no
 * container of any pod of that JobSet ran in that time (`kubernetes.io/container/uptime`, pod names start with the
 * JobSet's, label_replace maps them to it). Every step, not only training: a conversion whose pods never start too.
 */
export function neverStartedQuery(scope: NotificationScope): string {
  const t = NEVER_STARTED_MINUTES;
  const span = t + NEVER_STARTED_WINDOW_MINUTES;
  const events = `${promqlMetricName(`logging.googleapis.com/user/${workloadEventMetric(scope).name}`)}{monitored_resource="k8s_cluster",cluster_name="${scope.clusterName}"`;
  const where = `monitored_resource="k8s_container",cluster_name="${scope.clusterName}",namespace_name="${scope.namespace}"`;
  const jobsets = jobSetNameRe2(scope);
  const uptime = `count_over_time(${promqlMetricName('kubernetes.io/container/uptime')}{${where},pod_name=~"${jobsets}-.+"}[${span}m])`;
  return (
    `(count by (jobset) (count_over_time(${events},reason="Admitted"}[${NEVER_STARTED_WINDOW_MINUTES}m] offset ${t}m)))\n` +
    `unless on (jobset)\n(count by (jobset) (count_over_time(${events},reason=~"EvictedDueTo.*"}[${span}m])))\n` +
    `unless on (jobset)\n(count by (jobset) (label_replace(${uptime}, "jobset", "$1", "pod_name", "^(${jobsets})-.+$")))`
  );
}

/** The never-started notification: the incident names the JobSet (the query's `jobset` label). */
export function neverStartedMessage(minutes: number): { subject: string; content: string } {
  return {
    subject: `tpu-post-training: a step's pods never started (admitted ${minutes} min ago, no container ran)`,
    content:
      `Kueue admitted a pipeline step (its JobSet is named in this incident: \`<pipeline>-<run>-<step>\`) ${minutes} minutes ago ` +
      `and none of its pods has run a container since: pods unschedulable, an image that does not pull, or nodes that never came up.\n\n` +
      `\`npm run status -- <pipeline>\` (the step and its pods' reasons) and \`kubectl -n <namespace> describe pods -l jobset.sigs.k8s.io/jobset-name=<jobset>\`. ` +
      `An evicted step (requeued by Kueue) does not fire this alert; its next admission is watched anew.`,
  };
}

/** The labels of a step-line metric (stepLineMetric's labelExtractors), with their descriptions, as the metric descriptor declares them. */
export const STEP_LINE_LABELS: readonly { readonly key: string; readonly valueType: 'STRING'; readonly description: string }[] = [
  { key: 'pipeline', valueType: 'STRING', description: 'pipeline (stack) name' },
  { key: 'jobset', valueType: 'STRING', description: 'JobSet of the training step' },
];

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
      `A training main container (its pod is named in this incident: \`<pipeline>-<run>-train-...\`) printed no training step line ` +
      `in the last ${minutes} minutes, past its first step line's due time (its model's start-up budget: weights read and compile).\n\n` +
      `\`npm run status -- <pipeline>\` (state \`stalled\`, the last step and how long ago) and \`npm run logs -- <pipeline> train\`. ` +
      `A container still loading its model before its first step line is due, a completed, failed or deleted step, and a restart whose pods are not running yet, never fire this alert (pods that never start: the never-started alert).`,
  };
}
