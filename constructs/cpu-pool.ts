import { Construct } from 'constructs';
import { ContainerNodePool } from '@cdktf/provider-google/lib/container-node-pool';
import type { IGkeCluster } from './cluster-access';

export interface CpuNodePoolProps {
  readonly name: string;
  /** The cluster the pool joins (GkeCluster.addCpuPool passes itself). */
  readonly cluster: Pick<IGkeCluster, 'clusterId'>;
  readonly zone: string;
  readonly machineType: string;
  readonly serviceAccountEmail: string;
  /** Fixed node count; set this or `maxNodes`. @default - autoscaled (maxNodes) */
  readonly nodeCount?: number;
  /** Autoscale from `minNodes` to this many nodes; set this or `nodeCount`. @default - fixed size (nodeCount) */
  readonly maxNodes?: number;
  /** Lower bound when autoscaling. @default 0 */
  readonly minNodes?: number;
  /** Boot disk type. @default hyperdisk-balanced for N4 machine types (they support only Hyperdisk), else pd-balanced */
  readonly diskType?: string;
  /** Boot disk size, GB. @default 200 */
  readonly diskSizeGb?: number;
}

/**
 * A CPU node pool pinned to one zone: the `system` pool (fixed size) and `cpu-np` (Pathways heads and
 * checkpoint conversions, autoscaling from zero). Runs as the dedicated node service account with the
 * GKE metadata server (Workload Identity) and image streaming.
 */
export class CpuNodePool extends Construct {
  public readonly pool: ContainerNodePool;

  constructor(scope: Construct, id: string, props: CpuNodePoolProps) {
    super(scope, id);
    if ((props.nodeCount === undefined) === (props.maxNodes === undefined)) {
      throw new Error(`node pool ${props.name}: set exactly one of nodeCount and maxNodes`);
    }
    this.pool = new ContainerNodePool(this, 'pool', {
      name: props.name,
      cluster: props.cluster.clusterId,
      nodeLocations: [props.zone],
      nodeCount: props.nodeCount,
      autoscaling:
        props.maxNodes === undefined
          ? undefined
          : { totalMinNodeCount: props.minNodes ?? 0, totalMaxNodeCount: props.maxNodes, locationPolicy: 'ANY' },
      management: { autoRepair: true, autoUpgrade: true },
      nodeConfig: {
        machineType: props.machineType,
        serviceAccount: props.serviceAccountEmail,
        oauthScopes: ['https://www.googleapis.com/auth/cloud-platform'],
        imageType: 'COS_CONTAINERD',
        diskType: props.diskType ?? (props.machineType.startsWith('n4-') ? 'hyperdisk-balanced' : 'pd-balanced'),
        diskSizeGb: props.diskSizeGb ?? 200,
        workloadMetadataConfig: { mode: 'GKE_METADATA' },
        gcfsConfig: { enabled: true },
        shieldedInstanceConfig: { enableSecureBoot: true, enableIntegrityMonitoring: true },
        metadata: { 'disable-legacy-endpoints': 'true' },
      },
    });
  }
}
