/**
 * Each rule added for issue 45 by id, on a plan of the hostile corpus (corpus.ts), with its severity; and the cases
 * each must leave alone. The corpus test runs the same plans through the CLI.
 */
import { review } from '../../review/findings';
import { reviewPlan } from '../../review/plan';
import { corpus, CorpusCase } from './corpus';

const cases = new Map(corpus().map((c) => [c.id, c] as const));
const findingsOf = (c: CorpusCase, files?: string[]) =>
  review([], files ? [{ stack: 'corpus', text: '{}', json: {}, files }] : [], [reviewPlan('corpus', `${c.id}.json`, c.plan)]);
const only = (id: string, rule: string, files?: string[]) => findingsOf(cases.get(id)!, files).filter((f) => f.rule === rule);

test.each([
  ['helm-values-risk', 'helm-auth-server', 'error'],
  ['helm-values-risk', 'helm-create-server-auth', 'error'],
  ['iam-principal-wide', 'iam-allusers', 'error'],
  ['iam-principal-wide', 'iam-other-project', 'error'],
  ['plan-drift', 'drift-iam', 'error'],
  ['plan-drift', 'drift-bucket', 'warning'],
  ['plan-incomplete', 'deferred-absent', 'error'],
  ['plan-output-changes', 'outputs-sensitive', 'warning'],
  ['plan-provisioner', 'provisioner-real', 'error'],
  ['rbac-change', 'rbac-secrets', 'error'],
  ['rbac-change', 'rbac-benign', 'warning'],
  ['secret-copied-to-kubernetes', 'spc-secret-objects', 'error'],
  ['tpu-step-unseen', 'unseen-yaml-step', 'error'],
  ['workflow-updated-in-place', 'wf-shutdown', 'error'],
  ['workload-identity-widened', 'wi-namespace', 'error'],
  ['plan-deletes-running-workflow', 'wf-delete-completed', 'warning'],
  ['plan-deletes-running-workflow', 'wf-replace-running', 'error'],
])("%s on %s: a finding of severity %s", (rule, id, severity) => {
  expect(only(id, rule).map((f) => f.severity)).toEqual([severity]);
});

test.each([
  ['helm-values-risk', 'helm-benign'],
  ['rbac-change', 'wf-shutdown'],
  ['iam-principal-wide', 'wi-moved-ksa'],
  ['workload-identity-widened', 'iam-allusers'],
  ['plan-incomplete', 'helm-benign'],
  ['tpu-step-unseen', 'wf-shutdown'],
  ['workflow-updated-in-place', 'wf-replace-running'],
])('%s leaves %s alone', (rule, id) => {
  expect(only(id, rule)).toEqual([]);
});

test("stack-folder-files: an override is an error; what synth and Terraform write is not", () => {
  const benign = cases.get('folder-clean')!;
  expect(findingsOf(benign, ['cdk.tf.json', 'assets/', '.terraform/', '.terraform.lock.hcl', 'plan', 'terraform.x.tfstate']).filter((f) => f.rule === 'stack-folder-files')).toEqual([]);
  const found = findingsOf(benign, ['cdk.tf.json', 'zz_override.tf.json', 'x.auto.tfvars']).filter((f) => f.rule === 'stack-folder-files');
  expect(found.map((f) => [f.severity, f.address])).toEqual([['error', 'stacks/corpus/x.auto.tfvars'], ['error', 'stacks/corpus/zz_override.tf.json']]);
  expect(found[1]!.message).toBe('zz_override.tf.json is in the stack folder of corpus: Terraform merges this override over the synthesized stack when it plans and applies, and the review did not read it');
});

test('plan-provisioner: a provisioner in the synthesized stack itself', () => {
  const found = review([], [{ stack: 'infra', text: '', json: { resource: { terraform_data: { hook: { provisioner: [{ 'local-exec': { command: 'id' } }] } } } } }], []);
  expect(found.filter((f) => f.rule === 'plan-provisioner').map((f) => f.address)).toEqual(['terraform_data.hook']);
});
