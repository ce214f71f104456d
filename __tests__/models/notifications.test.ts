/**
 * The synthesized alert policies against the events the controllers really emit: every reason the JobSet controller
 * (jobset v0.12.0) records on a JobSet and every eviction reason Kueue (v0.19.2) records on a Workload, listed here
 * with their source, run through a small model of Cloud Logging's filter (one clause per line, all ANDed) over the
 * policies the app synthesizes. Each policy must match exactly the reasons of its class, on the objects of the
 * pipelines (JobSet names from the jobs/ builders, Workload names as Kueue derives them), and nothing else.
 */
import { jobSet, pipelines, rlLine, sftLine, workloadName } from '../../bench/fake-kube-api';
import { JOBSET_POD_LABELS } from '../../jobs/jobset';
import { trainStartMinutes } from '../../jobs/notifications';
import { workflowName } from '../../jobs/argo';
import { SYSTEM_POOL_NAME } from '../../jobs/platform';
import { resources, synthStack, WITH_SINGLE_HOST } from '../util';

// ---- upstream reasons (the facts under test) ---------------------------------------------------------------------

/** Every event reason jobset v0.12.0 records on a JobSet, with where (pkg/constants/constants.go; emitted from pkg/controllers/). */
const JOBSET_REASONS: Readonly<Record<string, string>> = {
  FailedJobs: 'constants.go FailedJobsReason; failure_policy.go executeFailurePolicy (no failure policy), Warning',
  ReachedMaxRestarts: 'constants.go ReachedMaxRestartsReason; failure_policy.go, in_place_restart.go, Warning',
  FailJobSetFailurePolicyAction: 'constants.go FailJobSetActionReason; failure_policy.go failJobSetActionApplier, Warning',
  AllJobsCompleted: 'constants.go AllJobsCompletedReason; jobset_controller.go makeCompletedConditionsOpts, Normal',
  RestartJobSetFailurePolicyAction: 'constants.go RestartJobSetActionReason; failure_policy.go restartJobSetActionApplier, Warning',
  RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction: 'constants.go; failure_policy.go restartJobSetAndIgnoreMaxRestartsActionApplier, Warning',
  RestartJobFailurePolicyAction: 'constants.go RestartJobActionReason; failure_policy.go restartJobActionApplier, Warning',
  RestartJobAndIgnoreMaxRestartsFailurePolicyAction: 'constants.go; failure_policy.go restartJobAndIgnoreMaxRestartsActionApplier, Warning',
  DefaultFailurePolicy: 'constants.go RestartingJobSetReasonDefaultFailurePolicy; the Restarting condition event next to the restart event, Warning',
  FailurePolicy_FailJobSetOnApplicationErrorOrDeadline: 'constants.go RestartingJobSetReasonFailurePolicyFormat (FailurePolicy_%s), Warning',
  JobSetFailed: 'constants.go RestartingJobSetReasonJobSetFailed; Restarting=False on failure, Normal',
  JobSetCompleted: 'constants.go RestartingJobSetReasonJobSetCompleted; Restarting=False on completion, Normal',
  JobSetSuspended: 'constants.go RestartingJobSetReasonJobSetSuspended, Normal',
  SuspendedJobs: 'constants.go JobSetSuspendedReason; jobset_controller.go makeSuspendedConditionOpts, Normal',
  ResumeJobs: 'constants.go JobSetResumedReason; jobset_controller.go makeResumedConditionOpts, Normal',
  JobsReady: 'constants.go RestartingJobSetReasonJobsReady, Normal',
  InOrderStartupPolicyInProgress: 'constants.go; startup_policy.go, Normal',
  InOrderStartupPolicyCompleted: 'constants.go; startup_policy.go, Normal',
  JobCreationFailed: 'constants.go; jobset_controller.go, Warning',
  HeadlessServiceCreationFailed: 'constants.go; jobset_controller.go, Warning',
  PVCCreationFailed: 'constants.go; volume_claim_policy.go, Warning',
};

/**
 * Kueue v0.19.2 reasons on a Workload: evictions are `EvictedDueTo<reason>` (pkg/workload/evict/evict.go
 * reportEvictedWorkload + patching.go ReasonWithCause) for the reasons of apis/kueue/v1beta2/workload_types.go; the
 * rest are the scheduler's and workload controller's other events (pkg/scheduler/scheduler.go,
 * preemption/preemption.go, pkg/controller/core/workload_controller.go).
 */
