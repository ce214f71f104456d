/**
 * A rehearsal by name: `npm run deploy -- rehearse-<pipeline>` (scripts/cdktf.mjs sets REHEARSE; config/pipelines.ts
 * builds jobs/rehearsal.ts `rehearsalOf` of the pipeline through the same buildPipeline, and the pipeline stack
 * synthesizes it unchanged). What stays the pipeline's, what is cut, the budget, and every refusal at synth.
 * (The behavioural models of __tests__/models run over the rehearsals too: CONFIGURATIONS in models/synthesized.ts.)
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadDeployment } from '../../config/deployment';
import type { Pipeline } from '../../jobs/pipeline';
import {
  REHEARSAL_LAYERS,
  REHEARSAL_STEPS,
  REHEARSAL_TARGETS,
  rehearsalBudget,
  rehearsalKey,
  rehearsalOf,
} from '../../jobs/rehearsal';
import { rlQwen3 } from '../../jobs/recipes/rl-qwen3';
import { vllmImage } from '../../jobs/vllm';
import { tpuSlice } from '../../jobs/tpu';
import { composeApp } from '../../stacks/app';
import { ensureDist } from '../dist';
import { runWrapper } from '../stand-ins';
import { configProblems } from '../util';

const ONE_HOST = { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' };
const problems = configProblems;
const pair = (env: Record<string, string>, name: string, file?: string): { real: Pipeline; rehearsal: Pipeline } => {
  const d = loadDeployment({ env: { ...env, REHEARSE: name }, ...(file ? { file } : {}) });
  return { real: d.pipelines.find((p) => p.name === name)!, rehearsal: d.pipelines.find((p) => p.name === `rehearse-${name}`)! };
};
const command = (p: Pipeline, step: string) => JSON.stringify(p.steps.find((s) => s.name === step)!.manifest);

describe('REHEARSE (what npm run deploy -- rehearse-<pipeline> sets)', () => {
  test('default: no rehearsal unless asked', () => {
    expect(loadDeployment({ env: ONE_HOST }).pipelines.map((p) => p.name)).not.toContainEqual(expect.stringMatching(/^rehearse-/));
  });

  test.each(['rl-qwen3', 'rl-gemma4', 'sft-gemma4', 'rl-llama3'])('%s: same images, repository, revision and files; the model cut, a few steps, one host', (name) => {
    const { real, rehearsal } = pair(name === 'rl-llama3' ? { TPU_TYPE: 'v6e-8' } : ONE_HOST, name);
    expect(rehearsal.images).toEqual(real.images);
    expect(rehearsal.model).toEqual(real.model);
    expect(rehearsal.runtime).toBe(real.runtime);
    expect(rehearsal.recipe.files).toEqual(real.recipe.files);
    expect(rehearsal.recipe.train.env).toEqual(real.recipe.train.env);
    expect(rehearsal.slice.multiHost).toBe(false);
    expect(rehearsal.slice.generation).toBe(real.slice.generation);
    for (const step of ['to-maxtext', 'train', 'to-hf']) {
      expect(command(rehearsal, step)).toContain('override_model_config=True');
      expect(command(rehearsal, step)).toContain(`base_num_decoder_layers=${REHEARSAL_LAYERS}`);
      expect(command(rehearsal, step)).toContain('scan_layers=False');
      expect(command(real, step)).not.toContain('base_num_decoder_layers');
    }
    expect(command(rehearsal, 'to-hf')).toContain('--override_model_architecture');
    const steps = rehearsal.recipe.train.kind === 'sft' ? rehearsal.recipe.train.args['steps'] : rehearsal.recipe.train.args['num_batches'];
    expect(steps).toBe(REHEARSAL_STEPS);
    // The same combination: the rehearsal key of the pipeline is its rehearsal's.
    expect(rehearsalKey(rehearsal.recipe, rehearsal.images)).toBe(rehearsalKey(real.recipe, real.images));
    // Never the real run's directories.
    expect(rehearsal.paths.maxtextDir).not.toBe(real.paths.maxtextDir);
    expect(rehearsal.paths.hfExportDir).not.toBe(real.paths.hfExportDir);
    expect(rehearsal.eval?.samples).toBe(8);
    // The eval step serves the cut export with the serve stack's own image (jobs/serve.ts planServe: vllmImage(model)).
    expect(rehearsal.eval?.image).toBe(vllmImage(real.model.name));
    expect(rehearsal.eval?.tasks).toEqual(real.eval?.tasks);
    expect(rehearsal.eval?.gate).toBeUndefined();
  });

  test('RL on Pathways, one host: the sampler gets the same cut, chips_per_vm is the host, no device split', () => {
    const { rehearsal } = pair(ONE_HOST, 'rl-qwen3');
    const args = rehearsal.recipe.train.args as Record<string, any>;
    expect(args.vllm_additional_config.maxtext_config).toMatchObject({ override_model_config: true, base_num_decoder_layers: REHEARSAL_LAYERS });
    expect(args.chips_per_vm).toBe(8);
    expect(args.trainer_devices_fraction).toBeUndefined();
    expect(rehearsal.steps.find((s) => s.name === 'train')!.tpu!.slice.acceleratorType).toBe('v6e-8');
  });

  test('a pipeline the config defines (an example, with its reward file) is rehearsed with the same file', () => {
    const { real, rehearsal } = pair({}, 'grpo-qwen3-math', 'config/examples/grpo-qwen3-8b.json');
    expect(rehearsal.filesConfigMap).toBeDefined();
    expect((rehearsal.filesConfigMap as any).data).toEqual((real.filesConfigMap as any).data);
  });

  test.each([
    ['presets', ONE_HOST, ['rl-qwen3', 'rl-gemma4', 'sft-gemma4'], undefined],
    ['rl-llama3', { TPU_TYPE: 'v6e-8' }, ['rl-llama3'], undefined],
    ['sft-llama3-support', {}, ['sft-llama3-support'], 'config/examples/sft-llama3-8b.json'],
    ['grpo-qwen3-math', {}, ['grpo-qwen3-math'], 'config/examples/grpo-qwen3-8b.json'],
    ['lora-gemma3-support', {}, ['lora-gemma3-support'], 'config/examples/lora-sft-gemma3-12b.json'],
  ] as const)('budget (%s): one attempt of every step under 60 minutes and 4 chip-hours on v6e', (_, env, names, file) => {
    const d = loadDeployment({ env: { ...env, REHEARSE: names.join(',') }, ...(file ? { file } : {}) });
    for (const name of names) {
      const r = d.pipelines.find((p) => p.name === `rehearse-${name}`)!;
      const b = rehearsalBudget(r.steps);
      expect(b.wallMinutes).toBeLessThan(REHEARSAL_TARGETS.wallMinutes);
      expect(b.chipHours).toBeLessThan(REHEARSAL_TARGETS.chipHours);
    }
  });

  test('synthesized by the pipeline stack as rehearse-<name>, next to the pipeline', () => {
    const d = loadDeployment({ env: { ...ONE_HOST, REHEARSE: 'rl-qwen3' } });
    const outdir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-rehearse-synth-')), 'out');
    composeApp(d, { outdir }).app.synth();
    expect(fs.readdirSync(path.join(outdir, 'stacks'))).toContain('rehearse-rl-qwen3');
    const tf = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'rehearse-rl-qwen3', 'cdk.tf.json'), 'utf8'));
    expect(tf.output.train_jobset.value).toBe('rh-rl-qwen3-r1-train');
  });

  test("the synthesized verdict writer's pod runs as the writer's own KSA (the one infra binds the pod-logs Role to); every step's pods as the workload KSA", () => {
    const d = loadDeployment({ env: { ...ONE_HOST, REHEARSE: 'rl-qwen3' } });
    const outdir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-rehearse-ksa-')), 'out');
    composeApp(d, { outdir }).app.synth();
    const tf = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'rehearse-rl-qwen3', 'cdk.tf.json'), 'utf8'));
    const workflow = Object.values(tf.resource.kubernetes_manifest as Record<string, { manifest: any }>).map((r) => r.manifest).find((m) => m.kind === 'Workflow');
    const created = workflow.spec.templates.filter((t: any) => t.resource?.action === 'create').map((t: any) => ({ template: t.name, jobSet: JSON.parse(t.resource.manifest) }));
    const accounts = (js: any): string[] => js.spec.replicatedJobs.map((r: any) => r.template.spec.template.spec.serviceAccountName);
    const writer = created.find((c: any) => c.template === 'rehearsal-verdict-create');
    expect(accounts(writer.jobSet)).toEqual([d.platform.verdictServiceAccountName]);
    expect(d.platform.verdictServiceAccountName).toBe('tpu-post-train-workloads-verdict');
    const steps = created.filter((c: any) => c !== writer);
    expect(steps.map((c: any) => c.template)).toEqual(['to-maxtext', 'train', 'to-hf', 'eval']);
    for (const c of steps) expect(new Set(accounts(c.jobSet))).toEqual(new Set([d.platform.serviceAccountName]));
    expect(d.platform.serviceAccountName).toBe('tpu-post-train-workloads');
  });
});

describe('errors: exit 1 at synth, naming REHEARSE and the key', () => {
  test('no such pipeline: the name and the pipelines there are', () => {
    expect(problems({ ...ONE_HOST, REHEARSE: 'rl-qwen4' })).toEqual([
      "REHEARSE (env): rehearse-rl-qwen4: no pipeline named 'rl-qwen4' (did you mean 'rl-qwen3'?); pipelines: rl-qwen3, rl-gemma4, sft-gemma4, rl-llama3",
    ]);
  });
  test('a serve stack: it has no training to rehearse', () => {
    expect(problems({ ...ONE_HOST, REHEARSE: 'serve-rl-qwen3' })).toEqual([
      "REHEARSE (env): rehearse-serve-rl-qwen3 names the serve stack 'serve-rl-qwen3': a serve stack has no training to rehearse; rehearse its pipeline (rehearse-rl-qwen3)",
    ]);
  });
  test('a pipeline the config does not build: which setting turns it off', () => {
    expect(problems({ ...ONE_HOST, REHEARSE: 'rl-qwen3', PIPELINES: 'rl-gemma4' })).toEqual([
      'REHEARSE (env): rehearse-rl-qwen3 rehearses rl-qwen3, which this config does not build: PIPELINES (env) turns it off',
    ]);
  });
  test('no single-host pool of the generation in infra: how to add one', () => {
    expect(problems({ REHEARSE: 'rl-qwen3' })).toEqual([
      'REHEARSE (env) rehearse-rl-qwen3: rehearse-rl-qwen3 trains on one host of v6e, and infra has no single-host pool of it: set SINGLE_HOST_RESERVATION=<reservation> or ' +
        'SINGLE_HOST_CAPACITY=spot|flex-start (the singleHost block) and run `npm run deploy -- infra` first',
    ]);
  });
  test("a model too large for infra's single host when cut: the key, the size, the host that would fit", () => {
    const d = loadDeployment({ env: { TPU_TYPE: 'v6e-4' } });
    const big = { ...rlQwen3, model: { name: 'qwen3-235b-a22b', hfRepo: 'Qwen/Qwen3-235B-A22B' } };
    expect(() => rehearsalOf(big, { runId: 'r1' }, d.platform, 'pipelines.big')).toThrow(
      "pipelines.big: rehearse-rl-qwen3: qwen3-235b-a22b cut to 6 layers still holds 16.2B parameters (241 GiB of weights, gradients and optimizer state), " +
        "more than infra's single host v6e-4 (125 GiB usable HBM): it needs a single-host v6e-8 pool (ct6e-standard-8t 2x4)",
    );
  });
  test('a model too large for any single host of its generation even when cut: refused, saying why', () => {
    const d = loadDeployment({ env: ONE_HOST });
    const v5e = { ...d.platform, tpuGroups: [{ slice: tpuSlice('ct5lp-hightpu-8t', '2x4'), count: 1, capacity: { type: 'spot' as const }, poolNames: ['tpu-v5e-8'] }] };
    const big = { ...rlQwen3, slice: { machineType: 'ct5lp-hightpu-4t' as const, topology: '4x8' }, model: { name: 'qwen3-235b-a22b', hfRepo: 'Qwen/Qwen3-235B-A22B' } };
    expect(() => rehearsalOf(big, { runId: 'r1' }, v5e, 'pipelines.big')).toThrow(
      'pipelines.big: rehearse-rl-qwen3: qwen3-235b-a22b cut to 6 layers still holds 16.2B parameters (241 GiB of weights, gradients and optimizer state), ' +
        'more than any single v5e host holds (the largest, v5litepod-8, 126 GiB usable HBM): a rehearsal needs a model whose embedding and a few layers fit one host',
    );
  });
});

describe('scripts/cdktf.mjs: npm run deploy -- rehearse-<pipeline>', () => {
  beforeAll(ensureDist);
  test('a rehearsal named on the command line sets REHEARSE for the check and cdktf', () => {
    const r = runWrapper(['deploy', 'rehearse-rl-qwen3'], ONE_HOST, ['REHEARSE']);
    expect(r.status).toBe(0);
    // cdktf also gets the environment's own output folder (scripts/cdktf.mjs --output, two environments).
    expect(r.called).toEqual({ args: ['deploy', 'rehearse-rl-qwen3', '--output', 'cdktf.out.my-tpu-project.tpu-post-train'], env: { REHEARSE: 'rl-qwen3' } });
    expect(r.stacks).toContain('rehearse-rl-qwen3');
    const bad = runWrapper(['destroy', 'rehearse-serve-rl-qwen3'], ONE_HOST, ['REHEARSE']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('TEARDOWN (env): rehearse-serve-rl-qwen3 names the rehearsal of a serve stack: a serve stack has no training to rehearse');
    expect(bad.called).toBeUndefined();
  });
});
