/**
 * The serve stack (jobs/serve.ts, stacks/serve-stack.ts): defaults, overrides, errors; the Deployment, Service and
 * smoke-test Job valid against Kubernetes' own types (@kubernetes/client-node 1.4.0, OpenAPI v1.34.0, read by
 * __tests__/models/k8s-types.mjs); the synthesized stack (pool sized by the fit check, read-only identity, outputs).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Testing } from 'cdktf';
import { buildPipeline, Pipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import {
  exportMissingMessage,
  modelPathOf,
  planServe,
  serveIdentityOf,
  serveNames,
  servePoolTaint,
  SERVE_REVISION_LABEL,
  SERVE_SCHEDULE_MINUTES,
  ServeOptions,
  serveSummary,
  SMOKE_ENDED,
  smokeFailureMessage,
  SMOKE_REQUEST_SECONDS,
  SMOKE_RETRY_SECONDS,
  smokeScript,
  smokeWindow,
  startupFailureThreshold,
} from '../../jobs/serve';
import { reservationProblem } from '../../jobs/capacity';
import { TPU_TOLERATION } from '../../jobs/tpu';
import { fitText, serverStartSeconds } from '../../jobs/vllm';
import { MODELS, SERVING } from '../../jobs/models';
import { ServeStack } from '../../stacks/serve-stack';
import { testPlatform } from './fixtures';

const build = (name: string, serve: ServeOptions = { enabled: true }, rest: object = {}) =>
  buildPipeline(RECIPES[name], testPlatform(), { runId: 'r1', serve, configSource: `pipelines.${name}`, ...rest });
const input = (p: Pipeline) => ({
  pipeline: p.name,
  clusterName: 'tpu-post-train',
  namespace: 'default',
  model: p.model.name,
  modelPath: p.paths.hfExportDir,
  trainingMachineType: p.slice.machineType,
  bucket: 'my-bucket',
  cpuPool: 'cpu-np',
});

/** Problems of objects against Kubernetes' types (a child node process: @kubernetes/client-node is ESM). */
function k8sProblems(objects: Array<{ type: string; object: unknown }>): string[] {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-types-')), 'objects.json');
  fs.writeFileSync(file, JSON.stringify(objects));
  return JSON.parse(execFileSync(process.execPath, [path.join(__dirname, '..', 'models', 'k8s-types.mjs'), file], { cwd: path.join(__dirname, '..', '..'), encoding: 'utf8' }));
}

