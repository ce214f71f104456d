/**
 * The step state's rules (status/model.ts STEP_RULES), each on its own, in process: what each decides, what it leaves
 * to the next, and the lines a queued or pending step adds (how long it waited, how long the deploy still waits) and
 * the image advice per container. JobSet v0.12.0 and Kueue v0.19.2 behaviour as cited in status/model.ts.
 */
import { deactivatedWorkload, emptyWorld, event, iso, kueueDeactivationMessage, jobSet, pipeline, platform, pod, record, rlLine, running, step, workload } from '../../bench/fake-kube-api';
import {
  completedRule,
  deactivatedRule,
  deactivationOf,
  failedRule,
  imageAdvice,
  jobSetEnd,
  notCreatedRule,
  notRunningRule,
  podProblemRule,
  podsReadyTimeoutRule,
  queuedRule,
  admissionCheckRule,
  quotaHolders,
  runningRule,
  STEP_RULES,
  stepFacts,
  stepStatus,
  suspendedRule,
  waitLines,
} from '../../status/model';

const NOW = Date.parse(iso(60));
const ctx = { clusterQueue: platform.clusterQueue, now: NOW };
const qwen = pipeline('rl-qwen3');
const qwenRecord = record('rl-qwen3');
const TRAIN = 1;
const completed = { terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done' }] };
const failed = { terminalState: 'Failed', conditions: [{ type: 'Failed', status: 'True', reason: 'FailJobSetFailurePolicyAction', message: 'applying FailJobSet failure policy action' }] };

function facts(world = emptyWorld(), index = TRAIN, logs = new Map<string, string>()) {
  return stepFacts(qwenRecord, index, world, logs, ctx);
}

test('jobSetEnd: terminalState or the Completed/Failed condition; undefined while running', () => {
  expect(jobSetEnd({ metadata: {}, status: { terminalState: 'Completed' } })).toBe('Completed');
  expect(jobSetEnd({ metadata: {}, status: { conditions: [{ type: 'Completed', status: 'True' }] } })).toBe('Completed');
  expect(jobSetEnd({ metadata: {}, status: { terminalState: 'Failed' } })).toBe('Failed');
  expect(jobSetEnd({ metadata: {}, status: { conditions: [{ type: 'Failed', status: 'True' }] } })).toBe('Failed');
  expect(jobSetEnd({ metadata: {}, status: { conditions: [{ type: 'Failed', status: 'False' }, { type: 'Suspended', status: 'True' }] } })).toBeUndefined();
  expect(jobSetEnd({ metadata: {} })).toBeUndefined();
});

describe('notCreatedRule', () => {
  test('nothing deployed: the deploy command', () => {
    expect(notCreatedRule(facts())).toEqual({ state: 'not-created', message: 'not deployed: npm run deploy -- rl-qwen3', details: [] });
  });
  test('the previous step exists: starts when it completed; failed: will not start', () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(qwen, 'to-maxtext')));
    expect(notCreatedRule(facts(w))).toMatchObject({ message: 'starts when to-maxtext completed' });
    const f = emptyWorld();
    f.jobSets.push(jobSet(step(qwen, 'to-maxtext'), failed));
    expect(notCreatedRule(facts(f))).toMatchObject({ message: 'will not start: to-maxtext failed' });
  });
  test('after train failed, eval (two steps on) will not start either: not "starts when to-hf completed"', () => {
    const f = emptyWorld();
    f.jobSets.push(jobSet(step(qwen, 'to-maxtext'), completed), jobSet(step(qwen, 'train'), failed));
    expect(notCreatedRule(facts(f, 2))).toMatchObject({ message: 'will not start: train failed' });
    expect(notCreatedRule(facts(f, 3))).toMatchObject({ message: 'will not start: train failed' });
  });
  const workflow = (status?: Record<string, unknown>) => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'rl-qwen3-r1-0123456789', namespace: 'default', labels: { 'tpu-post-training/pipeline': 'rl-qwen3' }, creationTimestamp: iso(0) },
    ...(status ? { status } : {}),
  });
  test('the Workflow exists but no controller wrote its status: the engine has not picked it up (not "not deployed")', () => {
    const w = { ...emptyWorld(), workflows: [workflow()] } as never;
    const v = notCreatedRule(facts(w, 0))!;
    expect(v.state).toBe('not-created');
    expect(v.message).toMatch(/^Workflow rl-qwen3-r1-0123456789 is deployed, but the workflow engine has not picked it up: is its controller running\?/);
    expect(v.message).not.toContain('not deployed');
  });
  test("the engine's create refused past its retries: the step failed (with the refusal), the later ones will not start, nobody blames NotFound", () => {
    const refusal = 'main: Error (exit code 64): no more retries Error from server (InternalError): Internal error occurred: failed calling webhook "mjobset.kb.io"';
    const node = (displayName: string, phase: string, message?: string) => ({ displayName, phase, type: 'Pod', ...(message ? { message } : {}) });
    const w = { ...emptyWorld(), workflows: [workflow({ phase: 'Failed', nodes: {
      a: node('to-maxtext', 'Succeeded'), b: node('to-maxtext-wait', 'Succeeded'),
      c: node('train', 'Failed', refusal), d: node('train-wait', 'Failed', 'main: Error (exit code 64): no more retries Error from server (NotFound): not found'),
    } })] } as never;
    (w as any).jobSets.push(jobSet(step(qwen, 'to-maxtext'), completed));
    expect(notCreatedRule(facts(w, 1))).toEqual({ state: 'failed', message: `the engine's create of its JobSet was refused: ${refusal}`, details: [] });
    expect(notCreatedRule(facts(w, 2))).toMatchObject({ state: 'not-created', message: 'will not start: train failed' });
  });
  test('a JobSet exists: not this rule', () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(qwen, 'train')));
    expect(notCreatedRule(facts(w))).toBeUndefined();
  });
});

