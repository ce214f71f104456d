/**
 * A lost host and an application error, over every JobSet the app synthesizes (models: __tests__/models/jobset.ts,
 * Kubernetes Job controller + JobSet v0.12.0 failure policy). The exit codes come from the real container scripts,
 * run in bash with a stand-in `python3` (as conversion-retry.test.ts does): a JAX process that loses a peer exits 1,
 * a process on a preempted host gets SIGTERM (Kubernetes reports 128 + 15) or SIGKILL after the grace period (137),
 * or its pod is deleted with the node (no exit code, DisruptionTarget from the pod GC).
 *
 * What must hold: every training step restarts after a lost host in every order in which the lost pod's failure and
 * its peers' exit 1 reach the Job controller and the JobSet controller; an application error ends the step after
 * maxRestarts + 1 attempts at most, and at once where the pod runs alone.
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_TRAIN_MAX_RESTARTS } from '../../jobs/capacity';
import { MAIN_CONTAINER } from '../../jobs/jobset';
import { HF_TOKEN_FILE } from '../../jobs/secrets';
import { attempt, JobSetEvent, PodEvent } from './jobset';
import { recoveries } from './kueue';
import { allConfigurations, Obj, podSets, synthesize } from './synthesized';

const configs: Array<[string, ReturnType<typeof synthesize>]> = [
  ...allConfigurations(),
  ['flex-start', synthesize({ TPU_CAPACITY: 'flex-start', RESERVATION: '' })],
];
const stepOf = (js: Obj): string => js.metadata.labels['tpu-post-training/step'];
const all = configs.flatMap(([c, s]) => s.jobSets.map((j) => [`${c}: ${j.manifest.metadata.name}`, j.manifest, c] as const));
const training = all.filter(([, js]) => stepOf(js) === 'train');

function mainScript(js: Obj): string {
  const c = podSets(js).flatMap((p) => p.pod.containers).find((x: Obj) => x.name === MAIN_CONTAINER);
  return c.command[2];
}

/** A temp dir with a stand-in python3 (`-c` patches succeed; `-m` plays MODE) and the token file. */
function sandbox(): { dir: string; token: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faults-'));
  fs.writeFileSync(
    path.join(dir, 'python3'),
    [
      '#!/usr/bin/env bash',
      'if [ "$1" = "-c" ]; then exit 0; fi',
      'case "$MODE" in',
      '  peer-lost) echo "jax.errors.JaxRuntimeError: UNAVAILABLE: coordination service: task 3 heartbeat timeout" >&2; exit 1;;',
      `  running) touch "${dir}/started"; sleep 30 & wait;;`,
      'esac',
    ].join('\n'),
    { mode: 0o755 },
  );
  const token = path.join(dir, 'token');
  fs.writeFileSync(token, 'hf_test');
  return { dir, token };
}

const exitCache = new Map<string, Promise<{ peerLost: number; sigterm: number }>>();
/** What the real script exits with: when its JAX program loses a peer, and when the kubelet sends SIGTERM. */
function realExitCodes(script: string): Promise<{ peerLost: number; sigterm: number }> {
  const hit = exitCache.get(script);
  if (hit) return hit;
  const { dir, token } = sandbox();
  const body = script.split(HF_TOKEN_FILE).join(token);
  const env = { ...process.env, PATH: `${dir}:${process.env.PATH}`, JOB_COMPLETION_INDEX: '0' };
  const peer = spawnSync('bash', ['-c', body], { env: { ...env, MODE: 'peer-lost' }, encoding: 'utf8', timeout: 20000 });
  const result = new Promise<{ peerLost: number; sigterm: number }>((resolve, reject) => {
    const child = spawn('bash', ['-c', body], { env: { ...env, MODE: 'running' }, stdio: 'ignore' });
    const poll = setInterval(() => {
      if (fs.existsSync(path.join(dir, 'started'))) {
        clearInterval(poll);
        child.kill('SIGTERM');
      }
    }, 20);
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      // The kubelet reports a container killed by signal n as exit code 128 + n.
      const sigterm = code ?? (signal === 'SIGTERM' ? 143 : signal === 'SIGKILL' ? 137 : -1);
      resolve({ peerLost: peer.status ?? -1, sigterm });
    });
    child.on('error', reject);
  });
  exitCache.set(script, result);
  return result;
}