describe('defaults', () => {
  test('off unless enabled: no serve plan', () => {
    expect(buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' }).serve).toBeUndefined();
    expect(build('rl-qwen3', { enabled: false }).serve).toBeUndefined();
  });
  test('each tutorial pipeline: the smallest single-host pool that fits, spot, the export from the run identity', () => {
    const shapes = Object.keys(RECIPES).map((name) => {
      const s = build(name).serve!;
      expect(s.modelPath).toBe(build(name).paths.hfExportDir);
      expect(s.capacity).toEqual({ type: 'spot' });
      return [s.stack, s.slice.machineType, s.slice.topology, s.fit.tensorParallel];
    });
    expect(shapes).toEqual([
      ['serve-rl-qwen3', 'ct6e-standard-4t', '2x2', 4],
      ['serve-rl-gemma4', 'ct6e-standard-4t', '2x2', 4],
      ['serve-sft-gemma4', 'ct6e-standard-8t', '2x4', 8],
      ['serve-rl-llama3', 'ct6e-standard-4t', '2x2', 4],
    ]);
  });
  test('the Deployment: vllm serve of the read-only mounted export, TP over the host, probes on /health, its own pool', () => {
    const s = build('rl-qwen3').serve!;
    const pod = (s.deployment as any).spec.template;
    const c = pod.spec.containers[0];
    expect(c.command).toEqual(['vllm', 'serve', '/models/export']);
    expect(c.args).toEqual(['--served-model-name', 'rl-qwen3', '--port', '8000', '--tensor-parallel-size', '4', '--max-model-len', '16384']);
    expect(c.image).toBe('vllm/vllm-tpu:nightly-20260816-11250b4-1d2d83a');
    expect(c.resources).toEqual({ requests: { 'google.com/tpu': '4' }, limits: { 'google.com/tpu': '4' } });
    for (const p of ['startupProbe', 'readinessProbe', 'livenessProbe']) expect(c[p].httpGet).toEqual({ path: '/health', port: 8000 });
    // 61 GB read at 50 MB/s (1,220 s) plus 30 min of compile = 3,020 s: 101 periods of 30 s.
    expect(c.startupProbe).toMatchObject({ periodSeconds: 30, failureThreshold: 101 });
    expect(s.startupSeconds).toBe(3030);
    expect(c.volumeMounts).toContainEqual({ name: 'model', mountPath: '/models/export', readOnly: true });
    expect(pod.spec.volumes[0].csi).toMatchObject({ driver: 'gcsfuse.csi.storage.gke.io', readOnly: true });
    expect(pod.metadata.annotations).toEqual({ 'gke-gcsfuse/volumes': 'true' });
    expect(pod.spec.nodeSelector).toEqual({ 'cloud.google.com/gke-tpu-accelerator': 'tpu-v6e-slice', 'cloud.google.com/gke-tpu-topology': '2x2', 'cloud.google.com/gke-nodepool': 'serve-rl-qwen3', 'tpu-post-training/serve': 'rl-qwen3-serve' });
    // It tolerates its own pool's taint (servePoolTaint), which no Kueue flavor tolerates.
    expect(pod.spec.tolerations).toContainEqual({ key: 'tpu-post-training/serve', value: 'rl-qwen3-serve', operator: 'Equal', effect: 'NoSchedule' });
    expect(pod.spec.serviceAccountName).toBe('tpt-rl-qwen3-serve');
    expect(JSON.stringify(s.deployment)).not.toMatch(/hf-token|HF_TOKEN/);
    expect((s.service as any).spec.type).toBe('ClusterIP');
    expect(s.endpoint).toBe('http://rl-qwen3-serve.default.svc.cluster.local:8000');
  });
});

describe('overrides', () => {
  test('an internal load balancer when asked', () => {
    const svc = build('rl-qwen3', { enabled: true, internalLoadBalancer: true }).serve!.service as any;
    expect(svc.spec.type).toBe('LoadBalancer');
    expect(svc.metadata.annotations).toEqual({ 'networking.gke.io/load-balancer-type': 'Internal' });
  });
  test('a reservation or flex-start instead of spot', () => {
    expect(build('rl-qwen3', { enabled: true, capacity: 'reservation', reservation: 'my-v6e-4' }).serve!.capacity).toEqual({ type: 'reservation', reservation: 'my-v6e-4' });
    expect(build('rl-qwen3', { enabled: true, capacity: 'flex-start' }).serve!.capacity.type).toBe('flex-start');
  });
  test('a longer max-model-len or more sequences sizes a larger host', () => {
    expect(build('rl-qwen3', { enabled: true, maxModelLen: 98304 }).serve!.slice.chips).toBe(8);
    expect(build('rl-qwen3', { enabled: true, sequences: 48 }).serve!.slice.chips).toBe(8);
  });
});

describe('errors: exit 1 at synth, naming the key', () => {
  test('a model that does not fit one host: refused, saying it needs more than one', () => {
    expect(() => build('sft-gemma4', { enabled: true, sequences: 64 })).toThrow(
      /^pipelines\.sft-gemma4\.serve: gemma4-31b does not fit one v6e host: 7\.8 GB weights \+ .* per chip on 8 chip\(s\) > 30\.2 GB usable \(0\.9 of 31\.25 GiB usable\); it needs more than one host/,
    );
  });
  test('a pipeline that exports nothing', () => {
    expect(planServe({ ...input(build('rl-qwen3')), modelPath: undefined }, { enabled: true }, 'pipelines.rl-qwen3').problems).toEqual([
      'pipelines.rl-qwen3.serve.enabled: rl-qwen3 exports nothing (it has no to-hf step), so there is nothing to serve',
    ]);
  });
  test('a reservation capacity without a reservation; numbers out of range; all collected', () => {
    expect(planServe(input(build('rl-qwen3')), { enabled: true, capacity: 'reservation', maxModelLen: 10, sequences: 0 }, 'pipelines.rl-qwen3').problems).toEqual([
      'pipelines.rl-qwen3.serve.maxModelLen must be a whole number from 256 to 1048576, got 10',
      'pipelines.rl-qwen3.serve.sequences must be a whole number from 1 to 1024, got 0',
      "pipelines.rl-qwen3.serve.reservation: capacity 'reservation' needs a reservation name; set it, or choose capacity 'spot' or 'flex-start'",
    ]);
  });
  test('a model without a row in the model table', () => {
    expect(planServe({ ...input(build('rl-qwen3')), model: 'mixtral-8x7b' }, { enabled: true }, 'pipelines.rl-qwen3').problems).toEqual([
      "pipelines.rl-qwen3.serve: model 'mixtral-8x7b' has no row in the model table (jobs/models.ts), so its serving size is unknown",
    ]);
  });
});

test("Kubernetes' own types accept the Deployment, Service and smoke Job of every pipeline, and reject a misspelled field", () => {
  const objects = Object.keys(RECIPES).flatMap((name) => {
    const s = build(name, { enabled: true, internalLoadBalancer: name === 'rl-llama3' }).serve!;
    return [
      { type: 'V1Deployment', object: s.deployment },
      { type: 'V1Service', object: s.service },
      { type: 'V1Job', object: s.smokeJob },
    ];
  });
  expect(k8sProblems(objects)).toEqual([]);
  const bad = JSON.parse(JSON.stringify(objects[0].object));
  bad.spec.template.spec.containers[0].readinesProbe = bad.spec.template.spec.containers[0].readinessProbe;
  bad.spec.replicas = '1';
  expect(k8sProblems([{ type: 'V1Deployment', object: bad }])).toEqual([
    'V1Deployment.spec.replicas: expected a number, got "1"',
    'V1Deployment.spec.template.spec.containers[0].readinesProbe: not a field of V1Container',
  ]);
});

describe('the synthesized stack', () => {
  const p = build('rl-qwen3');
  const stack = new ServeStack(Testing.app(), 'serve-rl-qwen3', { platform: testPlatform(), plan: p.serve! });
  const tf = JSON.parse(Testing.synth(stack));
  test('one single-host spot TPU pool of the fitted shape, tainted, that exists only in this stack', () => {
    const pools = Object.values<any>(tf.resource.google_container_node_pool);
    expect(pools).toHaveLength(1);
    expect(pools[0]).toMatchObject({ name: 'serve-rl-qwen3', node_count: 1, node_locations: ['us-east5-b'], node_config: { machine_type: 'ct6e-standard-4t', spot: true } });
    expect(pools[0].placement_policy).toBeUndefined();
  });
  test('a flex-start serving pool is a plain flex-start pool, never queued: the Deployment is no Kueue workload, so no ProvisioningRequest would ask for its nodes', () => {
    const plan = build('rl-qwen3', { enabled: true, capacity: 'flex-start' }).serve!;
    const flex = JSON.parse(Testing.synth(new ServeStack(Testing.app(), 'serve-rl-qwen3', { platform: testPlatform(), plan })));
    const [pool] = Object.values<any>(flex.resource.google_container_node_pool);
    expect(pool).toMatchObject({ autoscaling: { min_node_count: 0, max_node_count: 1 }, node_config: { flex_start: true } });
    expect(pool.queued_provisioning).toBeUndefined();
  });
  test('a read-only identity: objectViewer on the export alone, bound to the server KSA only', () => {
    const grants = Object.values<any>(tf.resource.google_storage_bucket_iam_member);
    expect(grants.map((g) => [g.bucket, g.role])).toEqual([['my-bucket', 'roles/storage.objectViewer']]);
    const dir = p.serve!.modelPath.replace(/^gs:\/\/my-bucket\//, '');
    expect(grants[0].condition).toEqual({
      title: 'export-only',
      description: `read gs://my-bucket/${dir} only`,
      expression: `resource.name.startsWith("projects/_/buckets/my-bucket/objects/${dir}") || api.getAttribute("storage.googleapis.com/objectListPrefix", "").startsWith("${dir}")`,
    });
    const wi = Object.values<any>(tf.resource.google_service_account_iam_member)[0];
    expect(wi.member).toBe('serviceAccount:my-project.svc.id.goog[default/tpt-rl-qwen3-serve]');
    const ksa = Object.values<any>(tf.resource.kubernetes_service_account_v1)[0];
    expect(ksa.metadata.name).toBe('tpt-rl-qwen3-serve');
  });
  test('the smoke test is the wait: after the Deployment and Service, ending when the Job ends, passed or failed', () => {
    const manifests = tf.resource.kubernetes_manifest;
    const smoke = Object.values<any>(manifests).find((m) => m.manifest.kind === 'Job');
    expect(smoke.wait).toEqual({ fields: { 'status.conditions[0].type': SMOKE_ENDED } });
    expect(smoke.timeouts).toEqual({ create: `${p.serve!.waitMinutes}m`, update: `${p.serve!.waitMinutes}m` });
    expect(smoke.depends_on.length).toBe(2);
    expect(Object.keys(tf.output).sort()).toEqual(['endpoint', 'model_path', 'port_forward', 'served_model_name']);
    expect(tf.output.port_forward.value).toBe('kubectl port-forward -n default service/rl-qwen3-serve 8000:8000');
  });
  test('a failed smoke test fails the deploy at once: a gate on the ended Job names its logs and the retry', () => {
    const [[address, gate]] = Object.entries<any>(tf.data.kubernetes_resource);
    const job = p.serve!.smokeJobName;
    expect(job).toMatch(/^rl-qwen3-serve-smoke-[0-9a-f]{12}$/);
    expect(gate).toMatchObject({ api_version: 'batch/v1', kind: 'Job', metadata: { name: job, namespace: 'default' } });
    const smokeAddress = Object.entries<any>(tf.resource.kubernetes_manifest).find(([, m]) => m.manifest.kind === 'Job')![0];
    expect(gate.depends_on).toEqual([`kubernetes_manifest.${smokeAddress}`]);
    const [post] = gate.lifecycle.postcondition;
    expect(post.condition).toBe('${try(self.object.status.succeeded, 0) == 1}');
    expect(post.error_message).toBe(
      `serve-rl-qwen3: the smoke test (Job default/${job}) got no chat completion from http://rl-qwen3-serve.default.svc.cluster.local:8000. ` +
        `Read its log: kubectl logs -n default job/${job} ; the server's: kubectl logs -n default deployment/rl-qwen3-serve ; ` +
        `readiness: npm run status -- serve-rl-qwen3. After the fix, run the smoke test again: kubectl delete job -n default ${job} && npm run deploy -- serve-rl-qwen3`,
    );
    expect(address).toMatch(/smoke-passed/);
  });
});

describe('the smoke wait ends on the first Job condition, success or failure (Kubernetes Job controller; waiter.go FieldWaiter)', () => {
  const ended = new RegExp(SMOKE_ENDED);
  // The Job controller's conditions for a Job that ends: 1.31+ adds the interim condition first, earlier ones only the final.
  test.each([
    ['succeeded (1.31+)', ['SuccessCriteriaMet', 'Complete']],
    ['succeeded (before 1.31)', ['Complete']],
    ['failed (1.31+: backoffLimit 0 or activeDeadlineSeconds)', ['FailureTarget', 'Failed']],
    ['failed (before 1.31)', ['Failed']],
  ])('%s: the wait ends', (_, types) => expect(ended.test(types[0])).toBe(true));
  test('running or suspended: the wait goes on (no condition yet: the path is absent and FieldWaiter polls again)', () => {
    expect(ended.test('Suspended')).toBe(false);
    expect(ended.test('Completed')).toBe(false);
    expect(ended.test('')).toBe(false);
  });
});

describe('the export-only grant, as Cloud Storage evaluates it (IAM Conditions: resource.name, objectListPrefix)', () => {
  const s = build('rl-qwen3').serve!;
  const dir = s.modelPath.replace(/^gs:\/\/my-bucket\//, '');
  /** The condition's two clauses, read back from the expression: an object name prefix, a list prefix. */
  function evaluate(expression: string, request: { object?: string; listPrefix?: string }): boolean {
    const m = /^resource\.name\.startsWith\(("[^"]*")\) \|\| api\.getAttribute\("storage\.googleapis\.com\/objectListPrefix", ""\)\.startsWith\(("[^"]*")\)$/.exec(expression);
    if (!m) throw new Error(`not the two-clause condition: ${expression}`);
    const [name, list] = [JSON.parse(m[1]) as string, JSON.parse(m[2]) as string];
    // objects.get: resource.name is the object's; objects.list (and GetStorageLayout): the bucket's, with the list prefix attribute.
    const resource = request.object !== undefined ? `projects/_/buckets/my-bucket/objects/${request.object}` : 'projects/_/buckets/my-bucket';
    return resource.startsWith(name) || (request.listPrefix ?? '').startsWith(list);
  }
  const cond = s.readCondition.expression;
  test('the export: every file read, its listings allowed', () => {
    for (const f of ['config.json', 'model-00001-of-00016.safetensors', 'tokenizer.json']) expect(evaluate(cond, { object: `${dir}${f}` })).toBe(true);
    expect(evaluate(cond, { listPrefix: dir })).toBe(true);
    expect(evaluate(cond, { listPrefix: `${dir}sub/` })).toBe(true);
  });
  test("anything else: another run's export or checkpoint, a sibling with the same stem, the whole bucket's listing", () => {
    expect(evaluate(cond, { object: dir.replace(/\/$/, '-other/config.json') })).toBe(false);
    expect(evaluate(cond, { object: build('rl-gemma4').serve!.modelPath.replace(/^gs:\/\/my-bucket\//, '') + 'config.json' })).toBe(false);
    expect(evaluate(cond, { object: build('rl-qwen3').paths.trainedCheckpoint.replace(/^gs:\/\/my-bucket\//, '') + 'x' })).toBe(false);
    expect(evaluate(cond, { listPrefix: '' })).toBe(false);
    expect(evaluate(cond, { listPrefix: dir.replace(/\/$/, '') })).toBe(false);
  });
  test("so the volume skips both whole-bucket listings at mount: the CSI driver's access check and gcsfuse's HNS lookup", () => {
    const volume = (s.deployment as any).spec.template.spec.volumes.find((v: any) => v.name === 'model');
    expect(volume.csi.volumeAttributes).toEqual({ bucketName: 'my-bucket', mountOptions: `implicit-dirs,only-dir=${dir.replace(/\/$/, '')},enable-hns=false`, skipCSIBucketAccessCheck: 'true' });
  });
});

describe('the server lands on the TPU pool and the smoke test waits as long as the server may load (issue 38 item 6)', () => {
  const s = build('rl-qwen3').serve!;
  const pod = (s.deployment as any).spec.template.spec;
  test("the vLLM pod tolerates the TPU pool's taint (google.com/tpu NoSchedule), else it never schedules on the pool", () => {
    expect(pod.tolerations).toEqual([TPU_TOLERATION, { ...servePoolTaint(s.name), operator: 'Equal', effect: 'NoSchedule' }]);
    expect(TPU_TOLERATION).toMatchObject({ key: 'google.com/tpu', effect: 'NoSchedule' });
  });
  test('the smoke Job runs on the CPU pool, without the toleration', () => {
    const job = (s.smokeJob as any).spec.template.spec;
    expect(job.nodeSelector).toEqual({ 'cloud.google.com/gke-nodepool': 'cpu-np' });
    expect(job.tolerations).toBeUndefined();
  });
  test("the smoke window is the startup probe's plus scheduling and one last request: activeDeadlineSeconds, attempts and the stack's wait", () => {
    const job = (s.smokeJob as any).spec;
    const window = SERVE_SCHEDULE_MINUTES * 60 + s.startupSeconds;
    expect(job.activeDeadlineSeconds).toBe(window + SMOKE_REQUEST_SECONDS + SMOKE_RETRY_SECONDS);
    expect(job.activeDeadlineSeconds).toBe(3770);
    expect(job.backoffLimit).toBe(0);
    expect(s.smokeAttempts * SMOKE_RETRY_SECONDS).toBeGreaterThanOrEqual(window);
    expect(s.waitMinutes).toBe(Math.ceil(3770 / 60) + 5);
    expect(job.template.spec.containers[0].command[2]).toContain(`for attempt in $(seq 1 ${s.smokeAttempts}); do`);
  });
  test('a larger model gets a longer window: every served row, from its weights (serverStartSeconds)', () => {
    for (const name of Object.keys(RECIPES)) {
      const p = build(name).serve!;
      const start = serverStartSeconds(MODELS[RECIPES[name].model.name]);
      expect(p.startupSeconds).toBe(Math.ceil(start / 30) * 30);
      expect((p.smokeJob as any).spec.activeDeadlineSeconds).toBe(smokeWindow(p.startupSeconds).deadlineSeconds);
    }
  });
  test("a retrain (a new export) changes the Deployment, so the smoke Job's name and revision change and the deploy waits again", () => {
    const again = build('rl-qwen3', { enabled: true }, { runId: 'r2' }).serve!;
    expect(again.modelPath).not.toBe(s.modelPath);
    expect(again.smokeJobName).not.toBe(s.smokeJobName);
    expect((again.deployment as any).metadata.labels[SERVE_REVISION_LABEL]).toBe(again.revision);
    expect((again.smokeJob as any).metadata.labels[SERVE_REVISION_LABEL]).toBe(again.revision);
    // The same inputs: the same Job (no needless replacement).
    expect(build('rl-qwen3').serve!.smokeJobName).toBe(s.smokeJobName);
  });
  test('the export is checked before the Deployment changes: a plan-time read of its config.json that the Deployment depends on', () => {
    const tf = JSON.parse(Testing.synth(new ServeStack(Testing.app(), 'serve-rl-qwen3', { platform: testPlatform(), plan: s })));
    const [[address, object]] = Object.entries<any>(tf.data.google_storage_bucket_object);
    const dir = s.modelPath.replace(/^gs:\/\/my-bucket\//, '');
    expect(object).toMatchObject({ bucket: 'my-bucket', name: `${dir}config.json` });
    expect(object.depends_on).toBeUndefined();
    expect(object.lifecycle.postcondition[0].error_message).toContain(`the export ${s.modelPath} has no config.json`);
    const deployment = Object.values<any>(tf.resource.kubernetes_manifest).find((m) => m.manifest.kind === 'Deployment');
    expect(deployment.depends_on).toContain(`data.google_storage_bucket_object.${address}`);
  });
});

describe('every model-table row: the export serves on the pinned image, or eval and serve are refused with the reason', () => {
  test.each(Object.keys(MODELS))('%s', (key) => {
    const row = SERVING[key];
    expect(row).toBeDefined();
    const recipe = Object.values(RECIPES).find((r) => r.model.name === key) ?? RECIPES['rl-qwen3'];
    const r = planServe({ ...input(build('rl-qwen3')), model: key, trainingMachineType: recipe.slice.machineType }, { enabled: true }, `pipelines.x`);
    if (row.unservable) {
      expect(r.problems[0]).toBe(`pipelines.x.serve.enabled: vllm/vllm-tpu:nightly-20260816-11250b4-1d2d83a cannot serve ${key}: ${row.unservable}`);
    } else if (r.plan) {
      expect((r.plan.deployment as any).spec.template.spec.containers[0].args.slice(8)).toEqual(row.vllmArgs ?? []);
    } else {
      // Served, but no single v6e host holds it (qwen3-235b-a22b, llama3.1-70b): the fit check says so.
      expect(r.problems.join('\n')).toMatch(/does not fit one v6e host/);
    }
  });
});

// ---- what the mutation run (npm run mutate, jobs/serve.ts) found unasserted -------------------------------------------

describe('the objects field by field (each value a reason: tpu-inference deploy-cpu-offload.yaml, Kubernetes defaults we do not rely on)', () => {
  const s = build('rl-qwen3').serve!;
  const d = s.deployment as any;
  const labels = { 'app.kubernetes.io/part-of': 'tpu-post-training', 'tpu-post-training/pipeline': 'rl-qwen3', 'tpu-post-training/serve': 'rl-qwen3-serve' };
  test('the Deployment: one replica, Recreate (one host, every chip), selected by the serve label, labelled with its revision', () => {
    expect(d.apiVersion).toBe('apps/v1');
    expect(d.kind).toBe('Deployment');
    expect(d.metadata).toEqual({ name: 'rl-qwen3-serve', namespace: 'default', labels: { ...labels, [SERVE_REVISION_LABEL]: s.revision } });
    expect(s.revision).toMatch(/^[0-9a-f]{12}$/);
    expect(d.spec.replicas).toBe(1);
    expect(d.spec.strategy).toEqual({ type: 'Recreate' });
    expect(d.spec.selector).toEqual({ matchLabels: { 'tpu-post-training/serve': 'rl-qwen3-serve' } });
    expect(d.spec.template.metadata.labels).toEqual(labels);
    expect(d.spec.template.spec.terminationGracePeriodSeconds).toBe(60);
  });
  test('the vLLM container: pinned image pulled if not present, the http port, the three probes of the upstream example', () => {
    const c = d.spec.template.spec.containers[0];
    expect(d.spec.template.spec.containers).toHaveLength(1);
    expect(c.name).toBe('vllm');
    expect(c.imagePullPolicy).toBe('IfNotPresent');
    expect(c.ports).toEqual([{ name: 'http', containerPort: 8000 }]);
    const health = { path: '/health', port: 8000 };
    expect(c.startupProbe).toEqual({ httpGet: health, periodSeconds: 30, timeoutSeconds: 5, failureThreshold: 101 });
    expect(c.readinessProbe).toEqual({ httpGet: health, periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 3 });
    expect(c.livenessProbe).toEqual({ httpGet: health, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 });
    expect(c.volumeMounts).toEqual([
      { name: 'model', mountPath: '/models/export', readOnly: true },
      { name: 'dshm', mountPath: '/dev/shm' },
    ]);
    expect(d.spec.template.spec.volumes[1]).toEqual({ name: 'dshm', emptyDir: { medium: 'Memory' } });
  });
  test('the Service: ClusterIP on 8000 over TCP, selecting the server, no annotation', () => {
    expect(s.service).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'rl-qwen3-serve', namespace: 'default', labels },
      spec: { type: 'ClusterIP', selector: { 'tpu-post-training/serve': 'rl-qwen3-serve' }, ports: [{ name: 'http', port: 8000, targetPort: 8000, protocol: 'TCP' }] },
    });
  });
  test('the smoke Job: never restarted, on the vLLM image (it has curl), one bash script, labelled with the revision', () => {
    const job = s.smokeJob as any;
    const jobLabels = { ...labels, [SERVE_REVISION_LABEL]: s.revision };
    expect(job.apiVersion).toBe('batch/v1');
    expect(job.kind).toBe('Job');
    expect(job.metadata).toEqual({ name: s.smokeJobName, namespace: 'default', labels: jobLabels });
    expect(job.spec.template.metadata).toEqual({ labels: jobLabels });
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
    expect(job.spec.template.spec.containers).toEqual([
      { name: 'smoke', image: s.image, imagePullPolicy: 'IfNotPresent', command: ['/bin/bash', '-c', smokeScript(s.endpoint, 'rl-qwen3', s.smokeAttempts)] },
    ]);
  });
  test('the plan names what the stack, status and review read', () => {
    expect(s).toMatchObject({
      stack: 'serve-rl-qwen3',
      pipeline: 'rl-qwen3',
      namespace: 'default',
      name: 'rl-qwen3-serve',
      poolName: 'serve-rl-qwen3',
      servedModelName: 'rl-qwen3',
      image: 'vllm/vllm-tpu:nightly-20260816-11250b4-1d2d83a',
      maxModelLen: 16384,
      internalLoadBalancer: false,
      ksaName: 'tpt-rl-qwen3-serve',
      smokeDeadlineSeconds: 3770,
    });
    expect(s.gsaId).toBe(serveIdentityOf('tpt', 'rl-qwen3').gsaId);
    const dir = s.modelPath.replace(/^gs:\/\/my-bucket\//, '').replace(/\/$/, '');
    expect(s.exportConfigObject).toEqual({ bucket: 'my-bucket', name: `${dir}/config.json` });
    expect(build('rl-qwen3', { enabled: true, internalLoadBalancer: true }).serve!.internalLoadBalancer).toBe(true);
  });
});

describe('names, identities, windows', () => {
  test('serveNames and serveIdentityOf: per pipeline, per cluster; a long id cut with a hash to 30 characters', () => {
    expect(serveNames('rl-qwen3')).toEqual({ stack: 'serve-rl-qwen3', name: 'rl-qwen3-serve', smokeJobName: 'rl-qwen3-serve-smoke', poolName: 'serve-rl-qwen3' });
    expect(serveIdentityOf('dev', 'rl-qwen3')).toEqual({ gsaId: 'dev-serve-rl-qwen3', ksaName: 'dev-rl-qwen3-serve' });
    const long = serveIdentityOf('a-very-long-cluster-name', 'rl-qwen3');
    expect(long.gsaId).toMatch(/^a-very-long-cluster-nam-[0-9a-f]{6}$/);
    expect(long.ksaName).toBe('a-very-long-cluster-name-rl-qwen3-serve');
  });
  test('startupFailureThreshold rounds the start window up to whole probe periods', () => {
    expect(startupFailureThreshold(3000)).toBe(100);
    expect(startupFailureThreshold(3001)).toBe(101);
  });
  test('smokeWindow: 10 minutes of scheduling plus the startup window, one request and one retry; attempts cover the window', () => {
    // 600 + 3000 = 3600 s window; deadline 3600 + 120 + 20; attempts 3600 / 20 + 1; wait ceil(3740 / 60) + 5.
    expect(smokeWindow(3000)).toEqual({ deadlineSeconds: 3740, attempts: 181, waitMinutes: 68 });
    expect(smokeWindow(3010)).toEqual({ deadlineSeconds: 3750, attempts: 182, waitMinutes: 68 });
  });
  test('modelPathOf reads the export back from the FUSE volume; anything else is undefined', () => {
    const s = build('rl-qwen3').serve!;
    expect(modelPathOf(s.deployment)).toBe(s.modelPath);
    expect(modelPathOf(undefined)).toBeUndefined();
    expect(modelPathOf({})).toBeUndefined();
    const volume = (attributes: object, name = 'model') => ({ spec: { template: { spec: { volumes: [{ name, csi: { volumeAttributes: attributes } }] } } } });
    expect(modelPathOf(volume({ bucketName: 'b', mountOptions: 'only-dir=x/y' }))).toBe('gs://b/x/y/');
    expect(modelPathOf(volume({ bucketName: 'b', mountOptions: 'implicit-dirs,only-dir=x/y,enable-hns=false' }))).toBe('gs://b/x/y/');
    expect(modelPathOf(volume({ bucketName: 'b', mountOptions: 'implicit-dirs,not-only-dir=x' }))).toBeUndefined();
    expect(modelPathOf(volume({ bucketName: 'b', mountOptions: 'implicit-dirs' }))).toBeUndefined();
    expect(modelPathOf(volume({ mountOptions: 'only-dir=x' }))).toBeUndefined();
    expect(modelPathOf(volume({ bucketName: 'b' }))).toBeUndefined();
    expect(modelPathOf(volume({ bucketName: 'b', mountOptions: 'only-dir=x' }, 'dshm'))).toBeUndefined();
  });
  test('smokeScript: one chat completion, retried, "choices" required, exit 1 after the last attempt', () => {
    expect(smokeScript('http://s:8000', 'm', 3)).toBe(
      [
        'set -u',
        'for attempt in $(seq 1 3); do',
        `  if out="$(curl -fsS -m 120 -H 'Content-Type: application/json' -d '{"model":"m","messages":[{"role":"user","content":"Reply with OK."}],"max_tokens":8}' http://s:8000/v1/chat/completions)" && printf '%s' "$out" | grep -q '"choices"'; then`,
        '    echo "smoke test passed: $out"; exit 0',
        '  fi',
        '  echo "smoke test: attempt $attempt of 3 got no chat completion; retrying in 20s"',
        '  sleep 20',
        'done',
        'echo "smoke test failed: no chat completion from http://s:8000 after 3 attempts"',
        'exit 1',
      ].join('\n'),
    );
  });
  test('the messages the deploy and the review print', () => {
    const s = build('rl-qwen3').serve!;
    const dir = s.modelPath.replace(/^gs:\/\/my-bucket\//, '').replace(/\/$/, '');
    expect(exportMissingMessage(s)).toBe(
      `serve-rl-qwen3: the export ${s.modelPath} has no config.json (gs://my-bucket/${dir}/config.json), so the server would not start; nothing was changed. ` +
        'Deploy the serve stack after rl-qwen3\'s to-hf step has written it: npm run status -- rl-qwen3',
    );
    expect(serveSummary(s)).toBe(`serve-rl-qwen3: vLLM serves ${s.modelPath} on ct6e-standard-4t 2x2 (v6e-4, spot; ${fitText(s.fit)})`);
    expect(smokeFailureMessage(s)).toContain(`serve-rl-qwen3: the smoke test (Job default/${s.smokeJobName})`);
  });
});

describe('errors at their limits, each naming its key', () => {
  const problems = (options: ServeOptions, patch: object = {}) => planServe({ ...input(build('rl-qwen3')), ...patch }, { enabled: true, ...options }, 'pipelines.rl-qwen3').problems;
  test('maxModelLen: whole numbers from 256 to 1048576', () => {
    for (const ok of [256, 1 << 20]) expect(problems({ maxModelLen: ok }).filter((p) => p.startsWith('pipelines.rl-qwen3.serve.maxModelLen'))).toEqual([]);
    for (const bad of [255, (1 << 20) + 1, 1000.5]) {
      expect(problems({ maxModelLen: bad })).toContain(`pipelines.rl-qwen3.serve.maxModelLen must be a whole number from 256 to 1048576, got ${bad}`);
    }
  });
  test('sequences: whole numbers from 1 to 1024', () => {
    for (const ok of [1, 1024]) expect(problems({ sequences: ok }).filter((p) => p.startsWith('pipelines.rl-qwen3.serve.sequences'))).toEqual([]);
    for (const bad of [1025, 1.5]) expect(problems({ sequences: bad })).toContain(`pipelines.rl-qwen3.serve.sequences must be a whole number from 1 to 1024, got ${bad}`);
  });
  test('a reservation that is no reservation name; a reservation with spot, under the key that set the conflict', () => {
    expect(problems({ capacity: 'reservation', reservation: 'Bad Name' })).toEqual([`pipelines.rl-qwen3.serve.reservation: ${reservationProblem('Bad Name')}`]);
    expect(problems({ capacity: 'spot', reservation: 'r1' })).toEqual([
      "pipelines.rl-qwen3.serve.capacity: capacity 'spot' consumes no reservation, but reservation 'r1' is set; drop the reservation to use spot, or drop the capacity setting to use the reservation",
    ]);
    expect(problems({ reservation: 'r1' })).toEqual([expect.stringMatching(/^pipelines\.rl-qwen3\.serve\.reservation: capacity 'spot' consumes no reservation/)]);
    expect(problems({ capacity: 'reservation', reservation: 'r1' })).toEqual([]);
  });
  test('a pipeline name that makes the pool name longer than GKE allows (40)', () => {
    const fits = 'p'.repeat(34); // serve-<34> is 40 characters
    expect(problems({}, { pipeline: fits }).filter((p) => p.includes('node pool'))).toEqual([]);
    const name35 = 'p'.repeat(35);
    expect(problems({}, { pipeline: name35 })).toContain(`pipelines.rl-qwen3.serve: node pool name 'serve-${name35}' is 41 characters, over the 40 GKE allows`);
  });
  test('no plan while any problem stands', () => {
    const r = planServe(input(build('rl-qwen3')), { enabled: true, sequences: 0 }, 'pipelines.rl-qwen3');
    expect(r.plan).toBeUndefined();
    const ok = planServe(input(build('rl-qwen3')), { enabled: true }, 'pipelines.rl-qwen3');
    expect(ok.problems).toEqual([]);
    expect(ok.plan?.ksaName).toBe('tpu-post-train-rl-qwen3-serve');
  });
});

test('a training machine type outside the TPU table: the server is sized on v6e', () => {
  const r = planServe({ ...input(build('rl-qwen3')), trainingMachineType: 'n2-standard-8' }, { enabled: true }, 'pipelines.rl-qwen3');
  expect(r.problems).toEqual([]);
  expect(r.plan!.slice.machineType).toBe('ct6e-standard-4t');
  const flex = planServe(input(build('rl-qwen3')), { enabled: true, capacity: 'flex-start', reservation: 'r1' }, 'pipelines.rl-qwen3');
  expect(flex.plan).toBeUndefined();
  expect(flex.problems).toEqual([expect.stringMatching(/^pipelines\.rl-qwen3\.serve\.capacity: capacity 'flex-start' consumes no reservation/)]);
});
