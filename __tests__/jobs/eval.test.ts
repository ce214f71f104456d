import { spawnSync } from 'child_process';
/** The eval step (jobs/eval.ts) and the serving fit (jobs/vllm.ts): defaults, overrides, errors, the JobSet it builds. */
import { EVAL_TASKS, evalJsonPath, GATE_EXIT_CODE, gateText, heldoutTaskYaml, planEval, requestArgs, taskImageProblem, taskUtilsPy } from '../../jobs/eval';
import { INFRASTRUCTURE_EXIT_CODES } from '../../jobs/jobset';
import { MODELS, SERVING } from '../../jobs/models';
import { buildPipeline, Pipeline } from '../../jobs/pipeline';
import { derivePlatform } from '../../jobs/platform';
import { RECIPES } from '../../jobs/recipes';
import { tpuSlice } from '../../jobs/tpu';
import { servingFit, singleHostSlices, smallestServingSlice, VLLM_IMAGE_ROW, VLLM_TPU_IMAGE, VllmImage } from '../../jobs/vllm';
import { jobFailure } from '../models/jobset';
import { container, envOf, scriptOf, testPlatform } from './fixtures';

const build = (name: string, options: Parameters<typeof buildPipeline>[2] = { runId: 'r1' }) => buildPipeline(RECIPES[name], testPlatform(), options);
const evalStep = (p: Pipeline) => p.steps.find((s) => s.name === 'eval')!;
const pod = (p: Pipeline) => (evalStep(p).manifest as any).spec.replicatedJobs[0].template.spec.template;
const noSingleHost = () =>
  derivePlatform({
    ...{ project: 'my-project', region: 'us-east5', zone: 'us-east5-b', clusterName: 'tpt', bucket: 'my-bucket', namespace: 'default', cpuMachineType: 'n4-highmem-64' },
    tpuGroups: [{ slice: tpuSlice('ct6e-standard-4t', '4x8'), count: 1, capacity: { type: 'reservation', reservation: 'res' } }],
  });

