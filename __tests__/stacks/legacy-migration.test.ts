/**
 * Moving a pipeline deployed with the per-step waits to the Workflow (constructs/legacy-step-waits.ts), with
 * Terraform itself (1.11.4 here): a state holding the old per-step `terraform_data` waits and spec hashes at their
 * real addresses, then the `removed` blocks the pipeline stack synthesizes now. The plan forgets them ("will no
 * longer be managed ... will not be destroyed"), destroys nothing, and the blocks for addresses not in state
 * (kubernetes_manifest JobSets, the eval step) plan nothing and need no provider. The JobSets themselves stay in the
 * cluster; the Workflow's create task then finds them (AlreadyExists) and its wait task reads their end
 * (__tests__/models/argo.test.ts "migrated from the per-step waits").
 * The old kubernetes_manifest JobSets cannot be applied here (no provider download): their removed blocks are checked
 * by the same Terraform run for addresses that are absent, and by the address test in constructs/pipeline-workflow.test.ts.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { LEGACY_LOGICAL_IDS } from '../../constructs/legacy-step-waits';
import { terraformTest } from '../ci-env';
import { synthStack } from '../util';

const env = { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: '/dev/null' };

function terraform(dir: string, ...args: string[]) {
  const r = spawnSync('terraform', [...args, '-no-color', '-input=false'], { cwd: dir, env, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

terraformTest('the removed blocks forget the old waits and spec hashes, destroy nothing, and plan nothing on a second run', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-legacy-'));
  try {
    // GIVEN a state with the old terraform_data of to-maxtext, train and to-hf (a run whose eval never started)
    const old: Record<string, unknown> = { keep: { input: 'k' } };
    for (const step of ['to-maxtext', 'train', 'to-hf']) {
      old[LEGACY_LOGICAL_IDS[step].Wait] = { input: `${step}-wait` };
      old[LEGACY_LOGICAL_IDS[step].SpecHash] = { input: { sha256: step } };
    }
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ resource: { terraform_data: old } }));
    expect(terraform(dir, 'init')).toMatchObject({ status: 0 });
    expect(terraform(dir, 'apply', '-auto-approve')).toMatchObject({ status: 0 });

    // WHEN the config becomes this version's: the same other resources, and the pipeline stack's removed blocks
    const removed = synthStack('rl-qwen3').removed;
    expect(removed.length).toBe(12);
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ resource: { terraform_data: { keep: { input: 'k' } } }, removed }));
    const plan = terraform(dir, 'plan');

    // THEN the six forgotten, nothing destroyed; the absent addresses need no provider and plan nothing
    expect(plan.status).toBe(0);
    expect(plan.output).toContain('Plan: 0 to add, 0 to change, 0 to destroy.');
    expect((plan.output.match(/will no longer be managed by Terraform, but will not be destroyed/g) ?? []).length).toBe(6);
    const applied = terraform(dir, 'apply', '-auto-approve');
    expect(applied.output).toContain('0 destroyed');
    const state = JSON.parse(fs.readFileSync(path.join(dir, 'terraform.tfstate'), 'utf8'));
    expect(state.resources.map((r: { name: string }) => r.name)).toEqual(['keep']);
    // AND a second plan is empty
    const again = terraform(dir, 'plan', '-detailed-exitcode');
    expect(again.status).toBe(0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
