/**
 * Contract between the JobSet builders (jobs/pipeline.ts) and the review's extractor: every recipe's manifests,
 * wrapped the way a pipeline stack synthesizes them (kubernetes_manifest + wait + timeouts + depends_on), read back as
 * the same steps, slice, model and gs:// paths the builder meant.
 */
import { loadConfig } from '../../config/load';
import { pipelineOptions } from '../../config/pipelines';
import { platformFromConfig } from '../../config/platform';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import type { TerraformJson } from '../../review/load';
import { extractStack } from '../../review/model';

// The single-host pool is asked for, so every recipe has its slice.
const loaded = loadConfig({ env: { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' } });
const platform = platformFromConfig(loaded);
const names = Object.keys(RECIPES);

test.each(names)('%s reads back as conversion -> training -> export on its slice', (name) => {
  const built = buildPipeline(RECIPES[name]!, platform, pipelineOptions(loaded, name));
  const resources: Record<string, unknown> = {};
  let previous: string | undefined;
  for (const step of built.steps) {
    resources[step.name] = {
      manifest: step.manifest,
      wait: { condition: [{ type: 'Completed', status: 'True' }] },
      timeouts: { create: `${step.timeoutMinutes}m` },
      ...(previous ? { depends_on: [`kubernetes_manifest.${previous}`] } : {}),
    };
    previous = step.name;
  }
  resources.spc = { manifest: built.secretProviderClass };
  const model = extractStack(name, { resource: { kubernetes_manifest: resources } } as unknown as TerraformJson);
  const p = model.pipeline!;

  expect(p.steps.map((s) => s.kind)).toEqual(['conversion', 'training', 'export', 'evaluation']);
  expect(p.steps.map((s) => s.name)).toEqual(built.steps.map((s) => s.jobSetName));
  expect(p.model).toBe(built.model.name);
  const training = built.steps.find((s) => s.tpu)!;
  expect(p.tpuTopology).toBe(training.tpu!.slice.topology);
  expect(p.tpuChips).toBe(training.tpu!.slice.chips * training.tpu!.slices);
  const evalStep = built.steps.find((s) => s.name === 'eval')!;
  expect(p.chipHours).toBeCloseTo((p.tpuChips * training.timeoutMinutes) / 60 + (evalStep.tpu!.slice.chips * evalStep.timeoutMinutes) / 60);
  expect(p.gcsWritten).toEqual(expect.arrayContaining([built.paths.maxtextDir, built.paths.trainOutputDir, built.paths.hfExportDir]));
  expect(p.gcsRead).toEqual(expect.arrayContaining([built.paths.maxtextCheckpoint]));
  expect(model.jobsets.every((j) => j.queueName && j.ttlSecondsAfterFinished === undefined)).toBe(true);
  expect(model.secretMounts[0]!.secrets).toEqual([`projects/${platform.project}/secrets/${platform.hfTokenSecretId}`]);
});