describe('defaults', () => {
  test('every tutorial pipeline ends with an eval step after to-hf, on the single-host v6e-8, chained to the export', () => {
    for (const name of Object.keys(RECIPES)) {
      const p = build(name);
      expect(p.steps.map((s) => s.name)).toEqual(['to-maxtext', 'train', 'to-hf', 'eval']);
      const e = evalStep(p);
      expect(e).toMatchObject({ jobSetName: `${name}-r1-eval`, runsOn: 'tpu', timeoutMinutes: 240, maxRestarts: 1 });
      expect(e.tpu!.slice.topology).toBe('2x4');
      expect(p.eval!.evalJson).toBe(`${p.paths.hfExportDir}eval.json`);
      expect(p.eval!.trainedModel).toBe(p.paths.hfExportDir);
      expect(p.eval!.baseModel).toBe(RECIPES[name].model.hfRepo);
    }
  });

  test('GRPO presets score GSM8K in the template they trained with; the SFT preset its evaluation split in the chat template', () => {
    const rl = build('rl-qwen3').eval!;
    expect(rl).toMatchObject({ tasks: ['gsm8k_reasoning'], samples: 500, limits: { gsm8k_reasoning: 500 }, seed: 1234 });
    expect(rl.metrics.map((m) => m.metric)).toEqual(['answer_accuracy,none', 'answer_format,none']);
    // rl-qwen3 sets data_template_path openmathinstruct2_rl.json (maxtext-v0.2.4); rl-llama3 keeps rl.yml's gsm8k_rl.json.
    expect(rl.reasoning).toMatchObject({ templatePath: 'maxtext/examples/chat_templates/openmathinstruct2_rl.json', TEMPLATE: '{system_prompt}\n\n{question}' });
    expect(build('rl-llama3').eval!.reasoning!.templatePath).toBe('maxtext/examples/chat_templates/gsm8k_rl.json');
    const sft = build('sft-gemma4').eval!;
    expect(sft.tasks).toEqual(['heldout']);
    expect(sft.heldout).toEqual({ path: 'HuggingFaceH4/ultrachat_200k', split: 'test_sft', column: 'messages' });
    expect(sft.metrics.every((m) => !m.higherIsBetter)).toBe(true);
    expect(heldoutTaskYaml(sft.heldout!)).toContain('output_type: loglikelihood_rolling');
    expect(heldoutTaskYaml(sft.heldout!)).toContain('test_split: "test_sft"');
    expect(heldoutTaskYaml(sft.heldout!)).toContain('process_docs: !function utils.heldout_docs');
  });

  test('images: the one pinned nightly for every model (Gemma 4 too, as Gemma4ForCausalLM); TP over every chip of the host', () => {
    expect(build('rl-qwen3').eval!.image).toBe(VLLM_TPU_IMAGE);
    expect(VLLM_TPU_IMAGE).toBe('vllm/vllm-tpu:nightly-20260816-11250b4-1d2d83a');
    expect(build('rl-gemma4').eval!.image).toBe(VLLM_TPU_IMAGE);
    expect(build('sft-gemma4').eval!.vllmArgs).toEqual(['--hf-overrides', '{"architectures":["Gemma4ForCausalLM"]}']);
    expect(build('rl-qwen3').eval!.vllmArgs).toEqual([]);
    expect(scriptOf(container(evalStep(build('rl-qwen3')).manifest, 'slice', 'workload-container'))).toContain('--tensor-parallel-size 8 --max-model-len 16384 --seed 1234');
  });

  test('the pod: every chip of one host, no host network, the export mounted through Cloud Storage FUSE, the token as a file', () => {
    const p = build('rl-qwen3');
    const t = pod(p);
    expect(t.metadata.annotations['gke-gcsfuse/volumes']).toBe('true');
    expect(t.spec.hostNetwork).toBeUndefined();
    expect(t.spec.nodeSelector).toEqual({ 'cloud.google.com/gke-tpu-accelerator': 'tpu-v6e-slice', 'cloud.google.com/gke-tpu-topology': '2x4' });
    const c = container(evalStep(p).manifest, 'slice', 'workload-container');
    expect(c.resources.limits).toEqual({ 'google.com/tpu': '8' });
    expect(t.spec.volumes).toContainEqual({
      name: 'export',
      csi: { driver: 'gcsfuse.csi.storage.gke.io', volumeAttributes: { bucketName: 'my-bucket', mountOptions: `implicit-dirs,only-dir=${p.paths.hfExportDir.replace('gs://my-bucket/', '').replace(/\/$/, '')}` } },
    });
    expect(c.volumeMounts).toContainEqual({ name: 'export', mountPath: '/gcs/export' });
    expect(envOf(c)).toEqual({});
    const script = scriptOf(c);
    expect(script).not.toMatch(/hf_access_token/);
    expect(script.split('\n').filter((l) => /HF_TOKEN/.test(l))).toEqual(['HF_TOKEN="$(cat /var/run/secrets/hf/hf-token)"', 'export HF_TOKEN']);
    expect(script).toContain("pip install --no-cache-dir 'lm_eval[api]==0.4.12'");
  });

  test('a failed gate (exit 3) is an application error: the Job fails with PodFailurePolicy (FailJobSet), no restart', () => {
    const job = (evalStep(build('rl-qwen3')).manifest as any).spec.replicatedJobs[0].template.spec;
    expect(INFRASTRUCTURE_EXIT_CODES).not.toContain(GATE_EXIT_CODE);
    expect(jobFailure(job, [{ kind: 'podFailed', exitCode: GATE_EXIT_CODE, container: 'workload-container', disrupted: false }])).toBe('PodFailurePolicy');
    // A preempted host is not the gate: it restarts (BackoffLimitExceeded matches no FailJobSet rule).
    expect(jobFailure(job, [{ kind: 'podFailed', exitCode: 137, container: 'workload-container', disrupted: true }])).toBe('BackoffLimitExceeded');
  });
});

