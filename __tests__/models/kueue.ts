/**
 * An executable model of Kueue's flavor assignment, from kubernetes-sigs/kueue at v0.19.2:
 *
 * - pkg/scheduler/flavorassigner/flavorassigner.go `findFlavorForPodSets`: the flavors of the resource group that
 *   covers the requested resources are tried in their ClusterQueue order; the first that passes
 *   `checkFlavorForPodSets` and fits the quota wins (a flavor that does not fit -> TryNextFlavor).
 * - `checkFlavorForPodSets`: (1) the flavor's `nodeTaints` with effect NoSchedule/NoExecute must be tolerated by the
 *   pod's tolerations plus the flavor's `tolerations`; (2) the pod's node selector, reduced to THIS flavor's own label
 *   keys ("use only this flavor's own label keys", #12449), must match the flavor's nodeLabels.
 * - pkg/workload/resources.go `UseLimitsAsMissingRequestsInPod`: a container that sets only limits requests its
 *   limits; pod requests follow k8s component-helpers `PodRequests` (containers and sidecars add up, a plain init
 *   container counts as the max).
 * - pkg/controller/jobframework (podset info): on admission Kueue adds the flavor's nodeLabels to the pod's
 *   nodeSelector and its tolerations to the pod's tolerations.
 * And of kube-scheduler's NodeAffinity + TaintToleration filters for where the admitted pod may then run.
 */
import { parseBytes, parseMillicores } from '../../jobs/quantity';
import { Obj } from './synthesized';

export type Requests = Record<string, number>;

/** A pod's requests in Kueue's units: cpu in millicores, memory in bytes, extended resources as counts. */
export function podRequests(pod: Obj): Requests {
  const one = (c: Obj): Requests => {
    const merged = { ...(c.resources?.limits ?? {}), ...(c.resources?.requests ?? {}) };
    const out: Requests = {};
    for (const [name, q] of Object.entries(merged)) {
      out[name] = name === 'cpu' ? parseMillicores(String(q)) : name === 'memory' ? parseBytes(String(q)) : Number(q);
    }
    return out;
  };
  const add = (a: Requests, b: Requests) => {
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  let sidecars: Requests = {};
  let initMax: Requests = {};
  for (const c of pod.initContainers ?? []) {
    if (c.restartPolicy === 'Always') sidecars = add(sidecars, one(c));
    else for (const [k, v] of Object.entries(add(sidecars, one(c)))) initMax[k] = Math.max(initMax[k] ?? 0, v);
  }
  const main = add((pod.containers ?? []).map(one).reduce(add, {}), sidecars);
  for (const [k, v] of Object.entries(initMax)) main[k] = Math.max(main[k] ?? 0, v);
  return main;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}
export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** Kubernetes toleration matching (k8s.io/api core/v1 `Toleration.ToleratesTaint`). */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (!t.key && t.operator !== 'Exists') return false;
  return t.operator === 'Exists' || (t.value ?? '') === (taint.value ?? '');
}

export function untolerated(taints: readonly Taint[], tolerations: readonly Toleration[], effects = ['NoSchedule', 'NoExecute']): Taint | undefined {
  return taints.find((taint) => effects.includes(taint.effect) && !tolerations.some((t) => tolerates(t, taint)));
}

export interface FlavorDecision {
  readonly flavor?: string;
  /** Why each earlier flavor was passed over (Kueue's status reasons). */
  readonly reasons: readonly string[];
}

/** Usage already counted against each flavor: flavor -> resource -> amount. */
export type Usage = Record<string, Requests>;

function nominal(q: unknown, resource: string): number {
  if (resource === 'cpu') return parseMillicores(String(q));
  if (resource === 'memory') return parseBytes(String(q));
  return Number(q);
}

/**
 * Kueue's choice of flavor for one pod set of `count` pods in the ClusterQueue `cq`, given the ResourceFlavors and
 * what other pod sets already use. Single resource group (what this project builds); no borrowing, no preemption.
 */
