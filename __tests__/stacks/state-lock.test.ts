/**
 * The state lock and a running pipeline, with Terraform itself (1.11.4 here, local backend; the GCS backend locks the
 * same way, per state object):
 * - a deploy holds its stack's state lock for as long as its apply runs anything, and a plan with the plan-review's
 *   `-lock-timeout` cannot start meanwhile: shown with the shape of the old per-step wait (a local-exec that does
 *   not return until released; no timing involved: the test releases it after the plan);
 * - this version's pipeline stacks run nothing in an apply: no provisioner, no local-exec, no manifest wait, so the
 *   lock lasts the API calls that create the Workflow, and a plan right after the deploy returns takes the lock at
 *   once even though the pipeline trains on (in the cluster).
 * The laptop-sleep, `--output` and orphan-waiter failures were all failures of the local waiter process, which no
 * stack has any more: asserted on every synthesized pipeline stack below.
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { terraformTest } from '../ci-env';
import { synthStack, WITH_SINGLE_HOST } from '../util';

const env = { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: '/dev/null' };
const terraform = (dir: string, ...args: string[]) => {
  const r = spawnSync('terraform', [...args, '-no-color', '-input=false'], { cwd: dir, env, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
};

/** Resolves when `file` exists (checked on each fs event of its directory, and once at the start). */
function appears(file: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => fs.existsSync(file) && (watcher.close(), resolve());
    const watcher = fs.watch(path.dirname(file), check);
    check();
  });
}

terraformTest('a deploy whose apply waits holds the lock: a plan with -lock-timeout cannot start; once the apply returns it can', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-lock-'));
  try {
    // The old per-step wait's shape: a local-exec that returns only when the "run" ends (here: a file the test writes).
    const release = path.join(dir, 'release');
    const waiter = { provisioner: [{ 'local-exec': { command: `while [ ! -f '${release}' ]; do sleep 0.2; done` } }], input: 'train' };
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ resource: { terraform_data: { train_wait: waiter } } }));
    expect(terraform(dir, 'init')).toMatchObject({ status: 0 });
    const apply = spawn('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], { cwd: dir, env });
    const done = new Promise<number | null>((resolve) => apply.on('exit', resolve));
    await appears(path.join(dir, '.terraform.tfstate.lock.info'));

    const blocked = terraform(dir, 'plan', '-lock-timeout=1s');
    expect(blocked.status).toBe(1);
    expect(blocked.output).toContain('Error acquiring the state lock');

    fs.writeFileSync(release, '');
    expect(await done).toBe(0);
    expect(terraform(dir, 'plan', '-lock-timeout=1s', '-detailed-exitcode').status).toBe(0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

test.each(['rl-qwen3', 'rl-gemma4', 'sft-gemma4', 'rl-llama3'])('%s: the apply runs nothing that outlives its API calls (no provisioner, no local-exec, no wait)', (name) => {
  const tf = synthStack(name, WITH_SINGLE_HOST);
  const text = JSON.stringify(tf);
  expect(text).not.toContain('provisioner');
  expect(text).not.toContain('local-exec');
  expect(text).not.toContain('step-wait');
  expect(text).not.toContain('dist/status');
  for (const m of Object.values<any>(tf.resource.kubernetes_manifest)) expect(m.wait).toBeUndefined();
  expect(tf.data?.kubernetes_resource).toBeUndefined();
});
