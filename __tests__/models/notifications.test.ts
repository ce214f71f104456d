/**
 * The synthesized alert policies against the events the controllers really emit: every reason the JobSet controller
 * (jobset v0.12.0) records on a JobSet and every eviction reason Kueue (v0.19.2) records on a Workload, listed here
 * with their source, run through a small model of Cloud Logging's filter (one clause per line, all ANDed) over the
 * policies the app synthesizes. Each policy must match exactly the reasons of its class, on the objects of the
 * pipelines (JobSet names from the jobs/ builders, Workload names as Kueue derives them), and nothing else.
 */
import { jobSet, pipelines, rlLine, sftLine, workloadName } from '../../bench/fake-kube-api';
import { JOBSET_POD_LABELS } from '../../jobs/jobset';
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
};

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
function eventEntry(kind: 'JobSet' | 'Workload', name: string, reason: string, ns = namespace): Entry {
  return {
    logName: 'events',
    resource: { type: 'k8s_cluster', labels: { cluster_name: cluster } },
    jsonPayload: { reason, involvedObject: { kind, name, namespace: ns }, message: 'm' },
  };
}

const steps = pipelines.flatMap((p) => p.steps.map((s) => ({ pipeline: p.name, step: s })));

test('the app synthesizes the four event policies of the cluster', () => {
  expect(logPolicies.map((p) => p.cls).sort()).toEqual(['completed', 'evicted', 'failed', 'restarted']);
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

/**
 * The synthesized stall query, parsed strictly into its parts (a change of its shape fails here):
 * `(max by (namespace_name, pod_name) (<uptime>{...}) > S) unless on (namespace_name, pod_name)
 *  (count by (namespace_name, pod_name) (count_over_time(<lines>{...}[Mm])))`.
 */
function parseStallQuery(q: string) {
  const sel = '([a-z_]+:[a-z0-9_]+)\\{((?:[^}"]|"[^"]*")*)\\}'; // label values are quoted and may hold braces
  const m = new RegExp(
    `^\\(max by \\(namespace_name, pod_name\\) \\(${sel}\\) > (\\d+)\\)\\nunless on \\(namespace_name, pod_name\\)\\n` +
      `\\(count by \\(namespace_name, pod_name\\) \\(count_over_time\\(${sel}\\[(\\d+)m\\]\\)\\)\\)$`,
  ).exec(q);
  if (!m) throw new Error(`stall query of an unexpected shape: ${q}`);
  const matchers = (text: string) =>
    [...text.matchAll(/([a-z_]+)(=~|=)"([^"]*)"/g)].map(([, k, op, v]) => (labels: Record<string, string>) =>
      op === '=' ? labels[k] === v : new RegExp(`^(?:${v})$`).test(labels[k] ?? ''), // PromQL regex matchers are anchored
    );
  return { uptime: { name: m[1], match: matchers(m[2]) }, seconds: Number(m[3]), lines: { name: m[4], match: matchers(m[5]) }, minutes: Number(m[6]) };
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
  const up = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== q.uptime.name || !q.uptime.match.every((f) => f(s.labels)) || s.minute > t || s.minute <= t - LOOKBACK_MINUTES) continue;
    const k = key(s.labels);
    const prev = up.get(k);
    // The uptime value at a sample is the container's age then (seconds); the newest sample wins; max by pod.
    const value = Number(s.labels.__value__);
    if (prev === undefined || value > prev) up.set(k, value);
  }
  const printed = new Set(samples.filter((s) => s.name === q.lines.name && q.lines.match.every((f) => f(s.labels)) && s.minute <= t && s.minute > t - q.minutes).map((s) => key(s.labels)));
  return new Set([...up].filter(([k, v]) => v > q.seconds && !printed.has(k)).map(([k]) => k));
}

describe('the stall alert fires on a running silent trainer only (PromQL model over the synthesized query)', () => {
  const stall = policies.find((p) => p.conditions[0].condition_prometheus_query_language)!;
  const q = parseStallQuery(stall.conditions[0].condition_prometheus_query_language.query);
  const metric = Object.values(resources(infra, 'google_logging_metric'))[0] as any;
  const p = pipelines.find((x) => x.name === 'rl-qwen3')!;
  const train = p.steps.find((s) => s.name === 'train')!;
  const podName = (suffix: string) => `${train.jobSetName}-${train.mainPodSelector[JOBSET_POD_LABELS.replicatedJob]}-0-0-${suffix}`;
  const resource = (pod: string) => ({ monitored_resource: 'k8s_container', cluster_name: cluster, namespace_name: namespace, container_name: 'workload-container', pod_name: pod });

  /** A main container running [from, to) and printing a step line at each of `lines` (minutes). */
  function pod(suffix: string, from: number, to: number, lines: readonly number[]): Sample[] {
    const labels = resource(podName(suffix));
    const up: Sample[] = [];
    // kubernetes.io/container/uptime: sampled every 60 s while the container runs (GKE system metrics).
    for (let m = from; m < to; m++) up.push({ name: q.uptime.name, labels: { ...labels, __value__: String((m - from) * 60) }, minute: m });
    const printed = lines.map((m) => ({ name: q.lines.name, labels: { ...labels, pipeline: p.name, jobset: train.jobSetName }, minute: m }));
    return [...up, ...printed];
  }
  const every = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
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
    expect(q.uptime.name).toBe('kubernetes_io:container_uptime');
    expect(q.lines.name).toBe(`logging_googleapis_com:user_${String(metric.name).replace(/[^A-Za-z0-9_]/g, '_')}`);
    expect(q.seconds).toBe(q.minutes * 60);
    expect(q.uptime.match.every((f) => f(resource(podName('abcde'))))).toBe(true);
    expect(q.uptime.match.every((f) => f({ ...resource(podName('abcde')), container_name: 'pathways-proxy' }))).toBe(false);
    expect(q.uptime.match.every((f) => f(resource(podName('abcde').replace('-0-0-', '-0-1-'))))).toBe(false);
    expect(q.uptime.match.every((f) => f(resource(podName('abcde').replace('-train-', '-to-hf-'))))).toBe(false);
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
});