const KUEUE_EVICTIONS = [
  'EvictedDueToPreempted',
  'EvictedDueToPodsReadyTimeout',
  'EvictedDueToAdmissionCheck',
  'EvictedDueToClusterQueueStopped',
  'EvictedDueToLocalQueueStopped',
  'EvictedDueToNodeFailures',
  'EvictedDueToFlavorMigration',
  'EvictedDueToDeactivated',
  'EvictedDueToDeactivatedDueToRequeuingLimitExceeded',
];
const KUEUE_OTHER = ['QuotaReserved', 'Admitted', 'Preempted', 'PreemptedWorkload', 'Pending', 'SecondPassFailed', 'Deleted', 'AdmissionCheckRejected', 'MaximumExecutionTimeExceeded'];

/** The class each upstream reason must notify as (absent: must not notify). */
const INTENDED: Readonly<Record<string, string>> = {
  FailedJobs: 'failed',
  ReachedMaxRestarts: 'failed',
  FailJobSetFailurePolicyAction: 'failed',
  AllJobsCompleted: 'completed',
  RestartJobSetFailurePolicyAction: 'restarted',
  RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction: 'restarted',
  RestartJobFailurePolicyAction: 'restarted',
  RestartJobAndIgnoreMaxRestartsFailurePolicyAction: 'restarted',
  ...Object.fromEntries(KUEUE_EVICTIONS.map((r) => [r, 'evicted'])),
  WorkflowFailed: 'workflow-failed',
  WorkflowTimedOut: 'workflow-failed',
};

/**
 * Argo Workflows v4.1.2 (16a52d67) reasons on a Workflow: workflow/controller/operator.go `markWorkflowPhase`
 * (2786-2796, when workflowEvents are enabled: the default, config/workflow_events.go) records WorkflowRunning and
 * WorkflowSucceeded (Normal) and WorkflowFailed (Warning, for Failed and Error); operator.go:369, 429, 514 record
 * WorkflowTimedOut (Warning). Node events (`nodeEvents`, operator.go `recordNodePhaseEvent`) are recorded on the
 * Workflow too, with reasons WorkflowNode<phase>.
 */
const ARGO_REASONS = ['WorkflowRunning', 'WorkflowSucceeded', 'WorkflowFailed', 'WorkflowTimedOut', 'WorkflowNodeRunning', 'WorkflowNodeSucceeded', 'WorkflowNodeFailed', 'WorkflowNodeError'];

// ---- a model of the Cloud Logging filter language, for the clauses the policies use ---------------------------

