/** One test per synth-time rule, asserting the message (recipe, field, value, what fits). */
import { buildPipeline, PipelineProblems } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { Recipe } from '../../jobs/recipes/types';
import { testPlatform } from './fixtures';

const qwen = RECIPES['rl-qwen3'];
const llama = RECIPES['rl-llama3'];
const run = (recipe: Recipe, overrides: Record<string, string | number | boolean> = {}, platform = testPlatform()) =>
  () => buildPipeline(recipe, platform, { runId: 'r1', overrides });
const withTrainArgs = (recipe: Recipe, args: Record<string, unknown>): Recipe =>
  ({ ...recipe, train: { ...recipe.train, args: { ...recipe.train.args, ...args } } }) as Recipe;

test('all four tutorial recipes pass every rule on the tutorial platform', () => {
  for (const r of Object.values(RECIPES)) expect(run(r)).not.toThrow();
});

test('ICI parallelism product must equal the trainer devices', () => {
  expect(run(qwen, { ici_fsdp_parallelism: 2, ici_expert_parallelism: 3 })).toThrow(
    'rl-qwen3: ici_fsdp_parallelism x ici_tensor_parallelism x ici_expert_parallelism must equal the 16 trainer devices, got 2x2x3=12',
  );
});

test('ICI parallelism: at most one -1, and the fixed axes must divide the devices', () => {
  expect(run(qwen, { ici_tensor_parallelism: -1 })).toThrow(
    'rl-qwen3: at most one of ici_fsdp_parallelism, ici_tensor_parallelism, ici_expert_parallelism may be -1, got ici_fsdp_parallelism=-1, ici_tensor_parallelism=-1',
  );
  expect(run(qwen, { ici_expert_parallelism: 3 })).toThrow(
    'rl-qwen3: ici_tensor_parallelism x ici_expert_parallelism must divide the 16 trainer devices (ici_fsdp_parallelism=-1 takes the rest), got 2x3=6; products that fit: 1, 2, 4, 8, 16',
  );
});

test('rollout TP x DP x EP must equal the sampler devices', () => {
  const r = withTrainArgs(qwen, { rollout_data_parallelism: 2 });
  expect(run(r)).toThrow(
    'rl-qwen3: rollout_tensor_parallelism x rollout_data_parallelism x rollout_expert_parallelism must equal the 16 sampler devices, got 1x2x4=8',
  );
});

test('device fractions only where MaxText splits (Pathways, >= 2 VMs)', () => {
  expect(run(withTrainArgs(llama, { trainer_devices_fraction: 0.5 }))).toThrow(
    'rl-llama3: trainer_devices_fraction=0.5 has no effect: MaxText splits trainer and sampler devices only on Pathways with >= 2 VMs (runtime mcjax, 8 devices / chips_per_vm 8 = 1 VM); remove it',
  );
});

test('device fractions must not overlap', () => {
  expect(run(qwen, { trainer_devices_fraction: 0.75 })).toThrow(
    'rl-qwen3: trainer_devices_fraction + sampler_devices_fraction must be at most 1 (trainer and sampler devices would overlap), got 0.75 + 0.5 = 1.25',
  );
});

test('chips_per_vm must match the machine type', () => {
  expect(run(llama, { chips_per_vm: 4 })).toThrow('rl-llama3: chips_per_vm must equal the 8 chips per VM of ct6e-standard-8t, got 4');
});

test('batch_size must be a multiple of train_micro_batch_size', () => {
  expect(run(qwen, { train_micro_batch_size: 3 })).toThrow(
    'rl-qwen3: batch_size must be a multiple of train_micro_batch_size, got batch_size=8, train_micro_batch_size=3; micro batch sizes that fit: 1, 2, 4, 8',
  );
});

test('rl.num_generations must be at least 2', () => {
  expect(run(withTrainArgs(qwen, { 'rl.num_generations': 1 }))).toThrow(
    'rl-qwen3: rl.num_generations must be at least 2 (GRPO compares generations of one prompt), got 1',
  );
});

test('max_prefill_predict_length must be below max_target_length', () => {
  expect(run(withTrainArgs(qwen, { max_prefill_predict_length: 512 }))).toThrow(
    'rl-qwen3: max_prefill_predict_length must be less than max_target_length (MaxText silently drops longer prompts and generates max_target_length - max_prefill_predict_length tokens), got 512 >= 512',
  );
});

