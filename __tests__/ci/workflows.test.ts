/**
 * Who may do what in CI, read from the workflow files:
 * - no workflow grants `id-token: write` (or anything) to all its jobs; each job states its permissions;
 * - only the jobs that authenticate to Google Cloud get `id-token: write`, and each of them `needs` the tests job
 *   (so the pull request's `npm ci`/`npm test` run with no way to mint a Google token);
 * - the deploy job runs in the protected `infra` environment with the deploy identity; the plan job uses the
 *   read-only plan identity and never the deploy one;
 * - every non-local action is pinned to a full commit SHA with its version in a comment. The rule is OpenSSF
 *   Scorecard's Pinned-Dependencies check (ossf/scorecard v5.5.0 checks/raw/pinned_dependencies.go
 *   `isActionDependencyPinned`: local `./...`, `@` + 40 or more hex digits, or `docker://...@sha256:<64 hex>`;
 *   it checks steps' `uses:` and jobs' reusable-workflow `uses:`); here stricter: exactly 40 lowercase hex digits.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');

type Step = { id?: string; uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, unknown> };
type Job = {
  needs?: string | string[];
  permissions?: Record<string, string> | string;
  environment?: string | { name: string };
  env?: Record<string, string>;
  uses?: string;
  steps?: Step[];
};
type Workflow = { on: Record<string, unknown>; env?: Record<string, string>; permissions?: Record<string, string> | string; jobs: Record<string, Job> };

const files = fs.readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));
const text = (file: string) => fs.readFileSync(path.join(WORKFLOWS, file), 'utf8');
const load = (file: string) => parse(text(file)) as Workflow;
const needsOf = (job: Job) => (job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs]);
const envName = (job: Job) => (typeof job.environment === 'string' ? job.environment : job.environment?.name);
const usesGoogleAuth = (job: Job) => (job.steps ?? []).some((s) => s.uses?.startsWith('google-github-actions/auth@'));
/** Every secret a job can read: its env, its steps' env and `with:` values. */
const secretsOf = (job: Job) =>
  [...JSON.stringify([job.env ?? {}, ...(job.steps ?? []).map((s) => [s.env ?? {}, s.with ?? {}])]).matchAll(/secrets\.([A-Z0-9_]+)/g)].map(
    (m) => m[1],
  );

/** Scorecard's rule (pinned_dependencies.go isActionDependencyPinned), as a model to compare with ours. */
function scorecardPinned(uses: string): boolean {
  return /^\..+[^/]/.test(uses) || /.*@[a-fA-F\d]{40,}/.test(uses) || /docker:\/\/.*@sha256:[a-fA-F\d]{64}/.test(uses);
}
/** Ours: local actions, or owner/repo[/path]@<40 lowercase hex>. */
function pinned(uses: string): boolean {
  return uses.startsWith('./') || /^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@[0-9a-f]{40}$/.test(uses);
}

test('the pinning rule agrees with Scorecard on what is pinned, and is stricter', () => {
  for (const u of ['actions/checkout@11d5960a326750d5838078e36cf38b85af677262', './.github/actions/x']) {
    expect([pinned(u), scorecardPinned(u)]).toEqual([true, true]);
  }
  for (const u of ['actions/checkout@v4', 'actions/checkout@v4.4.0', 'actions/checkout@main', 'actions/checkout@11d5960']) {
    expect([pinned(u), scorecardPinned(u)]).toEqual([false, false]);
  }
  // Scorecard accepts 41+ hex and text before the hash; we do not.
  expect(scorecardPinned('actions/checkout@11d5960a326750d5838078e36cf38b85af6772621')).toBe(true);
  expect(pinned('actions/checkout@11d5960a326750d5838078e36cf38b85af6772621')).toBe(false);
});