describe('overrides', () => {
  test('enabled false: no eval step, no plan, the other steps unchanged', () => {
    const off = build('rl-qwen3', { runId: 'r1', eval: { enabled: false } });
    expect(off.steps.map((s) => s.name)).toEqual(['to-maxtext', 'train', 'to-hf']);
    expect(off.eval).toBeUndefined();
    expect(off.steps.map((s) => s.specHash)).toEqual(build('rl-qwen3').steps.slice(0, 3).map((s) => s.specHash));
  });
  test('tasks, samples, seed, gate, timeout, restarts and max-model-len reach the plan and the script', () => {
    const p = build('rl-qwen3', {
      runId: 'r1',
      eval: { tasks: ['gsm8k', 'mmlu'], samples: 50, seed: 7, gate: { metric: 'exact_match,strict-match', minDelta: 0.01 }, timeoutMinutes: 90, maxRestarts: 2, maxModelLen: 4096 },
    });
    expect(p.eval).toMatchObject({ tasks: ['gsm8k', 'mmlu'], samples: 50, seed: 7, gate: { metric: 'exact_match,strict-match', minDelta: 0.01 }, maxModelLen: 4096 });
    expect(evalStep(p)).toMatchObject({ timeoutMinutes: 90, maxRestarts: 2 });
    const script = scriptOf(container(evalStep(p).manifest, 'slice', 'workload-container'));
    expect(script).toContain('--tasks gsm8k --limit 50 --seed 7');
    // --limit is per leaf task (lm_eval evaluator.py get_sample_size): mmlu's 57 subjects get ceil(50 / 57) = 1 each.
    expect(script).toContain('--tasks mmlu --limit 1 --seed 7');
    expect(script).toContain('"gate":{"metric":"exact_match,strict-match","minDelta":0.01}');
  });
  test('samples per task: mmlu 500 -> 9 per subject (513 questions); the review line says so', () => {
    const p = build('rl-qwen3', { runId: 'r1', eval: { tasks: ['gsm8k', 'mmlu'] } });
    expect(p.eval!.limits).toEqual({ gsm8k: 500, mmlu: 9 });
    expect(gateText(p.eval!)).toContain('samples gsm8k: 500, mmlu: 9 per subtask x 57');
  });
  test('ifeval installs its dependencies (lm_eval[ifeval]: langdetect, immutabledict, nltk)', () => {
    const script = scriptOf(container(evalStep(build('rl-qwen3', { runId: 'r1', eval: { tasks: ['ifeval'] } })).manifest, 'slice', 'workload-container'));
    expect(script).toContain("pip install --no-cache-dir 'lm_eval[api,ifeval]==0.4.12'");
  });
  test('hfRevision pins the base weights and both models\' tokenizer: the tokenizer downloaded at that commit (jobs/hf-revision.ts), the base served at it', () => {
    const recipe = { ...RECIPES['rl-qwen3'], model: { ...RECIPES['rl-qwen3'].model, hfRevision: 'abc123' } };
    const p = buildPipeline(recipe, testPlatform(), { runId: 'r1' });
    const script = scriptOf(container(evalStep(p).manifest, 'slice', 'workload-container'));
    expect(script).toContain('HF_REVISION=abc123');
    expect(script).toContain('--tokenizer /tmp/tokenizer-at-revision');
    expect(script).toContain('score base Qwen/Qwen3-30B-A3B-Instruct-2507 "--revision=$HF_REVISION"');
    expect(script).toContain('tokenizer=/tmp/tokenizer-at-revision,');
    expect(script).toContain("EVAL_TOKENIZER=/tmp/tokenizer-at-revision EVAL_TOKENIZER_REVISION=''");
  });
  test('the base model\'s download is requested as node disk: 61 GB of Qwen3-30B-A3B -> 67Gi', () => {
    const c = container(evalStep(build('rl-qwen3')).manifest, 'slice', 'workload-container');
    expect(c.resources.requests).toEqual({ 'ephemeral-storage': '67Gi' });
  });
  test('the pipeline-wide maxRestarts applies to eval unless eval sets its own', () => {
    expect(evalStep(build('rl-qwen3', { runId: 'r1', maxRestarts: 4 })).maxRestarts).toBe(4);
    expect(evalStep(build('rl-qwen3', { runId: 'r1', maxRestarts: 4, eval: { maxRestarts: 0 } })).maxRestarts).toBe(0);
  });
  test('a changed eval setting replaces only the eval step', () => {
    const a = build('rl-qwen3');
    const b = build('rl-qwen3', { runId: 'r1', eval: { samples: 100 } });
    expect(b.steps.map((s, i) => s.specHash === a.steps[i].specHash)).toEqual([true, true, true, false]);
  });
});

