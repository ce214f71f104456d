/** The pure status model: progress lines, ETA, workload ownership, exit codes (in-process, no cluster). */
import { lastCheckpointStep } from '../../jobs/maxtext';
import { allPipelinesWorld, deactivatedWorkload, emptyWorld, evalLine, event, iso, jobSet, pipeline, platform, pod, record, rlLine, running, sftLine, step, workload, workloadName } from '../../bench/fake-kube-api';
import {
  admissionCheckRule,
  admittedAt,
  chipsHeld,
  completedRule,
  deactivatedRule,
  deactivationOf,
  defaultLogStep,
  failedRule,
  notCreatedRule,
  notRunningRule,
  podsReadyTimeoutRule,
  queuedRule,
  runSummary,
  stepFacts,
  suspendedRule,
  waitLines,
  eta,
  exitCode,
  imageAdvice,
  isDone,
  lastLines,
  logRequests,
  mainPodOf,
  parseProgress,
  pipelineStatus,
  podProblem,
  quotaHolders,
  stallText,
  stepSpans,
  stepStatus,
  workloadOf,
} from '../../status/model';
import { duration, progressBar } from '../../status/render';
import { runCostLine } from '../../status/run-cost';

const ctx = { clusterQueue: platform.clusterQueue, now: Date.parse('2026-12-01T08:00:00Z') };

test('Tunix RL progress: the last "Train step N training loss" line, with the first one in the window for the rate', () => {
  const log = ['noise', rlLine(10, 3), 'Train step x', rlLine(14, 5)].join('\n');
  expect(parseProgress('rl', log)).toEqual({ step: 5, at: Date.parse('2026-12-01T06:14:00Z'), first: { step: 3, at: Date.parse('2026-12-01T06:10:00Z') } });
  // An SFT log's MaxText line is not an RL progress line and vice versa.
  expect(parseProgress('rl', sftLine(1, 7))).toBeUndefined();
  expect(parseProgress('sft', sftLine(1, 7))).toEqual({ step: 7, at: Date.parse('2026-12-01T06:01:00Z') });
  expect(parseProgress('sft', 'I1201 metric_logger.py:230] completed step: 12, seconds: 1.0')).toEqual({ step: 12, at: undefined });
});

test('ETA: the rate between the first and last progress lines, else since the container started', () => {
  expect(eta({ step: 5, at: 14 * 60_000, first: { step: 3, at: 10 * 60_000 } }, 10, undefined, 0)).toBe(5 * 120);
  // Started at 100 s, now 700 s: 600 s for 10 steps, 30 steps left. A non-zero start tells now - startedAt (600 s) from
  // now + startedAt (800 s) and from now alone (700 s).
  expect(eta({ step: 10 }, 40, 100_000, 700_000)).toBe(30 * 60);
  expect(eta({ step: 40 }, 40, 0, 1)).toBe(0);
  expect(eta({ step: 0 }, 40, undefined, 1)).toBeUndefined();
});

test('a workload is matched to its JobSet by the job-uid label or the owner reference, never by name', () => {
  const js = jobSet(step(pipeline('rl-qwen3'), 'train'));
  const wl = workload(js, true);
  expect(wl.metadata.name).toMatch(new RegExp(`^jobset-${js.metadata.name}-[0-9a-f]{5}$`));
  expect(workloadName(js)).toBe(wl.metadata.name);
  expect(workloadOf(js, [wl])).toBe(wl);
  const byOwnerOnly = { ...wl, metadata: { ...wl.metadata, labels: {} } };
  expect(workloadOf(js, [byOwnerOnly])).toBe(byOwnerOnly);
  const other = jobSet(step(pipeline('rl-qwen3'), 'train')); // same name, a new uid: a re-created JobSet
  expect(workloadOf(other, [wl])).toBeUndefined();
});

test('exit codes: 1 when any step failed, 0 when all completed, else 3', () => {
  const s = (state: any) => ({ name: 'x', steps: [{ name: 'a', jobset: 'j', state, details: [] }] });
  expect(exitCode([s('completed')])).toBe(0);
  expect(exitCode([s('completed'), s('failed'), s('running')])).toBe(1);
  for (const state of ['running', 'queued', 'pending', 'not-created']) expect(exitCode([s('completed'), s(state)])).toBe(3);
});

test('a completed training step reports its full total; the total is lastCheckpointStep of the recipe', () => {
  const p = pipeline('sft-gemma4');
  const w = emptyWorld();
  w.jobSets.push(jobSet(step(p, 'train'), { terminalState: 'Completed' }));
  const st = pipelineStatus(record(p.name), w, new Map(), ctx).steps[1];
  expect(st).toMatchObject({ state: 'completed', progress: { step: lastCheckpointStep(p.recipe.train), total: lastCheckpointStep(p.recipe.train) } });
});

test('render helpers', () => {
  expect(duration(42)).toBe('42s');
  expect(duration(245)).toBe('4m05s');
  expect(duration(3720)).toBe('1h02m');
  expect(progressBar(1, 4, 8)).toBe('[##......]');
  expect(lastLines('2026-12-01T06:00:00.1Z a\n\nb\n', 5)).toEqual(['a', 'b']);
});

describe('Kueue workload conditions (kueue v0.19.2 apis/kueue/v1beta2/workload_types.go)', () => {
  const p = pipeline('rl-qwen3');
  const queuedWith = (conditions: any[]) => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'train'));
    const wl = workload(js, false);
    wl.status = { conditions };
    w.jobSets.push(js);
    w.workloads.push(wl);
    return pipelineStatus(record(p.name), w, new Map(), ctx).steps[1];
  };

  test('evicted (preempted): queued with the eviction message', () => {
    const st = queuedWith([
      { type: 'QuotaReserved', status: 'False', reason: 'Pending', message: 'waiting' },
      { type: 'Evicted', status: 'True', reason: 'Preempted', message: 'Preempted to accommodate a workload (UID: x) due to prioritization in the ClusterQueue' },
    ]);
    expect(st).toMatchObject({ state: 'queued', reason: 'Preempted' });
    expect(st.message).toContain('Preempted to accommodate a workload');
  });

  test('evicted because its pods were not ready in time: "evicted: pods not ready, requeued k of n"', () => {
    const st = queuedWith([
      { type: 'QuotaReserved', status: 'False', reason: 'Pending', message: 'waiting' },
      { type: 'Evicted', status: 'True', reason: 'PodsReadyTimeout', message: 'Exceeded the PodsReady timeout default/x' },
    ]);
    expect(st).toMatchObject({ state: 'queued', reason: 'PodsReadyTimeout' });
    expect(st.message).toMatch(/^evicted: pods not ready within 20m, requeued 1 of 3 \(workload jobset-.*; the quota went back\)$/);
  });

  test('deactivated after the last requeue: failed, with the command that retries it', () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'train'));
    // What Kueue v0.19.2 leaves: Evicted DeactivatedDueToRequeuingLimitExceeded, requeueState cleared.
    const wl = deactivatedWorkload(js, 'RequeuingLimitExceeded');
    w.jobSets.push(js);
    w.workloads.push(wl);
    const st = pipelineStatus(record(p.name), w, new Map(), ctx).steps[1];
    expect(st).toMatchObject({ state: 'failed', reason: 'RequeuingLimitExceeded' });
    expect(st.message).toContain(`deactivated: its pods never became ready within 20m, 4 times (Kueue's requeuing limit, 3 requeues)`);
    expect(st.message).toContain(`kubectl patch workload -n ${p.namespace} ${wl.metadata.name} --type=merge -p '{"spec":{"active":true}}'`);
  });

  test('quota reserved but admission checks pending: queued with the Admitted condition', () => {
    const st = queuedWith([
      { type: 'QuotaReserved', status: 'True', reason: 'QuotaReserved', message: 'Quota reserved in ClusterQueue cluster-queue' },
      { type: 'Admitted', status: 'False', reason: 'UnsatisfiedAdmissionChecks', message: 'The workload has not all checks ready' },
    ]);
    expect(st).toMatchObject({ state: 'queued', reason: 'UnsatisfiedAdmissionChecks' });
  });

  test('a JobSet Kueue has not made a workload for yet: queued (Suspended)', () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(p, 'train'), { conditions: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended' }] }));
    expect(pipelineStatus(record(p.name), w, new Map(), ctx).steps[1]).toMatchObject({ state: 'queued', reason: 'Suspended' });
  });

  test('finished or other-queue workloads do not count as holding the quota', () => {
    const w = emptyWorld();
    const mine = jobSet(step(p, 'train'));
    const other = jobSet(step(pipeline('sft-gemma4'), 'train'));
    const done = workload(other, true, { chips: 32 });
    done.status.conditions.push({ type: 'Finished', status: 'True', reason: 'Succeeded', message: 'done' });
    const elsewhere = workload(jobSet(step(pipeline('rl-gemma4'), 'train')), true, { chips: 32 });
    elsewhere.status.admission.clusterQueue = 'another-queue';
    w.jobSets.push(mine);
    w.workloads.push(workload(mine, false, { message: 'insufficient quota' }), done, elsewhere);
    expect(pipelineStatus(record(p.name), w, new Map(), ctx).steps[1].message).toBe(`workload ${workloadName(mine)}: insufficient quota`);
  });
});

