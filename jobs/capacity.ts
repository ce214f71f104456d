/**
 * The capacity vocabulary: how a TPU pool gets its VMs. One home for the words (reservation, spot, flex-start),
 * the reservation reference forms GKE accepts, and the rule that a reservation excludes spot and flex-start.
 * config/ parses into it, constructs/ and the review read it. Pure; no cdktf.
 *
 * Facts: a GKE node pool consumes a reservation through `reservation_affinity { consume_reservation_type =
 * SPECIFIC_RESERVATION, key = compute.googleapis.com/reservation-name, values = [<name>] }`; a reservation shared
 * from another project is named `projects/<project>/reservations/<name>` (GKE "Consuming reserved zonal
 * resources"). Spot and flex-start pools consume no reservation (NO_RESERVATION) — DESIGN.md, reference/
 * cdktf-gke-terraform.md §3.2.
 */

/** Where a TPU pool's capacity comes from. */
export const CAPACITY_TYPES = ['reservation', 'spot', 'flex-start'] as const;
export type CapacityType = (typeof CAPACITY_TYPES)[number];

/** How a TPU pool gets its capacity. */
export type Capacity =
  | { readonly type: 'reservation'; readonly reservation: string }
  | { readonly type: 'spot' }
  | { readonly type: 'flex-start'; readonly maxRunDurationSeconds: number };

/**
 * JobSet restarts (`failurePolicy.maxRestarts`) a training step gets by default, by where its slice's capacity comes
 * from; a pipeline overrides it with `pipelines.<name>.maxRestarts`. A restart resumes from the newest checkpoint, so
 * each one costs at most a checkpoint interval plus the restart; the bound exists for the errors a restart cannot
 * fix (a multi-host program's application error looks like a lost host, see jobs/jobset.ts ExitPolicy).
 * - reservation: hosts go away only at maintenance or repair (a few times per long run at most);
 * - flex-start: nodes also end at their maximum run duration and are not repaired in place (autoRepair off);
 * - spot: VMs can be reclaimed at any time with 30 s notice, several times per run.
 */
export const DEFAULT_TRAIN_MAX_RESTARTS: Readonly<Record<CapacityType, number>> = { reservation: 2, 'flex-start': 4, spot: 6 };

/** Flex-start: the longest a node may live, hours (GKE allows up to 7 days). */
export const FLEX_START_MAX_RUN_HOURS = { default: 72, min: 1, max: 168 } as const;

/**
 * GKE queued provisioning (flex-start with queued provisioning), the way GKE documents flex-start with Kueue: the pool
 * is created with `queued_provisioning { enabled = true }`, and its nodes are then "obtainable through the
 * ProvisioningRequest API exclusively" (hashicorp/terraform-provider-google v6.50.0
 * website/docs/r/container_node_pool.html.markdown; the block is ForceNew in resource_container_node_pool.go). Kueue's
 * ProvisioningRequest admission check (jobs/kueue.ts) creates that request once a workload holds quota and admits the
 * workload only when GKE reports it Provisioned, so the start window of `waitForPodsReady` opens when the slice exists.
 * - `className`: the ProvisioningRequest class GKE serves for it (GoogleCloudPlatform/cluster-toolkit v1.95.0
 *   examples/gke-consumption-options/dws-flex-start-queued-provisioning/tpu-dws-queues.yaml.tftpl, the TPU v6e and 7x
 *   blueprints; AI-Hypercomputer/xpk src/xpk/templates/kueue_config.yaml.j2).
 * - `taint`: GKE puts it on every node of a queued pool by itself (cluster-toolkit v1.95.0 modules/compute/gke-node-pool
 *   main.tf: "GKE automatically applies the taint"); pods that run there must tolerate it (the toolkit's TPU test
 *   JobSets: key, value "true", NoSchedule).
 * Constraints the pool meets (cluster-toolkit v1.95.0 gke-node-pool preconditions): NO_RESERVATION, an autoscaled pool
 * whose minimum is 0, not spot; COMPACT placement is allowed for TPUs.
 */
export const QUEUED_PROVISIONING = {
  className: 'queued-provisioning.gke.io',
  taint: { key: 'cloud.google.com/gke-queued', value: 'true', effect: 'NoSchedule' },
} as const;

/**
 * Whether a TPU pool of this capacity is provisioned through queued provisioning, and Kueue admits its work through
 * the ProvisioningRequest admission check: flex-start capacity only. Reservation and spot pools have a fixed size and
 * exist before any work is admitted. The pool (constructs/tpu-slice-pool.ts) and its Kueue flavor (jobs/kueue.ts) both
 * ask here, so a queued pool never lacks its check and a check never waits for a pool that is not queued.
 */
