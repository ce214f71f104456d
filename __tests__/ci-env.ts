/**
 * What the test environment provides, and what a test does when a tool it needs is missing: run, skip visibly, or
 * fail under CI. The one home of the CI rule (CI=true on GitHub's runners, CI=1 in these workflows) and of the
 * Terraform requirement of the tests that plan with it (__tests__/constructs/preflight.test.ts).
 */
import { spawnSync } from 'child_process';

/** CI as CI providers set it (GitHub's runners: CI=true; these workflows: CI=1): any value but empty, 0 or false. */
export function isCi(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return !['', '0', 'false'].includes((env.CI ?? '').trim().toLowerCase());
}

/** The Terraform the workflows install (hashicorp/setup-terraform `terraform_version`) and the tests are proven on. */
export const TERRAFORM_VERSION = '1.11.4';

/** How to get Terraform, for the message of a test that needs it. */
export const TERRAFORM_INSTALL = [
  `install Terraform ${TERRAFORM_VERSION} on PATH (https://developer.hashicorp.com/terraform/install; the GitHub workflows use`,
  `hashicorp/setup-terraform with terraform_version ${TERRAFORM_VERSION}), or set TERRAFORM_TESTS=skip to skip these tests`,
  'on purpose (.ci/run does so, and says so, on a machine without it: no package registry it can reach ships the binary)',
].join(' ');

export type TerraformTestMode = { run: true } | { run: false; skip: string } | { run: false; fail: string };

/**
 * What a test that runs `terraform` does: run when it is on PATH (unless TERRAFORM_TESTS=skip); when it is missing,
 * skip on a developer machine, and FAIL under CI, naming how to install it, unless TERRAFORM_TESTS=skip says to skip
 * on purpose (the skip is reported, never silent). TERRAFORM_TESTS accepts only `skip` or empty.
 */
export function terraformTestMode(available: boolean, env: Readonly<Record<string, string | undefined>> = process.env): TerraformTestMode {
  const asked = (env.TERRAFORM_TESTS ?? '').trim();
  if (asked !== '' && asked !== 'skip') {
    return { run: false, fail: `TERRAFORM_TESTS (env): must be 'skip' or empty, got ${JSON.stringify(env.TERRAFORM_TESTS)}` };
  }
  if (asked === 'skip') return { run: false, skip: 'TERRAFORM_TESTS=skip' };
  if (available) return { run: true };
  if (isCi(env)) return { run: false, fail: `terraform is not on PATH and CI is set (CI=${env.CI}): these tests never skip in CI; ${TERRAFORM_INSTALL}` };
  return { run: false, skip: 'terraform not on PATH' };
}

let probed: boolean | undefined;
/** True when `terraform version` runs (probed once per test file). */
export function terraformAvailable(): boolean {
  probed ??= spawnSync('terraform', ['version'], { encoding: 'utf8', env: { ...process.env, CHECKPOINT_DISABLE: '1' } }).status === 0;
  return probed;
}

/** `test` for a test that runs `terraform`: runs it, skips it with the reason in its name, or fails it with the fix. */
export function terraformTest(name: string, fn: jest.ProvidesCallback, timeout?: number): void {
  const mode = terraformTestMode(terraformAvailable());
  if (mode.run) test(name, fn, timeout);
  else if ('skip' in mode) test.skip(`${name} [skipped: ${mode.skip}]`, () => undefined);
  else
    test(name, () => {
      throw new Error(mode.fail);
    });
}

/** Where the tutorial texts sit beside a checkout (the shared workspace: ../shared/seeds); a fresh clone has none. */
export type SeedsTestMode = TerraformTestMode;

/**
 * What a test that reads the tutorial texts does: run when they are there (unless SEEDS_TESTS=skip); when they are
 * absent, skip visibly on a developer machine and FAIL under CI unless SEEDS_TESTS=skip says to skip on purpose.
 * SEEDS_TESTS accepts only `skip` or empty.
 */
export function seedsTestMode(available: boolean, env: Readonly<Record<string, string | undefined>> = process.env): SeedsTestMode {
  const asked = (env.SEEDS_TESTS ?? '').trim();
  if (asked !== '' && asked !== 'skip') {
    return { run: false, fail: `SEEDS_TESTS (env): must be 'skip' or empty, got ${JSON.stringify(env.SEEDS_TESTS)}` };
  }
  if (asked === 'skip') return { run: false, skip: 'SEEDS_TESTS=skip' };
  if (available) return { run: true };
  if (isCi(env)) {
    return {
      run: false,
      fail: `the tutorial texts (../shared/seeds) are absent and CI is set (CI=${env.CI}): check them out beside the repository, or set SEEDS_TESTS=skip to skip these tests on purpose`,
    };
  }
  return { run: false, skip: '../shared/seeds absent' };
}
