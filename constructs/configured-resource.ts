import { TerraformMetaArguments, TerraformResource, Tokenization } from 'cdktf';
import { Construct } from 'constructs';

/**
 * The attributes of google_container_cluster and google_container_node_pool whose value is a map (`{ [key: string]:
 * string }` in the generated types): their keys are the user's (label keys, sysctl names), copied as written, never
 * snake_cased. `__tests__/constructs/cluster-resource.test.ts` reads both generated declarations and fails on a map
 * this list lacks.
 */
export const MAP_ATTRIBUTES: ReadonlySet<string> = new Set(['labels', 'metadata', 'resourceLabels', 'resourceManagerTags', 'sysctls']);

/**
 * The generator metadata every generated class of @cdktf/provider-google 16.12.1 writes (`//` of each resource, data
 * source and provider): hashicorp/google 6.50.0. One home for the thin classes here, in constructs/cluster-data.ts and
 * constructs/google-provider.ts; their tests compare the JSON with the generated classes'.
 */
export const GOOGLE_GENERATOR_METADATA = { providerName: 'google', providerVersion: '6.50.0', providerVersionConstraint: '~> 6.0' } as const;

/** cdktf's meta-arguments (TerraformResource handles them), not attributes of the resource. */
const META_ARGUMENTS = new Set(['connection', 'count', 'dependsOn', 'forEach', 'lifecycle', 'provider', 'provisioners']);

/** `masterIpv4CidrBlock` -> `master_ipv4_cidr_block`: the Terraform name the generated bindings were made from. */
const snakeName = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A config struct as the generated `*ToTerraform` functions write it: every key snake_cased, map values copied as they
 * are, tokens left for cdktf to resolve, undefined dropped. A block reached through single blocks only (no list on the
 * way) whose every value is undefined is left out, as the generated OutputReference's `internalValue` leaves it out;
 * inside a list of blocks it stays an empty object, as the generated list mapper writes it; `{}` stays `{}`.
 */
export function terraformValue(value: unknown, dropUnset = true): unknown {
  if (Array.isArray(value)) return value.map((v) => terraformValue(v, false));
  if (value === null || typeof value !== 'object' || Tokenization.isResolvable(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const out: Record<string, unknown> = {};
  for (const [key, v] of entries) {
    const converted = MAP_ATTRIBUTES.has(key) ? v : terraformValue(v, dropUnset);
    if (converted !== undefined) out[snakeName(key)] = converted;
  }
  return dropUnset && entries.length > 0 && Object.keys(out).length === 0 ? undefined : out;
}

/**
 * A resource of provider-google configured with its generated config type (a type import) and written as the generated
 * class writes it (`terraformValue`), for the few resources whose generated module costs a synth more than the rest
 * of it (constructs/cluster-resource.ts, constructs/node-pool-resource.ts; docs/development.md "Synth speed"). JSON
 * only: `cdktf synth --hcl` (which this program does not use) is refused with a message rather than written without
 * the arguments.
 */
export abstract class ConfiguredResource<C extends TerraformMetaArguments> extends TerraformResource {
  constructor(scope: Construct, id: string, terraformResourceType: string, public readonly config: C) {
    super(scope, id, {
      terraformResourceType,
      terraformGeneratorMetadata: GOOGLE_GENERATOR_METADATA,
      provider: config.provider,
      dependsOn: config.dependsOn,
      count: config.count,
      lifecycle: config.lifecycle,
      provisioners: config.provisioners,
      connection: config.connection,
      forEach: config.forEach,
    });
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    const attributes = Object.fromEntries(Object.entries(this.config).filter(([key]) => !META_ARGUMENTS.has(key)));
    return (terraformValue(attributes) ?? {}) as Record<string, unknown>;
  }

  protected synthesizeHclAttributes(): Record<string, unknown> {
    throw new Error(`${this.node.path}: ${this.terraformResourceType} is synthesized as JSON only (constructs/configured-resource.ts); run cdktf synth without --hcl`);
  }
}
