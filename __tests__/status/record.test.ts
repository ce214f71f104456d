/**
 * The cluster record (jobs/record.ts): what a pipeline stack deploys, in a ConfigMap; status and logs read it from the
 * cluster, so a new shell (no exports: the example config) shows what is deployed, and says where its config
 * disagrees. In process for the record itself; the compiled CLI against the fake API server (bench/fake-kube-api.ts)
 * in a shell with no exports for the rest.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TerraformStack, Testing } from 'cdktf';
import { buildApp } from '../../stacks/app';
import { loadDeployment } from '../../config/deployment';
import { lastCheckpointStep } from '../../jobs/maxtext';
import { parseRecord, pipelineRecord, RECORD_KEY, RECORD_LABEL, recordConfigMap, recordName } from '../../jobs/record';
import { PATHWAYS_IMAGES } from '../../jobs/jobset';
import { CONTEXT, emptyWorld, FakeApi, iso, jobSet, pod, record, recordMap, rlLine, running, startFakeApi, workload, writeKubeconfig } from '../../bench/fake-kube-api';
import { ensureDist } from '../dist';
import { useCliHost } from './cli-host';
import { configFile } from '../util';

/** The get-credentials advice for the example config: its placeholder project is never printed as the value to use. */
const ADVICE = "gcloud container clusters get-credentials tpu-post-train --location=us-east5 --project=<your project>   (the local config's project 'my-tpu-project' is the example's placeholder: set PROJECT, or CONFIG_FILE to your environment's config)";

/** Another team's deployment of rl-llama3 (the single-host pipeline the example config leaves out), in its own project and bucket. */
const DEPLOYED_ENV = { PROJECT: 'acme-tpu', GCS_BUCKET: 'acme-ckpt', SINGLE_HOST_RESERVATION: 'acme-v6e-8', AUTHORIZED_CIDR: '198.18.0.0/15', PIPELINES: 'rl-llama3' };
const deployed = loadDeployment({ env: DEPLOYED_ENV });
const llama = deployed.pipelines.find((p) => p.name === 'rl-llama3')!;
const llamaRecord = deployed.records['rl-llama3']!;

