/**
 * State backend shared by every stack: a GCS backend with one prefix per stack when a state bucket is
 * configured (STATE_BUCKET), otherwise a local backend whose file lives in the repository root, whatever the
 * output folder. Every key carries the project, the cluster and the stack (`stateKey`), so two deployments from one
 * repository (dev and prod: another CLUSTER_NAME or PROJECT) never share a state. docs/operations.md "Moving state to
 * the per-cluster key" shows how a deployment made before the key carried them moves its state (tested:
 * __tests__/stacks/state-migration.test.ts).
 */
import * as path from 'path';
import { App, GcsBackend, LocalBackend, TerraformStack } from 'cdktf';
import { StateBucketVersioning } from '../constructs/state-bucket-versioning';

export { environmentName, environmentOutdir, legacyStatePrefix, localStateFile, localStatePath, OUTPUT_ROOT, stackWorkingDirectory, stateKey, statePrefix } from '../jobs/state-names';
export type { StateScope } from '../jobs/state-names';
import { localStatePath, StateScope, statePrefix } from '../jobs/state-names';

export interface BackendProps {
  /** GCS bucket for Terraform state (STATE_BUCKET); checked at plan time to keep object versions. @default - local state file */
  readonly stateBucket?: string;
  /**
   * Absolute directory the local state file goes in: the repository root (stacks/app.ts passes it), so a
   * rewritten output folder never takes the state with it. @default - the directory that holds the output folder
   */
  readonly localStateDir?: string;
}

/**
 * Attaches the backend to a stack (and, with a state bucket, the plan-time check that it keeps versions), keyed by
 * the deployment's project and cluster and the stack.
 */
export function useBackend(stack: TerraformStack, stackName: string, props: BackendProps, scope: StateScope): void {
  if (props.stateBucket) {
    new GcsBackend(stack, { bucket: props.stateBucket, prefix: statePrefix(scope, stackName) });
    new StateBucketVersioning(stack, 'state-bucket', { bucket: props.stateBucket });
  } else {
    const outdir = App.of(stack).outdir;
    const stateDir = props.localStateDir ?? path.dirname(path.resolve(outdir));
    new LocalBackend(stack, { path: localStatePath(stackName, outdir, stateDir, scope) });
  }
}
