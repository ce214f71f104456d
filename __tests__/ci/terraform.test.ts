/**
 * The tests that run `terraform` never pass by not looking in CI: the rule (__tests__/ci-env.ts), the workflows that
 * install Terraform pinned before `npm test`, and .ci/run, which cannot install it and says so when it skips.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { isCi, seedsTestMode, TERRAFORM_VERSION, terraformTestMode } from '../ci-env';

const ROOT = path.resolve(__dirname, '..', '..');
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');
/** hashicorp/setup-terraform v3.1.2 (`git rev-parse v3.1.2^{commit}` in github.com/hashicorp/setup-terraform). */
const SETUP_TERRAFORM = 'hashicorp/setup-terraform@b9cd54a3c349d3f38e8881555d616ced269862dd';

describe('what a test that runs terraform does', () => {
  test.each([
    ['CI=true', { CI: 'true' }, true],
    ['CI=1', { CI: '1' }, true],
    ['CI= (empty)', { CI: '' }, false],
    ['CI=0', { CI: '0' }, false],
    ['CI=false', { CI: 'False ' }, false],
    ['no CI', {}, false],
  ])('%s is CI: %s', (_name, env, ci) => {
    expect(isCi(env)).toBe(ci);
  });

  test('terraform on PATH: runs, in CI or not', () => {
    expect(terraformTestMode(true, {})).toEqual({ run: true });
    expect(terraformTestMode(true, { CI: 'true' })).toEqual({ run: true });
  });

  test('missing on a developer machine: skipped, saying why', () => {
    expect(terraformTestMode(false, {})).toEqual({ run: false, skip: 'terraform not on PATH' });
    expect(terraformTestMode(false, { CI: 'false' })).toEqual({ run: false, skip: 'terraform not on PATH' });
  });

  test('missing under CI: FAILS, naming the version to install and how', () => {
    const mode = terraformTestMode(false, { CI: 'true' });
    expect(mode).toEqual({ run: false, fail: expect.stringContaining('terraform is not on PATH and CI is set (CI=true): these tests never skip in CI') });
    const fail = (mode as { fail: string }).fail;
    expect(fail).toContain(`install Terraform ${TERRAFORM_VERSION} on PATH`);
    expect(fail).toContain(`hashicorp/setup-terraform with terraform_version ${TERRAFORM_VERSION}`);
    expect(fail).toContain('or set TERRAFORM_TESTS=skip');
  });

  test('TERRAFORM_TESTS=skip skips on purpose, in CI too, and the skip says so', () => {
    expect(terraformTestMode(false, { CI: 'true', TERRAFORM_TESTS: 'skip' })).toEqual({ run: false, skip: 'TERRAFORM_TESTS=skip' });
    expect(terraformTestMode(true, { CI: 'true', TERRAFORM_TESTS: 'skip' })).toEqual({ run: false, skip: 'TERRAFORM_TESTS=skip' });
    expect(terraformTestMode(false, { CI: 'true', TERRAFORM_TESTS: '' })).toMatchObject({ run: false, fail: expect.any(String) });
  });

  test('any other TERRAFORM_TESTS fails, naming the variable, the value and what fits', () => {
    expect(terraformTestMode(true, { TERRAFORM_TESTS: 'no' })).toEqual({ run: false, fail: `TERRAFORM_TESTS (env): must be 'skip' or empty, got "no"` });
  });
});

describe('the tutorial-text test (__tests__/docs.test.ts) without ../shared/seeds', () => {
  test('runs where the seeds are; skips visibly on a developer machine without them', () => {
    expect(seedsTestMode(true, {})).toEqual({ run: true });
    expect(seedsTestMode(true, { CI: 'true' })).toEqual({ run: true });
    expect(seedsTestMode(false, {})).toEqual({ run: false, skip: '../shared/seeds absent' });
  });
  test('fails under CI without them, naming the fix, unless SEEDS_TESTS=skip', () => {
    expect(seedsTestMode(false, { CI: '1' })).toEqual({ run: false, fail: expect.stringContaining('the tutorial texts (../shared/seeds) are absent and CI is set (CI=1)') });
    expect((seedsTestMode(false, { CI: '1' }) as { fail: string }).fail).toContain('or set SEEDS_TESTS=skip');
    expect(seedsTestMode(false, { CI: '1', SEEDS_TESTS: 'skip' })).toEqual({ run: false, skip: 'SEEDS_TESTS=skip' });
    expect(seedsTestMode(true, { SEEDS_TESTS: 'skip' })).toEqual({ run: false, skip: 'SEEDS_TESTS=skip' });
    expect(seedsTestMode(true, { SEEDS_TESTS: 'yes' })).toEqual({ run: false, fail: `SEEDS_TESTS (env): must be 'skip' or empty, got "yes"` });
  });
});