test('a restarted training step says what the resume repeated: SFT its data from the first example, RL its first step on the base weights', () => {
  const w = allPipelinesWorld();
  for (const js of w.jobSets) if (js.metadata.name.endsWith('-train')) js.status = { ...js.status, restarts: 2 };
  const snapshot = { jobSets: w.jobSets, workloads: w.workloads, pods: w.pods, events: w.events } as any;
  const logs = new Map(Object.entries(w.logs).map(([k, v]) => [k, v.join('\n')]));
  const train = (name: string) => pipelineStatus(record(name), snapshot, logs, ctx).steps.find((s) => s.name === 'train')!;
  expect(train('sft-gemma4').message).toContain('2 JobSet restart(s), each resumed from the newest checkpoint (SFT reads its data again from the first example)');
  expect(train('rl-qwen3').message).toContain("(RL's first step samples with the base weights until the next weight sync)");
});

// ---- what the mutation run (npm run mutate, status/model.ts) found unasserted -----------------------------------------

describe('logRequests: the logs a poll reads', () => {
  const q = record('rl-qwen3');
  const p = pipeline('rl-qwen3');
  const world = () => emptyWorld();
  const at = (w: ReturnType<typeof emptyWorld>, name: 'to-maxtext' | 'train' | 'eval', rjob: string, status: object, podStatus: object) => {
    const js = jobSet(step(p, name), status);
    w.jobSets.push(js);
    const pd = pod(js, rjob, podStatus);
    w.pods.push(pd);
    return pd.metadata.name as string;
  };
  const done = { terminalState: 'Completed' };
  const failed = { terminalState: 'Failed' };

  test('a running training step: the progress window and the head of the log; `full` reads it whole', () => {
    const w = world();
    const head = at(w, 'train', 'pathways-head', {}, running(10));
    expect(logRequests([q], w)).toEqual([{ pod: head, container: 'workload-container', tailLines: 400, purpose: 'progress', headBytes: 1048576 }]);
    expect(logRequests([q], w, { full: true })).toEqual([{ pod: head, container: 'workload-container', tailLines: 400, purpose: 'progress', headBytes: 1048576, full: true }]);
    expect(logRequests([q], w, { full: false })[0]).not.toHaveProperty('full');
  });
  test('a completed training step is read for its curve; a pending one is not read', () => {
    const w = world();
    const head = at(w, 'train', 'pathways-head', done, { phase: 'Succeeded' });
    expect(logRequests([q], w)).toEqual([{ pod: head, container: 'workload-container', tailLines: 400, purpose: 'progress', headBytes: 1048576 }]);
    const pending = world();
    at(pending, 'train', 'pathways-head', {}, { phase: 'Pending' });
    expect(logRequests([q], pending)).toEqual([]);
  });
  test('a failed step: its last 20 lines (a training step also the head); a conversion step has no head', () => {
    const w = world();
    const convert = at(w, 'to-maxtext', 'convert', failed, { phase: 'Failed' });
    const head = at(w, 'train', 'pathways-head', failed, { phase: 'Failed' });
    expect(logRequests([q], w)).toEqual([
      { pod: convert, container: 'workload-container', tailLines: 20, purpose: 'failure' },
      { pod: head, container: 'workload-container', tailLines: 20, purpose: 'failure', headBytes: 1048576 },
    ]);
  });
  test('a completed eval step: its last 20 lines for the EVAL_RESULT line; a running eval or a completed conversion: nothing', () => {
    const w = world();
    const ev = at(w, 'eval', 'slice', done, { phase: 'Succeeded' });
    at(w, 'to-maxtext', 'convert', done, { phase: 'Succeeded' });
    expect(logRequests([q], w)).toEqual([{ pod: ev, container: 'workload-container', tailLines: 20, purpose: 'progress' }]);
    const runningEval = world();
    at(runningEval, 'eval', 'slice', {}, running(5));
    expect(logRequests([q], runningEval)).toEqual([]);
  });
  test('no JobSet, or a JobSet without its main pod: nothing to read', () => {
    const w = world();
    w.jobSets.push(jobSet(step(p, 'train'), failed));
    expect(logRequests([q], w)).toEqual([]);
    expect(logRequests([q], world())).toEqual([]);
  });
});