describe('the record (in process)', () => {
  test('holds the step names, JobSet names, run, bucket paths, export path and the deployment hash', () => {
    expect(llamaRecord).toMatchObject({
      version: 1,
      name: 'rl-llama3',
      runId: 'r1',
      runName: llama.recipe.train.args['run_name'],
      project: 'acme-tpu',
      cluster: deployed.platform.clusterName,
      namespace: 'default',
      trainKind: 'rl',
      exportPath: llama.paths.hfExportDir,
      deploymentHash: llama.steps[llama.steps.length - 1]!.specHash,
    });
    expect(llamaRecord.exportPath).toMatch(/^gs:\/\/acme-ckpt\//);
    expect(llamaRecord.paths).toMatchObject({ maxtextCheckpoint: llama.paths.maxtextCheckpoint, trainedCheckpoint: llama.paths.trainedCheckpoint, hfExportDir: llama.paths.hfExportDir });
    expect(llamaRecord.steps.map((s) => [s.name, s.jobSetName, s.output])).toEqual([
      ['to-maxtext', llama.steps[0]!.jobSetName, llama.paths.maxtextCheckpoint],
      ['train', llama.steps[1]!.jobSetName, llama.paths.trainedCheckpoint],
      ['to-hf', llama.steps[2]!.jobSetName, llama.paths.hfExportDir],
      ['eval', llama.steps[3]!.jobSetName, llama.eval!.evalJson],
    ]);
    expect(llamaRecord.steps[1]).toMatchObject({ totalSteps: lastCheckpointStep(llama.recipe.train), tpuChips: 8, waitMinutes: llama.steps[1]!.waitMinutes });
    expect(llamaRecord.steps[0]!.totalSteps).toBeUndefined();
  });

  test('names who sets each container image: the MaxText image by its config key, the Pathways images in code', () => {
    const qwen = record('rl-qwen3');
    const train = qwen.steps.find((s) => s.name === 'train')!;
    expect(train.images['workload-container']).toEqual({
      image: pipelineImage('rl-qwen3'),
      setBy: 'pipelines.rl-qwen3.image (or CLOUD_IMAGE_NAME), the MaxText image',
      effect: 'a new image trains a new run (the run name carries it)',
    });
    expect(train.images['pathways-proxy']).toEqual({ image: PATHWAYS_IMAGES.proxy, setBy: 'code: jobs/jobset.ts PATHWAYS_IMAGES.proxy (no config key)' });
    expect(train.images['pathways-rm']).toEqual({ image: PATHWAYS_IMAGES.server, setBy: 'code: jobs/jobset.ts PATHWAYS_IMAGES.server (no config key)' });
    expect(train.images['pathways-worker']).toEqual(train.images['pathways-rm']);
  });

  test('the ConfigMap: <pipeline>-record, labelled, and read back unchanged; what cannot be read says why', () => {
    const map = recordConfigMap(llamaRecord, llama.labels) as any;
    expect(map.metadata).toEqual({ name: 'rl-llama3-record', namespace: 'default', labels: { ...llama.labels, [RECORD_LABEL]: 'true' } });
    expect(recordName('rl-llama3')).toBe('rl-llama3-record');
    expect(parseRecord(map.data)).toEqual(llamaRecord);
    expect(parseRecord(undefined)).toBe('no record.json key');
    expect(parseRecord({ [RECORD_KEY]: '{' })).toBe('record.json is not JSON');
    expect(parseRecord({ [RECORD_KEY]: 'null' })).toBe('record.json is not an object');
    expect(parseRecord({ [RECORD_KEY]: JSON.stringify({ ...llamaRecord, version: 2 }) })).toBe('record version 2, this version reads 1 (update this checkout)');
    const { steps: _steps, exportPath: _export, ...partial } = llamaRecord;
    expect(parseRecord({ [RECORD_KEY]: JSON.stringify(partial) })).toBe('the record lacks exportPath, steps');
  });

  test('the local config builds the same record the pipeline stack writes into the cluster', () => {
    expect(pipelineRecord(llama, deployed.platform)).toEqual(llamaRecord);
    const app = buildApp(deployed, { outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-record-')) });
    const tf = JSON.parse(Testing.synth(app.node.findChild('rl-llama3') as TerraformStack));
    const manifests = Object.values<any>(tf.resource.kubernetes_manifest).map((m) => m.manifest).filter((m) => m.kind === 'ConfigMap');
    expect(manifests).toEqual([recordConfigMap(llamaRecord, llama.labels)]);
  });
});

function pipelineImage(name: string): string {
  return loadDeployment({ env: { SINGLE_HOST_RESERVATION: 'x' } }).pipelines.find((p) => p.name === name)!.image;
}

// ---- the CLI in a shell with no exports -------------------------------------------------------------------------

interface Bare {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The compiled CLI with nothing but PATH, HOME and KUBECONFIG: a new shell, so the local config is config/example.json
 * (run in the file's CLI host, __tests__/status/cli-host.ts, with exactly that environment).
 */
const runCliExactly = useCliHost();
function runBare(args: string[], env: Record<string, string>): Promise<Bare> {
  return runCliExactly(args, { PATH: process.env.PATH ?? '', ...env });
}

let api: FakeApi | undefined;
let dirs: string[] = [];
beforeAll(ensureDist);
afterEach(async () => {
  await api?.close();
  api = undefined;
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** The deployed rl-llama3: converted, training at step 40 on its v6e-8, with its record in the cluster. */
function deployedWorld() {
  const w = emptyWorld();
  const completed = { terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done', lastTransitionTime: iso(5) }] };
  w.jobSets.push(jobSet(llama.steps[0]!, completed));
  const train = jobSet(llama.steps[1]!);
  w.jobSets.push(train);
  w.workloads.push(workload(train, true, { chips: 8 }));
  const main = pod(train, 'slice', running(10));
  w.pods.push(main);
  w.logs[main.metadata.name] = Array.from({ length: 4 }, (_, i) => rlLine(52 + 2 * i, i + 1));
  w.configMaps = [recordMap(llamaRecord, llama.labels)];
  return w;
}

async function serve(world: ReturnType<typeof emptyWorld>): Promise<{ KUBECONFIG: string; HOME: string }> {
  api = await startFakeApi(world);
  const { file, dir } = writeKubeconfig(api.url);
  dirs.push(dir);
  return { KUBECONFIG: file, HOME: dir };
}

test('a new shell shows the deployed pipeline from its record: its steps, paths and the cluster it came from', async () => {
  const env = await serve(deployedWorld());
  const r = await runBare(['status', 'rl-llama3', '--json'], env);
  expect(r.code).toBe(3);
  const [p] = JSON.parse(r.stdout).pipelines;
  expect(p.name).toBe('rl-llama3');
  expect(p.steps.map((s: any) => [s.name, s.jobset, s.state])).toEqual([
    ['to-maxtext', llama.steps[0]!.jobSetName, 'completed'],
    ['train', llama.steps[1]!.jobSetName, 'running'],
    ['to-hf', llama.steps[2]!.jobSetName, 'not-created'],
    ['eval', llama.steps[3]!.jobSetName, 'not-created'],
  ]);
  // The deployed bucket, not the example's placeholder.
  expect(p.steps[0].message).toBe(`output: ${llama.paths.maxtextCheckpoint}`);
  expect(p.steps[0].message).toContain('gs://acme-ckpt/');
  expect(p.steps[1].progress).toEqual({ step: 4, total: lastCheckpointStep(llama.recipe.train) });
  expect(r.stderr).toBe(
    `note: rl-llama3 is deployed by cluster ${deployed.platform.clusterName} in project acme-tpu (record rl-llama3-record); the local config config/example.json deploys cluster tpu-post-train in project my-tpu-project: status shows what is deployed\n`,
  );
  // With no name: what the cluster records, not the example's enabled pipelines.
  const all = await runBare(['status', '--json'], env);
  expect(JSON.parse(all.stdout).pipelines.map((x: any) => x.name)).toEqual(['rl-llama3']);
});

test('logs in a new shell finds the deployed step from the record', async () => {
  const env = await serve(deployedWorld());
  const r = await runBare(['logs', 'rl-llama3', 'train'], env);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('Train step 4 training loss');
  expect(r.stderr).toContain(`==> rl-llama3 train: pod ${llama.steps[1]!.jobSetName}-slice-0-0-x7k2p, container workload-container`);
});

test('the same pipeline, deployed from another spec: a note names both hashes and the diff command', async () => {
  const w = emptyWorld();
  // Deployed with another image than the local config (the example's) gives: the record of that deployment.
  const other = loadDeployment({ env: { CLOUD_IMAGE_NAME: 'us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.3' } }).records['rl-qwen3']!;
  // What the CLI builds in this bare shell: the example config without the single-host slice (so without an eval step).
  const local = loadDeployment({ env: {} }).records['rl-qwen3']!;
  expect(other.deploymentHash).not.toBe(local.deploymentHash);
  w.configMaps = [recordMap(other)];
  const env = await serve(w);
  const r = await runBare(['status', 'rl-qwen3', '--json'], env);
  expect(r.stderr).toBe(
    `note: rl-qwen3: the local config config/example.json differs from what is deployed (deployment ${other.deploymentHash.slice(0, 12)} in the cluster, ${local.deploymentHash.slice(0, 12)} here): status shows what is deployed; npm run diff -- rl-qwen3 shows the change\n`,
  );
  expect(JSON.parse(r.stdout).pipelines[0].steps.map((s: any) => s.jobset)).toEqual(other.steps.map((s) => s.jobSetName));
});

test('a record this version cannot read is named, and the local config is used; an unknown name lists both sources', async () => {
  const w = emptyWorld();
  const bad = recordMap(record('rl-qwen3'));
  bad.data[RECORD_KEY] = JSON.stringify({ version: 9 });
  w.configMaps = [bad];
  const env = await serve(w);
  const r = await runBare(['status', 'rl-qwen3', '--json'], env);
  expect(r.stderr).toBe('note: record rl-qwen3-record: record version 9, this version reads 1 (update this checkout); status reads that pipeline from the local config\n');
  expect(JSON.parse(r.stdout).pipelines[0].steps[0].message).toBe('not deployed: npm run deploy -- rl-qwen3');
  const unknown = await runBare(['status', 'rl-nope'], env);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr.split('\n')[0]).toBe(
    "status: no pipeline named 'rl-nope' is deployed in the cluster (records: none) or enabled in the local config config/example.json (rl-qwen3, rl-gemma4, sft-gemma4)",
  );
});

test('--context picks one of several contexts; an unknown one lists them; no kubeconfig names get-credentials', async () => {
  const env = await serve(deployedWorld());
  const config = JSON.parse(fs.readFileSync(env.KUBECONFIG, 'utf8'));
  // The current context is another cluster (nothing listens there); --context names the fake one.
  config.clusters.push({ name: 'other', cluster: { server: 'http://127.0.0.1:9', 'insecure-skip-tls-verify': true } });
  config.contexts.push({ name: 'other', context: { cluster: 'other', user: CONTEXT } });
  config['current-context'] = 'other';
  fs.writeFileSync(env.KUBECONFIG, JSON.stringify(config));
  const picked = await runBare(['status', 'rl-llama3', '--context', CONTEXT], env);
  expect(picked.code).toBe(3);
  expect(picked.stdout.split('\n')[0]).toMatch(new RegExp(`^cluster ${CONTEXT} \\(${api!.url}\\), namespace default \\(records read from every namespace\\); local config: environment `));
  const unknown = await runBare(['status', '--context', 'nope'], env);
  expect(unknown.code).toBe(4);
  expect(unknown.stderr).toContain(`status: no context 'nope' in the kubeconfig (${env.KUBECONFIG}); its contexts: ${CONTEXT}, other.`);
  const none = await runBare(['status'], { HOME: '/nonexistent-home' });
  expect(none.code).toBe(4);
  // The example's placeholder project is never given as the value to use (status/cli.ts credentialsAdvice).
  expect(none.stderr).toContain(ADVICE);
  expect(none.stderr).not.toContain('--project=my-tpu-project');
});

describe('records in another namespace than the local config names (docs/status.md)', () => {
  // The same deployment with `namespace: ml-team` in its config file: its JobSets, pods and record live there.
  const file = configFile((c) => (c.namespace = 'ml-team'));
  const team = loadDeployment({ env: { ...DEPLOYED_ENV, CONFIG_FILE: file } });
  const teamLlama = team.pipelines.find((p) => p.name === 'rl-llama3')!;
  function teamWorld() {
    const w = emptyWorld();
    const train = jobSet(teamLlama.steps[1]!);
    w.jobSets.push(jobSet(teamLlama.steps[0]!, { terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done', lastTransitionTime: iso(5) }] }), train);
    w.workloads.push(workload(train, true, { chips: 8 }));
    const main = pod(train, 'slice', running(10));
    w.pods.push(main);
    w.logs[main.metadata.name] = Array.from({ length: 4 }, (_, i) => rlLine(52 + 2 * i, i + 1));
    w.configMaps = [recordMap(team.records['rl-llama3']!, teamLlama.labels)];
    return w;
  }

  test('a new shell finds it: records read from every namespace, the pipeline read in its own namespace, and the header says so', async () => {
    expect(teamLlama.steps[1]!.namespace).toBe('ml-team');
    const env = await serve(teamWorld());
    const r = await runBare(['status'], env);
    expect(r.stdout.split('\n')[0]).toMatch(/^cluster \S+ \(\S+\), namespace ml-team \(records read from every namespace\); local config: environment my-tpu-project\.tpu-post-train /);
    expect(r.stdout).toContain('rl-llama3');
    expect(r.stdout).not.toContain('not deployed');
    expect(api!.requests.map((q) => q.path)).toContain('/api/v1/configmaps');
    expect(api!.requests.map((q) => q.path)).toContain('/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml-team/jobsets');
    const logs = await runBare(['logs', 'rl-llama3', 'train'], env);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('Train step 4 training loss');
  });

  test('credentials that may not list ConfigMaps cluster-wide: the local namespace only, saying so; --namespace names the other', async () => {
    const env = await serve(teamWorld());
    api!.forbidClusterConfigMaps = true;
    const r = await runBare(['status', '--json'], env);
    expect(JSON.parse(r.stdout).pipelines.map((p: any) => p.name)).toEqual(['rl-qwen3', 'rl-gemma4', 'sft-gemma4']);
    const text = await runBare(['status'], env);
    expect(text.stdout.split('\n')[0]).toContain(
      'namespace default (records read from namespace default only (the local config\'s: these credentials may not list ConfigMaps in every namespace; --namespace names another))',
    );
    const named = await runBare(['status', '--namespace', 'ml-team'], env);
    expect(named.stdout.split('\n')[0]).toContain('namespace ml-team (records read from namespace ml-team (--namespace))');
    expect(named.stdout).toContain('rl-llama3');
  });
});
