/**
 * The GitHub Actions workflows parse, have the shape GitHub expects, and every `run:` calls something that exists:
 * `npm ci`, an npm script from package.json, or an executable repository script (whose own `npm run` calls are
 * checked too, and whose bash syntax is checked with `bash -n`).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');
const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

type Step = { id?: string; name?: string; uses?: string; run?: string; if?: string; with?: Record<string, unknown>; env?: Record<string, unknown> };
type Workflow = { name?: string; on: Record<string, unknown>; permissions?: Record<string, string>; jobs: Record<string, { 'runs-on': string; environment?: string; steps: Step[] }> };

function load(file: string): Workflow {
  return parse(fs.readFileSync(path.join(WORKFLOWS, file), 'utf8')) as Workflow;
}

/** Logical command lines of a `run:` block (continuations joined, comments and blanks dropped). */
function commands(run: string): string[] {
  return run
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/** Why a command does not call something that exists, or undefined when it does. */
function problem(command: string): string | undefined {
  const words = command.split(/\s+/);
  if (words[0] === 'npm') {
    if (words[1] === 'ci') return undefined;
    if (words[1] === 'test') return scripts.test ? undefined : 'package.json has no test script';
    const name = words[1] === 'run' ? words.slice(2).find((w) => !w.startsWith('-')) : undefined;
    return name && scripts[name] ? undefined : `npm script '${name ?? words[1]}' is not in package.json`;
  }
  const file = words[0] === 'bash' ? words[1]! : words[0]!;
  if (!/^(\.\/|\.github\/|scripts\/)/.test(file)) return `'${command}' is not a repository script or npm script`;
  const full = path.join(ROOT, file);
  if (!fs.existsSync(full)) return `${file} does not exist`;
  if (words[0] !== 'bash' && (fs.statSync(full).mode & 0o111) === 0) return `${file} is not executable`;
  return undefined;
}

const files = fs.readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));

test('there are three workflows: the PR review, the infra deploy and the pipeline deploy', () => {
  expect(files.sort()).toEqual(['deploy-infra.yml', 'deploy-pipeline.yml', 'plan-review.yml']);
});

describe.each(files)('%s', (file) => {
  const wf = load(file);

  test('parses into triggers and jobs whose steps each use an action or run a command', () => {
    expect(wf.on).toBeDefined();
    expect(Object.keys(wf.jobs).length).toBeGreaterThan(0);
    for (const job of Object.values(wf.jobs)) {
      expect(job['runs-on']).toBe('ubuntu-latest');
      expect(job.steps.length).toBeGreaterThan(0);
      for (const step of job.steps) {
        expect(Boolean(step.uses) !== Boolean(step.run)).toBe(true);
        // Pinned to a commit (the version in a comment): __tests__/ci/workflows.test.ts.
        if (step.uses) expect(step.uses).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
      }
    }
  });

  test('every run: calls npm ci, an npm script or a repository script that exists', () => {
    const problems = Object.values(wf.jobs)
      .flatMap((job) => job.steps.filter((s) => s.run).flatMap((s) => commands(s.run!)))
      .map(problem)
      .filter((p): p is string => p !== undefined);
    expect(problems).toEqual([]);
  });

  test('steps referenced by id exist', () => {
    const text = fs.readFileSync(path.join(WORKFLOWS, file), 'utf8');
    const ids = new Set(Object.values(wf.jobs).flatMap((j) => j.steps.map((s) => s.id).filter(Boolean)));
    for (const [, id] of text.matchAll(/steps\.([\w-]+)\./g)) expect(ids).toContain(id);
  });
});

test('the repository scripts are valid bash and their npm run calls exist in package.json', () => {
  const dir = path.join(ROOT, '.github', 'scripts');
  for (const file of fs.readdirSync(dir)) {
    const full = path.join(dir, file);
    const text = fs.readFileSync(full, 'utf8');
    expect(text.startsWith('#!/usr/bin/env bash')).toBe(true);
    execFileSync('bash', ['-n', full]);
    for (const [, name] of text.matchAll(/npm run (?:--silent )?([\w:-]+)/g)) {
      expect({ file, script: name, exists: Boolean(scripts[name!]) }).toEqual({ file, script: name, exists: true });
    }
  }
});

