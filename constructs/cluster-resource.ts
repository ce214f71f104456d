import type { ContainerClusterConfig } from '@cdktf/provider-google/lib/container-cluster';
import { TerraformResource, Tokenization } from 'cdktf';
import { Construct } from 'constructs';

/**
 * The attributes of google_container_cluster whose value is a map (`{ [key: string]: string }` in the generated types):
 * their keys are the user's (label keys, sysctl names), copied as written, never snake_cased.
 * `__tests__/constructs/cluster-resource.test.ts` reads the generated declarations and fails on a map this list lacks.
 */
export const MAP_ATTRIBUTES: ReadonlySet<string> = new Set(['labels', 'metadata', 'resourceLabels', 'resourceManagerTags', 'sysctls']);

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
 * Terraform's `resource "google_container_cluster"` (hashicorp/google 6.50.0), configured with the generated
 * `ContainerClusterConfig` type (a type import: checked by tsc against the provider's schema, nothing loaded at run
 * time), for the references the stacks read: `id`, `endpoint`, the DNS endpoint and the CA certificate.
 *
 * Written against cdktf's TerraformResource rather than constructed from
 * `@cdktf/provider-google/lib/container-cluster` on purpose: that module is 3.6 MB of generated classes whose loading
 * alone was about a tenth of a synth's CPU, for one resource whose JSON is its config with snake_cased keys. The JSON
 * is the generated class's: `__tests__/constructs/cluster-resource.test.ts` synthesizes both with the cluster's real
 * configurations and with one that sets every kind of value (blocks, lists of blocks, maps, tokens, empty and unset
 * blocks); `__tests__/main.test.ts` checks a synth never loads the generated module. JSON only: `cdktf synth --hcl`
 * (which this program does not use) is refused with a message rather than written without the cluster's arguments.
 */
export class ClusterResource extends TerraformResource {
  public static readonly tfResourceType = 'google_container_cluster';

  constructor(scope: Construct, id: string, private readonly config: ContainerClusterConfig) {
    super(scope, id, {
      terraformResourceType: ClusterResource.tfResourceType,
      // As the generated class (provider-google 16.12.1 lib/container-cluster/index.js) declares it.
      terraformGeneratorMetadata: { providerName: 'google', providerVersion: '6.50.0', providerVersionConstraint: '~> 6.0' },
      provider: config.provider,
      dependsOn: config.dependsOn,
      count: config.count,
      lifecycle: config.lifecycle,
      provisioners: config.provisioners,
      connection: config.connection,
      forEach: config.forEach,
    });
  }

  /** `projects/<project>/locations/<location>/clusters/<name>`, what a node pool's `cluster` takes. */
  get id(): string {
    return this.getStringAttribute('id');
  }

  /** The control plane's IP endpoint. */
  get endpoint(): string {
    return this.getStringAttribute('endpoint');
  }

  /** The control plane's DNS endpoint (`control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint`). */
  get dnsEndpoint(): string {
    return this.getStringAttribute('control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint');
  }

  /** The cluster CA certificate, base64 (`master_auth[0].cluster_ca_certificate`). */
  get clusterCaCertificate(): string {
    return this.getStringAttribute('master_auth[0].cluster_ca_certificate');
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    const attributes = Object.fromEntries(Object.entries(this.config).filter(([key]) => !META_ARGUMENTS.has(key)));
    return (terraformValue(attributes) ?? {}) as Record<string, unknown>;
  }

  protected synthesizeHclAttributes(): Record<string, unknown> {
    throw new Error(`${this.node.path}: google_container_cluster is synthesized as JSON only (constructs/cluster-resource.ts); run cdktf synth without --hcl`);
  }
}