type Step = { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, unknown> };
type Workflow = { env?: Record<string, unknown>; jobs: Record<string, { env?: Record<string, unknown>; steps?: Step[] }> };
const workflows = fs.readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));

describe.each(workflows)('%s', (file) => {
  const text = fs.readFileSync(path.join(WORKFLOWS, file), 'utf8');
  const wf = parse(text) as Workflow;

  test('the tests job installs the pinned Terraform before npm test, under CI', () => {
    const steps = wf.jobs.tests!.steps ?? [];
    const setup = steps.findIndex((s) => s.uses?.startsWith('hashicorp/setup-terraform@'));
    expect(setup).toBeGreaterThanOrEqual(0);
    expect(steps[setup]!.uses).toBe(SETUP_TERRAFORM);
    expect(steps[setup]!.with).toEqual({ terraform_version: TERRAFORM_VERSION, terraform_wrapper: false });
    expect(setup).toBeLessThan(steps.findIndex((s) => s.run === 'npm test'));
    expect(isCi({ CI: String(wf.env?.CI ?? 'true') })).toBe(true);
  });

  test('every Terraform it installs is the same pinned version', () => {
    const setups = Object.values(wf.jobs).flatMap((j) => (j.steps ?? []).filter((s) => s.uses?.startsWith('hashicorp/setup-terraform@')));
    for (const s of setups) expect({ uses: s.uses, version: s.with?.terraform_version }).toEqual({ uses: SETUP_TERRAFORM, version: TERRAFORM_VERSION });
    // The version comment names the release the SHA is.
    for (const line of text.split('\n').filter((l) => l.includes(SETUP_TERRAFORM))) expect(line).toMatch(/# v3\.1\.2$/);
  });

  test('never sets TERRAFORM_TESTS: in GitHub CI the terraform tests run or fail', () => {
    expect(text).not.toContain('TERRAFORM_TESTS');
  });
});

describe('.ci/run (this kind of machine, where no reachable registry ships terraform)', () => {
  /** Runs .ci/run with a fake npm that records what it was called with and whether TERRAFORM_TESTS was set. */
  function ciRun(withTerraform: boolean) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-ci-run-'));
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    const log = path.join(dir, 'npm.log');
    fs.writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho "npm $* TERRAFORM_TESTS=\${TERRAFORM_TESTS-unset}" >> "${log}"\n`, { mode: 0o755 });
    if (withTerraform) fs.writeFileSync(path.join(bin, 'terraform'), `#!/bin/sh\necho "Terraform v${TERRAFORM_VERSION}"\n`, { mode: 0o755 });
    // Every PATH entry but those holding a real terraform.
    const system = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d && !fs.existsSync(path.join(d, 'terraform')));
    const r = spawnSync('bash', [path.join(ROOT, '.ci', 'run')], { env: { PATH: [bin, ...system].join(path.delimiter), CI: 'true', HOME: dir }, encoding: 'utf8' });
    const calls = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
    fs.rmSync(dir, { recursive: true, force: true });
    return { ...r, calls };
  }

  test('without terraform: says so, and runs the tests with TERRAFORM_TESTS=skip', () => {
    const r = ciRun(false);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('ci: terraform is not on PATH and cannot be installed from Debian packages or npm');
    expect(r.stderr).toContain('(TERRAFORM_TESTS=skip)');
    expect(r.calls).toEqual([
      'npm ci --no-audit --no-fund TERRAFORM_TESTS=skip',
      'npm test TERRAFORM_TESTS=skip',
      'npm run --silent test:node-lines TERRAFORM_TESTS=skip',
      'npm run --silent test:cdktn TERRAFORM_TESTS=skip',
      'npm run --silent bench -- --no-targets TERRAFORM_TESTS=skip',
      'npm run --silent rehearse:cpu:test TERRAFORM_TESTS=skip',
    ]);
  });

  test('with terraform: names it, and the terraform tests run (TERRAFORM_TESTS unset)', () => {
    const r = ciRun(true);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`ci: Terraform v${TERRAFORM_VERSION} at `);
    expect(r.calls).toEqual([
      'npm ci --no-audit --no-fund TERRAFORM_TESTS=unset',
      'npm test TERRAFORM_TESTS=unset',
      'npm run --silent test:node-lines TERRAFORM_TESTS=unset',
      'npm run --silent test:cdktn TERRAFORM_TESTS=unset',
      'npm run --silent bench -- --no-targets TERRAFORM_TESTS=unset',
      'npm run --silent rehearse:cpu:test TERRAFORM_TESTS=unset',
    ]);
  });
});
