/**
 * Executable models of what the JobSet controller and the Job API do with a JobSet, from kubernetes-sigs/jobset
 * v0.12.0 and Kubernetes batch/v1:
 * - pkg/webhooks/jobset_webhook.go `ValidateCreate`: generated Job names `<js>-<rjob>-<jobIdx>` (placement.GenJobName)
 *   and pod names `<js>-<rjob>-<jobIdx>-<podIdx>-abcde` (placement.GenPodName + 5-char suffix) must be DNS-1035 labels;
 *   the subdomain (network.subdomain, else the JobSet name: controllers.GetSubdomain) a DNS-1035 label; with a
 *   coordinator, `<js>-<rjob>-<jobIdx>-<podIdx>.<subdomain>` (controllers.CoordinatorEndpoint) a valid label value
 *   (validateCoordinatorLabelValue).
 * - pkg/controllers/failure_policy.go: failure policy rules with reasons, message patterns and target replicated
 *   jobs (`onJobFailures`).
 * - Kubernetes pkg/apis/batch/validation: a podFailurePolicy requires the pod restartPolicy Never; a Job's pods may
 *   only use Never or OnFailure. pkg/controller/job (job_controller.go `pastBackoffLimitOnFailure`: the container
 *   restarts of running and pending pods summed, failing at `> 0` when backoffLimit is 0 and at `>= backoffLimit`
 *   otherwise; pod_failure_policy.go `matchPodFailurePolicy`: rules in order, the first match decides), read in
 *   kubernetes/kubernetes at commit 6ae037f1db843e99547258d7dd292301a74ba0eb (the repository is too large to fetch
 *   here; the same code in the release-1.2x branches the search index holds): `jobFailure`. A lost host in every
 *   observation order, per JobSet: `attempt`.
 */
import { Obj } from './synthesized';

const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** The webhook's errors for a JobSet (names part only). */
export function jobSetNameErrors(js: Obj): string[] {
  const name: string = js.metadata.name;
  const errors: string[] = [];
  const dns1035 = (what: string, v: string) => {
    if (v.length > 63 || !DNS_1035.test(v)) errors.push(`${what} '${v}' (${v.length}) is not a DNS-1035 label`);
  };
  dns1035('JobSet name', name);
  const subdomain: string = js.spec.network?.subdomain || name;
  dns1035('subdomain', subdomain);
  for (const rj of js.spec.replicatedJobs) {
    dns1035('Job name', `${name}-${rj.name}-${rj.replicas - 1}`);
    if (rj.template.spec.completionMode === 'Indexed' && rj.template.spec.completions !== undefined) {
      dns1035('pod name', `${name}-${rj.name}-${rj.replicas - 1}-${rj.template.spec.completions - 1}-abcde`);
    }
  }
  const c = js.spec.coordinator;
  if (c) {
    const value = `${name}-${c.replicatedJob}-${c.jobIndex}-${c.podIndex}.${subdomain}`;
    if (value.length > 63 || !LABEL_VALUE.test(value)) errors.push(`coordinator label value '${value}' (${value.length}) is invalid`);
  }
  return errors;
}

/** What the JobSet controller does after a child Job failed. */
export type Action = 'FailJobSet' | 'RestartJobSet' | 'RestartJobSetAndIgnoreMaxRestarts';

/** A failed child Job as the JobSet controller sees it: its replicated job, its Failed condition, when it failed. */
export interface FailedJob {
  readonly replicatedJob: string;
  readonly reason: string;
  /** The Failed condition's message. @default '' */
  readonly message?: string;
  /** Order of the Failed condition's lastTransitionTime (lower = earlier). */
  readonly at: number;
  /** Index of the Job in its replicated job. @default 0 */
  readonly jobIndex?: number;
}

/**
 * jobset v0.12.0 pkg/controllers/failure_policy.go: `findFirstFailedPolicyRuleAndJob` tries the rules in order; a rule
 * applies to a failed Job when `ruleIsApplicable`: onJobFailureReasons empty or containing the reason, AND
 * onJobFailureMessagePatterns empty or one regex matching the message, AND targetReplicatedJobs empty or containing the
 * Job's replicated job. The first rule that applies to any failed Job decides (the earliest such Job is reported). No
 * rule: RestartJobSet (defaultFailurePolicyRuleAction). `restartJobSetActionApplier`: once restartsCountTowardsMax >=
 * maxRestarts the JobSet fails with ReachedMaxRestarts instead. With no failurePolicy at all the JobSet fails.
 */
export function onJobFailures(js: Obj, failed: readonly FailedJob[], restartsCountTowardsMax: number): { action: Action; reason: string } {
  const fp = js.spec.failurePolicy;
  if (!fp) return { action: 'FailJobSet', reason: 'FailedJobs' };
  const applies = (r: Obj, j: FailedJob) =>
    (!(r.onJobFailureReasons ?? []).length || r.onJobFailureReasons.includes(j.reason)) &&
    (!(r.onJobFailureMessagePatterns ?? []).length || r.onJobFailureMessagePatterns.some((p: string) => new RegExp(p).test(j.message ?? ''))) &&
    (!(r.targetReplicatedJobs ?? []).length || r.targetReplicatedJobs.includes(j.replicatedJob));
  const rule = (fp.rules ?? []).find((r: Obj) => failed.some((j) => applies(r, j)));
  const action: Action = rule?.action ?? 'RestartJobSet';
  if (action === 'FailJobSet') return { action, reason: 'FailJobSetFailurePolicyAction' };
  if (action === 'RestartJobSet' && restartsCountTowardsMax >= (fp.maxRestarts ?? 0)) return { action: 'FailJobSet', reason: 'ReachedMaxRestarts' };
  return { action, reason: action === 'RestartJobSet' ? 'RestartJobSetFailurePolicyAction' : 'RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction' };
}

