/** The pure status model: progress lines, ETA, workload ownership, exit codes (in-process, no cluster). */
import { lastCheckpointStep } from '../../jobs/maxtext';
import { allPipelinesWorld, deactivatedWorkload, emptyWorld, jobSet, pipeline, platform, record, rlLine, sftLine, step, workload, workloadName } from '../../bench/fake-kube-api';
import { eta, exitCode, lastLines, parseProgress, pipelineStatus, workloadOf } from '../../status/model';
import { duration, progressBar } from '../../status/render';

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
