/**
 * The stacks' base: cdktf's TerraformStack without the preparing resolve. cdktf 0.21 `App.synth()` resolves every
 * element of every stack twice: once in `prepareStack` (cdktf lib/terraform-stack.js: "A preparing resolve run might
 * add new resources to the stack, e.g. for cross stack references"), once to write it. No stack of this program
 * refers to another: a pipeline or serve stack finds infra's cluster through a data source
 * (constructs/gke-cluster.ts `fromClusterAttributes`), names come from the Deployment. So the preparing run finds
 * nothing, and is skipped: about a tenth of a synth's CPU. Without it a cross-stack reference would be written as the
 * other stack's address, which Terraform refuses; __tests__/architecture.test.ts checks that every reference in every
 * synthesized stack names something that stack declares.
 */
import { TerraformStack } from 'cdktf';

export abstract class ProjectStack extends TerraformStack {
  /** Only what cdktf's prepareStack does besides the preparing resolve: a local backend when none is set. */
  public override prepareStack(): void {
    this.ensureBackendExists();
  }
}