describe('podProblem: why a pod of an admitted step does not run', () => {
  const q = record('rl-qwen3');
  const p = pipeline('rl-qwen3');
  const train = q.steps[1]!;
  const js = () => jobSet(step(p, 'train'));
  test('a crash loop: restarts and the last exit, and the logs command', () => {
    const pd = pod(js(), 'pathways-head', {
      phase: 'Running',
      containerStatuses: [{ name: 'workload-container', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }],
    });
    expect(podProblem(pd, [], q, train)).toEqual({
      reason: 'CrashLoopBackOff',
      message: `pod ${pd.metadata.name} container workload-container keeps crashing (4 restarts, last exit 137 OOMKilled); its log: npm run logs -- rl-qwen3 train`,
    });
    const bare = pod(js(), 'pathways-head', { phase: 'Running', containerStatuses: [{ name: 'workload-container', state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1 } } }] });
    expect(podProblem(bare, [], q, train)!.message).toContain('keeps crashing (0 restarts, last exit 1); its log');
    const noLast = pod(js(), 'pathways-head', { phase: 'Running', containerStatuses: [{ name: 'workload-container', restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } }] });
    expect(podProblem(noLast, [], q, train)!.message).toContain('keeps crashing (2 restarts); its log');
  });
  test("an image pull: the image from the pod's spec when the status has none, no message when the kubelet gave none", () => {
    const pd = pod(js(), 'pathways-head', { phase: 'Pending', containerStatuses: [{ name: 'workload-container', state: { waiting: { reason: 'ErrImagePull' } } }] });
    const image = pd.spec.containers.find((c: { name: string }) => c.name === 'workload-container').image;
    expect(podProblem(pd, [], q, train)).toEqual({
      reason: 'ErrImagePull',
      message: `pod ${pd.metadata.name} container workload-container cannot pull image ${image}; ${imageAdvice(train, 'workload-container')}`,
    });
    const other = pod(js(), 'pathways-head', { phase: 'Pending', containerStatuses: [{ name: 'workload-container', state: { waiting: { reason: 'ContainerCreating' } } }] });
    expect(podProblem(other, [], q, train)).toBeUndefined();
  });
  test('a running or succeeded pod has no problem, whatever its events say', () => {
    for (const phase of ['Running', 'Succeeded']) {
      const pd = pod(js(), 'pathways-head', { phase });
      expect(podProblem(pd, [event(pd, 'FailedMount', 'MountVolume.SetUp failed for volume "hf-token"')], q, train)).toBeUndefined();
    }
  });
  test("a mount of another volume: the kubelet's message as it is", () => {
    const pd = pod(js(), 'pathways-head', { phase: 'Pending' });
    expect(podProblem(pd, [event(pd, 'FailedMount', 'MountVolume.SetUp failed for volume "gcs" : denied')], q, train)).toEqual({
      reason: 'FailedMount',
      message: `pod ${pd.metadata.name}: MountVolume.SetUp failed for volume "gcs" : denied`,
    });
  });
  test("unschedulable: the newest FailedScheduling event of this pod, else the condition's message, and the node selector", () => {
    const unschedulable = (message?: string) => ({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', ...(message ? { message } : {}) }] });
    const pd = pod(js(), 'pathways-head', unschedulable('0/3 nodes are available'));
    const selector = Object.entries(pd.spec.nodeSelector as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',');
    expect(selector).not.toBe('');
    const older = { ...event(pd, 'FailedScheduling', 'old news'), lastTimestamp: iso(1) };
    const newer = { ...event(pd, 'FailedScheduling', '0/4 nodes: insufficient google.com/tpu'), lastTimestamp: iso(5) };
    const elsewhere = { ...event(pd, 'FailedScheduling', 'a Job of that name'), lastTimestamp: iso(9), involvedObject: { kind: 'Job', name: pd.metadata.name } };
    expect(podProblem(pd, [older, newer, elsewhere], q, train)).toEqual({
      reason: 'Unschedulable',
      message: `pod ${pd.metadata.name}: 0/4 nodes: insufficient google.com/tpu (node selector ${selector})`,
    });
    expect(podProblem(pd, [newer, older], q, train)!.message).toContain('insufficient google.com/tpu');
    expect(podProblem(pd, [], q, train)!.message).toBe(`pod ${pd.metadata.name}: 0/3 nodes are available (node selector ${selector})`);
    const bare = { ...pod(js(), 'pathways-head', unschedulable()), spec: {} };
    expect(podProblem(bare, [], q, train)!.message).toBe(`pod ${bare.metadata.name}: no node fits`);
    const notYet = pod(js(), 'pathways-head', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] });
    expect(podProblem(notYet, [], q, train)).toBeUndefined();
  });
});

describe('what a pipeline or a step has done', () => {
  const q = record('rl-qwen3');
  const p = pipeline('rl-qwen3');
  const s = (...states: string[]) => ({ name: 'x', steps: states.map((state) => ({ name: state, jobset: 'j', state, details: [] })) }) as any;
  test('isDone: every step completed, or one failed', () => {
    expect(isDone(s('completed', 'completed'))).toBe(true);
    expect(isDone(s('completed', 'failed', 'not-created'))).toBe(true);
    expect(isDone(s('completed', 'running'))).toBe(false);
    expect(isDone(s('queued'))).toBe(false);
  });
  test('defaultLogStep: the running step, else the last one created', () => {
    const w = emptyWorld();
    expect(defaultLogStep(q, w)).toBeUndefined();
    w.jobSets.push(jobSet(step(p, 'to-maxtext'), { terminalState: 'Completed' }));
    expect(defaultLogStep(q, w)!.name).toBe('to-maxtext');
    w.jobSets.push(jobSet(step(p, 'train')));
    w.jobSets.push(jobSet(step(p, 'to-hf'), { terminalState: 'Failed' }));
    expect(defaultLogStep(q, w)!.name).toBe('train');
  });
  test('stallText: the silence, the last step and the threshold, with the per-step rate when known', () => {
    const lastAt = Date.parse('2026-12-01T06:40:00Z');
    expect(stallText({ lastStep: 300, lastAt, silentSeconds: 2520, thresholdSeconds: 600, medianSeconds: 65 })).toBe(
      'no new step for 42m00s (last step 300 at 2026-12-01T06:40:00.000Z; stalled after 10m00s = max(10m00s, 5 x 1m05s per step))',
    );
    expect(stallText({ lastStep: 3, lastAt, silentSeconds: 700, thresholdSeconds: 600 })).toBe(
      'no new step for 11m40s (last step 3 at 2026-12-01T06:40:00.000Z; stalled after 10m00s = max(10m00s))',
    );
  });
  test('admittedAt: the Admitted condition while True, else QuotaReserved; not True: undefined', () => {
    const t = (type: string, status: string, minute: number) => ({ type, status, lastTransitionTime: iso(minute) });
    expect(admittedAt({ metadata: {}, status: { conditions: [t('QuotaReserved', 'True', 1), t('Admitted', 'True', 3)] } })).toBe(Date.parse(iso(3)));
    expect(admittedAt({ metadata: {}, status: { conditions: [t('QuotaReserved', 'True', 1)] } })).toBe(Date.parse(iso(1)));
    expect(admittedAt({ metadata: {}, status: { conditions: [t('QuotaReserved', 'True', 1), t('Admitted', 'False', 3)] } })).toBeUndefined();
    expect(admittedAt({ metadata: {} })).toBeUndefined();
  });
  test("chipsHeld: the TPU chips of every pod set of the admission; quotaHolders: each other holder's JobSet, namespace and chips, sorted", () => {
    const train = jobSet(step(p, 'train'));
    const wl = workload(train, true, { chips: 32 });
    expect(chipsHeld(wl)).toBe(32);
    expect(chipsHeld({ metadata: {}, status: { admission: { podSetAssignments: [{ resourceUsage: { 'google.com/tpu': '4' } }, { resourceUsage: { 'google.com/tpu': '8' } }, {}] } } })).toBe(12);
    expect(chipsHeld({ metadata: {} })).toBe(0);
    const other = workload(jobSet(step(pipeline('sft-gemma4'), 'train')), true, { chips: 16 });
    const anonymous = { metadata: { name: 'wl-by-hand' }, status: { conditions: [{ type: 'Admitted', status: 'True' }], admission: { clusterQueue: platform.clusterQueue } } };
    const me = workload(jobSet(step(p, 'eval')), false);
    expect(quotaHolders(me, [me, wl, other, anonymous], platform.clusterQueue)).toEqual([
      `JobSet ${step(p, 'train').jobSetName} in ${p.namespace} (ClusterQueue ${platform.clusterQueue}, 32 google.com/tpu)`,
      `JobSet ${step(pipeline('sft-gemma4'), 'train').jobSetName} in ${p.namespace} (ClusterQueue ${platform.clusterQueue}, 16 google.com/tpu)`,
      `workload wl-by-hand in ? (ClusterQueue ${platform.clusterQueue})`,
    ]);
    // The same name in another namespace is another workload.
    const twin = { ...wl, metadata: { ...wl.metadata, namespace: 'elsewhere' } };
    expect(quotaHolders(twin, [wl], platform.clusterQueue)).toHaveLength(1);
    expect(quotaHolders(wl, [wl], platform.clusterQueue)).toEqual([]);
  });
  test('workloadOf: the newest of the JobSet’s workloads; without a uid, the owner by name', () => {
    const js = jobSet(step(p, 'train'));
    const old = workload(js, false);
    const young = { ...workload(js, true), metadata: { ...workload(js, true).metadata, name: 'young', creationTimestamp: iso(30) } };
    expect(workloadOf(js, [old, young])!.metadata.name).toBe('young');
    expect(workloadOf(js, [young, old])!.metadata.name).toBe('young');
    const noUid = { ...js, metadata: { ...js.metadata, uid: undefined } };
    expect(workloadOf(noUid, [old])).toBe(old);
    const otherName = { ...old, metadata: { ...old.metadata, ownerReferences: [{ kind: 'JobSet', name: 'another' }] } };
    expect(workloadOf(noUid, [otherName])).toBeUndefined();
    const notJobSet = { ...old, metadata: { ...old.metadata, labels: {}, ownerReferences: [{ kind: 'Job', name: js.metadata.name, uid: js.metadata.uid }] } };
    expect(workloadOf(js, [notJobSet])).toBeUndefined();
  });
  test('stepSpans: from the JobSet’s creation to its end, or to now while it runs; never before its start', () => {
    const w = emptyWorld();
    const now = Date.parse(iso(90));
    w.jobSets.push(jobSet(step(p, 'to-maxtext'), { conditions: [{ type: 'Completed', status: 'True', lastTransitionTime: iso(20) }] }));
    w.jobSets.push(jobSet(step(p, 'train'), { conditions: [{ type: 'Completed', status: 'False', lastTransitionTime: iso(30) }] }));
    const ended = jobSet(step(p, 'to-hf'), { conditions: [{ type: 'Failed', status: 'True', lastTransitionTime: iso(-5) }] });
    w.jobSets.push(ended);
    const spans = stepSpans(q, w, now);
    expect([...spans.keys()]).toEqual(['to-maxtext', 'train', 'to-hf']);
    expect(spans.get('to-maxtext')).toEqual({ from: Date.parse(iso(0)), until: Date.parse(iso(20)) });
    expect(spans.get('train')).toEqual({ from: Date.parse(iso(0)), until: now });
    expect(spans.get('to-hf')).toEqual({ from: Date.parse(iso(0)), until: Date.parse(iso(0)) });
  });
});

