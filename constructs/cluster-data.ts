import { stringToHclTerraform, stringToTerraform, TerraformDataSource } from 'cdktf';
import { Construct } from 'constructs';

/**
 * The generator metadata every generated class of @cdktf/provider-google 16.12.1 writes (`//` of each resource, data
 * source and provider): hashicorp/google 6.50.0. One home for the two thin classes, constructs/cluster-data.ts and
 * constructs/google-provider.ts; their tests compare the JSON with the generated classes'.
 */
export const GOOGLE_GENERATOR_METADATA = { providerName: 'google', providerVersion: '6.50.0', providerVersionConstraint: '~> 6.0' } as const;

/** What finds a cluster: the three arguments of `data.google_container_cluster` this program sets. */
export interface ClusterDataProps {
  readonly name: string;
  readonly location: string;
  readonly project: string;
}

/**
 * Where the four references the stacks read sit in a `google_container_cluster`, resource and data source alike
 * (provider 6.50.0 schema): one home for constructs/cluster-data.ts and constructs/gke-cluster.ts (the generated ContainerCluster).
 */
export const CLUSTER_ATTRIBUTES = {
  id: 'id',
  endpoint: 'endpoint',
  dnsEndpoint: 'control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint',
  clusterCaCertificate: 'master_auth[0].cluster_ca_certificate',
} as const;

/**
 * Terraform's `data "google_container_cluster"` (hashicorp/google 6.50.0), for the four attributes a pipeline or serve
 * stack reads of infra's cluster: `id`, `endpoint`, the DNS endpoint and the CA certificate.
 *
 * Written against cdktf's TerraformDataSource rather than imported from
 * `@cdktf/provider-google/lib/data-google-container-cluster` on purpose: that module is 2.2 MB of generated structs (the
 * data source exposes every attribute of a cluster), loaded by every synth for these four references, and about a
 * tenth of a synth's CPU. The output is the generated class's: the same type, generator metadata, arguments and
 * references, in JSON and in HCL (`__tests__/constructs/cluster-data.test.ts` synthesizes both classes and compares;
 * `__tests__/main.test.ts` checks a synth never loads the generated module).
 */
export class ClusterData extends TerraformDataSource {
  public static readonly tfResourceType = 'google_container_cluster';

  constructor(scope: Construct, id: string, private readonly props: ClusterDataProps) {
    super(scope, id, {
      terraformResourceType: ClusterData.tfResourceType,
      terraformGeneratorMetadata: GOOGLE_GENERATOR_METADATA,
    });
  }

  /** The cluster's id (`projects/<project>/locations/<location>/clusters/<name>`), what a node pool's `cluster` takes. */
  get id(): string {
    return this.getStringAttribute(CLUSTER_ATTRIBUTES.id);
  }

  /** The control plane's IP endpoint. */
  get endpoint(): string {
    return this.getStringAttribute(CLUSTER_ATTRIBUTES.endpoint);
  }

  /** The control plane's DNS endpoint (`control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint`). */
  get dnsEndpoint(): string {
    return this.getStringAttribute(CLUSTER_ATTRIBUTES.dnsEndpoint);
  }

  /** The cluster CA certificate, base64 (`master_auth[0].cluster_ca_certificate`). */
  get clusterCaCertificate(): string {
    return this.getStringAttribute(CLUSTER_ATTRIBUTES.clusterCaCertificate);
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    const { location, name, project } = this.props;
    return { location: stringToTerraform(location), name: stringToTerraform(name), project: stringToTerraform(project) };
  }

  protected synthesizeHclAttributes(): Record<string, unknown> {
    const attr = (value: string) => ({ value: stringToHclTerraform(value), isBlock: false, type: 'simple', storageClassType: 'string' });
    const { location, name, project } = this.props;
    return { location: attr(location), name: attr(name), project: attr(project) };
  }
}
