/**
 * The lost-host watcher's real script (jobs/lost-host.ts LOST_HOST_SCRIPT, with the env of the synthesized watch
 * template of every flex-start pipeline) run by bash against a fake cluster: `kubectl`, `date` and `sleep` on PATH are
 * stand-ins; `sleep` advances a simulated clock and then lets a fake Kueue react, as kubernetes-sigs/kueue v0.19.2 does
 * (cited in jobs/lost-host.ts): `spec.active=false` -> Evicted (reason Deactivated), quota released, requeueState
 * cleared, the ProvisioningRequests deleted (CleanupProvisioningRequestsOnEviction), the pods gone; `spec.active=true`
 * after that -> queued, quota reserved again, a fresh ProvisioningRequest `<workload>-<check>-1`, the new slice's pods
 * placed. No timing: the clock is a file. Needs bash and jq (jq also runs inside the kubectl image).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, chmodSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPipeline, Pipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { pipelineWorkflow, stepTasks } from '../../jobs/argo';
import { LOST_HOST, LOST_HOST_BUDGET_MESSAGE, LOST_HOST_SCRIPT, REQUEST_IN_FLIGHT_ANNOTATION, SLICE_REQUESTS_ANNOTATION } from '../../jobs/lost-host';
import { testPlatform } from '../jobs/fixtures';

const FLEX = testPlatform({ capacity: { type: 'flex-start', maxRunDurationSeconds: 7 * 86400 } });
const PIPELINES: Pipeline[] = Object.values(RECIPES).map((r) => buildPipeline(r, FLEX, { runId: 'r1' }));
const T0 = 1_800_000_000;

const KUBECTL = String.raw`#!/usr/bin/env bash
S="$FAKE_STATE"; echo "kubectl $*" >>"$S/calls"
verb=$1; shift; [ "$verb" = -n ] && { shift; verb=$1; shift; }
case "$verb" in
  get)
    case "$1" in
      jobsets.*) [ -f "$S/jobset.json" ] && cat "$S/jobset.json"; exit 0 ;;
      workloads.*) printf '{"items":[%s]}\n' "$(cat "$S/workload.json")" ;;
      pods) cat "$S/pods.json" ;;
    esac ;;
  patch)
    p=$(for a in "$@"; do :; done; echo "$a")
    jq --argjson p "$p" 'def mp($x): if ($x|type) == "object" then reduce ($x|keys[]) as $k (if type == "object" then . else {} end; if $x[$k] == null then del(.[$k]) else .[$k] = ((.[$k] // null) | mp($x[$k])) end) else $x end; mp($p)' "$S/workload.json" >"$S/w" && mv "$S/w" "$S/workload.json"
    echo "patched $p" >>"$S/events" ;;
  delete) rm -f "$S/jobset.json"; echo "jobset deleted" >>"$S/events" ;;
esac
`;

const DATE = String.raw`#!/usr/bin/env bash
now=$(cat "$FAKE_STATE/now")
case "$*" in *+%s*) echo "$now" ;; *) /bin/date -u -d "@$now" +%Y-%m-%dT%H:%M:%SZ ;; esac
`;

/** The fake Kueue and JobSet controllers, one reconcile per simulated sleep (one jq read per poll: jq 1.6 starts in ~20 ms). */
const SLEEP = String.raw`#!/usr/bin/env bash
S="$FAKE_STATE"; now=$(( $(cat "$S/now") + $1 )); echo "$now" >"$S/now"
[ "$now" -gt "$(cat "$S/horizon")" ] && { echo "horizon" >>"$S/events"; kill -TERM "$PPID"; exit 1; }
iso=$(/bin/date -u -d "@$now" +%Y-%m-%dT%H:%M:%SZ)
cond() { jq -c --arg t "$1" --arg s "$2" --arg r "$3" --arg at "$iso" '.status.conditions = ([.status.conditions[]? | select(.type != $t)] + [{type: $t, status: $s, reason: $r, lastTransitionTime: $at}])' "$S/workload.json" >"$S/w" && mv "$S/w" "$S/workload.json"; }
read -r active evicted < <(jq -r '"\(.spec.active) \([.status.conditions[] | select(.type == "Evicted" and .status == "True")] | length)"' "$S/workload.json")
if [ "$active" = false ] && [ "$evicted" = 0 ]; then
  cond Evicted True Deactivated; cond QuotaReserved False Pending; cond Admitted False NoReservation; cond PodsReady False WaitForStart
  jq -c 'del(.status.requeueState)' "$S/workload.json" >"$S/w" && mv "$S/w" "$S/workload.json"
  for pr in $(cat "$S/prs"); do echo "provisioningrequest deleted $pr" >>"$S/events"; done; : >"$S/prs"
  echo '{"items":[]}' >"$S/pods.json"
elif [ "$active" = true ] && [ "$evicted" = 1 ]; then
  cond Evicted False QuotaReserved; cond QuotaReserved True QuotaReserved; cond Admitted True Admitted; cond PodsReady True Started
  pr="$(jq -r .metadata.name "$S/workload.json")-tpu-v6e-32-provisioning-1"; echo "$pr" >>"$S/prs"; echo "provisioningrequest created $pr" >>"$S/events"
  echo '{"items":[{"metadata":{"name":"p-0"},"spec":{"nodeName":"new-node"}}]}' >"$S/pods.json"
  [ -f "$S/completes-after-readmission" ] && echo $(( now + $(cat "$S/completes-after-readmission") )) >"$S/complete-at"
fi
if [ -f "$S/complete-at" ] && [ "$now" -ge "$(cat "$S/complete-at")" ] && [ -f "$S/jobset.json" ]; then
  jq -c '.status.terminalState = "Completed"' "$S/jobset.json" >"$S/j" && mv "$S/j" "$S/jobset.json"
fi
exit 0
`;