describe.each(files)('%s', (file) => {
  const wf = load(file);
  const jobs = Object.entries(wf.jobs);

  test('grants nothing at workflow level: every job states its own permissions', () => {
    expect(wf.permissions).toEqual({});
    for (const [name, job] of jobs) expect({ name, permissions: typeof job.permissions }).toEqual({ name, permissions: 'object' });
  });

  test('id-token: write only on jobs that authenticate to Google Cloud, each after the tests job', () => {
    expect(wf.jobs.tests).toBeDefined();
    expect(wf.jobs.tests.permissions).toEqual({ contents: 'read' });
    expect(usesGoogleAuth(wf.jobs.tests)).toBe(false);
    for (const [name, job] of jobs) {
      const perms = job.permissions as Record<string, string>;
      const mints = perms['id-token'] === 'write';
      expect({ name, mints }).toEqual({ name, mints: usesGoogleAuth(job) });
      if (mints) expect({ name, needs: needsOf(job) }).toEqual({ name, needs: expect.arrayContaining(['tests']) });
    }
  });

  test('the tests job reads the repository and nothing else, with no secret', () => {
    expect(secretsOf(wf.jobs.tests)).toEqual([]);
    expect((wf.jobs.tests.steps ?? []).map((s) => s.run).filter(Boolean)).toEqual(['.github/scripts/clean-checkout.sh', 'npm ci', 'npm run fetch-schemas -- "$CRD_SCHEMAS_DIR"', 'npm test']);
  });

  test('every job that runs the repository\'s code starts from a clean checkout: clean-checkout.sh right after the checkout', () => {
    for (const [name, job] of Object.entries(wf.jobs)) {
      const steps = job.steps ?? [];
      const checkout = steps.findIndex((s) => String(s.uses ?? '').startsWith('actions/checkout@'));
      // The comment job checks out the base branch and runs only post-comment.sh and check-review.sh.
      if (checkout < 0 || name === 'comment') continue;
      expect({ name, next: steps[checkout + 1]?.run }).toEqual({ name, next: '.github/scripts/clean-checkout.sh' });
    }
  });

  test('the tests job fetches the CRD schemas and points the CRD suite at them (CI never skips it)', () => {
    const steps = wf.jobs.tests.steps ?? [];
    const fetch = steps.find((s) => s.run?.startsWith('npm run fetch-schemas'))!;
    const test = steps.find((s) => s.run === 'npm test')!;
    expect(fetch.env?.CRD_SCHEMAS_DIR).toMatch(/\S/);
    expect(test.env?.CRD_SCHEMAS_DIR).toBe(fetch.env?.CRD_SCHEMAS_DIR);
    expect(steps.indexOf(fetch)).toBeLessThan(steps.indexOf(test));
    // The CRD suite fails (never skips) without its schemas when CI is set to what this workflow sets.
    expect(wf.env?.CI ?? 'true').not.toMatch(/^(|0|false)$/i);
  });

  test('every non-local action is pinned to a 40-hex commit with its version in a comment', () => {
    const lines = text(file).split('\n');
    const uses = lines.filter((l) => /^\s*(-\s+)?uses:/.test(l));
    expect(uses.length).toBeGreaterThan(0);
    for (const line of uses) {
      const m = /uses:\s*(\S+)(\s+#\s*(\S+))?/.exec(line)!;
      expect({ line, pinned: pinned(m[1]), scorecard: scorecardPinned(m[1]) }).toEqual({ line, pinned: true, scorecard: true });
      if (!m[1].startsWith('./')) expect({ line, version: m[3] }).toEqual({ line, version: expect.stringMatching(/^v\d+\.\d+\.\d+$/) });
    }
    // The parsed YAML has the same uses: (no multi-line or quoted form slipped past the line scan).
    const parsed = jobs.flatMap(([, j]) => [...(j.uses ? [j.uses] : []), ...(j.steps ?? []).map((s) => s.uses).filter((u): u is string => !!u)]);
    expect(parsed).toHaveLength(uses.length);
    for (const u of parsed) expect(pinned(u)).toBe(true);
  });

  test('checkouts do not leave the token in .git/config', () => {
    for (const [, job] of jobs) {
      for (const s of (job.steps ?? []).filter((x) => x.uses?.startsWith('actions/checkout@'))) expect(s.with?.['persist-credentials']).toBe(false);
    }
  });
});

describe('plan-review.yml: the plan identity plans, nothing else can', () => {
  const wf = load('plan-review.yml');

  test('runs on pull_request, never pull_request_target (which would hand fork code the base repository secrets)', () => {
    expect(Object.keys(wf.on)).toEqual(['pull_request']);
  });

  test('only the plan job mints a token, with the plan identity and not the deploy one', () => {
    const minting = Object.entries(wf.jobs).filter(([, j]) => (j.permissions as Record<string, string>)['id-token'] === 'write');
    expect(minting.map(([n]) => n)).toEqual(['plan']);
    const plan = wf.jobs.plan;
    expect(plan.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(secretsOf(plan).sort()).toEqual(['GCP_PLAN_SERVICE_ACCOUNT', 'GCP_WORKLOAD_IDENTITY_PROVIDER']);
    const auth = plan.steps!.find((s) => s.uses?.startsWith('google-github-actions/auth@'))!;
    expect(auth.with).toEqual({ workload_identity_provider: '${{ env.GCP_WORKLOAD_IDENTITY_PROVIDER }}', service_account: '${{ env.GCP_PLAN_SERVICE_ACCOUNT }}' });
    expect(envName(plan)).toBeUndefined();
    for (const [, job] of Object.entries(wf.jobs)) expect(secretsOf(job)).not.toContain('GCP_DEPLOY_SERVICE_ACCOUNT');
    expect(text('plan-review.yml')).not.toMatch(/GCP_SERVICE_ACCOUNT|GCP_DEPLOY_SERVICE_ACCOUNT/);
  });

  test('the write token comments with the base branch’s script; no pull request code runs with it', () => {
    const writers = Object.entries(wf.jobs).filter(([, j]) => Object.values(j.permissions as Record<string, string>).includes('write') && j !== wf.jobs.plan);
    expect(writers.map(([n]) => n)).toEqual(['comment']);
    const comment = wf.jobs.comment;
    expect(comment.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    const checkout = comment.steps!.find((s) => s.uses?.startsWith('actions/checkout@'))!;
    expect(checkout.with?.ref).toBe('${{ github.event.pull_request.base.sha }}');
    expect(comment.steps!.map((s) => s.run).filter(Boolean)).not.toContain('npm ci');
  });
});

describe('deploy-infra.yml: the deploy identity exists only in the protected environment', () => {
  const wf = load('deploy-infra.yml');

  test('the deploy job runs in environment infra after the tests, with the deploy identity', () => {
    const deploy = wf.jobs.deploy;
    expect(envName(deploy)).toBe('infra');
    expect(needsOf(deploy)).toEqual(['tests']);
    // actions/pull-requests read: the merged pull request's reviewed plans (fetch-reviewed-plans.sh)
    expect(deploy.permissions).toEqual({ contents: 'read', 'id-token': 'write', actions: 'read', 'pull-requests': 'read' });
    const auth = deploy.steps!.find((s) => s.uses?.startsWith('google-github-actions/auth@'))!;
    expect(auth.with?.service_account).toBe('${{ secrets.GCP_DEPLOY_SERVICE_ACCOUNT }}');
    expect(secretsOf(deploy)).not.toContain('GCP_PLAN_SERVICE_ACCOUNT');
  });

  test('no job outside the infra environment reads a Google identity secret', () => {
    for (const [name, job] of Object.entries(wf.jobs)) {
      if (envName(job) === 'infra') continue;
      expect({ name, secrets: secretsOf(job) }).toEqual({ name, secrets: [] });
    }
  });
});

describe('deploy-pipeline.yml: the deploy identity exists only in the protected pipelines environment', () => {
  const wf = load('deploy-pipeline.yml');

  test('the deploy job runs in environment pipelines after the tests, with the deploy identity', () => {
    const deploy = wf.jobs.deploy;
    expect(envName(deploy)).toBe('pipelines');
    expect(needsOf(deploy)).toEqual(['tests']);
    expect(deploy.permissions).toEqual({ contents: 'read', 'id-token': 'write', actions: 'read', 'pull-requests': 'read' });
    expect(secretsOf(deploy)).not.toContain('GCP_PLAN_SERVICE_ACCOUNT');
  });

  test('no job outside the pipelines environment reads a Google identity secret', () => {
    for (const [name, job] of Object.entries(wf.jobs)) {
      if (envName(job) === 'pipelines') continue;
      expect({ name, secrets: secretsOf(job) }).toEqual({ name, secrets: [] });
    }
  });
});

test('every job that runs Terraform against the cluster installs gke-gcloud-auth-plugin first (the providers exec it)', () => {
  let checked = 0;
  for (const file of files) {
    for (const [name, job] of Object.entries(load(file).jobs)) {
      const steps = job.steps ?? [];
      const terraform = steps.findIndex((s) => s.uses?.startsWith('hashicorp/setup-terraform@'));
      // Without a Google identity a job cannot reach the cluster: the tests job runs Terraform offline only
      // (terraform_data plans of the preflight tests).
      if (terraform < 0 || !usesGoogleAuth(job)) continue;
      checked++;
      const plugin = steps.findIndex(
        (s) => s.uses?.startsWith('google-github-actions/setup-gcloud@') && String(s.with?.install_components ?? '').includes('gke-gcloud-auth-plugin'),
      );
      expect({ file, name, plugin: plugin >= 0 }).toEqual({ file, name, plugin: true });
    }
  }
  expect(checked).toBeGreaterThanOrEqual(2);
});