type Entry = Record<string, any>;
function field(entry: Entry, path: string): string | undefined {
  return path.split('.').reduce<any>((o, k) => (o == null ? undefined : o[k]), entry);
}
/** Evaluates one clause: `log_id("x")`, `a.b="v"`, `a.b=("v" OR "w")`, `a.b=~"re2"`. */
function clause(entry: Entry, c: string): boolean {
  let m: RegExpExecArray | null;
  if ((m = /^log_id\("([^"]+)"\)$/.exec(c))) return entry.logName === m[1];
  if ((m = /^([\w.]+)=~"(.*)"$/.exec(c))) return new RegExp(m[2]).test(field(entry, m[1]) ?? '');
  if ((m = /^([\w.]+)=\((.*)\)$/.exec(c))) return m[2].split(' OR ').map((v) => JSON.parse(v)).includes(field(entry, m[1]));
  if ((m = /^([\w.]+)="(.*)"$/.exec(c))) return field(entry, m[1]) === m[2];
  throw new Error(`filter model: unsupported clause ${c}`);
}
const matches = (filter: string, entry: Entry) => filter.split('\n').every((c) => clause(entry, c));
/** `EXTRACT(f)` and `REGEXP_EXTRACT(f, "re")` (the first group). */
function extract(entry: Entry, extractor: string): string | undefined {
  let m: RegExpExecArray | null;
  if ((m = /^EXTRACT\(([\w.]+)\)$/.exec(extractor))) return field(entry, m[1]);
  if ((m = /^REGEXP_EXTRACT\(([\w.]+), "(.*)"\)$/.exec(extractor))) {
    // Cloud Logging: the regular expression has exactly one capturing group.
    expect(new RegExp(`${m[2]}|`).exec('')!.length - 1).toBe(1);
    return new RegExp(m[2]).exec(field(entry, m[1]) ?? '')?.[1];
  }
  throw new Error(`filter model: unsupported extractor ${extractor}`);
}

// ---- the synthesized policies -----------------------------------------------------------------------------------

const infra = synthStack('infra', { ...WITH_SINGLE_HOST, NOTIFY_EMAIL: 'ml-team@example.com' });
const policies = Object.values(resources(infra, 'google_monitoring_alert_policy')) as any[];
const logPolicies = policies
  .filter((p) => p.conditions[0].condition_matched_log)
  .map((p) => ({ cls: p.display_name.split(': step ')[1] as string, ...p.conditions[0].condition_matched_log }));
const cluster = infra.resource.google_container_cluster ? Object.values(infra.resource.google_container_cluster as Record<string, any>)[0].name : undefined;
const namespace = pipelines[0].namespace;

/** A GKE-exported event (log_id("events"), resource k8s_cluster for objects other than pods and nodes). */
function eventEntry(kind: 'JobSet' | 'Workload' | 'Workflow', name: string, reason: string, ns = namespace): Entry {
  return {
    logName: 'events',
    resource: { type: 'k8s_cluster', labels: { cluster_name: cluster } },
    jsonPayload: { reason, involvedObject: { kind, name, namespace: ns }, message: 'm' },
  };
}

const steps = pipelines.flatMap((p) => p.steps.map((s) => ({ pipeline: p.name, step: s })));

test('the app synthesizes the five event policies of the cluster', () => {
  expect(logPolicies.map((p) => p.cls).sort()).toEqual(['completed', 'evicted', 'failed', 'restarted', 'workflow-failed']);
  expect(cluster).toBeDefined();
});

test.each(steps.map((s) => [s.step.jobSetName, s] as const))('every upstream reason on %s notifies exactly its intended class', (_name, { pipeline, step }) => {
  const workload = workloadName(jobSet(step));
  const cases: Array<[Entry, string]> = [
    ...Object.keys(JOBSET_REASONS).map((r) => [eventEntry('JobSet', step.jobSetName, r), r] as [Entry, string]),
    ...[...KUEUE_EVICTIONS, ...KUEUE_OTHER].map((r) => [eventEntry('Workload', workload, r), r] as [Entry, string]),
  ];
  for (const [entry, reason] of cases) {
    const hit = logPolicies.filter((p) => matches(p.filter, entry)).map((p) => p.cls);
    expect({ reason, hit }).toEqual({ reason, hit: INTENDED[reason] ? [INTENDED[reason]] : [] });
    for (const p of logPolicies.filter((x) => matches(x.filter, entry))) {
      // One message per event names the pipeline, the step and the JobSet.
      expect({
        pipeline: extract(entry, p.label_extractors.pipeline),
        step: extract(entry, p.label_extractors.step),
        jobset: extract(entry, p.label_extractors.jobset),
        reason: extract(entry, p.label_extractors.reason),
      }).toEqual({ pipeline, step: step.name, jobset: step.jobSetName, reason });
    }
  }
});

/**
 * A Workflow event as the workflow controller records it (core/v1 Event through client-go's recorder,
 * workflow/events/event_recorder_manager.go:73-77: source component `workflow-controller`) and GKE exports it.
 */
function workflowEvent(name: string, reason: string, message: string, ns = namespace): Entry {
  return {
    logName: 'events',
    resource: { type: 'k8s_cluster', labels: { cluster_name: cluster } },
    jsonPayload: {
      kind: 'Event',
      apiVersion: 'v1',
      type: reason === 'WorkflowFailed' || reason === 'WorkflowTimedOut' || reason.endsWith('Failed') || reason.endsWith('Error') ? 'Warning' : 'Normal',
      reason,
      message,
      involvedObject: { kind: 'Workflow', apiVersion: 'argoproj.io/v1alpha1', name, namespace: ns, uid: '5b0c3e0e-2f43-4f0a-9a57-1f1a6b9c2d11', resourceVersion: '812734' },
      source: { component: 'workflow-controller' },
      reportingComponent: '',
      count: 1,
    },
  };
}

test.each(pipelines.map((p) => [workflowName(p, { systemPool: SYSTEM_POOL_NAME }), p] as const))('Workflow %s: WorkflowFailed and WorkflowTimedOut mail once, naming pipeline, Workflow and message; its other events do not', (name, p) => {
  const message = `child '${name}.train-wait' failed`;
  for (const reason of ARGO_REASONS) {
    const entry = workflowEvent(name, reason, message);
    const hit = logPolicies.filter((x) => matches(x.filter, entry));
    expect({ reason, hit: hit.map((x) => x.cls) }).toEqual({ reason, hit: INTENDED[reason] ? [INTENDED[reason]] : [] });
    for (const x of hit) {
      expect({
        pipeline: extract(entry, x.label_extractors.pipeline),
        workflow: extract(entry, x.label_extractors.workflow),
        reason: extract(entry, x.label_extractors.reason),
        message: extract(entry, x.label_extractors.message),
      }).toEqual({ pipeline: p.name, workflow: name, reason, message });
    }
  }
  // Another run id and another hash are the same pipeline's Workflow; another namespace, a prefix or suffix, or a JobSet of the same name are not.
  expect(logPolicies.filter((x) => matches(x.filter, workflowEvent(name.replace(/-[0-9a-f]{10}$/, '-0123456789'), 'WorkflowFailed', 'm')))).toHaveLength(1);
  for (const other of [workflowEvent(name, 'WorkflowFailed', 'm', 'other-ns'), workflowEvent(`${name}x`, 'WorkflowFailed', 'm'), workflowEvent(`x${name}`, 'WorkflowFailed', 'm'), eventEntry('JobSet', name, 'WorkflowFailed')]) {
    expect(logPolicies.filter((x) => matches(x.filter, other))).toEqual([]);
  }
});

test('the Workflow policy\'s message names the pipeline, the Workflow, the reason and the engine\'s message', () => {
  const policy = (Object.values(resources(infra, 'google_monitoring_alert_policy')) as any[]).find((x) => x.display_name.endsWith(': step workflow-failed'));
  expect(policy.severity).toBe('ERROR');
  // Synthesized as Terraform literals: `$${` is `${` once Terraform has read it, which Cloud Monitoring expands.
  expect(policy.documentation.content).toContain('$${log.extracted_label.message}');
  expect(policy.documentation.content).toContain('npm run status -- $${log.extracted_label.pipeline}');
});

test('events of other namespaces, other objects and other clusters notify nobody', () => {
  const step = steps[0].step;
  const others = [
    eventEntry('JobSet', step.jobSetName, 'FailedJobs', 'other-ns'),
    eventEntry('JobSet', 'someone-elses-jobset', 'FailedJobs'),
    eventEntry('JobSet', `${step.jobSetName}-x`, 'AllJobsCompleted'),
    eventEntry('Workload', `jobset-someone-elses-jobset-abcde`, 'EvictedDueToPreempted'),
    { ...eventEntry('JobSet', step.jobSetName, 'FailedJobs'), resource: { type: 'k8s_cluster', labels: { cluster_name: 'other' } } },
  ];
  for (const entry of others) expect(logPolicies.filter((p) => matches(p.filter, entry))).toEqual([]);
});

test('the step-line metric counts the training main container lines status reads, and names pipeline and JobSet', () => {
  const metric = Object.values(resources(infra, 'google_logging_metric'))[0] as any;
  for (const p of pipelines) {
    const train = p.steps.find((s) => s.name === 'train')!;
    const main = `${train.jobSetName}-${train.mainPodSelector[JOBSET_POD_LABELS.replicatedJob]}-0-0-x7k2p`;
    const line = (p.recipe.train.kind === 'sft' ? sftLine(1, 10) : rlLine(1, 10)).replace(/^\S+ /, '');
    const entry = (pod: string, text: string, container = 'workload-container') => ({
      resource: { type: 'k8s_container', labels: { cluster_name: cluster, namespace_name: namespace, container_name: container, pod_name: pod } },
      textPayload: text,
    });
    expect(matches(metric.filter, entry(main, line))).toBe(true);
    expect(extract(entry(main, line), metric.label_extractors.jobset)).toBe(train.jobSetName);
    expect(extract(entry(main, line), metric.label_extractors.pipeline)).toBe(p.name);
    // Not another line, not another pod of the slice, not a sidecar, not a conversion step.
    expect(matches(metric.filter, entry(main, 'Reshard finished'))).toBe(false);
    expect(matches(metric.filter, entry(main.replace('-0-0-', '-0-1-'), line))).toBe(false);
    expect(matches(metric.filter, entry(main, line, 'pathways-proxy'))).toBe(false);
    expect(matches(metric.filter, entry(main.replace('-train-', '-to-hf-'), line))).toBe(false);
  }
});

// ---- the stall condition: a model of the PromQL it is (Prometheus semantics, Cloud Monitoring metric names) ----------

/** A PromQL label-matcher list `{a="x",b=~"re"}` as predicates (PromQL regex matchers are anchored). */
function matchers(text: string) {
  return [...text.matchAll(/([a-z_]+)(=~|=)"([^"]*)"/g)].map(([, k, op, v]) => (labels: Record<string, string>) =>
    op === '=' ? labels[k] === v : new RegExp(`^(?:${v})$`).test(labels[k] ?? ''),
  );
}
const SEL = '([a-z_]+:[a-z0-9_]+)\\{((?:[^}"]|"[^"]*")*)\\}'; // label values are quoted and may hold braces
const BY_POD = 'on \\(namespace_name, pod_name\\)';
const UP = `\\(max by \\(namespace_name, pod_name\\) \\(${SEL}\\)\\)`;
const LINES = `\\(count by \\(namespace_name, pod_name\\) \\(count_over_time\\(${SEL}\\[(\\d+)m\\]\\)\\)\\)`;