/** Every pod of the JAX program (Pathways: none; the head's client is one process). */
function programPods(js: Obj): Array<{ replicatedJob: string; jobIndex: number }> {
  const rj = js.spec.replicatedJobs.find((r: Obj) => r.name === 'slice');
  if (!rj) return [];
  return Array.from({ length: rj.replicas }, (_, j) => Array.from({ length: rj.template.spec.parallelism }, () => ({ replicatedJob: rj.name, jobIndex: j }))).flat();
}

/** The lost pod's failure as the Job controller may see it. */
function lostPodEvents(sigterm: number): PodEvent[] {
  return [
    { kind: 'podFailed', exitCode: sigterm, container: MAIN_CONTAINER, disrupted: true },
    { kind: 'podFailed', exitCode: 137, container: MAIN_CONTAINER, disrupted: true },
    { kind: 'podFailed', disrupted: true }, // deleted with its node: the pod GC marks it DisruptionTarget
  ];
}

/** Every position of the lost pod's failure among its peers' exits, for every way the lost pod can be seen. */
function lostHostOrders(js: Obj, codes: { peerLost: number; sigterm: number }): JobSetEvent[][] {
  const pods = programPods(js);
  if (pods.length === 0) {
    // Pathways: a worker host is lost (the worker pod fails with its node), the head's JAX client exits.
    const head: JobSetEvent = { replicatedJob: 'pathways-head', jobIndex: 0, event: { kind: 'podFailed', exitCode: codes.peerLost, container: MAIN_CONTAINER, disrupted: false } };
    return lostPodEvents(codes.sigterm).flatMap((lost) => {
      const worker: JobSetEvent = { replicatedJob: 'worker', jobIndex: 0, event: lost };
      return [[worker, head], [head, worker]];
    });
  }
  const [lostPod, ...peers] = pods;
  const peerEvents: JobSetEvent[] = peers.map((p) => ({ ...p, event: { kind: 'podFailed', exitCode: codes.peerLost, container: MAIN_CONTAINER, disrupted: false } }));
  return lostPodEvents(codes.sigterm).flatMap((lost) =>
    Array.from({ length: peerEvents.length + 1 }, (_, at) => [...peerEvents.slice(0, at), { ...lostPod, event: lost }, ...peerEvents.slice(at)]),
  );
}

/** An application error: every process exits 1 on its own, nothing is disrupted. */
function applicationError(js: Obj, peerLost: number): JobSetEvent[] {
  const pods = programPods(js);
  const event: PodEvent = { kind: 'podFailed', exitCode: peerLost, container: MAIN_CONTAINER, disrupted: false };
  if (pods.length === 0) return [{ replicatedJob: js.spec.replicatedJobs[0].name, jobIndex: 0, event }];
  return pods.map((p) => ({ ...p, event }));
}

/** Attempts until the JobSet ends, with the same failure every time. */
function attemptsUntilFailed(js: Obj, events: JobSetEvent[]): { attempts: number; reason: string } {
  for (let restarts = 0; restarts <= 100; restarts++) {
    const r = attempt(js, events, restarts, 'first')!;
    if (r.action === 'FailJobSet') return { attempts: restarts + 1, reason: r.reason };
  }
  throw new Error('never ends');
}

