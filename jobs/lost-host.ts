/**
 * The lost-host watcher of a flex-start step: when the pods of a step on a queued (flex-start) slice have had no node
 * for LOST_HOST.minutes, it re-requests the slice by deactivating and then reactivating the step's Kueue Workload.
 * Pure data: the script and its settings; jobs/argo.ts runs it as a `script` task beside the step's wait.
 *
 * Why a watcher, and not Kueue: kubernetes-sigs/kueue v0.19.2 (8eab68778fc1b52affe165fdf5af29d1e9b4f3cb), [KQ] below,
 * has one `waitForPodsReady.recoveryTimeout` for the whole manager (apis/config/v1beta2/configuration_types.go,
 * pkg/controller/core/core.go), so it cannot be set for flex-start flavors only; it stays "0s" (jobs/kueue.ts PODS_READY)
 * so that a 3-hour outage on a reservation spends no requeue. And the lost node of a queued slice is never replaced by
 * itself: the provisioning controller skips a check that is Ready (pkg/controller/admissionchecks/provisioning/
 * controller.go:278-281 `syncOwnedProvisionRequest`), so no new ProvisioningRequest is made while the workload stays admitted.
 *
 * What the watcher's two patches do, read at [KQ]:
 * - `spec.active=false`: the workload controller evicts it with reason `Deactivated` (no DeactivationTarget condition:
 *   no `DueTo<cause>` suffix) and, in the same status patch, sets `status.requeueState` to nil (pkg/controller/core/
 *   workload_controller.go:672-731, `prepare`). It does NOT count toward waitForPodsReady's backoffLimitCount: only
 *   `reconcileNotReadyTimeout` calls `UpdateRequeueState` (workload_controller.go:1229-1277); on the contrary the count
 *   starts again from 0 (the clearing above), so a re-requested slice gets waitForPodsReady's 3 requeues anew: the
 *   watcher's own count (below) is what bounds the re-requests.
 * - The job reconciler then suspends the JobSet (its pods go) and, once the job is no longer active, clears the quota
 *   reservation (QuotaReserved=False) and sets Requeued=False with the eviction's reason (pkg/controller/jobframework/
 *   reconciler.go:580-618): the watcher reactivates only after that, so the reactivation finds the state the workload
 *   controller's `Deactivated` -> `Reactivated` step expects.
 * - The eviction resets every admission check that is not Pending to Pending, keeping a retry count only for a check
 *   in Retry (pkg/workload/evict/evict.go:220-240 `resetChecksOnEviction`), and, with the feature gate
 *   `CleanupProvisioningRequestsOnEviction` (Beta, on by default since 0.19, pkg/features/kube_features.go:893-895), the
 *   provisioning controller deletes the evicted workload's ProvisioningRequests (provisioning/controller.go:135-151).
 * - `spec.active=true`: the Requeued condition goes from reason `Deactivated` to `Reactivated` (workload_controller.go:
 *   640-646) and the workload queues again. When quota is reserved again, `syncOwnedProvisionRequest` finds no request
 *   for the check and creates one, named `<workload>-<check>-<attempt>` with attempt = the check's retry count + 1
 *   (provisioning/controller.go:282-304, provisioning.go:55-58 `ProvisioningRequestName`): a fresh request (a new
 *   object; the same name as the deleted first one when the check never retried), so GKE provisions a new slice.
 * - Kueue's retention deletes only workloads Kueue itself deactivated (reason prefix `DeactivatedDueTo`,
 *   pkg/workload/evict/evict.go:49-53 `IsEvictedDueToDeactivationByKueue`, pkg/controller/jobframework/reconciler.go:
 *   790-792): a workload the watcher deactivated is never deleted under it, and one Kueue deactivated
 *   (RequeuingLimitExceeded, a rejected check) the watcher leaves alone (it only reactivates what it marked in flight).
 *
 * - The eviction records Kueue's Normal event `EvictedDueToDeactivated` on the Workload (pkg/workload/evict/evict.go:
 *   291-295 `reportEvictedWorkload`), which the `evicted` notification mails (jobs/notifications.ts): one mail per re-request.
 *
 * What "no node" means: Kueue v0.19.2 sets the Workload's PodsReady condition False with reason `WaitForRecovery` when
 * pods that were ready stop being ready (pkg/controller/jobframework/reconciler.go:1846-1904 `generatePodsReadyCondition`),
 * and keeps its lastTransitionTime while it stays False; the watcher acts when that has lasted LOST_HOST.minutes AND
 * some pod of the JobSet has no `spec.nodeName` (unscheduled: GKE's autoscaler does not scale up for pods that consume
 * a provisioning request). A JobSet restart on a healthy slice places its new pods in seconds; a reservation step has
 * no watcher at all.
 *
 * The count: each re-request adds one to the Workload's annotation SLICE_REQUESTS_ANNOTATION, in the same merge patch that
 * sets `spec.active=false` and REQUEST_IN_FLIGHT_ANNOTATION (one write: never a count without its deactivation); the
 * reactivation removes the in-flight mark in the same patch as `spec.active=true`. It spends the step's
 * restart budget together with the JobSet's own restarts (`status.restarts`): a re-request is made only while
 * restarts + re-requests < maxRestarts. Past that the watcher deletes the JobSet (its wait then ends Failed: the JobSet
 * is gone, a final message) and itself ends Failed with LOST_HOST_BUDGET_MESSAGE. One lost host usually spends two: the
 * JobSet restart that recreated the pods, and the re-request.
 */

