/**
 * jobs/pipeline.ts as a user meets it, built directly (no config, no synthesis, each pipeline built inside its test):
 * the step facts the stacks and `npm run status` read (waits, commands, selectors, TPU capacity), the Pathways head's
 * whole-node resources, the flex-start lifetime rule, the run outputs two pipelines may not share, the longest run id,
 * and the MaxText version sentence. Each error is asserted by its message (the key, the value, what fits).
 */
import { EXPORT_MOUNT } from '../../jobs/eval';
import { trainKey } from '../../jobs/maxtext';
import { EVAL_RUN_RECORD_FILE } from '../../jobs/run-record';
import { Capacity, derivePlatform, Platform } from '../../jobs/platform';
import {
  ATTEMPT_MARGIN_MINUTES,
  buildPipeline,
  chainHash,
  checkRunOutputs,
  DEFAULT_QUEUE_MINUTES,
  maxRunIdLength,
  maxtextDifference,
  Pipeline,
  PipelineProblems,
  resolveRun,
  runOutputs,
  waitMinutes,
  wholeNodeHead,
} from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { Recipe } from '../../jobs/recipes/types';
import { tpuSlice } from '../../jobs/tpu';
import { testPlatform } from './fixtures';

const build = (name: string, options: Partial<Parameters<typeof buildPipeline>[2]> = {}, platform: Platform = testPlatform()) =>
  buildPipeline(RECIPES[name], platform, { runId: 'r1', ...options });
const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PipelineProblems);
    return [...(err as PipelineProblems).problems];
  }
  throw new Error('expected PipelineProblems');
};
/** The test platform with the training slice (4x8) and the single-host slice (2x4) on capacities of their own. */
const splitCapacity = (train: Capacity, single: Capacity): Platform =>
  derivePlatform({
    project: 'my-project',
    region: 'us-east5',
    zone: 'us-east5-b',
    clusterName: 'tpt',
    bucket: 'my-bucket',
    namespace: 'team-a',
    cpuMachineType: 'n4-highmem-64',
    tpuGroups: [
      { slice: tpuSlice('ct6e-standard-4t', '4x8'), count: 1, capacity: train },
      { slice: tpuSlice('ct6e-standard-8t', '2x4'), count: 1, capacity: single },
    ],
  });
const hours = (h: number): Capacity => ({ type: 'flex-start', maxRunDurationSeconds: h * 3600 });

describe("the deploy's wait for a step (timeouts.create)", () => {
  test('queue + Kueue\'s requeuing of never-ready pods (87 min) + every attempt with its margin', () => {
    expect(ATTEMPT_MARGIN_MINUTES).toBe(10);
    expect(waitMinutes(720, 2, 60)).toBe(60 + 87 + 3 * 730);
    expect(waitMinutes(30, 0, 0)).toBe(87 + 40);
  });
  test('each step of a built pipeline waits for its own deadline and restarts, with the default queue allowance', () => {
    const p = build('rl-qwen3');
    expect(DEFAULT_QUEUE_MINUTES).toBe(60);
    expect(p.steps.map((s) => [s.name, s.timeoutMinutes, s.maxRestarts, s.waitMinutes])).toEqual([
      ['to-maxtext', 120, 1, 60 + 87 + 2 * 130],
      ['train', 720, 2, 60 + 87 + 3 * 730],
      ['to-hf', 120, 1, 60 + 87 + 2 * 130],
      ['eval', 240, 1, 60 + 87 + 2 * 250],
    ]);
    // A step's Jobs get that deadline in seconds.
    for (const s of p.steps) {
      const jobs = (s.manifest as any).spec.replicatedJobs.map((r: any) => r.template.spec.activeDeadlineSeconds);
      expect(new Set(jobs)).toEqual(new Set([s.timeoutMinutes * 60]));
    }
  });
  test('options: timeoutMinutes per step, queueMinutes and maxRestarts for every step', () => {
    const p = build('rl-qwen3', { timeoutMinutes: { 'to-maxtext': 30, train: 100 }, queueMinutes: 5, maxRestarts: 0 });
    expect(p.steps.map((s) => [s.name, s.timeoutMinutes, s.maxRestarts, s.waitMinutes])).toEqual([
      ['to-maxtext', 30, 0, 5 + 87 + 40],
      ['train', 100, 0, 5 + 87 + 110],
      ['to-hf', 120, 0, 5 + 87 + 130],
      ['eval', 240, 0, 5 + 87 + 250],
    ]);
  });
});