/** Job API validation errors of one replicated job's Job template. */
export function jobValidationErrors(job: Obj): string[] {
  const errors: string[] = [];
  const policy = job.template.spec.restartPolicy;
  if (!['Never', 'OnFailure'].includes(policy)) errors.push(`restartPolicy ${policy} is not allowed in a Job`);
  if (job.podFailurePolicy && policy !== 'Never') errors.push('podFailurePolicy requires restartPolicy Never');
  for (const rule of job.podFailurePolicy?.rules ?? []) {
    const name = rule.onExitCodes?.containerName;
    if (name && !(job.template.spec.containers ?? []).some((c: Obj) => c.name === name)) errors.push(`onExitCodes.containerName ${name} is no container`);
  }
  return errors;
}

/** One failure of one pod of a Job, as the Job controller observes it. */
export type PodEvent =
  /** The pod ended Failed: its main container's exit code (none when the pod was deleted with its node), and whether it carries DisruptionTarget=True. */
  | { readonly kind: 'podFailed'; readonly exitCode?: number; readonly container?: string; readonly disrupted: boolean }
  /** A container exited non-zero and the kubelet restarted it in place (restartPolicy OnFailure only). */
  | { readonly kind: 'containerRestarted' };

/**
 * Kubernetes pkg/controller/job/pod_failure_policy.go `matchPodFailurePolicy`: rules in order; `onExitCodes` matches
 * when a container (of `containerName`, if set) terminated with a non-zero code In / NotIn `values`; `onPodConditions`
 * when the pod has the condition with that status. Returns the first matching rule's action, or undefined.
 */
export function podFailurePolicyAction(job: Obj, e: Extract<PodEvent, { kind: 'podFailed' }>): string | undefined {
  for (const rule of job.podFailurePolicy?.rules ?? []) {
    const codes = rule.onExitCodes;
    if (codes) {
      const nameOk = !codes.containerName || codes.containerName === (e.container ?? codes.containerName);
      const code = e.exitCode;
      if (nameOk && code !== undefined && code !== 0 && (codes.operator === 'In' ? codes.values.includes(code) : !codes.values.includes(code))) return rule.action;
    }
    for (const c of rule.onPodConditions ?? []) if (c.type === 'DisruptionTarget' && c.status === 'True' && e.disrupted) return rule.action;
  }
  return undefined;
}

/**
 * The Job's failure reason after `events` (in the order observed), or undefined while it runs. Kubernetes
 * pkg/controller/job/job_controller.go: FailJob -> PodFailurePolicy at once; Ignore -> not counted; Count or no match
 * -> a failed pod, and the Job fails BackoffLimitExceeded when failed pods > backoffLimit; with restartPolicy
 * OnFailure, `pastBackoffLimitOnFailure`: container restarts of running pods >= backoffLimit (> 0 when backoffLimit is 0).
 */
export function jobFailure(job: Obj, events: readonly PodEvent[]): string | undefined {
  const limit: number = job.backoffLimit ?? 6;
  const onFailure = job.template.spec.restartPolicy === 'OnFailure';
  let failed = 0;
  let restarts = 0;
  for (const e of events) {
    if (e.kind === 'containerRestarted') {
      if (!onFailure) throw new Error('a container restarts in place only under restartPolicy OnFailure');
      restarts += 1;
      if (limit === 0 ? restarts > 0 : restarts >= limit) return 'BackoffLimitExceeded';
      continue;
    }
    const action = podFailurePolicyAction(job, e);
    if (action === 'FailJob') return 'PodFailurePolicy';
    if (action === 'Ignore') continue;
    failed += 1;
    if (failed > limit) return 'BackoffLimitExceeded';
  }
  return undefined;
}

/** The Job's reason when its pods fail `failures` times (restarted in place or recreated), or undefined while it runs. */
export function jobAfterFailures(job: Obj, failures: number): string | undefined {
  const onFailure = job.template.spec.restartPolicy === 'OnFailure';
  return jobFailure(job, Array.from({ length: failures }, () => (onFailure ? { kind: 'containerRestarted' as const } : { kind: 'podFailed' as const, exitCode: 1, disrupted: false })));
}

/** A pod event of one Job of a replicated job, for `attempt`. */
export interface JobSetEvent {
  readonly replicatedJob: string;
  readonly jobIndex: number;
  readonly event: PodEvent;
}

/**
 * One attempt of a JobSet: the events in the order observed; each Job's state follows `jobFailure`. The JobSet
 * controller acts on the failed Jobs it sees when it reconciles: `seenAt: 'first'` reconciles as soon as one Job
 * failed, `'all'` after every event (a slow reconcile that sees every failed Job at once). Returns the action, or
 * undefined when no Job failed.
 */
export function attempt(js: Obj, events: readonly JobSetEvent[], restarts: number, seenAt: 'first' | 'all'): { action: Action; reason: string } | undefined {
  const perJob = new Map<string, PodEvent[]>();
  const failed: FailedJob[] = [];
  events.forEach((e, at) => {
    const key = `${e.replicatedJob}/${e.jobIndex}`;
    if (failed.some((f) => `${f.replicatedJob}/${f.jobIndex ?? 0}` === key)) return;
    const list = [...(perJob.get(key) ?? []), e.event];
    perJob.set(key, list);
    const rj = js.spec.replicatedJobs.find((r: Obj) => r.name === e.replicatedJob);
    const reason = jobFailure(rj.template.spec, list);
    if (reason) failed.push({ replicatedJob: e.replicatedJob, reason, at, jobIndex: e.jobIndex });
  });
  if (failed.length === 0) return undefined;
  return onJobFailures(js, seenAt === 'first' ? failed.slice(0, 1) : failed, restarts);
}
