/** JobSetStep: wait on terminalState, completion gate with the logs command, spec-hash replacement, escaping. */
import 'cdktf/lib/testing/adapters/jest';
import { Testing, TerraformStack } from 'cdktf';
import { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import { DataKubernetesResource } from '@cdktf/provider-kubernetes/lib/data-kubernetes-resource';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { escapeTemplates, JobSetStep } from '../../constructs/jobset-step';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { testPlatform } from '../jobs/fixtures';

const pipeline = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' });
const train = pipeline.steps[1];

function synth(): any {
  const out = Testing.synthScope((scope) => {
    new KubernetesProvider(scope, 'k8s', {});
    new JobSetStep(scope, 'train', { step: train, pipeline: 'rl-qwen3' });
  });
  return JSON.parse(out);
}

test('the JobSet waits for status.terminalState Completed or Failed, bounded by queue + attempts x (deadline + margin)', () => {
  const out = Testing.synthScope((scope) => {
    new KubernetesProvider(scope, 'k8s', {});
    new JobSetStep(scope, 'train', { step: train, pipeline: 'rl-qwen3' });
  });
  expect(out).toHaveResourceWithProperties(Manifest, {
    wait: { fields: { 'status.terminalState': '^(Completed|Failed)$' } },
    // rl-qwen3 train on a reservation: 60 min queue + 87 min Kueue requeuing + 3 attempts x (720 min deadline + 10 min margin).
    timeouts: { create: '2337m', update: '2337m', delete: '15m' },
  });
});

test('the manifest is the pipeline manifest, and spec changes replace it through the spec hash', () => {
  const tf = synth();
  const [[hashId, hash]] = Object.entries(tf.resource.terraform_data) as any;
  const [[, manifest]] = Object.entries(tf.resource.kubernetes_manifest) as any;
  expect(hash.input).toEqual({ sha256: train.specHash });
  expect(manifest.lifecycle.replace_triggered_by).toEqual([`terraform_data.${hashId}`]);
  expect(manifest.manifest).toEqual(train.manifest);
  expect(manifest.computed_fields).toEqual(expect.arrayContaining(['metadata.labels', 'metadata.annotations',
    'spec.replicatedJobs[1].template.spec.template.spec.tolerations']));
});

test('a failed step fails the deploy at the gate with the JobSet name and the logs command', () => {
  const out = Testing.synthScope((scope) => {
    new KubernetesProvider(scope, 'k8s', {});
    new JobSetStep(scope, 'train', { step: train, pipeline: 'rl-qwen3' });
  });
  expect(out).toHaveDataSourceWithProperties(DataKubernetesResource, {
    api_version: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name: 'rl-qwen3-r1-train', namespace: 'default' },
  });
  const tf = JSON.parse(out);
  const [[, gate]] = Object.entries(tf.data.kubernetes_resource) as any;
  const [[manifestId]] = Object.entries(tf.resource.kubernetes_manifest) as any;
  expect(gate.depends_on).toEqual([`kubernetes_manifest.${manifestId}`]);
  const [post] = gate.lifecycle.postcondition;
  expect(post.condition).toBe('${try(self.object.status.terminalState, "") == "Completed"}');
  expect(post.error_message).toContain('rl-qwen3: step train (JobSet rl-qwen3-r1-train in namespace default) did not complete');
  expect(post.error_message).toContain(train.logsCommand);
  expect(post.error_message).toContain('kubectl get jobset -n default rl-qwen3-r1-train -o yaml');
});

test('a step depends on what it is given (the previous gate)', () => {
  const tf = JSON.parse(
    Testing.synthScope((scope) => {
      new KubernetesProvider(scope, 'k8s', {});
      const first = new JobSetStep(scope, 'to-maxtext', { step: pipeline.steps[0], pipeline: 'rl-qwen3' });
      new JobSetStep(scope, 'train', { step: train, pipeline: 'rl-qwen3', dependsOn: [first.completed] });
    }),
  );
  const trainManifest = Object.entries(tf.resource.kubernetes_manifest).find(([, m]: any) => m.manifest.metadata.name === 'rl-qwen3-r1-train')![1] as any;
  expect(trainManifest.depends_on).toEqual([expect.stringMatching(/^data\.kubernetes_resource\.to-maxtext_Completed/)]);
});

test('Terraform template sequences in manifests are escaped', () => {
  expect(escapeTemplates({ a: ['echo ${X} %{if}'], 'k${': 1 })).toEqual({ a: ['echo $${X} %%{if}'], 'k$${': 1 });
});

test('works inside any stack (no provider package root import)', () => {
  expect(() => new JobSetStep(new TerraformStack(Testing.app(), 's'), 'x', { step: train, pipeline: 'p' })).not.toThrow();
});
