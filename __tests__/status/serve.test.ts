/**
 * `npm run status -- serve-<pipeline>` (status/serve.ts, status/cli.ts): the endpoint, the model path the server
 * mounts, readiness and the smoke test, read from the cluster. The model in-process for each state; then the compiled
 * CLI end to end against the fake API server, serving the objects the serve stack itself builds (jobs/serve.ts
 * planServe), with the pod and status fields the Deployment, Job and scheduler controllers write.
 */
import { FakeApi, emptyWorld, iso, pipeline, platform, runCli, World } from '../../bench/fake-kube-api';
import { fake, kubeconfig, useFakeApis } from './fake-api-harness';
import { useCliHost } from './cli-host';
import { modelPathOf, planServe, ServePlan } from '../../jobs/serve';
import { RECIPES } from '../../jobs/recipes';
import { serveExit, serveStatus, ServeSnapshot } from '../../status/serve';

const plan = (name: string, internalLoadBalancer = false): ServePlan => {
  const p = pipeline(name);
  const r = planServe(
    { pipeline: p.name, clusterName: platform.clusterName, namespace: platform.namespace, model: p.model.name, modelPath: p.paths.hfExportDir, trainingMachineType: p.slice.machineType, bucket: platform.bucket, cpuPool: platform.cpuPool.name },
    { enabled: true, internalLoadBalancer },
    `pipelines.${name}`,
  );
  if (!r.plan) throw new Error(r.problems.join('\n'));
  return r.plan;
};
const qwen = plan('rl-qwen3');
const ns = platform.namespace;

