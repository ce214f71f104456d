/**
 * dev, then prod, then dev again from one checkout, with Terraform itself (docs/operations.md "Two environments from
 * one checkout"). Each environment synthesizes into its own folder (stacks/backend.ts environmentOutdir, what
 * scripts/cdktf.mjs passes to cdktf as --output) with the backend the program writes (useBackend: local state in the
 * repository root, or a GCS prefix), so switching never makes `terraform init` ask about a backend, never moves state,
 * and the two environments share no folder and no state lineage. Only Terraform's built-in resources plan here (no
 * provider can be downloaded), so each stack holds `terraform_data` resources that name their environment. The GCS
 * backend runs against a Cloud Storage stand-in on loopback (fake-gcs.ts; the backend's `storage_custom_endpoint`).
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformStack } from 'cdktf';
import { BuiltinData } from '../../constructs/builtin-data';
import { environmentOutdir, localStateFile, stackWorkingDirectory, StateScope, useBackend } from '../../stacks/backend';
import { terraformTest } from '../ci-env';
import { startFakeGcs } from './fake-gcs';

const DEV: StateScope = { project: 'acme-tpu', clusterName: 'dev-tpu' };
const PROD: StateScope = { project: 'acme-tpu', clusterName: 'prod-tpu' };
// TF_CLI_CONFIG_FILE=/dev/null: no user CLI config (plugin caches, credentials) leaks in. Input is never given: a
// prompt would fail the command instead of hanging the test.
const env = { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: '/dev/null' };

/** Synthesizes `infra` of one environment into its own folder of `repo`, as `npm run synth` does; returns its working directory. */
function synth(repo: string, scope: StateScope, stateBucket?: string): string {
  const app = new App({ outdir: path.join(repo, environmentOutdir(scope)), stackTraces: false, skipValidation: true });
  const stack = new TerraformStack(app, 'infra');
  useBackend(stack, 'infra', { localStateDir: repo, ...(stateBucket ? { stateBucket } : {}) }, scope);
  new BuiltinData(stack, 'cluster', { project: scope.project, name: scope.clusterName });
  new BuiltinData(stack, 'bucket', { name: `${scope.clusterName}-ckpt` });
  app.synth();
  return stackWorkingDirectory(app.outdir, 'infra');
}

function terraform(dir: string, ...args: string[]) {
  const r = spawnSync('terraform', [...args, '-no-color'], { cwd: dir, env, encoding: 'utf8', input: '' });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

/** What `npm run deploy -- infra` runs in the stack's folder: init, then apply; the output of both. */
function deploy(dir: string): { init: string; apply: string } {
  const init = terraform(dir, 'init', '-input=false');
  expect(init).toMatchObject({ status: 0 });
  const apply = terraform(dir, 'apply', '-auto-approve', '-input=false');
  expect(apply).toMatchObject({ status: 0 });
  return { init: init.output, apply: apply.output };
}

const state = (repo: string, scope: StateScope) => JSON.parse(fs.readFileSync(path.join(repo, localStateFile(scope, 'infra')), 'utf8'));
const PROMPTS = /Backend configuration changed|migrate|Do you want to copy existing state|Enter a value/i;

terraformTest(
  'local backends: dev, prod, dev again: no prompt, no shared folder, no shared lineage; dev finds its own state unchanged',
  () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-one-checkout-'));
    try {
      const devDir = synth(repo, DEV);
      const first = deploy(devDir);
      expect(first.init).not.toMatch(PROMPTS);
      expect(first.apply).toContain('Apply complete! Resources: 2 added');
      const devLineage = state(repo, DEV).lineage;

      const prodDir = synth(repo, PROD);
      expect(prodDir).not.toBe(devDir);
      expect(path.relative(repo, prodDir)).toBe(path.join('cdktf.out.acme-tpu.prod-tpu', 'stacks', 'infra'));
      const second = deploy(prodDir);
      expect(second.init).not.toMatch(PROMPTS);
      expect(second.apply).toContain('Apply complete! Resources: 2 added');
      const prodState = state(repo, PROD);
      expect(prodState.lineage).not.toBe(devLineage);
      expect(JSON.stringify(prodState)).not.toContain('dev-tpu');

      // dev again: synthesized anew into its own folder, its .terraform untouched by prod's init; nothing to do.
      expect(synth(repo, DEV)).toBe(devDir);
      const again = terraform(devDir, 'init', '-input=false');
      expect(again.status).toBe(0);
      expect(again.output).not.toMatch(PROMPTS);
      const plan = terraform(devDir, 'plan', '-detailed-exitcode', '-input=false');
      expect(plan.output).toContain('No changes.');
      expect(plan.status).toBe(0);
      expect(state(repo, DEV).lineage).toBe(devLineage);
      expect(JSON.stringify(state(repo, DEV))).not.toContain('prod-tpu');

      // No folder is shared: each environment's .terraform and stack JSON sit in its own output folder.
      expect(fs.readdirSync(repo).filter((f) => f.startsWith('cdktf.out')).sort()).toEqual(['cdktf.out.acme-tpu.dev-tpu', 'cdktf.out.acme-tpu.prod-tpu']);
      const backendOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, '.terraform', 'terraform.tfstate'), 'utf8')).backend.config.path;
      expect(backendOf(devDir)).toBe('../../../terraform.acme-tpu.dev-tpu.infra.tfstate');
      expect(backendOf(prodDir)).toBe('../../../terraform.acme-tpu.prod-tpu.infra.tfstate');
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  },
  180_000,
);

