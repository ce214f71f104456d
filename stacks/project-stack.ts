/**
 * The stacks' base: cdktf's TerraformStack, writing the same JSON with each element's tokens resolved once instead of
 * three times. cdktf 0.21.0 resolves every element of every stack (node_modules/cdktf/lib/terraform-stack.js):
 *
 * 1. in `prepareStack`, a preparing run ("A preparing resolve run might add new resources to the stack, e.g. for cross
 *    stack references"). No stack of this program refers to another: a pipeline or serve stack finds infra's cluster
 *    through a data source (constructs/gke-cluster.ts `fromClusterAttributes`), names come from the Deployment. So the
 *    preparing run finds nothing, and is skipped. Without it a cross-stack reference would be written as the other
 *    stack's address, which Terraform refuses; __tests__/architecture.test.ts checks that every reference in every
 *    synthesized stack names something that stack declares.
 * 2. in `toTerraform`, each element's fragment (`resolve(this, e.toTerraform())`), deep-merged into one object, and
 * 3. that whole object again (`return resolve(this, tf)`). The fragments are resolved already: a resolved value holds no
 *    token and no undefined, and resolving such a value returns an equal one (lib/tokens/private/resolve.js: a string
 *    without a token marker, a number that is not an encoded token, arrays and plain objects key by key). Only the
 *    parts that were not resolved before need it: the `//` metadata block and what the stack's raw overrides
 *    (`addOverride`) put at the top level (the legacy `removed` blocks). `toTerraform` below resolves exactly those:
 *    about a tenth of a synth's CPU. __tests__/stacks/project-stack.test.ts compares it with cdktf's on every stack
 *    of the golden configurations, overrides included.
 */
import { Construct } from 'constructs';
import { DefaultTokenResolver, StringConcat, TerraformElement, TerraformOutput, TerraformStack, Tokenization } from 'cdktf';
// cdktf's own merge (not exported from its root): the same semantics as the toTerraform this replaces.
import { deepMerge } from 'cdktf/lib/util';

/** The resolver cdktf's lib/_tokens.js uses for a synth (stateless: a new one is the same). */
const RESOLVER = new DefaultTokenResolver(new StringConcat());
const resolveTokens = <T>(scope: Construct, obj: T): T => Tokenization.resolve(obj, { scope, preparing: false, resolver: RESOLVER });

export abstract class ProjectStack extends TerraformStack {
  /** Only what cdktf's prepareStack does besides the preparing resolve: a local backend when none is set. */
  public override prepareStack(): void {
    this.ensureBackendExists();
  }

  /** cdktf 0.21.0's `TerraformStack.toTerraform`, with the resolved fragments not resolved a second time. */
  public override toTerraform(): any {
    const overrides = (this as unknown as { rawOverrides?: Record<string, unknown> }).rawOverrides;
    // Another cdktf (or cdktn) keeps its overrides elsewhere: its own toTerraform, unchanged.
    if (overrides === null || typeof overrides !== 'object') return super.toTerraform();
    const elements = terraformElements(this);
    const metadata: Record<string, unknown> = {
      version: this.node.tryGetContext('cdktfVersion'),
      stackName: this.node.id,
      backend: 'local',
      cloud: undefined,
      ...(Object.keys(overrides).length > 0 ? { overrides: { stack: Object.keys(overrides) } } : {}),
    };
    for (const meta of elements.map((e) => resolveTokens(this, e.toMetadata()))) deepMerge(metadata, meta);
    const outputs = elements.reduce((carry: Record<string, unknown>, item) => {
      if (!TerraformOutput.isTerraformOutput(item)) return carry;
      const nested = item.node.path.split('/').reduceRight((inner: Record<string, unknown>, part) => (Object.keys(inner).length === 0 ? { [part]: item.friendlyUniqueId } : { [part]: inner }), {});
      return deepMerge(carry, nested);
    }, {});
    const tf: Record<string, unknown> = { '//': { metadata, outputs } };
    for (const fragment of elements.map((e) => resolveTokens(this, e.toTerraform()))) deepMerge(tf, fragment);
    deepMerge(tf, overrides);
    // What the fragments alone wrote is resolved; the metadata and every top-level key an override touched are not.
    for (const key of ['//', ...Object.keys(overrides)]) {
      const value = resolveTokens(this, tf[key]);
      if (value === undefined) delete tf[key];
      else tf[key] = value;
    }
    return tf;
  }
}

/** The stack's elements, depth first, not entering a nested stack (cdktf lib/terraform-stack.js `terraformElements`). */
function terraformElements(node: Construct, into: TerraformElement[] = []): TerraformElement[] {
  if (TerraformElement.isTerraformElement(node)) into.push(node);
  for (const child of node.node.children) if (!TerraformStack.isStack(child)) terraformElements(child, into);
  return into;
}