/** The server pod the Deployment controller makes: the template's labels, the given status. */
const serverPod = (p: ServePlan, status: object, minutes = 5) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `${p.name}-7d9f8-abcde`, namespace: ns, creationTimestamp: iso(minutes), labels: (p.deployment as any).spec.template.metadata.labels },
  spec: (p.deployment as any).spec.template.spec,
  status,
});
const ready = { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'vllm', ready: true, state: { running: { startedAt: iso(6) } } }] };
const loading = { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'False' }], containerStatuses: [{ name: 'vllm', ready: false, state: { running: { startedAt: iso(6) } } }] };
const unschedulable = {
  phase: 'Pending',
  conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available: 3 Insufficient google.com/tpu.' }],
};
const crashing = {
  phase: 'Running',
  conditions: [{ type: 'PodScheduled', status: 'True' }],
  containerStatuses: [{ name: 'vllm', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 2m40s restarting failed container=vllm' } } }],
};
const jobWith = (p: ServePlan, conditions: object[]) => ({ ...(p.smokeJob as any), status: { conditions } });
const complete = [{ type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }];
const failed = [{ type: 'FailureTarget', status: 'True' }, { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }];

function snapshot(p: ServePlan, o: { readyReplicas?: number; pod?: object; job?: object[]; lbIp?: string } = {}): ServeSnapshot {
  return {
    deployments: [{ ...(p.deployment as any), status: { replicas: 1, ...(o.readyReplicas ? { readyReplicas: o.readyReplicas } : {}) } }],
    services: [{ ...(p.service as any), ...(o.lbIp ? { status: { loadBalancer: { ingress: [{ ip: o.lbIp }] } } } : {}) }],
    jobs: o.job ? [jobWith(p, o.job)] : [],
    pods: o.pod ? [serverPod(p, o.pod)] : [],
  };
}

describe('the model: one state per situation, the model path read from the Deployment', () => {
  test.each(Object.keys(RECIPES))('%s: the path read back from the FUSE volume is the export the plan serves', (name) => {
    const p = plan(name);
    expect(modelPathOf(p.deployment)).toBe(p.modelPath);
    expect(p.modelPath).toBe(pipeline(name).paths.hfExportDir);
  });
  test('ready: endpoint, model, served name, port-forward; exit 0', () => {
    const s = serveStatus('rl-qwen3', ns, snapshot(qwen, { readyReplicas: 1, pod: ready, job: complete }));
    expect(s).toEqual({
      stack: 'serve-rl-qwen3',
      pipeline: 'rl-qwen3',
      state: 'ready',
      reason: 'serving (readiness GET /health passed)',
      ready: '1/1',
      modelPath: qwen.modelPath,
      servedModelName: 'rl-qwen3',
      endpoint: `http://rl-qwen3-serve.${ns}.svc.cluster.local:8000`,
      smoke: 'passed',
      portForward: `kubectl port-forward -n ${ns} service/rl-qwen3-serve 8000:8000`,
    });
    expect(serveExit([s])).toBe(0);
  });
  test('an internal load balancer with its address', () => {
    const p = plan('rl-qwen3', true);
    expect(serveStatus('rl-qwen3', ns, snapshot(p, { readyReplicas: 1, lbIp: '10.128.0.42' })).internalAddress).toBe('http://10.128.0.42:8000');
  });
  test('starting: no TPU node yet, the scheduler message; loading, the startup window read from the Deployment; no pod; exit 3', () => {
    const waiting = serveStatus('rl-qwen3', ns, snapshot(qwen, { pod: unschedulable }));
    expect([waiting.state, waiting.reason]).toEqual(['starting', 'waiting for a TPU node of the serve pool: 0/3 nodes are available: 3 Insufficient google.com/tpu.']);
    const compiling = serveStatus('rl-qwen3', ns, snapshot(qwen, { pod: loading, job: [] }));
    expect(compiling.reason).toBe(`vLLM is loading and compiling the model (the startup probe allows 51 minutes); follow it with kubectl logs -n ${ns} deployment/rl-qwen3-serve -f`);
    expect(compiling.smoke).toBe('running');
    expect(serveStatus('rl-qwen3', ns, snapshot(qwen)).reason).toBe('no server pod yet');
    expect(serveExit([waiting, compiling])).toBe(3);
  });
  test('failing: a crash loop names the reason and the logs; a failed smoke test even with a ready replica; exit 1', () => {
    const crash = serveStatus('rl-qwen3', ns, snapshot(qwen, { pod: crashing }));
    expect([crash.state, crash.reason]).toEqual([
      'failing',
      `the server cannot start: CrashLoopBackOff (back-off 2m40s restarting failed container=vllm); read kubectl logs -n ${ns} deployment/rl-qwen3-serve --previous`,
    ]);
    const smoke = serveStatus('rl-qwen3', ns, snapshot(qwen, { readyReplicas: 1, pod: ready, job: failed }));
    expect([smoke.state, smoke.smoke]).toEqual(['failing', 'failed']);
    expect(smoke.reason).toBe(`the smoke test got no chat completion; read kubectl logs -n ${ns} job/${qwen.smokeJobName} and kubectl logs -n ${ns} deployment/rl-qwen3-serve`);
    expect(serveExit([crash, serveStatus('rl-qwen3', ns, snapshot(qwen, { readyReplicas: 1 }))])).toBe(1);
  });
  test('a FUSE mount failure is told apart: the gcsfuse sidecar ended with an error, the server waits in ContainerCreating', () => {
    const fuse = {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'True' }],
      initContainerStatuses: [{ name: 'gke-gcsfuse-sidecar', restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, reason: 'Error', message: 'mountWithStorageHandle: fs.NewServer: create file system: SetUpBucket: Error in iterating through objects: googleapi: Error 403: Permission denied' } } }],
      containerStatuses: [{ name: 'vllm', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
    };
    const s = serveStatus('rl-qwen3', ns, snapshot(qwen, { pod: fuse }));
    expect(s.state).toBe('failing');
    expect(s.reason).toBe(
      `the Cloud Storage FUSE mount of the export failed (gke-gcsfuse-sidecar exit code 1: mountWithStorageHandle: fs.NewServer: create file system: SetUpBucket: Error in iterating through objects: googleapi: Error 403: Permission denied); check that the export exists and the server's read grant, then kubectl logs -n ${ns} rl-qwen3-serve-7d9f8-abcde -c gke-gcsfuse-sidecar`,
    );
  });
  test('crash restarts and probe kills are told apart by the last termination', () => {
    const withLast = (terminated: object, waiting?: object) => ({
      phase: 'Running',
      conditions: [{ type: 'PodScheduled', status: 'True' }],
      containerStatuses: [{ name: 'vllm', restartCount: 3, state: waiting ? { waiting } : { running: {} }, lastState: { terminated } }],
    });
    const crash = serveStatus('rl-qwen3', ns, snapshot(qwen, { pod: withLast({ exitCode: 1, reason: 'Error' }, { reason: 'CrashLoopBackOff' }) }));
    expect(crash.state).toBe('failing');
    expect(crash.reason).toContain('it last crashed with exit code 1 (Error), restarted 3 time(s)');
    const probe = serveStatus('rl-qwen3', ns, snapshot(qwen, { pod: withLast({ exitCode: 137, reason: 'Error' }) }));
    expect(probe.state).toBe('starting');
    expect(probe.reason).toContain('it was killed by the kubelet (exit 137), restarted 3 time(s): a failing probe (the startup probe allows 51 minutes, liveness 30 s)');
    const oom = serveStatus('rl-qwen3', ns, snapshot(qwen, { pod: withLast({ exitCode: 137, reason: 'OOMKilled' }, { reason: 'CrashLoopBackOff' }) }));
    expect(oom.reason).toContain('killed for using too much host memory (OOMKilled)');
  });
  test("the smoke Job of an earlier revision (before a retrain) is not the current one: 'not-created', never 'passed'", () => {
    const old = { ...(qwen.smokeJob as any), metadata: { ...(qwen.smokeJob as any).metadata, name: 'rl-qwen3-serve-smoke-000000000000', labels: { ...(qwen.smokeJob as any).metadata.labels, 'tpu-post-training/serve-revision': '000000000000' } }, status: { conditions: complete } };
    const s = serveStatus('rl-qwen3', ns, { ...snapshot(qwen, { pod: loading }), jobs: [old] });
    expect(s.smoke).toBe('not-created');
  });
  test('not deployed: the deploy command; objects of another namespace are not it', () => {
    const other = snapshot(qwen, { readyReplicas: 1 });
    const elsewhere = { ...other, deployments: other.deployments.map((d: any) => ({ ...d, metadata: { ...d.metadata, namespace: 'team-b' } })) };
    const s = serveStatus('rl-qwen3', ns, elsewhere);
    expect(s).toEqual({ stack: 'serve-rl-qwen3', pipeline: 'rl-qwen3', state: 'not-deployed', reason: `no Deployment ${ns}/rl-qwen3-serve: npm run deploy -- serve-rl-qwen3`, ready: '0/0', smoke: 'not-created' });
    expect(serveExit([s])).toBe(3);
  });
});

