/**
 * The teardown block of docs/operations.md, run as a user runs it: its lines through bash, with `npm run` as
 * package.json defines it (its `npm run build` step left out: dist/ is built once, __tests__/dist.ts), the real
 * scripts/cdktf.mjs and dist/main.js, and stand-ins for `cdktf` (it records its arguments and synthesizes the app as
 * cdktf does) and `gcloud` (it records its arguments); two environments, dev and prod, from one checkout.
 *
 * Then, with Terraform 1.11.4 on built-in resources, why a destroy synthesizes its stacks for their teardown: a data
 * source that fails its read (as the Google provider's storage-object data source does on a 404,
 * hashicorp/terraform-provider-google google/services/storage/data_source_google_storage_bucket_object.go
 * `dataSourceGoogleStorageBucketObjectRead`: "Error retrieving storage bucket object"; l.65-72 at v6.50.0 per issue 46, read
 * at commit 2bdfed3d) fails `terraform destroy`, which refreshes first; a failed data-source postcondition (as the reservation's)
 * fails the apply that lifts deletion protection. The bucket: the Google provider refuses to delete a bucket that holds
 * objects unless `force_destroy` is true (resource_storage_bucket.go, resourceStorageBucketDelete).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { terraformTest } from '../ci-env';
import { ensureDist } from '../dist';
import { pathWith, terraform } from '../stand-ins';
import { configFile, synthStack } from '../util';

const ROOT = path.resolve(__dirname, '..', '..');
beforeAll(ensureDist);

/** The shell lines of the Teardown section's code block (comments dropped). */
function teardownBlock(): string[] {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Teardown'));
  const block = /```bash\n([\s\S]*?)```/.exec(section)![1]!;
  return block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== '' && !l.startsWith('#'));
}

const DEV = configFile((c) => {
  Object.assign(c, { project: 'acme-dev', clusterName: 'dev-tpu', bucket: 'acme-dev-ckpt' });
  c.tpu.reservation = 'acme-dev-v6e-32';
});
const PROD = configFile((c) => {
  Object.assign(c, { project: 'acme-prod', clusterName: 'prod-tpu', bucket: 'acme-prod-ckpt' });
  c.tpu.reservation = 'acme-prod-v6e-32';
});
/** What a shell holds after dev's tutorial exports. */
const DEV_EXPORTS = { PROJECT: 'acme-dev', CLUSTER_NAME: 'dev-tpu', GCS_BUCKET: 'acme-dev-ckpt' };

interface Calls {
  readonly cdktf: { args: string[]; TEARDOWN: string | null; DELETION_PROTECTION: string | null }[];
  readonly gcloud: string[][];
  readonly stderr: string;
}

