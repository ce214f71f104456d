/**
 * The pipeline Workflow under the engine's resource-step semantics (__tests__/models/argo.ts, read at
 * argoproj/argo-workflows v4.1.2), for every synthesized pipeline and fault: preemption, an application error,
 * never-ready pods (Kueue deactivates, then deletes the JobSet after DEACTIVATED_RETENTION_MINUTES), a step that stays
 * inadmissible past its window, a flex-start host lost, the deploy interrupted, the engine's step pod lost (deleted or
 * evicted), the engine's controller restarted; plus a re-deploy with a changed spec and a migrated run.
 * Invariant checked in every scenario: no JobSet is ever created twice by one Workflow, and no step's JobSet is
 * created before the previous step's JobSet completed. A rehearsal's exit handler then writes its verdict record (the
 * writer's own container run under python3 with a stand-in gcsfs), and never changes the run's outcome.
 */
import { buildPipeline, Pipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { CREATE_RETRY_LIMIT, FINAL_CREATE_MESSAGES, FINAL_WAIT_MESSAGES, pipelineWorkflow, STATE_CHECK_SECONDS, stepTasks, WAIT_RETRY_LIMIT } from '../../jobs/argo';
import { LOST_HOST, LOST_HOST_BUDGET_MESSAGE } from '../../jobs/lost-host';
import { DEACTIVATED_RETENTION_MINUTES, kueueManagerConfig } from '../../jobs/kueue';
import { testPlatform } from '../jobs/fixtures';
import { deleteWorkflow, evalExpression, Fault, JobSetScript, matchConditions, retryWorkflow, runWorkflow, RunResult, webhookRefusal } from './argo';

const H = 3600;
const platform = testPlatform();
const PIPELINES: Pipeline[] = Object.values(RECIPES).flatMap((r) =>
  (['cpu', 'tpu'] as const).map((conversionOn) => buildPipeline(r, platform, { runId: 'r1', conversionOn })),
);
const workflowOf = (p: Pipeline) => pipelineWorkflow(p, { systemPool: 'system' });

/** How long training runs in the scenarios: 30 hours, or 80 % of one attempt's timeout when that is shorter (whole polls). */
const trainSeconds = (p: Pipeline) => Math.min(30 * H, Math.floor((0.8 * stepName(p, 'train').timeoutMinutes * 60) / 30) * 30);

/** Every step completes after 40 minutes (train after trainSeconds), unless overridden. */
function scripts(p: Pipeline, over: Partial<Record<string, JobSetScript>> = {}): Record<string, JobSetScript> {
  return Object.fromEntries(
    p.steps.map((s) => [s.jobSetName, over[s.name] ?? { endsAfter: s.name === 'train' ? trainSeconds(p) : 40 * 60, ends: 'Completed' as const }]),
  );
}

function run(p: Pipeline, over: Partial<Record<string, JobSetScript>> = {}, faults: Fault[] = [], extra: Partial<Parameters<typeof runWorkflow>[0]> = {}): RunResult {
  return runWorkflow({ workflow: workflowOf(p), scripts: scripts(p, over), faults, pollSeconds: STATE_CHECK_SECONDS, ...extra });
}

/** The invariants: one create per JobSet, in step order, each after the previous JobSet's completion. */
function expectOrderedSingleCreates(p: Pipeline, r: RunResult) {
  const names = r.creates.map((c) => c.name);
  expect(new Set(names).size).toBe(names.length);
  expect(names).toEqual(p.steps.map((s) => s.jobSetName).slice(0, names.length));
  r.creates.forEach((c, i) => {
    if (i === 0) return;
    const prev = r.jobSets.get(r.creates[i - 1].name)!;
    expect(c.at).toBeGreaterThanOrEqual(prev.createdAt + (prev.script.endsAfter ?? Infinity));
  });
}

const stepName = (p: Pipeline, step: string) => p.steps.find((s) => s.name === step)!;

describe.each(PIPELINES.map((p) => [`${p.name} (${p.steps[0].runsOn} conversions)`, p] as const))('%s', (_label, p) => {
  test('all steps complete: the Workflow Succeeds, each JobSet created once, in order, the next within a poll or two', () => {
    const r = run(p);
    expect(r.phase).toBe('Succeeded');
    expect(r.creates.map((c) => c.name)).toEqual(p.steps.map((s) => s.jobSetName));
    expectOrderedSingleCreates(p, r);
    r.creates.forEach((c, i) => {
      if (i === 0) return expect(c.at).toBeLessThanOrEqual(STATE_CHECK_SECONDS);
      const prev = r.jobSets.get(r.creates[i - 1].name)!;
      expect(c.at - (prev.createdAt + prev.script.endsAfter!)).toBeLessThanOrEqual(2 * STATE_CHECK_SECONDS);
    });
  });

  test('preemption: the JobSet restarts itself and completes; the engine only watched (one create)', () => {
    const r = run(p, { train: { endsAfter: trainSeconds(p) + 3 * H, ends: 'Completed', restarts: 2 } });
    expect(r.phase).toBe('Succeeded');
    expectOrderedSingleCreates(p, r);
    expect(r.nodes['train-wait'].attempts).toHaveLength(1);
  });

  test('application error: train Failed ends the Workflow Failed within minutes, no retry reads it again for long, to-hf never created', () => {
    const r = run(p, { train: { endsAfter: 2 * H, ends: 'Failed' } });
    expect(r.phase).toBe('Failed');
    expect(r.creates.map((c) => c.name)).not.toContain(stepName(p, 'to-hf').jobSetName);
    const failedAt = r.jobSets.get(stepName(p, 'train').jobSetName)!.createdAt + 2 * H;
    expect(r.endedAt! - failedAt).toBeLessThanOrEqual(60);
    expect(r.nodes['train-wait'].attempts).toHaveLength(1);
    expect(r.nodes['train-wait'].message).toContain("failure condition 'status.terminalState == Failed' evaluated true");
  });

  test('never-ready pods: Kueue deactivates the workload and deletes the JobSet after its retention; the Workflow Fails then', () => {
    // 3 x (20 min timeout) + backoffs ~ 67 min to deactivation, then DEACTIVATED_RETENTION_MINUTES.
    const deletedAfter = 67 * 60 + DEACTIVATED_RETENTION_MINUTES * 60;
    const r = run(p, { train: { deletedAfter } });
    expect(r.phase).toBe('Failed');
    const created = r.jobSets.get(stepName(p, 'train').jobSetName)!.createdAt;
    expect(r.endedAt! - (created + deletedAfter)).toBeLessThanOrEqual(60);
    expect(r.nodes['train-wait'].attempts).toHaveLength(1);
    expectOrderedSingleCreates(p, r);
  });

  test('inadmissible past its window: the wait ends at the step window (waitMinutes), not retried, and nothing later is created', () => {
    const r = run(p, { train: {} });
    expect(r.phase).toBe('Failed');
    const wait = r.nodes['train-wait'];
    expect(wait.attempts).toHaveLength(1);
    expect(wait.attempts[0].end! - wait.attempts[0].start).toBe(stepName(p, 'train').waitMinutes * 60);
    expect(r.creates).toHaveLength(2);
  });

  test('flex-start host lost: the JobSet restarts in place; the attempts together stay one watched JobSet', () => {
    const train = stepName(p, 'train');
    const r = run(p, { train: { endsAfter: train.timeoutMinutes * 60 + 10 * H, ends: 'Completed', restarts: 1 } });
    expect(r.phase).toBe('Succeeded');
    expectOrderedSingleCreates(p, r);
  });

  test.each(['pod-deleted', 'pod-evicted'] as const)('the engine\'s wait pod %s mid-training: a retry re-attaches to the same JobSet', (kind) => {
    const r = run(p, {}, [{ kind, task: 'train-wait', at: 40 * 60 + Math.floor(trainSeconds(p) / 60) * 30 }]);
    expect(r.phase).toBe('Succeeded');
    expectOrderedSingleCreates(p, r);
    const attempts = r.nodes['train-wait'].attempts;
    expect(attempts.map((a) => a.phase)).toEqual([kind === 'pod-deleted' ? 'Error' : 'Failed', 'Succeeded']);
    expect(attempts[1].start - attempts[0].end!).toBeLessThanOrEqual(30 + STATE_CHECK_SECONDS);
  });

  test('the create pod lost right after it created: the retry finds the JobSet (AlreadyExists), creates nothing, the wait goes on', () => {
    // The create pod is lost in the same poll its kubectl create ran (before the controller saw it succeed).
    const trainCreate = run(p).creates[1].at;
    const r = runWorkflow({
      workflow: workflowOf(p),
      scripts: scripts(p),
      faults: [{ kind: 'pod-deleted', task: 'train', at: trainCreate + STATE_CHECK_SECONDS }],
      pollSeconds: STATE_CHECK_SECONDS,
      lostAfterAct: true,
    });
    expect(r.phase).toBe('Succeeded');
    expectOrderedSingleCreates(p, r);
    expect(r.nodes.train.attempts.map((a) => a.phase)).toEqual(['Error', 'Failed']);
    expect(r.nodes.train.attempts[1].message).toContain('AlreadyExists');
  });

  test('a wait pod lost more often than its retry limit: the Workflow ends Error, the JobSet was still created once', () => {
    const every = Math.floor(trainSeconds(p) / (WAIT_RETRY_LIMIT + 3) / 30) * 30;
    const faults: Fault[] = Array.from({ length: WAIT_RETRY_LIMIT + 1 }, (_, i) => ({ kind: 'pod-deleted' as const, task: 'train-wait', at: 3600 + (1 + i) * every }));
    const r = run(p, {}, faults);
    expect(r.phase).toBe('Error');
    expectOrderedSingleCreates(p, r);
  });

  test('the Workflow\'s own deadline is a backstop only: later than the sum of the steps\' windows, so no scenario reaches it', () => {
    const wf = workflowOf(p) as any;
    expect(wf.spec.activeDeadlineSeconds).toBe(p.steps.reduce((n, s) => n + s.waitMinutes * 60, 0) + 3600);
    const r = run(p, { train: {} });
    expect(r.endedAt!).toBeLessThan(wf.spec.activeDeadlineSeconds);
  });

  test('the engine\'s controller down for 2 hours while train ends: the run goes on when it is back, nothing created twice', () => {
    const trainStart = run(p).creates[1].at;
    const end = trainStart + trainSeconds(p);
    const r = run(p, {}, [{ kind: 'controller-down', from: end - H, to: end + H }]);
    expect(r.phase).toBe('Succeeded');
    expectOrderedSingleCreates(p, r);
    const toHf = r.creates.find((c) => c.name === stepName(p, 'to-hf').jobSetName)!;
    expect(toHf.at).toBeGreaterThanOrEqual(end + H);
    expect(toHf.at).toBeLessThanOrEqual(end + H + 2 * STATE_CHECK_SECONDS);
  });
});

/** Every recipe on flex-start slices (7-day nodes: every attempt fits one slice's life). */
const FLEX_PIPELINES: Pipeline[] = Object.values(RECIPES).map((r) =>
  buildPipeline(r, testPlatform({ capacity: { type: 'flex-start', maxRunDurationSeconds: 7 * 86400 } }), { runId: 'r1', conversionOn: 'cpu' }),
);

describe.each(FLEX_PIPELINES.map((p) => [p.name, p] as const))('%s on flex-start: the lost-host watcher (jobs/lost-host.ts)', (_n, p) => {
  const train = () => stepName(p, 'train');

  test('only the TPU steps have a watch task, started with the wait and ended within a poll of the JobSet', () => {
    const r = run(p);
    expect(r.phase).toBe('Succeeded');
    for (const s of p.steps) expect(r.nodes[stepTasks(s.name).watch] !== undefined).toBe(s.runsOn === 'tpu');
    const watch = r.nodes['train-watch'];
    expect(watch.attempts).toHaveLength(1);
    expect(watch.attempts[0].start).toBe(r.nodes['train-wait'].attempts[0].start);
    expect(watch.attempts[0].end! - r.nodes['train-wait'].attempts[0].end!).toBeLessThanOrEqual(STATE_CHECK_SECONDS);
  });

  test('node loss: after LOST_HOST.minutes without a node the slice is re-requested once (a fresh request), the step completes on the new slice', () => {
    const lostAfter = Math.floor(trainSeconds(p) / 2 / 30) * 30;
    const r = run(p, { train: { endsAfter: trainSeconds(p), ends: 'Completed', hostLostAfter: lostAfter } });
    expect(r.phase).toBe('Succeeded');
    expectOrderedSingleCreates(p, r);
    const js = r.jobSets.get(train().jobSetName)!;
    expect(js.requests).toHaveLength(1);
    const lostAt = js.createdAt + lostAfter;
    expect(js.requests![0] - lostAt).toBeGreaterThanOrEqual(LOST_HOST.minutes * 60);
    expect(js.requests![0] - lostAt).toBeLessThanOrEqual(LOST_HOST.minutes * 60 + STATE_CHECK_SECONDS);
    expect(r.nodes['train-watch'].attempts.map((a) => a.phase)).toEqual(['Succeeded']);
  });

  test('a slice that keeps losing hosts: re-requests stop at the restart budget, the JobSet is deleted, the Workflow ends Failed with the budget message', () => {
    const r = run(p, { train: { endsAfter: trainSeconds(p), ends: 'Completed', hostLostAfter: Math.floor(trainSeconds(p) / 4 / 30) * 30, everySliceLosesHost: true } });
    expect(r.phase).toBe('Failed');
    const js = r.jobSets.get(train().jobSetName)!;
    // Each loss restarted the JobSet once; restarts + re-requests never passed maxRestarts.
    expect(1 + 2 * js.requests!.length).toBeLessThanOrEqual(train().maxRestarts + 1);
    expect(js.requests!.length).toBeGreaterThan(0);
    expect(r.nodes['train-watch'].attempts).toHaveLength(1);
    expect(r.nodes['train-watch'].message).toContain(LOST_HOST_BUDGET_MESSAGE);
    expect(r.nodes['train-wait'].message).toContain('has been deleted while its status');
    expect(r.creates.map((c) => c.name)).not.toContain(stepName(p, 'to-hf').jobSetName);
  });

  test('the watch pod lost mid-training: a retry watches the same JobSet; nothing is re-requested', () => {
    const r = run(p, {}, [{ kind: 'pod-deleted', task: 'train-watch', at: 3 * H }]);
    expect(r.phase).toBe('Succeeded');
    expect(r.nodes['train-watch'].attempts.map((a) => a.phase)).toEqual(['Error', 'Succeeded']);
    expect(r.jobSets.get(train().jobSetName)!.requests).toBeUndefined();
  });
});

describe('a reservation outage spends nothing', () => {
  test.each(PIPELINES.map((p) => [p.name, p] as const))('%s: no watch task; a 3-hour recovery is the JobSet\'s own, no re-request, no Kueue requeue', (_n, p) => {
    const wf = workflowOf(p) as any;
    expect(wf.spec.templates.filter((t: any) => t.script)).toEqual([]);
    const r = run(p, { train: { endsAfter: trainSeconds(p) + 3 * H, ends: 'Completed', restarts: 1 } });
    expect(r.phase).toBe('Succeeded');
    expect(r.jobSets.get(stepName(p, 'train').jobSetName)!.requests).toBeUndefined();
  });

  test('Kueue keeps no recovery timeout (waitForPodsReady.recoveryTimeout 0s, manager-wide): a recovery never spends a requeue', () => {
    expect((kueueManagerConfig() as any).waitForPodsReady.recoveryTimeout).toBe('0s');
  });
});

describe('re-deploys and migration (rl-qwen3)', () => {
  const p = PIPELINES[0];

  test('a changed spec: the old Workflow is deleted first (its JobSets with it), the new one creates every step anew', () => {
    const first = run(p, {}, [], { horizon: 10 * H, uid: 'old' });
    expect(first.phase).toBe('Running');
    const live = new Map(first.jobSets);
    deleteWorkflow(live, 'old', 10 * H);
    const existing = [...live.values()].filter((j) => j.deletedAt === undefined).map((j) => ({ name: j.name, ageSeconds: 0 }));
    expect(existing).toEqual([]);
    const second = run(p, {}, [], { uid: 'new' });
    expect(second.phase).toBe('Succeeded');
    expect(second.creates.map((c) => c.name)).toEqual(p.steps.map((s) => s.jobSetName));
  });

  test('migrated from the per-step waits: finished steps pass at once, the training one is watched, none is created again', () => {
    const [toMaxtext, train] = p.steps;
    const r = run(p, { train: { endsAfter: 30 * H, ends: 'Completed' } }, [], {
      existing: [
        { name: toMaxtext.jobSetName, ageSeconds: 20 * H },
        { name: train.jobSetName, ageSeconds: 19 * H },
      ],
    });
    expect(r.phase).toBe('Succeeded');
    expect(r.creates.map((c) => c.name)).toEqual(p.steps.slice(2).map((s) => s.jobSetName));
    expect(r.nodes['to-maxtext'].phase).toBe('Failed');
    expect(r.nodes['to-maxtext'].message).toContain('AlreadyExists');
    expect(r.nodes['to-maxtext-wait'].phase).toBe('Succeeded');
    // train had 11 hours left
    expect(r.creates[0].at).toBeGreaterThanOrEqual(11 * H);
    expect(r.creates[0].at).toBeLessThanOrEqual(11 * H + 2 * STATE_CHECK_SECONDS);
  });

  test('deploy interrupted: either no Workflow (nothing runs) or the Workflow as deployed; there is no other cluster change to model', () => {
    // The stack's only run-time object is the Workflow, created in one API call with no wait (constructs/pipeline-workflow.ts).
    const wf = workflowOf(p);
    expect((wf.spec as any).templates.filter((t: any) => t.resource).every((t: any) => ['create', 'get'].includes(t.resource.action))).toBe(true);
  });
});

describe('the model tells the designs apart', () => {
  /** JobSet's own Argo example: one create task per step that also waits (conditions on the create), no retry. */
  function naive(p: Pipeline, retry?: Record<string, unknown>) {
    const wf = JSON.parse(JSON.stringify(workflowOf(p)));
    const dag = wf.spec.templates[0].dag;
    dag.tasks = dag.tasks.filter((t: any) => !t.name.endsWith('-wait')).map((t: any) => ({ ...t, depends: t.depends?.replace(/-wait$/, '') }));
    for (const t of wf.spec.templates.filter((x: any) => x.resource?.action === 'create')) {
      Object.assign(t.resource, { successCondition: 'status.terminalState == Completed', failureCondition: 'status.terminalState == Failed' });
      if (retry) t.retryStrategy = retry;
      else delete t.retryStrategy;
    }
    return wf;
  }
  const p = PIPELINES[0];
  const lost: Fault[] = [{ kind: 'pod-deleted', task: 'train', at: 5 * H }];

  test('one create-and-wait task: a lost pod ends the Workflow Error while the JobSet trains on (argoproj/argo-workflows#15641)', () => {
    const r = runWorkflow({ workflow: naive(p), scripts: scripts(p), faults: lost, pollSeconds: STATE_CHECK_SECONDS });
    expect(r.phase).toBe('Error');
    expect(r.jobSets.get(stepName(p, 'train').jobSetName)!.deletedAt).toBeUndefined();
  });

  test('the same with retries: the retry fails AlreadyExists at once and the run is lost just the same', () => {
    const r = runWorkflow({ workflow: naive(p, { limit: 3, retryPolicy: 'Always' }), scripts: scripts(p), faults: lost, pollSeconds: STATE_CHECK_SECONDS });
    expect(r.phase).toBe('Failed');
    expect(r.nodes.train.attempts.at(-1)!.message).toContain('AlreadyExists');
  });

  test('the shipped design under the same fault succeeds', () => {
    expect(run(p, {}, [{ kind: 'pod-deleted', task: 'train-wait', at: 5 * H }]).phase).toBe('Succeeded');
  });
});

describe('a refused JobSet create (JobSet or Kueue webhook restarting): argoexec exits 64, the node is Failed', () => {
  const p = PIPELINES.find((x) => x.name === 'rl-qwen3' && x.steps[0].runsOn === 'cpu')!;
  const trainCreateAt = () => run(p).creates[1].at;
  /** The shipped Workflow with the create tasks' retry strategy before this version. */
  const before = () => {
    const wf = JSON.parse(JSON.stringify(workflowOf(p)));
    for (const t of wf.spec.templates) if (t.resource?.action === 'create') t.retryStrategy = { limit: 3, retryPolicy: 'OnError', backoff: { duration: '10s', factor: 2 } };
    return wf;
  };

  test.each(PIPELINES.map((x) => [`${x.name} (${x.steps[0].runsOn} conversions)`, x] as const))('%s: a webhook down for 3 minutes as train is created: the create is retried with backoff, train created once, the run Succeeds', (_l, x) => {
    const at = run(x).creates[1].at;
    const r = run(x, {}, [{ kind: 'webhook-down', from: at, to: at + 180 }]);
    expect(r.phase).toBe('Succeeded');
    expectOrderedSingleCreates(x, r);
    const attempts = r.nodes.train.attempts;
    expect(attempts.at(-1)!.phase).toBe('Succeeded');
    expect(attempts.slice(0, -1).map((a) => a.phase).every((ph) => ph === 'Failed')).toBe(true);
    expect(attempts[0].message).toBe(`main: Error (exit code 64): ${webhookRefusal(stepName(x, 'train').jobSetName)}`);
    expect(r.creates.find((c) => c.name === stepName(x, 'train').jobSetName)!.at).toBeGreaterThanOrEqual(at + 180);
  });

  test('before this version (retryPolicy OnError): the same 3 minutes lost the run, and the wait blamed NotFound', () => {
    const at = trainCreateAt();
    const r = runWorkflow({ workflow: before(), scripts: scripts(p), faults: [{ kind: 'webhook-down', from: at, to: at + 180 }], pollSeconds: STATE_CHECK_SECONDS });
    expect(r.phase).toBe('Failed');
    expect(r.nodes.train.attempts.length).toBe(1);
    expect(r.nodes['train-wait'].message).toContain('(NotFound)');
    expect(r.creates.map((c) => c.name)).toEqual([stepName(p, 'to-maxtext').jobSetName]);
  });

  test('a webhook that stays down: bounded (at most CREATE_RETRY_LIMIT retries within 15 minutes), the run Fails, train never created', () => {
    const at = trainCreateAt();
    const r = run(p, {}, [{ kind: 'webhook-down', from: at, to: at + 2 * H }]);
    expect(r.phase).toBe('Failed');
    const attempts = r.nodes.train.attempts;
    expect(attempts.length).toBeLessThanOrEqual(CREATE_RETRY_LIMIT + 1);
    expect(attempts.at(-1)!.start - attempts[0].start).toBeLessThanOrEqual(15 * 60);
    expect(r.nodes.train.phase).toBe('Failed');
    expect(r.nodes.train.message).toMatch(/failed calling webhook|Backoff would exceed|No more retries/);
    expect(r.endedAt! - at).toBeLessThan(20 * 60);
    expect(r.creates.map((c) => c.name)).toEqual([stepName(p, 'to-maxtext').jobSetName]);
  });

  test.each(PIPELINES.map((x) => [`${x.name} (${x.steps[0].runsOn} conversions)`, x] as const))("%s: past the retries (webhook down 2 hours), npm run retry (Argo's retry) resumes from train: no finished step re-run, the run Succeeds", (_l, x) => {
    const at = run(x).creates[1].at;
    const failed = run(x, {}, [{ kind: 'webhook-down', from: at, to: at + 2 * H }]);
    expect(failed.phase).toBe('Failed');
    const kept = retryWorkflow(workflowOf(x), failed);
    // Argo keeps the finished conversion's create and wait; train's create and wait (and the omitted rest) go.
    expect(Object.keys(kept).sort()).toEqual(['to-maxtext', 'to-maxtext-wait']);
    const resumed = runWorkflow({ workflow: workflowOf(x), scripts: scripts(x), pollSeconds: STATE_CHECK_SECONDS, resume: { nodes: kept, jobSets: failed.jobSets, creates: failed.creates, at: at + 2 * H + 600 } });
    expect(resumed.phase).toBe('Succeeded');
    expectOrderedSingleCreates(x, resumed);
    expect(resumed.creates.map((c) => c.name)).toEqual(x.steps.map((st) => st.jobSetName));
    expect(resumed.creates[0].at).toBe(failed.creates[0].at); // to-maxtext: the first run's, never created again
    // A new run id instead would start from scratch: every JobSet name changes, so to-maxtext (and a finished train) runs again.
  });

  test('a retry of a run whose JobSet failed reads the same failed JobSet again: Argo\'s retry resumes engine failures, not a failed step', () => {
    const failed = run(p, { train: { endsAfter: 600, ends: 'Failed' } });
    expect(failed.phase).toBe('Failed');
    const kept = retryWorkflow(workflowOf(p), failed);
    expect(Object.keys(kept).sort()).toEqual(['to-maxtext', 'to-maxtext-wait', 'train']);
    const again = runWorkflow({ workflow: workflowOf(p), scripts: scripts(p, { train: { endsAfter: 600, ends: 'Failed' } }), pollSeconds: STATE_CHECK_SECONDS, resume: { nodes: kept, jobSets: failed.jobSets, creates: failed.creates, at: failed.endedAt! + 60 } });
    expect(again.phase).toBe('Failed');
    expect(again.creates).toEqual(failed.creates);
    expect(() => retryWorkflow(workflowOf(p), run(p))).toThrow('Cannot retry a workflow in phase Succeeded');
  });

  test('the create retry expression: final on AlreadyExists and on a refusal of the object itself, retried otherwise', () => {
    const create = (workflowOf(p) as any).spec.templates.find((t: any) => t.resource?.action === 'create');
    expect(create.retryStrategy).toEqual({
      limit: CREATE_RETRY_LIMIT,
      retryPolicy: 'Always',
      expression: FINAL_CREATE_MESSAGES.map((m) => `!(lastRetry.message contains ${JSON.stringify(m)})`).join(' && '),
      backoff: { duration: '10s', factor: 2, cap: '2m', maxDuration: '15m' },
    });
    const e = create.retryStrategy.expression;
    expect(evalExpression(e, `main: Error (exit code 64): ${webhookRefusal('x')}`)).toBe(true);
    expect(evalExpression(e, 'pod deleted')).toBe(true);
    expect(evalExpression(e, 'main: Error (exit code 64): no more retries Error from server (AlreadyExists): jobsets.jobset.x-k8s.io "x" already exists')).toBe(false);
    expect(evalExpression(e, 'main: Error (exit code 64): no more retries Error from server (Forbidden): error when creating "/tmp/manifest.yaml": admission webhook "vjobset.kb.io" denied the request: x')).toBe(false);
    expect(evalExpression(e, 'main: Error (exit code 64): no more retries The JobSet "x" is invalid: spec: Invalid value')).toBe(true);
    expect(evalExpression(e, 'main: Error (exit code 64): no more retries Error from server (Invalid): x')).toBe(false);
  });
});

describe('the rules the model applies, at their boundaries', () => {
  test('conditions: failure before success; a missing terminalState polls; != on a missing key would be true', () => {
    expect(matchConditions({ status: {} }, 'status.terminalState == Completed', 'status.terminalState == Failed').verdict).toBe('poll');
    expect(matchConditions({ status: { terminalState: 'Failed' } }, 'status.terminalState == Completed', 'status.terminalState == Failed').verdict).toBe('failed');
    expect(matchConditions({ status: { terminalState: 'Completed' } }, 'status.terminalState == Completed', 'status.terminalState == Failed').verdict).toBe('succeeded');
    // Why the failure condition is never written as `!= Completed`: true while the field is absent.
    expect(matchConditions({ status: {} }, '', 'status.terminalState != Completed').verdict).toBe('failed');
  });

  test('the retry expression stops on every final message and only on those', () => {
    const expr = (workflowOf(PIPELINES[0]).spec as any).templates.find((t: any) => t.name === 'train-wait').retryStrategy.expression;
    for (const m of FINAL_WAIT_MESSAGES) expect(evalExpression(expr, `main: Error (exit code 64): ... ${m} ...`)).toBe(false);
    expect(evalExpression(expr, 'pod deleted')).toBe(true);
    expect(evalExpression(expr, 'The node was low on resource: memory.')).toBe(true);
  });

  test('Kueue deletes a deactivated JobSet after DEACTIVATED_RETENTION_MINUTES (objectRetentionPolicies)', () => {
    expect(kueueManagerConfig().objectRetentionPolicies).toEqual({ workloads: { afterDeactivatedByKueue: `${DEACTIVATED_RETENTION_MINUTES}m` } });
  });
});

describe("a rehearsal's exit handler writes its verdict record (jobs/rehearsal-record.ts), whatever the run did", () => {
  const { spawnSync } = require('child_process') as typeof import('child_process');
  const fs = require('fs') as typeof import('fs');
  const os = require('os') as typeof import('os');
  const path = require('path') as typeof import('path');
  const { loadDeployment } = require('../../config/deployment') as typeof import('../../config/deployment');
  const { rehearsalRecordFromJson } = require('../../jobs/rehearsal-record') as typeof import('../../jobs/rehearsal-record');
  const { runExitHandler, workflowFailures } = require('./argo') as typeof import('./argo');
  const rehearsal = loadDeployment({ env: { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation', REHEARSE: 'rl-qwen3' } }).pipelines.find((x) => x.name === 'rehearse-rl-qwen3')!;
  const wf = workflowOf(rehearsal) as any;

  /** Runs the created writer's container (bash -c <script>, its env) with a stand-in gcsfs that writes under a folder; the record read back. */
  function written(created: any): { record: ReturnType<typeof rehearsalRecordFromJson>; path: string; stdout: string } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-verdict-'));
    fs.writeFileSync(
      path.join(dir, 'gcsfs.py'),
      ['import os', 'class GCSFileSystem:', '    def pipe(self, p, data):', '        f = os.path.join(os.environ["FAKE_GCS"], p.replace("gs://", ""))', '        os.makedirs(os.path.dirname(f), exist_ok=True)', '        open(f, "wb").write(data)'].join('\n'),
    );
    const c = created.spec.replicatedJobs[0].template.spec.template.spec.containers[0];
    const env = Object.fromEntries(c.env.filter((e: any) => typeof e.value === 'string').map((e: any) => [e.name, e.value]));
    const r = spawnSync(c.command[0], c.command.slice(1), { env: { PATH: process.env.PATH, HOME: dir, PYTHONPATH: dir, FAKE_GCS: path.join(dir, 'gcs'), ...env }, encoding: 'utf8' });
    expect(r.stderr).not.toContain('Traceback');
    expect(r.status).toBe(0);
    const file = path.join(dir, 'gcs', rehearsal.verdictWriter!.recordPath.replace('gs://', ''));
    const text = fs.readFileSync(file, 'utf8');
    fs.rmSync(dir, { recursive: true, force: true });
    return { record: rehearsalRecordFromJson(text, rehearsal.rehearsal!), path: file, stdout: r.stdout };
  }

  const runRehearsal = (over: Partial<Record<string, JobSetScript>> = {}, faults: Fault[] = [], extra: Partial<Parameters<typeof runWorkflow>[0]> = {}) =>
    runWorkflow({ workflow: wf, scripts: scripts(rehearsal, over), faults, pollSeconds: STATE_CHECK_SECONDS, ...extra });

  test('the Workflow names the exit handler; its one create is the verdict writer, tolerated when it fails', () => {
    expect(wf.spec.onExit).toBe('rehearsal-verdict');
    const handler = wf.spec.templates.find((t: any) => t.name === 'rehearsal-verdict');
    expect(handler.dag.tasks).toEqual([{ name: 'write', template: 'rehearsal-verdict-create', continueOn: { failed: true, error: true } }]);
    // The entry DAG does not run it: the steps stay the four.
    expect(wf.spec.templates.find((t: any) => t.name === 'pipeline').dag.tasks.map((t: any) => t.template)).not.toContain('rehearsal-verdict-create');
    expect(pipelineWorkflow(PIPELINES[0]!, { systemPool: 'system' }).spec).not.toHaveProperty('onExit');
  });

  test('every step completes: Succeeded, the record says passed with every step, the facts and images by tag', () => {
    const r = runRehearsal();
    expect(r.phase).toBe('Succeeded');
    const exit = runExitHandler(wf, r);
    expect(exit).toMatchObject({ exitPhase: 'Succeeded', phase: 'Succeeded' });
    const { record } = written(exit.created[0]!.manifest);
    expect(record).toMatchObject({ version: 1, verdict: 'passed', workflowStatus: 'Succeeded', passed: ['to-maxtext', 'train', 'to-hf', 'eval'], key: rehearsal.rehearsal!.key, imagesPinnedBy: 'tag' });
    expect(record!.firstFailure).toBeUndefined();
    expect(record!.images).toEqual(rehearsal.rehearsal!.images);
  });

  test('train fails: Failed; the record names train as the first failure with the wait\'s message, to-maxtext passed', () => {
    const r = runRehearsal({ train: { endsAfter: 600, ends: 'Failed' } });
    expect(r.phase).toBe('Failed');
    const exit = runExitHandler(wf, r);
    expect(exit.phase).toBe('Failed');
    const { record } = written(exit.created[0]!.manifest);
    expect(record).toMatchObject({ verdict: 'failed', workflowStatus: 'Failed', passed: ['to-maxtext'] });
    // Run outside a cluster here: no lines, and the record says why (the log reading is __tests__/models/verdict-log.test.ts).
    expect(record!.firstFailure).toEqual({
      step: 'train',
      reason: expect.stringContaining("failure condition 'status.terminalState == Failed' evaluated true"),
      lines: [],
      linesMissing: 'not run in a cluster (no KUBERNETES_SERVICE_HOST)',
    });
  });

  test('a lost wait pod retried (a failed retry child) and a create that found its JobSet (AlreadyExists): still passed', () => {
    const first = rehearsal.steps[0]!.jobSetName;
    const r = runRehearsal({}, [{ kind: 'pod-deleted', task: 'train-wait', at: 2700 }], { existing: [{ name: first, ageSeconds: 60 }] });
    expect(r.phase).toBe('Succeeded');
    const failed = workflowFailures(wf, r).map((f) => f.displayName);
    expect(failed).toEqual(expect.arrayContaining(['to-maxtext', 'train-wait(0)']));
    expect(written(runExitHandler(wf, r).created[0]!.manifest).record).toMatchObject({ verdict: 'passed', passed: ['to-maxtext', 'train', 'to-hf', 'eval'] });
  });

  test('an AlreadyExists create before a later failure does not hide it: the first failed wait decides (eval)', () => {
    const first = rehearsal.steps[0]!.jobSetName;
    const r = runRehearsal({ eval: { endsAfter: 300, ends: 'Failed' } }, [], { existing: [{ name: first, ageSeconds: 60 }] });
    expect(r.phase).toBe('Failed');
    const { record } = written(runExitHandler(wf, r).created[0]!.manifest);
    expect(record).toMatchObject({ verdict: 'failed', passed: ['to-maxtext', 'train', 'to-hf'], firstFailure: { step: 'eval' } });
  });

  test('writing the verdict never changes the outcome: a failed create leaves a Succeeded run Succeeded; without continueOn it would not', () => {
    const r = runRehearsal();
    expect(runExitHandler(wf, r, { createFails: true })).toMatchObject({ exitPhase: 'Succeeded', phase: 'Succeeded', created: [] });
    const bare = JSON.parse(JSON.stringify(wf));
    delete bare.spec.templates.find((t: any) => t.name === 'rehearsal-verdict').dag.tasks[0].continueOn;
    expect(runExitHandler(bare, r, { createFails: true })).toMatchObject({ exitPhase: 'Failed', phase: 'Failed' });
  });

  test('the failures travel base64-encoded: a message with quotes and newlines reaches the record intact', () => {
    const r = runRehearsal({ 'to-hf': { endsAfter: 300, ends: 'Failed' } });
    const n = r.nodes['to-hf-wait'];
    n.message = 'main: Error: "quoted" and\nnewline \\ backslash';
    const created = runExitHandler(wf, r).created[0]!.manifest;
    expect(written(created).record!.firstFailure!.reason).toContain('main: Error: "quoted" and\nnewline \\ backslash');
  });
});
