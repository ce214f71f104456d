import { ComputeFirewall } from '@cdktf/provider-google/lib/compute-firewall';
import { ComputeNetwork } from '@cdktf/provider-google/lib/compute-network';
import { ComputeRouter } from '@cdktf/provider-google/lib/compute-router';
import { ComputeRouterNat } from '@cdktf/provider-google/lib/compute-router-nat';
import { ComputeSubnetwork } from '@cdktf/provider-google/lib/compute-subnetwork';
import { Construct } from 'constructs';

export interface NetworkProps {
  /** Prefix of every network resource name (the cluster name). */
  readonly name: string;
  readonly region: string;
  /** Primary range of the node subnet. @default 192.168.0.0/18 (the Cluster Toolkit blueprint's) */
  readonly nodeCidr?: string;
  /** Secondary range for pods. @default 10.4.0.0/14 */
  readonly podsCidr?: string;
  /** Secondary range for services. @default 10.0.32.0/20 */
  readonly servicesCidr?: string;
  /** MTU of the VPC; large frames help multi-host TPU traffic. @default 8896 */
  readonly mtu?: number;
}

/** Names of the subnet's secondary ranges, used by the cluster's IP allocation policy. */
export const PODS_RANGE = 'pods';
export const SERVICES_RANGE = 'services';

/**
 * VPC-native network for the cluster: one subnet with `pods`/`services` secondary ranges and Private
 * Google Access, an internal-traffic firewall rule, and Cloud Router + NAT so private nodes can reach
 * Hugging Face and public registries.
 */
export class Network extends Construct {
  public readonly network: ComputeNetwork;
  public readonly subnetwork: ComputeSubnetwork;

  constructor(scope: Construct, id: string, props: NetworkProps) {
    super(scope, id);
    const nodeCidr = props.nodeCidr ?? '192.168.0.0/18';
    this.network = new ComputeNetwork(this, 'vpc', {
      name: `${props.name}-net`,
      autoCreateSubnetworks: false,
      routingMode: 'GLOBAL',
      mtu: props.mtu ?? 8896,
    });
    this.subnetwork = new ComputeSubnetwork(this, 'subnet', {
      name: `${props.name}-sub`,
      network: this.network.id,
      region: props.region,
      ipCidrRange: nodeCidr,
      privateIpGoogleAccess: true,
      secondaryIpRange: [
        { rangeName: PODS_RANGE, ipCidrRange: props.podsCidr ?? '10.4.0.0/14' },
        { rangeName: SERVICES_RANGE, ipCidrRange: props.servicesCidr ?? '10.0.32.0/20' },
      ],
    });
    new ComputeFirewall(this, 'allow-internal', {
      name: `${props.name}-allow-internal`,
      network: this.network.id,
      direction: 'INGRESS',
      sourceRanges: [nodeCidr, props.podsCidr ?? '10.4.0.0/14'],
      allow: [{ protocol: 'tcp' }, { protocol: 'udp' }, { protocol: 'icmp' }],
    });
    const router = new ComputeRouter(this, 'router', {
      name: `${props.name}-router`,
      network: this.network.id,
      region: props.region,
    });
    new ComputeRouterNat(this, 'nat', {
      name: `${props.name}-nat`,
      router: router.name,
      region: props.region,
      natIpAllocateOption: 'AUTO_ONLY',
      sourceSubnetworkIpRangesToNat: 'ALL_SUBNETWORKS_ALL_IP_RANGES',
      logConfig: { enable: true, filter: 'ERRORS_ONLY' },
    });
  }
}