/** Runs `lines` in bash from the checkout with the stand-ins first on PATH and `env` as the whole environment. */
function runLines(lines: readonly string[], env: Record<string, string>): Calls {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-teardown-'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const log = (name: string) => path.join(dir, `${name}.jsonl`);
  const write = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), body, { mode: 0o755 });
  write(
    'npm',
    [
      '#!/usr/bin/env node',
      "const { spawnSync } = require('child_process');",
      "const [run, script, ...rest] = process.argv.slice(2);",
      "if (run !== 'run') { console.error('stand-in npm: only npm run'); process.exit(2); }",
      "const args = rest[0] === '--' ? rest.slice(1) : rest;",
      "const cmd = JSON.parse(require('fs').readFileSync('package.json', 'utf8')).scripts[script];",
      "if (!cmd) { console.error(`npm error Missing script: \"${script}\"`); process.exit(1); }",
      "const r = spawnSync('sh', ['-c', cmd.replace(/^npm run build --silent && /, '') + ' \"$@\"', 'sh', ...args], { stdio: 'inherit' });",
      'process.exit(r.status ?? 1);',
    ].join('\n'),
  );
  write(
    'cdktf',
    [
      '#!/usr/bin/env node',
      "const { execSync } = require('child_process');",
      'const args = process.argv.slice(2);',
      `require('fs').appendFileSync(${JSON.stringify(log('cdktf'))}, JSON.stringify({ args, TEARDOWN: process.env.TEARDOWN ?? null, DELETION_PROTECTION: process.env.DELETION_PROTECTION ?? null }) + '\\n');`,
      `const out = require('path').join(${JSON.stringify(dir)}, args[args.indexOf('--output') + 1]);`,
      "execSync(JSON.parse(require('fs').readFileSync('cdktf.json', 'utf8')).app, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CDKTF_OUTDIR: out } });",
      // What this synthesis made of each stack it was asked about: the teardown test reads it.
      "for (const s of args.filter((a) => !a.startsWith('-') && a !== args[0] && a !== args[args.indexOf('--output') + 1])) {",
      "  require('fs').copyFileSync(require('path').join(out, 'stacks', s, 'cdk.tf.json'), require('path').join(out, `${args[0]}-${s}.tf.json`));",
      '}',
    ].join('\n'),
  );
  write('gcloud', `#!/usr/bin/env node\nrequire('fs').appendFileSync(${JSON.stringify(log('gcloud'))}, JSON.stringify(process.argv.slice(2)) + '\\n');\n`);
  const r = spawnSync('bash', ['-c', lines.join('\n')], { cwd: ROOT, env: { PATH: pathWith(bin), HOME: dir, ...env }, encoding: 'utf8' });
  const read = (name: string) => (fs.existsSync(log(name)) ? fs.readFileSync(log(name), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  return { cdktf: read('cdktf'), gcloud: read('gcloud'), stderr: r.stderr };
}

test("from a shell still holding dev's exports, tearing down prod never empties dev's bucket (the old hand-typed line did)", () => {
  const block = teardownBlock();
  const leaked = runLines(block, { CONFIG_FILE: PROD, ...DEV_EXPORTS });
  expect(leaked.gcloud).toEqual([]);
  expect(leaked.cdktf).toEqual([]);
  expect(leaked.stderr).toMatch(/GCS_BUCKET \(env\) is 'acme-dev-ckpt', \S+: bucket is 'acme-prod-ckpt': the config file and the environment name different deployments/);
  // The environment whose exports they are tears itself down as before.
  const own = runLines(block.filter((l) => l.includes('empty-bucket')), { CONFIG_FILE: DEV, ...DEV_EXPORTS });
  expect(own.gcloud).toEqual([['storage', 'rm', '--recursive', 'gs://acme-dev-ckpt/**']]);
  // The line this block had before: the shell's GCS_BUCKET, not the environment's config, chose the bucket.
  const old = runLines(['gcloud storage rm --recursive "gs://$GCS_BUCKET/**"'], { CONFIG_FILE: PROD, ...DEV_EXPORTS });
  expect(old.gcloud).toEqual([['storage', 'rm', '--recursive', 'gs://acme-dev-ckpt/**']]);
  // Saying which wins: the file's (IDENTITY_FROM=file) empties prod's own bucket.
  const fileWins = runLines(block.filter((l) => l.includes('empty-bucket')), { CONFIG_FILE: PROD, ...DEV_EXPORTS, IDENTITY_FROM: 'file' });
  expect(fileWins.gcloud).toEqual([['storage', 'rm', '--recursive', 'gs://acme-prod-ckpt/**']]);
}, 120_000);

test('the block in order: serve, pipeline, the environment\'s own bucket, deletion protection lifted, infra; each destroy synthesized for its teardown', () => {
  const calls = runLines(teardownBlock(), { CONFIG_FILE: PROD });
  expect(calls.stderr).toBe('');
  const out = ['--output', 'cdktf.out.acme-prod.prod-tpu'];
  expect(calls.cdktf).toEqual([
    { args: ['destroy', 'serve-rl-qwen3', ...out], TEARDOWN: 'serve-rl-qwen3', DELETION_PROTECTION: null },
    { args: ['destroy', 'rl-qwen3', ...out], TEARDOWN: 'rl-qwen3', DELETION_PROTECTION: null },
    { args: ['deploy', 'infra', ...out], TEARDOWN: 'infra', DELETION_PROTECTION: null },
    { args: ['destroy', 'infra', ...out], TEARDOWN: 'infra', DELETION_PROTECTION: null },
  ]);
  expect(calls.gcloud).toEqual([['storage', 'rm', '--recursive', 'gs://acme-prod-ckpt/**']]);
  // The bucket is emptied after the pipelines (their JobSets write into it) and before infra's destroy.
}, 120_000);

test('teardown synthesis: a serve stack as its backend and providers (no export read), also for a pipeline no longer in the config; infra without the create-only checks, deletion protection off', () => {
  const gone = configFile((c) => (c.pipelines['rl-qwen3'].enabled = false));
  // Before: the destroy turned the serve stack on (SERVE), which needs its pipeline built.
  expect(() => synthStack('serve-rl-qwen3', { SERVE: 'rl-qwen3', CONFIG_FILE: gone })).toThrow(/serve-rl-qwen3 serves the export of rl-qwen3, which this config does not build/);
  for (const env of [{ TEARDOWN: 'serve-rl-qwen3' }, { TEARDOWN: 'serve-rl-qwen3', CONFIG_FILE: gone }] as Record<string, string>[]) {
    const serve = synthStack('serve-rl-qwen3', env);
    expect(Object.keys(serve.data ?? {})).toEqual(['google_container_cluster']);
    expect(serve.resource).toBeUndefined();
    expect(Object.keys(serve.provider).sort()).toEqual(['google', 'kubernetes']);
    expect(JSON.stringify(serve.terraform.backend)).toContain('serve-rl-qwen3');
  }
  // Its full form reads the export of the current spec.
  expect(Object.keys(synthStack('serve-rl-qwen3', { SERVE: 'rl-qwen3' }).data)).toContain('google_storage_bucket_object');
  const full = synthStack('infra');
  const teardown = synthStack('infra', { TEARDOWN: 'infra' });
  expect(Object.keys(full.data)).toContain('google_compute_reservation');
  expect(Object.keys(teardown.data ?? {})).toEqual([]); // the reservation and zone checks were infra's only data sources
  const cluster = (tf: any) => Object.values<any>(tf.resource.google_container_cluster)[0];
  expect(cluster(full).deletion_protection).toBe(true);
  expect(cluster(teardown).deletion_protection).toBe(false);
  // Every resource of infra is the same (the same addresses: the apply changes deletion protection, nothing is replaced).
  const addresses = (tf: any) => Object.entries<any>(tf.resource).flatMap(([type, byName]) => Object.keys(byName).map((n) => `${type}.${n}`)).sort();
  expect(addresses(teardown)).toEqual(addresses(full));
});

/** `config` in a fresh folder, initialised; `state` copied in as terraform.tfstate when given. */
function tfDir(config: unknown, state?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-tf-teardown-'));
  fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify(config));
  if (state) fs.copyFileSync(state, path.join(dir, 'terraform.tfstate'));
  const init = terraform(dir, ['init', '-input=false', '-no-color']);
  if (init.status !== 0) throw new Error(init.stderr);
  return dir;
}
const tf = (dir: string, ...args: string[]) => {
  const r = terraform(dir, [...args, '-input=false', '-no-color', '-auto-approve']);
  return { ok: r.status === 0, output: `${r.stdout}\n${r.stderr}` };
};