interface Scenario {
  readonly restarts: number;
  readonly annotations?: Record<string, string>;
  readonly active?: boolean;
  /** The Workload's conditions at T0 (lastTransitionTime as seconds before T0). */
  readonly conditions: ReadonlyArray<readonly [type: string, status: string, reason: string, secondsAgo: number]>;
  readonly podsPlaced: boolean;
  readonly prs?: readonly string[];
  readonly completesAfterReadmission?: number;
  /** Seconds from T0 the JobSet completes by itself. @default - never */
  readonly completesAt?: number;
  readonly horizon: number;
}

function runScript(env: Record<string, string>, s: Scenario) {
  const dir = mkdtempSync(join(tmpdir(), 'lost-host-'));
  try {
    const bin = join(dir, 'bin');
    execFileSync('mkdir', ['-p', bin]);
    for (const [name, text] of [['kubectl', KUBECTL], ['date', DATE], ['sleep', SLEEP]]) {
      writeFileSync(join(bin, name), text);
      chmodSync(join(bin, name), 0o755);
    }
    const iso = (t: number) => new Date(t * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    writeFileSync(join(dir, 'now'), String(T0));
    writeFileSync(join(dir, 'horizon'), String(T0 + s.horizon));
    writeFileSync(join(dir, 'prs'), (s.prs ?? []).join('\n'));
    writeFileSync(join(dir, 'calls'), '');
    writeFileSync(join(dir, 'events'), '');
    if (s.completesAt !== undefined) writeFileSync(join(dir, 'complete-at'), String(T0 + s.completesAt));
    if (s.completesAfterReadmission !== undefined) writeFileSync(join(dir, 'completes-after-readmission'), String(s.completesAfterReadmission));
    writeFileSync(join(dir, 'jobset.json'), JSON.stringify({ metadata: { name: env.JOBSET, uid: 'js-uid' }, status: { restarts: s.restarts } }));
    const workload = {
      metadata: { name: `jobset-${env.JOBSET}-abcde`, labels: { 'kueue.x-k8s.io/job-uid': 'js-uid' }, annotations: s.annotations ?? {} },
      spec: { active: s.active ?? true },
      status: { requeueState: { count: 2 }, conditions: s.conditions.map(([type, status, reason, ago]) => ({ type, status, reason, lastTransitionTime: iso(T0 - ago) })) },
    };
    writeFileSync(join(dir, 'workload.json'), JSON.stringify(workload));
    const pod = s.podsPlaced ? { metadata: { name: 'p-0' }, spec: { nodeName: 'old-node' } } : { metadata: { name: 'p-0' }, spec: {} };
    writeFileSync(join(dir, 'pods.json'), JSON.stringify({ items: [pod] }));
    const r = spawnSync('bash', ['-c', LOST_HOST_SCRIPT], {
      env: { ...env, PATH: `${bin}:${process.env.PATH}`, FAKE_STATE: dir, TERMINATION_LOG: join(dir, 'termination-log') },
      encoding: 'utf8',
      timeout: 300_000,
    });
    const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : '');
    return {
      status: r.status,
      stdout: r.stdout,
      events: read('events').split('\n').filter(Boolean),
      termination: read('termination-log').trim(),
      workload: JSON.parse(read('workload.json')),
      jobSetLeft: existsSync(join(dir, 'jobset.json')),
      elapsed: Number(read('now')) - T0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The env of a step's synthesized watch template, with the poll stretched to 5 minutes (each simulated poll forks
 * kubectl and jq a dozen times; the decisions do not depend on the poll, only when they are seen does).
 */
const envOf = (p: Pipeline, step: string): Record<string, string> => {
  const t = (pipelineWorkflow(p, { systemPool: 'system' }) as any).spec.templates.find((x: any) => x.name === stepTasks(step).watch);
  const env = Object.fromEntries(t.script.env.map((e: any) => [e.name, e.value]));
  expect(env).toMatchObject({ LOST_SECONDS: String(LOST_HOST.minutes * 60), POLL_SECONDS: String(LOST_HOST.pollSeconds), STEP: step, JOBSET: p.steps.find((s) => s.name === step)!.jobSetName });
  return { ...env, POLL_SECONDS: '300' };
};

const recovering = (ago: number) => [['QuotaReserved', 'True', 'QuotaReserved', 9000], ['Admitted', 'True', 'Admitted', 9000], ['PodsReady', 'False', 'WaitForRecovery', ago]] as const;

test('the script carries no {{ (Argo would substitute it) and every pipeline on flex-start has a watcher on its TPU steps only', () => {
  expect(LOST_HOST_SCRIPT).not.toContain('{{');
  for (const p of PIPELINES) {
    const templates = (pipelineWorkflow(p, { systemPool: 'system' }) as any).spec.templates.map((t: any) => t.name);
    for (const s of p.steps) expect(templates.includes(stepTasks(s.name).watch)).toBe(s.runsOn === 'tpu');
  }
});

test.each(PIPELINES.map((p) => [p.name, p] as const))('%s: the watch templates carry the step\'s JobSet, name and restart budget', (_n, p) => {
  for (const s of p.steps.filter((x) => x.runsOn === 'tpu')) expect(envOf(p, s.name)).toMatchObject({ JOBSET: s.jobSetName, NAMESPACE: s.namespace, MAX_RESTARTS: String(s.maxRestarts) });
});

/**
 * The script's scenarios run once (rl-qwen3's training step): the watch templates of the other pipelines differ only
 * in the env checked above, and __tests__/models/argo.test.ts runs the watcher in every flex-start pipeline's Workflow.
 */
describe('rl-qwen3 train on flex-start, the real watcher script', () => {
  const p = PIPELINES[0];
  const env = envOf(p, 'train');
  const maxRestarts = Number(env.MAX_RESTARTS);

  test('node loss: after LOST_HOST.minutes without a node the Workload is deactivated, evicted, reactivated, and a fresh ProvisioningRequest is made; the JobSet completes, the watcher ends 0', () => {
    const r = runScript(env, { restarts: 1, conditions: recovering(60), podsPlaced: false, prs: ['old-pr-1'], completesAfterReadmission: 600, horizon: 2 * 3600 });
    expect(r.status).toBe(0);
    expect(r.events).toEqual([
      expect.stringMatching(new RegExp(`^patched \\{"metadata":\\{"annotations":\\{"${SLICE_REQUESTS_ANNOTATION}":"1","${REQUEST_IN_FLIGHT_ANNOTATION}":"[0-9T:-]+Z"\\}\\},"spec":\\{"active":false\\}\\}$`)),
      'provisioningrequest deleted old-pr-1',
      `patched {"metadata":{"annotations":{"${REQUEST_IN_FLIGHT_ANNOTATION}":null}},"spec":{"active":true}}`,
      `provisioningrequest created jobset-${env.JOBSET}-abcde-tpu-v6e-32-provisioning-1`,
    ]);
    expect(r.workload.metadata.annotations).toEqual({ [SLICE_REQUESTS_ANNOTATION]: '1' });
    // The deactivation cleared waitForPodsReady's requeue count (workload_controller.go:685-697): it spent none.
    expect(r.workload.status.requeueState).toBeUndefined();
    expect(r.stdout).toContain('re-requested (1 of at most');
    expect(r.jobSetLeft).toBe(true);
  });

  test('the budget spent (JobSet restarts + re-requests = maxRestarts): the JobSet is deleted and the watcher ends 1 with its message', () => {
    const r = runScript(env, { restarts: maxRestarts - 1, annotations: { [SLICE_REQUESTS_ANNOTATION]: '1' }, conditions: recovering(60), podsPlaced: false, horizon: 3 * 3600 });
    expect(r.status).toBe(1);
    expect(r.events).toEqual(['jobset deleted']);
    expect(r.termination).toContain(LOST_HOST_BUDGET_MESSAGE);
    const minutes = Number(/have had no node for (\d+) minutes/.exec(r.termination)?.[1]);
    expect(minutes).toBeGreaterThanOrEqual(LOST_HOST.minutes);
    expect(minutes).toBeLessThan(LOST_HOST.minutes + 5);
    expect(r.termination).toContain(`step train: 1 pod(s) of JobSet ${env.JOBSET} have had no node for`);
    expect(r.termination).toContain(`(${maxRestarts - 1} JobSet restarts + 1 re-requested slices of maxRestarts ${maxRestarts})`);
  });
});

describe('what the watcher leaves alone (rl-qwen3 train)', () => {
  const env = envOf(PIPELINES[0], 'train');

  test('a 3-hour recovery whose pods all have nodes (a slow restart, an outage of the pods, not of the nodes): nothing is patched', () => {
    const r = runScript(env, { restarts: 1, conditions: recovering(60), podsPlaced: true, completesAt: 3 * 3600, horizon: 4 * 3600 });
    expect(r.status).toBe(0);
    expect(r.events).toEqual([]);
  });

  test('a workload Kueue deactivated itself (RequeuingLimitExceeded): not reactivated', () => {
    const r = runScript(env, {
      restarts: 0,
      active: false,
      conditions: [['Evicted', 'True', 'DeactivatedDueToRequeuingLimitExceeded', 600], ['QuotaReserved', 'False', 'Pending', 600]],
      podsPlaced: false,
      horizon: 2 * 3600,
    });
    expect(r.events.filter((e) => e.startsWith('patched'))).toEqual([]);
  });

  test('a never-started workload (PodsReady WaitForStart) is Kueue\'s (waitForPodsReady), not the watcher\'s', () => {
    const r = runScript(env, { restarts: 0, conditions: [['Admitted', 'True', 'Admitted', 7200], ['PodsReady', 'False', 'WaitForStart', 7200]], podsPlaced: false, horizon: 2 * 3600 });
    expect(r.events).toEqual(['horizon']);
  });

  test('the watcher pod lost between deactivation and reactivation: its retry finishes the re-request (state is on the Workload)', () => {
    const r = runScript(env, {
      restarts: 1,
      active: false,
      annotations: { [SLICE_REQUESTS_ANNOTATION]: '1', [REQUEST_IN_FLIGHT_ANNOTATION]: '2027-01-15T08:00:00Z' },
      conditions: [['Evicted', 'True', 'Deactivated', 60], ['QuotaReserved', 'False', 'Pending', 60]],
      podsPlaced: false,
      completesAfterReadmission: 600,
      horizon: 3600,
    });
    expect(r.status).toBe(0);
    expect(r.events[0]).toBe(`patched {"metadata":{"annotations":{"${REQUEST_IN_FLIGHT_ANNOTATION}":null}},"spec":{"active":true}}`);
    expect(r.events[1]).toMatch(/^provisioningrequest created /);
  });
});