describe('runningRule: stalled, restarted, no progress line yet', () => {
  const q = record('rl-qwen3');
  const p = pipeline('rl-qwen3');
  const world = (restarts = 0) => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'train'), { restarts });
    w.jobSets.push(js);
    w.workloads.push(workload(js, true, { chips: 32 }));
    const head = pod(js, 'pathways-head', running(10));
    w.pods.push(head);
    return { w, head: head.metadata.name as string };
  };
  const at = (now: number) => ({ ...ctx, now });
  test('no step line for longer than the threshold: stalled, no ETA, the silence and the logs command', () => {
    const { w, head } = world();
    const log = [rlLine(10, 1), rlLine(11, 2), rlLine(12, 3)].join('\n');
    const st = stepStatus(q, 1, w, new Map([[head, log]]), at(Date.parse(iso(60))));
    expect(st.state).toBe('stalled');
    expect(st.reason).toBe('Stalled');
    expect(st.stall).toMatchObject({ lastStep: 3, silentSeconds: 48 * 60 });
    expect(st.message).toBe(`${stallText(st.stall!)}; its log: npm run logs -- rl-qwen3 train`);
    expect(st).not.toHaveProperty('etaSeconds');
    expect(st.progress).toEqual({ step: 3, total: q.steps[1]!.totalSteps });
  });
  test('stalled after restarts: both said', () => {
    const { w, head } = world(2);
    const st = stepStatus(q, 1, w, new Map([[head, [rlLine(10, 1), rlLine(11, 2)].join('\n')]]), at(Date.parse(iso(60))));
    expect(st.message).toMatch(/^no new step for .*; 2 JobSet restart\(s\), each resumed from the newest checkpoint \(.*\); its log: npm run logs -- rl-qwen3 train$/);
  });
  test('steps still coming: running with the ETA and elapsed time; restarts alone are "Restarted"', () => {
    const { w, head } = world(1);
    const st = stepStatus(q, 1, w, new Map([[head, [rlLine(10, 1), rlLine(12, 2)].join('\n')]]), at(Date.parse(iso(13))));
    expect(st).toMatchObject({ state: 'running', reason: 'Restarted', elapsedSeconds: 180, chips: 32, etaSeconds: (q.steps[1]!.totalSteps! - 2) * 120 });
    expect(st.message).toMatch(/^1 JobSet restart\(s\), each resumed from the newest checkpoint \(/);
    expect(st.details).toEqual([]);
    expect(st.run?.points.map((x) => x.step)).toEqual([1, 2]);
  });
  test('no progress line yet: step 0 of the total, and why', () => {
    const { w, head } = world();
    const st = stepStatus(q, 1, w, new Map([[head, 'loading the model']]), at(Date.parse(iso(13))));
    expect(st).toMatchObject({ state: 'running', progress: { step: 0, total: q.steps[1]!.totalSteps }, details: ['no progress line yet (loading the model, compiling)'] });
    expect(st).not.toHaveProperty('reason');
    expect(st).not.toHaveProperty('etaSeconds');
  });
  test('a running step that is not training: no progress, no details', () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'to-maxtext'));
    w.jobSets.push(js);
    w.pods.push(pod(js, 'convert', running(10)));
    const st = stepStatus(q, 0, w, new Map(), at(Date.parse(iso(12))));
    expect(st).toEqual({ name: 'to-maxtext', jobset: step(p, 'to-maxtext').jobSetName, state: 'running', elapsedSeconds: 120, details: [] });
  });
});

