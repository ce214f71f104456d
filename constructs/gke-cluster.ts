import { ContainerCluster } from '@cdktf/provider-google/lib/container-cluster';
import { Construct } from 'constructs';
import { PUBLIC_OPT_IN_NAME } from '../jobs/platform';
import { PODS_RANGE, SERVICES_RANGE } from './network';

export interface GkeClusterProps {
  readonly name: string;
  /** Region: the cluster is regional (control plane replicated across zones). */
  readonly region: string;
  readonly networkId: string;
  readonly subnetworkId: string;
  readonly project: string;
  /** CIDRs allowed to reach the public endpoint; `0.0.0.0/0` only with `allowPublicAccess`. */
  readonly authorizedCidrs: readonly string[];
  /** Accept an internet-wide (`/0`) CIDR; it is labelled PUBLIC_OPT_IN_NAME so reviews see it was deliberate. @default false */
  readonly allowPublicAccess?: boolean;
  /** Enable GKE's DNS-based endpoint with external traffic (IAM-authorized). @default false */
  readonly dnsEndpoint?: boolean;
  /** GKE release channel. @default REGULAR */
  readonly releaseChannel?: string;
  /** Refuse `terraform destroy` of the cluster. @default true */
  readonly deletionProtection?: boolean;
  /** Service account of the short-lived default node pool GKE creates and this construct removes. */
  readonly defaultPoolServiceAccount: string;
  /** Control-plane range for private nodes. @default 172.16.0.32/28 */
  readonly masterCidr?: string;
}

/**
 * Regional GKE Standard cluster for TPU post-training: private nodes, public endpoint limited to the
 * authorized networks, Workload Identity, shielded nodes, GCS FUSE CSI and Secret Manager add-ons, image
 * streaming, Dataplane V2, and private IPv6 Google access DISABLED (Pathways/gRPC on TPU nodes otherwise
 * resolves Google APIs to IPv6 and fails with errno 101). The default node pool is removed; pools are
 * separate resources so changing one never replaces the cluster.
 */
export class GkeCluster extends Construct {
  public readonly cluster: ContainerCluster;

  constructor(scope: Construct, id: string, props: GkeClusterProps) {
    super(scope, id);
    const open = props.authorizedCidrs.filter((cidr) => cidr.endsWith('/0'));
    if (open.length > 0 && !props.allowPublicAccess) {
      throw new Error(
        `cluster ${props.name}: authorizedCidrs contains ${open.join(', ')}, which opens the control plane to the internet; ` +
          'set allowPublicAccess (ALLOW_PUBLIC_CONTROL_PLANE=true) to mean it, or use the DNS endpoint',
      );
    }
    this.cluster = new ContainerCluster(this, 'cluster', {
      name: props.name,
      location: props.region,
      network: props.networkId,
      subnetwork: props.subnetworkId,
      deletionProtection: props.deletionProtection ?? true,
      removeDefaultNodePool: true,
      initialNodeCount: 1,
      nodeConfig: {
        serviceAccount: props.defaultPoolServiceAccount,
        oauthScopes: ['https://www.googleapis.com/auth/cloud-platform'],
        workloadMetadataConfig: { mode: 'GKE_METADATA' },
      },
      networkingMode: 'VPC_NATIVE',
      ipAllocationPolicy: { clusterSecondaryRangeName: PODS_RANGE, servicesSecondaryRangeName: SERVICES_RANGE },
      datapathProvider: 'ADVANCED_DATAPATH',
      privateIpv6GoogleAccess: 'PRIVATE_IPV6_GOOGLE_ACCESS_DISABLED',
      releaseChannel: { channel: props.releaseChannel ?? 'REGULAR' },
      workloadIdentityConfig: { workloadPool: `${props.project}.svc.id.goog` },
      privateClusterConfig: {
        enablePrivateNodes: true,
        enablePrivateEndpoint: false,
        masterIpv4CidrBlock: props.masterCidr ?? '172.16.0.32/28',
      },
      masterAuthorizedNetworksConfig: {
        gcpPublicCidrsAccessEnabled: false,
        cidrBlocks: props.authorizedCidrs.map((cidr, i) => ({
          cidrBlock: cidr,
          displayName: cidr.endsWith('/0') ? PUBLIC_OPT_IN_NAME : `authorized-${i}`,
        })),
      },
      controlPlaneEndpointsConfig: { dnsEndpointConfig: { allowExternalTraffic: props.dnsEndpoint ?? false } },
      enableShieldedNodes: true,
      addonsConfig: {
        gcsFuseCsiDriverConfig: { enabled: true },
        gcePersistentDiskCsiDriverConfig: { enabled: true },
      },
      secretManagerConfig: { enabled: true },
      nodePoolDefaults: { nodeConfigDefaults: { gcfsConfig: { enabled: true } } },
      loggingConfig: { enableComponents: ['SYSTEM_COMPONENTS', 'WORKLOADS'] },
      lifecycle: { ignoreChanges: ['node_config'] },
    });
  }
}