test('the PR workflow runs the README test command, the review against the base, and one sticky comment', () => {
  const wf = load('plan-review.yml');
  expect(Object.keys(wf.on)).toEqual(['pull_request']);
  const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
  const runs = steps.map((s) => s.run ?? '');
  expect(runs).toEqual(expect.arrayContaining(['npm ci', 'npm test', '.github/scripts/review-pr.sh', '.github/scripts/post-comment.sh review-report.md']));
  expect(steps.find((s) => s.run === '.github/scripts/review-pr.sh')!.env).toEqual({
    BASE_REF: '${{ github.base_ref }}', PLAN_JOB_RESULT: '${{ needs.plan.result }}', PLANNED: '${{ needs.plan.outputs.planned }}',
  });
  // a failed plan fails its job (no continue-on-error turns a dead script green); plan-stacks.sh leaves markers by trap
  const plans = steps.find((s) => s.id === 'plans') as Record<string, unknown>;
  expect(plans['continue-on-error']).toBeUndefined();
  expect(fs.readFileSync(path.join(ROOT, '.github', 'scripts', 'plan-stacks.sh'), 'utf8')).toContain('trap on_exit EXIT');
  expect(fs.readFileSync(path.join(ROOT, '.github', 'scripts', 'review-pr.sh'), 'utf8')).toContain('--base "origin/${base}"');
  // credentials only when configured: auth, terraform and plans are all gated on the WIF secrets
  for (const s of steps.filter((x) => x.uses?.startsWith('google-github-actions/auth') || x.id === 'plans')) {
    expect(s.if).toMatch(/GCP_WORKLOAD_IDENTITY_PROVIDER != ''/);
  }
  // who may do what: __tests__/ci/workflows.test.ts
  // the comment script edits the comment carrying the report's marker
  const { COMMENT_MARKER } = require('../../review/report') as { COMMENT_MARKER: string };
  expect(fs.readFileSync(path.join(ROOT, '.github', 'scripts', 'post-comment.sh'), 'utf8')).toContain(`marker='${COMMENT_MARKER}'`);
});

test('the pipeline deploy workflow deploys one named pipeline on request behind its protected environment, the reviewed plan only', () => {
  const wf = load('deploy-pipeline.yml');
  expect(Object.keys(wf.on as object)).toEqual(['workflow_dispatch']);
  expect(wf.jobs.deploy!.environment).toBe('pipelines');
  const step = wf.jobs.deploy!.steps!.find((s) => s.run?.includes('deploy-infra.sh'))!;
  // the input reaches the script through the environment, never spliced into the command
  expect(step.run).toBe('.github/scripts/deploy-infra.sh "$PIPELINE"');
  expect(step.env).toMatchObject({ PIPELINE: '${{ inputs.pipeline }}', PIPELINES_ONLY: '1', REVIEWED_PLANS: 'reviewed-plans' });
  // minutes: the apply creates the Workflow and returns (a hosted runner stops a job after 6 hours)
  expect(Number((wf.jobs.deploy as Record<string, unknown>)['timeout-minutes'])).toBeLessThanOrEqual(60);
});

test('the deploy workflow deploys infra on merge behind a protected environment', () => {
  const wf = load('deploy-infra.yml');
  expect(wf.on).toMatchObject({ push: { branches: ['main'] } });
  expect(wf.jobs.deploy!.environment).toBe('infra');
  // applies the saved plan it compared with the reviewed one, never an auto-approved fresh deploy (saved-plans.test.ts)
  const deploy = fs.readFileSync(path.join(ROOT, '.github', 'scripts', 'deploy-infra.sh'), 'utf8');
  expect(deploy).toContain('terraform -chdir="$dir" apply -input=false plan');
  expect(deploy).not.toContain('--auto-approve');
});
