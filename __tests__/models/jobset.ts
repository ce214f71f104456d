/**
 * Executable models of what the JobSet controller and the Job API do with a JobSet, from kubernetes-sigs/jobset
 * v0.12.0 and Kubernetes batch/v1:
 * - pkg/webhooks/jobset_webhook.go `ValidateCreate`: generated Job names `<js>-<rjob>-<jobIdx>` (placement.GenJobName)
 *   and pod names `<js>-<rjob>-<jobIdx>-<podIdx>-abcde` (placement.GenPodName + 5-char suffix) must be DNS-1035 labels;
 *   the subdomain (network.subdomain, else the JobSet name: controllers.GetSubdomain) a DNS-1035 label; with a
 *   coordinator, `<js>-<rjob>-<jobIdx>-<podIdx>.<subdomain>` (controllers.CoordinatorEndpoint) a valid label value
 *   (validateCoordinatorLabelValue).
 * - pkg/controllers/failure_policy.go: the first rule whose onJobFailureReasons contains the failed Job's reason
 *   applies; no match -> RestartJobSet (defaultFailurePolicyRuleAction), which fails the JobSet once restarts reach
 *   maxRestarts.
 * - Kubernetes pkg/apis/batch/validation: a podFailurePolicy requires the pod restartPolicy Never; a Job's pods may
 *   only use Never or OnFailure. A pod restarted in place counts against backoffLimit; past it the Job fails with
 *   BackoffLimitExceeded.
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

export type Action = 'FailJobSet' | 'RestartJobSet';

/** What the JobSet controller does when a Job fails with `reason`, after `restarts` restarts. */
export function onJobFailure(js: Obj, reason: string, restarts: number): Action {
  const fp = js.spec.failurePolicy ?? {};
  const rule = (fp.rules ?? []).find((r: Obj) => !r.onJobFailureReasons || r.onJobFailureReasons.includes(reason));
  const action: string = rule?.action ?? 'RestartJobSet';
  if (action === 'RestartJobSet') return restarts >= (fp.maxRestarts ?? 0) ? 'FailJobSet' : 'RestartJobSet';
  return action as Action;
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

/** The Job's reason when its pods fail `failures` times (restarted in place or recreated), or undefined while it runs. */
export function jobAfterFailures(job: Obj, failures: number): string | undefined {
  return failures > (job.backoffLimit ?? 6) ? 'BackoffLimitExceeded' : undefined;
}
