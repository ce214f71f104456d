import { ContainerCluster, ContainerClusterConfig } from '@cdktf/provider-google/lib/container-cluster';
import { Fn } from 'cdktf';
import { Construct } from 'constructs';
import { BuiltinData } from './builtin-data';
import { CLUSTER_ATTRIBUTES, ClusterData } from './cluster-data';
import { ClusterEndpoint, clusterEndpoint, IGkeCluster } from './cluster-access';
import { CpuNodePool, CpuNodePoolProps } from './cpu-pool';
import { TpuSlicePool, TpuSlicePoolProps } from './tpu-slice-pool';
import { DEFAULT_DELETION_PROTECTION, DEFAULT_RELEASE_CHANNEL, DEFAULT_UPGRADE_EXCLUSION_DAYS, PUBLIC_OPT_IN_NAME } from '../jobs/platform';
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
  /** GKE release channel. @default DEFAULT_RELEASE_CHANNEL (REGULAR) */
  readonly releaseChannel?: string;
  /**
   * The oldest control-plane version the cluster may run (`min_master_version`): the minor version alias of the GKE
   * version floor of the TPU generations its pools use (jobs/tpu.ts gkeVersionFloor, minMasterVersionOf: tpu7x needs
   * 1.34.0-gke.2201000, so `1.34`), never one exact patch. @default - none (the release channel's default version)
   */
  readonly minMasterVersion?: string;
  /** Refuse `terraform destroy` of the cluster. @default DEFAULT_DELETION_PROTECTION (true) */
  readonly deletionProtection?: boolean;
  /**
   * The node service account: of the short-lived default node pool GKE creates and this construct removes, and of
   * every pool added through addTpuSlicePool / addCpuPool (the webhook firewall targets it too).
   */
  readonly defaultPoolServiceAccount: string;
  /** Control-plane range for private nodes. @default DEFAULT_MASTER_CIDR (172.16.0.32/28) */
  readonly masterCidr?: string;
  /**
   * Days GKE may not upgrade nodes or the minor version, from the cluster's first apply (a NO_MINOR_OR_NODE_UPGRADES
   * exclusion); 0 for none. GKE refuses an exclusion past the minor version's end of support. @default DEFAULT_UPGRADE_EXCLUSION_DAYS (30)
   */
  readonly upgradeExclusionDays?: number;
  /** Zone of the pools added with addTpuSlicePool/addCpuPool (a slice and its reservation are zonal). */
  readonly nodeZone: string;
}

export type { IGkeCluster } from './cluster-access';


/** A TPU pool added through the cluster: the cluster, its zone and node identity come from it. */
export type TpuSlicePoolOptions = Omit<TpuSlicePoolProps, 'cluster' | 'zone' | 'serviceAccountEmail'> &
  Partial<Pick<TpuSlicePoolProps, 'zone' | 'serviceAccountEmail'>>;
/** A CPU pool added through the cluster. */
export type CpuPoolOptions = Omit<CpuNodePoolProps, 'cluster' | 'zone' | 'serviceAccountEmail'> &
  Partial<Pick<CpuNodePoolProps, 'zone' | 'serviceAccountEmail'>>;

/**
 * When GKE may do automatic maintenance: weekend nights (UTC). A recurring window with a fixed first occurrence in
 * the past, so the synthesized value never changes.
 */
export const MAINTENANCE_WINDOW = { startTime: '2026-01-03T02:00:00Z', endTime: '2026-01-03T08:00:00Z', recurrence: 'FREQ=WEEKLY;BYDAY=SA,SU' } as const;

/** Default control-plane range of the private cluster. */
export const DEFAULT_MASTER_CIDR = '172.16.0.32/28';

/**
 * Regional GKE Standard cluster for TPU post-training: private nodes, public endpoint limited to the
 * authorized networks, Workload Identity, shielded nodes, GCS FUSE CSI and Secret Manager add-ons, image
 * streaming, Dataplane V2, and private IPv6 Google access DISABLED (Pathways/gRPC on TPU nodes otherwise
 * resolves Google APIs to IPv6 and fails with errno 101). The default node pool is removed; pools are
 * separate resources so changing one never replaces the cluster.
 */
export class GkeCluster extends Construct implements IGkeCluster {
  /**
   * The cluster an existing stack finds through a data source (`data.google_container_cluster.<id>`), as
   * aws-eks' `Cluster.fromClusterAttributes`: the pipeline stacks reach infra's cluster this way, with no
   * cross-stack reference. The data source (constructs/cluster-data.ts) is created directly in `scope` so its address is `<id>`.
   */
  static fromClusterAttributes(scope: Construct, id: string, attrs: { name: string; location: string; project: string }): IGkeCluster {
    const data = new ClusterData(scope, id, attrs);
    return {
      clusterId: data.id,
      clusterName: attrs.name,
      endpoint: (dnsEndpoint: boolean) =>
        clusterEndpoint(
          {
            endpoint: data.endpoint,
            dnsEndpoint: data.dnsEndpoint,
            caCertificateBase64: data.clusterCaCertificate,
          },
          dnsEndpoint,
        ),
    };
  }

  /** The cluster resource (the prebuilt provider class, by deep path). */
  public readonly cluster: ContainerCluster;
  /** The control plane's range: the source of its webhook calls to nodes. */
  public readonly masterCidr: string;
  /** Zone and node identity the pools added through this cluster get. */
  public readonly nodeZone: string;
  /** The cluster's name (the `name` prop, a plain string). */
  public readonly clusterName: string;
  public readonly nodeServiceAccountEmail: string;