describe('npm run status -- serve-<pipeline>, the compiled CLI against the fake API', () => {
  let api: FakeApi | undefined;
  useFakeApis();
  useCliHost();
  async function run(world: World, args: string[]) {
    api = await fake(world);
    return runCli(args, kubeconfig(api.url));
  }
  const world = (o: Parameters<typeof snapshot>[1]): World => {
    const s = snapshot(qwen, o);
    return { ...emptyWorld(), deployments: s.deployments as any, services: s.services as any, jobs: s.jobs as any, pods: s.pods as any };
  };

  test('ready: the endpoint, the model path, the smoke test and how to query it; exit 0; four list calls by the serve label', async () => {
    const r = await run(world({ readyReplicas: 1, pod: ready, job: complete }), ['status', 'serve-rl-qwen3']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(1).join('\n')).toBe(
      [
        'serve-rl-qwen3  ready  1/1 ready  smoke test passed',
        '  serving (readiness GET /health passed)',
        `  model     ${qwen.modelPath} (served as 'rl-qwen3')`,
        `  endpoint  http://rl-qwen3-serve.${ns}.svc.cluster.local:8000`,
        `  query     kubectl port-forward -n ${ns} service/rl-qwen3-serve 8000:8000, then http://localhost:8000/v1/chat/completions`,
        '',
      ].join('\n'),
    );
    const lists = api!.requests.map((q) => [q.path, q.query.labelSelector]).sort();
    expect(lists).toEqual(
      [
        [`/api/v1/namespaces/${ns}/pods`, 'tpu-post-training/serve in (rl-qwen3-serve)'],
        [`/api/v1/namespaces/${ns}/services`, 'tpu-post-training/serve in (rl-qwen3-serve)'],
        [`/apis/apps/v1/namespaces/${ns}/deployments`, 'tpu-post-training/serve in (rl-qwen3-serve)'],
        [`/apis/batch/v1/namespaces/${ns}/jobs`, 'tpu-post-training/serve in (rl-qwen3-serve)'],
      ].sort(),
    );
  });
  test('--json carries the documented keys; a crash loop is failing, exit 1', async () => {
    const r = await run(world({ pod: crashing }), ['status', 'serve-rl-qwen3', '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['serve']);
    expect(Object.keys(doc.serve[0]).sort()).toEqual(['endpoint', 'modelPath', 'pipeline', 'portForward', 'ready', 'reason', 'servedModelName', 'smoke', 'stack', 'state']);
    expect(doc.serve[0]).toMatchObject({ state: 'failing', ready: '0/1', modelPath: qwen.modelPath });
  });
  test('nothing deployed: not-deployed with the deploy command; exit 3', async () => {
    const r = await run(emptyWorld(), ['status', 'serve-rl-qwen3']);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(`serve-rl-qwen3  not-deployed  0/0 ready  smoke test not-created\n  no Deployment ${ns}/rl-qwen3-serve: npm run deploy -- serve-rl-qwen3\n`);
  });
  test('a refusing API (403 on the Deployment list) or a failing one (500): exit 4 with the fix, nothing shown as ready', async () => {
    const forbidden = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'deployments.apps is forbidden', reason: 'Forbidden', code: 403 });
    api = await fake(world({ readyReplicas: 1, pod: ready, job: complete }));
    api.misbehave = (req) => (req.path.endsWith('/deployments') ? { code: 403, body: forbidden } : undefined);
    const denied = await runCli(['status', 'serve-rl-qwen3'], kubeconfig(api.url));
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain('knows you but denies the request');
    expect(denied.stdout).not.toContain('ready');
    api.misbehave = (req) => (req.path.endsWith('/services') ? { code: 500, body: '{}' } : undefined);
    const failing = await runCli(['status', 'serve-rl-qwen3'], kubeconfig(api.url));
    expect(failing.code).toBe(4);
    expect(failing.stderr).toContain('failed');
  });
  test('usage: serve stacks and pipelines together, or with --watch: exit 2 before any request', async () => {
    const mixed = await run(emptyWorld(), ['status', 'serve-rl-qwen3', 'rl-qwen3']);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("status: name serve stacks or pipelines, not both: got 'serve-rl-qwen3' 'rl-qwen3'");
    const watch = await run(emptyWorld(), ['status', 'serve-rl-qwen3', '--watch']);
    expect(watch.code).toBe(2);
    expect(watch.stderr).toContain('status: serve-rl-qwen3 is shown once: leave out --watch and --report');
    expect(api!.requests).toEqual([]);
  });
});
