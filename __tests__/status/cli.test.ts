/**
 * `npm run status` / `npm run logs` end to end: the compiled CLI in a child process, the real @kubernetes/client-node
 * (exec-plugin kubeconfig) and a fake API server over real HTTP on 127.0.0.1 serving objects built from the same
 * jobs/ builders the stacks use. dist/ is brought up to date by the project's one build, once per jest run (../dist.ts).
 */
import { tpuFlavorName } from '../../jobs/kueue';
import { lastCheckpointStep } from '../../jobs/maxtext';
import { secretCommand } from '../../jobs/secrets';
import { TPU_RESOURCE } from '../../jobs/tpu';
import {
  allPipelinesWorld,
  CONTEXT,
  deactivatedWorkload,
  emptyWorld,
  event,
  FakeApi,
  FIXTURE_ENV,
  iso,
  jobSet,
  kueueDeactivationMessage,
  pipeline,
  pipelines,
  platform,
  pod,
  rlLine,
  runCli,
  runCliOn,
  running,
  spawnCli,
  startFakeApi,
  step,
  workload,
  World,
  writeKubeconfig,
} from '../../bench/fake-kube-api';
import { ensureDist } from '../dist';
import { useCliHost } from './cli-host';

/** The get-credentials advice for the example config: its placeholder project is never printed as the value to use. */
const ADVICE = "gcloud container clusters get-credentials tpu-post-train --location=us-east5 --project=<your project>   (the local config's project 'my-tpu-project' is the example's placeholder: set PROJECT, or CONFIG_FILE to your environment's config)";