test('scan_layers must agree across conversion, training and export', () => {
  const r = RECIPES['rl-gemma4'];
  const bad: Recipe = { ...r, toHf: { ...r.toHf, args: { ...r.toHf.args, scan_layers: true } } };
  expect(run(bad)).toThrow('rl-gemma4: scan_layers must be equal in conversion, training and export, got to-maxtext=False, train=False, to-hf=True');
});

test('checkpoint storage flags: Pathways needs 0/0', () => {
  expect(run(qwen, { checkpoint_storage_use_ocdbt: 1 })).toThrow(
    'rl-qwen3: to-maxtext has checkpoint_storage_use_zarr3=0, checkpoint_storage_use_ocdbt=1, but Pathways (runtime pathways) needs both 0',
  );
});

test('checkpoint storage flags: Zarr3 requires OCDBT (McJAX)', () => {
  expect(run(llama, { checkpoint_storage_use_ocdbt: 0 })).toThrow(
    'rl-llama3: to-maxtext has checkpoint_storage_use_zarr3=1 without checkpoint_storage_use_ocdbt; Zarr3 requires OCDBT (set both 1 or both 0)',
  );
});

test('the Pathways head must fit the cpu-np machine', () => {
  expect(run(qwen, {}, testPlatform({ cpuMachineType: 'n4-standard-64' }))).toThrow(
    /rl-qwen3: the pathways-head pod's requests \(cpu 62, memory 322\.0Gi\) do not fit one cpu-np node: memory 322\.0Gi > 242\.0Gi allocatable on n4-standard-64; set cpuPool\.machineType \(config\) to a larger machine from jobs\/machines\.ts or lower the pathways-head pod.s resources in the recipe/,
  );
});

test('conversion pods must fit the cpu-np machine', () => {
  expect(run(RECIPES['sft-gemma4'], {}, testPlatform({ cpuMachineType: 'e2-standard-16' }))).toThrow(
    /sft-gemma4: the to-maxtext pod's requests \(cpu 16, memory 128\.0Gi\) do not fit one cpu-np node: memory 128\.0Gi > \d+\.\dGi allocatable on e2-standard-16/,
  );
});

test('a slice shape the infra config does not have is rejected', () => {
  const r: Recipe = { ...RECIPES['sft-gemma4'], slice: { machineType: 'ct6e-standard-4t', topology: '4x4' } };
  expect(() => buildPipeline(r, testPlatform(), { runId: 'r1', configSource: 'pipelines.sft-gemma4' })).toThrow(
    'pipelines.sft-gemma4: targets a ct6e-standard-4t 4x4 slice, but the infra config has 1x ct6e-standard-4t 4x8, 1x ct6e-standard-8t 2x4; add that slice to infra, retarget the pipeline (machineType/topology), or leave it out (PIPELINES env or pipelines.<name>.enabled=false)',
  );
});

test('vllm maxtext_config.model_name must be the trained model', () => {
  expect(() =>
    buildPipeline(qwen, testPlatform(), {
      runId: 'r1',
      configSource: 'pipelines.rl-qwen3',
      overrides: { vllm_additional_config: '{"maxtext_config": {"model_name": "qwen3-8b"}}' },
    }),
  ).toThrow(
    "rl-qwen3 (pipelines.rl-qwen3.overrides): vllm_additional_config.maxtext_config.model_name must be the trained model 'qwen3-30b-a3b', got 'qwen3-8b'",
  );
});

test('messages name the config source when the value came from config: the typed setting that set it', () => {
  // jobs/spec.ts applyTraining records which setting set a key (trainingKeys); an override of it is refused (jobs/pipeline.ts).
  const set = { ...withTrainArgs(qwen, { 'rl.num_generations': 1 }), trainingKeys: { 'rl.num_generations': 'generationsPerPrompt' } };
  expect(() => buildPipeline(set, testPlatform(), { runId: 'r1', configSource: 'pipelines.rl-qwen3' })).toThrow(
    'rl-qwen3 (pipelines.rl-qwen3.training.generationsPerPrompt): rl.num_generations must be at least 2',
  );
  // The preset's own value: the recipe name alone.
  expect(run(withTrainArgs(qwen, { 'rl.num_generations': 1 }))).toThrow(/(^|\n)rl-qwen3: rl\.num_generations must be at least 2/);
});