describe.each(training)('a lost host restarts training, in every observation order (%s)', (_label, js, config) => {
  test('the real script exits 1 when a peer is lost and 143 on SIGTERM', async () => {
    expect(await realExitCodes(mainScript(js))).toEqual({ peerLost: 1, sigterm: 143 });
  });

  test('every order, whether the JobSet sees the first failed Job or all of them -> RestartJobSet; the restart is bounded', async () => {
    const codes = await realExitCodes(mainScript(js));
    const max = js.spec.failurePolicy.maxRestarts;
    expect(max).toBeGreaterThan(0);
    const orders = lostHostOrders(js, codes);
    expect(orders.length).toBeGreaterThanOrEqual(3);
    for (const events of orders) {
      expect(attempt(js, events, 0, 'first')?.action).toBe('RestartJobSet');
      expect(attempt(js, events, 0, 'all')?.action).toBe('RestartJobSet');
      expect(attempt(js, events, max, 'first')).toEqual({ action: 'FailJobSet', reason: 'ReachedMaxRestarts' });
    }
  });

  test('maxRestarts is the capacity type default (spot and flex-start more than reservation)', () => {
    const type = config === 'spot' ? 'spot' : config === 'flex-start' ? 'flex-start' : 'reservation';
    expect(js.spec.failurePolicy.maxRestarts).toBe(DEFAULT_TRAIN_MAX_RESTARTS[type]);
  });

  test('an application error ends the step: at once when one pod runs alone, else after maxRestarts + 1 attempts', async () => {
    const codes = await realExitCodes(mainScript(js));
    const events = applicationError(js, codes.peerLost);
    const alone = programPods(js).length === 1;
    const end = attemptsUntilFailed(js, events);
    if (alone) expect(end).toEqual({ attempts: 1, reason: 'FailJobSetFailurePolicyAction' });
    else expect(end).toEqual({ attempts: js.spec.failurePolicy.maxRestarts + 1, reason: 'ReachedMaxRestarts' });
  });

  test('Kueue keeps the workload through those restarts and through slow recoveries, so the JobSet ends Failed by itself', () => {
    // Kueue model (__tests__/models/kueue.ts `recoveries`): every restart is a recovery of the same Workload.
    const kueue = synthesize({}).kueueManagerConfig;
    const max = js.spec.failurePolicy.maxRestarts;
    expect(recoveries(kueue, Array(max).fill(5 * 60))).toEqual({ evictions: 0, requeueCount: 0 });
    expect(recoveries(kueue, [3 * 3600, ...Array(max).fill(45 * 60)])).toEqual({ evictions: 0, requeueCount: 0 });
  });
});

test("the model tells the orders apart: a FailJob rule on the peers' exit 1 fails a multi-host run when the peers are seen first", async () => {
  const [, js] = training.find(([, j]) => programPods(j).length > 1)!;
  const codes = await realExitCodes(mainScript(js));
  const failFast = {
    rules: [
      { action: 'Count', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { containerName: MAIN_CONTAINER, operator: 'NotIn', values: [42, 137, 143] } },
    ],
  };
  const rj = js.spec.replicatedJobs[0];
  const old = { ...js, spec: { ...js.spec, replicatedJobs: [{ ...rj, template: { ...rj.template, spec: { ...rj.template.spec, podFailurePolicy: failFast } } }] } };
  const orders = lostHostOrders(old, codes);
  expect(attempt(old, orders[0], 0, 'first')?.action).toBe('RestartJobSet'); // lost pod seen first
  expect(attempt(old, orders[orders.length / 3 - 1], 0, 'first')).toEqual({ action: 'FailJobSet', reason: 'FailJobSetFailurePolicyAction' });
});

describe.each(all.filter(([, js]) => stepOf(js) !== 'train'))('a conversion runs alone (%s)', (_label, js) => {
  test('a lost host restarts it; its own error fails it at once', () => {
    const one = (event: PodEvent): JobSetEvent[] => [{ replicatedJob: js.spec.replicatedJobs[0].name, jobIndex: 0, event }];
    for (const lost of lostPodEvents(143)) expect(attempt(js, one(lost), 0, 'first')?.action).toBe('RestartJobSet');
    expect(attempt(js, one({ kind: 'podFailed', exitCode: 1, container: MAIN_CONTAINER, disrupted: false }), 0, 'first')).toEqual({
      action: 'FailJobSet',
      reason: 'FailJobSetFailurePolicyAction',
    });
  });
});

test('numbers (npm run bench -- faults): one preemption costs chips x (at most a quarter of the step + the outage) for 20 min, 90 min and 3 h; never-ready pods hold quota at most 30 min per admission', () => {
  const { faultRows } = require('../../bench/faults');
  const rows: Array<import('../../bench/faults').FaultRow> = faultRows();
  expect(rows).toHaveLength(Object.keys(require('../../jobs/recipes').RECIPES).length * 3);
  for (const r of rows) {
    expect(r.lostWorkHours).toBeGreaterThan(0);
    expect(r.chips * r.lostWorkHours).toBeLessThanOrEqual(r.preemptionToday / 4);
    expect(r.preemption.map((p) => p.outageMinutes)).toEqual([20, 90, 180]);
    for (const p of r.preemption) expect(p.chipHours).toBeCloseTo(r.chips * (r.lostWorkHours + p.outageMinutes / 60), 9);
    expect(r.neverReadyPerAdmissionHours).toBeLessThanOrEqual(0.5);
    expect(r.neverReadyTotalHours).toBeLessThan(r.neverReadyTodayHours);
  }
});