/**
 * The synthesized stall query, parsed strictly into its parts (a change of its shape fails here): per group of
 * pipelines either `(UP > S)` (no start-up budget past the window) or `((UP > D)\nor\n((UP > S) and on (..) LINES[Dm]))`,
 * groups joined by `\nor\n`, then `\nunless on (namespace_name, pod_name)\nLINES[Mm]`.
 */
function parseStallQuery(q: string) {
  const tail = new RegExp(`\\nunless ${BY_POD}\\n${LINES}$`).exec(q);
  if (!tail) throw new Error(`stall query of an unexpected shape: ${q}`);
  let running = q.slice(0, tail.index);
  const groups: Array<{ uptime: { name: string; match: ReturnType<typeof matchers> }; dueSeconds: number; seconds: number; dueMinutes: number }> = [];
  const budget = new RegExp(`\\(\\(${UP} > (\\d+)\\)\\nor\\n\\(\\(${UP} > (\\d+)\\) and ${BY_POD} ${LINES}\\)\\)`, 'g');
  running = running.replace(budget, (...m: string[]) => {
    if (m[1] !== m[4] || m[2] !== m[5] || m[7] !== tail[1]) throw new Error(`stall clause of an unexpected shape: ${m[0]}`);
    groups.push({ uptime: { name: m[1], match: matchers(m[2]) }, dueSeconds: Number(m[3]), seconds: Number(m[6]), dueMinutes: Number(m[9]) });
    return '';
  });
  running = running.replace(new RegExp(`\\(${UP} > (\\d+)\\)`, 'g'), (...m: string[]) => {
    groups.push({ uptime: { name: m[1], match: matchers(m[2]) }, dueSeconds: Number(m[3]), seconds: Number(m[3]), dueMinutes: 0 });
    return '';
  });
  if (!/^[()\nor]*$/.test(running) || groups.length === 0) throw new Error(`stall query of an unexpected shape: ${q}`);
  return { groups, lines: { name: tail[1], match: matchers(tail[2]) }, minutes: Number(tail[3]) };
}

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly minute: number;
}
/** Prometheus: an instant selector sees a series' newest sample within the 5-minute lookback; a range selector every sample in (t - range, t]. */
const LOOKBACK_MINUTES = 5;
function firing(q: ReturnType<typeof parseStallQuery>, samples: readonly Sample[], t: number): Set<string> {
  const key = (l: Record<string, string>) => `${l.namespace_name}/${l.pod_name}`;
  const printedIn = (minutes: number) =>
    new Set(samples.filter((s) => s.name === q.lines.name && q.lines.match.every((f) => f(s.labels)) && s.minute <= t && s.minute > t - minutes).map((s) => key(s.labels)));
  const recent = printedIn(q.minutes);
  const out = new Set<string>();
  for (const g of q.groups) {
    const up = new Map<string, number>();
    for (const s of samples) {
      if (s.name !== g.uptime.name || !g.uptime.match.every((f) => f(s.labels)) || s.minute > t || s.minute <= t - LOOKBACK_MINUTES) continue;
      const k = key(s.labels);
      const prev = up.get(k);
      // The uptime value at a sample is the container's age then (seconds); the newest sample wins; max by pod.
      const value = Number(s.labels.__value__);
      if (prev === undefined || value > prev) up.set(k, value);
    }
    const started = printedIn(g.dueMinutes);
    for (const [k, v] of up) if ((v > g.dueSeconds || (v > g.seconds && started.has(k))) && !recent.has(k)) out.add(k);
  }
  return out;
}

