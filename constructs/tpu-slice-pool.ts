import type { ComputeResourcePolicy } from '@cdktf/provider-google/lib/compute-resource-policy';
import type { ContainerNodePoolConfig } from '@cdktf/provider-google/lib/container-node-pool';
import { Construct } from 'constructs';
import { ContainerNodePool } from '@cdktf/provider-google/lib/container-node-pool';
import type { IGkeCluster } from './cluster-access';
import { queuedProvisioningOf } from '../jobs/capacity';
import { Capacity, regionOfZone } from '../jobs/platform';
import { TPU_TAINT, TpuSlice } from '../jobs/tpu';

/** Key GKE matches a SPECIFIC_RESERVATION affinity on. */
export const RESERVATION_KEY = 'compute.googleapis.com/reservation-name';

export interface TpuSlicePoolProps {
  /** Node pool name, e.g. `tpu-v6e-32-0`. */
  readonly name: string;
  /** The cluster the pool joins (GkeCluster.addTpuSlicePool passes itself). */
  readonly cluster: Pick<IGkeCluster, 'clusterId' | 'clusterName'>;
  /** The slice shape from the TPU table: machine type, topology, VMs. */
  readonly slice: TpuSlice;
  /** Zone that holds the reservation or capacity. */
  readonly zone: string;
  readonly capacity: Capacity;
  /**
   * Provision the pool through GKE queued provisioning (jobs/capacity.ts QUEUED_PROVISIONING): its nodes then come only
   * for ProvisioningRequests, which Kueue's admission check creates for the work it admits to the pool's flavor
   * (jobs/kueue.ts). Only flex-start capacity can be queued. A pool whose pods do not go through Kueue (the serve
   * stack's Deployment) sets false: nothing would ever ask for its nodes.
   * @default - queuedProvisioningOf(capacity): on for flex-start, off for reservation and spot
   */
  readonly queuedProvisioning?: boolean;
  /**
   * A label and a NoSchedule taint of the same key and value that keep the pool to the pods that select and tolerate
   * them (a serve stack's server: jobs/serve.ts servePoolTaint). Without it a Kueue flavor of the same shape, which
   * selects only the accelerator and topology labels, could place a pipeline's pod on the pool. @default - none
   */
  readonly dedicatedTo?: { readonly key: string; readonly value: string };
  readonly serviceAccountEmail: string;
  /** Boot disk size, GB. @default 100 */
  readonly diskSizeGb?: number;
}

/** The provider's node pool create/update timeout (v6.50.0 resource_container_node_pool.go: 30 minutes each). */
export const PROVIDER_NODE_POOL_TIMEOUT_MINUTES = 30;

/**
 * Create/update timeout of a TPU pool, minutes: 60 plus one per VM of the slice (68 for a v6e-32, 61 for one VM, 1084
 * for a 1,024-VM v5p slice). A create that outlives its timeout leaves the pool tainted in state and the next apply
 * replaces the whole slice (faults-and-first-contact.md), so the budget grows with the VMs GKE must bring up at once;
 * it only bounds how long Terraform waits, a create that succeeds sooner returns sooner. A project choice over the
 * provider's flat 30 minutes, not a GKE figure.
 */
export function tpuPoolTimeoutMinutes(slice: Pick<TpuSlice, 'vms'>): number {
  return 2 * PROVIDER_NODE_POOL_TIMEOUT_MINUTES + slice.vms;
}

/** Longest name Compute Engine accepts for a resource policy (RFC 1035, 1-63 characters). */
const RESOURCE_POLICY_NAME_MAX = 63;

/** Name of a tpu7x pool's workload policy: per project and region, so scoped by the cluster name as well as the pool's. */
export function workloadPolicyName(clusterName: string, poolName: string): string {
  const name = `${clusterName}-${poolName}-placement`;
  if (name.length > RESOURCE_POLICY_NAME_MAX) {
    throw new Error(
      `workload policy name '${name}' is ${name.length} characters; Compute Engine allows ${RESOURCE_POLICY_NAME_MAX}: shorten CLUSTER_NAME`,
    );
  }
  return name;
}

/**
 * One node pool per TPU slice. The pool is sized by the TPU table (node count = VMs per slice) and never
 * autoscales on reserved or spot capacity: a multi-host slice is atomic. Multi-host slices get COMPACT
 * placement with the topology; capacity is a specific reservation, spot, or flex-start (which GKE
 * provisions by scaling the pool from zero, all VMs at once, and which needs auto-repair off). A flex-start pool is
 * queued by default: GKE brings its slice up for the ProvisioningRequest Kueue makes, and Kueue admits the work only
 * once the slice exists (jobs/capacity.ts QUEUED_PROVISIONING).
 */
export class TpuSlicePool extends Construct {
  public readonly pool: ContainerNodePool;
  /** The GCE workload policy a tpu7x multi-host slice is placed by. @default - none (COMPACT + tpu_topology) */
  public readonly workloadPolicy?: ComputeResourcePolicy;