describe('progress and ETA edge cases', () => {
  test('one progress line: no `first`', () => {
    expect(parseProgress('rl', rlLine(10, 3))).toEqual({ step: 3, at: Date.parse(iso(10)) });
    expect(parseProgress('rl', 'nothing here')).toBeUndefined();
  });
  test('the rate needs the last line later and further than the first; else the rate since the start', () => {
    // Same time for both lines: not a rate; from the start (100 s ago for 4 steps), 6 steps left.
    expect(eta({ step: 4, at: 60_000, first: { step: 2, at: 60_000 } }, 10, 0, 100_000)).toBe(150);
    expect(eta({ step: 4, at: 60_000, first: { step: 4, at: 0 } }, 10, 0, 100_000)).toBe(150);
    expect(eta({ step: 4, at: 60_000, first: { step: 2 } }, 10, 0, 100_000)).toBe(150);
    expect(eta({ step: 4, first: { step: 2, at: 0 } }, 10, 0, 100_000)).toBe(150);
    expect(eta({ step: 12 }, 10, 0, 1)).toBe(0);
    expect(eta({ step: 0 }, 10, 0, 100_000)).toBeUndefined();
  });
  test('lastLines keeps the last n non-empty lines, timestamps cut', () => {
    expect(lastLines('2026-12-01T06:00:00Z a\n  \n2026-12-01T06:00:01.5Z b\nc', 2)).toEqual(['b', 'c']);
  });
});

describe('each rule at its edges', () => {
  const q = record('rl-qwen3');
  const p = pipeline('rl-qwen3');
  const facts = (w: ReturnType<typeof emptyWorld>, index = 1, logs = new Map<string, string>(), now = ctx.now) => stepFacts(q, index, w, logs, { ...ctx, now });
  const withWorkload = (status: object, spec: object = {}, index = 1) => {
    const w = emptyWorld();
    const js = jobSet(step(p, q.steps[index]!.name as any));
    const wl = { ...workload(js, false), status, spec: { ...workload(js, false).spec, ...spec } };
    w.jobSets.push(js);
    w.workloads.push(wl);
    return { w, wl, js };
  };
  test('notCreatedRule: a first step not created while a later one is: "not created"', () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(p, 'train')));
    expect(notCreatedRule(facts(w, 0))).toEqual({ state: 'not-created', message: 'not created', details: [] });
    // The previous step running (not failed): it waits for it.
    w.jobSets.push(jobSet(step(p, 'to-hf')));
    expect(notCreatedRule(facts(w, 3))).toEqual({ state: 'not-created', message: 'starts when to-hf completed', details: [] });
  });
  test('completedRule: a conversion step has its output and no progress; an eval step without a log has no run', () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(p, 'to-maxtext'), { terminalState: 'Completed' }));
    w.jobSets.push(jobSet(step(p, 'eval'), { terminalState: 'Completed' }));
    expect(completedRule(facts(w, 0))).toEqual({ state: 'completed', message: `output: ${q.steps[0]!.output}`, details: [] });
    expect(completedRule(facts(w, 3))).toEqual({ state: 'completed', message: `output: ${q.steps[3]!.output}`, details: [] });
  });
  test("failedRule: no Failed condition (terminalState only): the generic reason and message; no log: no lines", () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(p, 'to-maxtext'), { terminalState: 'Failed' }));
    expect(failedRule(facts(w, 0))).toEqual({ state: 'failed', reason: 'Failed', message: 'the JobSet failed', details: [] });
    w.jobSets[0]!.status.conditions = [{ type: 'Failed', status: 'True', reason: 'FailJobSetFailurePolicyAction' }];
    expect(failedRule(facts(w, 0))).toMatchObject({ reason: 'FailJobSetFailurePolicyAction', message: 'the JobSet failed' });
  });
  test('deactivationOf: the Evicted condition of a deactivation wins over the target; a target not True, or no reason: "Deactivated"', () => {
    const evicted = { type: 'Evicted', status: 'True', reason: 'DeactivatedDueToAdmissionCheck', message: 'The workload is deactivated due to check x' };
    const target = { type: 'DeactivationTarget', status: 'True', reason: 'RequeuingLimitExceeded', message: 'exceeding the maximum number of re-queuing retries' };
    const of = (conditions: object[]) => deactivationOf({ metadata: {}, spec: { active: false }, status: { conditions } as any });
    expect(of([target, evicted])).toEqual({ cause: 'AdmissionCheck', reason: 'DeactivatedDueToAdmissionCheck', detail: 'check x' });
    expect(of([{ ...evicted, status: 'False' }, target])).toEqual({ cause: 'RequeuingLimitExceeded', reason: 'RequeuingLimitExceeded', detail: 'exceeding the maximum number of re-queuing retries' });
    expect(of([{ ...target, status: 'False' }])).toEqual({ reason: 'Deactivated' });
    expect(of([{ type: 'Evicted', status: 'True', reason: 'Deactivated', message: 'The workload is deactivated' }])).toEqual({ reason: 'Deactivated' });
    expect(of([{ type: 'DeactivationTarget', status: 'True' }])).toEqual({ reason: 'Deactivated' });
    expect(of([])).toEqual({ reason: 'Deactivated' });
    // A reason that only starts like a cause is not that cause.
    expect(of([{ ...evicted, reason: 'DeactivatedDueToAdmissionCheckX', message: undefined }])).toEqual({ reason: 'DeactivatedDueToAdmissionCheckX' });
    expect(deactivationOf({ metadata: {} })).toBeUndefined();
  });
  test('deactivatedRule: no message from the admission check; no name on the workload', () => {
    const { w } = withWorkload({ conditions: [{ type: 'DeactivationTarget', status: 'True', reason: 'AdmissionCheck' }] }, { active: false });
    const v = deactivatedRule(facts(w))!;
    expect(v.message).toContain('deactivated: an admission check rejected it: no message; no slice is held for it');
    expect(v.message).toMatch(/when capacity is available, kubectl patch workload -n default \S+ --type=merge/);
    const { w: nameless } = withWorkload({ conditions: [] }, { active: false });
    nameless.workloads[0] = { ...nameless.workloads[0], metadata: { ...nameless.workloads[0]!.metadata, name: undefined } };
    expect(deactivatedRule(facts(nameless))!.message).toBe(
      `workload <workload> deactivated (Deactivated): not by one of Kueue's limits (spec.active set to false by hand?); to run it again, kubectl patch workload -n default <workload> --type=merge -p '{"spec":{"active":true}}'`,
    );
    expect(deactivatedRule(facts(emptyWorld()))).toBeUndefined();
  });
  test('podsReadyTimeoutRule: not for an admitted workload, nor an eviction that is not True', () => {
    const pr = { type: 'Evicted', status: 'True', reason: 'PodsReadyTimeout', message: 'x' };
    expect(podsReadyTimeoutRule(facts(withWorkload({ conditions: [pr, { type: 'Admitted', status: 'True' }] }).w))).toBeUndefined();
    expect(podsReadyTimeoutRule(facts(withWorkload({ conditions: [{ ...pr, status: 'False' }] }).w))).toBeUndefined();
    expect(podsReadyTimeoutRule(facts(emptyWorld()))).toBeUndefined();
  });
  test('admissionCheckRule: a check without name, state or message', () => {
    const { w, wl } = withWorkload({ conditions: [{ type: 'QuotaReserved', status: 'True' }], admissionChecks: [{}] });
    expect(admissionCheckRule(facts(w))!.message).toBe(
      `workload ${wl.metadata.name} holds its quota and waits for its admission checks: ? Pending; a flex-start step is admitted once GKE has provisioned its slice (kubectl get provisioningrequests -n default)`,
    );
    expect(admissionCheckRule(facts(withWorkload({ conditions: [{ type: 'QuotaReserved', status: 'True' }] }).w))).toBeUndefined();
  });
  test("queuedRule: an eviction before the quota's condition, the quota's False before Admitted; none: waiting for Kueue; holders appended", () => {
    const reservedFalse = { type: 'QuotaReserved', status: 'False', reason: 'Pending', message: 'no quota' };
    const admittedFalse = { type: 'Admitted', status: 'False', reason: 'NoChecks', message: 'not all checks ready' };
    const evicted = { type: 'Evicted', status: 'True', reason: 'Preempted', message: 'preempted' };
    const pick = (conditions: object[]) => queuedRule(facts(withWorkload({ conditions }).w))!;
    expect(pick([reservedFalse, admittedFalse, evicted])).toMatchObject({ reason: 'Preempted', message: expect.stringMatching(/: preempted$/) });
    expect(pick([admittedFalse, reservedFalse, { ...evicted, status: 'False' }])).toMatchObject({ reason: 'Pending', message: expect.stringMatching(/: no quota$/) });
    expect(pick([{ ...reservedFalse, status: 'True' }, admittedFalse])).toMatchObject({ reason: 'NoChecks', message: expect.stringMatching(/: not all checks ready$/) });
    expect(pick([{ type: 'QuotaReserved', status: 'True', reason: 'QuotaReserved' }])).toMatchObject({ reason: 'QuotaReserved', message: expect.stringMatching(/: waiting for Kueue to evaluate it$/) });
    const { w, wl } = withWorkload({});
    expect(queuedRule(facts(w))).toMatchObject({ reason: 'Pending', message: `workload ${wl.metadata.name}: waiting for Kueue to evaluate it` });
    const holder = workload(jobSet(step(pipeline('sft-gemma4'), 'train')), true, { chips: 32 });
    w.workloads.push(holder);
    expect(queuedRule(facts(w))!.message).toBe(
      `workload ${wl.metadata.name}: waiting for Kueue to evaluate it; quota held by JobSet ${step(pipeline('sft-gemma4'), 'train').jobSetName} in default (ClusterQueue ${platform.clusterQueue}, 32 google.com/tpu)`,
    );
    expect(queuedRule(facts(w))!.details).toEqual(waitLines(facts(w)));
  });
  test('suspendedRule: its wait lines; a JobSet not suspended is not this rule', () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(p, 'train'), { conditions: [{ type: 'Suspended', status: 'True' }] }));
    expect(suspendedRule(facts(w))).toEqual({ state: 'queued', reason: 'Suspended', message: 'waiting for Kueue to create and admit its workload', details: waitLines(facts(w)) });
    expect(waitLines(facts(w))).toHaveLength(1);
    w.jobSets[0]!.status.conditions = [{ type: 'Suspended', status: 'False' }];
    expect(suspendedRule(facts(w))).toBeUndefined();
  });
  test('notRunningRule: the main container’s waiting reason, else PodPending; a pod without phase is Pending; no chips without an admission', () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'train'));
    w.jobSets.push(js);
    const head = pod(js, 'pathways-head', { containerStatuses: [{ name: 'workload-container', state: { waiting: { reason: 'ContainerCreating' } } }] });
    w.pods.push(head);
    expect(notRunningRule(facts(w))).toEqual({ state: 'pending', reason: 'ContainerCreating', message: `pod ${head.metadata.name} is Pending`, details: waitLines(facts(w)) });
    head.status = { phase: 'Pending', containerStatuses: [{ name: 'other', state: { waiting: { reason: 'ContainerCreating' } } }] };
    expect(notRunningRule(facts(w))).toMatchObject({ reason: 'PodPending', message: `pod ${head.metadata.name} is Pending` });
    head.status = { phase: 'Succeeded' };
    expect(notRunningRule(facts(w))).toBeUndefined();
    const none = emptyWorld();
    none.jobSets.push(js);
    expect(notRunningRule(facts(none))).toMatchObject({ reason: 'PodsNotCreated', message: 'admitted; waiting for the JobSet controller to create pods' });
    expect(notRunningRule(facts(none))).not.toHaveProperty('chips');
  });
  test('waitLines: exactly at the end of the window the Workflow has ended the run', () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(p, 'to-maxtext')));
    const wait = q.steps[0]!.waitMinutes;
    expect(waitLines(facts(w, 0, new Map(), Date.parse(iso(wait))))[0]).toContain('past this step\'s window');
    expect(waitLines(facts(w, 0, new Map(), Date.parse(iso(wait)) - 1000))[0]).toContain('the Workflow waits up to 1s more');
    // Before the JobSet's creation (a clock behind): waited 0 s.
    expect(waitLines(facts(w, 0, new Map(), Date.parse(iso(0)) - 60_000))[0]).toMatch(/^waiting 0s since its JobSet was created/);
  });
  test('runningRule: a container that starts after now has run 0 s; its start time from the pod when the container has none', () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'to-maxtext'));
    w.jobSets.push(js);
    w.pods.push(pod(js, 'convert', { phase: 'Running', startTime: iso(10) }));
    expect(stepStatus(q, 0, w, new Map(), { ...ctx, now: Date.parse(iso(12)) }).elapsedSeconds).toBe(120);
    expect(stepStatus(q, 0, w, new Map(), { ...ctx, now: Date.parse(iso(9)) }).elapsedSeconds).toBe(0);
    w.pods[0]!.status = { phase: 'Running' };
    expect(stepStatus(q, 0, w, new Map(), ctx)).not.toHaveProperty('elapsedSeconds');
  });
});