/** The watcher's settings. */
export const LOST_HOST = {
  /**
   * Minutes a flex-start step's pods may be without a node, counted from the PodsReady condition turning False: the
   * same bound Kueue gives a start (PODS_READY.timeoutMinutes, jobs/kueue.ts): past a node's scale-up, an image pull
   * and the TPU runtime's start.
   */
  minutes: 20,
  /** Seconds between the watcher's reads (one JobSet GET, one Workload LIST, one pod LIST each). */
  pollSeconds: 60,
  /**
   * The watcher's image: kubectl with bash and jq (kubernetes/kubernetes#119592 put the kubectl image on debian-base
   * with bash and jq), the tag argo-helm argo-workflows-1.0.18 pins for its CRD Job (charts/argo-workflows/values.yaml
   * crds.upgradeJob.image). The image itself was not pulled here.
   */
  image: 'registry.k8s.io/kubectl:v1.36.2',
} as const;

/** The Workload annotation holding how many times the watcher re-requested the step's slice. */
export const SLICE_REQUESTS_ANNOTATION = 'tpu-post-training/slice-requests';
/** The Workload annotation the watcher sets while a re-request is in flight (deactivated, not yet reactivated). */
export const REQUEST_IN_FLIGHT_ANNOTATION = 'tpu-post-training/slice-request-in-flight';
/** The words every budget-spent message of the watcher carries (its retry expression stops on them). */
export const LOST_HOST_BUDGET_MESSAGE = 'restart budget spent';

/** The Kueue label on a Workload naming its job's uid (kubernetes-sigs/kueue v0.19.2 pkg/controller/constants/constants.go:43). */
export const JOB_UID_LABEL = 'kueue.x-k8s.io/job-uid';

/**
 * The watcher, bash with kubectl and jq. Env: JOBSET, NAMESPACE, STEP, MAX_RESTARTS, LOST_SECONDS, POLL_SECONDS (and
 * TERMINATION_LOG, @default /dev/termination-log, for tests). It
 * ends 0 when the JobSet ends or is gone, and 1 (message in /dev/termination-log, which Argo v4.1.2 shows as
 * `main: Error (exit code 1): <message>`, workflow/controller/operator.go:1785-1870 `inferFailedReason`; argoexec does
 * not overwrite it, cmd/argoexec/main.go:22-44) when the budget is spent. Any kubectl error only skips a poll. State
 * lives on the Workload (the annotations), so a retried watcher pod resumes: a re-request in flight is finished.
 * No `{{` anywhere: Argo would substitute it.
 */