describe('what status and the stacks read from each step', () => {
  test('namespace, kubectl commands, the main pod and where it runs', () => {
    const p = build('rl-qwen3', {}, splitCapacity({ type: 'spot' }, { type: 'reservation', reservation: 'r' }));
    const train = p.steps[1];
    expect(train).toMatchObject({
      name: 'train',
      jobSetName: 'rl-qwen3-r1-train',
      namespace: 'team-a',
      statusCommand: 'kubectl get jobset -n team-a rl-qwen3-r1-train',
      mainPodSelector: {
        'jobset.sigs.k8s.io/jobset-name': 'rl-qwen3-r1-train',
        'jobset.sigs.k8s.io/replicatedjob-name': 'pathways-head',
        'jobset.sigs.k8s.io/job-index': '0',
        'batch.kubernetes.io/job-completion-index': '0',
      },
      logsCommand:
        'kubectl logs -n team-a -f -c workload-container -l jobset.sigs.k8s.io/jobset-name=rl-qwen3-r1-train,jobset.sigs.k8s.io/replicatedjob-name=pathways-head,' +
        'jobset.sigs.k8s.io/job-index=0,batch.kubernetes.io/job-completion-index=0',
      runsOn: 'tpu',
    });
    // Spot training restarts more (jobs/capacity.ts DEFAULT_TRAIN_MAX_RESTARTS); the conversions keep the recipe's.
    expect(p.steps.map((s) => s.maxRestarts)).toEqual([1, 6, 1, 1]);
    expect(p.namespace).toBe('team-a');
  });
  test('TPU steps carry their slice, slice count and capacity type: training the 4x8 group, eval its single-host group; CPU steps none', () => {
    const p = build('rl-qwen3', {}, splitCapacity({ type: 'spot' }, { type: 'reservation', reservation: 'r' }));
    const tpu = p.steps.map((s) => s.tpu && { topology: s.tpu.slice.topology, slices: s.tpu.slices, capacity: s.tpu.capacity });
    expect(tpu).toEqual([undefined, { topology: '4x8', slices: 1, capacity: 'spot' }, undefined, { topology: '2x4', slices: 1, capacity: 'reservation' }]);
    expect(p.steps.map((s) => s.runsOn)).toEqual(['cpu', 'tpu', 'cpu', 'tpu']);
    const two = build('rl-qwen3', {}, testPlatform({ v6e32Slices: 2 }));
    expect(two.steps[1].tpu!.slices).toBe(2);
    expect(two.slices).toBe(2);
  });
  test('conversions on the slice (conversionOn tpu) hold the training slice, one of it', () => {
    const p = build('rl-qwen3', { conversionOn: 'tpu' }, testPlatform({ v6e32Slices: 2 }));
    expect(p.steps.map((s) => [s.name, s.runsOn, s.tpu?.slice.topology, s.tpu?.slices])).toEqual([
      ['to-maxtext', 'tpu', '4x8', 1],
      ['train', 'tpu', '4x8', 2],
      ['to-hf', 'tpu', '4x8', 1],
      ['eval', 'tpu', '2x4', 1],
    ]);
  });
  test('jobSetPrefix names every JobSet (a rehearsal\'s short names)', () => {
    const p = build('rl-llama3', { jobSetPrefix: 'rh-x' });
    expect(p.steps.map((s) => s.jobSetName)).toEqual(['rh-x-r1-to-maxtext', 'rh-x-r1-train', 'rh-x-r1-to-hf', 'rh-x-r1-eval']);
    expect(p.name).toBe('rl-llama3');
  });
});

