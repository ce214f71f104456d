/**
 * Moving an existing deployment's state to the per-cluster key (docs/operations.md "Moving state to the per-cluster
 * key"), with Terraform itself on a local backend: a stack applied under the old key (`terraform.<stack>.tfstate`,
 * what versions before the key carried project and cluster wrote) is re-synthesized under the new one; a plain
 * `terraform init` refuses the changed backend, `terraform init -migrate-state` copies the state, and the next plan
 * finds every resource where it was: nothing to create, nothing to replace.
 */
import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { BuiltinData } from '../../constructs/builtin-data';
import { environmentOutdir, localStatePath, localStateFile, stackWorkingDirectory, useBackend } from '../../stacks/backend';
import { migrateState, migrationPlan, migrationSteps, runTerraform, TerraformRunner } from '../../stacks/state-migration';
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

/**
 * The move as a command (stacks/state-migration.ts, `npm run deploy -- <stack> --migrate-state`): Terraform's own
 * `state pull` from the pre-upgrade key and `state push` into this environment's key, each from a scratch folder that
 * holds only the backend block, so no `.terraform` that remembers the old backend is needed (a fresh clone, a CI runner).
 */
describe('migrateState: the command', () => {
  const state = (repo: string) => ({ localStateDir: repo });
  /** A deployment applied by the version before the key carried project and cluster, into a folder then removed. */
  function legacyDeployment(repo: string, cluster = 'dev-tpu'): Record<string, string> {
    const dir = synthLegacy(repo, cluster);
    expect(terraform(dir, 'init', '-input=false')).toMatchObject({ status: 0 });
    expect(terraform(dir, 'apply', '-auto-approve', '-input=false')).toMatchObject({ status: 0 });
    fs.rmSync(path.join(repo, 'cdktf.out'), { recursive: true, force: true }); // a fresh clone keeps only the state file
    return ids(path.join(repo, 'terraform.infra.tfstate'));
  }
  function synthLegacy(repo: string, cluster: string): string {
    const app = new App({ outdir: path.join(repo, 'cdktf.out'), stackTraces: false });
    const stack = new TerraformStack(app, 'infra');
    new LocalBackend(stack, { path: localStatePath('infra', app.outdir, repo) });
    new BuiltinData(stack, 'network', { name: cluster, project: 'acme-tpu' });
    new BuiltinData(stack, 'cluster', { name: cluster, zone: 'us-east5-b' });
    app.synth();
    return stackWorkingDirectory(app.outdir, 'infra');
  }
  /** This version's synthesis of the same stack into the environment's own folder. */
  function synthNew(repo: string, s = scope): string {
    const app = new App({ outdir: path.join(repo, environmentOutdir(s)), stackTraces: false });
    const stack = new TerraformStack(app, 'infra');
    useBackend(stack, 'infra', { localStateDir: repo }, s);
    new BuiltinData(stack, 'network', { name: s.clusterName, project: 'acme-tpu' });
    new BuiltinData(stack, 'cluster', { name: s.clusterName, zone: 'us-east5-b' });
    app.synth();
    return stackWorkingDirectory(app.outdir, 'infra');
  }

  terraformTest(
    'local: copies the old key to the new one on a fresh clone; the plan in the environment folder changes nothing; a second move refuses',
    () => {
      const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-migrate-cmd-'));
      try {
        const before = legacyDeployment(repo);
        const lines = migrateState(migrationPlan('infra', scope, state(repo)), scope, runTerraform);
        expect(lines[0]).toMatch(new RegExp(`^infra: moved the state from local ${repo}/terraform.infra.tfstate to local ${repo}/terraform.acme-tpu.dev-tpu.infra.tfstate \\(lineage [0-9a-f-]{36}, serial \\d+, 2 resources\\)$`));
        const newFile = path.join(repo, 'terraform.acme-tpu.dev-tpu.infra.tfstate');
        expect(ids(newFile)).toEqual(before);
        expect(JSON.parse(fs.readFileSync(newFile, 'utf8')).lineage).toBe(JSON.parse(fs.readFileSync(path.join(repo, 'terraform.infra.tfstate'), 'utf8')).lineage);
        // The deploy that follows: a plain init in the environment's folder, no prompt, nothing to change.
        const dir = synthNew(repo);
        const init = terraform(dir, 'init', '-input=false');
        expect(init.status).toBe(0);
        expect(init.output).not.toMatch(/Backend configuration changed|migrate/i);
        const plan = terraform(dir, 'plan', '-detailed-exitcode', '-input=false');
        expect(plan.output).toContain('No changes.');
        expect(plan.status).toBe(0);
        // Again: the target holds state now; nothing is written.
        const mtime = fs.statSync(newFile).mtimeMs;
        expect(() => migrateState(migrationPlan('infra', scope, state(repo)), scope, runTerraform)).toThrow(
          new RegExp(`^infra: nothing moved: local ${repo}/terraform.acme-tpu.dev-tpu.infra.tfstate already holds state \\(2 resources, lineage `),
        );
        expect(fs.statSync(newFile).mtimeMs).toBe(mtime);
      } finally {
        fs.rmSync(repo, { recursive: true, force: true });
      }
    },
    120_000,
  );

  terraformTest(
    "refuses, moving nothing: no state at the old key; the old key's state is another environment's (prod must not take dev's)",
    () => {
      const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-migrate-cmd-'));
      try {
        expect(() => migrateState(migrationPlan('infra', scope, state(repo)), scope, runTerraform)).toThrow(
          `infra: nothing moved: the key before the upgrade (local ${repo}/terraform.infra.tfstate) holds no state; only a deployment made before the key carried the project and cluster needs the move`,
        );
        legacyDeployment(repo, 'dev-tpu');
        const prod = { project: 'acme-tpu', clusterName: 'prod-tpu' };
        expect(() => migrateState(migrationPlan('infra', prod, state(repo)), prod, runTerraform)).toThrow(
          `infra: nothing moved: the state at local ${repo}/terraform.infra.tfstate does not name cluster 'prod-tpu' of project 'acme-tpu': it is another environment's; move it with that environment's config (CONFIG_FILE)`,
        );
        expect(fs.existsSync(path.join(repo, 'terraform.acme-tpu.prod-tpu.infra.tfstate'))).toBe(false);
        // And dev's own move still works afterwards.
        expect(migrateState(migrationPlan('infra', scope, state(repo)), scope, runTerraform)[0]).toContain('moved the state');
      } finally {
        fs.rmSync(repo, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

describe('migrateState on a GCS backend (its shape: no bucket is reachable here)', () => {
  const gcs = { stateBucket: 'acme-tf-state', localStateDir: '/repo' };
  test('from tpu-post-training/<stack> to tpu-post-training/<project>/<cluster>/<stack>, in the same bucket', () => {
    expect(migrationPlan('rl-qwen3', scope, gcs)).toEqual({
      stack: 'rl-qwen3',
      from: { gcs: { bucket: 'acme-tf-state', prefix: 'tpu-post-training/rl-qwen3' } },
      to: { gcs: { bucket: 'acme-tf-state', prefix: 'tpu-post-training/acme-tpu/dev-tpu/rl-qwen3' } },
    });
    expect(migrationSteps(migrationPlan('infra', scope, gcs))[0]).toBe(
      'terraform init -input=false   # a scratch folder holding only: {"terraform":{"backend":{"gcs":{"bucket":"acme-tf-state","prefix":"tpu-post-training/infra"}}}}',
    );
  });

  /** A stand-in Terraform over an in-memory bucket: objects by prefix, what init/pull/push do with a gcs backend. */
  function fakeGcs(objects: Map<string, string>) {
    const calls: string[] = [];
    const run: TerraformRunner = (dir, args) => {
      const prefix = JSON.parse(fs.readFileSync(path.join(dir, 'main.tf.json'), 'utf8')).terraform.backend.gcs.prefix as string;
      calls.push(`${prefix}: ${args.join(' ')}`);
      if (args[0] === 'init') return { status: 0, stdout: '', stderr: '' };
      if (args[1] === 'pull') return { status: 0, stdout: objects.get(`${prefix}/default.tfstate`) ?? '', stderr: '' };
      objects.set(`${prefix}/default.tfstate`, fs.readFileSync(args[2]!, 'utf8'));
      return { status: 0, stdout: '', stderr: '' };
    };
    return { run, calls };
  }
  const legacy = JSON.stringify({ version: 4, lineage: 'l-1', serial: 7, resources: [{ type: 'google_container_cluster', name: 'c', instances: [{ attributes: { name: 'dev-tpu', project: 'acme-tpu' } }] }] });

  test('pulls the old prefix, checks the new one is empty, pushes, and reads it back', () => {
    const objects = new Map([['tpu-post-training/infra/default.tfstate', legacy]]);
    const { run, calls } = fakeGcs(objects);
    expect(migrateState(migrationPlan('infra', scope, gcs), scope, run)[0]).toBe(
      'infra: moved the state from gcs gs://acme-tf-state/tpu-post-training/infra to gcs gs://acme-tf-state/tpu-post-training/acme-tpu/dev-tpu/infra (lineage l-1, serial 7, 1 resources)',
    );
    expect(calls.map((c) => c.replace(/push \S+/, 'push <file>'))).toEqual([
      'tpu-post-training/infra: init -input=false -no-color',
      'tpu-post-training/infra: state pull',
      'tpu-post-training/acme-tpu/dev-tpu/infra: init -input=false -no-color',
      'tpu-post-training/acme-tpu/dev-tpu/infra: state pull',
      'tpu-post-training/acme-tpu/dev-tpu/infra: state push <file>',
      'tpu-post-training/acme-tpu/dev-tpu/infra: state pull',
    ]);
    expect(objects.get('tpu-post-training/acme-tpu/dev-tpu/infra/default.tfstate')).toBe(legacy);
    expect(objects.get('tpu-post-training/infra/default.tfstate')).toBe(legacy); // the old object stays
  });

  test('refuses a target that holds state and an old state of another cluster, pushing nothing', () => {
    const held = new Map([['tpu-post-training/infra/default.tfstate', legacy], ['tpu-post-training/acme-tpu/dev-tpu/infra/default.tfstate', legacy]]);
    const first = fakeGcs(held);
    expect(() => migrateState(migrationPlan('infra', scope, gcs), scope, first.run)).toThrow(/already holds state \(1 resources, lineage l-1\)/);
    expect(first.calls.some((c) => c.includes('push'))).toBe(false);
    const other = fakeGcs(new Map([['tpu-post-training/infra/default.tfstate', legacy]]));
    const prod = { project: 'acme-tpu', clusterName: 'prod-tpu' };
    expect(() => migrateState(migrationPlan('infra', prod, gcs), prod, other.run)).toThrow(/does not name cluster 'prod-tpu'/);
    expect(other.calls.some((c) => c.includes('push'))).toBe(false);
  });
});

terraformTest(
  "a removed block with destroy = false (how infra forgets the pre-upgrade secret and KSA) forgets the object and destroys nothing; with no such object in state it plans nothing",
  () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-removed-'));
    try {
      fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ resource: { terraform_data: { 'hf-token_secret_06522DAB': { input: 'hf-token' } } } }));
      expect(terraform(dir, 'init', '-input=false')).toMatchObject({ status: 0 });
      expect(terraform(dir, 'apply', '-auto-approve', '-input=false')).toMatchObject({ status: 0 });
      const removed = (from: string) => ({ from, lifecycle: { destroy: false } });
      fs.writeFileSync(
        path.join(dir, 'main.tf.json'),
        JSON.stringify({
          resource: { terraform_data: { 'hf-token_cluster-secret_EC232AE6': { input: 'dev-tpu-hf-token' } } },
          removed: [removed('terraform_data.hf-token_secret_06522DAB'), removed('terraform_data.never_deployed')],
        }),
      );
      const plan = terraform(dir, 'plan', '-input=false');
      expect(plan.status).toBe(0);
      expect(plan.output).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
      expect(plan.output).toContain('but it will not delete them:\n - terraform_data.hf-token_secret_06522DAB');
      expect(plan.output).not.toContain('never_deployed');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
  120_000,
);

/**
 * The same move on a GCS backend, for real: Terraform 1.11.4's gcs backend against the Cloud Storage stand-in
 * (__tests__/environments/fake-gcs.ts) run in a child process (the move runs Terraform synchronously), its address
 * given to each backend block as `storage_custom_endpoint`.
 */
describe('migrateState on a GCS backend (a Cloud Storage stand-in on loopback)', () => {
  let child: ChildProcess | undefined;
  let endpoint = '';
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-migrate-gcs-'));
  beforeAll(async () => {
    // The stand-in, transpiled as it is, started in its own process; it prints its endpoint.
    const ts = require('typescript');
    const source = fs.readFileSync(path.join(__dirname, '..', 'environments', 'fake-gcs.ts'), 'utf8');
    fs.writeFileSync(path.join(work, 'fake-gcs.js'), ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText);
    child = spawn(process.execPath, ['-e', "require('./fake-gcs.js').startFakeGcs().then((g) => console.log(g.endpoint))"], { cwd: work, stdio: ['ignore', 'pipe', 'inherit'] });
    endpoint = await new Promise<string>((resolve) => child!.stdout!.once('data', (d) => resolve(String(d).trim())));
  });
  afterAll(() => {
    child?.kill();
    fs.rmSync(work, { recursive: true, force: true });
  });
  const state = { stateBucket: 'acme-tf-state', localStateDir: '/nowhere' };
  /** The backend blocks as the program writes them, plus the stand-in's address and a token (no Google credentials). */
  const withEndpoint: TerraformRunner = (dir, args) => {
    const file = path.join(dir, 'main.tf.json');
    const tf = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (tf.terraform?.backend?.gcs) tf.terraform.backend.gcs = { ...tf.terraform.backend.gcs, storage_custom_endpoint: endpoint, access_token: 'stand-in' };
    fs.writeFileSync(file, JSON.stringify(tf));
    return runTerraform(dir, args);
  };
  /** A stack applied by the version before, under `tpu-post-training/<stack>`, naming its cluster. */
  function legacyApply(cluster: string): Record<string, string> {
    const dir = fs.mkdtempSync(path.join(work, 'legacy-'));
    fs.writeFileSync(
      path.join(dir, 'main.tf.json'),
      JSON.stringify({ terraform: { backend: { gcs: { bucket: 'acme-tf-state', prefix: 'tpu-post-training/infra' } } }, resource: { terraform_data: { cluster: { input: { name: cluster, project: 'acme-tpu' } } } } }),
    );
    expect(withEndpoint(dir, ['init', '-input=false', '-no-color']).status).toBe(0);
    expect(withEndpoint(dir, ['apply', '-auto-approve', '-input=false', '-no-color']).status).toBe(0);
    const pulled = JSON.parse(withEndpoint(dir, ['state', 'pull']).stdout);
    return { lineage: pulled.lineage, id: pulled.resources[0].instances[0].attributes.id };
  }

  terraformTest(
    "moves tpu-post-training/infra to tpu-post-training/acme-tpu/dev-tpu/infra; prod's move of dev's old state and a second move refuse",
    () => {
      const before = legacyApply('dev-tpu');
      const prod = { project: 'acme-tpu', clusterName: 'prod-tpu' };
      expect(() => migrateState(migrationPlan('infra', prod, state), prod, withEndpoint)).toThrow(/does not name cluster 'prod-tpu'/);
      const lines = migrateState(migrationPlan('infra', scope, state), scope, withEndpoint);
      expect(lines[0]).toMatch(
        new RegExp(`^infra: moved the state from gcs gs://acme-tf-state/tpu-post-training/infra to gcs gs://acme-tf-state/tpu-post-training/acme-tpu/dev-tpu/infra \\(lineage ${before.lineage}, serial \\d+, 1 resources\\)$`),
      );
      // The deploy that follows plans against the new prefix: the same resource, nothing to do.
      const dir = fs.mkdtempSync(path.join(work, 'new-'));
      fs.writeFileSync(
        path.join(dir, 'main.tf.json'),
        JSON.stringify({ terraform: { backend: { gcs: { bucket: 'acme-tf-state', prefix: 'tpu-post-training/acme-tpu/dev-tpu/infra' } } }, resource: { terraform_data: { cluster: { input: { name: 'dev-tpu', project: 'acme-tpu' } } } } }),
      );
      expect(withEndpoint(dir, ['init', '-input=false', '-no-color']).status).toBe(0);
      const plan = withEndpoint(dir, ['plan', '-detailed-exitcode', '-input=false', '-no-color']);
      expect(plan.stdout).toContain('No changes.');
      expect(plan.status).toBe(0);
      expect(JSON.parse(withEndpoint(dir, ['state', 'pull']).stdout).resources[0].instances[0].attributes.id).toBe(before.id);
      expect(() => migrateState(migrationPlan('infra', scope, state), scope, withEndpoint)).toThrow(/already holds state \(1 resources, lineage /);
    },
    180_000,
  );
});