  constructor(scope: Construct, id: string, props: GkeClusterProps) {
    super(scope, id);
    this.masterCidr = props.masterCidr ?? DEFAULT_MASTER_CIDR;
    this.nodeZone = props.nodeZone;
    this.clusterName = props.name;
    this.nodeServiceAccountEmail = props.defaultPoolServiceAccount;
    const exclusionDays = props.upgradeExclusionDays ?? DEFAULT_UPGRADE_EXCLUSION_DAYS;
    if (!(Number.isInteger(exclusionDays) && exclusionDays >= 0)) {
      throw new Error(`cluster ${props.name}: upgradeExclusionDays must be a whole number of days >= 0, got ${exclusionDays}`);
    }
    // plantimestamp() at the first plan, kept: ignore_changes stops every later plan from moving it.
    const exclusionStart =
      exclusionDays > 0 ? new BuiltinData(this, 'upgrade-exclusion-start', '${plantimestamp()}', { ignoreChanges: ['input'] }) : undefined;
    const open = props.authorizedCidrs.filter((cidr) => cidr.endsWith('/0'));
    if (open.length > 0 && !props.allowPublicAccess) {
      throw new Error(
        `cluster ${props.name}: authorizedCidrs contains ${open.join(', ')}, which opens the control plane to the internet; ` +
          'set allowPublicAccess (ALLOW_PUBLIC_CONTROL_PLANE=true) to mean it, or use the DNS endpoint',
      );
    }
    this.cluster = new ContainerCluster(this, 'cluster', clusterConfig(props, this.masterCidr, exclusionDays, exclusionStart));
  }

  get clusterId(): string {
    return this.cluster.id;
  }

  /** The IP endpoint with the cluster CA, or the DNS endpoint (IAM-authorized, public certificate). */
  endpoint(dnsEndpoint: boolean): ClusterEndpoint {
    return clusterEndpoint(
      {
        endpoint: this.cluster.endpoint,
        dnsEndpoint: this.cluster.getStringAttribute(CLUSTER_ATTRIBUTES.dnsEndpoint),
        caCertificateBase64: this.cluster.getStringAttribute(CLUSTER_ATTRIBUTES.clusterCaCertificate),
      },
      dnsEndpoint,
    );
  }

  /**
   * Adds one node pool per TPU slice to this cluster (aws-eks `Cluster.addNodegroupCapacity`). Unlike aws-eks, the
   * pool is created next to the cluster (in the cluster's scope, with `id`), not under it: construct paths are the
   * Terraform addresses of existing deployments, and a pool under the cluster would plan a destroy + create of the slice.
   */
  addTpuSlicePool(id: string, options: TpuSlicePoolOptions): TpuSlicePool {
    return new TpuSlicePool(this.node.scope!, id, {
      zone: this.nodeZone,
      serviceAccountEmail: this.nodeServiceAccountEmail,
      ...options,
      cluster: this,
    });
  }

  /** Adds a CPU node pool to this cluster (same scope rule as addTpuSlicePool). */
  addCpuPool(id: string, options: CpuPoolOptions): CpuNodePool {
    return new CpuNodePool(this.node.scope!, id, {
      zone: this.nodeZone,
      serviceAccountEmail: this.nodeServiceAccountEmail,
      ...options,
      cluster: this,
    });
  }

}

/**
 * The cluster's arguments, as GkeCluster sets them. `exclusionStart` holds the first plan's time when `exclusionDays` > 0.
 *
 * Maintenance: upgrades recreate nodes, and a multi-host TPU slice only as a whole: a running JobSet loses its slice.
 * Node and minor upgrades are excluded for upgradeExclusionDays from the first apply (the start is stored once in
 * terraform_data, so later plans do not move it; renew with -replace on that resource), and other maintenance happens
 * in weekend night windows. Patch upgrades of the control plane do not touch nodes.
 */
export function clusterConfig(props: GkeClusterProps, masterCidr: string, exclusionDays: number, exclusionStart: BuiltinData | undefined): ContainerClusterConfig {
  return {
    name: props.name,
    location: props.region,
    network: props.networkId,
    subnetwork: props.subnetworkId,
    deletionProtection: props.deletionProtection ?? DEFAULT_DELETION_PROTECTION,
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
    releaseChannel: { channel: props.releaseChannel ?? DEFAULT_RELEASE_CHANNEL },
    minMasterVersion: props.minMasterVersion,
    workloadIdentityConfig: { workloadPool: `${props.project}.svc.id.goog` },
    privateClusterConfig: {
      enablePrivateNodes: true,
      enablePrivateEndpoint: false,
      masterIpv4CidrBlock: masterCidr,
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
    maintenancePolicy: {
      recurringWindow: { ...MAINTENANCE_WINDOW },
      maintenanceExclusion: exclusionDays > 0
        ? [
            {
              exclusionName: 'no-minor-or-node-upgrades',
              startTime: exclusionStart!.output,
              endTime: Fn.timeadd(exclusionStart!.output, `${exclusionDays * 24}h`),
              exclusionOptions: { scope: 'NO_MINOR_OR_NODE_UPGRADES' },
            },
          ]
        : undefined,
    },
    lifecycle: { ignoreChanges: ['node_config'] },
  };
}