test('tpuVmEnv is single-host only', () => {
  const r: Recipe = { ...RECIPES['sft-gemma4'], tpuVmEnv: true };
  expect(run(r)).toThrow('sft-gemma4: tpuVmEnv is only valid on a single-VM slice, got ct6e-standard-4t 4x8 (8 VMs)');
});

test('all violations are reported together', () => {
  expect(run(withTrainArgs(qwen, { 'rl.num_generations': 1 }), { train_micro_batch_size: 3 })).toThrow(/batch_size must be a multiple[\s\S]*rl\.num_generations must be at least 2/);
});

test('SFT that does not pass scan_layers trains scanned (base.yml): unscanned conversions are rejected', () => {
  expect(run(RECIPES['sft-gemma4'], { scan_layers: false })).toThrow(
    'sft-gemma4: scan_layers must be equal in conversion, training and export, got to-maxtext=False, train (base.yml default)=True, to-hf=False',
  );
});

test('a Pathways recipe without its Pathways settings is rejected', () => {
  const { pathways: _omit, ...bare } = qwen;
  expect(run(bare as Recipe)).toThrow(
    "rl-qwen3.pathways: runtime 'pathways' needs the pathways settings (proxyEnv, serverEnv, workerEnv; {} for none), got none",
  );
});

test('one pass: every problem of every option of a pipeline comes at once, one per line', () => {
  let caught: unknown;
  try {
    buildPipeline(qwen, testPlatform(), {
      runId: 'R1',
      overrides: { num_batches: 'many', bogus_key: 1, run_name: 'a/b' },
      resumeRun: 'x y',
      eval: { tasks: ['nope'] },
      configSource: 'pipelines.rl-qwen3',
    });
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(PipelineProblems);
  const problems = (caught as PipelineProblems).problems;
  expect(problems).toEqual([
    "pipelines.rl-qwen3.runId: run id must be lowercase letters, digits and '-', starting and ending with a letter or digit, got 'R1'",
    expect.stringMatching(/^pipelines\.rl-qwen3\.overrides\.bogus_key: not a key rl-qwen3 passes nor a key of MaxText's RLConfig/),
    "pipelines.rl-qwen3.overrides.num_batches must be a number, got 'many'",
    "pipelines.rl-qwen3.overrides.run_name must be one directory name: no '/' and no '..', got 'a/b'",
    "pipelines.rl-qwen3.resumeRun must be the run name of an earlier run (the directory under trained/, e.g. 'rl-3f9a1c2b7d10'), got 'x y'",
    expect.stringMatching(/^pipelines\.rl-qwen3\.eval\.tasks: no lm-evaluation-harness task 'nope' here/),
  ]);
  expect((caught as Error).message).toBe(problems.join('\n'));
});

test('one pass: a recipe rule, the eval step and a retarget each add their problem to the same error', () => {
  const platform = testPlatform();
  const message = (() => {
    try {
      buildPipeline(withTrainArgs(qwen, { 'rl.num_generations': 1 }), platform, { runId: 'r1', eval: { tasks: ['nope'] }, configSource: 'pipelines.rl-qwen3' });
    } catch (err) {
      return (err as Error).message;
    }
    return '';
  })();
  expect(message).toContain('rl.num_generations must be at least 2');
  expect(message).toContain("pipelines.rl-qwen3.eval.tasks: no lm-evaluation-harness task 'nope' here");
});

test('the option ranges zod checks (timeoutMinutes, queueMinutes, maxRestarts) are not checked again here: one layer per rule', () => {
  // config/schema.ts refuses them with the key and the value (__tests__/config/bad-input.test.ts); buildPipeline trusts them.
  expect(() => buildPipeline(qwen, testPlatform(), { runId: 'r1', timeoutMinutes: { train: 100 }, queueMinutes: 0, maxRestarts: 0 })).not.toThrow();
});

describe("ranges MaxText's config schema enforces (types.py)", () => {
  test.each([
    ['hbm_utilization_vllm', 0, 'in (0, 1]'],
    ['hbm_utilization_vllm', 1.2, 'in (0, 1]'],
    ['num_batches', 0, 'a whole number >= 1'],
    ['num_batches', 2.5, 'a whole number >= 1'],
    ['learning_rate', -1e-5, '>= 0 (NonNegativeFloat)'],
    ['batch_size', 7.5, 'a whole number >= 1'],
    ['train_micro_batch_size', 0, 'a whole number >= 1, or -1 (= batch_size)'],
  ])('%s=%p is refused', (key, value, want) => {
    // Set in the recipe's arguments, as a typed setting or a preset sets them (an override of an owned key is refused before).
    expect(run(withTrainArgs(qwen, { [key]: value }))).toThrow(`rl-qwen3: ${key} must be ${want} (MaxText's config schema rejects it at start-up), got ${value}`);
  });

  test('the boundary values pass', () => {
    expect(run(withTrainArgs(qwen, { hbm_utilization_vllm: 0.55, learning_rate: 0 }))).not.toThrow();
  });
});

test('every image a pipeline pulls must be a pinned reference', () => {
  const r = { ...qwen, pathways: { ...qwen.pathways!, proxyImage: 'us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server' } } as Recipe;
  expect(run(r)).toThrow(
    "rl-qwen3: pathways.proxyImage: image must be a reference such as us-docker.pkg.dev/<project>/<repo>/<image>:<tag> or <image>@sha256:<64 hex digits>, got 'us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server'",
  );
});

test('memory quantities must use binary units: 190G is not the tutorial\'s 190G', () => {
  const decimal = { ...qwen, train: { ...qwen.train, memoryLimit: '190G' } } as Recipe;
  expect(run(decimal)).toThrow(
    "rl-qwen3: train.memoryLimit must use a binary unit (Ki, Mi, Gi, Ti), got '190G' (Kubernetes reads G as a power of 10: '190G' is 177.0Gi; the kernel's 190G is 190Gi)",
  );
  const conversion = { ...qwen, toHf: { ...qwen.toHf, resources: { limits: { memory: '200000M' } } } } as Recipe;
  expect(run(conversion)).toThrow("rl-qwen3: toHf.resources.limits.memory must use a binary unit (Ki, Mi, Gi, Ti), got '200000M'");
});

test('a TPU step whose attempts together outlive its flex-start slice is refused, naming the fix: every attempt shares one slice', () => {
  const base = testPlatform();
  const flex = (hours: number) => ({
    ...base,
    tpuGroups: base.tpuGroups.map((g) => ({ ...g, capacity: { type: 'flex-start' as const, maxRunDurationSeconds: hours * 3600 } })),
  });
  // One attempt (720 min) fits 24 h, but the flex-start default of 4 restarts makes 5 x 720 = 3600 minutes on one slice.
  expect(() => buildPipeline(qwen, flex(24), { runId: 'r1', configSource: 'pipelines.rl-qwen3' })).toThrow(
    'pipelines.rl-qwen3: step train may run 5 attempts (maxRestarts 4 + 1) of timeoutMinutes 720 minutes, 3600 minutes in all, on one flex-start slice whose nodes live at most 1440 minutes (flexStartMaxRunHours); every attempt shares the slice\'s life: raise flexStartMaxRunHours to at least 60, or lower timeoutMinutes.train or maxRestarts',
  );
  // The issue's case: a 39-hour run with one restart on 40-hour nodes is refused (2 x 39 h > 40 h) ...
  expect(() => buildPipeline(qwen, flex(40), { runId: 'r1', maxRestarts: 1, timeoutMinutes: { train: 39 * 60 } })).toThrow(
    /step train may run 2 attempts \(maxRestarts 1 \+ 1\) of timeoutMinutes 2340 minutes, 4680 minutes in all.*at least 78,/,
  );
  // ... and fits once every attempt does.
  expect(buildPipeline(qwen, flex(78), { runId: 'r1', maxRestarts: 1, timeoutMinutes: { train: 39 * 60 } }).steps[1].maxRestarts).toBe(1);
  expect(buildPipeline(qwen, flex(60), { runId: 'r1' }).steps[1].maxRestarts).toBe(4);
});
