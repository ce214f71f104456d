/**
 * State backend shared by every stack: a GCS backend with one prefix per stack when a state bucket is
 * configured (STATE_BUCKET), otherwise a local backend next to the synthesized stack.
 */
import { GcsBackend, LocalBackend, TerraformStack } from 'cdktf';

/** Prefix under which a stack keeps its state in the state bucket: `tpu-post-training/<stack>`. */
export function statePrefix(stackName: string): string {
  return `tpu-post-training/${stackName}`;
}

/** Attaches the backend to a stack. */
export function useBackend(stack: TerraformStack, stackName: string, stateBucket: string | undefined): void {
  if (stateBucket) {
    new GcsBackend(stack, { bucket: stateBucket, prefix: statePrefix(stackName) });
  } else {
    new LocalBackend(stack, { path: `terraform.${stackName}.tfstate` });
  }
}
