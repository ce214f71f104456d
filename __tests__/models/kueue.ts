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
