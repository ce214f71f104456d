/**
 * The JobSet admission policy (jobs/admission.ts) evaluated with a CEL implementation: @bufbuild/cel 0.6.1 (Buf's CEL
 * for ECMAScript, run against the cel-spec conformance suite), not cel-go, which Kubernetes embeds (k8s.io/apiserver
 * pins github.com/google/cel-go; no Go toolchain that could build it installs here). What differs from the API
 * server's environment, and why it does not matter for this policy: Kubernetes types `object` from the CRD's OpenAPI
 * schema and adds its libraries (lists, regex, urls, quantity, ip/cidr, format, optional types) and cost limits; the
 * policy uses none of them, only `has`, `in`, `==`, `&&` and the `all` macro, whose semantics are cel-spec's in both,
 * including `has()` on an absent parent being an error (an error in a validation is a denial under failurePolicy
 * Fail, the test treats it as one). `object` here is the plain JSON the API server would decode.
 * Cases: every JobSet the deployed pipelines create (the example configs' steps and every preset rehearsal's verdict
 * writer) passes; each rule refuses its variant; the match condition selects the steps' account only.
 */
import { isCelError, run } from '@bufbuild/cel';
import { jobSetAdmissionObjects, jobSetValidations, stepsUsername } from '../../jobs/admission';
import { RECIPES } from '../../jobs/recipes';
import { loadDeployment } from '../../config/deployment';

type Obj = Record<string, any>;
const deployment = loadDeployment({ env: { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation', REHEARSE: Object.keys(RECIPES).join(',') } });
const platform = deployment.platform;
const validations = jobSetValidations(platform);

/** The messages of the validations that deny `object` (false or an evaluation error). */
function denials(object: Obj): string[] {
  return validations.filter((v) => {
    const r = run(v.expression, { object });
    return isCelError(r) || r !== true;
  }).map((v) => v.message);
}

const jobSets: [string, Obj][] = deployment.pipelines.flatMap((p) => [
  ...p.steps.map((s) => [s.jobSetName, s.manifest as Obj] as [string, Obj]),
  ...(p.verdictWriter ? [[p.verdictWriter.jobSetName, p.verdictWriter.manifest as Obj] as [string, Obj]] : []),
]);

test('the deployment has step JobSets and verdict writers to check', () => {
  expect(jobSets.length).toBeGreaterThan(8);
  expect(jobSets.some(([n]) => n.endsWith('verdict'))).toBe(true);
});

test.each(jobSets)('%s is admitted', (_name, manifest) => {
  expect(denials(manifest)).toEqual([]);
});

const sample = structuredClone(jobSets[0][1]);
const edit = (f: (o: Obj) => unknown): Obj => {
  const o = structuredClone(sample);
  f(o);
  return o;
};

test.each([
  ['no labels at all', (o: Obj): unknown => delete o.metadata.labels, [0, 1]],
  ['another part-of', (o: Obj): unknown => (o.metadata.labels['app.kubernetes.io/part-of'] = 'x'), [0]],
  ['no step label', (o: Obj): unknown => delete o.metadata.labels['tpu-post-training/step'], [0]],
  ['no queue (Kueue would not gate it)', (o: Obj): unknown => delete o.metadata.labels['kueue.x-k8s.io/queue-name'], [1]],
  ['another queue', (o: Obj): unknown => (o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'other-queue'), [1]],
  ['a pod as the namespace default account (serviceAccountName absent)', (o: Obj): unknown => delete o.spec.replicatedJobs[0].template.spec.template.spec.serviceAccountName, [2]],
  ['a pod as the controller\'s account', (o: Obj): unknown => (o.spec.replicatedJobs[0].template.spec.template.spec.serviceAccountName = 'argo-workflow'), [2]],
  ['no replicatedJobs', (o: Obj): unknown => delete o.spec.replicatedJobs, [2]],
] as const)('refused: %s', (_label, f, rules) => {
  expect(denials(edit(f))).toEqual(rules.map((i) => validations[i].message));
});

test('the policy applies to the steps\' account in the pipelines\' namespace only, and denies (binding Deny, failurePolicy Fail)', () => {
  const [policy, binding] = jobSetAdmissionObjects(platform) as Obj[];
  const condition = policy.spec.matchConditions[0].expression;
  expect(run(condition, { request: { userInfo: { username: stepsUsername(platform.namespace) } } })).toBe(true);
  expect(run(condition, { request: { userInfo: { username: 'system:serviceaccount:kueue-system:kueue-controller-manager' } } })).toBe(false);
  expect(policy).toMatchObject({
    apiVersion: 'admissionregistration.k8s.io/v1',
    spec: { failurePolicy: 'Fail', matchConstraints: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': platform.namespace } } } },
  });
  expect(binding).toMatchObject({ kind: 'ValidatingAdmissionPolicyBinding', spec: { policyName: policy.metadata.name, validationActions: ['Deny'] } });
});