test('completedRule: the output from the record and a training step at its full total', () => {
  const w = emptyWorld();
  w.jobSets.push(jobSet(step(qwen, 'train'), completed));
  const total = qwenRecord.steps[TRAIN]!.totalSteps!;
  expect(completedRule(facts(w))).toEqual({ state: 'completed', message: `output: ${qwenRecord.steps[TRAIN]!.output}`, progress: { step: total, total }, details: [] });
  expect(failedRule(facts(w))).toBeUndefined();
});

test('failedRule: the Failed condition and the last lines of the main container', () => {
  const w = emptyWorld();
  const js = jobSet(step(qwen, 'train'), failed);
  w.jobSets.push(js);
  const head = pod(js, 'pathways-head', { phase: 'Failed' });
  w.pods.push(head);
  const verdict = failedRule(facts(w, TRAIN, new Map([[head.metadata.name, `${iso(30)} Traceback\n${iso(30)} ValueError: bad`]])));
  expect(verdict).toMatchObject({ state: 'failed', reason: 'FailJobSetFailurePolicyAction', message: 'applying FailJobSet failure policy action' });
  expect(verdict!.details).toEqual([`last lines of ${head.metadata.name}/workload-container:`, '  Traceback', '  ValueError: bad']);
  expect(completedRule(facts(w))).toBeUndefined();
});