export function assignFlavor(cq: Obj, flavors: readonly Obj[], pod: Obj, count: number, usage: Usage = {}): FlavorDecision {
  const perPod = podRequests(pod);
  const group = (cq.spec.resourceGroups as Obj[]).find((g) => Object.keys(perPod).some((r) => g.coveredResources.includes(r)));
  if (!group) return { reasons: [`resources ${Object.keys(perPod).join(', ')} unavailable in ClusterQueue`] };
  const reasons: string[] = [];
  for (const entry of group.flavors as Obj[]) {
    const rf = flavors.find((f) => f.metadata.name === entry.name);
    if (!rf) {
      reasons.push(`flavor ${entry.name} not found`);
      continue;
    }
    const taint = untolerated(rf.spec.nodeTaints ?? [], [...(pod.tolerations ?? []), ...(rf.spec.tolerations ?? [])]);
    if (taint) {
      reasons.push(`untolerated taint ${taint.key}=${taint.value}:${taint.effect} in flavor ${entry.name}`);
      continue;
    }
    const labels: Record<string, string> = rf.spec.nodeLabels ?? {};
    const ownKeys = Object.entries(pod.nodeSelector ?? {}).filter(([k]) => k in labels);
    if (!ownKeys.every(([k, v]) => labels[k] === v)) {
      reasons.push(`flavor ${entry.name} doesn't match node affinity`);
      continue;
    }
    const short = Object.entries(perPod)
      .filter(([r]) => group.coveredResources.includes(r))
      .find(([r, v]) => {
        const q = (entry.resources as Obj[]).find((x) => x.name === r);
        const quota = q ? nominal(q.nominalQuota, r) : 0;
        return (usage[entry.name]?.[r] ?? 0) + v * count > quota;
      });
    if (short) {
      reasons.push(`insufficient quota for ${short[0]} in flavor ${entry.name}`);
      continue;
    }
    return { flavor: entry.name, reasons };
  }
  return { reasons };
}

/** Assigns every pod set of one workload in order, counting earlier pod sets' usage (as Kueue does within a workload). */
export function admitWorkload(cq: Obj, flavors: readonly Obj[], sets: ReadonlyArray<{ name: string; pod: Obj; count: number }>, usage: Usage = {}): Record<string, FlavorDecision> {
  const used: Usage = JSON.parse(JSON.stringify(usage));
  const out: Record<string, FlavorDecision> = {};
  for (const set of sets) {
    const decision = assignFlavor(cq, flavors, set.pod, set.count, used);
    out[set.name] = decision;
    if (decision.flavor) {
      const u = (used[decision.flavor] ??= {});
      for (const [r, v] of Object.entries(podRequests(set.pod))) u[r] = (u[r] ?? 0) + v * set.count;
    }
  }
  return out;
}

/** The pod as Kueue releases it after admission to `flavor`: nodeSelector and tolerations merged in. */
export function admittedPod(pod: Obj, flavor: Obj): Obj {
  return {
    ...pod,
    nodeSelector: { ...(pod.nodeSelector ?? {}), ...(flavor.spec.nodeLabels ?? {}) },
    tolerations: [...(pod.tolerations ?? []), ...(flavor.spec.tolerations ?? [])],
  };
}

/** kube-scheduler's NodeAffinity (nodeSelector) and TaintToleration filters against a node's labels and taints. */
export function schedulableOn(pod: Obj, node: { labels: Readonly<Record<string, string>>; taints: readonly Taint[] }): boolean {
  const selectorOk = Object.entries(pod.nodeSelector ?? {}).every(([k, v]) => node.labels[k] === v);
  return selectorOk && untolerated(node.taints, pod.tolerations ?? []) === undefined;
}

/** One admission of a workload whose pods never become ready. */
export interface NeverReadyAdmission {
  readonly admittedAtSeconds: number;
  /** When Kueue took the quota back: eviction (PodsReadyTimeout) or deactivation. */
  readonly releasedAtSeconds: number;
  /** `status.requeueState.count` after it. */
  readonly requeueCount: number;
  readonly outcome: 'evicted PodsReadyTimeout' | 'deactivated RequeuingLimitExceeded';
}

