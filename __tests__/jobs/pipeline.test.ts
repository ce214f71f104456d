/**
 * jobs/pipeline.ts as a user meets it, built directly (no config, no synthesis, each pipeline built inside its test):
 * the step facts the stacks and `npm run status` read (waits, commands, selectors, TPU capacity), the Pathways head's
 * whole-node resources, the flex-start lifetime rule, the run outputs two pipelines may not share, the longest run id,
 * and the MaxText version sentence. Each error is asserted by its message (the key, the value, what fits).
 */
import { Capacity, derivePlatform, Platform } from '../../jobs/platform';
import {
  ATTEMPT_MARGIN_MINUTES,
  buildPipeline,
  checkRunOutputs,
  DEFAULT_QUEUE_MINUTES,
  maxRunIdLength,
  maxtextDifference,
  PipelineProblems,
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
    const big = [{ ...files[0], content: 'x'.repeat(1024 * 1024) }];
    expect(problemsOf(() => buildPipeline({ ...RECIPES['rl-llama3'], files: big }, testPlatform(), { runId: 'r1' }))).toContain(
      `rl-llama3: the pipeline's files (rewards/r.py) hold ${1024 * 1024 + 4} bytes; a ConfigMap holds at most ${1024 * 1024}`,
    );
  });
});