describe('Kueue rules', () => {
  function withWorkload(conditions: object[], extra: object = {}) {
    const w = emptyWorld();
    const js = jobSet(step(qwen, 'train'));
    const wl = workload(js, false);
    wl.status = { conditions, ...extra };
    w.jobSets.push(js);
    w.workloads.push(wl);
    return { w, wl };
  }
  test('deactivatedRule: spec.active false is failed with the patch command', () => {
    const { w, wl } = withWorkload([]);
    wl.spec.active = false;
    expect(deactivatedRule(facts(w))).toMatchObject({ state: 'failed', reason: 'Deactivated' });
    expect(deactivatedRule(facts(w))!.message).toContain(`kubectl patch workload -n default ${wl.metadata.name} --type=merge -p '{"spec":{"active":true}}'`);
    wl.spec.active = true;
    expect(deactivatedRule(facts(w))).toBeUndefined();
  });
  describe('deactivatedRule tells each of Kueue v0.19.2 deactivation reasons apart, evicted or still a DeactivationTarget', () => {
    function deactivated(cause: string | undefined, stage: 'evicted' | 'target' = 'evicted', spec = {}) {
      const w = emptyWorld();
      const js = jobSet(step(qwen, 'train'));
      w.jobSets.push(js);
      w.workloads.push(deactivatedWorkload(js, cause, stage, spec));
      return deactivatedRule(facts(w))!;
    }
    test.each(['evicted', 'target'] as const)('RequeuingLimitExceeded (%s): the pods never became ready, 4 times; kubectl describe pod', (stage) => {
      const v = deactivated('RequeuingLimitExceeded', stage);
      expect(v).toMatchObject({ state: 'failed', reason: 'RequeuingLimitExceeded' });
      expect(v.message).toMatch(/deactivated: its pods never became ready within 20m, 4 times \(Kueue's requeuing limit, 3 requeues\); fix the cause shown by kubectl describe pod, then kubectl patch workload/);
    });
    test.each(['evicted', 'target'] as const)("AdmissionCheck (%s): the check's message, the ProvisioningRequests, no pod advice", (stage) => {
      const v = deactivated('AdmissionCheck', stage);
      expect(v).toMatchObject({ state: 'failed', reason: 'AdmissionCheck' });
      expect(v.message).toContain(`an admission check rejected it: ${kueueDeactivationMessage('AdmissionCheck')};`);
      expect(v.message).toContain('Capacity was revoked by the cloud provider');
      expect(v.message).toContain('kubectl describe provisioningrequests -n default');
      expect(v.message).not.toContain('never became ready');
      expect(v.message).not.toContain('describe pod ');
    });
    test.each(['evicted', 'target'] as const)('MaximumExecutionTimeExceeded (%s): the limit and the label that set it', (stage) => {
      const v = deactivated('MaximumExecutionTimeExceeded', stage, { maximumExecutionTimeSeconds: 7200 });
      expect(v).toMatchObject({ state: 'failed', reason: 'MaximumExecutionTimeExceeded' });
      expect(v.message).toContain("ran past its maximum execution time (7200s, the JobSet's kueue.x-k8s.io/max-exec-time-seconds label");
      expect(v.message).not.toContain('never became ready');
      expect(deactivated('MaximumExecutionTimeExceeded').message).toContain("maximum execution time (the JobSet's kueue.x-k8s.io/max-exec-time-seconds");
    });
    test('by hand (Evicted reason Deactivated) or a reason this model does not know: Kueue reason and message, no guessed cause', () => {
      const v = deactivated(undefined);
      expect(v).toMatchObject({ state: 'failed', reason: 'Deactivated' });
      expect(v.message).toMatch(/deactivated \(Deactivated\): not by one of Kueue's limits/);
      const { w, wl } = withWorkload([{ type: 'Evicted', status: 'True', reason: 'DeactivatedDueToSomethingNew', message: 'The workload is deactivated due to a new rule' }]);
      wl.spec.active = false;
      expect(deactivatedRule(facts(w))).toMatchObject({ reason: 'DeactivatedDueToSomethingNew' });
      expect(deactivatedRule(facts(w))!.message).toContain('(DeactivatedDueToSomethingNew: a new rule)');
    });
    test('deactivationOf: an Evicted condition of another reason (a PodsReadyTimeout before) is not the cause; the target is', () => {
      const js = jobSet(step(qwen, 'train'));
      const wl = deactivatedWorkload(js, 'AdmissionCheck', 'target');
      wl.status.conditions.push({ type: 'Evicted', status: 'True', reason: 'PodsReadyTimeout', message: 'x' });
      expect(deactivationOf(wl)).toEqual({ cause: 'AdmissionCheck', reason: 'AdmissionCheck', detail: kueueDeactivationMessage('AdmissionCheck') });
      expect(deactivationOf({ ...wl, spec: { active: true } })).toBeUndefined();
    });
  });
  test('podsReadyTimeoutRule: evicted for PodsReadyTimeout, requeued k of 3, with the wait lines', () => {
    const { w } = withWorkload([{ type: 'Evicted', status: 'True', reason: 'PodsReadyTimeout', message: 'x' }], { requeueState: { count: 2 } });
    const v = podsReadyTimeoutRule(facts(w));
    expect(v).toMatchObject({ state: 'queued', reason: 'PodsReadyTimeout' });
    expect(v!.message).toContain('requeued 2 of 3');
    expect(v!.details).toEqual(waitLines(facts(w)));
    const other = withWorkload([{ type: 'Evicted', status: 'True', reason: 'Preempted', message: 'x' }]);
    expect(podsReadyTimeoutRule(facts(other.w))).toBeUndefined();
  });
  test("queuedRule: Kueue's message; admitted workloads are not queued", () => {
    const { w, wl } = withWorkload([{ type: 'QuotaReserved', status: 'False', reason: 'Pending', message: 'insufficient quota' }]);
    expect(queuedRule(facts(w))).toMatchObject({ state: 'queued', reason: 'Pending', message: `workload ${wl.metadata.name}: insufficient quota` });
    const admitted = emptyWorld();
    const js = jobSet(step(qwen, 'train'));
    admitted.jobSets.push(js);
    admitted.workloads.push(workload(js, true, { chips: 32 }));
    expect(queuedRule(facts(admitted))).toBeUndefined();
  });
  test('admissionCheckRule: quota reserved, a check not Ready: waiting for GKE to provision the slice, with the check and its message', () => {
    const reserved = { type: 'QuotaReserved', status: 'True', reason: 'QuotaReserved', message: 'Quota reserved in ClusterQueue cluster-queue' };
    const notAdmitted = { type: 'Admitted', status: 'False', reason: 'UnsatisfiedChecks', message: 'The workload has not all checks ready' };
    const checks = [{ name: 'tpu-v6e-32-provisioning', state: 'Pending', message: 'Provisioning Request was successfully queued.' }];
    const { w, wl } = withWorkload([reserved, notAdmitted], { admissionChecks: checks });
    const v = admissionCheckRule(facts(w));
    expect(v).toMatchObject({ state: 'queued', reason: 'AdmissionChecks' });
    expect(v!.message).toBe(
      `workload ${wl.metadata.name} holds its quota and waits for its admission checks: tpu-v6e-32-provisioning Pending (Provisioning Request was successfully queued.); ` +
        `a flex-start step is admitted once GKE has provisioned its slice (kubectl get provisioningrequests -n ${qwenRecord.namespace})`,
    );
    expect(v!.details).toEqual(waitLines(facts(w)));
    // It wins over queuedRule (which would only repeat "not all checks ready").
    expect(stepStatus(qwenRecord, TRAIN, w, new Map(), ctx).reason).toBe('AdmissionChecks');
    // Every check Ready, no quota, or admitted: not this rule.
    expect(admissionCheckRule(facts(withWorkload([reserved, notAdmitted], { admissionChecks: [{ ...checks[0], state: 'Ready' }] }).w))).toBeUndefined();
    expect(admissionCheckRule(facts(withWorkload([{ ...reserved, status: 'False', reason: 'Pending' }], { admissionChecks: checks }).w))).toBeUndefined();
    expect(admissionCheckRule(facts(withWorkload([reserved, { ...notAdmitted, status: 'True', reason: 'Admitted' }], { admissionChecks: checks }).w))).toBeUndefined();
  });
  test('quotaHolders counts a workload whose quota is reserved while its check waits, not one merely pending', () => {
    const { w, wl } = withWorkload([{ type: 'QuotaReserved', status: 'True', reason: 'QuotaReserved', message: 'x' }], { admission: { clusterQueue: 'cluster-queue' } });
    const other = { metadata: { name: 'other', namespace: 'default' } };
    expect(quotaHolders(other, w.workloads, 'cluster-queue')).toEqual([`JobSet ${step(qwen, 'train').jobSetName} in default (ClusterQueue cluster-queue)`]);
    wl.status.conditions = [{ type: 'QuotaReserved', status: 'False', reason: 'Pending', message: 'x' }];
    expect(quotaHolders(other, w.workloads, 'cluster-queue')).toEqual([]);
  });
  test('suspendedRule: suspended with no workload yet', () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(qwen, 'train'), { conditions: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'suspended' }] }));
    expect(suspendedRule(facts(w))).toMatchObject({ state: 'queued', reason: 'Suspended' });
    const { w: withWl } = withWorkload([]);
    withWl.jobSets[0]!.status.conditions = [{ type: 'Suspended', status: 'True' }];
    expect(suspendedRule(facts(withWl))).toBeUndefined();
  });
});