const seconds = (d: string): number => {
  const m = /^(\d+)(s|m|h)$/.exec(d);
  if (!m) throw new Error(`duration ${d}`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'];
};

/**
 * kubernetes-sigs/kueue v0.19.2 waitForPodsReady for a workload whose pods never become ready, with quota free
 * whenever it is requeued: apis/config/v1beta2/defaults.go (on by default; timeout 30m, backoff 60 s / 3600 s,
 * backoffLimitCount null = forever), pkg/controller/core/workload_controller.go `reconcileNotReadyTimeout`
 * (admitted + timeout without PodsReady -> `triggerDeactivation` when count + 1 > backoffLimitCount, else Evict with
 * reason PodsReadyTimeout and pkg/workload/workload.go `UpdateRequeueState`: count + 1, requeueAt = now +
 * base x 2^(count-1) capped at max). Stops after `maxAdmissions` for an unbounded config.
 */
export function neverReady(managerConfig: Obj, maxAdmissions = 50): NeverReadyAdmission[] {
  const w = managerConfig.waitForPodsReady ?? {};
  const timeout = seconds(w.timeout ?? '30m');
  const rs = w.requeuingStrategy ?? {};
  const base = rs.backoffBaseSeconds ?? 60;
  const max = rs.backoffMaxSeconds ?? 3600;
  const limit: number | undefined = rs.backoffLimitCount ?? undefined;
  const out: NeverReadyAdmission[] = [];
  let t = 0;
  let count = 0;
  while (out.length < maxAdmissions) {
    const released = t + timeout;
    if (limit !== undefined && count + 1 > limit) {
      out.push({ admittedAtSeconds: t, releasedAtSeconds: released, requeueCount: count, outcome: 'deactivated RequeuingLimitExceeded' });
      return out;
    }
    count += 1;
    out.push({ admittedAtSeconds: t, releasedAtSeconds: released, requeueCount: count, outcome: 'evicted PodsReadyTimeout' });
    t = released + Math.min(base * 2 ** (count - 1), max);
  }
  return out;
}

/** What Kueue did to an admitted, once-ready workload over a series of recoveries (outages). */
export interface RecoveryOutcome {
  /** Evictions with PodsReadyTimeout, underlying cause WaitForRecovery or (after re-admission) WaitForStart. */
  readonly evictions: number;
  /** `status.requeueState.count` at the end. */
  readonly requeueCount: number;
  /** Set when Kueue deactivated the workload (reason RequeuingLimitExceeded), seconds since the first outage began. */
  readonly deactivatedAtSeconds?: number;
}

/**
 * The recovery timeout Kueue v0.19.2 runs with, seconds, or undefined for none: apis/config/v1beta2/defaults.go
 * `SetDefaults_Configuration` fills a missing `recoveryTimeout` with `timeout` (`cmp.Or` on the pointer: an explicit
 * "0s" stays), and pkg/controller/core/core.go `waitForPodsReady` keeps it only when `Duration > 0`.
 */
export function effectiveRecoveryTimeout(managerConfig: Obj): number | undefined {
  const w = managerConfig.waitForPodsReady ?? {};
  const raw = w.recoveryTimeout ?? w.timeout ?? '30m';
  const s = seconds(raw);
  return s > 0 ? s : undefined;
}

/**
 * A workload that was admitted and became ready, then loses pods `outages.length` times (a JobSet restart or an
 * in-place worker loss: the same Workload either way), each time for `outages[i]` seconds before its pods can be ready
 * again. From kubernetes-sigs/kueue v0.19.2:
 * - pkg/controller/jobframework/reconciler.go `generatePodsReadyCondition`: PodsReady True -> False gives reason
 *   WaitForRecovery (its lastTransitionTime is the loss); a re-admitted workload starts over at WaitForStart.
 * - pkg/controller/core/workload_controller.go `admittedNotReadyWorkload`: WaitForStart times out `timeout` after the
 *   Admitted transition; WaitForRecovery times out after `recoveryTimeout` only when one is configured.
 * - `reconcileNotReadyTimeout` / `triggerDeactivation`: on a timeout, deactivate when count + 1 > backoffLimitCount,
 *   else evict (quota back) and pkg/workload/workload.go `UpdateRequeueState` (count + 1, requeue after base x 2^(count-1)
 *   capped at max). The count is cleared only on deactivation (the `!IsActive` branch of `Reconcile`), never between
 *   outages.
 * The pods of a re-admitted workload are ready as soon as the outage is over (a healthy start is shorter than timeout).
 */
export function recoveries(managerConfig: Obj, outages: readonly number[]): RecoveryOutcome {
  const w = managerConfig.waitForPodsReady ?? {};
  const timeout = seconds(w.timeout ?? '30m');
  const recovery = effectiveRecoveryTimeout(managerConfig);
  const rs = w.requeuingStrategy ?? {};
  const base = rs.backoffBaseSeconds ?? 60;
  const max = rs.backoffMaxSeconds ?? 3600;
  const limit: number | undefined = rs.backoffLimitCount ?? undefined;
  let count = 0;
  let evictions = 0;
  let clock = 0;
  for (const outage of outages) {
    const back = clock + outage; // when pods could be ready again
    let deadline = recovery === undefined ? Infinity : clock + recovery; // WaitForRecovery
    while (deadline < back) {
      if (limit !== undefined && count + 1 > limit) return { evictions, requeueCount: count, deactivatedAtSeconds: deadline };
      count += 1;
      evictions += 1;
      const readmitted = deadline + Math.min(base * 2 ** (count - 1), max);
      deadline = readmitted + timeout; // WaitForStart after re-admission
    }
    clock = back;
  }
  return { evictions, requeueCount: count };
}

/*
 * Admission checks: Kueue v0.19.2's ProvisioningRequest admission check, and how it gates admission (and so the
 * waitForPodsReady clock). Read at kubernetes-sigs/kueue v0.19.2 (commit 8eab6877):
 * - pkg/util/admissioncheck/admissioncheck.go `NewAdmissionChecks`: the ClusterQueue's `admissionChecksStrategy`, each
 *   check on its `onFlavors` (empty = every flavor of the ClusterQueue); pkg/workload/workload.go
 *   `AdmissionChecksForWorkload` / `admissionChecksForAdmission`: once quota is reserved, a workload gets the checks
 *   whose flavors meet the flavors it was assigned.
 * - pkg/controller/admissionchecks/provisioning/controller.go `reqIsNeeded`, `requiredPodSets`, `podUses`,
 *   `containerUses`: a request is needed for the pod sets with count > 0 that request or limit a managed resource (in a
 *   container or an init container; none listed = all resources); with none, the check is Ready at once ("the
 *   provisioning request is not needed"). `syncOwnedProvisionRequest`: the request of attempt n is named
 *   `<workload>-<check>-<n>`, n = the check's retryCount + 1.
 * - controller.go `syncCheckStates`, in its order: Failed -> Retry while attempt <= backoffLimitCount (requeueAfter from
 *   pkg/workload/admissionchecks.go `UpdateAdmissionCheckRequeueState`: base x 2^(retryCount) capped at max), else
 *   Rejected; CapacityRevoked -> Rejected while the workload is active and not finished; BookingExpired -> like Failed
 *   but only while the workload is not admitted (an admitted one keeps its state); Provisioned -> Ready; else Pending.
 * - pkg/workload/admissionchecks.go `SyncAdmittedCondition` / `HasAllChecksReady`: Admitted = quota reserved AND every
 *   check Ready. pkg/controller/core/workload_controller.go `admittedNotReadyWorkload`: no timeout for a workload that
 *   is not admitted; WaitForStart times out `timeout` after the Admitted transition. `reconcileCheckBasedEviction`: a
 *   Rejected check deactivates the workload (`SetDeactivationTarget`, reason AdmissionCheck); a Retry check evicts it
 *   (quota back) with no `UpdateRequeueState`, so waitForPodsReady's requeue count is untouched.
 * - pkg/workload/evict/evict.go `resetChecksOnEviction`: every check goes back to Pending; a Retry check keeps
 *   retryCount + 1, any other state drops it (the next request is attempt 1 again). With
 *   CleanupProvisioningRequestsOnEviction (Beta, on at 0.19, pkg/features/kube_features.go) the evicted workload's
 *   requests are deleted, so the next quota reservation creates a new one.
 */

/** The checks Kueue attaches to a workload assigned `flavors` in `cq` (after quota reservation). */
export function checksFor(cq: Obj, flavors: readonly string[]): string[] {
  const all = (cq.spec.resourceGroups as Obj[]).flatMap((g) => (g.flavors as Obj[]).map((f) => f.name as string));
  const rules: Obj[] = cq.spec.admissionChecksStrategy?.admissionChecks ?? [];
  return rules.filter((r) => ((r.onFlavors?.length ?? 0) > 0 ? r.onFlavors : all).some((f: string) => flavors.includes(f))).map((r) => r.name);
}

/** The pod sets a ProvisioningRequest of `prc` holds (`requiredPodSets`): count > 0 and using a managed resource. */
export function provisioningPodSets(prc: Obj, sets: ReadonlyArray<{ name: string; pod: Obj; count: number }>): string[] {
  const managed: string[] = prc.spec.managedResources ?? [];
  const uses = (pod: Obj) =>
    [...(pod.initContainers ?? []), ...(pod.containers ?? [])].some((c: Obj) =>
      [...Object.keys(c.resources?.requests ?? {}), ...Object.keys(c.resources?.limits ?? {})].some((r) => managed.length === 0 || managed.includes(r)),
    );
  return sets.filter((s) => s.count > 0 && uses(s.pod)).map((s) => s.name);
}

export type CheckState = 'Pending' | 'Ready' | 'Retry' | 'Rejected';

/**
 * `syncCheckStates` for one provisioning check: the state its request's conditions give, and the retry delay. `prior`
 * is the state the check had (kept where the source changes nothing).
 */
export function provisioningCheckState(
  prc: Obj,
  pr: { conditions: readonly string[]; attempt: number },
  check: { prior: CheckState; retryCount: number },
  workload: { admitted: boolean; active: boolean; finished: boolean },
): { state: CheckState; requeueAfterSeconds?: number } {
  const rs = prc.spec.retryStrategy ?? {};
  const limit = rs.backoffLimitCount ?? 3;
  const base = rs.backoffBaseSeconds ?? 60;
  const max = rs.backoffMaxSeconds ?? 1800;
  const has = (c: string) => pr.conditions.includes(c);
  const retryOrReject = () =>
    pr.attempt <= limit ? { state: 'Retry' as const, requeueAfterSeconds: Math.min(base * 2 ** check.retryCount, max) } : { state: 'Rejected' as const };
  if (has('Failed')) return retryOrReject();
  if (has('CapacityRevoked')) return workload.active && !workload.finished ? { state: 'Rejected' } : { state: check.prior };
  if (has('BookingExpired')) return workload.admitted ? { state: check.prior } : retryOrReject();
  if (has('Provisioned')) return { state: 'Ready' };
  return { state: 'Pending' };
}

/** What GKE does with the k-th ProvisioningRequest of a workload (k counts every request, from 1). */
export interface ProvisioningOutcome {
  /** Seconds after the request is created when GKE sets Provisioned (the slice exists). */
  readonly provisionedAfterSeconds?: number;
  /** Seconds after the request is created when GKE sets Failed (or BookingExpired before admission: `expired`). */
  readonly failedAfterSeconds?: number;
  readonly expired?: boolean;
}

export interface AdmissionEvent {
  readonly at: number;
  readonly event:
    | 'QuotaReserved'
    | 'ProvisioningRequestCreated'
    | 'Admitted'
    | 'PodsReady'
    | 'EvictedAdmissionCheckRetry'
    | 'EvictedPodsReadyTimeout'
    | 'DeactivatedAdmissionCheckRejected'
    | 'DeactivatedRequeuingLimitExceeded';
  readonly detail?: string;
}

export interface AdmissionTimeline {
  readonly events: readonly AdmissionEvent[];
  /** waitForPodsReady's `status.requeueState.count` at the end. */
  readonly podsReadyRequeueCount: number;
}

/**
 * One workload's life from its first quota reservation (t = 0, quota always free), through its admission checks and
 * waitForPodsReady, until its pods are ready, it is deactivated, or `horizonSeconds` pass. `gke(k)` is what GKE does
 * with the k-th request; `podsReadyAfterAdmission(n)` how long the n-th admission's pods take to be ready (undefined =
 * never); `revokedAfterAdmission` when GKE revokes the capacity of a running workload (CapacityRevoked).
 */
export function admissionTimeline(opts: {
  cq: Obj;
  flavors: readonly Obj[];
  checks: readonly Obj[];
  configs: readonly Obj[];
  managerConfig: Obj;
  sets: ReadonlyArray<{ name: string; pod: Obj; count: number }>;
  gke: (k: number) => ProvisioningOutcome;
  podsReadyAfterAdmission: (n: number) => number | undefined;
  revokedAfterAdmission?: number;
  workloadName?: string;
  horizonSeconds?: number;
}): AdmissionTimeline {
  const w = opts.managerConfig.waitForPodsReady ?? {};
  const timeout = seconds(w.timeout ?? '30m');
  const rs = w.requeuingStrategy ?? {};
  const base = rs.backoffBaseSeconds ?? 60;
  const max = rs.backoffMaxSeconds ?? 3600;
  const limit: number | undefined = rs.backoffLimitCount ?? undefined;
  const horizon = opts.horizonSeconds ?? 30 * 24 * 3600;
  const name = opts.workloadName ?? 'wl';
  const events: AdmissionEvent[] = [];
  const configOf = (check: string): Obj => {
    const ac = opts.checks.find((c) => c.metadata.name === check);
    if (!ac) throw new Error(`the ClusterQueue names AdmissionCheck ${check}, which the objects do not hold (Kueue: AdmissionCheckNotFound)`);
    const prc = opts.configs.find((c) => c.metadata.name === ac.spec.parameters?.name);
    if (!prc) throw new Error(`AdmissionCheck ${check} reads ProvisioningRequestConfig ${ac.spec.parameters?.name}, which the objects do not hold (Kueue: BadParametersRef)`);
    return prc;
  };
  const retryCount: Record<string, number> = {};
  let requests = 0;
  let admissions = 0;
  let requeues = 0;
  let t = 0;
  while (t <= horizon) {
    events.push({ at: t, event: 'QuotaReserved' });
    const decisions = admitWorkload(opts.cq, opts.flavors, opts.sets);
    const assigned = Object.values(decisions).map((d) => d.flavor).filter((f): f is string => f !== undefined);
    let readyAt = t;
    let retry: { at: number; after: number; check: string } | undefined;
    let rejected: { at: number; check: string } | undefined;
    const provisioned: Array<{ check: string; prc: Obj; attempt: number }> = [];
    for (const check of checksFor(opts.cq, assigned)) {
      const prc = configOf(check);
      if (provisioningPodSets(prc, opts.sets).length === 0) continue; // Ready at once: no request needed
      const attempt = (retryCount[check] ?? 0) + 1;
      requests += 1;
      events.push({ at: t, event: 'ProvisioningRequestCreated', detail: `${name}-${check}-${attempt}` });
      const outcome = opts.gke(requests);
      const prior = { prior: 'Pending' as CheckState, retryCount: retryCount[check] ?? 0 };
      const wl = { admitted: false, active: true, finished: false };
      if (outcome.failedAfterSeconds !== undefined) {
        const s = provisioningCheckState(prc, { conditions: [outcome.expired ? 'BookingExpired' : 'Failed'], attempt }, prior, wl);
        const at = t + outcome.failedAfterSeconds;
        if (s.state === 'Retry') retry = { at, after: s.requeueAfterSeconds!, check };
        else rejected = { at, check };
        break;
      }
      if (outcome.provisionedAfterSeconds === undefined) return { events, podsReadyRequeueCount: requeues }; // Pending for ever
      const s = provisioningCheckState(prc, { conditions: ['Provisioned'], attempt }, prior, wl);
      if (s.state === 'Ready') readyAt = Math.max(readyAt, t + outcome.provisionedAfterSeconds);
      provisioned.push({ check, prc, attempt });
    }
    if (rejected) {
      events.push({ at: rejected.at, event: 'DeactivatedAdmissionCheckRejected', detail: rejected.check });
      return { events, podsReadyRequeueCount: requeues };
    }
    if (retry) {
      // Evicted, the quota goes back, the check keeps retryCount + 1; queued again after the check's backoff.
      events.push({ at: retry.at, event: 'EvictedAdmissionCheckRetry', detail: `${retry.check} requeued after ${retry.after}s` });
      retryCount[retry.check] = (retryCount[retry.check] ?? 0) + 1;
      t = retry.at + retry.after;
      continue;
    }
    admissions += 1;
    const admittedAt = readyAt;
    events.push({ at: admittedAt, event: 'Admitted' });
    const ready = opts.podsReadyAfterAdmission(admissions);
    if (ready !== undefined && ready <= timeout) {
      events.push({ at: admittedAt + ready, event: 'PodsReady' });
      if (opts.revokedAfterAdmission !== undefined) {
        for (const { check, prc, attempt } of provisioned) {
          const s = provisioningCheckState(prc, { conditions: ['Provisioned', 'CapacityRevoked'], attempt }, { prior: 'Ready', retryCount: 0 }, { admitted: true, active: true, finished: false });
          if (s.state === 'Rejected') {
            events.push({ at: admittedAt + opts.revokedAfterAdmission, event: 'DeactivatedAdmissionCheckRejected', detail: `${check} CapacityRevoked` });
            break;
          }
        }
      }
      return { events, podsReadyRequeueCount: requeues };
    }
    // WaitForStart timed out `timeout` after the Admitted transition.
    const at = admittedAt + timeout;
    if (limit !== undefined && requeues + 1 > limit) {
      events.push({ at, event: 'DeactivatedRequeuingLimitExceeded' });
      return { events, podsReadyRequeueCount: requeues };
    }
    requeues += 1;
    events.push({ at, event: 'EvictedPodsReadyTimeout', detail: `requeue ${requeues}` });
    for (const k of Object.keys(retryCount)) delete retryCount[k]; // a Ready check is reset without its retryCount
    t = at + Math.min(base * 2 ** (requeues - 1), max);
  }
  return { events, podsReadyRequeueCount: requeues };
}