describe('runSummary: what a training step did', () => {
  const q = record('rl-qwen3');
  const p = pipeline('rl-qwen3');
  test("chip-hours from the admission to the JobSet's end at the workload's chips, else the record's; the step lines of the log", () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'train'), { conditions: [{ type: 'Completed', status: 'True', lastTransitionTime: iso(61) }] });
    w.jobSets.push(js);
    const wl = workload(js, true, { chips: 16 });
    w.workloads.push(wl);
    const head = pod(js, 'pathways-head', { phase: 'Succeeded' });
    w.pods.push(head);
    const log = [rlLine(10, 1), rlLine(20, 2)].join('\n');
    const f = stepFacts(q, 1, w, new Map([[head.metadata.name, log]]), ctx);
    const run = runSummary(f)!;
    // Admitted at minute 1 (the fixture's conditions), ended at minute 61: one hour at 16 chips.
    expect(run.usage).toMatchObject({ chips: 16, ended: true, chipHours: 16, admittedAt: Date.parse(iso(1)), until: Date.parse(iso(61)) });
    expect(run.points.map((x) => x.step)).toEqual([1, 2]);
    expect(run).not.toHaveProperty('evaluation');
    wl.status.admission.podSetAssignments = [];
    expect(runSummary(stepFacts(q, 1, w, new Map(), ctx))).toEqual({ usage: expect.objectContaining({ chips: 32, chipHours: 32 }), points: [] });
  });
  test('still running: usage until now, not ended; never admitted and no log: nothing', () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'train'));
    w.jobSets.push(js);
    w.workloads.push(workload(js, true, { chips: 32 }));
    const now = Date.parse(iso(31));
    expect(runSummary(stepFacts(q, 1, w, new Map(), { ...ctx, now }))!.usage).toMatchObject({ ended: false, until: now, chipHours: 16 });
    const bare = emptyWorld();
    bare.jobSets.push(js);
    bare.workloads.push(workload(js, false));
    expect(runSummary(stepFacts(q, 1, bare, new Map(), ctx))).toBeUndefined();
  });
  test("a conversion step's log has no step lines for the summary", () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'to-maxtext'));
    w.jobSets.push(js);
    const c = pod(js, 'convert', running(1));
    w.pods.push(c);
    expect(runSummary(stepFacts(q, 0, w, new Map([[c.metadata.name, rlLine(10, 1)]]), ctx))).toBeUndefined();
  });
});