describe('a queued or pending step says how long it waited and how long the deploy still waits', () => {
  test('the JobSet created at 06:00, now 07:00: 1h waited, the rest of the step wait left', () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(qwen, 'train')));
    const wait = qwenRecord.steps[TRAIN]!.waitMinutes;
    expect(waitLines(facts(w))).toEqual([
      `waiting 1h00m since its JobSet was created; the Workflow waits up to ${duration((wait - 60) * 60)} more (this step's window: ${duration(wait * 60)})`,
    ]);
  });
  test('past the step window: the Workflow has ended the run', () => {
    const w = emptyWorld();
    w.jobSets.push(jobSet(step(qwen, 'to-maxtext')));
    const wait = qwenRecord.steps[0]!.waitMinutes;
    const late = stepFacts(qwenRecord, 0, w, new Map(), { ...ctx, now: Date.parse(iso(0)) + (wait + 5) * 60_000 });
    expect(waitLines(late)).toEqual([
      `waiting ${duration((wait + 5) * 60)} since its JobSet was created: past this step's window (${duration(wait * 60)}), so the Workflow has ended the run Failed (docs/operations.md, "How a pipeline runs: the Workflow")`,
    ]);
  });
  test('no JobSet: no wait line', () => {
    expect(waitLines(facts())).toEqual([]);
  });
});