export const LOST_HOST_SCRIPT = `set -u
count_key='${SLICE_REQUESTS_ANNOTATION}'
flight_key='${REQUEST_IN_FLIGHT_ANNOTATION}'
log() { echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $*"; }
pause() { sleep "$POLL_SECONDS"; }
wl_patch() { kubectl -n "$NAMESPACE" patch workloads.kueue.x-k8s.io "$1" --type merge -p "$2" >/dev/null; }
while :; do
  js=$(kubectl -n "$NAMESPACE" get jobsets.jobset.x-k8s.io "$JOBSET" --ignore-not-found -o json) || { pause; continue; }
  if [ -z "$js" ]; then log "JobSet $JOBSET is gone: nothing left to watch"; exit 0; fi
  state=$(jq -r '.status.terminalState // ""' <<<"$js")
  if [ -n "$state" ]; then log "JobSet $JOBSET ended $state"; exit 0; fi
  uid=$(jq -r '.metadata.uid' <<<"$js")
  restarts=$(jq -r '.status.restarts // 0' <<<"$js")
  wls=$(kubectl -n "$NAMESPACE" get workloads.kueue.x-k8s.io -l "${JOB_UID_LABEL}=$uid" -o json) || { pause; continue; }
  wl=$(jq -c '.items[0] // empty' <<<"$wls")
  if [ -z "$wl" ]; then pause; continue; fi
  name=$(jq -r '.metadata.name' <<<"$wl")
  count=$(jq -r --arg k "$count_key" '.metadata.annotations[$k] // "0"' <<<"$wl")
  flight=$(jq -r --arg k "$flight_key" '.metadata.annotations[$k] // ""' <<<"$wl")
  active=$(jq -r 'if .spec.active == false then "false" else "true" end' <<<"$wl")
  if [ -n "$flight" ]; then
    if [ "$active" = false ] && jq -e '([.status.conditions[]? | select(.type == "Evicted" and .status == "True")] | length > 0) and ([.status.conditions[]? | select(.type == "QuotaReserved" and .status == "True")] | length == 0)' <<<"$wl" >/dev/null; then
      wl_patch "$name" "$(jq -cn --arg f "$flight_key" '{metadata: {annotations: {($f): null}}, spec: {active: true}}')" &&
        log "slice of $JOBSET re-requested ($count of at most $MAX_RESTARTS restarts and re-requests): workload $name evicted, its quota released, reactivated; Kueue queues it again and asks for a new slice"
    elif [ "$active" = true ]; then
      wl_patch "$name" "$(jq -cn --arg f "$flight_key" '{metadata: {annotations: {($f): null}}}')"
    fi
    pause; continue
  fi
  if [ "$active" = false ]; then pause; continue; fi
  since=$(jq -r 'first(.status.conditions[]? | select(.type == "PodsReady" and .status == "False" and .reason == "WaitForRecovery") | .lastTransitionTime) // ""' <<<"$wl")
  admitted=$(jq -r '[.status.conditions[]? | select(.type == "Admitted" and .status == "True")] | length' <<<"$wl")
  if [ -z "$since" ] || [ "$admitted" = 0 ]; then pause; continue; fi
  age=$(jq -n --arg t "$since" --argjson now "$(date -u +%s)" '$now - ($t | fromdateiso8601)')
  if [ "$age" -lt "$LOST_SECONDS" ]; then pause; continue; fi
  pods=$(kubectl -n "$NAMESPACE" get pods -l "jobset.sigs.k8s.io/jobset-name=$JOBSET" -o json) || { pause; continue; }
  unplaced=$(jq '[.items[] | select((.spec.nodeName // "") == "" and .metadata.deletionTimestamp == null)] | length' <<<"$pods")
  if [ "$unplaced" = 0 ]; then pause; continue; fi
  if [ $((restarts + count)) -ge "$MAX_RESTARTS" ]; then
    msg="step $STEP: $unplaced pod(s) of JobSet $JOBSET have had no node for $((age / 60)) minutes on a flex-start slice, and its ${LOST_HOST_BUDGET_MESSAGE} ($restarts JobSet restarts + $count re-requested slices of maxRestarts $MAX_RESTARTS): JobSet $JOBSET deleted, the step ends Failed; raise maxRestarts or deploy again"
    kubectl -n "$NAMESPACE" delete jobsets.jobset.x-k8s.io "$JOBSET" --ignore-not-found --wait=false >/dev/null || { pause; continue; }
    log "$msg"; echo "$msg" >"\${TERMINATION_LOG:-/dev/termination-log}" 2>/dev/null; exit 1
  fi
  next=$((count + 1))
  patch=$(jq -cn --arg c "$count_key" --arg n "$next" --arg f "$flight_key" --arg at "$(date -u +%Y-%m-%dT%H:%M:%SZ)" '{metadata: {annotations: {($c): $n, ($f): $at}}, spec: {active: false}}')
  wl_patch "$name" "$patch" && log "step $STEP: $unplaced pod(s) of JobSet $JOBSET have had no node for $((age / 60)) minutes: deactivated workload $name to re-request its flex-start slice (re-request $next)"
  pause
done
`;