describe('the stall alert fires on a running silent trainer only (PromQL model over the synthesized query)', () => {
  const stall = policies.find((p) => /training stalled$/.test(p.display_name))!;
  const q = parseStallQuery(stall.conditions[0].condition_prometheus_query_language.query);
  const metric = Object.values(resources(infra, 'google_logging_metric')).find((m: any) => /training-step-lines$/.test(m.name)) as any;
  const p = pipelines.find((x) => x.name === 'rl-qwen3')!;
  const train = p.steps.find((s) => s.name === 'train')!;
  const podName = (suffix: string) => `${train.jobSetName}-${train.mainPodSelector[JOBSET_POD_LABELS.replicatedJob]}-0-0-${suffix}`;
  const resource = (pod: string) => ({ monitored_resource: 'k8s_container', cluster_name: cluster, namespace_name: namespace, container_name: 'workload-container', pod_name: pod });

  /** A main container running [from, to) and printing a step line at each of `lines` (minutes). */
  function pod(suffix: string, from: number, to: number, lines: readonly number[]): Sample[] {
    const labels = resource(podName(suffix));
    const up: Sample[] = [];
    // kubernetes.io/container/uptime: sampled every 60 s while the container runs (GKE system metrics).
    for (let m = from; m < to; m++) up.push({ name: q.groups[0].uptime.name, labels: { ...labels, __value__: String((m - from) * 60) }, minute: m });
    const printed = lines.map((m) => ({ name: q.lines.name, labels: { ...labels, pipeline: p.name, jobset: train.jobSetName }, minute: m }));
    return [...up, ...printed];
  }
  const every = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
  const groupOf = (pod: string) => q.groups.find((g) => g.uptime.match.every((f) => f(resource(pod))))!;
  /** rl-qwen3's first step line is due this many minutes after its trainer starts (the synthesized D). */
  const due = groupOf(podName('abcde')).dueSeconds / 60;
  /** Incidents opened over [0, until): a series that starts firing opens one (and sends a notification). */
  function incidents(samples: readonly Sample[], until = 400): Array<{ pod: string; at: number }> {
    const out: Array<{ pod: string; at: number }> = [];
    let before = new Set<string>();
    for (let t = 0; t < until; t++) {
      const now = firing(q, samples, t);
      for (const k of now) if (!before.has(k)) out.push({ pod: k.split('/')[1], at: t });
      before = now;
    }
    return out;
  }

  test('the query reads the GKE uptime metric and the step-line metric by their PromQL names, for the main container only', () => {
    const g = groupOf(podName('abcde'));
    expect(g.uptime.name).toBe('kubernetes_io:container_uptime');
    expect(q.lines.name).toBe(`logging_googleapis_com:user_${String(metric.name).replace(/[^A-Za-z0-9_]/g, '_')}`);
    expect(g.seconds).toBe(q.minutes * 60);
    expect(g.uptime.match.every((f) => f({ ...resource(podName('abcde')), container_name: 'pathways-proxy' }))).toBe(false);
    expect(g.uptime.match.every((f) => f(resource(podName('abcde').replace('-0-0-', '-0-1-'))))).toBe(false);
    expect(g.uptime.match.every((f) => f(resource(podName('abcde').replace('-train-', '-to-hf-'))))).toBe(false);
    // Every pipeline's training main pod is in exactly one group.
    for (const x of pipelines) {
      const t = x.steps.find((st) => st.name === 'train')!;
      const name = `${t.jobSetName}-${t.mainPodSelector[JOBSET_POD_LABELS.replicatedJob]}-0-0-abcde`;
      expect(q.groups.filter((gr) => gr.uptime.match.every((f) => f(resource(name))))).toHaveLength(1);
    }
  });

  test('a running trainer that stops printing: one notification, minutes after the window', () => {
    const got = incidents(pod('aaaaa', 0, 400, every(5, 60)));
    expect(got).toEqual([{ pod: podName('aaaaa'), at: 59 + q.minutes }]); // the last line leaves the window
  });

  test('after completion, failure or destroy, nothing fires (no container runs)', () => {
    expect(incidents(pod('aaaaa', 0, 101, every(5, 100)))).toEqual([]); // completed: the last line, then the container exits
    expect(incidents(pod('aaaaa', 0, 51, every(5, 50)))).toEqual([]); // failed
    expect(incidents(pod('aaaaa', 0, 70, every(5, 70)))).toEqual([]); // destroyed while printing
    // ... while a container that keeps running after its last line does fire (the same samples, the container not gone).
    expect(incidents(pod('aaaaa', 0, 400, every(5, 100)))).toEqual([{ pod: podName('aaaaa'), at: 99 + q.minutes }]);
  });

  test('a restart or requeue window longer than the stall window does not fire', () => {
    // Lines until 60, the pod lost at 61, its replacement pending for 90 minutes, then training again.
    const restart = [...pod('aaaaa', 0, 61, every(5, 61)), ...pod('bbbbb', 151, 400, every(165, 400))];
    expect(incidents(restart)).toEqual([]);
  });

  test('a second restart of the same JobSet inside the window still sends a notification (each restart is a new series)', () => {
    const twice = [...pod('aaaaa', 0, 100, every(5, 40)), ...pod('bbbbb', 105, 200, every(110, 120)), ...pod('ccccc', 205, 400, [])];
    expect(incidents(twice).map((i) => i.pod)).toEqual([podName('aaaaa'), podName('bbbbb'), podName('ccccc')]);
  });

  test("the first step line's due time is the model's start-up budget (weights read twice and compiled twice for RL), past the stall window", () => {
    // qwen3-30b-a3b: 30.5e9 bf16 weights = 61 GB at 50 MB/s = 20.3 min, + 30 min compile, x2 (trainer, vLLM rollout).
    expect(due).toBe(trainStartMinutes('qwen3-30b-a3b', true));
    expect(due).toBeGreaterThan(q.minutes);
    expect(groupOf(podName('abcde')).dueMinutes).toBe(due);
  });

  test('a first step line later than the stall window but before it is due does not fire (the old query fired at the window)', () => {
    expect(incidents(pod('aaaaa', 0, 400, every(45, 400)))).toEqual([]);
    expect(incidents(pod('aaaaa', 0, 400, every(due - 1, 400)))).toEqual([]);
    // Under the old rule (uptime > window, no line in the window) the same pod was an incident at minute 31.
    const old = { groups: [{ ...groupOf(podName('abcde')), dueSeconds: q.minutes * 60, dueMinutes: 0 }], lines: q.lines, minutes: q.minutes };
    expect(firing(old, pod('aaaaa', 0, 400, every(45, 400)), 31).size).toBe(1);
  });

  test('a trainer that never prints a step line fires once its first line is overdue', () => {
    expect(incidents(pod('aaaaa', 0, 400, []))).toEqual([{ pod: podName('aaaaa'), at: due + 1 }]);
  });
});

