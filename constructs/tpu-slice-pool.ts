import { ComputeResourcePolicy } from '@cdktf/provider-google/lib/compute-resource-policy';
import { ContainerNodePool, ContainerNodePoolConfig } from '@cdktf/provider-google/lib/container-node-pool';
import { Construct } from 'constructs';
import type { IGkeCluster } from './gke-cluster';
import { Capacity, regionOfZone } from '../jobs/platform';
import { TPU_TAINT, TpuSlice } from '../jobs/tpu';

/** Key GKE matches a SPECIFIC_RESERVATION affinity on. */
export const RESERVATION_KEY = 'compute.googleapis.com/reservation-name';

export interface TpuSlicePoolProps {
  /** Node pool name, e.g. `tpu-v6e-32-0`. */
  readonly name: string;
  /** The cluster the pool joins (GkeCluster.addTpuSlicePool passes itself). */
  readonly cluster: Pick<IGkeCluster, 'clusterId'>;
  /** The slice shape from the TPU table: machine type, topology, VMs. */
  readonly slice: TpuSlice;
  /** Zone that holds the reservation or capacity. */
  readonly zone: string;
  readonly capacity: Capacity;
  readonly serviceAccountEmail: string;
  /** Boot disk size, GB. @default 100 */
  readonly diskSizeGb?: number;
}

/**
 * One node pool per TPU slice. The pool is sized by the TPU table (node count = VMs per slice) and never
 * autoscales on reserved or spot capacity: a multi-host slice is atomic. Multi-host slices get COMPACT
 * placement with the topology; capacity is a specific reservation, spot, or flex-start (which GKE
 * provisions by scaling the pool from zero, all VMs at once, and which needs auto-repair off).
 */
export class TpuSlicePool extends Construct {
  public readonly pool: ContainerNodePool;
  /** The GCE workload policy a tpu7x multi-host slice is placed by. @default - none (COMPACT + tpu_topology) */
  public readonly workloadPolicy?: ComputeResourcePolicy;

  constructor(scope: Construct, id: string, props: TpuSlicePoolProps) {
    super(scope, id);
    const { slice, capacity } = props;
    const flexStart = capacity.type === 'flex-start';
    // tpu7x multi-host slices are placed by a HIGH_THROUGHPUT workload policy carrying the topology, named as xpk
    // names it (AI-Hypercomputer/xpk v1.9.0 src/xpk/core/nodepool.py ensure_resource_policy_exists, scheduling.py
    // get_placement_policy_name), instead of COMPACT + tpu_topology.
    if (slice.requiresWorkloadPolicy) {
      this.workloadPolicy = new ComputeResourcePolicy(this, 'workload-policy', {
        name: `${props.name}-placement-policy`,
        region: regionOfZone(props.zone) ?? props.zone,
        workloadPolicy: { type: 'HIGH_THROUGHPUT', acceleratorTopology: slice.topology },
      });
    }
    const config: ContainerNodePoolConfig = {
      name: props.name,
      cluster: props.cluster.clusterId,
      nodeLocations: [props.zone],
      // Reserved and spot slices: a fixed size. Flex-start: GKE scales 0 -> all VMs of the slice at once, with
      // per-zone limits (Cluster Toolkit modules/compute/gke-node-pool: total_* limits break TPU flex-start); the pool
      // has one zone, so per zone is the whole slice.
      nodeCount: flexStart ? undefined : slice.vms,
      autoscaling: flexStart ? { minNodeCount: 0, maxNodeCount: slice.vms, locationPolicy: 'ANY' } : undefined,
      // An upgrade replaces nodes one at a time without a surge node (there is no spare reserved capacity to surge
      // into); a multi-host slice is recreated as a whole either way, which the cluster's maintenance exclusion
      // keeps away from running work (constructs/gke-cluster.ts). Flex-start pools set none: their nodes are
      // short-lived and GKE replaces them rather than upgrading in place (the provider's `strategy` takes only SURGE or
      // BLUE_GREEN, so GKE's own short-lived handling is left to apply).
      upgradeSettings: flexStart ? undefined : { strategy: 'SURGE', maxSurge: 0, maxUnavailable: 1 },
      placementPolicy: this.workloadPolicy
        ? { type: 'COMPACT', policyName: this.workloadPolicy.name }
        : slice.multiHost
          ? { type: 'COMPACT', tpuTopology: slice.topology }
          : undefined,
      management: { autoRepair: !flexStart, autoUpgrade: true },
      nodeConfig: {
        machineType: slice.machineType,
        serviceAccount: props.serviceAccountEmail,
        oauthScopes: ['https://www.googleapis.com/auth/cloud-platform'],
        imageType: 'COS_CONTAINERD',
        diskType: 'hyperdisk-balanced',
        diskSizeGb: props.diskSizeGb ?? 100,
        workloadMetadataConfig: { mode: 'GKE_METADATA' },
        gcfsConfig: { enabled: true },
        shieldedInstanceConfig: { enableSecureBoot: true, enableIntegrityMonitoring: true },
        metadata: { 'disable-legacy-endpoints': 'true' },
        taint: [{ key: TPU_TAINT.key, value: TPU_TAINT.value, effect: TPU_TAINT.effect }],
        spot: capacity.type === 'spot' ? true : undefined,
        flexStart: flexStart ? true : undefined,
        maxRunDuration: capacity.type === 'flex-start' ? `${capacity.maxRunDurationSeconds}s` : undefined,
        reservationAffinity:
          capacity.type === 'reservation'
            ? { consumeReservationType: 'SPECIFIC_RESERVATION', key: RESERVATION_KEY, values: [capacity.reservation] }
            : { consumeReservationType: 'NO_RESERVATION' },
      },
    };
    this.pool = new ContainerNodePool(this, 'pool', config);
  }
}
