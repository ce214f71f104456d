/**
 * The stacks' base: cdktf's TerraformStack without the preparing resolve run of `prepareStack`. cdktf 0.21.0
 * (node_modules/cdktf/lib/terraform-stack.js) resolves every element of every stack in `prepareStack` ("A preparing
 * resolve run might add new resources to the stack, e.g. for cross stack references"), then again in `toTerraform`.
 * No stack of this program refers to another: a pipeline or serve stack finds infra's cluster through a data source
 * (constructs/gke-cluster.ts `fromClusterAttributes`), names come from the Deployment. So the preparing run finds
 * nothing, and is skipped: `prepareStack` is a public method, and what it does besides that run (a local backend when
 * none is set) is done here through the public `ensureBackendExists`. Without the run, a cross-stack reference would be
 * written as the other stack's address, which Terraform refuses; __tests__/architecture.test.ts checks that every
 * reference in every synthesized stack names something that stack declares.
 *
 * (Issue 47: the `toTerraform` override that resolved each fragment once read cdktf's private raw-override map and
 * deep-imported its private `deepMerge`: removed, ~0.03 s of CPU a synth.)
 */
import { TerraformStack } from 'cdktf';

export abstract class ProjectStack extends TerraformStack {
  /** Only what cdktf's prepareStack does besides the preparing resolve: a local backend when none is set. */
  public override prepareStack(): void {
    this.ensureBackendExists();
  }
}