terraformTest(
  "Terraform 1.11.4: a destroy refreshes first, so a data source that fails its read fails it; -refresh=false and the teardown stack (backend and providers only) both destroy what the state holds",
  () => {
    // The serve stack's shape: a pool that depends on the export's data source; the export's object is "found" while
    // `gone` is false (a local state file that exists), and its read fails (as the 404 does) once it is true.
    const exportFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-export-')), 'export.tfstate');
    fs.writeFileSync(exportFile, JSON.stringify({ version: 4, terraform_version: '1.11.4', serial: 1, lineage: 'export', outputs: {}, resources: [] }));
    const full = {
      variable: { gone: { type: 'bool', default: false } },
      data: { terraform_remote_state: { export: { backend: 'local', config: { path: `\${var.gone ? "${exportFile}.missing" : "${exportFile}"}` } } } },
      resource: { terraform_data: { pool: { input: 'serve pool', depends_on: ['data.terraform_remote_state.export'] }, server: { input: 'vllm' } } },
    };
    const dir = tfDir(full);
    expect(tf(dir, 'apply').ok).toBe(true);
    const state = path.join(dir, 'terraform.tfstate');
    const failed = tf(dir, 'destroy', '-var', 'gone=true');
    expect(failed.ok).toBe(false);
    expect(failed.output).toContain('Unable to find remote state');
    // -refresh=false skips the read (and every refresh).
    const saved = `${state}.saved`;
    fs.copyFileSync(state, saved);
    const noRefresh = tf(dir, 'destroy', '-var', 'gone=true', '-refresh=false');
    expect(noRefresh.ok).toBe(true);
    expect(noRefresh.output).toContain('Resources: 2 destroyed.');
    // The teardown stack: the same state, no data source and no resource in the configuration.
    const shell = tfDir({ variable: { gone: { type: 'bool', default: true } } }, saved);
    const destroyed = tf(shell, 'destroy');
    expect(destroyed.ok).toBe(true);
    expect(destroyed.output).toContain('Resources: 2 destroyed.');
    for (const d of [dir, shell, path.dirname(exportFile)]) fs.rmSync(d, { recursive: true, force: true });
  },
  120_000,
);