describe('objects as sparse as the API server may return them, and the whole pipeline', () => {
  const q = record('rl-qwen3');
  const p = pipeline('rl-qwen3');
  test('ETA: at the total with no start is 0; a rate needs the first line; no start and no rate: unknown', () => {
    expect(eta({ step: 40 }, 40, undefined, 1)).toBe(0);
    expect(eta({ step: 10, at: 5 }, 40, 100_000, 700_000)).toBe(30 * 60);
    expect(eta({ step: 5 }, 10, undefined, 1000)).toBeUndefined();
  });
  test('workloads, pods and JobSets without status, labels or owners', () => {
    const js = jobSet(step(p, 'train'));
    const bare = { metadata: { name: 'w' } };
    expect(workloadOf(js, [bare])).toBeUndefined();
    expect(quotaHolders(bare, [bare, { metadata: { name: 'x' } }], platform.clusterQueue)).toEqual([]);
    expect(chipsHeld(bare)).toBe(0);
    expect(deactivationOf({ metadata: {}, spec: { active: false } })).toEqual({ reason: 'Deactivated' });
    const noStatus = { metadata: { name: 'p' } };
    expect(podProblem(noStatus, [], q, q.steps[1]!)).toBeUndefined();
    expect(admittedAt(bare)).toBeUndefined();
    const w = emptyWorld();
    w.jobSets.push({ ...js, status: undefined });
    w.pods.push({ metadata: { name: 'unlabelled' } } as any);
    w.workloads.push({ ...workload(js, false), status: undefined } as any);
    const st = stepStatus(q, 1, w, new Map(), ctx);
    expect(st).toMatchObject({ state: 'queued', reason: 'Pending', message: expect.stringMatching(/: waiting for Kueue to evaluate it$/) });
    expect(stepSpans(q, w, ctx.now).get('train')).toEqual({ from: Date.parse(iso(0)), until: ctx.now });
    const pending = emptyWorld();
    pending.jobSets.push({ ...js, status: undefined });
    pending.workloads.push(workload(js, true, { chips: 32 }));
    pending.pods.push({ ...pod(js, 'pathways-head', {}), status: undefined, spec: undefined });
    expect(stepStatus(q, 1, pending, new Map(), ctx)).toMatchObject({ state: 'pending', reason: 'PodPending', message: expect.stringMatching(/ is Pending$/) });
    // A pod of another JobSet is not this step's.
    const others = emptyWorld();
    others.jobSets.push(js);
    others.workloads.push(workload(js, true, { chips: 32 }));
    others.pods.push({ ...pod(jobSet(step(p, 'to-maxtext')), 'convert', { phase: 'Pending', containerStatuses: [{ name: 'workload-container', state: { waiting: { reason: 'ErrImagePull' } } }] }) });
    expect(stepStatus(q, 1, others, new Map(), ctx)).toMatchObject({ state: 'pending', reason: 'PodsNotCreated' });
  });
  test('an init container that cannot be pulled: its image from the spec', () => {
    const js = jobSet(step(p, 'train'));
    const pd = pod(js, 'pathways-head', { phase: 'Pending', initContainerStatuses: [{ name: 'pathways-proxy', state: { waiting: { reason: 'ImagePullBackOff' } } }] });
    const proxy = (pd.spec.initContainers ?? []).find((c: { name: string }) => c.name === 'pathways-proxy');
    expect(proxy?.image).toMatch(/proxy/);
    expect(podProblem(pd, [], q, q.steps[1]!)!.message).toContain(`container pathways-proxy cannot pull image ${proxy.image};`);
    for (const reason of ['InvalidImageName', 'ErrImageNeverPull']) {
      const bad = pod(js, 'pathways-head', { phase: 'Pending', containerStatuses: [{ name: 'workload-container', image: 'x', state: { waiting: { reason } } }] });
      expect(podProblem(bad, [], q, q.steps[1]!)).toMatchObject({ reason });
    }
    const unnamed = { ...pd, metadata: { ...pd.metadata, name: undefined } };
    expect(podProblem(unnamed, [], q, q.steps[1]!)!.message).toMatch(/^pod \? container pathways-proxy/);
  });
  test('an event without a kind is about a pod; one about another pod is not', () => {
    const js = jobSet(step(p, 'train'));
    const pd = pod(js, 'pathways-head', { phase: 'Pending' });
    const kindless = { ...event(pd, 'FailedMount', 'MountVolume.SetUp failed for volume "x"'), involvedObject: { name: pd.metadata.name } };
    expect(podProblem(pd, [kindless], q, q.steps[1]!)).toMatchObject({ reason: 'FailedMount' });
    const another = { ...event(pd, 'FailedMount', 'y'), involvedObject: { kind: 'Pod', name: 'another' } };
    expect(podProblem(pd, [another], q, q.steps[1]!)).toBeUndefined();
    expect(podProblem(pd, [{ reason: 'FailedMount', message: 'z' }], q, q.steps[1]!)).toBeUndefined();
  });
  test('the eval step is summarised too: the chips it held', () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'eval'), { terminalState: 'Completed' });
    w.jobSets.push(js);
    w.workloads.push(workload(js, true, { chips: 8 }));
    expect(stepStatus(q, 3, w, new Map(), ctx).run?.usage).toMatchObject({ chips: 8 });
  });
  test("the run's cost line says whether the run ended: all completed, or one failed", () => {
    const rates = { cpuNodeHour: 1, clusterFeePerHour: 0.1, money: (n: number) => `$${n.toFixed(2)}` };
    const run = (states: Array<object | undefined>) => {
      const w = emptyWorld();
      q.steps.forEach((s, i) => {
        if (states[i] !== undefined) w.jobSets.push(jobSet(step(p, s.name as any), states[i]));
      });
      return pipelineStatus(q, w, new Map(), { ...ctx, costRates: () => rates });
    };
    const done = { terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', lastTransitionTime: iso(30) }] };
    const failed = { terminalState: 'Failed', conditions: [{ type: 'Failed', status: 'True', lastTransitionTime: iso(30) }] };
    const all = run([done, done, done, done]);
    expect(all.cost!.text).toBe(runCostLine(all.cost!.cost, rates, true));
    const oneFailed = run([done, failed]);
    expect(oneFailed.cost!.text).toBe(runCostLine(oneFailed.cost!.cost, rates, true));
    const going = run([done, {}]);
    expect(going.cost!.text).toBe(runCostLine(going.cost!.cost, rates, false));
    expect(runCostLine(going.cost!.cost, rates, false)).not.toBe(runCostLine(going.cost!.cost, rates, true));
    expect(pipelineStatus(q, emptyWorld(), new Map(), ctx)).not.toHaveProperty('cost');
    expect(all).not.toHaveProperty('rehearsal');
    expect(all).not.toHaveProperty('engine');
  });
});

