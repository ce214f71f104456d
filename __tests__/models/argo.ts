/**
 * A model of how Argo Workflows v4.1.2 runs a pipeline Workflow of `resource` templates, read from its source at
 * argoproj/argo-workflows@v4.1.2 (16a52d67daf2f4a8a76fa8bec02a76a46aa46257), run over the Workflow jobs/argo.ts
 * synthesizes (it reads the DAG, the templates, the retry strategies and the conditions from the object itself).
 *
 * Rules and where they are:
 * - conditions: label-selector requirements over gjson paths; failure first, any one fails; success needs all —
 *   workflow/executor/resource.go `WaitResource`, `matchConditions`; `!=`/`notin` on a missing key are true
 *   (k8s.io/apimachinery labels/selector.go `Requirement.Matches`).
 * - the executor: `kubectl <action> -f manifest -o json`; a non-transient kubectl error -> "no more retries <stderr>";
 *   an object gone while polled -> "The resource has been deleted while its status was still being checked";
 *   polls every RESOURCE_STATE_CHECK_INTERVAL — resource.go `ExecResource`, `checkResourceState`. The error becomes the
 *   termination message (cmd/argoexec/main.go, exit 64) and the node message `main: Error (exit code 64): <error>`,
 *   phase Failed (workflow/controller/operator.go `inferFailedReason`); a pod with a status message (eviction, deadline)
 *   -> Failed with that message; a pod that is gone -> Error "pod deleted" (operator.go `podReconciliation`).
 * - retries: operator.go `processNodeRetries`: maxDuration (from the first attempt's start) exceeded -> stop; backoff
 *   `duration * factor^(n-1)` capped by `cap`, counted from the last attempt's end, stop if it ends past maxDuration;
 *   then the policy (Always: Failed and Error; OnError: Error only), the limit, the expression; each retry's pod
 *   deadline is capped by the maxDuration deadline.
 * - DAG: `depends` over task results; a bare name is `(X.Succeeded || X.Skipped || X.Daemoned)`
 *   (argo-workflows' own enhanced-depends-logic page under its docs folder); the DAG's phase is its leaf's branch phase (workflow/controller/dag.go
 *   `assessDAGPhase`): the last completed node on the branch, Failed/Error when the leaf was omitted after a failure.
 * - the controller: the only thing that creates pods and advances nodes; while it is down, pods run on and their end is
 *   read when it is back (operator.go `podReconciliation` reads pods, not events).
 * - the exit handler (`spec.onExit`): run once the entry DAG is fulfilled, with `workflow.status` and
 *   `workflow.failures` set (operator.go:448-521), its tags substituted in the resource manifest, a DAG task's
 *   `continueOn` keeping its DAG Succeeded (dag.go:227-235), and a failed exit node failing a Succeeded Workflow
 *   (operator.go:527-547): `runExitHandler`.
 * Kubernetes: deleting a Workflow with the `foregroundDeletion` finalizer deletes its blockOwnerDeletion dependents
 * (the JobSets, `setOwnerReference`) before it is gone.
 */

export type Phase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Error' | 'Omitted';

/** What a JobSet does over its life, from its creation (seconds), as the JobSet and Kueue controllers drive it. */
export interface JobSetScript {
  /** Seconds after creation it ends, and how. @default - never ends by itself */
  readonly endsAfter?: number;
  readonly ends?: 'Completed' | 'Failed';
  /** Seconds after creation Kueue deletes it (a deactivated workload past its retention). @default - never */
  readonly deletedAfter?: number;
  /** JobSet restarts before its end (preemption, a lost host): the JobSet handles them itself. @default 0 */
  readonly restarts?: number;
  /**
   * Flex-start: seconds after creation its slice loses a host for good; the JobSet restarts (one of `restarts`) and its
   * new pods wait with no node, the Workload PodsReady=False (WaitForRecovery) from then (Kueue's recoveryTimeout is 0s:
   * Kueue never evicts it). Each time the lost-host watcher re-requests the slice, Kueue evicts, requeues and admits
   * it again with a fresh ProvisioningRequest, and the JobSet runs anew: `endsAfter` counts again from the new slice's
   * pods starting, `reprovisionSeconds` after the reactivation. @default - never
   */
  readonly hostLostAfter?: number;
  /** Seconds from a reactivation until the new slice's pods run (queue, provisioning, pull). @default 1800 */
  readonly reprovisionSeconds?: number;
  /** Whether the new slice loses a host again (every slice of this script does). @default false */
  readonly everySliceLosesHost?: boolean;
}

