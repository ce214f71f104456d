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