describe('the Pipeline object', () => {
  test('labels on every object, model and export name, run records of every step, images', () => {
    const p = build('rl-llama3', { runId: 'r7' });
    expect(p.labels).toEqual({ 'app.kubernetes.io/part-of': 'tpu-post-training', 'tpu-post-training/pipeline': 'rl-llama3', 'tpu-post-training/run-id': 'r7' });
    expect(p.runId).toBe('r7');
    expect(p.tutorial).toBe('002');
    expect(p.runtime).toBe('mcjax');
    expect(p.model).toEqual({ name: 'llama3.1-8b-Instruct', hfRepo: 'meta-llama/Llama-3.1-8B-Instruct', exportName: 'llama3.1-8b' });
    expect(Object.keys(p.runRecords)).toEqual(['to-maxtext', 'train', 'to-hf', 'eval']);
    expect(p.runRecords.train.path).toBe(p.paths.trainRunDir.replace(/\/$/, '.run-record.json'));
    expect(p.runRecords.train.record).toMatchObject({ step: 'train', runId: 'r7' });
    expect(p.runRecords.eval.record).toMatchObject({ step: 'eval' });
    expect(p.images).toEqual(['us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.4', expect.stringMatching(/vllm/)]);
    for (const s of p.steps) expect((s.manifest as any).metadata.labels).toMatchObject({ ...p.labels, 'tpu-post-training/step': s.name });
    expect(p.filesConfigMap).toBeUndefined();
    expect(p.serve).toBeUndefined();
    expect(p.maxtextDifference).toMatch(/^tutorial 002 installs MaxText 0\.2\.3; this pipeline runs MaxText 0\.2\.4 \(the image's\)/);
  });
  test('without eval: no eval step, record or plan', () => {
    const p = build('rl-qwen3', { eval: { enabled: false } });
    expect(Object.keys(p.runRecords)).toEqual(['to-maxtext', 'train', 'to-hf']);
    expect(p.eval).toBeUndefined();
  });
  test('a pinned revision is part of the model', () => {
    const sha = 'a'.repeat(40);
    const recipe: Recipe = { ...RECIPES['rl-qwen3'], model: { ...RECIPES['rl-qwen3'].model, hfRevision: sha } };
    expect(buildPipeline(recipe, testPlatform(), { runId: 'r1' }).model).toEqual({
      name: 'qwen3-30b-a3b',
      hfRepo: 'Qwen/Qwen3-30B-A3B-Instruct-2507',
      exportName: 'qwen3-30b-a3b',
      hfRevision: sha,
    });
  });
  test('runOutputs: the training run and the export, nothing shared (not the converted checkpoint)', () => {
    const p = build('rl-qwen3');
    expect(runOutputs(p)).toEqual([p.paths.trainRunDir, p.paths.hfExportDir]);
  });
});

describe('the Pathways head takes a CPU node to itself (wholeNodeHead)', () => {
  test('n4-highmem-64: the node\'s 62 whole cores for Kueue minus the sidecars\' 16 + 8, as request and limit', () => {
    expect(wholeNodeHead(undefined, 'n4-highmem-64')).toEqual({ requests: { cpu: '38000m', memory: '8Gi' }, limits: { cpu: '38000m', memory: '100Gi' } });
  });
  test('a smaller node: the request is what is left, the limit stays the template\'s 24 cores', () => {
    expect(wholeNodeHead('64Gi', 'n4-highmem-32')).toEqual({ requests: { cpu: '6000m', memory: '64Gi' }, limits: { cpu: '24000m', memory: '64Gi' } });
  });
  test('a node too small for the sidecars keeps the template\'s 2-core request (the CPU-pool fit check refuses it)', () => {
    expect(wholeNodeHead(undefined, 'e2-standard-8')).toEqual({ requests: { cpu: '2000m', memory: '8Gi' }, limits: { cpu: '24000m', memory: '100Gi' } });
  });
  test('the built head container gets them, with the recipe\'s memory limit (tutorial 000\'s 190Gi)', () => {
    const m = build('rl-qwen3').steps[1].manifest as any;
    const head = m.spec.replicatedJobs.find((r: any) => r.name === 'pathways-head').template.spec.template.spec;
    const workload = [...(head.initContainers ?? []), ...head.containers].find((c: any) => c.name === 'workload-container');
    expect(workload.resources).toEqual({ requests: { cpu: '38000m', memory: '190Gi' }, limits: { cpu: '38000m', memory: '190Gi' } });
  });
});

describe('flex-start: every attempt of a step shares one slice\'s life', () => {
  test('training\'s attempts beyond the nodes\' lifetime are refused, naming the keys and the hours that fit', () => {
    // rl-llama3 trains 240 minutes an attempt; flex-start training restarts 4 times: 5 x 240 = 1200 minutes (20 hours).
    expect(problemsOf(() => build('rl-llama3', {}, testPlatform({ capacity: hours(19) })))).toEqual([
      'rl-llama3: step train may run 5 attempts (maxRestarts 4 + 1) of timeoutMinutes 240 minutes, 1200 minutes in all, on one flex-start slice whose ' +
        'nodes live at most 1140 minutes (flexStartMaxRunHours); every attempt shares the slice\'s life: raise flexStartMaxRunHours to at least 20, ' +
        'or lower timeoutMinutes.train or maxRestarts',
    ]);
    expect(build('rl-llama3', {}, testPlatform({ capacity: hours(20) })).steps[1].tpu!.capacity).toBe('flex-start');
  });
  test('eval is checked against its own group, naming eval\'s keys', () => {
    const problems = problemsOf(() => build('rl-qwen3', { configSource: 'pipelines.rl-qwen3' }, splitCapacity({ type: 'reservation', reservation: 'r' }, hours(7))));
    expect(problems).toEqual([
      'pipelines.rl-qwen3: step eval may run 2 attempts (maxRestarts 1 + 1) of timeoutMinutes 240 minutes, 480 minutes in all, on one flex-start slice whose ' +
        'nodes live at most 420 minutes (flexStartMaxRunHours); every attempt shares the slice\'s life: raise flexStartMaxRunHours to at least 8, ' +
        'or lower eval.timeoutMinutes or eval.maxRestarts',
    ]);
    // Training on a flex-start group of its own, eval on a reservation: training is checked against its group alone.
    expect(problemsOf(() => build('rl-qwen3', {}, splitCapacity(hours(7), { type: 'reservation', reservation: 'r' })))).toEqual([
      expect.stringMatching(/^rl-qwen3: step train may run 5 attempts \(maxRestarts 4 \+ 1\) of timeoutMinutes 720 minutes/),
    ]);
  });
  test('CPU steps hold no slice: long conversions never count', () => {
    const p = build('rl-llama3', { timeoutMinutes: { 'to-maxtext': 10000, 'to-hf': 10000 } }, testPlatform({ capacity: hours(20) }));
    expect(p.steps[0].runsOn).toBe('cpu');
  });
});

describe('run outputs two pipelines may not share (checkRunOutputs)', () => {
  const named = (name: string, overrides: Record<string, string> = {}) =>
    buildPipeline({ ...RECIPES['rl-qwen3'], name }, testPlatform(), { runId: 'r1', overrides });
  test('the same model and run name in two pipelines is refused, naming the directory and the fix', () => {
    const a = named('a');
    expect(() => checkRunOutputs([a, named('b')])).toThrow(
      `pipelines a and b would both write ${a.paths.trainRunDir}; give one another run_name (pipelines.b.overrides.run_name)`,
    );
  });
  test('another run_name, or one pipeline alone, is accepted', () => {
    expect(() => checkRunOutputs([named('a'), named('b', { run_name: 'other' })])).not.toThrow();
    expect(() => checkRunOutputs([named('a')])).not.toThrow();
  });
});

describe('run ids', () => {
  test('the longest run id a pipeline accepts builds; one character more is refused', () => {
    const limit = maxRunIdLength(RECIPES['rl-qwen3'], testPlatform());
    expect(limit).toBe(7);
    expect(build('rl-qwen3', { runId: 'r'.repeat(limit) }).runId).toBe('rrrrrrr');
    expect(() => build('rl-qwen3', { runId: 'r'.repeat(limit + 1) })).toThrow(PipelineProblems);
    expect(maxRunIdLength(RECIPES['rl-llama3'], testPlatform())).toBe(24);
  });
  test('a bad run id and a bad override are both reported, once each, names not checked on a bad run id', () => {
    const problems = problemsOf(() => build('rl-qwen3', { runId: 'R_1', overrides: { num_batches: 'x' } }));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^rl-qwen3\.runId/);
    expect(problems[1]).toBe("rl-qwen3.overrides.num_batches must be a number, got 'x'");
  });
  test('runIdSource names where the run id came from', () => {
    expect(problemsOf(() => build('rl-qwen3', { runId: 'R_1', runIdSource: 'RUN_ID (env)' }))[0]).toMatch(/^RUN_ID \(env\)/);
  });
});

describe('the MaxText version sentence (maxtextDifference)', () => {
  const llama = RECIPES['rl-llama3'];
  test('none when the recipe names no tutorial version, or the image runs it', () => {
    expect(maxtextDifference(RECIPES['rl-qwen3'])).toBeUndefined();
    expect(maxtextDifference({ ...llama, image: llama.image.replace(':0.2.4', ':0.2.3') })).toBeUndefined();
  });
  test('the versions and why, or the image when its tag names no version', () => {
    expect(maxtextDifference(llama)).toBe(
      "tutorial 002 installs MaxText 0.2.3; this pipeline runs MaxText 0.2.4 (the image's): one image for every pipeline, the version this program's MaxText checks model; the tutorial's flags mean the same in both",
    );
    expect(maxtextDifference({ ...llama, image: 'example.com/maxtext:latest' })).toBe(
      `tutorial 002 installs MaxText 0.2.3; this pipeline runs example.com/maxtext:latest (MaxText version not known from the tag): ${llama.tutorialMaxText!.why}`,
    );
  });
});

describe('checks of the built recipe', () => {
  test('the CPU-pool fit check sees the conversions on the CPU pool, and the Pathways head', () => {
    const small = testPlatform({ cpuMachineType: 'e2-standard-8' });
    const fit = (step: string, cpu: number, memory: string) =>
      `rl-llama3: the ${step} pod's requests (cpu ${cpu}, memory ${memory}) do not fit one cpu-np node: memory ${memory} > 26.3Gi allocatable on e2-standard-8; ` +
      `set cpuPool.machineType (config) to a larger machine from jobs/machines.ts or lower the ${step} pod's resources in the recipe`;
    expect(problemsOf(() => build('rl-llama3', {}, small))).toEqual([fit('to-maxtext', 16, '128.0Gi'), fit('to-hf', 16, '128.0Gi')]);
    // Conversions on the slice leave the CPU pool to nothing (McJAX) or to the Pathways head.
    expect(build('rl-llama3', { conversionOn: 'tpu' }, small).steps[0].runsOn).toBe('tpu');
    expect(problemsOf(() => build('rl-qwen3', { conversionOn: 'tpu' }, small))).toEqual([
      "rl-qwen3: the pathways-head pod's requests (cpu 26, memory 322.0Gi) do not fit one cpu-np node: memory 322.0Gi > 26.3Gi allocatable on e2-standard-8; " +
        "set cpuPool.machineType (config) to a larger machine from jobs/machines.ts or lower the pathways-head pod's resources in the recipe",
    ]);
  });
  test('a step count with no checkpoint period, set through overrides, names the override', () => {
    expect(problemsOf(() => build('rl-qwen3', { overrides: { num_batches: 211 } }))).toEqual([
      'rl-qwen3.overrides.num_batches: 211 training steps have no divisor between 11 and 52: checkpointing every quarter of the run and on its last step would ' +
        'write 211 checkpoints; use a step count such as 210 or 212',
    ]);
  });
  test('a shape the TPU table lacks stops there, naming the topology option', () => {
    expect(problemsOf(() => build('rl-qwen3', { machineType: 'ct6e-standard-4t', topology: '4x9' }))).toEqual([
      "rl-qwen3.topology must be one of 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16 for ct6e-standard-4t, got '4x9'",
    ]);
    expect(problemsOf(() => build('rl-qwen3', { machineType: 'ct6e-standard-4t', topology: '4x4' }))).toEqual([
      expect.stringMatching(/^rl-qwen3: targets a ct6e-standard-4t 4x4 slice, but the infra config has 1x ct6e-standard-4t 4x8, 1x ct6e-standard-8t 2x4/),
    ]);
  });
  test('one pass: a bad override and a bad eval option are reported together', () => {
    expect(problemsOf(() => build('rl-qwen3', { overrides: { num_batches: 'x' }, eval: { tasks: ['nope'] } }))).toEqual([
      "rl-qwen3.overrides.num_batches must be a number, got 'x'",
      expect.stringMatching(/^rl-qwen3\.eval\.tasks: no lm-evaluation-harness task 'nope' here/),
    ]);
  });
  test('weights read from a bucket (hf_model_path gs://): no Hub revision is resolved for any step', () => {
    const hub = build('rl-qwen3');
    const script = (p: ReturnType<typeof build>, i: number) => {
      const m = p.steps[i].manifest as any;
      return JSON.stringify(m.spec.replicatedJobs.map((r: any) => r.template.spec.template.spec.containers.map((c: any) => c.command)));
    };
    expect(script(hub, 0)).toContain('export HF_REVISION');
    expect(script(hub, 1)).toContain('tokenizer-at-revision');
    expect(script(hub, 2)).toContain('tokenizer-at-revision');
    const bucket = build('rl-qwen3', { overrides: { hf_model_path: 'gs://b/qwen' } });
    expect(script(bucket, 0)).not.toContain('export HF_REVISION');
    expect(script(bucket, 2)).not.toContain('tokenizer-at-revision');
    // Nothing in the prelude: the record line follows the token.
    for (const i of [0, 2]) expect(JSON.parse(script(bucket, i))[0][0][2]).toMatch(/export HF_TOKEN\npython3 -c /);
  });
});

describe('the JobSets a recipe gives', () => {
  const podSpec = (p: ReturnType<typeof build>, i: number) => (p.steps[i].manifest as any).spec.replicatedJobs[0].template.spec.template.spec;
  const scriptOfStep = (p: ReturnType<typeof build>, i: number) => podSpec(p, i).containers[0].command[2] as string;
  test('a conversion on the CPU pool gets the default resources unless the recipe sets its own', () => {
    const p = build('rl-llama3');
    expect(podSpec(p, 0).containers[0].resources).toEqual({ requests: { cpu: '16', memory: '128Gi' }, limits: { memory: '200Gi' } });
    const own = { requests: { cpu: '8', memory: '64Gi' }, limits: { memory: '64Gi' } };
    const recipe: Recipe = { ...RECIPES['rl-llama3'], toHf: { ...RECIPES['rl-llama3'].toHf, resources: own } };
    const q = buildPipeline(recipe, testPlatform(), { runId: 'r1' });
    expect(podSpec(q, 2).containers[0].resources).toEqual(own);
    expect(podSpec(q, 0).containers[0].resources).toEqual({ requests: { cpu: '16', memory: '128Gi' }, limits: { memory: '200Gi' } });
  });
  test('to-maxtext keeps a complete converted checkpoint unless the recipe says to convert again; to-hf always converts', () => {
    const p = build('rl-llama3');
    expect(scriptOfStep(p, 0)).toContain(`${p.paths.maxtextDir.replace(/^gs:\/\//, '')}0/commit_success.txt`);
    expect(scriptOfStep(p, 2)).not.toContain('commit_success.txt');
    const recipe: Recipe = { ...RECIPES['rl-llama3'], toMaxText: { ...RECIPES['rl-llama3'].toMaxText, reuseExisting: false } };
    expect(scriptOfStep(buildPipeline(recipe, testPlatform(), { runId: 'r1' }), 0)).not.toContain('commit_success.txt');
  });
  test('a TPU-VM recipe (tutorial 002) names the TPU after the host before training; the others do not', () => {
    expect(scriptOfStep(build('rl-llama3'), 1)).toContain('TPU_NAME="$(hostname)"\nexport TPU_NAME');
    expect(scriptOfStep(build('sft-gemma4'), 1)).not.toContain('TPU_NAME');
  });
  test('recipe files: a ConfigMap named after the pipeline, mounted into training; their size is checked', () => {
    const files = [{ name: 'r.py', content: 'def r(prompts, completions, **kw):\n  return []\n', sha256: 'a'.repeat(64), path: 'rewards/r.py' }];
    const p = buildPipeline({ ...RECIPES['rl-llama3'], files }, testPlatform(), { runId: 'r1' });
    expect(p.filesConfigMap).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'rl-llama3-files', namespace: 'default' } });
    expect(podSpec(p, 1).volumes).toContainEqual({ name: 'pipeline-files', configMap: { name: 'rl-llama3-files' } });
    expect(podSpec(build('rl-llama3'), 1).volumes ?? []).not.toContainEqual(expect.objectContaining({ name: 'pipeline-files' }));
    const two = [{ ...files[0], content: 'x'.repeat(600 * 1024) }, { ...files[0], name: 's.py', path: 'rewards/s.py', content: 'y'.repeat(600 * 1024) }];
    expect(problemsOf(() => buildPipeline({ ...RECIPES['rl-llama3'], files: two }, testPlatform(), { runId: 'r1' }))).toContain(
      `rl-llama3: the pipeline's files (rewards/r.py, rewards/s.py) hold ${1200 * 1024 + 8} bytes; a ConfigMap holds at most ${1024 * 1024}`,
    );
    const big = [{ ...files[0], content: 'x'.repeat(1024 * 1024) }];
    expect(problemsOf(() => buildPipeline({ ...RECIPES['rl-llama3'], files: big }, testPlatform(), { runId: 'r1' }))).toContain(
      `rl-llama3: the pipeline's files (rewards/r.py) hold ${1024 * 1024 + 4} bytes; a ConfigMap holds at most ${1024 * 1024}`,
    );
  });
});