export interface LiveJobSet {
  readonly name: string;
  readonly createdAt: number;
  readonly owner?: string;
  readonly script: JobSetScript;
  deletedAt?: number;
  /** When the current slice's pods started (createdAt, or a re-request's new slice). */
  runsFrom?: number;
  /** Re-requests the watcher made (its Workload annotation), each a fresh ProvisioningRequest, and when. */
  requests?: number[];
}

/** A fault: at `at` seconds, the pod of the running attempt of `task` is lost (deleted) or evicted. */
export type Fault =
  | { readonly kind: 'pod-deleted' | 'pod-evicted'; readonly task: string; readonly at: number }
  | { readonly kind: 'controller-down'; readonly from: number; readonly to: number }
  /** JobSet's (or Kueue's) admission webhook unreachable (its controller restarting): every JobSet create is refused. */
  | { readonly kind: 'webhook-down'; readonly from: number; readonly to: number };

/**
 * The executor's error for a JobSet create while the webhook is unreachable: kubectl's stderr for the API server's 500
 * (`Internal error occurred: failed calling webhook ...`, k8s.io/apiserver admission webhook errors), wrapped by
 * resource.go `ExecResource` as "no more retries <stderr>" once client-go's DefaultBackoff (~0.3 s) is spent.
 */
export function webhookRefusal(name: string): string {
  return (
    `no more retries Error from server (InternalError): error when creating "/tmp/manifest.yaml": Internal error occurred: ` +
    `failed calling webhook "mjobset.kb.io": failed to call webhook: Post "https://jobset-webhook-service.jobset-system.svc:443/` +
    `mutate-jobset-x-k8s-io-v1alpha2-jobset?timeout=10s": no endpoints available for service "jobset-webhook-service" (${name})`
  );
}

export interface Attempt {
  readonly start: number;
  end?: number;
  phase: Phase;
  message: string;
  deadline: number;
  /** The executor has run its kubectl action (create/get) already. */
  acted?: boolean;
}

export interface NodeState {
  readonly task: string;
  phase: Phase;
  message: string;
  attempts: Attempt[];
  /** The controller may start the next attempt from this time. */
  retryAt?: number;
}

export interface RunResult {
  readonly phase: Phase;
  readonly endedAt?: number;
  readonly nodes: Readonly<Record<string, NodeState>>;
  /** JobSet creations, in order: name and time. */
  readonly creates: ReadonlyArray<{ readonly name: string; readonly at: number }>;
  readonly jobSets: ReadonlyMap<string, LiveJobSet>;
}

// ---- conditions (resource.go matchConditions + labels.Parse) ----

interface Requirement { key: string; op: '==' | '!=' | 'in' | 'notin' | 'exists' | '!'; values: string[] }

export function parseRequirements(selector: string): Requirement[] {
  return selector.split(/,(?![^(]*\))/).map((raw) => raw.trim()).filter(Boolean).map((r) => {
    let m = /^(\S+)\s*(==|!=|=)\s*(\S+)$/.exec(r);
    if (m) return { key: m[1], op: m[2] === '!=' ? '!=' : '==', values: [m[3]] };
    m = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(r);
    if (m) return { key: m[1], op: m[2] as 'in' | 'notin', values: m[3].split(',').map((v) => v.trim()) };
    m = /^!(\S+)$/.exec(r);
    if (m) return { key: m[1], op: '!', values: [] };
    if (/^\S+$/.test(r)) return { key: r, op: 'exists', values: [] };
    throw new Error(`not a label-selector requirement: ${r}`);
  });
}