terraformTest(
  'the shared folder of earlier versions: prod synthesized over dev in one cdktf.out stops at "Backend configuration changed" (why each has its own)',
  () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-one-checkout-'));
    try {
      const shared = (scope: StateScope) => {
        const app = new App({ outdir: path.join(repo, 'cdktf.out'), stackTraces: false });
        const stack = new TerraformStack(app, 'infra');
        useBackend(stack, 'infra', { localStateDir: repo }, scope);
        new BuiltinData(stack, 'cluster', { name: scope.clusterName });
        app.synth();
        return stackWorkingDirectory(app.outdir, 'infra');
      };
      deploy(shared(DEV));
      const refused = terraform(shared(PROD), 'init', '-input=false');
      expect(refused.status).not.toBe(0);
      expect(refused.output).toMatch(/Backend configuration changed/);
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  },
  120_000,
);

/** `terraform` without blocking the event loop (the stand-in bucket answers from this process). */
function terraformAsync(dir: string, ...args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('terraform', [...args, '-no-color'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (status) => resolve({ status, output }));
  });
}

terraformTest(
  'GCS backends (a Cloud Storage stand-in on loopback): dev, prod, dev: each folder its own prefix, no prompt, two lineages, dev finds its state',
  async () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-one-checkout-'));
    const gcs = await startFakeGcs();
    try {
      const lineages: Record<string, string> = {};
      const dirs: string[] = [];
      for (const [i, scope] of [DEV, PROD, DEV].entries()) {
        const dir = synth(repo, scope, 'acme-tf-state');
        const tf = JSON.parse(fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8'));
        const prefix = `tpu-post-training/acme-tpu/${scope.clusterName}/infra`;
        expect(tf.terraform.backend).toEqual({ gcs: { bucket: 'acme-tf-state', prefix } });
        // The stand-in's address and a token in place of Google credentials; only the built-in resources (the state
        // bucket's versioning check needs the google provider, which cannot be downloaded here).
        tf.terraform.backend.gcs = { ...tf.terraform.backend.gcs, storage_custom_endpoint: gcs.endpoint, access_token: 'stand-in' };
        delete tf.data;
        delete tf.provider;
        delete tf.terraform.required_providers;
        fs.writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify(tf));
        const init = await terraformAsync(dir, 'init', '-input=false');
        expect(init.status).toBe(0);
        expect(init.output).not.toMatch(PROMPTS);
        const plan = await terraformAsync(dir, 'plan', '-detailed-exitcode', '-input=false', '-out=plan');
        if (i < 2) {
          expect(plan.output).toContain('Plan: 2 to add, 0 to change, 0 to destroy.');
          expect(plan.status).toBe(2);
          expect((await terraformAsync(dir, 'apply', '-input=false', 'plan')).status).toBe(0);
        } else {
          // dev again: its own folder, its own prefix, its own state: nothing to do.
          expect(plan.output).toContain('No changes.');
          expect(plan.status).toBe(0);
        }
        const state = JSON.parse(gcs.objects.get(`${prefix}/default.tfstate`)!.data.toString('utf8'));
        lineages[scope.clusterName] ??= state.lineage;
        expect(state.lineage).toBe(lineages[scope.clusterName]);
        dirs.push(dir);
      }
      expect(lineages['dev-tpu']).not.toBe(lineages['prod-tpu']);
      expect(dirs[0]).toBe(dirs[2]);
      expect(dirs[0]).not.toBe(dirs[1]);
      expect([...gcs.objects.keys()].sort()).toEqual(['tpu-post-training/acme-tpu/dev-tpu/infra/default.tfstate', 'tpu-post-training/acme-tpu/prod-tpu/infra/default.tfstate']);
      // Nothing in one environment's folder or state names the other.
      const text = (dir: string) => fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8');
      expect(text(dirs[0]!)).not.toContain('prod-tpu');
      expect(text(dirs[1]!)).not.toContain('dev-tpu');
      expect(gcs.objects.get('tpu-post-training/acme-tpu/prod-tpu/infra/default.tfstate')!.data.toString()).not.toContain('dev-tpu');
    } finally {
      await gcs.close();
      fs.rmSync(repo, { recursive: true, force: true });
    }
  },
  180_000,
);
