/**
 * Moving an existing deployment's state to the per-cluster key (docs/operations.md "Moving state to the per-cluster
 * key"), with Terraform itself on a local backend: a stack applied under the old key (`terraform.<stack>.tfstate`,
 * what versions before the key carried project and cluster wrote) is re-synthesized under the new one; a plain
 * `terraform init` refuses the changed backend, `terraform init -migrate-state` copies the state, and the next plan
 * finds every resource where it was: nothing to create, nothing to replace.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { BuiltinData } from '../../constructs/builtin-data';
import { localStatePath, localStateFile, stackWorkingDirectory, useBackend } from '../../stacks/backend';
import { terraformTest } from '../ci-env';

const scope = { project: 'acme-tpu', clusterName: 'dev-tpu' };
const env = { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: '/dev/null' };

/** Synthesizes an `infra` stack holding two terraform_data resources into `<repo>/cdktf.out`, old key or new. */
function synth(repo: string, key: 'old' | 'new'): string {
  const app = new App({ outdir: path.join(repo, 'cdktf.out'), stackTraces: false });
  const stack = new TerraformStack(app, 'infra');
  // The old key is what the previous version's useBackend wrote: the same relative path without project and cluster.
  if (key === 'old') new LocalBackend(stack, { path: localStatePath('infra', app.outdir, repo) });
  else useBackend(stack, 'infra', { localStateDir: repo }, scope);
  new BuiltinData(stack, 'network', { name: 'dev-tpu' });
  new BuiltinData(stack, 'cluster', { name: 'dev-tpu', zone: 'us-east5-b' });
  app.synth();
  return stackWorkingDirectory(app.outdir, 'infra');
}

function terraform(dir: string, ...args: string[]) {
  const r = spawnSync('terraform', [...args, '-no-color'], { cwd: dir, env, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

/** Resource ids in a state file (terraform_data's id is a random UUID chosen at create: a re-create changes it). */
function ids(file: string): Record<string, string> {
  const state = JSON.parse(fs.readFileSync(file, 'utf8'));
  return Object.fromEntries(state.resources.map((r: any) => [`${r.type}.${r.name}`, r.instances[0].attributes.id]));
}

terraformTest(
  'terraform init -migrate-state moves the state to terraform.<project>.<cluster>.<stack>.tfstate and nothing is re-created',
  () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-migrate-'));
    try {
      // GIVEN a deployment applied under the old key
      const dir = synth(repo, 'old');
      expect(terraform(dir, 'init', '-input=false')).toMatchObject({ status: 0 });
      expect(terraform(dir, 'apply', '-auto-approve', '-input=false')).toMatchObject({ status: 0 });
      const oldFile = path.join(repo, 'terraform.infra.tfstate');
      const before = ids(oldFile);
      expect(Object.keys(before).sort()).toEqual(['terraform_data.cluster', 'terraform_data.network']);

      // WHEN this version synthesizes it under the new key
      synth(repo, 'new');
      // THEN a plain init refuses the changed backend (cdktf deploy stops the same way until --migrate-state is given)
      const refused = terraform(dir, 'init', '-input=false');
      expect(refused.status).not.toBe(0);
      expect(refused.output).toMatch(/Backend configuration changed/);
      expect(refused.output).toContain('-migrate-state');

      // AND init -migrate-state copies the state to the new file, the plan changes nothing, the ids are the same
      const migrated = terraform(dir, 'init', '-migrate-state', '-force-copy', '-input=false');
      expect(migrated).toMatchObject({ status: 0 });
      const newFile = path.join(repo, localStateFile(scope, 'infra'));
      expect(path.basename(newFile)).toBe('terraform.acme-tpu.dev-tpu.infra.tfstate');
      expect(ids(newFile)).toEqual(before);
      const plan = terraform(dir, 'plan', '-detailed-exitcode', '-input=false');
      expect(plan.output).toContain('No changes.');
      expect(plan.status).toBe(0);
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  },
  120_000,
);

terraformTest(
  'without the migration the new key starts empty: the plan would create everything again (what the review warns of)',
  () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-migrate-'));
    try {
      const dir = synth(repo, 'old');
      expect(terraform(dir, 'init', '-input=false')).toMatchObject({ status: 0 });
      expect(terraform(dir, 'apply', '-auto-approve', '-input=false')).toMatchObject({ status: 0 });
      synth(repo, 'new');
      expect(terraform(dir, 'init', '-reconfigure', '-input=false')).toMatchObject({ status: 0 });
      const plan = terraform(dir, 'plan', '-detailed-exitcode', '-input=false');
      expect(plan.status).toBe(2);
      expect(plan.output).toContain('Plan: 2 to add, 0 to change, 0 to destroy.');
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  },
  120_000,
);
