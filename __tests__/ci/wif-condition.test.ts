/**
 * The Workload Identity Federation provider's attribute condition (.github/wif-attribute-condition.cel, shown in
 * docs/ci.md) evaluated with a CEL implementation (@bufbuild/cel 0.6.1, the one the admission policy's tests use: the
 * CEL spec's `in`, ternary and `startsWith`) against the OIDC claims GitHub issues to each job (docs.github.com "About
 * security hardening with OpenID Connect": `repository`, `ref`, `event_name`, `job_workflow_ref`, and `environment`
 * only for a job that names one). Every job of the workflows that asks for a token (`id-token: write`) is admitted on
 * each of its triggers; every other combination of repository, event, branch, environment and workflow file is refused.
 */
import * as fs from 'fs';
import * as path from 'path';
import { isCelError, run } from '@bufbuild/cel';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');
const REPO = 'o/r';
const CONDITION = fs.readFileSync(path.join(ROOT, '.github', 'wif-attribute-condition.cel'), 'utf8').split('OWNER/REPO').join(REPO);

type Claims = Record<string, string>;

/** The condition over one claims set: `true`, `false`, or `EvaluationError` (a missing claim: the provider denies). */
function evaluate(condition: string, assertion: Claims): boolean | string {
  const r = run(condition, { assertion });
  if (isCelError(r)) return 'EvaluationError';
  if (typeof r !== 'boolean') throw new Error(`the condition gave ${String(r)}, not a boolean`);
  return r;
}
const admits = (claims: Claims): boolean | string => evaluate(CONDITION, claims);

/** The claims of a job of `file` run by `event` on `ref`, with its environment when it names one. */
function claims(file: string, event: string, ref: string, environment?: string, repository = REPO): Claims {
  return {
    repository, event_name: event, ref, job_workflow_ref: `${repository}/.github/workflows/${file}@${ref}`,
    sub: environment ? `repo:${repository}:environment:${environment}` : `repo:${repository}:ref:${ref}`,
    ...(environment ? { environment } : {}),
  };
}

/** Every job of the repository's workflows: its file, triggers, environment and whether it asks for a token. */
function jobs(): Array<{ file: string; job: string; events: string[]; environment?: string; token: boolean }> {
  const dir = path.join(ROOT, '.github', 'workflows');
  return fs.readdirSync(dir).filter((f) => f.endsWith('.yml')).flatMap((file) => {
    const wf = parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const events = Object.keys(wf.on);
    return Object.entries(wf.jobs as Record<string, any>).map(([job, j]) => ({
      file, job, events, ...(j.environment ? { environment: String(j.environment.name ?? j.environment) } : {}), token: j.permissions?.['id-token'] === 'write',
    }));
  });
}

const refOf = (event: string) => (event === 'pull_request' ? 'refs/pull/7/merge' : 'refs/heads/main');

test('exactly the plan job and the two deploy jobs ask for a token', () => {
  expect(jobs().filter((j) => j.token).map((j) => `${j.file} ${j.job} ${j.environment ?? '-'}`).sort()).toEqual([
    'deploy-infra.yml deploy infra', 'deploy-pipeline.yml deploy pipelines', 'plan-review.yml plan -',
  ]);
});

test.each(jobs().filter((j) => j.token).flatMap((j) => j.events.map((e) => [`${j.file} ${j.job} on ${e}`, j, e] as const)))('%s is admitted', (_name, j, event) => {
  expect(admits(claims(j.file, event, refOf(event), j.environment))).toBe(true);
});

test.each([
  ['another repository\'s plan job', claims('plan-review.yml', 'pull_request', 'refs/pull/7/merge', undefined, 'mallory/r')],
  ['another repository\'s infra deploy', claims('deploy-infra.yml', 'push', 'refs/heads/main', 'infra', 'mallory/r')],
  ['pull_request_target (base secrets with the pull request\'s code)', claims('plan-review.yml', 'pull_request_target', 'refs/heads/main')],
  ['a push to a branch without an environment', claims('plan-review.yml', 'push', 'refs/heads/feature')],
  ['a push to main without an environment', claims('deploy-infra.yml', 'push', 'refs/heads/main')],
  ['a workflow_dispatch without an environment', claims('deploy-pipeline.yml', 'workflow_dispatch', 'refs/heads/main')],
  ['a schedule', claims('plan-review.yml', 'schedule', 'refs/heads/main')],
  ['the infra environment from another branch', claims('deploy-infra.yml', 'workflow_dispatch', 'refs/heads/feature', 'infra')],
  ['the infra environment from a pull request', claims('plan-review.yml', 'pull_request', 'refs/pull/7/merge', 'infra')],
  ['the infra environment from another workflow file', claims('evil.yml', 'push', 'refs/heads/main', 'infra')],
  ['the pipelines environment from the infra workflow', claims('deploy-infra.yml', 'workflow_dispatch', 'refs/heads/main', 'pipelines')],
  ['the pipelines environment on push', claims('deploy-pipeline.yml', 'push', 'refs/heads/main', 'pipelines')],
  ['another environment', claims('deploy-infra.yml', 'push', 'refs/heads/main', 'staging')],
  ['a pull request run of another workflow file', claims('evil.yml', 'pull_request', 'refs/pull/7/merge')],
  ['a pull_request event claiming a branch ref', claims('plan-review.yml', 'pull_request', 'refs/heads/main')],
])('%s is refused', (_name, c) => {
  expect(admits(c)).toBe(false);
});

test('a token without the claims the condition reads is refused (an evaluation error denies), never admitted', () => {
  expect(admits({ repository: REPO })).toBe('EvaluationError');
});

test('the condition documented before issue 45 refused the pipeline deploy (a model of the defect this file fixes)', () => {
  const OLD = `assertion.repository == '${REPO}' && (('environment' in assertion && assertion.environment == 'infra') ? assertion.ref == 'refs/heads/main' : assertion.event_name == 'pull_request')`;
  expect(evaluate(OLD, claims('deploy-pipeline.yml', 'workflow_dispatch', 'refs/heads/main', 'pipelines'))).toBe(false);
});

test('docs/ci.md shows this condition, word for word', () => {
  const docs = fs.readFileSync(path.join(ROOT, 'docs', 'ci.md'), 'utf8');
  expect(docs).toContain(fs.readFileSync(path.join(ROOT, '.github', 'wif-attribute-condition.cel'), 'utf8').trim());
});
