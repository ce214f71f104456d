import type { ContainerClusterConfig } from '@cdktf/provider-google/lib/container-cluster';
import { Construct } from 'constructs';
import { CLUSTER_ATTRIBUTES } from './cluster-data';
import { ConfiguredResource } from './configured-resource';

/**
 * Terraform's `resource "google_container_cluster"` (hashicorp/google 6.50.0), configured with the generated
 * `ContainerClusterConfig` type (a type import: checked by tsc against the provider's schema, nothing loaded at run
 * time), for the references the stacks read: `id`, `endpoint`, the DNS endpoint and the CA certificate.
 *
 * Written on ConfiguredResource rather than constructed from `@cdktf/provider-google/lib/container-cluster` on
 * purpose: that module is 3.6 MB of generated classes whose loading alone was about a tenth of a synth's CPU, for one
 * resource whose JSON is its config with snake_cased keys. The JSON is the generated class's:
 * `__tests__/constructs/cluster-resource.test.ts` synthesizes both with the cluster's real configurations and with one
 * that sets every kind of value (blocks, lists of blocks, maps, tokens, empty and unset blocks);
 * `__tests__/main.test.ts` checks a synth never loads the generated module.
 */
export class ClusterResource extends ConfiguredResource<ContainerClusterConfig> {
  public static readonly tfResourceType = 'google_container_cluster';

  constructor(scope: Construct, id: string, config: ContainerClusterConfig) {
    super(scope, id, ClusterResource.tfResourceType, config);
  }

  /** `projects/<project>/locations/<location>/clusters/<name>`, what a node pool's `cluster` takes. */
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
}
