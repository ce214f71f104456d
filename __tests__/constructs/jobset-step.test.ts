/** JobSetStep: the waiter (terminalState, or a step that cannot end), completion gate with the logs command, spec-hash replacement, escaping. */
import 'cdktf/lib/testing/adapters/jest';
import { Testing, TerraformStack } from 'cdktf';
import { DataKubernetesResource } from '@cdktf/provider-kubernetes/lib/data-kubernetes-resource';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import * as fs from 'fs';
import * as path from 'path';
import { escapeTemplates, JobSetStep, STEP_WAIT_SCRIPT } from '../../constructs/jobset-step';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { testPlatform } from '../jobs/fixtures';

const pipeline = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' });
const train = pipeline.steps[1];
const ENDPOINT = { host: 'https://203.0.113.10', caCertificateBase64: 'Q0E=' };

function synth(): any {
  const out = Testing.synthScope((scope) => {
    new KubernetesProvider(scope, 'k8s', {});
    new JobSetStep(scope, 'train', { step: train, pipeline: 'rl-qwen3', endpoint: ENDPOINT });
  });
  return JSON.parse(out);
}

test('the JobSet does not wait itself; its Wait runs the waiter with the step, the wait budget and the cluster endpoint', () => {
  const tf = synth();
  const [[manifestId, manifest]] = Object.entries(tf.resource.kubernetes_manifest) as any;
  expect(manifest.wait).toBeUndefined();
  // rl-qwen3 train on a reservation: 60 min queue + 87 min Kueue requeuing + 3 attempts x (720 min deadline + 10 min margin).
  expect(manifest.timeouts).toEqual({ create: '2337m', update: '2337m', delete: '15m' });
  const waits = Object.entries(tf.resource.terraform_data).filter(([id]) => id.includes('_Wait_')) as any;
  expect(waits).toHaveLength(1);
  const [[, wait]] = waits;
  expect(wait.triggers_replace).toEqual({ jobset_uid: `\${kubernetes_manifest.${manifestId}.object.metadata.uid}` });
  // Explicit too: the plan review follows depends_on from a gate to the JobSet before it.
  expect(wait.depends_on).toEqual([`kubernetes_manifest.${manifestId}`]);
  expect(wait.provisioner).toEqual([
    {
      'local-exec': {
        command:
          'node ../../../dist/status/step-wait.js --namespace default --jobset rl-qwen3-r1-train --pipeline rl-qwen3 --step train --minutes 2337',
        environment: { KUBE_HOST: 'https://203.0.113.10', KUBE_CA_B64: 'Q0E=', KUBE_EXEC_COMMAND: 'gke-gcloud-auth-plugin', KUBE_EXEC_API_VERSION: 'client.authentication.k8s.io/v1beta1' },
      },
    },
  ]);
});

test('the waiter path is dist/status/step-wait.js seen from where cdktf runs Terraform (<output>/stacks/<stack>)', () => {
  const root = path.resolve(__dirname, '..', '..');
  const output = JSON.parse(fs.readFileSync(path.join(root, 'cdktf.json'), 'utf8')).output;
  expect(path.resolve(root, output, 'stacks', 'rl-qwen3', STEP_WAIT_SCRIPT)).toBe(path.join(root, 'dist', 'status', 'step-wait.js'));
  // ... which the build emits from status/step-wait.ts.
  expect(fs.existsSync(path.join(root, 'status', 'step-wait.ts'))).toBe(true);
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
    new JobSetStep(scope, 'train', { step: train, pipeline: 'rl-qwen3', endpoint: ENDPOINT });
  });
  expect(out).toHaveDataSourceWithProperties(DataKubernetesResource, {
    api_version: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name: 'rl-qwen3-r1-train', namespace: 'default' },
  });
  const tf = JSON.parse(out);
  const [[, gate]] = Object.entries(tf.data.kubernetes_resource) as any;
  const [waitId] = Object.keys(tf.resource.terraform_data).filter((id) => id.includes('_Wait_'));
  expect(gate.depends_on).toEqual([`terraform_data.${waitId}`]);
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
      const first = new JobSetStep(scope, 'to-maxtext', { step: pipeline.steps[0], pipeline: 'rl-qwen3', endpoint: ENDPOINT });
      new JobSetStep(scope, 'train', { step: train, pipeline: 'rl-qwen3', dependsOn: [first.completed], endpoint: ENDPOINT });
    }),
  );
  const trainManifest = Object.entries(tf.resource.kubernetes_manifest).find(([, m]: any) => m.manifest.metadata.name === 'rl-qwen3-r1-train')![1] as any;
  expect(trainManifest.depends_on).toEqual([expect.stringMatching(/^data\.kubernetes_resource\.to-maxtext_Completed/)]);
});

test('Terraform template sequences in manifests are escaped', () => {
  expect(escapeTemplates({ a: ['echo ${X} %{if}'], 'k${': 1 })).toEqual({ a: ['echo $${X} %%{if}'], 'k$${': 1 });
});

test('works inside any stack (no provider package root import)', () => {
  expect(() => new JobSetStep(new TerraformStack(Testing.app(), 's'), 'x', { step: train, pipeline: 'p', endpoint: ENDPOINT })).not.toThrow();
});
