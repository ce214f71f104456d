/**
 * State backend shared by every stack: a GCS backend with one prefix per stack when a state bucket is
 * configured (STATE_BUCKET), otherwise a local backend whose file lives in the repository root, whatever the
 * output folder.
 */
import * as path from 'path';
import { App, GcsBackend, LocalBackend, TerraformStack } from 'cdktf';
import { StateBucketVersioning } from '../constructs/state-bucket-versioning';

/** Prefix under which a stack keeps its state in the state bucket: `tpu-post-training/<stack>`. */
export function statePrefix(stackName: string): string {
  return `tpu-post-training/${stackName}`;
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
 */
export function localStatePath(stackName: string, outdir: string, stateDir: string): string {
  const rel = path.relative(stackWorkingDirectory(outdir, stackName), path.resolve(stateDir));
  return [...(rel === '' ? [] : rel.split(path.sep)), `terraform.${stackName}.tfstate`].join('/');
}

export interface BackendProps {
  /** GCS bucket for Terraform state (STATE_BUCKET); checked at plan time to keep object versions. @default - local state file */
  readonly stateBucket?: string;
  /**
   * Absolute directory the local state file goes in: the repository root (stacks/app.ts passes it), so a
   * rewritten output folder never takes the state with it. @default - the directory that holds the output folder
   */
  readonly localStateDir?: string;
}

/** Attaches the backend to a stack (and, with a state bucket, the plan-time check that it keeps versions). */
export function useBackend(stack: TerraformStack, stackName: string, props: BackendProps): void {
  if (props.stateBucket) {
    new GcsBackend(stack, { bucket: props.stateBucket, prefix: statePrefix(stackName) });
    new StateBucketVersioning(stack, 'state-bucket', { bucket: props.stateBucket });
  } else {
    const outdir = App.of(stack).outdir;
    const stateDir = props.localStateDir ?? path.dirname(path.resolve(outdir));
    new LocalBackend(stack, { path: localStatePath(stackName, outdir, stateDir) });
  }
}