// ---- the never-started condition: a model of its PromQL over the synthesized query ----------------------------

/**
 * `(count by (jobset) (count_over_time(<events>{..,reason="Admitted"}[Wm] offset Tm)))\nunless on (jobset)\n
 *  (count by (jobset) (count_over_time(<events>{..,reason=~"EvictedDueTo.*"}[Xm])))\nunless on (jobset)\n
 *  (count by (jobset) (label_replace(count_over_time(<uptime>{..}[Xm]), "jobset", "$1", "pod_name", "<re>")))`.
 */
function parseNeverStarted(q: string) {
  const m = new RegExp(
    `^\\(count by \\(jobset\\) \\(count_over_time\\(${SEL}\\[(\\d+)m\\] offset (\\d+)m\\)\\)\\)\\nunless on \\(jobset\\)\\n` +
      `\\(count by \\(jobset\\) \\(count_over_time\\(${SEL}\\[(\\d+)m\\]\\)\\)\\)\\nunless on \\(jobset\\)\\n` +
      `\\(count by \\(jobset\\) \\(label_replace\\(count_over_time\\(${SEL}\\[(\\d+)m\\]\\), "jobset", "\\$1", "pod_name", "([^"]+)"\\)\\)\\)$`,
  ).exec(q);
  if (!m) throw new Error(`never-started query of an unexpected shape: ${q}`);
  return {
    admitted: { name: m[1], match: matchers(m[2]), window: Number(m[3]), offset: Number(m[4]) },
    evicted: { name: m[5], match: matchers(m[6]), window: Number(m[7]) },
    uptime: { name: m[8], match: matchers(m[9]), window: Number(m[10]), jobset: new RegExp(m[11]) },
  };
}

