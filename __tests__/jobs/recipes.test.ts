/** Per recipe: the tutorial's values appear where the tutorial puts them; multi-slice changes only what it must. */
import { conversionKey, exportKey, trainKey } from '../../jobs/maxtext';
import { DEFAULT_TRAIN_MAX_RESTARTS } from '../../jobs/capacity';
import { buildPipeline, Pipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { container, envOf, scriptOf, testPlatform } from './fixtures';

const build = (name: string, opts: Partial<Parameters<typeof buildPipeline>[2]> = {}, slices = 1): Pipeline =>
  buildPipeline(RECIPES[name], testPlatform({ v6e32Slices: slices }), { runId: 'r1', ...opts });
const step = (p: Pipeline, name: string) => p.steps.find((s) => s.name === name)!;
const mainScript = (p: Pipeline, name: string) => {
  const m = step(p, name).manifest as any;
  return scriptOf(container(m, m.spec.replicatedJobs[0].name, 'workload-container'));
};

test('the registry has one recipe per tutorial, keyed by stack name', () => {
  expect(Object.keys(RECIPES).sort()).toEqual(['rl-gemma4', 'rl-llama3', 'rl-qwen3', 'sft-gemma4']);
  expect(Object.values(RECIPES).map((r) => r.tutorial).sort()).toEqual(['000', '001', '002', '003']);
});

test('every pipeline runs to-maxtext -> train -> to-hf -> eval with names derived from stack, run id and step', () => {
  for (const name of Object.keys(RECIPES)) {
    const p = build(name);
    expect(p.steps.map((s) => s.name)).toEqual(['to-maxtext', 'train', 'to-hf', 'eval']);
    expect(p.steps.map((s) => s.jobSetName)).toEqual([`${name}-r1-to-maxtext`, `${name}-r1-train`, `${name}-r1-to-hf`, `${name}-r1-eval`]);
    expect(p.image).toBe('us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.4');
  }
});

describe('rl-qwen3 (tutorial 000)', () => {
  // Built in each test (beforeEach runs inside it), not at collection: a mutation run then knows which tests cover what.
  let p: Pipeline;
  beforeEach(() => {
    p = build('rl-qwen3');
  });
  test('to_maxtext flags', () => {
    const s = mainScript(p, 'to-maxtext');
    for (const v of [
      'python3 -m maxtext.checkpoint_conversion.to_maxtext', 'model_name=qwen3-30b-a3b', '--hf_model_path=Qwen/Qwen3-30B-A3B-Instruct-2507',
      `base_output_directory=gs://my-bucket/qwen3-30b-a3b/max-text-format/${conversionKey(p.recipe)}/`, 'scan_layers=True', 'use_multimodal=False',
      'skip_jax_distributed_system=True', 'checkpoint_storage_use_zarr3=0', 'checkpoint_storage_use_ocdbt=0', 'hardware=cpu',
      '--lazy_load_tensors=True',
    ]) expect(s).toContain(v);
    expect(s).not.toContain('hf_access_token');
  });
  test('train_rl keys, patches and env on the Pathways containers', () => {
    const s = mainScript(p, 'train');
    for (const v of [
      'python3 -m maxtext.trainers.post_train.rl.train_rl', `run_name=rl-${trainKey(p.recipe, p.slice.chips * p.slices)}`, 'base_output_directory=gs://my-bucket/qwen3-30b-a3b/trained/',
      `load_parameters_path=gs://my-bucket/qwen3-30b-a3b/max-text-format/${conversionKey(p.recipe)}/0/items/`,
      'data_template_path=maxtext/examples/chat_templates/openmathinstruct2_rl.json', 'num_batches=50', 'num_test_batches=0',
      'batch_size=8', 'train_micro_batch_size=8', 'max_target_length=512', 'max_prefill_predict_length=256', 'mu_dtype=bfloat16',
      'grad_dtype=bfloat16', 'rollout_tensor_parallelism=1', 'rollout_expert_parallelism=4', 'trainer_devices_fraction=0.5',
      'sampler_devices_fraction=0.5', 'tokenizer_path=/tmp/tokenizer-at-revision', 'tokenizer and chat template: Qwen/Qwen3-30B-A3B-Instruct-2507 at $TOKENIZER_REVISION', 'ici_tensor_parallelism=2',
      'ici_expert_parallelism=4', 'ici_fsdp_parallelism=-1', 'hbm_utilization_vllm=0.55', 'remat_policy=full', 'async_scheduling=False',
      'allow_split_physical_axes=True', 'ragged_gather_reduce_fallback=True', 'enable_dp_attention=False',
      'decode_sampling_temperature=0.8', 'decode_sampling_top_k=50', 'decode_sampling_nucleus_p=0.95', 'learning_rate=2e-5',
      'learning_rate_schedule_steps=100', 'rl.num_generations=4', 'rl.reshard_chunk_size=4', 'debug=True',
      `vllm_hf_overrides='{"architectures": ["MaxTextForCausalLM"]}'`,
      `vllm_additional_config='{"maxtext_config": {"model_name": "qwen3-30b-a3b", "model_call_mode": "inference", "enable_dp_attention": false, "allow_split_physical_axes": true, "use_ragged_sort": false, "ragged_gather_reduce_fallback": true, "prefuse_moe_weights": true, "weight_dtype": "bfloat16"}}'`,
      `VLLM_HOST_IP="$(hostname -I | awk '{print $1}')"`,
      "'optax.adafactor(learning_rate=learning_rate)'", "'reshard_chunk_size: Optional[int] = 4'",
    ]) expect(s).toContain(v);
    // The patches run before training.
    expect(s.indexOf('optax.adafactor')).toBeLessThan(s.search(/^python3 -m maxtext\.trainers/m));
    expect(s.search(/^python3 -m maxtext\.trainers/m)).toBeGreaterThan(0);
    const m = step(p, 'train').manifest;
    const workload = container(m, 'pathways-head', 'workload-container');
    expect(envOf(workload)).toMatchObject({
      JAX_PLATFORMS: 'proxy,cpu', ENABLE_PATHWAYS_PERSISTENCE: '1', VLLM_ENABLE_V1_MULTIPROCESSING: '0', GRPC_DNS_RESOLVER: 'native',
      FLAGS_pathways_enforce_subset_devices_form_subslice: 'false', JAX_BACKEND_TARGET: 'grpc://$(PATHWAYS_HEAD):29000',
    });
    for (const [rj, c] of [['pathways-head', 'pathways-proxy'], ['pathways-head', 'pathways-rm'], ['worker', 'pathways-worker']]) {
      expect(envOf(container(m, rj, c))).toMatchObject({ GRPC_DNS_RESOLVER: 'native', FLAGS_pathways_enforce_subset_devices_form_subslice: 'false' });
    }
  });
  test('the 190G cgroup hack is a real memory limit of 190Gi (the kernel reads G as 2^30), and nothing is privileged', () => {
    const m = step(p, 'train').manifest;
    expect(container(m, 'pathways-head', 'workload-container').resources.limits.memory).toBe('190Gi');
    expect(JSON.stringify(p.steps.map((s) => s.manifest))).not.toMatch(/privileged|memory\.max/);
  });
  test('Pathways shape: head on cpu-np, workers per slice, instance type and scratch from the TPU table and bucket', () => {
    const m = step(p, 'train').manifest as any;
    const [head, worker] = m.spec.replicatedJobs;
    expect(head.template.spec.template.spec.nodeSelector).toEqual({ 'cloud.google.com/gke-nodepool': 'cpu-np' });
    expect(head.template.spec.template.spec.initContainers.map((c: any) => c.restartPolicy)).toEqual(['Always', 'Always']);
    expect(worker).toMatchObject({ name: 'worker', replicas: 1, template: { spec: { parallelism: 8, completions: 8 } } });
    expect(container(m, 'worker', 'pathways-worker').resources.limits).toEqual({ 'google.com/tpu': '4' });
    expect(container(m, 'pathways-head', 'pathways-rm').args).toEqual(
      expect.arrayContaining(['--instance_type=tpuv6e:4x8', '--instance_count=1', '--gcs_scratch_location=gs://my-bucket/pathways/']),
    );
    expect(m.spec).toMatchObject({
      coordinator: { replicatedJob: 'pathways-head' },
      startupPolicy: { startupPolicyOrder: 'InOrder' },
      successPolicy: { operator: 'All', targetReplicatedJobs: ['pathways-head'] },
    });
    expect(m.spec.ttlSecondsAfterFinished).toBeUndefined();
  });
  test('to_huggingface reads the last RL checkpoint and writes hf-trained/<run_name>/', () => {
    const s = mainScript(p, 'to-hf');
    for (const v of [
      `load_parameters_path=gs://my-bucket/qwen3-30b-a3b/trained/rl-${trainKey(p.recipe, p.slice.chips * p.slices)}/checkpoints/actor/50/model_params/`,
      `base_output_directory=gs://my-bucket/qwen3-30b-a3b/hf-trained/rl-${trainKey(p.recipe, p.slice.chips * p.slices)}/${exportKey(p.recipe)}/ `, 'weight_dtype=bfloat16', '--override_model_architecture',
    ]) expect(s).toContain(v);
  });
});

describe('rl-gemma4 (tutorial 001)', () => {
  // Built in each test (beforeEach runs inside it), not at collection: a mutation run then knows which tests cover what.
  let p: Pipeline;
  beforeEach(() => {
    p = build('rl-gemma4');
  });
  test('scan_layers=False in all three steps, and the gemma values', () => {
    for (const s of ['to-maxtext', 'train', 'to-hf']) expect(mainScript(p, s)).toContain('scan_layers=False');
    const s = mainScript(p, 'train');
    for (const v of ['batch_size=4', 'train_micro_batch_size=2', 'max_target_length=640', 'rollout_tensor_parallelism=4',
      'rollout_expert_parallelism=1', 'hbm_utilization_vllm=0.7', 'tokenizer_path=/tmp/tokenizer-at-revision', 'tokenizer and chat template: google/gemma-4-26b-a4b-it at $TOKENIZER_REVISION', '"model_name": "gemma4-26b"'])
      expect(s).toContain(v);
    expect(s).toContain('optax.adafactor');
    expect(s).not.toContain('reshard_chunk_size: Optional[int]');
    expect(mainScript(p, 'to-maxtext')).toContain("--hf_model_path=google/gemma-4-26b-a4b-it");
  });
  test('no cgroup hack in tutorial 001: the workload keeps the default memory limit', () => {
    expect(container(step(p, 'train').manifest, 'pathways-head', 'workload-container').resources.limits.memory).toBe('100Gi');
  });
});

describe('sft-gemma4 (tutorial 003)', () => {
  // Built in each test (beforeEach runs inside it), not at collection: a mutation run then knows which tests cover what.
  let p: Pipeline;
  beforeEach(() => {
    p = build('sft-gemma4');
  });
  test('train_sft on 8 indexed pods with TPU selectors, toleration and the tutorial env', () => {
    const m = step(p, 'train').manifest as any;
    const rj = m.spec.replicatedJobs[0];
    expect(rj).toMatchObject({ replicas: 1, template: { spec: { parallelism: 8, completions: 8, completionMode: 'Indexed' } } });
    expect(m.spec.network).toEqual({ enableDNSHostnames: true, publishNotReadyAddresses: true });
    const pod = rj.template.spec.template.spec;
    expect(pod.nodeSelector).toEqual({ 'cloud.google.com/gke-tpu-accelerator': 'tpu-v6e-slice', 'cloud.google.com/gke-tpu-topology': '4x8' });
    expect(pod.tolerations).toEqual([{ key: 'google.com/tpu', operator: 'Exists', effect: 'NoSchedule' }]);
    const c = container(m, 'slice', 'workload-container');
    expect(envOf(c)).toEqual({
      JAX_PLATFORMS: 'tpu,cpu', ENABLE_PJRT_COMPATIBILITY: 'true', JAX_TRACEBACK_FILTERING: 'off',
      LIBTPU_INIT_ARGS: ' --xla_tpu_scoped_vmem_limit_kib=61440 --xla_tpu_bf16_emission_mode=NATIVE_EMISSION --xla_tpu_enable_sparse_core_collective_offload_all_reduce=true --xla_tpu_use_single_sparse_core_for_all_gather_offload=true ',
    });
    expect(c.resources.limits).toEqual({ 'google.com/tpu': '4' });
    const s = scriptOf(c);
    for (const v of ['python3 -m maxtext.trainers.post_train.sft.train_sft', `run_name=sft-${trainKey(p.recipe, p.slice.chips * p.slices)}`, 'dataset_type=hf',
      'hf_path=HuggingFaceH4/ultrachat_200k', 'per_device_batch_size=1', 'steps=1000', 'profiler=xplane',
      'checkpoint_storage_use_zarr3=0', 'checkpoint_storage_use_ocdbt=0', 'skip_jax_distributed_system=False']) expect(s).toContain(v);
  });
  test('to_huggingface reads checkpoint 1000 (SFT layout, no actor/)', () => {
    expect(mainScript(p, 'to-hf')).toContain(`load_parameters_path=gs://my-bucket/gemma4-31b/trained/sft-${trainKey(p.recipe, p.slice.chips * p.slices)}/checkpoints/1000/model_params/`);
    expect(mainScript(p, 'to-maxtext')).not.toContain('--hf_model_path');
  });
});

describe('rl-llama3 (tutorial 002)', () => {
  // Built in each test (beforeEach runs inside it), not at collection: a mutation run then knows which tests cover what.
  let p: Pipeline;
  beforeEach(() => {
    p = build('rl-llama3');
  });
  test('single v6e-8 host, chips_per_vm=8, no Pathways, TPU VM env from the TPU table', () => {
    const m = step(p, 'train').manifest as any;
    expect(m.spec.replicatedJobs.map((r: any) => r.name)).toEqual(['slice']);
    expect(m.spec.replicatedJobs[0].template.spec).toMatchObject({ parallelism: 1, completions: 1 });
    const c = container(m, 'slice', 'workload-container');
    expect(c.resources.limits).toEqual({ 'google.com/tpu': '8' });
    expect(m.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector['cloud.google.com/gke-tpu-topology']).toBe('2x4');
    expect(envOf(c)).toEqual({
      TPU_ACCELERATOR_TYPE: 'v6e-8', TPU_WORKER_ID: '0', TPU_SKIP_MDS_QUERY: '1', TPU_WORKER_HOSTNAMES: 'localhost',
      TPU_TOPOLOGY: '2x4', TPU_CHIPS_PER_HOST_BOUNDS: '2,4,1', TPU_HOST_BOUNDS: '1,1,1',
    });
    const s = scriptOf(c);
    for (const v of ['model_name=llama3.1-8b-Instruct', 'chips_per_vm=8', 'num_batches=50', 'num_test_batches=10',
      'rollout_data_parallelism=1', 'rollout_tensor_parallelism=-1', 'TPU_NAME="$(hostname)"']) expect(s).toContain(v);
    expect(JSON.stringify(m)).not.toContain('pathways');
  });
  test('McJAX checkpoint format in conversion, export as llama3.1-8b with HF_TOKEN in the environment, no token argument', () => {
    const c = mainScript(p, 'to-maxtext');
    for (const v of ['checkpoint_storage_use_zarr3=1', 'checkpoint_storage_use_ocdbt=1', '--lazy_load_tensors=False']) expect(c).toContain(v);
    const h = mainScript(p, 'to-hf');
    expect(h).toContain('model_name=llama3.1-8b \\');
    expect(h).toContain(`load_parameters_path=gs://my-bucket/llama3.1-8b-Instruct/trained/rl-${trainKey(p.recipe, p.slice.chips * p.slices)}/checkpoints/actor/50/model_params/`);
    expect(h).not.toContain('hf_access_token');
    // The tutorial's shell had HF_TOKEN exported: the export downloads the gated Llama tokenizer/config with it.
    expect(h).toContain('HF_TOKEN="$(cat /var/run/secrets/hf/hf-token)"\nexport HF_TOKEN');
    expect(p.model.exportName).toBe('llama3.1-8b');
  });
});

describe('multi-slice (CLUSTER_NODEPOOL_COUNT=2)', () => {
  // The run name carries the chips training runs on (trainKey), so a second slice is a new run: compare the manifests
  // with the two-slice run name written as the one-slice one.
  /** The manifests, with `as`'s run name and the chips and slices of `as`'s run records (what a slice count changes). */
  const strip = (p: Pipeline, as?: Pipeline) => {
    const text = JSON.stringify(p.steps.map((s) => s.manifest));
    if (!as) return JSON.parse(text);
    const run = String(p.recipe.train.args['run_name']);
    const { chips, slices } = as.runRecords.train.record;
    const renamed = text.split(run).join(String(as.recipe.train.args['run_name']));
    return JSON.parse(renamed.replace(/(chips\\*":)\d+(,\\*"slices\\*":)\d+/g, `$1${chips}$2${slices}`));
  };
  test('rl-qwen3: only worker replicas, --instance_count, the run name and the run records\' chips and slices change', () => {
    const onePipeline = build('rl-qwen3');
    const twoPipeline = build('rl-qwen3', {}, 2);
    expect(twoPipeline.recipe.train.args['run_name']).not.toBe(onePipeline.recipe.train.args['run_name']);
    const one = strip(onePipeline);
    const two = strip(twoPipeline, onePipeline);
    expect(two[1].spec.replicatedJobs[1].replicas).toBe(2);
    expect(container(two[1], 'pathways-head', 'pathways-rm').args).toContain('--instance_count=2');
    two[1].spec.replicatedJobs[1].replicas = 1;
    const rm = container(two[1], 'pathways-head', 'pathways-rm');
    rm.args = rm.args.map((a: string) => (a === '--instance_count=2' ? '--instance_count=1' : a));
    expect(two).toEqual(one);
  });
  test('sft-gemma4: only the replicated job replicas, the run name and the run records\' chips and slices change', () => {
    const onePipeline = build('sft-gemma4');
    const twoPipeline = build('sft-gemma4', {}, 2);
    expect(twoPipeline.recipe.train.args['run_name']).not.toBe(onePipeline.recipe.train.args['run_name']);
    const one = strip(onePipeline);
    const two = strip(twoPipeline, onePipeline);
    expect(two[1].spec.replicatedJobs[0].replicas).toBe(2);
    two[1].spec.replicatedJobs[0].replicas = 1;
    expect(two).toEqual(one);
  });
});

describe('options', () => {
  test('image override replaces the MaxText image everywhere but not the Pathways images', () => {
    const p = build('rl-qwen3', { image: 'example.com/maxtext:dev' });
    // The eval step serves with vLLM's image (jobs/vllm.ts), not MaxText's.
    for (const s of p.steps.filter((x) => x.name !== 'eval')) expect(JSON.stringify(s.manifest)).toContain('example.com/maxtext:dev');
    expect(JSON.stringify(step(p, 'eval').manifest)).not.toContain('example.com/maxtext:dev');
    expect(container(step(p, 'train').manifest, 'pathways-head', 'pathways-rm').image).toContain('pathways/server');
  });
  test('overrides apply by MaxText key to every step that has it', () => {
    const p = build('rl-gemma4', { overrides: { train_micro_batch_size: 4, scan_layers: 'true' } });
    expect(mainScript(p, 'train')).toContain('train_micro_batch_size=4');
    for (const s of ['to-maxtext', 'train', 'to-hf']) expect(mainScript(p, s)).toContain('scan_layers=True');
  });
  test('an unknown override key is rejected with "did you mean"', () => {
    expect(() => build('rl-qwen3', { overrides: { batchsize: 8 }, configSource: 'pipelines.rl-qwen3' })).toThrow(
      /pipelines\.rl-qwen3\.overrides\.batchsize: not a key rl-qwen3 passes nor a key of MaxText's RLConfig .*\(did you mean 'batch_size'\?\)/,
    );
  });
  test('an override of the wrong type is rejected', () => {
    expect(() => build('rl-qwen3', { overrides: { train_micro_batch_size: 'eight' } })).toThrow("rl-qwen3.overrides.train_micro_batch_size must be a number, got 'eight'");
  });
  test('conversionOn defaults to the CPU pool; tpu runs on the slice with the index-0 guard', () => {
    const cpu = step(build('rl-qwen3'), 'to-maxtext');
    expect(cpu.runsOn).toBe('cpu');
    expect((cpu.manifest as any).spec.replicatedJobs[0].template.spec.template.spec.nodeSelector).toEqual({ 'cloud.google.com/gke-nodepool': 'cpu-np' });
    const tpu = step(build('rl-qwen3', { conversionOn: 'tpu' }), 'to-maxtext');
    expect(tpu.runsOn).toBe('tpu');
    expect(tpu.tpu).toMatchObject({ slices: 1 });
    const m = tpu.manifest as any;
    expect(m.spec.replicatedJobs[0].template.spec).toMatchObject({ parallelism: 8, completions: 8 });
    expect(scriptOf(container(m, 'slice', 'workload-container'))).toContain('if [ "$JOB_COMPLETION_INDEX" != "0" ]; then');
  });
  test('timeouts and restarts: recipe defaults (training: by capacity type), then options', () => {
    const d = build('rl-qwen3');
    expect(d.steps.map((s) => [s.timeoutMinutes, s.maxRestarts])).toEqual([[120, 1], [720, DEFAULT_TRAIN_MAX_RESTARTS.reservation], [120, 1], [240, 1]]);
    const spot = buildPipeline(RECIPES['rl-qwen3'], { ...testPlatform(), tpuGroups: testPlatform().tpuGroups.map((g) => ({ ...g, capacity: { type: 'spot' as const } })) }, { runId: 'r1' });
    expect(step(spot, 'train').maxRestarts).toBe(DEFAULT_TRAIN_MAX_RESTARTS.spot);
    const o = build('rl-qwen3', { timeoutMinutes: { train: 60 }, maxRestarts: 3 });
    expect(o.steps.map((s) => [s.timeoutMinutes, s.maxRestarts])).toEqual([[120, 3], [60, 3], [120, 3], [240, 3]]);
    expect((step(o, 'train').manifest as any).spec.failurePolicy.maxRestarts).toBe(3);
  });
  test('retargeting the slice through options (machineType/topology)', () => {
    const platform = testPlatform();
    const wide = { ...platform, tpuGroups: [...platform.tpuGroups, { ...platform.tpuGroups[0], slice: require('../../jobs/tpu').tpuSlice('ct6e-standard-4t', '8x8'), poolNames: ['tpu-v6e-64-0'] }] };
    expect(buildPipeline(RECIPES['sft-gemma4'], wide, { runId: 'r1', topology: '8x8' }).slice.chips).toBe(64);
    // A 31B SFT retargeted to one v6e-8 is refused by the HBM estimate (jobs/hbm.ts), naming what would fit.
    expect(() => build('sft-gemma4', { topology: '2x4', machineType: 'ct6e-standard-8t', configSource: 'pipelines.sft-gemma4' })).toThrow(
      'gemma4-31b does not fit ct6e-standard-8t 2x4 (v6e-8-8t, 31.25 GiB usable HBM per chip)',
    );
    expect(() => build('sft-gemma4', { topology: '3x3', configSource: 'pipelines.sft-gemma4' })).toThrow(
      "pipelines.sft-gemma4.topology must be one of 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16 for ct6e-standard-4t, got '3x3'",
    );
  });
  test('a run id changes every name and every spec hash', () => {
    const a = build('rl-qwen3');
    const b = build('rl-qwen3', { runId: 'r2' });
    expect(b.steps[1].jobSetName).toBe('rl-qwen3-r2-train');
    a.steps.forEach((s, i) => expect(b.steps[i].specHash).not.toBe(s.specHash));
  });
  test('the spec hash chains: a change in train changes train, to-hf and eval, not to-maxtext', () => {
    const a = build('rl-qwen3');
    const b = build('rl-qwen3', { overrides: { decode_sampling_temperature: 0.7 } });
    expect(b.steps.map((s, i) => s.specHash === a.steps[i].specHash)).toEqual([true, false, false, false]);
    expect(build('rl-qwen3').steps.map((s) => s.specHash)).toEqual(a.steps.map((s) => s.specHash));
  });
  test('the run id must be a DNS label fragment', () => {
    expect(() => build('rl-qwen3', { runId: 'R_1', configSource: 'pipelines.rl-qwen3' })).toThrow(
      "pipelines.rl-qwen3.runId: run id must be lowercase letters, digits and '-', starting and ending with a letter or digit, got 'R_1'",
    );
  });
});

test('outputs: paths, logs commands for the main pod', () => {
  const p = build('rl-qwen3');
  expect(p.paths).toEqual({
    maxtextDir: `gs://my-bucket/qwen3-30b-a3b/max-text-format/${conversionKey(p.recipe)}/`,
    maxtextCheckpoint: `gs://my-bucket/qwen3-30b-a3b/max-text-format/${conversionKey(p.recipe)}/0/items/`,
    trainOutputDir: 'gs://my-bucket/qwen3-30b-a3b/trained/',
    trainRunDir: `gs://my-bucket/qwen3-30b-a3b/trained/rl-${trainKey(p.recipe, p.slice.chips * p.slices)}/`,
    trainCheckpointDir: `gs://my-bucket/qwen3-30b-a3b/trained/rl-${trainKey(p.recipe, p.slice.chips * p.slices)}/checkpoints/`,
    trainedCheckpoint: `gs://my-bucket/qwen3-30b-a3b/trained/rl-${trainKey(p.recipe, p.slice.chips * p.slices)}/checkpoints/actor/50/model_params/`,
    hfExportDir: `gs://my-bucket/qwen3-30b-a3b/hf-trained/rl-${trainKey(p.recipe, p.slice.chips * p.slices)}/${exportKey(p.recipe)}/`,
    pathwaysScratch: 'gs://my-bucket/pathways/',
  });
  expect(step(p, 'train').logsCommand).toBe(
    'kubectl logs -n default -f -c workload-container -l jobset.sigs.k8s.io/jobset-name=rl-qwen3-r1-train,' +
      'jobset.sigs.k8s.io/replicatedjob-name=pathways-head,jobset.sigs.k8s.io/job-index=0,batch.kubernetes.io/job-completion-index=0',
  );
});

test('pure and deterministic: building twice gives identical output', () => {
  for (const name of Object.keys(RECIPES)) expect(JSON.stringify(build(name))).toBe(JSON.stringify(build(name)));
});

describe('run ids and MaxText run names', () => {
  const { buildPipeline } = require('../../jobs/pipeline');
  const { testPlatform } = require('./fixtures');
  const runNameOf = (options: any) =>
    buildPipeline(RECIPES['rl-qwen3'], testPlatform(), options).paths.trainedCheckpoint as string;

  let first: Pipeline;
  let key: string;
  beforeEach(() => {
    first = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' });
    key = trainKey(first.recipe, first.slice.chips * first.slices);
  });

  test('the first run (r1) trains under <tutorial run_name>-<trainKey>', () => {
    expect(key).toMatch(/^[0-9a-f]{12}$/);
    expect(runNameOf({ runId: 'r1' })).toBe(`gs://my-bucket/qwen3-30b-a3b/trained/rl-${key}/checkpoints/actor/50/model_params/`);
  });

  test('a re-run of the same spec trains under <run_name>-<runId>-<trainKey>, and exports from there', () => {
    const p = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r2' });
    expect(p.paths.trainedCheckpoint).toBe(`gs://my-bucket/qwen3-30b-a3b/trained/rl-r2-${key}/checkpoints/actor/50/model_params/`);
    expect(JSON.stringify(p.steps[1].manifest)).toContain(`run_name=rl-r2-${key}`);
    expect(JSON.stringify(p.steps[2].manifest)).toContain(`trained/rl-r2-${key}/checkpoints/actor/50/model_params/`);
  });

  test('overrides.run_name replaces the prefix; the key stays', () => {
    expect(runNameOf({ runId: 'r2', overrides: { run_name: 'mine' } })).toContain(`/trained/mine-r2-${key}/`);
  });

  test('a changed train value, image or conversion trains anew in a new directory; a changed run id or timeout does not change the key', () => {
    const other = (options: any) => buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1', ...options }).paths;
    const base = other({});
    for (const changed of [{ overrides: { train_micro_batch_size: 4 } }, { image: 'example.com/maxtext:1' }, { overrides: { lazy_load_tensors: false } }]) {
      const p = other(changed);
      expect(p.trainRunDir).not.toBe(base.trainRunDir);
      expect(p.hfExportDir).not.toBe(base.hfExportDir);
    }
    expect(other({ timeoutMinutes: { train: 60 }, maxRestarts: 5 }).trainRunDir).toBe(base.trainRunDir);
  });

  test('resumeRun continues an earlier run after a change; the export still gets the new spec\'s own directory', () => {
    const p = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1', overrides: { num_batches: 100 }, resumeRun: `rl-${key}` });
    expect(p.paths.trainRunDir).toBe(`gs://my-bucket/qwen3-30b-a3b/trained/rl-${key}/`);
    expect(p.paths.trainedCheckpoint).toBe(`gs://my-bucket/qwen3-30b-a3b/trained/rl-${key}/checkpoints/actor/100/model_params/`);
    expect(p.paths.hfExportDir).toBe(`gs://my-bucket/qwen3-30b-a3b/hf-trained/rl-${trainKey(p.recipe, p.slice.chips * p.slices)}/${exportKey(p.recipe)}/`);
    expect(trainKey(p.recipe, p.slice.chips * p.slices)).not.toBe(key);
  });

  test('more chips under the same spec train anew (SFT global batch = per_device_batch_size x chips): a second slice does not resume the one-slice run', () => {
    const sft = (v6e32Slices: number) => buildPipeline(RECIPES['sft-gemma4'], testPlatform({ v6e32Slices }), { runId: 'r1' });
    const one = sft(1);
    const two = sft(2);
    expect(two.slices).toBe(2);
    expect(two.paths.trainRunDir).not.toBe(one.paths.trainRunDir);
    expect(two.paths.hfExportDir).not.toBe(one.paths.hfExportDir);
  });

  test('another export setting of the same run writes beside the earlier export, never over it, and does not retrain', () => {
    const sft = (overrides: Record<string, unknown>) => buildPipeline(RECIPES['sft-gemma4'], testPlatform(), { runId: 'r1', overrides });
    const bf16 = sft({});
    const f32 = sft({ weight_dtype: 'float32' });
    expect(f32.paths.trainRunDir).toBe(bf16.paths.trainRunDir);
    expect(f32.paths.hfExportDir).not.toBe(bf16.paths.hfExportDir);
    expect(f32.paths.hfExportDir.startsWith(bf16.paths.trainRunDir.replace('/trained/', '/hf-trained/'))).toBe(true);
    expect(JSON.stringify(f32.steps[2].manifest)).toContain(`base_output_directory=${f32.paths.hfExportDir}`);
  });

  test('a resumeRun that is no run name is refused, naming the field', () => {
    expect(() => buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1', resumeRun: 'a/b', configSource: 'pipelines.rl-qwen3' })).toThrow(
      "pipelines.rl-qwen3.resumeRun must be the run name of an earlier run (the directory under trained/, e.g. 'rl-3f9a1c2b7d10'), got 'a/b'",
    );
  });
});

describe('the converted checkpoint is keyed by the conversion arguments', () => {
  const dir = (opts: Partial<Parameters<typeof buildPipeline>[2]> = {}) => build('rl-qwen3', opts).paths.maxtextDir;

  test('the key is a short stable hash in the directory name', () => {
    expect(dir()).toMatch(/^gs:\/\/my-bucket\/qwen3-30b-a3b\/max-text-format\/[0-9a-f]{12}\/$/);
    expect(dir()).toBe(dir());
  });

  test('the same conversion reuses the directory: a new run id does not change it; a new image (another MaxText writing the checkpoint) does', () => {
    expect(dir({ runId: 'r2' })).toBe(dir());
    expect(dir({ image: 'us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.5' })).not.toBe(dir());
  });

  test('a changed conversion argument or flag gets a new directory, and the skip check follows it', () => {
    expect(dir({ overrides: { scan_layers: false } })).not.toBe(dir());
    expect(dir({ overrides: { lazy_load_tensors: false } })).not.toBe(dir());
    const changed = build('rl-qwen3', { overrides: { scan_layers: false } });
    expect(mainScript(changed, 'to-maxtext')).toContain(`exists('${changed.paths.maxtextDir.replace('gs://', '')}0/commit_success.txt')`);
    expect(mainScript(changed, 'train')).toContain(`load_parameters_path=${changed.paths.maxtextDir}0/items/`);
  });

  test('key order in the recipe does not matter', () => {
    const recipe = RECIPES['rl-qwen3']!;
    const reversed = { ...recipe, toMaxText: { ...recipe.toMaxText, args: Object.fromEntries(Object.entries(recipe.toMaxText.args).reverse()) as typeof recipe.toMaxText.args } };
    expect(conversionKey(reversed)).toBe(conversionKey(recipe));
  });
});