describe('overrides of keys no step passes: text read as MaxText\'s YAML would (a number, a boolean, else the text)', () => {
  const added = (value: string | number | boolean) =>
    (resolveRun(RECIPES['rl-qwen3'], { runId: 'r1', overrides: { data_shuffle_seed: value } }, 32).recipe.train.args as Record<string, unknown>).data_shuffle_seed;
  test.each([
    [' 7 ', 7],
    ['-5', -5],
    ['+5', 5],
    ['1.5', 1.5],
    ['1e5', 1e5],
    ['1E-3', 1e-3],
    ['2e10', 2e10],
    ['1.5e+3', 1500],
    ['TRUE', true],
    [' false ', false],
    [7, 7],
    [true, true],
  ])('%p -> %p', (given, want) => {
    expect(added(given)).toBe(want);
  });
  test.each(['', 'abc', '0x10', '0b1', '1.2.3', 'Infinity', '1e', 'xtrue', 'truex', 'false!', '7 days'])('%p stays text', (given) => {
    expect(added(given)).toBe(given);
  });
});

describe('resolveRun', () => {
  const qwen = RECIPES['rl-qwen3'];
  test('every key this program derives is refused as an override', () => {
    for (const key of ['model_name', 'base_output_directory', 'load_parameters_path', 'hf_access_token', 'enable_checkpointing', 'checkpoint_period', 'max_num_checkpoints_to_keep']) {
      expect(() => resolveRun(qwen, { runId: 'r1', overrides: { [key]: 'x' } }, 32)).toThrow(
        `rl-qwen3.overrides.${key}: set by this program for every run (the paths, the model key and the checkpoints it derives); remove it`,
      );
    }
  });
  test('a key of no config class is shown escaped', () => {
    expect(() => resolveRun(qwen, { runId: 'r1', overrides: { 'bad"key': 1 } }, 32)).toThrow(/^rl-qwen3\.overrides\.bad\\"key: not a key rl-qwen3 passes/);
  });
  test('an owned key given as text that is no number: the value to move is the text', () => {
    expect(() => resolveRun(qwen, { runId: 'r1', overrides: { max_target_length: 'long' } }, 32)).toThrow('"training": {"maxCompletionLength": "long"}');
  });
  test('a recipe whose run_name is empty is named by its kind', () => {
    const unnamed = { ...qwen, train: { ...qwen.train, args: { ...qwen.train.args, run_name: '' } } } as Recipe;
    expect(resolveRun(unnamed, { runId: 'r1' }, 32).identity).toMatch(/^rl-[0-9a-f]{12}$/);
  });
  test('the chips training runs on are part of the run name; options retarget the slice', () => {
    expect(resolveRun(qwen, { runId: 'r1' }, 32).identity).not.toBe(resolveRun(qwen, { runId: 'r1' }, 64).identity);
    const two = build('rl-qwen3', {}, testPlatform({ v6e32Slices: 2 }));
    expect(two.recipe.train.args['run_name']).toBe(`rl-${trainKey(two.recipe, 64)}`);
    expect(two.runRecords.train.record).toMatchObject({ chips: 64, slices: 2 });
    expect(resolveRun(qwen, { runId: 'r1', machineType: 'ct6e-standard-8t' }, 8).recipe.slice).toEqual({ machineType: 'ct6e-standard-8t', topology: '4x8' });
    expect(resolveRun(qwen, { runId: 'r1', topology: '2x4' }, 8).recipe.slice).toEqual({ machineType: 'ct6e-standard-4t', topology: '2x4' });
  });
});

describe('where a problem says a value came from', () => {
  const bad = "image must be a reference such as us-docker.pkg.dev/<project>/<repo>/<image>:<tag> or <image>@sha256:<64 hex digits>, got 'maxtext'";
  test('the image: its own source, else the config entry\'s image key, else the recipe alone', () => {
    expect(problemsOf(() => build('rl-qwen3', { image: 'maxtext' }))).toEqual([`rl-qwen3: image: ${bad}`]);
    expect(problemsOf(() => build('rl-qwen3', { image: 'maxtext', configSource: 'pipelines.rl-qwen3' }))).toEqual([`rl-qwen3 (pipelines.rl-qwen3.image): image: ${bad}`]);
    expect(problemsOf(() => build('rl-qwen3', { image: 'maxtext', configSource: 'pipelines.rl-qwen3', imageSource: 'CLOUD_IMAGE_NAME (env)' }))).toEqual([
      `rl-qwen3 (CLOUD_IMAGE_NAME (env)): image: ${bad}`,
    ]);
  });
  test('a bad run id alone: that problem alone (the names are not checked with it)', () => {
    const err = (() => {
      try {
        build('rl-qwen3', { runId: 'R_1' });
      } catch (e) {
        return e as PipelineProblems;
      }
      throw new Error('expected PipelineProblems');
    })();
    expect(err.name).toBe('PipelineProblems');
    expect(err.problems).toEqual(["rl-qwen3.runId: run id must be lowercase letters, digits and '-', starting and ending with a letter or digit, got 'R_1'"]);
    expect(err.message).toBe(err.problems.join('\n'));
  });
  test('JobSet names are checked with the prefix they are built with: a rehearsal\'s short prefix fits a long pipeline name', () => {
    const long = { ...RECIPES['rl-qwen3'], name: 'qwen3-math-support' };
    expect(problemsOf(() => buildPipeline(long, testPlatform(), { runId: 'r1' }))[0]).toMatch(/^qwen3-math-support: pipeline name 'qwen3-math-support' is too long/);
    expect(buildPipeline(long, testPlatform(), { runId: 'r1', jobSetPrefix: 'rh-q' }).steps.map((s) => s.jobSetName)).toEqual([
      'rh-q-r1-to-maxtext', 'rh-q-r1-train', 'rh-q-r1-to-hf', 'rh-q-r1-eval',
    ]);
  });
});

describe('each step\'s JobSet, as built', () => {
  const manifestOf = (p: ReturnType<typeof build>, i: number) => p.steps[i].manifest as any;
  const scriptAt = (p: ReturnType<typeof build>, i: number) => manifestOf(p, i).spec.replicatedJobs[0].template.spec.template.spec.containers[0].command[2] as string;
  /** The workload container's script (the Pathways head's, for training on Pathways). */
  const scriptOfMain = (p: ReturnType<typeof build>, i: number) =>
    JSON.parse(JSON.stringify(manifestOf(p, i).spec.replicatedJobs[0].template.spec.template.spec.containers.find((c: any) => c.name === 'workload-container').command[2])) as string;
  test('names, step labels and the queue label on the JobSet and its pods; the hash chain from the first manifest', () => {
    const p = build('rl-qwen3');
    let previous = '';
    for (const [i, s] of p.steps.entries()) {
      const m = manifestOf(p, i);
      expect(m.metadata.name).toBe(s.jobSetName);
      const want = { ...p.labels, 'tpu-post-training/step': s.name, 'kueue.x-k8s.io/queue-name': 'user-queue' };
      expect(m.metadata.labels).toEqual(want);
      for (const r of m.spec.replicatedJobs) expect(r.template.spec.template.metadata.labels).toMatchObject(want);
      expect(s.specHash).toBe(chainHash(previous, s.manifest));
      previous = s.specHash;
    }
    expect(p.steps.map((s) => s.nameShape)).toEqual([
      { step: 'to-maxtext', replicatedJobs: [{ name: 'convert', replicas: 1, parallelism: 1 }] },
      {
        step: 'train',
        replicatedJobs: [{ name: 'pathways-head', replicas: 1, parallelism: 1 }, { name: 'worker', replicas: 1, parallelism: 8 }],
        coordinator: { replicatedJob: 'pathways-head', jobIndex: 0, podIndex: 0 },
      },
      { step: 'to-hf', replicatedJobs: [{ name: 'convert', replicas: 1, parallelism: 1 }] },
      { step: 'eval', replicatedJobs: [{ name: 'slice', replicas: 1, parallelism: 1 }] },
    ]);
  });
  test('the McJAX presets train on their slice\'s VMs, not Pathways', () => {
    for (const name of ['rl-llama3', 'sft-gemma4']) {
      expect(manifestOf(build(name), 1).spec.replicatedJobs.map((r: any) => r.name)).toEqual(['slice']);
    }
  });
  test('the conversions retry a transient Hub or bucket error once, on the CPU pool and on the slice', () => {
    for (const conversionOn of ['cpu', 'tpu'] as const) {
      const p = build('rl-llama3', { conversionOn });
      for (const i of [0, 2]) expect(scriptAt(p, i)).toContain('retrying once in 60s');
      expect(scriptAt(p, 1)).not.toContain('retrying once in 60s');
    }
  });
  test('each step writes its own run record at its start and at its end', () => {
    const p = build('rl-qwen3');
    for (const [i, step] of (['to-maxtext', 'train', 'to-hf'] as const).entries()) {
      const at = p.runRecords[step].path;
      for (const phase of ['start', 'end']) expect(scriptOfMain(p, i)).toContain(`${at} ${phase} || echo "run record ${at} not written (the step goes on)"`);
    }
  });
  test('revisions: the conversion resolves the commit; training and the export read its tokenizer at that commit from the conversion\'s record', () => {
    const p = build('sft-gemma4');
    const conversionRecord = p.runRecords['to-maxtext'].path;
    expect(scriptAt(p, 0)).toContain('export HF_REVISION');
    // Only the conversion resolves the commit (model_info) and patches to_maxtext's listing to it.
    expect(scriptAt(p, 0)).toContain('HfApi().model_info(');
    expect(scriptAt(p, 0)).toContain('revision listing patch');
    for (const i of [1, 2]) {
      expect(scriptAt(p, i)).not.toContain('HfApi().model_info(');
      expect(scriptAt(p, i)).not.toContain('revision listing patch');
    }
    expect(scriptAt(p, 2)).toContain(conversionRecord);
    expect(scriptAt(p, 2)).toContain('tokenizer-at-revision');
    // SFT training takes its tokenizer from the converted checkpoint's model (no tokenizer_path): no download.
    expect(scriptAt(p, 1)).not.toContain('tokenizer-at-revision');
    expect(scriptAt(p, 1)).toMatch(/^set -eu\nHF_TOKEN="\$\(cat \/var\/run\/secrets\/hf\/hf-token\)"\nexport HF_TOKEN\npython3 -c /);
    // A tokenizer repository of its own is the one training and the eval record name.
    const recipe = { ...RECIPES['rl-llama3'], train: { ...RECIPES['rl-llama3'].train, args: { ...RECIPES['rl-llama3'].train.args, tokenizer_path: 'meta-llama/Llama-3.1-8B' } } } as Recipe;
    const own = buildPipeline(recipe, testPlatform(), { runId: 'r1' });
    expect(scriptAt(own, 1)).toContain('tokenizer and chat template: meta-llama/Llama-3.1-8B at');
    expect(scriptAt(own, 1)).toContain(own.runRecords['to-maxtext'].path);
    expect(own.runRecords.eval.record).toMatchObject({ tokenizer: 'meta-llama/Llama-3.1-8B' });
  });
  test('eval writes its record beside eval.json through the export mount; weights from a bucket: the eval tokenizer is the base model', () => {
    const p = build('rl-qwen3');
    const evalScript = scriptAt(p, 3);
    expect(evalScript).toContain(p.runRecords.eval.path);
    for (const phase of ['start', 'end']) {
      expect(evalScript).toContain(`${EXPORT_MOUNT}/${EVAL_RUN_RECORD_FILE} ${phase} || echo "run record ${p.runRecords.eval.path} not written (the step goes on)"`);
    }
    expect(p.runRecords.eval.record).toMatchObject({ step: 'eval', tokenizer: 'Qwen/Qwen3-30B-A3B-Instruct-2507', tasks: ['gsm8k_reasoning'], dataset: { hf: 'openai/gsm8k', config: 'main', split: 'test' } });
    const bucket = build('rl-qwen3', { overrides: { hf_model_path: 'gs://b/qwen' } });
    expect(bucket.runRecords.eval.record).toMatchObject({ tokenizer: bucket.eval!.baseModel });
  });
});

describe('what the Pipeline reports beside its steps', () => {
  test('notices: none for a preset that fits; eval left out when infra has no single-host slice, with its steps', () => {
    expect(build('rl-qwen3').notices).toEqual([]);
    const noSingle = derivePlatform({
      project: 'p', region: 'us-east5', zone: 'us-east5-b', clusterName: 't', bucket: 'b', namespace: 'default', cpuMachineType: 'n4-highmem-64',
      tpuGroups: [{ slice: tpuSlice('ct6e-standard-4t', '4x8'), count: 1, capacity: { type: 'reservation', reservation: 'r' } }],
    });
    const p = build('rl-qwen3', {}, noSingle);
    expect(p.notices).toEqual([expect.stringMatching(/^rl-qwen3: eval step left out: qwen3-30b-a3b needs a single-host ct6e-standard-4t 2x2 \(v6e-4\) or larger/)]);
    expect(p.steps.map((s) => s.name)).toEqual(['to-maxtext', 'train', 'to-hf']);
  });
  test('optional parts are absent, not undefined, when there is nothing to say', () => {
    const keys = Object.keys(build('rl-qwen3'));
    for (const k of ['maxtextDifference', 'filesConfigMap', 'serve']) expect(keys).not.toContain(k);
    expect(Object.keys(build('rl-qwen3').model)).toEqual(['name', 'hfRepo', 'exportName']);
    expect(Object.keys(build('rl-llama3'))).toContain('maxtextDifference');
  });
  test('serve: planned only when enabled, for the pipeline\'s export', () => {
    const p = build('sft-gemma4', { serve: { enabled: true } });
    expect(p.serve).toMatchObject({ pipeline: 'sft-gemma4', namespace: 'default', modelPath: p.paths.hfExportDir });
    expect(build('sft-gemma4', { serve: { enabled: false } }).serve).toBeUndefined();
  });
});

describe('checkRunOutputs over any directories', () => {
  const fake = (name: string, trainRunDir: string, hfExportDir: string) => ({ name, paths: { trainRunDir, hfExportDir } }) as unknown as Pipeline;
  test('a directory inside another pipeline\'s is refused, naming the outer one, whichever comes first', () => {
    const outer = fake('a', 'gs://b/m/trained/x/', 'gs://b/m/hf/x/');
    const inner = fake('b', 'gs://b/m/trained/x/y/', 'gs://b/m/hf/y/');
    const want = 'would both write gs://b/m/trained/x/; give one another run_name';
    expect(() => checkRunOutputs([outer, inner])).toThrow(`pipelines a and b ${want} (pipelines.b.overrides.run_name)`);
    expect(() => checkRunOutputs([inner, outer])).toThrow(`pipelines b and a ${want} (pipelines.a.overrides.run_name)`);
  });
  test('directories apart (another bucket, another export) are accepted', () => {
    expect(() => checkRunOutputs([fake('a', 'gs://b/m/trained/x/', 'gs://b/e/1/'), fake('b', 'gs://c/m/trained/x/', 'gs://b/e/2/')])).not.toThrow();
  });
});

describe('the recipe checks build on the options', () => {
  const sft = RECIPES['sft-gemma4'];
  /** sft-gemma4 on the single-host slice with 4 sequences per chip: gemma4-31b does not fit; only a larger slice would. */
  const tooBig = { ...sft, slice: { machineType: 'ct6e-standard-8t', topology: '2x4' }, train: { ...sft.train, args: { ...sft.train.args, per_device_batch_size: 4 } } } as Recipe;
  const advice = (options: Partial<Parameters<typeof buildPipeline>[2]>) =>
    problemsOf(() => buildPipeline(tooBig, testPlatform(), { runId: 'r1', configSource: 'pipelines.sft-gemma4', ...options }))[0].replace(/^.* which fits tightly \(/, '');
  test('fit advice names slice, unless machineType or topology retargeted the pipeline (they would win over slice)', () => {
    expect(advice({})).toBe('pipelines.sft-gemma4.slice: v6e-256, with that slice in infra) (estimate: jobs/hbm.ts)');
    const retargeted = 'pipelines.sft-gemma4.machineType/topology: ct6e-standard-4t 16x16, with that slice in infra) (estimate: jobs/hbm.ts)';
    expect(advice({ machineType: 'ct6e-standard-8t', topology: '2x4' })).toBe(retargeted);
    expect(advice({ machineType: 'ct6e-standard-8t' })).toBe(retargeted);
    expect(advice({ topology: '2x4' })).toBe(retargeted);
  });
  test('a tight fit is a notice of the pipeline (tutorial 002 on one v6e-8)', () => {
    expect(build('rl-llama3').notices).toEqual([
      'rl-llama3: llama3.1-8b-Instruct fits ct6e-standard-8t 2x4 (v6e-8-8t) tightly: gradients, optimizer state and activations take 7.9 GiB of the 8.8 GiB ' +
        'hbm_utilization_vllm=0.72 leaves per chip; an out-of-memory error at start-up is possible (estimate: jobs/hbm.ts)',
    ]);
  });
  test('the first checkpoint must land before training\'s deadline, the options\' deadline when given (the fix said is accepted)', () => {
    expect(problemsOf(() => build('sft-gemma4', { overrides: { steps: 4_000_000 } }))).toEqual([
      expect.stringMatching(/^sft-gemma4\.steps: the first checkpoint \(step 1000000 of 4000000: checkpoint_period 1000000, a quarter of the run\) cannot land before training's deadline: .* or raise timeoutMinutes\.train to at least 6967, /),
    ]);
    expect(build('sft-gemma4', { overrides: { steps: 4_000_000 }, timeoutMinutes: { train: 6967 } }).steps[1].timeoutMinutes).toBe(6967);
  });
  test('recipe files of exactly a ConfigMap\'s size are shipped', () => {
    const content = 'x'.repeat(1024 * 1024 - 4);
    const p = buildPipeline({ ...RECIPES['rl-llama3'], files: [{ name: 'r.py', content, sha256: 'a'.repeat(64), path: 'rewards/r.py' }] }, testPlatform(), { runId: 'r1' });
    expect(p.filesConfigMap).toBeDefined();
  });
  test('exit policies: a multi-host training program restarts the JobSet when a host fails; a conversion on the slice (only index 0 converts) fails fast', () => {
    const failurePolicies = (p: ReturnType<typeof build>, i: number) => (p.steps[i].manifest as any).spec.replicatedJobs.map((r: any) => r.template.spec.podFailurePolicy !== undefined);
    const p = build('sft-gemma4', { conversionOn: 'tpu' });
    expect(p.slice.vms).toBe(8);
    expect(failurePolicies(p, 1)).toEqual([false]);
    expect(failurePolicies(p, 0)).toEqual([true]);
    expect(failurePolicies(p, 2)).toEqual([true]);
  });
});