terraformTest(
  "Terraform 1.11.4: a reservation's failed postcondition fails the apply that lifts deletion protection (a destroy does not evaluate it); infra's teardown form, without it, lifts it",
  () => {
    const reservationState = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-reservation-')), 'r.tfstate');
    fs.writeFileSync(reservationState, JSON.stringify({ version: 4, terraform_version: '1.11.4', serial: 1, lineage: 'r', outputs: { count: { value: 8, type: 'number' } }, resources: [] }));
    const cluster = (protection: boolean) => ({ terraform_data: { cluster: { input: { deletion_protection: protection } } } });
    const checked = (protection: boolean, released: boolean) => ({
      data: {
        terraform_remote_state: {
          reservation: {
            backend: 'local',
            config: { path: released ? `${reservationState}.released` : reservationState },
            defaults: {},
            lifecycle: { postcondition: [{ condition: '${length(self.outputs) > 0}', error_message: "Reservation 'acme-prod-v6e-32' was not found: set ZONE to its zone" }] },
          },
        },
      },
      resource: cluster(protection),
    });
    // Released: a local backend path with no state reads as no outputs, as the provider's 404 reads as empty attributes.
    fs.writeFileSync(`${reservationState}.released`, JSON.stringify({ version: 4, terraform_version: '1.11.4', serial: 1, lineage: 'r2', outputs: {}, resources: [] }));
    const dir = tfDir(checked(true, false));
    expect(tf(dir, 'apply').ok).toBe(true);
    // The reservation is released; the full infra cannot lift deletion protection:
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify(checked(false, true)));
    const lift = tf(dir, 'apply');
    expect(lift.ok).toBe(false);
    expect(lift.output).toContain('set ZONE to its zone');
    // infra's teardown form (no reservation check, deletion protection off) lifts it, then destroys.
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ resource: cluster(false) }));
    const lifted = tf(dir, 'apply');
    expect(lifted.ok).toBe(true);
    expect(lifted.output).toContain('1 changed');
    expect(tf(dir, 'destroy').ok).toBe(true);
    // A destroy of the checked form is not stopped by the postcondition (Terraform skips conditions when destroying):
    const again = tfDir(checked(true, false));
    expect(tf(again, 'apply').ok).toBe(true);
    fs.writeFileSync(path.join(again, 'main.tf.json'), JSON.stringify(checked(true, true)));
    expect(tf(again, 'destroy').ok).toBe(true);
    for (const d of [dir, again, path.dirname(reservationState)]) fs.rmSync(d, { recursive: true, force: true });
  },
  120_000,
);

test("infra's bucket: force_destroy false by default, true with bucketSettings.forceDestroy (the block's skip note)", () => {
  const bucket = (tf: any) => Object.values<any>(tf.resource.google_storage_bucket)[0];
  expect(bucket(synthStack('infra')).force_destroy).toBe(false);
  const forced = configFile((c) => (c.bucketSettings.forceDestroy = true));
  expect(bucket(synthStack('infra', { CONFIG_FILE: forced })).force_destroy).toBe(true);
  expect(teardownBlock().find((l) => l === 'npm run empty-bucket')).toBeDefined();
  expect(fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8')).toContain('skip with bucketSettings.forceDestroy');
});

test('TEARDOWN names stacks: a name that is none, or the rehearsal of a serve stack, stops the destroy before cdktf, naming it', () => {
  const { teardownProblems } = require('../../config/load') as typeof import('../../config/load');
  expect(teardownProblems(['infra', 'serve-rl-qwen3', 'rehearse-rl-qwen3', 'my-own'])).toEqual([]);
  expect(teardownProblems(['rl qwen3', 'rehearse-serve-rl-qwen3'])).toEqual([
    "TEARDOWN (env): 'rl qwen3' is not a stack name (infra, <pipeline>, serve-<pipeline>, rehearse-<pipeline>)",
    'TEARDOWN (env): rehearse-serve-rl-qwen3 names the rehearsal of a serve stack: a serve stack has no training to rehearse (rehearse-rl-qwen3)',
  ]);
});