export function queuedProvisioningOf(capacity: Capacity): boolean {
  return capacity.type === 'flex-start';
}

/** A reservation reference: a name in the cluster's project, or `projects/<project>/reservations/<name>`. */
export interface ReservationRef {
  /** Project that owns the reservation. @default - the cluster's project */
  readonly project?: string;
  readonly name: string;
}

const RESERVATION_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const SHARED = /^projects\/([^/]+)\/reservations\/([^/]+)$/;
const PROJECT_ID = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;

/** Parses a reservation reference; undefined when it is neither a name nor `projects/P/reservations/R`. */
export function parseReservation(ref: string): ReservationRef | undefined {
  const shared = SHARED.exec(ref);
  if (shared) {
    return PROJECT_ID.test(shared[1]) && RESERVATION_NAME.test(shared[2]) ? { project: shared[1], name: shared[2] } : undefined;
  }
  return RESERVATION_NAME.test(ref) ? { name: ref } : undefined;
}

/** Why `ref` is not a reservation reference, or undefined when it is one. */
export function reservationProblem(ref: string): string | undefined {
  if (parseReservation(ref)) return undefined;
  return (
    `reservation must be a Compute Engine reservation name (lowercase letters, digits, dashes) or a shared ` +
    `reservation 'projects/<project>/reservations/<name>', got '${ref}'`
  );
}

/**
 * Builds a Capacity from the config words. A reservation together with spot or flex-start is refused: GKE would
 * silently consume no reservation, so the user's reserved VMs would idle while spot VMs are bought.
 *
 * @returns the capacity, or a problem naming the conflict (callers prefix it with the config source).
 */
export function capacityOf(
  type: CapacityType,
  reservation: string | undefined,
  flexStartMaxRunHours: number = FLEX_START_MAX_RUN_HOURS.default,
): { capacity: Capacity } | { problem: string } {
  const hasReservation = reservation !== undefined && reservation !== '';
  switch (type) {
    case 'reservation':
      if (!hasReservation) {
        return { problem: "capacity 'reservation' needs a reservation name; set it, or choose capacity 'spot' or 'flex-start'" };
      }
      return { capacity: { type, reservation: reservation as string } };
    case 'spot':
    case 'flex-start':
      if (hasReservation) {
        return {
          problem:
            `capacity '${type}' consumes no reservation, but reservation '${reservation}' is set; ` +
            `drop the reservation to use ${type}, or drop the capacity setting to use the reservation`,
        };
      }
      return type === 'spot' ? { capacity: { type } } : { capacity: { type, maxRunDurationSeconds: flexStartMaxRunHours * 3600 } };
  }
}

/** One reservation and everything bound to it: what the plan-time reservation check compares against. */
export interface ReservationUse {
  /** The reservation as GKE names it: `name` or `projects/<owner>/reservations/<name>`. */
  readonly reservation: string;
  /** Machine type of the pools bound to it. */
  readonly machineType: string;
  /** VMs of all slices bound to it. */
  readonly vms: number;
  /** The pools bound to it (for messages). */
  readonly pools: readonly string[];
  /** Where the reservation was set, e.g. `RESERVATION (env)` (for messages). */
  readonly env: string;
  /**
   * What to set when the reservation holds other VMs, keyed by the reservation's machine type (`ct6e-standard-8t`)
   * or by machine type and VM count (`ct6e-standard-4t/8`), e.g. `set TPU_TYPE=v6e-8`. @default - none
   */
  readonly fixes?: Readonly<Record<string, string>>;
}

/**
 * GKE limits a config is checked against at synth, so a count that cannot deploy fails in milliseconds.
 * Sources: GKE "Quotas and limits" (nodes per cluster: 15,000 on GKE >= 1.18; no per-cluster node pool limit was found);
 * GKE "Configure node pool auto-creation" (more than 200 node pools slow the cluster autoscaler down); GKE
 * "Add authorized networks for control plane access" (50 CIDR blocks on a cluster with a public endpoint; not
 * re-read for this change, check before relying on a larger list).
 */
export const GKE_LIMITS = {
  nodesPerCluster: 15_000,
  /** Above this many node pools the autoscaler's latency grows: a warning, not an error. */
  nodePoolsBeforeAutoscalerSlowdown: 200,
  authorizedNetworks: 50,
} as const;
