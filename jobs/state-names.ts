/**
 * The names of an environment's state and output folders (no cdktf import: the entry point's config check reads
 * `environmentOutdir` without loading cdktf or a provider; stacks/backend.ts re-exports all of these).
 */
import * as path from 'path';

/** Which deployment a state belongs to: the project and the cluster (a stack name is unique within one). */
export interface StateScope {
  readonly project: string;
  readonly clusterName: string;
}

/** The part of a state key that names the deployment and the stack: `<project>/<cluster>/<stack>`. */
export function stateKey(scope: StateScope, stackName: string): string {
  return `${scope.project}/${scope.clusterName}/${stackName}`;
}

/** Prefix under which a stack keeps its state in the state bucket: `tpu-post-training/<project>/<cluster>/<stack>`. */
export function statePrefix(scope: StateScope, stackName: string): string {
  return `tpu-post-training/${stateKey(scope, stackName)}`;
}

/** The prefix of the versions before the key carried the project and cluster: `tpu-post-training/<stack>`. */
export function legacyStatePrefix(stackName: string): string {
  return `tpu-post-training/${stackName}`;
}

/**
 * Local state file name: `terraform.<project>.<cluster>.<stack>.tfstate` (project ids and cluster names hold no dot,
 * so the name reads back unambiguously); before the key carried them it was `terraform.<stack>.tfstate`.
 */
export function localStateFile(scope: StateScope | undefined, stackName: string): string {
  return scope ? `terraform.${scope.project}.${scope.clusterName}.${stackName}.tfstate` : `terraform.${stackName}.tfstate`;
}

/** cdktf.json's `output`: the stem of every environment's output folder. */
export const OUTPUT_ROOT = 'cdktf.out';

/** An environment's name: `<project>.<cluster>` (neither holds a dot, so it reads back unambiguously). */
export function environmentName(scope: StateScope): string {
  return `${scope.project}.${scope.clusterName}`;
}

/**
 * The output folder of one environment, relative to the repository root: `cdktf.out.<project>.<cluster>`. The npm
 * scripts (scripts/cdktf.mjs) synthesize into it and Terraform runs in its `stacks/<stack>`, so dev and prod never
 * share a `.terraform` (whose backend settings would make Terraform ask to move one environment's state into the
 * other's key), a saved plan or a synthesized stack. A sibling of `cdktf.out`, not a folder inside it: a stack's
 * working directory stays three levels below the repository root, where the relative paths of the local state file
 * (`localStatePath`) and the step waiter (constructs/jobset-step.ts STEP_WAIT_SCRIPT) expect it.
 */
export function environmentOutdir(scope: StateScope): string {
  return `${OUTPUT_ROOT}.${environmentName(scope)}`;
}

/** Where cdktf puts a stack's Terraform working directory: `<outdir>/stacks/<stack>/` (cdktf lib/manifest.js). */
export function stackWorkingDirectory(outdir: string, stackName: string): string {
  return path.resolve(outdir, 'stacks', stackName);
}

/**
 * The local state file of a stack, relative to its working directory, so it lands in `stateDir` for any output
 * folder: `../../../terraform.<stack>.tfstate` for `cdktf.out` at the repository root, `../../../../...` for
 * `build/out`, and a path that climbs out of an output folder outside the repository and back in. Relative (with
 * `/` separators) so the synthesized JSON holds no absolute path, as long as outdir and stateDir share a root.
 * The file name is `localStateFile(scope, stack)`.
 */
export function localStatePath(stackName: string, outdir: string, stateDir: string, scope?: StateScope): string {
  const rel = path.relative(stackWorkingDirectory(outdir, stackName), path.resolve(stateDir));
  return [...(rel === '' ? [] : rel.split(path.sep)), localStateFile(scope, stackName)].join('/');
}
