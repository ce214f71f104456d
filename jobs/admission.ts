/**
 * The admission policy that bounds what the pipeline steps' service account (WORKFLOW_SERVICE_ACCOUNT, whose Role may
 * create JobSets: jobs/argo.ts WORKFLOW_RBAC_RULES) can create: only JobSets that carry the pipeline's labels
 * (`app.kubernetes.io/part-of: tpu-post-training` and a `tpu-post-training/step`), the platform's LocalQueue
 * (`kueue.x-k8s.io/queue-name`, so Kueue admits and bounds it) and, in every replicated job's pod template, one of the
 * platform's two workload service accounts (the steps', the verdict writer's). Without it the create grant is any pod
 * in the namespace: any service account, no queue (no quota), any labels. Pure; no cdktf.
 *
 * A ValidatingAdmissionPolicy and its binding, admissionregistration.k8s.io/v1 (GA since Kubernetes 1.30; the cluster
 * follows a release channel whose versions are newer, and TPU pools pin at least 1.34: jobs/tpu.ts). Its CEL is
 * evaluated in __tests__/jobs/admission.test.ts against every pipeline's JobSets and the refused variants.
 */
import { WORKFLOW_SERVICE_ACCOUNT } from './argo';
import { QUEUE_LABEL } from './jobset';
import { PART_OF, PIPELINE_LABELS } from './pipeline';
import type { Platform } from './platform';

/** Name of the policy and of its binding. */
export const JOBSET_POLICY_NAME = 'tpu-post-training-jobsets';

/** The CEL of the policy: one validation per rule, each with the message the API server returns. */
export function jobSetValidations(platform: Pick<Platform, 'localQueue' | 'serviceAccountName' | 'verdictServiceAccountName'>): { expression: string; message: string }[] {
  const label = (key: string) => `has(object.metadata.labels) && ${JSON.stringify(key)} in object.metadata.labels`;
  const accounts = [platform.serviceAccountName, platform.verdictServiceAccountName];
  return [
    {
      expression: `${label(PIPELINE_LABELS.partOf)} && object.metadata.labels[${JSON.stringify(PIPELINE_LABELS.partOf)}] == ${JSON.stringify(PART_OF)} && ${JSON.stringify(PIPELINE_LABELS.step)} in object.metadata.labels`,
      message: `a JobSet of the pipelines carries ${PIPELINE_LABELS.partOf}=${PART_OF} and ${PIPELINE_LABELS.step}`,
    },
    {
      expression: `${label(QUEUE_LABEL)} && object.metadata.labels[${JSON.stringify(QUEUE_LABEL)}] == ${JSON.stringify(platform.localQueue)}`,
      message: `a JobSet of the pipelines is queued in ${QUEUE_LABEL}=${platform.localQueue}`,
    },
    {
      expression:
        `has(object.spec.replicatedJobs) && object.spec.replicatedJobs.all(r, has(r.template.spec.template.spec.serviceAccountName) && ` +
        `r.template.spec.template.spec.serviceAccountName in ${JSON.stringify(accounts)})`,
      message: `every pod of a JobSet of the pipelines runs as ${accounts.join(' or ')}`,
    },
  ];
}

/** The username of the steps' service account in the pipelines' namespace (what the policy applies to). */
export function stepsUsername(namespace: string): string {
  return `system:serviceaccount:${namespace}:${WORKFLOW_SERVICE_ACCOUNT}`;
}

/** The ValidatingAdmissionPolicy and its ValidatingAdmissionPolicyBinding (deny), for the pipelines' namespace. */
export function jobSetAdmissionObjects(platform: Pick<Platform, 'namespace' | 'localQueue' | 'serviceAccountName' | 'verdictServiceAccountName'>): Record<string, unknown>[] {
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: JOBSET_POLICY_NAME },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [{ apiGroups: ['jobset.x-k8s.io'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['jobsets'] }],
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': platform.namespace } },
        },
        matchConditions: [{ name: 'steps-account', expression: `request.userInfo.username == ${JSON.stringify(stepsUsername(platform.namespace))}` }],
        validations: jobSetValidations(platform),
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: JOBSET_POLICY_NAME },
      spec: { policyName: JOBSET_POLICY_NAME, validationActions: ['Deny'] },
    },
  ];
}
