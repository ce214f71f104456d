/**
 * The state move of an upgrade, as a command (`npm run deploy -- <stack> --migrate-state`, main.ts `--migrate-state`):
 * copies a stack's state from the key of the versions before the key carried the project and cluster
 * (`terraform.<stack>.tfstate` / `tpu-post-training/<stack>`) to this environment's key
 * (`terraform.<project>.<cluster>.<stack>.tfstate` / `tpu-post-training/<project>/<cluster>/<stack>`), with Terraform
 * itself (`terraform state pull` from the old backend, `terraform state push` into the new one, each in a scratch folder
 * that holds only the backend block), so it works on a fresh clone or a CI runner where no `.terraform` remembers the
 * old backend, on local and GCS backends alike. It refuses, moving nothing, when:
 *   - the old key holds no state (nothing to move: a new deployment, or one already moved and cleaned up);
 *   - the old key's state is not this environment's (it names neither this cluster nor this project: the pre-upgrade
 *     key had no environment in it, so dev's old state must not become prod's);
 *   - the new key already holds state (it was moved before, or this environment deployed under the new key).
 * The old state is kept; deleting it is the user's step once a plan shows no change.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { legacyStatePrefix, localStateFile, StateScope, statePrefix } from './backend';

/** A backend block as Terraform JSON takes it. */
export type BackendBlock = { readonly local: { readonly path: string } } | { readonly gcs: { readonly bucket: string; readonly prefix: string } };

export interface MigrationPlan {
  readonly stack: string;
  /** The key before the upgrade. */
  readonly from: BackendBlock;
  /** This environment's key. */
  readonly to: BackendBlock;
}

/** Where the state lives, for messages: `local /repo/terraform.infra.tfstate`, `gcs gs://b/tpu-post-training/infra`. */
export function describeBackend(b: BackendBlock): string {
  return 'local' in b ? `local ${b.local.path}` : `gcs gs://${b.gcs.bucket}/${b.gcs.prefix}`;
}

/** The move of one stack: from the pre-upgrade key to this environment's, on the backend the stacks use. */
export function migrationPlan(stack: string, scope: StateScope, state: { readonly stateBucket?: string; readonly localStateDir: string }): MigrationPlan {
  if (state.stateBucket) {
    return { stack, from: { gcs: { bucket: state.stateBucket, prefix: legacyStatePrefix(stack) } }, to: { gcs: { bucket: state.stateBucket, prefix: statePrefix(scope, stack) } } };
  }
  const file = (s?: StateScope) => path.join(state.localStateDir, localStateFile(s, stack));
  return { stack, from: { local: { path: file() } }, to: { local: { path: file(scope) } } };
}

/** Runs `terraform <args>` in a folder; the tests pass their own. */
export type TerraformRunner = (dir: string, args: readonly string[]) => { status: number | null; stdout: string; stderr: string };

/** Runs the `terraform` on PATH in the inherited environment (its credentials: a GCS backend needs them). */
export const runTerraform: TerraformRunner = (dir, args) => {
  const r = spawnSync('terraform', [...args], { cwd: dir, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr || (r.error ? String(r.error) : '') };
};

/** The commands the move runs, in order, for `--dry-run` and the docs. */
export function migrationSteps(plan: MigrationPlan): string[] {
  return [
    `terraform init -input=false   # a scratch folder holding only: ${JSON.stringify({ terraform: { backend: plan.from } })}`,
    'terraform state pull > state.json   # refused when empty or not this environment\'s',
    `terraform init -input=false   # a second scratch folder holding only: ${JSON.stringify({ terraform: { backend: plan.to } })}`,
    'terraform state pull   # refused when it holds any resource',
    'terraform state push state.json   # then pulled again: the same lineage and serial',
  ];
}

interface StateFacts {
  readonly lineage?: string;
  readonly serial?: number;
  readonly resources: number;
}

function factsOf(text: string): StateFacts {
  if (text.trim() === '') return { resources: 0 };
  const state = JSON.parse(text) as { lineage?: string; serial?: number; resources?: unknown[] };
  return { lineage: state.lineage, serial: state.serial, resources: (state.resources ?? []).length };
}

/** A scratch folder holding only the backend block, initialised; the state it reads. */
function pull(plan: BackendBlock, run: TerraformRunner, tmp: string, name: string): { dir: string; text: string } {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ terraform: { backend: plan } }, null, 2));
  const init = run(dir, ['init', '-input=false', '-no-color']);
  if (init.status !== 0) throw new Error(`terraform init of ${describeBackend(plan)} failed: ${(init.stderr || init.stdout).trim()}`);
  const pulled = run(dir, ['state', 'pull']);
  if (pulled.status !== 0) throw new Error(`terraform state pull from ${describeBackend(plan)} failed: ${(pulled.stderr || pulled.stdout).trim()}`);
  return { dir, text: pulled.stdout };
}

/** Whether a state names this environment: the cluster as a JSON string value, and the project anywhere. */
export function namesEnvironment(stateText: string, scope: StateScope): boolean {
  return stateText.includes(JSON.stringify(scope.clusterName)) && stateText.includes(scope.project);
}

/**
 * Moves one stack's state, or refuses. Returns the lines to print; throws an Error whose message says why nothing moved.
 */
export function migrateState(plan: MigrationPlan, scope: StateScope, run: TerraformRunner): string[] {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-migrate-state-'));
  try {
    const source = pull(plan.from, run, tmp, 'from');
    const from = factsOf(source.text);
    const where = `${plan.stack}: nothing moved`;
    if (from.resources === 0) {
      throw new Error(`${where}: the key before the upgrade (${describeBackend(plan.from)}) holds no state; only a deployment made before the key carried the project and cluster needs the move`);
    }
    if (!namesEnvironment(source.text, scope)) {
      throw new Error(
        `${where}: the state at ${describeBackend(plan.from)} does not name cluster '${scope.clusterName}' of project '${scope.project}': it is another environment's; move it with that environment's config (CONFIG_FILE)`,
      );
    }
    const target = pull(plan.to, run, tmp, 'to');
    const to = factsOf(target.text);
    if (to.resources > 0) {
      throw new Error(`${where}: ${describeBackend(plan.to)} already holds state (${to.resources} resources, lineage ${to.lineage}); it was moved before, or this environment deployed under the new key`);
    }
    const file = path.join(tmp, 'state.json');
    fs.writeFileSync(file, source.text);
    const pushed = run(target.dir, ['state', 'push', file]);
    if (pushed.status !== 0) throw new Error(`${where}: terraform state push into ${describeBackend(plan.to)} failed: ${(pushed.stderr || pushed.stdout).trim()}`);
    const after = factsOf(run(target.dir, ['state', 'pull']).stdout);
    if (after.lineage !== from.lineage || after.resources !== from.resources) {
      throw new Error(`${plan.stack}: the state at ${describeBackend(plan.to)} after the push has lineage ${after.lineage} and ${after.resources} resources, expected ${from.lineage} and ${from.resources}`);
    }
    return [
      `${plan.stack}: moved the state from ${describeBackend(plan.from)} to ${describeBackend(plan.to)} (lineage ${from.lineage}, serial ${from.serial}, ${from.resources} resources)`,
      `${plan.stack}: the old state is kept; delete it once a plan of ${plan.stack} shows no create and no replace`,
    ];
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
