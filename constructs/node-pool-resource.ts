import type { ContainerNodePoolConfig } from '@cdktf/provider-google/lib/container-node-pool';
import { Construct } from 'constructs';
import { ConfiguredResource } from './configured-resource';

/**
 * Terraform's `resource "google_container_node_pool"` (hashicorp/google 6.50.0), configured with the generated
 * `ContainerNodePoolConfig` type (a type import, nothing loaded at run time). The stacks read nothing of a pool but
 * its address (`depends_on`).
 *
 * Written on ConfiguredResource rather than constructed from `@cdktf/provider-google/lib/container-node-pool` on
 * purpose: that module is 1.1 MB, and each generated pool builds ~100 nested output references and writes ~90 unset
 * settings for cdktf to resolve three times; every synth has three pools or more. The JSON is the generated class's:
 * `__tests__/constructs/cluster-resource.test.ts` synthesizes the CPU and TPU pools' real configurations through both.
 */
export class NodePoolResource extends ConfiguredResource<ContainerNodePoolConfig> {
  public static readonly tfResourceType = 'google_container_node_pool';

  constructor(scope: Construct, id: string, config: ContainerNodePoolConfig) {
    super(scope, id, NodePoolResource.tfResourceType, config);
  }
}
