/**
 * PipelineWorkflow: the pipeline's one Workflow as a kubernetes_manifest: no wait (an interrupted or timed-out wait
 * would taint it and the next deploy would replace the running Workflow), Terraform escapes, the JobSets inside
 * byte-identical to what jobs/ built, the old per-step resources forgotten with `removed` blocks.
 */
import 'cdktf/lib/testing/adapters/jest';
import { Testing, TerraformStack } from 'cdktf';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { escapeTemplates, PipelineWorkflow } from '../../constructs/pipeline-workflow';
import { legacyRemovedBlocks, LEGACY_LOGICAL_IDS, LEGACY_STEP_PARTS } from '../../constructs/legacy-step-waits';
import { pipelineWorkflow, workflowJobSets } from '../../jobs/argo';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { testPlatform } from '../jobs/fixtures';

const pipeline = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' });

function synth(workflow = pipelineWorkflow(pipeline, { systemPool: 'system' })): any {
  const out = Testing.synthScope((scope) => {
    new KubernetesProvider(scope, 'k8s', {});
    new PipelineWorkflow(scope, 'workflow', { workflow });
  });
  return JSON.parse(out);
}

test('one kubernetes_manifest, no wait, no provisioner; controller-written metadata is computed; deletes may take 20m', () => {
  const [wf] = Object.values(synth().resource.kubernetes_manifest) as any[];
  expect(wf.wait).toBeUndefined();
  expect(wf.provisioner).toBeUndefined();
  expect(wf.computed_fields).toEqual(['metadata.labels', 'metadata.annotations']);
  expect(wf.timeouts).toEqual({ create: '5m', update: '5m', delete: '20m' });
  expect(wf.manifest.metadata.finalizers).toEqual(['foregroundDeletion']);
});

test('the JobSets inside the synthesized Workflow are byte-identical to the jobs/ builders\' manifests', () => {
  const [wf] = Object.values(synth().resource.kubernetes_manifest) as any[];
  const inside = workflowJobSets(wf.manifest);
  expect(inside.map((j) => JSON.stringify(j))).toEqual(pipeline.steps.map((s) => JSON.stringify(s.manifest)));
});

test('Terraform template sequences are escaped, and come back verbatim', () => {
  expect(escapeTemplates({ a: ['echo ${X} %{if}'], 'k${': 1 })).toEqual({ a: ['echo $${X} %%{if}'], 'k$${': 1 });
  const wf = pipelineWorkflow(pipeline, { systemPool: 'system' }) as any;
  wf.spec.templates[1].resource.manifest = wf.spec.templates[1].resource.manifest.replace('"name":', '"x":"${HOME}","name":');
  const [out] = Object.values(synth(wf).resource.kubernetes_manifest) as any[];
  expect(out.manifest.spec.templates[1].resource.manifest).toContain('"x":"$${HOME}"');
});

test('works inside any stack (no provider package root import)', () => {
  expect(() => new PipelineWorkflow(new TerraformStack(Testing.app(), 's'), 'x', { workflow: pipelineWorkflow(pipeline, { systemPool: 'system' }) })).not.toThrow();
});

test('the old per-step addresses are cdktf\'s logical ids of <step>/<part>, and each gets a removed block that destroys nothing', () => {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { makeUniqueId } = require('cdktf/lib/private/unique');
  for (const [step, ids] of Object.entries(LEGACY_LOGICAL_IDS)) {
    for (const part of LEGACY_STEP_PARTS) expect(ids[part.id]).toBe(makeUniqueId([step, part.id]));
  }
  expect(legacyRemovedBlocks(['to-maxtext', 'train'])).toEqual([
    { from: 'kubernetes_manifest.to-maxtext_JobSet_201E1B90', lifecycle: [{ destroy: false }] },
    { from: 'terraform_data.to-maxtext_Wait_8E813E8D', lifecycle: [{ destroy: false }] },
    { from: 'terraform_data.to-maxtext_SpecHash_AEFCE4B9', lifecycle: [{ destroy: false }] },
    { from: 'kubernetes_manifest.train_JobSet_8972A05E', lifecycle: [{ destroy: false }] },
    { from: 'terraform_data.train_Wait_B1389874', lifecycle: [{ destroy: false }] },
    { from: 'terraform_data.train_SpecHash_7EDDA128', lifecycle: [{ destroy: false }] },
  ]);
});
