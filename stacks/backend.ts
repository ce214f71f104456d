/**
 * State backend shared by every stack: a GCS backend with one prefix per stack when a state bucket is
 * configured (STATE_BUCKET), otherwise a local backend next to the synthesized stack.
 */
import { GcsBackend, LocalBackend, TerraformStack } from 'cdktf';

/** Prefix under which a stack keeps its state in the state bucket: `tpu-post-training/<stack>`. */
export function statePrefix(stackName: string): string {
  return `tpu-post-training/${stackName}`;
}

/** Local state file of a stack, relative to its working directory: `../../../terraform.<stack>.tfstate`. */
export function localStatePath(stackName: string): string {
  return `../../../terraform.${stackName}.tfstate`;
}

/** Attaches the backend to a stack. */
export function useBackend(stack: TerraformStack, stackName: string, stateBucket: string | undefined): void {
  if (stateBucket) {
    new GcsBackend(stack, { bucket: stateBucket, prefix: statePrefix(stackName) });
  } else {
    // Relative to Terraform's working directory cdktf.out/stacks/<stack>/, so the state file lands in the
    // repository root (cdktf.out is rewritten on every synth) and the synthesized JSON holds no absolute path.
    new LocalBackend(stack, { path: localStatePath(stackName) });
  }
}
