/** Pipeline stacks: providers from data sources, SecretProviderClass, ordered steps, outputs; one snapshot per stack. */
import 'cdktf/lib/testing/adapters/jest';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Testing } from 'cdktf';
import { DataGoogleContainerCluster } from '@cdktf/provider-google/lib/data-google-container-cluster';
import { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { PipelineStack } from '../../stacks/pipeline-stack';
import { workflowJobSets } from '../../jobs/argo';
import { testPlatform } from '../jobs/fixtures';

const platform = testPlatform();
function synth(name: string): string {
  const app = Testing.app();
  const stack = new PipelineStack(app, name, { platform, pipeline: buildPipeline(RECIPES[name], platform, { runId: 'r1' }) });
  return Testing.synth(stack);
}
const parsed = (name: string) => JSON.parse(synth(name));
const manifests = (tf: any) => Object.values(tf.resource.kubernetes_manifest) as any[];

describe.each(Object.keys(RECIPES))('%s', (name) => {
  const out = synth(name);
  const tf = JSON.parse(out);

  test('snapshot', () => {
    expect(out).toMatchSnapshot();
  });

  test('finds the cluster through data sources and configures kubernetes from them (no cross-stack reference)', () => {
    expect(out).toHaveDataSourceWithProperties(DataGoogleContainerCluster, { name: 'tpt', location: 'us-east5', project: 'my-project' });
    expect(tf.data.google_client_config).toBeUndefined();
    expect(tf.provider.kubernetes[0]).toEqual({
      host: expect.stringMatching(/^https:\/\/\$\{data\.google_container_cluster\.cluster\.endpoint\}$/),
      exec: [{ api_version: 'client.authentication.k8s.io/v1beta1', command: 'gke-gcloud-auth-plugin' }],
      cluster_ca_certificate: expect.stringContaining('base64decode(data.google_container_cluster.cluster.master_auth[0].cluster_ca_certificate)'),
    });
    expect(tf.provider.google[0]).toEqual({ project: 'my-project', region: 'us-east5' });
    expect(JSON.stringify(tf)).not.toContain('terraform_remote_state');
  });

  test('SecretProviderClass, then ONE Workflow whose DAG creates to-maxtext -> train -> to-hf (-> eval) in order; no waiter, no gate', () => {
    expect(out).toHaveResourceWithProperties(Manifest, { manifest: expect.objectContaining({ kind: 'SecretProviderClass' }) });
    const byKind = (k: string) => Object.entries(tf.resource.kubernetes_manifest).filter(([, m]: any) => m.manifest.kind === k);
    const [[spcId]] = byKind('SecretProviderClass');
    expect(byKind('JobSet')).toEqual([]);
    const [[, wf]] = byKind('Workflow') as any;
    expect(wf.depends_on).toEqual(expect.arrayContaining([`kubernetes_manifest.${spcId}`]));
    const p = buildPipeline(RECIPES[name], platform, { runId: 'r1' });
    expect(workflowJobSets(wf.manifest)).toEqual(p.steps.map((s) => s.manifest));
    const tasks = wf.manifest.spec.templates[0].dag.tasks;
    const order = p.steps.map((s) => s.name);
    expect(tasks.map((t: any) => t.name)).toEqual(order.flatMap((s) => [s, `${s}-wait`]));
    order.slice(1).forEach((s, i) => expect(tasks.find((t: any) => t.name === s).depends).toBe(`${order[i]}-wait`));
    // Nothing runs on the deploying machine: no provisioner, no per-step wait, no completion gate.
    expect(JSON.stringify(tf)).not.toContain('local-exec');
    expect(tf.data.kubernetes_resource).toBeUndefined();
    expect(Object.keys(tf.resource.terraform_data ?? {}).filter((k) => /Wait|SpecHash/.test(k))).toEqual([]);
    // No wait: a wait that times out or is interrupted taints the Workflow, and the next deploy would replace it.
    expect(wf.wait).toBeUndefined();
    expect(wf.timeouts.create).toBe('5m');
    expect(wf.lifecycle).toBeUndefined();
  });

  test('outputs: checkpoint paths, JobSet names and logs commands', () => {
    const p = buildPipeline(RECIPES[name], platform, { runId: 'r1' });
    expect(tf.output.trained_checkpoint.value).toBe(p.paths.trainedCheckpoint);
    expect(tf.output.maxtext_checkpoint.value).toBe(p.paths.maxtextCheckpoint);
    expect(tf.output.hf_export_dir.value).toBe(p.paths.hfExportDir);
    for (const s of p.steps) {
      const key = s.name.replace(/-/g, '_');
      expect(tf.output[`${key}_jobset`].value).toBe(s.jobSetName);
      expect(tf.output[`${key}_logs`].value).toBe(s.logsCommand);
    }
  });
});

test('a state bucket selects the GCS backend with the stack prefix', () => {
  const app = Testing.app();
  const stack = new PipelineStack(app, 'rl-qwen3', {
    platform,
    pipeline: buildPipeline(RECIPES['rl-qwen3'], platform, { runId: 'r1' }),
    stateBucket: 'tf-state',
  });
  expect(JSON.parse(Testing.synth(stack)).terraform.backend.gcs).toEqual({ bucket: 'tf-state', prefix: `tpu-post-training/${platform.project}/${platform.clusterName}/rl-qwen3` });
});

test('an unchanged pipeline synthesizes identically; a changed value changes only its step hash and later ones', () => {
  expect(synth('rl-gemma4')).toBe(synth('rl-gemma4'));
  const hashes = (overrides: Record<string, number>) => {
    const app = Testing.app();
    const stack = new PipelineStack(app, 'rl-gemma4', { platform, pipeline: buildPipeline(RECIPES['rl-gemma4'], platform, { runId: 'r1', overrides }) });
    const wf = (Object.values(JSON.parse(Testing.synth(stack)).resource.kubernetes_manifest) as any[]).find((m) => m.manifest.kind === 'Workflow');
    return wf.manifest.metadata.name as string;
  };
  // A changed value is a new Workflow name (kubernetes_manifest replaces it); the same value, the same name.
  expect(hashes({ train_micro_batch_size: 4 })).not.toBe(hashes({}));
  expect(hashes({})).toBe(hashes({}));
  expect(hashes({})).toMatch(/^rl-gemma4-r1-[0-9a-f]{10}$/);
});

test('no JobSet carries ttlSecondsAfterFinished', () => {
  for (const name of Object.keys(RECIPES)) {
    const jobSets = manifests(parsed(name)).filter((m) => m.manifest.kind === 'Workflow').flatMap((m) => workflowJobSets(m.manifest));
    expect(jobSets.length).toBeGreaterThanOrEqual(3);
    for (const j of jobSets) expect((j.spec as any)?.ttlSecondsAfterFinished).toBeUndefined();
  }
});

test('a canary value placed in HF_TOKEN appears nowhere under cdktf.out', () => {
  const canary = ['hf', 'CANARYcanaryCANARYcanary0123456789'].join('_'); // joined so no token-shaped literal is committed
  const saved = process.env.HF_TOKEN;
  process.env.HF_TOKEN = canary;
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdktf-out-'));
  try {
    const app = new App({ outdir, stackTraces: false });
    for (const name of Object.keys(RECIPES)) {
      new PipelineStack(app, name, { platform, pipeline: buildPipeline(RECIPES[name], platform, { runId: 'r1' }) });
    }
    app.synth();
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(outdir);
    expect(files.some((f) => f.endsWith('cdk.tf.json'))).toBe(true);
    for (const f of files) expect([f, fs.readFileSync(f, 'utf8').includes(canary)]).toEqual([f, false]);
  } finally {
    if (saved === undefined) delete process.env.HF_TOKEN;
    else process.env.HF_TOKEN = saved;
    fs.rmSync(outdir, { recursive: true, force: true });
  }
});