  constructor(scope: Construct, id: string, props: TpuSlicePoolProps) {
    super(scope, id);
    const { slice, capacity } = props;
    const flexStart = capacity.type === 'flex-start';
    const queued = props.queuedProvisioning ?? queuedProvisioningOf(capacity);
    if (queued && !flexStart) {
      throw new Error(
        `queuedProvisioning needs capacity 'flex-start' (GKE obtains a queued pool's nodes only through ProvisioningRequests, ` +
          `scaling it from 0 with no reservation), got capacity ${JSON.stringify(capacity.type)} for pool ${JSON.stringify(props.name)}; ` +
          `drop queuedProvisioning or choose capacity 'flex-start'`,
      );
    }
    // tpu7x multi-host slices are placed by a HIGH_THROUGHPUT workload policy carrying the topology, written as Cluster
    // Toolkit's Terraform writes it (GoogleCloudPlatform/cluster-toolkit v1.95.0 modules/compute/resource-policy:
    // `workload_policy { type, accelerator_topology }`, and its `placement_policy` output { type = COMPACT, name,
    // tpu_topology = accelerator_topology } that modules/compute/gke-node-pool passes to the pool): the provider requires
    // `placement_policy.type`. Resource-policy names are per project and region, so the name carries the cluster's
    // (Cluster Toolkit adds a random suffix instead; a name derived from the config keeps the plan reviewable).
    if (slice.requiresWorkloadPolicy) {
      // Loaded here, not on import: only tpu7x pools load this provider module.
      const { ComputeResourcePolicy } = require('@cdktf/provider-google/lib/compute-resource-policy') as typeof import('@cdktf/provider-google/lib/compute-resource-policy');
      this.workloadPolicy = new ComputeResourcePolicy(this, 'workload-policy', {
        name: workloadPolicyName(props.cluster.clusterName, props.name),
        region: regionOfZone(props.zone) ?? props.zone,
        workloadPolicy: { type: 'HIGH_THROUGHPUT', acceleratorTopology: slice.topology },
      });
    }
    const timeout = `${tpuPoolTimeoutMinutes(slice)}m`;
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
        ? { type: 'COMPACT', policyName: this.workloadPolicy.name, tpuTopology: slice.topology }
        : slice.multiHost
          ? { type: 'COMPACT', tpuTopology: slice.topology }
          : undefined,
      management: { autoRepair: !flexStart, autoUpgrade: true },
      // Queued: GKE creates the nodes for the ProvisioningRequest Kueue makes once the work holds quota, all of the
      // slice at once, and taints them cloud.google.com/gke-queued (the flavor's toleration, jobs/kueue.ts). ForceNew.
      queuedProvisioning: queued ? { enabled: true } : undefined,
      nodeConfig: {
        machineType: slice.machineType,
        serviceAccount: props.serviceAccountEmail,
        oauthScopes: ['https://www.googleapis.com/auth/cloud-platform'],
        imageType: 'COS_CONTAINERD',
        diskType: slice.bootDiskType,
        diskSizeGb: props.diskSizeGb ?? 100,
        workloadMetadataConfig: { mode: 'GKE_METADATA' },
        gcfsConfig: { enabled: true },
        shieldedInstanceConfig: { enableSecureBoot: true, enableIntegrityMonitoring: true },
        metadata: { 'disable-legacy-endpoints': 'true' },
        // A queued pool names its TPU labels, as Cluster Toolkit's queued TPU pools do (cluster-toolkit v1.95.0
        // modules/compute/gke-node-pool main.tf kubernetes_labels, commit bf7c3e1 "Adding GKE TPU DWS Queued Provisioning
        // support for v6e and 7x"): the labels GKE gives TPU nodes anyway, the ones Kueue's flavor selects.
        labels: queued || props.dedicatedTo ? { ...(queued ? slice.nodeSelector : {}), ...(props.dedicatedTo ? { [props.dedicatedTo.key]: props.dedicatedTo.value } : {}) } : undefined,
        taint: [
          { key: TPU_TAINT.key, value: TPU_TAINT.value, effect: TPU_TAINT.effect },
          ...(props.dedicatedTo ? [{ key: props.dedicatedTo.key, value: props.dedicatedTo.value, effect: 'NO_SCHEDULE' }] : []),
        ],
        spot: capacity.type === 'spot' ? true : undefined,
        flexStart: flexStart ? true : undefined,
        maxRunDuration: capacity.type === 'flex-start' ? `${capacity.maxRunDurationSeconds}s` : undefined,
        reservationAffinity:
          capacity.type === 'reservation'
            ? { consumeReservationType: 'SPECIFIC_RESERVATION', key: RESERVATION_KEY, values: [capacity.reservation] }
            : { consumeReservationType: 'NO_RESERVATION' },
      },
      // Sized to the slice: a create past the provider's 30-minute default taints the pool and the next apply replaces it.
      timeouts: { create: timeout, update: timeout },
    };
    this.pool = new ContainerNodePool(this, 'pool', config);
  }
}