describe('errors name the key and the value', () => {
  const src = 'config/example.json: pipelines.rl-qwen3';
  const problems = (name: string, options: object) => planEval(RECIPES[name], testPlatform(), build(name).paths, options, src).problems;
  test('an unknown task', () => {
    expect(problems('rl-qwen3', { tasks: ['gsm9k'] })).toEqual([
      `${src}.eval.tasks: no lm-evaluation-harness task 'gsm9k' here; tasks: ${Object.keys(EVAL_TASKS).join(', ')}`,
    ]);
  });
  test('no task at all', () => {
    expect(problems('rl-qwen3', { tasks: [] })[0]).toMatch(/eval\.tasks must name at least one task/);
  });
  test('a gate on a metric the step does not compute, listing the ones it does', () => {
    expect(problems('rl-qwen3', { gate: { metric: 'acc,none', minDelta: 0 } })).toEqual([
      `${src}.eval.gate.metric must be a metric the step computes (answer_accuracy,none, answer_format,none), got 'acc,none'`,
    ]);
  });
  test('the held-out task on a GRPO pipeline', () => {
    expect(problems('rl-qwen3', { tasks: ['heldout'] })[0]).toBe(`${src}.eval.tasks: 'heldout' scores an SFT dataset's evaluation split; rl-qwen3 trains with grpo`);
    expect(problems('sft-gemma4', { tasks: ['gsm8k_reasoning'] })[0]).toBe(`${src.replace('rl-qwen3', 'rl-qwen3')}.eval.tasks: 'gsm8k_reasoning' scores a GRPO run in its training template; sft-gemma4 trains with sft`);
  });
  test('numbers out of range, all collected', () => {
    expect(problems('rl-qwen3', { samples: 0, timeoutMinutes: 1.5, maxRestarts: -1 })).toEqual([
      `${src}.eval.samples must be a whole number from 1 to 100000, got 0`,
      `${src}.eval.timeoutMinutes must be a whole number from 1 to 10080, got 1.5`,
      `${src}.eval.maxRestarts must be a whole number from 0 to 20, got -1`,
    ]);
  });
  test('buildPipeline throws them together', () => {
    expect(() => build('rl-qwen3', { runId: 'r1', configSource: src, eval: { tasks: ['nope'], gate: { metric: 'x', minDelta: 0 } } })).toThrow(
      /eval\.tasks: no lm-evaluation-harness task 'nope'.*\n.*eval\.gate\.metric must be a metric the step computes \(none\), got 'x'/,
    );
  });
  test('a task listed twice', () => {
    expect(problems('rl-qwen3', { tasks: ['gsm8k', 'mmlu', 'gsm8k'] })).toEqual([`${src}.eval.tasks lists 'gsm8k' more than once; name each task once`]);
  });
  test('a minDelta no model can reach on a 0..1 metric (5), or not finite (1e400 parses as Infinity)', () => {
    expect(problems('rl-qwen3', { gate: { metric: 'answer_accuracy,none', minDelta: 5 } })).toEqual([
      `${src}.eval.gate.minDelta must be from -1 to 1: answer_accuracy,none lies in 0..1, so no model can improve it by 5`,
    ]);
    expect(problems('rl-qwen3', { gate: { metric: 'answer_accuracy,none', minDelta: JSON.parse('1e400') } })).toEqual([`${src}.eval.gate.minDelta must be a finite number, got Infinity`]);
    // A perplexity has no upper bound: any finite minDelta is one a model could reach.
    expect(problems('sft-gemma4', { gate: { metric: 'word_perplexity,none', minDelta: 5 } })).toEqual([]);
  });
  test('enabled false hides no typo: the tasks and the gate are still checked', () => {
    expect(problems('rl-qwen3', { enabled: false, tasks: ['gsm9k'] })).toEqual([
      `${src}.eval.tasks: no lm-evaluation-harness task 'gsm9k' here; tasks: ${Object.keys(EVAL_TASKS).join(', ')}`,
    ]);
    expect(problems('rl-qwen3', { enabled: false, gate: { metric: 'acc', minDelta: 0 } })[0]).toMatch(/eval\.gate\.metric must be a metric the step computes/);
    expect(problems('rl-qwen3', { enabled: false })).toEqual([]);
  });
  test('a task the image cannot run is refused at synth, naming the image and the missing feature', () => {
    const old: VllmImage = { ...VLLM_IMAGE_ROW, tag: 'vllm/vllm-tpu:nightly-20260504-e2a6582-67058ca', tpuInference: 'e2a6582 (2026-05-04)', features: { ...VLLM_IMAGE_ROW.features, promptLogprobs: false } };
    expect(taskImageProblem('mmlu', old)).toBe(
      "task 'mmlu' is scored from prompt log-probabilities, which vllm/vllm-tpu:nightly-20260504-e2a6582-67058ca (tpu-inference e2a6582) does not compute (tpu-inference #2750, first released in v0.22)",
    );
    expect(taskImageProblem('heldout', old)).toMatch(/^task 'heldout' is scored from prompt log-probabilities/);
    expect(taskImageProblem('gsm8k', old)).toBeUndefined();
    for (const task of Object.keys(EVAL_TASKS)) expect(taskImageProblem(task, VLLM_IMAGE_ROW)).toBeUndefined();
  });
  test('a model the image cannot serve (Gemma 3): eval left out with the reason by default, an error when enabled was set', () => {
    const recipe = { ...RECIPES['sft-gemma4'], name: 'sft-gemma3', model: { ...RECIPES['sft-gemma4'].model, name: 'gemma3-12b', hfRepo: 'google/gemma-3-12b-it' } };
    const r = planEval(recipe, testPlatform(), build('sft-gemma4').paths, undefined, src);
    expect(r.plan).toBeUndefined();
    expect(r.notice).toBe(`sft-gemma3: eval step left out: vllm/vllm-tpu:nightly-20260816-11250b4-1d2d83a cannot serve gemma3-12b: ${SERVING['gemma3-12b'].unservable}; set ${src}.eval.enabled to false to silence this`);
    expect(planEval(recipe, testPlatform(), build('sft-gemma4').paths, { enabled: true }, src).problems).toEqual([
      `${src}.eval.enabled: the eval step cannot run: vllm/vllm-tpu:nightly-20260816-11250b4-1d2d83a cannot serve gemma3-12b: ${SERVING['gemma3-12b'].unservable}`,
    ]);
  });
  test('an unknown GRPO template cannot be rendered: refused', () => {
    const recipe = { ...RECIPES['rl-qwen3'], train: { ...RECIPES['rl-qwen3'].train, args: { ...RECIPES['rl-qwen3'].train.args, data_template_path: 'my/template.json' } } };
    expect(planEval(recipe as any, testPlatform(), build('rl-qwen3').paths, undefined, src).problems[0]).toMatch(/'gsm8k_reasoning' renders the GRPO template, but rl-qwen3's data_template_path 'my\/template\.json' is none of/);
  });
  test('no single-host slice: left out with a notice by default, an error when enabled was set', () => {
    const p = buildPipeline(RECIPES['rl-qwen3'], noSingleHost(), { runId: 'r1', configSource: src });
    expect(p.steps.map((s) => s.name)).toEqual(['to-maxtext', 'train', 'to-hf']);
    expect(p.notices).toContainEqual(expect.stringMatching(/^rl-qwen3: eval step left out: qwen3-30b-a3b needs a single-host ct6e-standard-4t 2x2 \(v6e-4\) or larger \(SINGLE_HOST_RESERVATION=<v6e-8 reservation>, or SINGLE_HOST_CAPACITY=spot\|flex-start, adds a v6e-8\); infra has no single-host slice; set .*eval\.enabled to false/));
    expect(() =>
      buildPipeline(RECIPES['rl-qwen3'], noSingleHost(), { runId: 'r1', configSource: src, eval: { enabled: true, enabledSource: `${src}.eval.enabled` } }),
    ).toThrow(`${src}.eval.enabled: the eval step cannot run: qwen3-30b-a3b needs a single-host ct6e-standard-4t 2x2 (v6e-4) or larger`);
  });
});

describe('serving fit (jobs/vllm.ts): weights + KV cache per chip, on every row of the model table', () => {
  // bf16 weights / chips + 8 sequences x 16384 tokens x 2 x layers x ceil(kvHeads / chips) x headDim x 2 bytes <= 0.9 x 32 GiB.
  // qwen3-235b-a22b fits no v6e host (470 GB of bf16 weights > 8 chips); it is refused for serving (false).
  const expected: Record<string, number | false> = {
    'qwen3-30b-a3b': 4, 'qwen3-30b-a3b-base': 4, 'qwen3-235b-a22b': false, 'qwen3-8b': 4, 'qwen3-14b': 4, 'qwen3-32b': 4, 'gemma4-26b': 4, 'gemma4-31b': 8,
    'gemma3-12b': 4, 'gemma3-27b': 4, 'llama3.1-8b-Instruct': 4, 'llama3.1-8b': 4, 'llama3.1-70b': 8,
  };
  test.each(Object.keys(MODELS))('%s: the smallest v6e host that fits', (model) => {
    const r = smallestServingSlice(model, MODELS[model], 'v6e');
    expect('fit' in r && r.fit.slice.chips).toBe(expected[model]);
    if ('fit' in r) {
      const smaller = singleHostSlices('v6e').filter((s) => s.chips < r.fit.slice.chips);
      for (const s of smaller) expect(servingFit(MODELS[model], s).fits).toBe(false);
    }
  });
  test('every row of the table is covered by that list', () => {
    expect(Object.keys(expected).sort()).toEqual(Object.keys(MODELS).sort());
  });
  test('Qwen3-30B-A3B on 4 chips: 15.25 GB weights + 6.4 GB KV cache <= 30.2 GB (0.9 of XLA\'s 31.25 GiB); on 1 chip it does not fit', () => {
    const four = servingFit(MODELS['qwen3-30b-a3b'], tpuSlice('ct6e-standard-4t', '2x2'));
    expect(four.weightBytesPerChip).toBeCloseTo(15.25e9, -7);
    expect(four.kvBytesPerChip).toBe(8 * 16384 * 2 * 48 * 1 * 128 * 2);
    // tpu-inference b8692ff tpu_worker.py determine_available_memory: gpu_memory_utilization x XLA's bytes_limit, the TPU
    // table's usable figure (31.25 GiB on v6e), not the nominal 32 GiB.
    expect(four.usableBytesPerChip).toBeCloseTo(0.9 * 31.25 * 2 ** 30, 0);
    expect(four.usableBytesPerChip).toBe(0.9 * four.slice.usableHbmGibPerChip * 2 ** 30);
    expect(four.fits).toBe(true);
    expect(servingFit(MODELS['qwen3-30b-a3b'], tpuSlice('ct6e-standard-1t', '1x1')).fits).toBe(false);
  });
  test('KV heads are replicated, not split, when TP exceeds them (4 KV heads on 8 chips: 1 per chip)', () => {
    expect(servingFit(MODELS['qwen3-30b-a3b'], tpuSlice('ct6e-standard-8t', '2x4')).kvBytesPerChip).toBe(8 * 16384 * 2 * 48 * 1 * 128 * 2);
  });
  test('single-host v6e slices from the TPU table: 1, 4 and 8 chips', () => {
    expect(singleHostSlices('v6e').map((s) => `${s.machineType} ${s.topology}`)).toEqual(['ct6e-standard-1t 1x1', 'ct6e-standard-4t 2x2', 'ct6e-standard-8t 2x4']);
  });
  test('a model that needs more than one host is refused, saying so; a model without a row too', () => {
    const huge = { params: 405e9, layers: 126, heads: 128, kvHeads: 8, headDim: 128, hidden: 16384, vocab: 128256 };
    const r = smallestServingSlice('llama3.1-405b', huge, 'v6e');
    expect('problem' in r && r.problem).toMatch(/^llama3\.1-405b does not fit one v6e host: 101\.3 GB weights \+ .* per chip on 8 chip\(s\) > 30\.2 GB usable \(0\.9 of 31\.25 GiB usable\); it needs more than one host/);
    expect(smallestServingSlice('nope', undefined, 'v6e')).toEqual({ problem: "model 'nope' has no row in the model table (jobs/models.ts), so its serving size is unknown" });
  });
  test('the eval JSON path is the export directory plus eval.json', () => {
    expect(evalJsonPath(build('rl-llama3').paths)).toMatch(/^gs:\/\/my-bucket\/llama3\.1-8b-Instruct\/hf-trained\/[^/]+\/[0-9a-f]+\/eval\.json$/);
  });
});

test('the heldout task reads the SFT dataset\'s own columns: the chat column, or both text columns as one user and one assistant turn, in the chat template (issue 32)', () => {
  // The real utils.py under python3, with stand-ins for transformers' tokenizer (it shows the conversation it gets)
  // and datasets' map.
  const run = (column: string, doc: unknown) => {
    const py = [
      'import sys, types, json',
      'tf = types.ModuleType("transformers")',
      'class Tok:',
      '    bos_token = None',
      '    def apply_chat_template(self, conv, tokenize=False):',
      '        return json.dumps(conv)',
      'tf.AutoTokenizer = types.SimpleNamespace(from_pretrained=lambda *a, **k: Tok())',
      'sys.modules["transformers"] = tf',
      'import os; os.environ["EVAL_TOKENIZER"] = "base"',
      taskUtilsPy({ heldout: { path: 'acme/qa', split: 'validation', column } }),
      'class DS:',
      '    def __init__(self, docs): self.docs = docs',
      '    def map(self, fn): return [fn(d) for d in self.docs]',
      `print(heldout_docs(DS([json.loads(${JSON.stringify(JSON.stringify(doc))})]))[0]["text"])`,
    ].join('\n');
    const r = spawnSync('python3', ['-c', py], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout);
  };
  expect(run('question,answer', { question: 'Q?', answer: 'A.' })).toEqual([{ role: 'user', content: 'Q?' }, { role: 'assistant', content: 'A.' }]);
  const chat = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }];
  expect(run('messages', { messages: chat })).toEqual(chat);
  expect(heldoutTaskYaml({ path: 'acme/qa', split: 'validation', column: 'question,answer' })).toContain('doc_to_target: "{{text}}"');
});