let api: FakeApi | undefined;
beforeAll(ensureDist);
useCliHost();
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function run(world: World, args: string[]) {
  await api?.close(); // a test may run the CLI twice
  api = await startFakeApi(world);
  return runCliOn(api.url, args);
}
async function json(world: World, names: string[]) {
  const r = await run(world, ['status', ...names, '--json']);
  return { ...r, doc: JSON.parse(r.stdout) as { pipelines: Array<{ name: string; steps: any[] }> } };
}
const completed = { terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully' }] };

const qwen = pipeline('rl-qwen3');
const sft = pipeline('sft-gemma4');

test('queued on quota: the workload condition message and what else holds the ClusterQueue', async () => {
  const w = allPipelinesWorld();
  const { code, doc } = await json(w, ['rl-gemma4']);
  expect(code).toBe(3);
  const train = doc.pipelines[0].steps[1];
  expect(train).toMatchObject({ name: 'train', jobset: step(pipeline('rl-gemma4'), 'train').jobSetName, state: 'queued', reason: 'Pending' });
  expect(train.message).toContain(`couldn't assign flavors to pod set worker: insufficient unused quota for ${TPU_RESOURCE} in flavor ${tpuFlavorName(pipeline('rl-gemma4').slice)}`);
  // rl-qwen3's and sft-gemma4's training hold the quota (admitted to the same ClusterQueue).
  expect(train.message).toContain(`quota held by JobSet ${step(qwen, 'train').jobSetName} in ${platform.namespace} (ClusterQueue ${platform.clusterQueue}, ${qwen.slice.chips} ${TPU_RESOURCE})`);
  expect(train.message).toContain(`JobSet ${step(sft, 'train').jobSetName}`);
  expect(doc.pipelines[0].steps[2]).toEqual({ name: 'to-hf', jobset: step(pipeline('rl-gemma4'), 'to-hf').jobSetName, state: 'not-created', message: 'starts when train completed' });
});

test('admitted with a pod in ImagePullBackOff: pending, the image named', async () => {
  const w = emptyWorld();
  const js = jobSet(step(sft, 'to-maxtext'));
  w.jobSets.push(js);
  w.workloads.push(workload(js, true));
  const image = sft.image;
  w.pods.push(
    pod(js, 'convert', {
      phase: 'Pending',
      containerStatuses: [{ name: 'workload-container', image, state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` } } }],
    }),
  );
  const { code, doc } = await json(w, ['sft-gemma4']);
  expect(code).toBe(3);
  expect(doc.pipelines[0].steps[0]).toMatchObject({ state: 'pending', reason: 'ImagePullBackOff' });
  expect(doc.pipelines[0].steps[0].message).toContain(`cannot pull image ${image}`);
  expect(doc.pipelines[0].steps[0].message).toContain('pipelines.sft-gemma4.image');
});

test('FailedMount of the HF-token volume: pending, with the exact gcloud secrets versions add command', async () => {
  const llama = pipeline('rl-llama3');
  const w = emptyWorld();
  const js = jobSet(step(llama, 'to-maxtext'));
  w.jobSets.push(js);
  w.workloads.push(workload(js, true));
  const p = pod(js, 'convert', { phase: 'Pending', containerStatuses: [{ name: 'workload-container', state: { waiting: { reason: 'ContainerCreating' } } }] });
  w.pods.push(p);
  w.events.push(
    event(
      p,
      'FailedMount',
      `MountVolume.SetUp failed for volume "hf-token" : rpc error: code = Unknown desc = failed to mount secrets store objects for pod ${platform.namespace}/${p.metadata.name}, err: rpc error: code = NotFound desc = Secret Version [projects/${platform.project}/secrets/${platform.hfTokenSecretId}/versions/latest] not found`,
    ),
  );
  const { code, stdout } = await run(w, ['status', 'rl-llama3']);
  expect(code).toBe(3);
  expect(stdout).toContain('pending      ');
  expect(stdout).toContain('FailedMount:');
  expect(stdout).toContain(secretCommand(platform.project, platform.hfTokenSecretId));
});

test('Unschedulable: the scheduler event text and the node selector', async () => {
  const w = emptyWorld();
  const js = jobSet(step(sft, 'train'));
  w.jobSets.push(js);
  w.workloads.push(workload(js, true, { chips: sft.slice.chips }));
  const p = pod(js, 'slice', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available' }] });
  w.pods.push(p);
  w.events.push(event(p, 'FailedScheduling', `0/12 nodes are available: 12 node(s) didn't match Pod's node affinity/selector.`));
  const { doc } = await json(w, ['sft-gemma4']);
  const train = doc.pipelines[0].steps[1];
  expect(train).toMatchObject({ state: 'pending', reason: 'Unschedulable' });
  expect(train.message).toContain("12 node(s) didn't match Pod's node affinity/selector");
  for (const [k, v] of Object.entries(sft.slice.nodeSelector)) expect(train.message).toContain(`${k}=${v}`);
});

test('CrashLoopBackOff of a native sidecar: pending, how to read its log', async () => {
  const w = emptyWorld();
  const js = jobSet(step(qwen, 'train'));
  w.jobSets.push(js);
  w.workloads.push(workload(js, true, { chips: 32 }));
  w.pods.push(
    pod(js, 'pathways-head', {
      phase: 'Pending',
      initContainerStatuses: [{ name: 'pathways-proxy', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 2, reason: 'Error' } } }],
    }),
  );
  const { doc } = await json(w, ['rl-qwen3']);
  expect(doc.pipelines[0].steps[1]).toMatchObject({ state: 'pending', reason: 'CrashLoopBackOff' });
  expect(doc.pipelines[0].steps[1].message).toContain('container pathways-proxy keeps crashing (4 restarts, last exit 2 Error)');
});

test('running at step k of n: progress from the main container log, a bar and an ETA', async () => {
  const w = allPipelinesWorld();
  const { code, stdout } = await run(w, ['status', 'rl-qwen3', 'sft-gemma4']);
  expect(code).toBe(3);
  const qwenTotal = lastCheckpointStep(qwen.recipe.train);
  const sftTotal = lastCheckpointStep(sft.recipe.train);
  // 20 Tunix lines, one per 2 minutes: (total - 20) steps * 2 min left.
  const qwenLine = stdout.split('\n').find((l) => l.includes(step(qwen, 'train').jobSetName))!;
  expect(qwenLine).toMatch(new RegExp(`running +${step(qwen, 'train').jobSetName} +\\[#+\\.+\\] 20/${qwenTotal} \\(\\d+%\\)`));
  const etaMinutes = (qwenTotal - 20) * 2;
  expect(qwenLine).toContain(`ETA ${Math.floor(etaMinutes / 60)}h${String(etaMinutes % 60).padStart(2, '0')}m`);
  expect(qwenLine).toContain(`${qwen.slice.chips * qwen.slices} chips`);
  const sftLine = stdout.split('\n').find((l) => l.includes(step(sft, 'train').jobSetName))!;
  expect(sftLine).toContain(`300/${sftTotal}`);
  const { doc } = await json(allPipelinesWorld(), ['rl-qwen3']);
  const train = doc.pipelines[0].steps[1];
  expect(train).toMatchObject({ name: 'train', jobset: step(qwen, 'train').jobSetName, state: 'running', progress: { step: 20, total: qwenTotal } });
  expect(train.run.loss).toHaveLength(20);
  expect(train.run.chips).toBe(qwen.slice.chips * qwen.slices);
});

test('failed: the JobSet failure condition and the main container last log lines; exit 1', async () => {
  const { code, stdout } = await run(allPipelinesWorld(), ['status', 'rl-llama3']);
  expect(code).toBe(1);
  expect(stdout).toContain('failed');
  expect(stdout).toContain('FailJobSetFailurePolicyAction: applying FailJobSet failure policy action');
  expect(stdout).toContain('  Traceback (most recent call last):\n');
  expect(stdout).toContain('  ValueError: rl.num_generations must be > 1\n');
  expect(stdout).toMatch(/to-hf +not-created +rl-llama3-r1-to-hf +will not start: train failed\n/);
});

test("a deactivated workload: each of Kueue v0.19.2 reasons told apart (requeue limit, rejected admission check with the check's message, maximum execution time, by hand); exit 1", async () => {
  const w = emptyWorld();
  const causes: Record<string, string | undefined> = { 'rl-qwen3': 'RequeuingLimitExceeded', 'rl-gemma4': 'AdmissionCheck', 'sft-gemma4': 'MaximumExecutionTimeExceeded', 'rl-llama3': undefined };
  for (const [name, cause] of Object.entries(causes)) {
    const p = pipeline(name);
    w.jobSets.push(jobSet(step(p, 'to-maxtext'), completed));
    const train = jobSet(step(p, 'train'), { conditions: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended' }] });
    w.jobSets.push(train);
    w.workloads.push(deactivatedWorkload(train, cause, 'evicted', cause === 'MaximumExecutionTimeExceeded' ? { maximumExecutionTimeSeconds: 86400 } : {}));
  }
  const { code, doc } = await json(w, []);
  expect(code).toBe(1);
  const train = (name: string) => doc.pipelines.find((p) => p.name === name)!.steps[1];
  expect(train('rl-qwen3')).toMatchObject({ state: 'failed', reason: 'RequeuingLimitExceeded', message: expect.stringContaining('its pods never became ready within 20m, 4 times') });
  expect(train('rl-qwen3').message).toContain('kubectl describe pod');
  expect(train('rl-gemma4')).toMatchObject({ state: 'failed', reason: 'AdmissionCheck', message: expect.stringContaining(`an admission check rejected it: ${kueueDeactivationMessage('AdmissionCheck')}`) });
  expect(train('sft-gemma4')).toMatchObject({ state: 'failed', reason: 'MaximumExecutionTimeExceeded', message: expect.stringContaining('ran past its maximum execution time (86400s') });
  expect(train('rl-llama3')).toMatchObject({ state: 'failed', reason: 'Deactivated', message: expect.stringContaining("not by one of Kueue's limits") });
  for (const name of ['rl-gemma4', 'sft-gemma4', 'rl-llama3']) expect(train(name).message).not.toMatch(/never became ready|describe pod/);
  for (const name of Object.keys(causes)) expect(train(name).message).toContain(`kubectl patch workload -n ${platform.namespace} `);
});

test('completed: every step shows its GCS output; exit 0', async () => {
  const w = emptyWorld();
  for (const s of qwen.steps) w.jobSets.push(jobSet(s, completed));
  const { code, stdout, doc } = await json(w, ['rl-qwen3']);
  expect(code).toBe(0);
  expect(doc.pipelines[0].steps.map((s) => [s.state, s.message])).toEqual([
    ['completed', `output: ${qwen.paths.maxtextCheckpoint}`],
    ['completed', `output: ${qwen.paths.trainedCheckpoint}`],
    ['completed', `output: ${qwen.paths.hfExportDir}`],
    ['completed', `output: ${qwen.paths.hfExportDir}eval.json`],
  ]);
  // No text header before the document: stdout is one JSON document (its `source` says where it was read).
  expect(stdout.startsWith('{"pipelines":')).toBe(true);
  expect(JSON.parse(stdout).source.recordsReadFrom).toBe('every namespace');
});

test('a pipeline not yet deployed: every step not-created, with the deploy command', async () => {
  const { code, doc } = await json(emptyWorld(), []);
  expect(code).toBe(3);
  expect(doc.pipelines.map((p) => p.name)).toEqual(pipelines.map((p) => p.name));
  expect(doc.pipelines[0].steps[0]).toEqual({ name: 'to-maxtext', jobset: qwen.steps[0].jobSetName, state: 'not-created', message: `not deployed: npm run deploy -- ${qwen.name}` });
});

test('--json has exactly the documented keys', async () => {
  const { doc } = await json(allPipelinesWorld(), []);
  expect(Object.keys(doc)).toEqual(['pipelines', 'source']);
  // Where it was read and what it was built from, as the text header says (issue 33: every status line names them).
  const source = (doc as any).source;
  expect(Object.keys(source)).toEqual(['cluster', 'server', 'recordsReadFrom', 'localConfig']);
  expect(source.recordsReadFrom).toBe('every namespace');
  expect(source.localConfig).toMatch(/^environment my-tpu-project\.tpu-post-train .*, built from config\/example\.json /);
  for (const p of doc.pipelines) {
    // `cost` (the whole run, status/run-cost.ts) once a step of the pipeline exists: every pipeline of this world has one.
    expect(Object.keys(p)).toEqual(['name', 'steps', 'cost']);
    for (const key of Object.keys((p as any).cost)) expect(['training', 'eval', 'cpu', 'clusterFee', 'total', 'added']).toContain(key);
    for (const s of p.steps) {
      for (const key of Object.keys(s)) expect(['name', 'jobset', 'state', 'reason', 'message', 'progress', 'stall', 'run']).toContain(key);
      expect(['not-created', 'queued', 'pending', 'running', 'stalled', 'completed', 'failed']).toContain(s.state);
      if (s.run) for (const key of Object.keys(s.run)) expect(['chips', 'admittedAt', 'endedAt', 'chipHours', 'cost', 'currency', 'rate', 'estimate', 'loss', 'evaluation']).toContain(key);
      if (s.progress) expect(Object.keys(s.progress)).toEqual(['step', 'total']);
    }
  }
});

test('a poll is five list calls for all four pipelines, plus one log read per main pod that needs it', async () => {
  const { code } = await run(allPipelinesWorld(), ['status']);
  expect(code).toBe(1); // rl-llama3 failed
  const lists = api!.requests.filter((r) => !r.path.endsWith('/log'));
  // Once per command, before the poll: the pipeline stacks' records (jobs/record.ts).
  expect(lists.filter((r) => r.path.endsWith('/configmaps')).map((r) => r.query.labelSelector)).toEqual(['tpu-post-training/record=true']);
  expect(lists.filter((r) => !r.path.endsWith('/configmaps')).map((r) => r.path).sort()).toEqual([
    `/api/v1/namespaces/${platform.namespace}/events`,
    `/api/v1/namespaces/${platform.namespace}/pods`,
    `/apis/argoproj.io/v1alpha1/namespaces/${platform.namespace}/workflows`,
    `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${platform.namespace}/jobsets`,
    '/apis/kueue.x-k8s.io/v1beta2/workloads',
  ]);
  const pods = lists.find((r) => r.path.endsWith('/pods'))!;
  expect(pods.query.labelSelector).toBe(`app.kubernetes.io/part-of=tpu-post-training,tpu-post-training/pipeline in (${pipelines.map((p) => p.name).join(',')})`);
  // Logs: the two running trainings (progress) and the failed one (last lines); no pod of a queued or completed step.
  const logs = api!.requests.filter((r) => r.path.endsWith('/log'));
  expect(logs).toHaveLength(3);
  expect(logs.every((r) => r.query.container === 'workload-container' && r.query.timestamps === 'true')).toBe(true);
});

test('the engine line: the pipeline\'s Workflow and its DAG above the steps, from the same poll', async () => {
  const w = allPipelinesWorld();
  w.workflows = [{
    apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow',
    metadata: { name: 'rl-qwen3-r1-0123456789', namespace: platform.namespace, labels: { 'app.kubernetes.io/part-of': 'tpu-post-training', 'tpu-post-training/pipeline': 'rl-qwen3' }, creationTimestamp: iso(0) },
    status: { phase: 'Running', nodes: {
      a: { displayName: 'to-maxtext', type: 'Retry', phase: 'Succeeded' }, b: { displayName: 'to-maxtext-wait', type: 'Retry', phase: 'Succeeded' },
      c: { displayName: 'train', type: 'Retry', phase: 'Succeeded' }, d: { displayName: 'train-wait', type: 'Retry', phase: 'Running', children: ['d0'] }, d0: { displayName: 'train-wait(0)', type: 'Pod', phase: 'Running' },
    } },
  }];
  const { stdout } = await run(w, ['status', 'rl-qwen3']);
  const lines = stdout.split('\n');
  expect(lines[lines.indexOf('rl-qwen3') + 1]).toBe('  engine: Workflow rl-qwen3-r1-0123456789 Running: to-maxtext ✓ → train watching → to-hf · → eval ·');
  const { doc } = await json(w, ['rl-qwen3']);
  expect((doc.pipelines[0] as any).engine).toMatchObject({ workflow: 'rl-qwen3-r1-0123456789', phase: 'Running', steps: expect.arrayContaining([{ step: 'train', create: 'Succeeded', wait: 'Running', waitAttempts: 1 }]) });
});

test('workflows-ui prints the port-forward to the engine\'s UI (ClusterIP only) and how to sign in; it runs nothing', async () => {
  const { code, stdout } = await run(emptyWorld(), ['workflows-ui']);
  expect(code).toBe(0);
  expect(stdout).toContain('kubectl -n argo port-forward svc/argo-workflows-server 2746:2746');
  expect(stdout).toContain('Bearer $(gcloud auth print-access-token)');
  expect(api!.requests).toEqual([]);
});

test('--watch redraws until every named pipeline has ended', async () => {
  const w = allPipelinesWorld();
  api = await startFakeApi(w);
  api.onJobSetList = (n) => {
    if (n === 1) {
      // The second poll: training finished, to-hf and eval ran.
      const train = api!.world.jobSets.find((j) => j.metadata.name === step(qwen, 'train').jobSetName)!;
      train.status = completed;
      api!.world.jobSets.push(jobSet(step(qwen, 'to-hf'), completed), jobSet(step(qwen, 'eval'), completed));
    }
  };
  const r = await runCliOn(api.url, ['status', 'rl-qwen3', '--watch', '--interval', '1', '--json']);
  expect(r.code).toBe(0);
  const docs = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(docs.map((d) => d.pipelines[0].steps.map((s: any) => s.state))).toEqual([
    ['completed', 'running', 'not-created', 'not-created'],
    ['completed', 'completed', 'completed', 'completed'],
  ]);
});

test('no cluster answering: names the context and server, and the get-credentials command; exit 4', async () => {
  const closed = await startFakeApi(emptyWorld());
  const url = closed.url;
  await closed.close();
  const r = await runCliOn(url, ['status']);
  expect(r.code).toBe(4);
  expect(r.stderr).toContain(`no answer from the cluster at ${url} (kubeconfig context ${CONTEXT})`);
  expect(r.stderr).toContain('ECONNREFUSED');
  expect(r.stderr).toContain(ADVICE);
});

test('a user who may not list Workloads cluster-wide: the namespace list instead, once', async () => {
  api = await startFakeApi(allPipelinesWorld());
  api.forbidClusterWorkloads = true;
  const r = await runCliOn(api.url, ['status', 'rl-gemma4', '--json']);
  expect(r.code).toBe(3);
  expect(JSON.parse(r.stdout).pipelines[0].steps[1].message).toContain(`quota held by JobSet ${step(qwen, 'train').jobSetName}`);
  expect(api.requests.filter((q) => q.path.includes('/workloads')).map((q) => q.path)).toEqual([
    '/apis/kueue.x-k8s.io/v1beta2/workloads',
    `/apis/kueue.x-k8s.io/v1beta2/namespaces/${platform.namespace}/workloads`,
  ]);
});

test('credentials refused (the exec plugin returns a token the server rejects): HTTP 401 and the fix; exit 4', async () => {
  api = await startFakeApi(emptyWorld());
  const r = await runCliOn(api.url, ['status'], { token: 'expired' });
  expect(r.code).toBe(4);
  expect(r.stderr).toContain(`the cluster refused the credentials at ${api.url} (kubeconfig context ${CONTEXT}): the API server refused the request (HTTP 401): Unauthorized`);
  expect(r.stderr).toContain(ADVICE);
});

test('the exec plugin is not installed: the error and the fix; exit 4', async () => {
  api = await startFakeApi(emptyWorld());
  const r = await runCliOn(api.url, ['status'], { command: 'gke-gcloud-auth-plugin-not-installed' });
  expect(r.code).toBe(4);
  expect(r.stderr).toContain(`(kubeconfig context ${CONTEXT})`);
  expect(r.stderr).toContain(
    `no credentials for the cluster at ${api.url} (kubeconfig context ${CONTEXT}): the kubeconfig's credential plugin 'gke-gcloud-auth-plugin-not-installed' is not installed (gcloud components install gke-gcloud-auth-plugin)`,
  );
  expect(r.stderr).toContain('Install it: gcloud components install gke-gcloud-auth-plugin, then retry.');
  expect(api.requests).toHaveLength(0);
});

test('no kubeconfig at all: says which file was tried and what to run; exit 4', async () => {
  const r = await runCli(['status'], { HOME: '/nonexistent-home' });
  expect(r.code).toBe(4);
  expect(r.stderr).toBe(
    `status: no kubeconfig: /nonexistent-home/.kube/config does not exist.\n` +
      `Fetch the credentials of the cluster this config deploys (${platform.clusterName}), then retry:\n` +
      `  ${ADVICE}\n`,
  );
});

describe('usage', () => {
  test.each([
    [['status', '--bogus'], "status: Unknown option '--bogus'"],
    [['status', '--interval', '0', '--watch'], "status: --interval must be a whole number of seconds >= 1, got '0'"],
    [['status', '--interval', '5'], 'status: --interval only applies with --watch or --until-started'],
    [['logs'], 'logs: expected <pipeline> [step], got nothing'],
    [['logs', 'rl-qwen3', 'serve'], "logs: step must be one of to-maxtext, train, to-hf, eval, got 'serve'"],
    [['logs', 'rl-qwen3', '--tail'], "logs: Unknown option '--tail'"],
    [[], "status: the first argument must be 'status', 'report', 'tensorboard', 'logs', 'retry', 'workflows-ui' or 'rehearsal-check', got ''"],
    [['rehearsal-check'], 'status: rehearsal-check takes the pipelines to check, got none'],
    [['rehearsal-check', 'rl-qwen3', '--bogus'], "status: Unknown option '--bogus'"],
  ])('%j exits 2: %s', async (args, message) => {
    const r = await runCli(args, { HOME: '/nonexistent-home' });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(message);
    expect(r.stderr).toContain('usage: npm run');
  });

  test('--help exits 0 with the usage on stdout', async () => {
    const r = await runCli(['status', '--help'], { HOME: '/nonexistent-home' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: npm run status/);
    const l = await runCli(['logs', '-h'], { HOME: '/nonexistent-home' });
    expect(l.code).toBe(0);
    expect(l.stdout).toMatch(/^usage: npm run logs/);
  });
});

describe('npm run logs', () => {
  test('default step: the running one; the main pod (Pathways head) main container', async () => {
    const r = await run(allPipelinesWorld(), ['logs', 'rl-qwen3']);
    expect(r.code).toBe(0);
    const head = `${step(qwen, 'train').jobSetName}-pathways-head-0-0-x7k2p`;
    expect(r.stderr).toBe(`==> rl-qwen3 train: pod ${head}, container workload-container\n`);
    expect(r.stdout.split('\n')[0]).toBe('starting');
    expect(r.stdout).toContain(rlLine(58, 20).replace(/^\S+ /, ''));
    const req = api!.requests.filter((q) => q.path.endsWith('/log')).pop()!;
    expect(req.path).toBe(`/api/v1/namespaces/${platform.namespace}/pods/${head}/log`);
    expect(req.query).toMatchObject({ container: 'workload-container', follow: 'false' });
  });

  test('-f follows until the container ends; a named step', async () => {
    const r = await run(allPipelinesWorld(), ['logs', 'rl-qwen3', 'train', '-f']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(21);
    expect(api!.requests.filter((q) => q.path.endsWith('/log')).pop()!.query.follow).toBe('true');
  });

  test('a main container that has not started: says so, exit 3', async () => {
    const w = emptyWorld();
    const js = jobSet(step(sft, 'to-maxtext'));
    w.jobSets.push(js);
    w.workloads.push(workload(js, true));
    w.pods.push(pod(js, 'convert', { phase: 'Pending', containerStatuses: [{ name: 'workload-container', state: { waiting: { reason: 'ContainerCreating' } } }] }));
    const r = await run(w, ['logs', 'sft-gemma4']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`logs: workload-container of ${js.metadata.name}-convert-0-0-x7k2p has not started yet; npm run status -- sft-gemma4 says why\n`);
  });

  test('a step without a main pod yet: says so, exit 3', async () => {
    const r = await run(allPipelinesWorld(), ['logs', 'rl-gemma4']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`logs: ${step(pipeline('rl-gemma4'), 'train').jobSetName} has no main pod yet; npm run status -- rl-gemma4 says why\n`);
  });
});

test('the fixture pods carry the labels the stacks put on them (no hand-typed names)', () => {
  const js = jobSet(step(qwen, 'train'));
  const head = pod(js, 'pathways-head', running(0));
  expect(head.metadata.labels).toMatchObject({ ...qwen.labels, ...step(qwen, 'train').mainPodSelector });
  expect(iso(0)).toBe('2026-12-01T06:00:00.000Z');
});

test('the CLI host (cli-host.ts) prints and returns what a spawned CLI does: status, --json, logs, workflows-ui, usage and connection errors', async () => {
  api = await startFakeApi(emptyWorld());
  const { file, dir } = writeKubeconfig(api.url);
  const env = { PATH: process.env.PATH ?? '', ...FIXTURE_ENV, KUBECONFIG: file, HOME: dir };
  const runs = [['status'], ['status', 'rl-qwen3', '--json'], ['logs', 'rl-qwen3'], ['workflows-ui'], ['status', '--bogus'], ['--help']];
  for (const args of runs) {
    const hosted = await runCli(args, env);
    const spawned = await spawnCli(args, env);
    expect({ args, code: hosted.code, stdout: hosted.stdout, stderr: hosted.stderr }).toEqual({ args, code: spawned.code, stdout: spawned.stdout, stderr: spawned.stderr });
  }
  const nowhere = { ...env, KUBECONFIG: `${dir}/missing` };
  expect(await runCli(['status'], nowhere)).toMatchObject({ code: (await spawnCli(['status'], nowhere)).code, stderr: (await spawnCli(['status'], nowhere)).stderr });
});