describe('image advice names the key or code that sets the failing container', () => {
  const train = qwenRecord.steps[TRAIN]!;
  test.each([
    ['workload-container', 'this image is set by pipelines.rl-qwen3.image (or CLOUD_IMAGE_NAME), the MaxText image (a new image trains a new run (the run name carries it))'],
    ['pathways-proxy', 'this image is set by code: jobs/jobset.ts PATHWAYS_IMAGES.proxy (no config key)'],
    ['pathways-rm', 'this image is set by code: jobs/jobset.ts PATHWAYS_IMAGES.server (no config key)'],
    ['pathways-worker', 'this image is set by code: jobs/jobset.ts PATHWAYS_IMAGES.server (no config key)'],
  ])('%s', (container, advice) => {
    expect(imageAdvice(train, container)).toBe(`check that the tag exists and the node service account can read it; ${advice}`);
  });
  test('a container the record does not know: the generic advice only', () => {
    expect(imageAdvice(train, 'sidecar')).toBe('check that the tag exists and the node service account can read it');
  });
  test('podProblemRule: the proxy cannot be pulled: pending, with its own advice, not the MaxText key', () => {
    const w = emptyWorld();
    const js = jobSet(step(qwen, 'train'));
    w.jobSets.push(js);
    w.workloads.push(workload(js, true, { chips: 32 }));
    w.pods.push(
      pod(js, 'pathways-head', {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'pathways-proxy', image: 'proxy:bad', state: { waiting: { reason: 'ImagePullBackOff', message: 'not found' } } }],
      }),
    );
    const v = podProblemRule(facts(w));
    expect(v).toMatchObject({ state: 'pending', reason: 'ImagePullBackOff', chips: 32 });
    expect(v!.message).toBe(`pod ${w.pods[0]!.metadata.name} container pathways-proxy cannot pull image proxy:bad: not found; ${imageAdvice(train, 'pathways-proxy')}`);
    expect(v!.message).not.toContain('pipelines.rl-qwen3.image');
    expect(v!.details).toHaveLength(1);
  });
  test('the token mount names the record’s own secret and project', () => {
    const w = emptyWorld();
    const js = jobSet(step(qwen, 'to-maxtext'));
    w.jobSets.push(js);
    const p = pod(js, 'convert', { phase: 'Pending' });
    w.pods.push(p);
    w.events.push(event(p, 'FailedMount', 'MountVolume.SetUp failed for volume "hf-token" : no version'));
    const v = podProblemRule(stepFacts(qwenRecord, 0, w, new Map(), ctx));
    expect(v?.message).toContain(`gcloud secrets versions add ${qwenRecord.cluster}-hf-token --project=${qwenRecord.project}`);
  });
});

test('notRunningRule and runningRule: pending until the main pod runs, then progress from the log', () => {
  const w = emptyWorld();
  const js = jobSet(step(qwen, 'train'));
  w.jobSets.push(js);
  w.workloads.push(workload(js, true, { chips: 32 }));
  expect(notRunningRule(facts(w))).toMatchObject({ state: 'pending', reason: 'PodsNotCreated', chips: 32 });
  const head = pod(js, 'pathways-head', running(10));
  w.pods.push(head);
  expect(notRunningRule(facts(w))).toBeUndefined();
  const logs = new Map([[head.metadata.name, [rlLine(56, 9), rlLine(58, 10)].join('\n')]]);
  expect(runningRule(facts(w, TRAIN, logs))).toMatchObject({ state: 'running', progress: { step: 10, total: qwenRecord.steps[TRAIN]!.totalSteps }, elapsedSeconds: 50 * 60, chips: 32 });
});

test('the rules decide in order and the last always applies: stepStatus is the first verdict', () => {
  expect(STEP_RULES[STEP_RULES.length - 1]).toBe(runningRule);
  const w = emptyWorld();
  w.jobSets.push(jobSet(step(qwen, 'train'), completed));
  expect(stepStatus(qwenRecord, TRAIN, w, new Map(), ctx)).toEqual({ name: 'train', jobset: qwenRecord.steps[TRAIN]!.jobSetName, ...completedRule(facts(w))! });
  // A running JobSet with no workload and nothing else: only the last rules apply.
  const bare = emptyWorld();
  bare.jobSets.push(jobSet(step(qwen, 'train')));
  const applying = STEP_RULES.filter((r) => r(facts(bare)) !== undefined);
  expect(applying).toEqual([notRunningRule, runningRule]);
});

function duration(seconds: number): string {
  // status/metrics.ts duration, restated: the test must not take its expected text from the code under test.
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}