test('issue 44: each task asks lm-eval for requests that start with one BOS and sum only the continuation (scripts/upstream-checks/loglikelihood_bos.py)', () => {
  expect(requestArgs('mmlu')).toBe('tokenized_requests=True,add_bos_token=True');
  expect(requestArgs('heldout')).toBe('tokenized_requests=True,add_bos_token=False');
  expect(requestArgs('gsm8k')).toBe('tokenized_requests=False');
  const script = scriptOf(container(evalStep(build('sft-gemma4', { runId: 'r1', eval: { tasks: ['heldout', 'mmlu', 'gsm8k'] } })).manifest, 'slice', 'workload-container'));
  expect(script).toMatch(/max_retries=3,tokenized_requests=True,add_bos_token=False" --tasks heldout /);
  expect(script).toMatch(/max_retries=3,tokenized_requests=True,add_bos_token=True" --tasks mmlu /);
  expect(script).toMatch(/max_retries=3,tokenized_requests=False" --tasks gsm8k /);
  // The chat template's own BOS text is stripped where lm-eval or the server adds the one BOS.
  const utils = taskUtilsPy({ heldout: { path: 'a/b', split: 's', column: 'messages' } });
  expect(utils).toContain('"text": _no_bos(_tokenizer().apply_chat_template(');
  expect(utils).toContain('prompt = _no_bos(_tokenizer().apply_chat_template(');
});