/** gjson path lookup (dotted, numeric indexes); `.String()` of the value. */
function lookup(obj: unknown, key: string): string | undefined {
  let cur: any = obj;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object' || !(part in cur)) return undefined;
    cur = cur[part];
  }
  return cur === undefined || cur === null ? undefined : typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
}

export function requirementMatches(req: Requirement, obj: unknown): boolean {
  const v = lookup(obj, req.key);
  switch (req.op) {
    case '==': case 'in': return v !== undefined && req.values.includes(v);
    case '!=': case 'notin': return v === undefined || !req.values.includes(v);
    case 'exists': return v !== undefined;
    case '!': return v === undefined;
  }
}

/** 'failed' | 'succeeded' | 'poll', with the message resource.go gives a failure. */
export function matchConditions(obj: unknown, success: string, failure: string): { verdict: 'failed' | 'succeeded' | 'poll'; message?: string } {
  for (const req of failure ? parseRequirements(failure) : []) {
    if (requirementMatches(req, obj)) return { verdict: 'failed', message: `failure condition '${req.key} ${req.op === '==' ? '==' : req.op} ${req.values.join(',')}' evaluated true` };
  }
  const reqs = success ? parseRequirements(success) : [];
  return reqs.every((r) => requirementMatches(r, obj)) ? { verdict: 'succeeded' } : { verdict: 'poll' };
}

// ---- the cluster side: JobSets as their controllers drive them ----

/** The JobSet object a GET returns at time t (status only), or undefined when it does not exist. */
export function jobSetObject(js: LiveJobSet | undefined, t: number): Record<string, unknown> | undefined {
  if (!js || (js.deletedAt !== undefined && t >= js.deletedAt)) return undefined;
  const age = t - js.createdAt;
  if (js.script.deletedAfter !== undefined && age >= js.script.deletedAfter) return undefined;
  // Each loss of a host restarts the JobSet once (its pods fail with the node).
  if (hostLostSince(js, t) !== undefined) return { metadata: { name: js.name }, status: { restarts: 1 + (js.script.everySliceLosesHost ? js.requests?.length ?? 0 : 0) } };
  const runAge = t - (js.runsFrom ?? js.createdAt);
  const ended = js.script.endsAfter !== undefined && runAge >= js.script.endsAfter;
  return {
    metadata: { name: js.name, ...(js.owner ? { ownerReferences: [{ uid: js.owner }] } : {}) },
    status: { restarts: ended ? js.script.restarts ?? 0 : 0, ...(ended ? { terminalState: js.script.ends } : {}) },
  };
}

/** Since when the JobSet's pods have had no node (its current slice lost a host), or undefined. */
export function hostLostSince(js: LiveJobSet, t: number): number | undefined {
  const lost = js.script.hostLostAfter;
  if (lost === undefined) return undefined;
  const from = js.runsFrom ?? js.createdAt;
  if (t < from) return t; // between a reactivation and the new slice: no pods to place yet (not lost, not running)
  if ((js.requests?.length ?? 0) > 0 && !js.script.everySliceLosesHost) return undefined;
  return t >= from + lost ? from + lost : undefined;
}

/**
 * One poll of the lost-host watcher (jobs/lost-host.ts LOST_HOST_SCRIPT; the script itself runs against a fake
 * cluster in __tests__/models/lost-host.test.ts): 'done' once the JobSet ended or is gone; a re-request when its pods
 * have had no node for LOST_SECONDS and restarts + re-requests < MAX_RESTARTS; past that the JobSet deleted and the
 * budget message.
 */