describe('the never-started alert fires for an admitted step whose pods never run (PromQL model over the synthesized query)', () => {
  const policy = policies.find((p) => /step pods never started$/.test(p.display_name))!;
  const q = parseNeverStarted(policy.conditions[0].condition_prometheus_query_language.query);
  const events = Object.values(resources(infra, 'google_logging_metric')).find((m: any) => /workload-events$/.test(m.name)) as any;
  const p = pipelines.find((x) => x.name === 'rl-qwen3')!;
  const conv = p.steps.find((s) => s.name === 'to-maxtext')!;
  const train = p.steps.find((s) => s.name === 'train')!;
  const event = (jobset: string, reason: string, minute: number): Sample => ({
    name: q.admitted.name,
    labels: { monitored_resource: 'k8s_cluster', cluster_name: cluster, jobset, reason },
    minute,
  });
  /** Every container of one pod of `jobset` running [from, to), sampled each minute. */
  const running = (jobset: string, rjob: string, from: number, to: number): Sample[] =>
    Array.from({ length: to - from }, (_, i) => ({
      name: q.uptime.name,
      labels: { monitored_resource: 'k8s_container', cluster_name: cluster, namespace_name: namespace, container_name: 'any', pod_name: `${jobset}-${rjob}-0-0-x1y2z` },
      minute: from + i,
    }));
  function firingAt(samples: readonly Sample[], t: number): Set<string> {
    const admitted = samples.filter(
      (s) => s.name === q.admitted.name && q.admitted.match.every((f) => f(s.labels)) && s.minute <= t - q.admitted.offset && s.minute > t - q.admitted.offset - q.admitted.window,
    );
    const evicted = new Set(samples.filter((s) => s.name === q.evicted.name && q.evicted.match.every((f) => f(s.labels)) && s.minute <= t && s.minute > t - q.evicted.window).map((s) => s.labels.jobset));
    const ran = new Set(
      samples
        .filter((s) => s.name === q.uptime.name && q.uptime.match.every((f) => f(s.labels)) && s.minute <= t && s.minute > t - q.uptime.window)
        .map((s) => q.uptime.jobset.exec(s.labels.pod_name)?.[1]),
    );
    return new Set(admitted.map((s) => s.labels.jobset).filter((j) => !evicted.has(j) && !ran.has(j)));
  }
  function incidents(samples: readonly Sample[], until = 300): Array<{ jobset: string; at: number }> {
    const out: Array<{ jobset: string; at: number }> = [];
    let before = new Set<string>();
    for (let t = 0; t < until; t++) {
      const now = firingAt(samples, t);
      for (const k of now) if (!before.has(k)) out.push({ jobset: k, at: t });
      before = now;
    }
    return out;
  }

  test("the metric counts Kueue's Admitted and EvictedDueTo* events on the steps' Workloads, labelled by JobSet", () => {
    expect(q.admitted.name).toBe(`logging_googleapis_com:user_${String(events.name).replace(/[^A-Za-z0-9_]/g, '_')}`);
    expect(q.evicted.name).toBe(q.admitted.name);
    const wl = eventEntry('Workload', workloadName(jobSet(train)), 'Admitted');
    expect(matches(events.filter, wl)).toBe(true);
    expect(extract(wl, events.label_extractors.jobset)).toBe(train.jobSetName);
    expect(matches(events.filter, eventEntry('Workload', workloadName(jobSet(train)), 'EvictedDueToPodsReadyTimeout'))).toBe(true);
    for (const r of ['QuotaReserved', 'Pending', 'Preempted']) expect(matches(events.filter, eventEntry('Workload', workloadName(jobSet(train)), r))).toBe(false);
    expect(matches(events.filter, eventEntry('JobSet', train.jobSetName, 'Admitted'))).toBe(false);
    expect(q.uptime.window).toBe(q.admitted.offset + q.admitted.window);
    expect(q.evicted.window).toBe(q.uptime.window);
  });

  test('admitted, pods never run: one notification at the bounded time, for any step (a conversion too)', () => {
    expect(incidents([event(train.jobSetName, 'Admitted', 10)])).toEqual([{ jobset: train.jobSetName, at: 10 + q.admitted.offset }]);
    expect(incidents([event(conv.jobSetName, 'Admitted', 0)])).toEqual([{ jobset: conv.jobSetName, at: q.admitted.offset }]);
  });

  test('pods that start (even a step that ends before the bounded time) or an eviction never fire', () => {
    expect(incidents([event(train.jobSetName, 'Admitted', 10), ...running(train.jobSetName, 'pathways-head', 25, 300)])).toEqual([]);
    expect(incidents([event(conv.jobSetName, 'Admitted', 0), ...running(conv.jobSetName, 'convert', 3, 9)])).toEqual([]);
    expect(incidents([event(train.jobSetName, 'Admitted', 10), event(train.jobSetName, 'EvictedDueToPodsReadyTimeout', 30)])).toEqual([]);
  });

  test('an eviction, then a re-admission whose pods never start: the new admission fires', () => {
    const s = [event(train.jobSetName, 'Admitted', 0), ...running(train.jobSetName, 'pathways-head', 5, 60), event(train.jobSetName, 'EvictedDueToNodeFailures', 60), event(train.jobSetName, 'Admitted', 150)];
    expect(incidents(s)).toEqual([{ jobset: train.jobSetName, at: 150 + q.admitted.offset }]);
  });
});

