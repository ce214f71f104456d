/**
 * The plan review shows each pipeline stack's `rehearsal` output as Terraform planned it (review/plan.ts
 * plannedRehearsal): read from genuine `terraform show -json` plans of Terraform 1.11.4 (built-in resources only), one
 * with the output known at plan time (a data source read at plan: passed / stale / none) and one known only after
 * apply; rendered as a `Rehearsal:` line of the plan's section.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { reviewPlan } from '../../review/plan';
import { renderReport } from '../../review/report';
import { loadPrices } from '../../jobs/prices';
import { terraformTest } from '../ci-env';

/** `terraform show -json` of a plan of `config` (main.tf.json). */
function planJson(config: unknown): unknown {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-tf-rehearsal-plan-'));
  const env = { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: '/dev/null' };
  const run = (args: string[]) => {
    const r = spawnSync('terraform', args, { cwd: dir, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`terraform ${args[0]} failed: ${r.stderr}`);
    return r.stdout;
  };
  try {
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify(config));
    run(['init', '-input=false', '-no-color']);
    run(['plan', '-input=false', '-no-color', '-lock=false', '-out=plan']);
    return JSON.parse(run(['show', '-json', 'plan']));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const NONE = 'none: no passing rehearsal of rl-qwen3 for this combination (key 0123456789ab); run `npm run deploy -- rehearse-rl-qwen3`';
const report = (plan: ReturnType<typeof reviewPlan>) => renderReport({ models: [], findings: [], prices: loadPrices(), source: 'synth', plans: [plan] });

terraformTest('a rehearsal output known at plan time is shown under its plan', () => {
  const plan = reviewPlan('rl-qwen3', 'rl-qwen3.json', planJson({
    locals: { read: [] },
    output: { rehearsal: { value: `\${length(local.read) > 0 ? "stale" : ${JSON.stringify(NONE)}}` } },
    resource: { terraform_data: { workflow: { input: 'w' } } },
  }));
  expect(plan.rehearsal).toBe(NONE);
  expect(report(plan)).toContain(`Rehearsal: ${NONE}.\n`);
}, 120_000);

terraformTest('a rehearsal output unknown until apply says so', () => {
  const plan = reviewPlan('rl-qwen3', 'rl-qwen3.json', planJson({
    output: { rehearsal: { value: '${terraform_data.proofs.output}' } },
    resource: { terraform_data: { proofs: { input: 'x' } } },
  }));
  expect(plan.rehearsal).toBe('known only after apply (the proofs could not be listed at plan time)');
  expect(report(plan)).toContain('Rehearsal: known only after apply (the proofs could not be listed at plan time).\n');
}, 120_000);

test('a plan without the output (infra, a rehearsal stack) has no rehearsal line', () => {
  const plan = reviewPlan('infra', 'infra.json', { format_version: '1.2', resource_changes: [], planned_values: { outputs: {} } });
  expect(plan.rehearsal).toBeUndefined();
  expect(report(plan)).not.toContain('Rehearsal:');
});