describe('the last survivors of the status/model.ts mutation run', () => {
  const q = record('rl-qwen3');
  const p = pipeline('rl-qwen3');
  test('mainPodOf skips unlabelled pods; workloadOf without a uid does not take an unlabelled stranger, and reads every owner', () => {
    const js = jobSet(step(p, 'train'));
    const main = pod(js, 'pathways-head', {});
    expect(mainPodOf(q.steps[1]!, [{ metadata: { name: 'bare' } }, main])).toBe(main);
    const noUid = { ...js, metadata: { ...js.metadata, uid: undefined } };
    const stranger = { metadata: { name: 's', ownerReferences: [{ kind: 'JobSet', name: 'another' }] } };
    expect(workloadOf(noUid, [stranger])).toBeUndefined();
    const twoOwners = { metadata: { name: 't', ownerReferences: [{ kind: 'Job', name: 'x' }, { kind: 'JobSet', name: js.metadata.name, uid: js.metadata.uid }] } };
    expect(workloadOf(js, [twoOwners])).toBe(twoOwners);
  });
  test('lastLines: a blank line of spaces is empty; a timestamp inside a line stays', () => {
    expect(lastLines('a\n   \nb', 3)).toEqual(['a', 'b']);
    expect(lastLines('x 2026-12-01T06:00:00Z y', 1)).toEqual(['x 2026-12-01T06:00:00Z y']);
  });
  test("unschedulable: only a FailedScheduling event's message; every node selector entry, comma-separated", () => {
    const js = jobSet(step(p, 'train'));
    const base = pod(js, 'pathways-head', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'cond' }] });
    const pd = { ...base, spec: { ...base.spec, nodeSelector: { a: '1', b: '2' } } };
    const pulling = { ...event(pd, 'Pulling', 'pulling image'), lastTimestamp: iso(9) };
    expect(podProblem(pd, [pulling], q, q.steps[1]!)!.message).toBe(`pod ${pd.metadata.name}: cond (node selector a=1,b=2)`);
  });
  test('logRequests: pods of a deleted JobSet are not read; a training main pod without status is not read', () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'train'));
    w.pods.push(pod(js, 'pathways-head', running(1)));
    expect(logRequests([q], w)).toEqual([]);
    const bare = emptyWorld();
    bare.jobSets.push(js);
    bare.pods.push({ ...pod(js, 'pathways-head', {}), status: undefined });
    expect(logRequests([q], bare)).toEqual([]);
  });
  test("elapsed time: the main container's start, not another container's; else the pod's", () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'to-maxtext'));
    w.jobSets.push(js);
    w.pods.push(
      pod(js, 'convert', {
        phase: 'Running',
        startTime: iso(1),
        containerStatuses: [
          { name: 'sidecar', state: { running: { startedAt: iso(2) } } },
          { name: 'workload-container', state: { running: { startedAt: iso(5) } } },
        ],
      }),
    );
    expect(stepStatus(q, 0, w, new Map(), { ...ctx, now: Date.parse(iso(10)) }).elapsedSeconds).toBe(300);
    w.pods[0]!.status.containerStatuses = [{ name: 'workload-container', state: { waiting: {} } }];
    expect(stepStatus(q, 0, w, new Map(), { ...ctx, now: Date.parse(iso(10)) }).elapsedSeconds).toBe(540);
  });
});

describe('more survivors: whole verdicts, no status, no log', () => {
  const q = record('rl-qwen3');
  const p = pipeline('rl-qwen3');
  test('notCreatedRule after a failed step and deactivatedRule: the whole verdict', () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(p, 'to-maxtext'), { terminalState: 'Failed' }));
    expect(notCreatedRule(stepFacts(q, 1, w, new Map(), ctx))).toEqual({ state: 'not-created', message: 'will not start: to-maxtext failed', details: [] });
    const d = emptyWorld();
    const js = jobSet(step(p, 'train'));
    d.jobSets.push(js);
    d.workloads.push(deactivatedWorkload(js, 'RequeuingLimitExceeded'));
    expect(deactivatedRule(stepFacts(q, 1, d, new Map(), ctx))!.details).toEqual([]);
  });
  test('a step the record gives no output: no output message', () => {
    const r = { ...q, steps: q.steps.map((s, i) => (i === 0 ? { ...s, output: undefined } : s)) };
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(p, 'to-maxtext'), { terminalState: 'Completed' }));
    expect(completedRule(stepFacts(r, 0, w, new Map(), ctx))).toEqual({ state: 'completed', details: [] });
  });
  test('a JobSet without status and no workload, its main pod running: running, no restarts', () => {
    const w = emptyWorld();
    const js = { ...jobSet(step(p, 'to-maxtext')), status: undefined };
    w.jobSets.push(js);
    w.pods.push(pod(js, 'convert', running(1)));
    expect(stepStatus(q, 0, w, new Map(), ctx)).toMatchObject({ state: 'running' });
    expect(stepStatus(q, 0, w, new Map(), ctx)).not.toHaveProperty('reason');
  });
  test('a running training step whose log was not read: step 0, no progress line yet', () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'train'));
    w.jobSets.push(js);
    w.pods.push(pod(js, 'pathways-head', running(1)));
    expect(stepStatus(q, 1, w, new Map(), ctx)).toMatchObject({ state: 'running', progress: { step: 0 }, details: ['no progress line yet (loading the model, compiling)'] });
  });
  test("runSummary: step lines without an admission; MaxText's evaluation before and after", () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'train'));
    w.jobSets.push(js);
    const head = pod(js, 'pathways-head', running(1));
    w.pods.push(head);
    const f = (log: string) => stepFacts(q, 1, w, new Map([[head.metadata.name, log]]), ctx);
    expect(runSummary(f(rlLine(5, 1)))).toEqual({ points: [expect.objectContaining({ step: 1 })] });
    const evaluated = runSummary(f([evalLine(2, 'Pre', 60, 100, 0.5), evalLine(50, 'Post', 70, 100, 0.6)].join('\n')))!;
    expect(evaluated.evaluation).toMatchObject({ before: { correct: 60 }, after: { correct: 70 } });
  });
  test('stepSpans: a JobSet without a creation time has no span; cost needs a created step even with rates', () => {
    const w = emptyWorld();
    const js = jobSet(step(p, 'to-maxtext'));
    w.jobSets.push({ ...js, metadata: { ...js.metadata, creationTimestamp: undefined } });
    expect(stepSpans(q, w, ctx.now).size).toBe(0);
    const rates = { cpuNodeHour: 1, clusterFeePerHour: 0.1, money: (n: number) => `$${n}` };
    expect(pipelineStatus(q, emptyWorld(), new Map(), { ...ctx, costRates: () => rates })).not.toHaveProperty('cost');
  });
  test('deactivationOf: the head is cut only at the start of the message', () => {
    const wl = { metadata: {}, spec: { active: false }, status: { conditions: [{ type: 'DeactivationTarget', status: 'True', reason: 'X', message: 'see: The workload is deactivated due to y' }] } };
    expect(deactivationOf(wl)).toEqual({ reason: 'X', detail: 'see: The workload is deactivated due to y' });
  });
});