export function watchPoll(js: LiveJobSet | undefined, env: Record<string, string>, t: number): { verdict: 'done' | 'poll' | 'failed'; message?: string } {
  const obj = jobSetObject(js, t) as { status: { terminalState?: string; restarts: number } } | undefined;
  if (!js || !obj || obj.status.terminalState) return { verdict: 'done' };
  const since = hostLostSince(js, t);
  if (since === undefined || t < (js.runsFrom ?? js.createdAt) || t - since < Number(env.LOST_SECONDS)) return { verdict: 'poll' };
  const requests = js.requests ?? [];
  if (obj.status.restarts + requests.length >= Number(env.MAX_RESTARTS)) {
    js.deletedAt = t;
    return { verdict: 'failed', message: `main: Error (exit code 1): step ${env.STEP}: ... restart budget spent (${obj.status.restarts} JobSet restarts + ${requests.length} re-requested slices of maxRestarts ${env.MAX_RESTARTS}) ...` };
  }
  js.requests = [...requests, t];
  js.runsFrom = t + (js.script.reprovisionSeconds ?? 1800);
  return { verdict: 'poll' };
}

// ---- retry expression: the form jobs/argo.ts writes, nothing more ----

export function evalExpression(expr: string, lastMessage: string): boolean {
  return expr.split(' && ').every((term) => {
    const m = /^!\(lastRetry\.message contains "(.*)"\)$/.exec(term.trim());
    if (!m) throw new Error(`expression term the model does not know: ${term}`);
    return !lastMessage.includes(JSON.parse(`"${m[1]}"`));
  });
}

