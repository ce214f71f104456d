/** Pure builders: failure semantics, names, secret wiring, rendering. */
import { compact, INFRASTRUCTURE_EXIT_CODES, SAFE_TO_EVICT_ANNOTATION, pullPolicy } from '../../jobs/jobset';
import { formatNumber, pythonJson, renderValue, shellQuote } from '../../jobs/maxtext';
import { checkJobSetNames, longestPodName } from '../../jobs/names';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { testPlatform } from './fixtures';

const p = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' });
const all = () => Object.values(RECIPES).flatMap((r) => buildPipeline(r, testPlatform(), { runId: 'r1' }).steps);

test('application errors and deadlines fail the JobSet; a lost host restarts it; multi-host programs have no FailJob rule', () => {
  for (const s of all()) {
    const m = s.manifest as any;
    expect(m.spec.failurePolicy).toEqual({
      maxRestarts: s.maxRestarts,
      restartStrategy: 'BlockingRecreate',
      rules: [{ name: 'FailJobSetOnApplicationErrorOrDeadline', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy', 'DeadlineExceeded'] }],
    });
    for (const rj of m.spec.replicatedJobs) expect(rj.template.spec.activeDeadlineSeconds).toBe(s.timeoutMinutes * 60);
    for (const rj of m.spec.replicatedJobs) {
      const pathwaysWorker = rj.name === 'worker';
      // One JAX program on more than one host: the Pathways head's client, or a multi-host slice in training.
      const program = rj.name === 'pathways-head' || (s.name === 'train' && rj.name === 'slice' && rj.replicas * rj.template.spec.parallelism > 1);
      expect(rj.template.spec.template.spec.restartPolicy).toBe(pathwaysWorker ? 'OnFailure' : 'Never');
      expect(rj.template.spec.backoffLimit).toBe(pathwaysWorker ? 4 * rj.template.spec.parallelism : 0);
      if (pathwaysWorker || program) expect(rj.template.spec.podFailurePolicy).toBeUndefined();
      else
        expect(rj.template.spec.podFailurePolicy.rules).toEqual([
          { action: 'Count', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
          { action: 'FailJob', onExitCodes: { containerName: 'workload-container', operator: 'NotIn', values: [42, 137, 143] } },
        ]);
      // The eval pod also asks GKE to inject the Cloud Storage FUSE sidecar for its export mount.
      expect(rj.template.spec.template.metadata.annotations).toEqual({
        [SAFE_TO_EVICT_ANNOTATION]: 'false',
        ...(s.name === 'eval' ? { 'gke-gcsfuse/volumes': 'true' } : {}),
      });
    }
    expect(m.spec.ttlSecondsAfterFinished).toBeUndefined();
  }
  expect(INFRASTRUCTURE_EXIT_CODES).toEqual([42, 137, 143]);
});

test('every pod runs as the Workload Identity KSA, carries the queue label and mounts the token read-only', () => {
  for (const s of all()) {
    const m = s.manifest as any;
    expect(m.metadata.labels['kueue.x-k8s.io/queue-name']).toBe('user-queue');
    for (const rj of m.spec.replicatedJobs) {
      const pod = rj.template.spec.template;
      expect(pod.spec.serviceAccountName).toBe('tpt-workloads'); // <cluster>-workloads: the cluster makes the principal its own
      expect(pod.metadata.labels['kueue.x-k8s.io/queue-name']).toBe('user-queue');
    }
    const head = m.spec.replicatedJobs[0].template.spec.template.spec;
    const tokenUser = s.name !== 'to-hf' || s.jobSetName.indexOf('llama') < 0;
    if (tokenUser) {
      expect(head.volumes).toContainEqual({
        name: 'hf-token',
        csi: { driver: 'secrets-store-gke.csi.k8s.io', readOnly: true, volumeAttributes: { secretProviderClass: expect.stringMatching(/-hf-token$/) } },
      });
    }
  }
});

test('the SecretProviderClass points at the Secret Manager secret, by reference only', () => {
  expect(p.secretProviderClass).toEqual({
    apiVersion: 'secrets-store.csi.x-k8s.io/v1',
    kind: 'SecretProviderClass',
    metadata: { name: 'rl-qwen3-hf-token', namespace: 'default', labels: p.labels },
    spec: {
      provider: 'gke',
      parameters: { secrets: '- resourceName: "projects/my-project/secrets/tpt-hf-token/versions/latest"\n  path: "hf-token"\n' },
    },
  });
});

test('no manifest contains null, empty objects or empty arrays', () => {
  const walk = (v: unknown, path: string): void => {
    expect([path, v]).not.toEqual([path, null]);
    if (Array.isArray(v)) {
      expect([path, v.length]).not.toEqual([path, 0]);
      v.forEach((x, i) => walk(x, `${path}[${i}]`));
    } else if (v && typeof v === 'object') {
      expect([path, Object.keys(v).length]).not.toEqual([path, 0]);
      for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    }
  };
  for (const s of all()) walk(s.manifest, s.jobSetName);
  expect(compact({ a: undefined, b: [], c: {}, d: { e: null }, f: 0 })).toEqual({ f: 0 });
});

test('pod names: derived from the JobSet and checked against 63 characters', () => {
  expect(longestPodName('rl-qwen3-r1-train', { name: 'worker', replicas: 2, parallelism: 8 })).toBe('rl-qwen3-r1-train-worker-1-7-xxxxx');
  expect(() =>
    buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'a-very-long-run-identifier-that-goes-on', configSource: 'pipelines.rl-qwen3' }),
  ).toThrow(
    "pipelines.rl-qwen3.runId: run id 'a-very-long-run-identifier-that-goes-on' is too long: run ids of rl-qwen3 may have at most 7 characters " +
      "(JobSet rl-qwen3-a-very-long-run-identifier-that-goes-on-to-maxtext: Job name 'rl-qwen3-a-very-long-run-identifier-that-goes-on-to-maxtext-convert-0' is 69 characters, over the 63 JobSet allows)",
  );
  expect(() => checkJobSetNames('Bad_Name', 'r1', [{ step: 'train', replicatedJobs: [] }], 'x')).toThrow(
    "x: JobSet name (and Service) 'Bad_Name-r1-train' is not a DNS-1035 label",
  );
});

test('rendering: tutorial number spelling, python-style JSON, shell quoting, pull policy', () => {
  expect(formatNumber(2e-5)).toBe('2e-5');
  expect(formatNumber(0.95)).toBe('0.95');
  expect(pythonJson({ a: [1, 'b'], c: false })).toBe('{"a": [1, "b"], "c": false}');
  expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  expect(renderValue(true)).toBe('True');
  expect(pullPolicy('x/y:latest')).toBe('Always');
  expect(pullPolicy('x/y:0.2.4')).toBe('IfNotPresent');
  expect(pullPolicy('x/y')).toBe('Always');
});

test('scripts avoid Terraform template syntax and never hold a token value', () => {
  for (const s of all()) {
    const json = JSON.stringify(s.manifest);
    expect(json).not.toMatch(/\$\{|%\{/);
    expect(json).not.toMatch(/hf_[A-Za-z0-9]{20,}/);
  }
});

describe('re-runs keep an existing converted checkpoint', () => {
  const { container, scriptOf } = require('./fixtures');
  const toMaxTextScript = (recipe: any) => {
    const step = buildPipeline(recipe, testPlatform(), { runId: 'r2' }).steps[0];
    return scriptOf(container(step.manifest, 'convert', 'workload-container'));
  };

  test('default: to-maxtext exits 0 when a complete step 0 (Orbax commit_success.txt) exists, before reading the token', () => {
    const script = toMaxTextScript(RECIPES['rl-qwen3']);
    const dir = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r2' }).paths.maxtextDir;
    expect(dir).toMatch(/\/qwen3-30b-a3b\/max-text-format\/[0-9a-f]{12}\/$/);
    expect(script).toContain(`gcsfs.GCSFileSystem().exists('${dir.replace('gs://', '')}0/commit_success.txt')`);
    expect(script.indexOf('gcsfs')).toBeLessThan(script.indexOf('HF_TOKEN='));
  });

  test('override: reuseExisting false always converts; to-hf never skips', () => {
    const recipe = RECIPES['rl-qwen3'];
    expect(toMaxTextScript({ ...recipe, toMaxText: { ...recipe.toMaxText, reuseExisting: false } })).not.toContain('commit_success.txt');
    const toHf = buildPipeline(recipe, testPlatform(), { runId: 'r1' }).steps[2];
    expect(scriptOf(container(toHf.manifest, 'convert', 'workload-container'))).not.toContain('commit_success.txt');
  });
});
