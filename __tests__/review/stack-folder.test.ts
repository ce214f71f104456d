/**
 * Files in a stack folder that synth did not write, with real Terraform 1.11.4 (built-in `terraform_data` and the
 * local-exec provisioner only, offline): Terraform merges `zz_override.tf.json` into the stack and runs its
 * provisioner at apply, and reads `*.auto.tfvars`; the review fails on both the files (stack-folder-files) and the
 * provisioner in the plan's configuration (plan-provisioner). And clean-checkout.sh, which every CI job runs first,
 * refuses a committed ignored path and empties dist/ and cdktf.out/.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { review } from '../../review/findings';
import { reviewPlan } from '../../review/plan';
import { stackFolderEntries } from '../../review/cli';
import { terraformTest } from '../ci-env';

const ROOT = path.resolve(__dirname, '..', '..');
let tmp: string;
beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-folder-'))));
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const env = { ...process.env, TF_IN_AUTOMATION: '1', TF_CLI_CONFIG_FILE: '/dev/null', CHECKPOINT_DISABLE: '1' };
const tf = (dir: string, ...args: string[]) => {
  const r = spawnSync('terraform', [`-chdir=${dir}`, ...args], { encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`terraform ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

terraformTest('Terraform 1.11.4 merges zz_override.tf.json and runs its local-exec at apply; the review fails on the file and the provisioner', () => {
  const stack = path.join(tmp, 'stacks', 'infra');
  fs.mkdirSync(stack, { recursive: true });
  // What synth wrote: one terraform_data, and a variable with a default
  fs.writeFileSync(path.join(stack, 'cdk.tf.json'), JSON.stringify({
    variable: { region: { type: 'string', default: 'us-east5' } },
    resource: { terraform_data: { pool: { input: '${var.region}' } } },
  }));
  // What a commit left there: an override adding a provisioner, and variable values
  const marker = path.join(tmp, 'ran');
  fs.writeFileSync(path.join(stack, 'zz_override.tf.json'), JSON.stringify({
    resource: { terraform_data: { pool: { provisioner: [{ 'local-exec': { command: `echo pwned > ${marker}` } }] } } },
  }));
  fs.writeFileSync(path.join(stack, 'x.auto.tfvars'), 'region = "evil-region"\n');
  tf(stack, 'init', '-input=false');
  tf(stack, 'plan', '-input=false', '-out=plan');
  const plan = JSON.parse(tf(stack, 'show', '-json', 'plan'));
  expect(plan.variables.region.value).toBe('evil-region');
  const reviewed = reviewPlan('infra', 'plan.json', plan);
  expect(reviewed.provisioners).toEqual([{ address: 'terraform_data.pool', type: 'local-exec' }]);
  const found = review([], [{ stack: 'infra', text: '', json: {}, files: stackFolderEntries(stack) }], [reviewed]);
  expect(found.filter((f) => f.rule === 'plan-provisioner').map((f) => f.address)).toEqual(['terraform_data.pool']);
  expect(found.filter((f) => f.rule === 'stack-folder-files').map((f) => f.address).sort()).toEqual(['stacks/infra/x.auto.tfvars', 'stacks/infra/zz_override.tf.json']);
  // and what the review flags does run: the apply executes the override's command
  tf(stack, 'apply', '-input=false', 'plan');
  expect(fs.readFileSync(marker, 'utf8')).toBe('pwned\n');
}, 120_000);

describe('clean-checkout.sh', () => {
  const git = (...args: string[]) => spawnSync('git', ['-C', tmp, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  const run = () => spawnSync('bash', [path.join(ROOT, '.github', 'scripts', 'clean-checkout.sh')], { cwd: tmp, encoding: 'utf8' });
  function repo(committed: Record<string, string>): void {
    git('init', '-q');
    fs.copyFileSync(path.join(ROOT, '.gitignore'), path.join(tmp, '.gitignore'));
    fs.writeFileSync(path.join(tmp, 'main.ts'), '');
    for (const [file, text] of Object.entries(committed)) {
      fs.mkdirSync(path.dirname(path.join(tmp, file)), { recursive: true });
      fs.writeFileSync(path.join(tmp, file), text);
    }
    git('add', '-f', '.');
    git('commit', '-qm', 'x');
  }

  test.each([
    ['dist/constructs/identity.js', 'run instead of the reviewed TypeScript (tsc -b with incremental)'],
    ['dist/node_modules/constructs/index.js', 'shadows the real package'],
    ['cdktf.out/stacks/infra/zz_override.tf.json', 'merged by Terraform'],
    ['dist/.tsbuildinfo', 'tells tsc what it need not build'],
  ])('a committed %s (%s) fails the job, naming it', (file) => {
    repo({ [file]: 'x' });
    const r = run();
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('::error::1 committed file(s) are in paths .gitignore ignores');
    expect(r.stdout).toContain(`  ${file}\n`);
  });

  test('a clean checkout passes, and dist/, cdktf.out/ and build info left on disk are removed', () => {
    repo({});
    fs.mkdirSync(path.join(tmp, 'dist'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'dist', 'main.js'), '');
    fs.mkdirSync(path.join(tmp, 'cdktf.out', 'stacks', 'infra'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'x.tsbuildinfo'), '');
    const r = run();
    expect(r.status).toBe(0);
    expect(['dist', 'cdktf.out', 'x.tsbuildinfo'].filter((f) => fs.existsSync(path.join(tmp, f)))).toEqual([]);
  });

  test('a committed name with control characters is shown without them', () => {
    repo({ 'dist/a\u001b[31mb.js': 'x' });
    const r = run();
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('\u001b');
  });
});