const seconds = (d: string): number => {
  const m = /^(\d+)(s|m|h)$/.exec(d);
  if (!m) throw new Error(`duration the model does not know: ${d}`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'];
};

// ---- depends ----

function dependsSatisfied(expr: string | undefined, nodes: Record<string, NodeState>): 'yes' | 'no' | 'wait' {
  if (!expr) return 'yes';
  const terms = expr.split('||').map((t) => t.trim());
  let pending = false;
  for (const term of terms) {
    const [task, result] = term.includes('.') ? term.split('.') : [term, undefined];
    const n = nodes[task];
    if (!n || !['Succeeded', 'Failed', 'Error', 'Omitted'].includes(n.phase)) { pending = true; continue; }
    const ok = result === undefined ? n.phase === 'Succeeded' : n.phase === result;
    if (ok) return 'yes';
  }
  return pending ? 'wait' : 'no';
}

// ---- the run ----

export interface RunOptions {
  readonly workflow: any;
  readonly scripts: Readonly<Record<string, JobSetScript>>;
  readonly faults?: readonly Fault[];
  /** JobSets that exist before the Workflow starts (a migrated run), with their age in seconds. */
  readonly existing?: ReadonlyArray<{ readonly name: string; readonly ageSeconds: number }>;
  /** The Workflow's uid (the JobSets' owner). @default 'wf-uid' */
  readonly uid?: string;
  /** Seconds of simulated time at most. @default 40 days */
  readonly horizon?: number;
  /**
   * A create attempt's pod is still finishing (reporting its result) for one poll after kubectl created the object,
   * so a fault then loses the pod after the create. @default false
   */
  readonly lostAfterAct?: boolean;
  /** Poll interval of the executor, seconds (RESOURCE_STATE_CHECK_INTERVAL). */
  readonly pollSeconds: number;
  /** Go on from a retried Workflow (`retryWorkflow`): its kept nodes, the cluster's JobSets, from time `at`. @default - a new run */
  readonly resume?: { readonly nodes: Readonly<Record<string, NodeState>>; readonly jobSets: ReadonlyMap<string, LiveJobSet>; readonly creates: ReadonlyArray<{ readonly name: string; readonly at: number }>; readonly at: number };
}

export function runWorkflow(o: RunOptions): RunResult {
  const wf = o.workflow;
  const uid = o.uid ?? 'wf-uid';
  const templates = new Map<string, any>(wf.spec.templates.map((t: any) => [t.name, t]));
  const tasks: any[] = templates.get(wf.spec.entrypoint).dag.tasks;
  const nodes: Record<string, NodeState> = JSON.parse(JSON.stringify(o.resume?.nodes ?? {}));
  const jobSets = new Map<string, LiveJobSet>(o.resume?.jobSets ?? []);
  const creates: Array<{ name: string; at: number }> = [...(o.resume?.creates ?? [])];
  for (const e of o.existing ?? []) jobSets.set(e.name, { name: e.name, createdAt: -e.ageSeconds, script: o.scripts[e.name] ?? {} });
  const dt = o.pollSeconds;
  const horizon = o.horizon ?? 40 * 86400;
  const down = (t: number) => (o.faults ?? []).some((f) => f.kind === 'controller-down' && t >= f.from && t < f.to);

  const startAttempt = (n: NodeState, t: number) => {
    const tmpl = templates.get(tasks.find((x) => x.name === n.task).template);
    const rs = tmpl.retryStrategy;
    let deadline = tmpl.activeDeadlineSeconds !== undefined ? t + tmpl.activeDeadlineSeconds : Infinity;
    if (rs?.backoff?.maxDuration && n.attempts.length > 0) deadline = Math.min(deadline, n.attempts[0].start + seconds(rs.backoff.maxDuration));
    n.attempts.push({ start: t, phase: 'Running', message: '', deadline });
    n.phase = 'Running';
  };

  /** One executor step of a running attempt at time t (the pod runs whether or not the controller is up). */
  const runPod = (n: NodeState, a: Attempt, t: number) => {
    const tmpl = templates.get(tasks.find((x) => x.name === n.task).template);
    if (tmpl.script) {
      if (t >= a.deadline) return Object.assign(a, { phase: 'Failed', message: 'Pod was active on the node longer than the specified deadline', end: t });
      const env = Object.fromEntries(tmpl.script.env.map((e: any) => [e.name, e.value]));
      const v = watchPoll(jobSets.get(env.JOBSET), env, t);
      if (v.verdict === 'done') return Object.assign(a, { phase: 'Succeeded', end: t });
      if (v.verdict === 'failed') return Object.assign(a, { phase: 'Failed', message: v.message!, end: t });
      return a;
    }
    const r = tmpl.resource;
    const manifest = JSON.parse(r.manifest);
    const name = manifest.metadata.name;
    const fail = (msg: string) => Object.assign(a, { phase: 'Failed', message: `main: Error (exit code 64): ${msg}`, end: t });
    if (t >= a.deadline) return Object.assign(a, { phase: 'Failed', message: 'Pod was active on the node longer than the specified deadline', end: t });
    if (!a.acted) {
      a.acted = true;
      const live = jobSetObject(jobSets.get(name), t);
      if (r.action === 'create') {
        if ((o.faults ?? []).some((f) => f.kind === 'webhook-down' && t >= f.from && t < f.to)) return fail(webhookRefusal(name));
        if (live) return fail(`no more retries Error from server (AlreadyExists): jobsets.jobset.x-k8s.io "${name}" already exists`);
        jobSets.set(name, { name, createdAt: t, owner: r.setOwnerReference ? uid : undefined, script: o.scripts[name] ?? {} });
        creates.push({ name, at: t });
        if (o.lostAfterAct) return a;
      } else if (r.action === 'get') {
        if (!live) return fail(`no more retries Error from server (NotFound): jobsets.jobset.x-k8s.io "${name}" not found`);
      } else throw new Error(`action the model does not know: ${r.action}`);
    }
    if (!r.successCondition && !r.failureCondition) return Object.assign(a, { phase: 'Succeeded', end: t });
    const obj = jobSetObject(jobSets.get(name), t);
    if (!obj) return fail('The resource has been deleted while its status was still being checked. Will not be retried');
    const v = matchConditions(obj, r.successCondition ?? '', r.failureCondition ?? '');
    if (v.verdict === 'failed') return fail(v.message!);
    if (v.verdict === 'succeeded') return Object.assign(a, { phase: 'Succeeded', end: t });
    return a;
  };

  /** processNodeRetries for a node whose last attempt ended: 'retry' | 'wait' | a final phase. */
  const retryDecision = (n: NodeState, t: number): 'retry' | 'wait' | 'final' => {
    const last = n.attempts[n.attempts.length - 1];
    const tmpl = templates.get(tasks.find((x) => x.name === n.task).template);
    const rs = tmpl.retryStrategy;
    if (!rs) return 'final';
    if (rs.backoff) {
      const maxDeadline = rs.backoff.maxDuration ? n.attempts[0].start + seconds(rs.backoff.maxDuration) : Infinity;
      if (t > maxDeadline) { n.message = 'Max duration limit exceeded'; return 'final'; }
      let wait = seconds(rs.backoff.duration) * Math.pow(Number(rs.backoff.factor ?? 1) || 1, n.attempts.length - 1);
      if (rs.backoff.cap) wait = Math.min(wait, seconds(rs.backoff.cap));
      const waitingDeadline = last.end! + wait;
      if (waitingDeadline > maxDeadline) { n.message = 'Backoff would exceed max duration limit'; return 'final'; }
      if (t < waitingDeadline && n.attempts.length <= Number(rs.limit)) return 'wait';
    }
    const policy = rs.retryPolicy ?? (rs.expression ? 'Always' : 'OnFailure');
    const onFailed = policy === 'Always' || policy === 'OnFailure';
    const onError = policy === 'Always' || policy === 'OnError';
    if ((last.phase === 'Failed' && !onFailed) || (last.phase === 'Error' && !onError)) return 'final';
    if (rs.limit !== undefined && n.attempts.length > Number(rs.limit)) { n.message = 'No more retries left'; return 'final'; }
    if (rs.expression && !evalExpression(rs.expression, last.message)) return 'final';
    return 'retry';
  };

  let endedAt: number | undefined;
  for (let t = o.resume?.at ?? 0; t <= horizon; t += dt) {
    // Faults act on pods.
    for (const f of o.faults ?? []) {
      if (f.kind === 'controller-down' || f.kind === 'webhook-down' || f.at !== t) continue;
      const a = nodes[f.task]?.attempts.at(-1);
      if (a && a.end === undefined) Object.assign(a, f.kind === 'pod-deleted' ? { phase: 'Error', message: 'pod deleted', end: t } : { phase: 'Failed', message: 'The node was low on resource: memory.', end: t });
    }
    // Pods run.
    for (const n of Object.values(nodes)) {
      const a = n.attempts.at(-1);
      if (a && a.end === undefined) runPod(n, a, t);
    }
    if (down(t)) continue;
    // The controller: node phases from attempts, retries, new tasks.
    for (const n of Object.values(nodes)) {
      const a = n.attempts.at(-1);
      if (!a || a.end === undefined || ['Succeeded', 'Failed', 'Error', 'Omitted'].includes(n.phase)) continue;
      if (a.phase === 'Succeeded') { n.phase = 'Succeeded'; continue; }
      const d = retryDecision(n, t);
      if (d === 'retry') startAttempt(n, t);
      else if (d === 'final') { n.phase = a.phase; if (!n.message) n.message = a.message; }
    }
    for (const task of tasks) {
      if (nodes[task.name]) continue;
      const s = dependsSatisfied(task.depends, nodes);
      if (s === 'yes') { nodes[task.name] = { task: task.name, phase: 'Pending', message: '', attempts: [] }; startAttempt(nodes[task.name], t); }
      else if (s === 'no') nodes[task.name] = { task: task.name, phase: 'Omitted', message: 'omitted: depends condition not met', attempts: [] };
    }
    if (tasks.every((x) => nodes[x.name] && ['Succeeded', 'Failed', 'Error', 'Omitted'].includes(nodes[x.name].phase))) { endedAt = t; break; }
  }
  return { phase: endedAt === undefined ? 'Running' : dagPhase(tasks, nodes), endedAt, nodes, creates, jobSets };
}

/**
 * Argo's retry of a Failed or Error Workflow (argo-workflows v4.1.2 workflow/util/util.go `FormulateRetryWorkflow`,
 * what argo-server's RetryWorkflow runs, restartSuccessful false, no node selector): every failed execution node
 * without a succeeded descendant (`isDescendantNodeSucceeded`) is deleted with everything that depends on it
 * (`resetPath`; Omitted nodes are such dependents), every other node kept as it is; the phase goes back to Running
 * and the controller runs the DAG on. Returns the kept nodes (by task).
 */
export function retryWorkflow(workflow: any, result: RunResult): Record<string, NodeState> {
  if (result.phase !== 'Failed' && result.phase !== 'Error') throw new Error(`Cannot retry a workflow in phase ${result.phase}`);
  const tasks: any[] = workflow.spec.templates.find((t: any) => t.name === workflow.spec.entrypoint).dag.tasks;
  // `depends` here is `a`, or `a.Succeeded || a.Failed`: the task names before each dot.
  const dependents = (task: string) => tasks.filter((t) => String(t.depends ?? '').split('||').some((term) => term.trim().split('.')[0] === task)).map((t) => t.name as string);
  const descendantSucceeded = (task: string): boolean => dependents(task).some((d) => result.nodes[d]?.phase === 'Succeeded' || descendantSucceeded(d));
  const remove = new Set<string>();
  const drop = (task: string) => {
    if (remove.has(task)) return;
    remove.add(task);
    for (const d of dependents(task)) drop(d);
  };
  for (const [task, n] of Object.entries(result.nodes)) if ((n.phase === 'Failed' || n.phase === 'Error') && !descendantSucceeded(task)) drop(task);
  return Object.fromEntries(Object.entries(result.nodes).filter(([task]) => !remove.has(task)));
}

/** assessDAGPhase for a chain: the leaf's branch phase (last completed node before the leaf; Failed/Error preferred). */
function dagPhase(tasks: any[], nodes: Record<string, NodeState>): Phase {
  let branch: Phase = 'Succeeded';
  for (const task of tasks) {
    const n = nodes[task.name];
    if (n.phase === 'Omitted') continue;
    // A node that Failed but whose dependant ran on it (`X.Failed` in depends) does not end the branch.
    branch = n.phase;
  }
  return branch;
}

/** Deleting a Workflow with foregroundDeletion: its owned JobSets go first (time t), the unowned stay. */
export function deleteWorkflow(jobSets: Map<string, LiveJobSet>, uid: string, t: number): void {
  for (const js of jobSets.values()) if (js.owner === uid && js.deletedAt === undefined) js.deletedAt = t;
}

// ---- the exit handler (spec.onExit): what it sees and what it may change ----

/** operator.go:448-457: the entry node's phase as `workflow.status` (Skipped and Omitted count as Succeeded). */
export function workflowStatusOf(phase: Phase): 'Succeeded' | 'Failed' | 'Error' | 'Running' {
  if (phase === 'Failed' || phase === 'Error') return phase;
  return phase === 'Running' || phase === 'Pending' ? 'Running' : 'Succeeded';
}

export interface FailedNode {
  readonly displayName: string;
  readonly message: string;
  readonly templateName: string;
  readonly phase: 'Failed' | 'Error';
}

/**
 * operator.go:459-479: every node Failed or Error. A task with a retryStrategy is a retry node (its display name the
 * task's) whose attempts are children `<task>(<n>)` (workflow/controller/operator.go `processNodeRetries` names them
 * with the attempt index); the entry DAG's node is named after the Workflow. Order is not kept (a Go map).
 */
export function workflowFailures(workflow: any, result: RunResult): FailedNode[] {
  const out: FailedNode[] = [];
  const tasks: any[] = workflow.spec.templates.find((t: any) => t.name === workflow.spec.entrypoint).dag.tasks;
  for (const [name, n] of Object.entries(result.nodes)) {
    const templateName = tasks.find((t) => t.name === name).template;
    n.attempts.forEach((a, i) => {
      if (a.phase === 'Failed' || a.phase === 'Error') out.push({ displayName: `${name}(${i})`, message: a.message, templateName, phase: a.phase });
    });
    if (n.phase === 'Failed' || n.phase === 'Error') out.push({ displayName: name, message: n.message, templateName, phase: n.phase });
  }
  if (result.phase === 'Failed' || result.phase === 'Error') {
    out.push({ displayName: workflow.metadata.name, message: 'child failed', templateName: workflow.spec.entrypoint, phase: result.phase });
  }
  return out;
}

/**
 * The value of `workflow.failures`: strconv.Quote(json.Marshal(failures)) (operator.go:479), `"null"` with its quotes
 * when nothing failed (util/variables/keys/globals.go:60-62). For ASCII JSON, strconv.Quote is JSON.stringify (the
 * model writes no HTML-escaped `<`, `>`, `&`: json.Marshal would write \u003c; the same string once decoded).
 */
export function failuresValue(failures: readonly FailedNode[]): string {
  return JSON.stringify(JSON.stringify(failures.length > 0 ? failures : null));
}

/**
 * A resource manifest's tags as the exit handler's pod gets them: a simple tag replaced by its value (escaped for
 * the JSON-marshalled template and unescaped with it: util/template/simple_template.go:66-72), `{{=sprig.b64enc(x)}}`
 * by the base64 of x's value (expr + sprig, util/expr/env/env.go:21-29; a string result is inserted without its
 * quotes, util/template/expression_template.go:260-275). Any other expression is a model error.
 */
export function substituteExitTags(manifest: string, vars: Readonly<Record<string, string>>): string {
  return manifest.replace(/\{\{\s*(=?)\s*([^}]+?)\s*\}\}/g, (_m, expr: string, body: string) => {
    if (!expr) {
      if (!(body in vars)) throw new Error(`tag the model does not know: {{${body}}}`);
      return vars[body];
    }
    const m = /^sprig\.b64enc\(([\w.]+)\)$/.exec(body);
    if (!m || !(m[1] in vars)) throw new Error(`expression the model does not know: {{=${body}}}`);
    return Buffer.from(vars[m[1]], 'utf8').toString('base64');
  });
}

export interface ExitRun {
  /** What the exit handler created, as its pod's kubectl got it (tags substituted), by template. */
  readonly created: ReadonlyArray<{ readonly template: string; readonly manifest: any }>;
  /** The exit handler node's phase. */
  readonly exitPhase: Phase;
  /** The Workflow's phase after the exit handler (operator.go:527-547). */
  readonly phase: Phase;
}

/**
 * Runs `spec.onExit` once the entry DAG ended (operator.go:484-521): a DAG of resource creates (or one resource
 * create). `createFails` makes every create fail (the API refused it); a DAG task with `continueOn` for that phase does
 * not fail its DAG (dag.go:227-235). A Succeeded Workflow becomes Failed / Error when its exit node failed; a Failed
 * or Error one keeps its phase (operator.go:527-547).
 */
export function runExitHandler(workflow: any, result: RunResult, o: { readonly createFails?: boolean } = {}): ExitRun {
  const status = workflowStatusOf(result.phase);
  const vars = { 'workflow.status': status, 'workflow.failures': failuresValue(workflowFailures(workflow, result)), 'workflow.name': workflow.metadata.name };
  const templates = new Map<string, any>(workflow.spec.templates.map((t: any) => [t.name, t]));
  const created: Array<{ template: string; manifest: any }> = [];
  const create = (name: string): Phase => {
    const t = templates.get(name);
    if (t?.resource?.action !== 'create') throw new Error(`exit template the model does not know: ${name}`);
    if (o.createFails) return 'Failed';
    created.push({ template: name, manifest: JSON.parse(substituteExitTags(t.resource.manifest, vars)) });
    return 'Succeeded';
  };
  const handler = templates.get(workflow.spec.onExit);
  let exitPhase: Phase;
  if (handler?.dag) {
    exitPhase = 'Succeeded';
    for (const task of handler.dag.tasks) {
      const p = create(task.template);
      const continues = (p === 'Failed' && task.continueOn?.failed) || (p === 'Error' && task.continueOn?.error);
      if (p !== 'Succeeded' && !continues) exitPhase = p;
    }
  } else exitPhase = create(workflow.spec.onExit);
  const phase = result.phase === 'Succeeded' && (exitPhase === 'Failed' || exitPhase === 'Error') ? exitPhase : result.phase;
  return { created, exitPhase, phase };
}
