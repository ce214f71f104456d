/**
 * The eval step's container script, run for real in bash with stand-ins for `pip`, `vllm`, `curl`, `sleep` and
 * `lm_eval` on PATH (the real python3 runs the summary; the stand-ins' own Python runs with -S, without site-packages,
 * which halves its start). The stand-ins behave as the pinned commits do:
 *   - `vllm serve` reads the model directory's config.json and builds `architectures[0]` (after `--hf-overrides`) from
 *     the image's registry (jobs/vllm.ts VLLM_IMAGES, tpu-inference 11250b4 model_loader.py); a multimodal class whose
 *     vision weights the export lacks fails as vLLM's loader does; a directory with only adapter files fails as a path
 *     with no config.json does;
 *   - it answers /health after a given number of polls: time is simulated by counting polls of SERVER_POLL_SECONDS;
 *   - `lm_eval` writes results_*.json with `results` and `n-samples` (lm_eval/evaluator_utils.py at v0.4.12), one leaf
 *     per subtask (mmlu: 57), and fails with a 500 on a log-likelihood task when the image computes no prompt
 *     log-probabilities (tpu-inference before #2750).
 * Exit codes: 0 (passed, or no gate), 3 (GATE_EXIT_CODE), 1 (EVAL_ERROR_EXIT_CODE: the server, the scorer or the scores).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EVAL_ERROR_EXIT_CODE, EVAL_RESULT_PREFIX, EVAL_TASKS, EvalOptions, evalScript, GATE_EXIT_CODE, SERVER_POLL_SECONDS, serverStartPolls } from '../../jobs/eval';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { HF_TOKEN_FILE } from '../../jobs/secrets';
import { VLLM_IMAGE_ROW } from '../../jobs/vllm';
import { testPlatform } from '../jobs/fixtures';

type Scores = Record<string, number>;
interface Play {
  /** Scores lm_eval reports, per served model name, task and result key. */
  readonly scores: Record<'base' | 'trained', Record<string, Scores>>;
  /** Failed health polls before each server answers. @default 2 */
  readonly unreadyPolls?: number;
  /** The server exits at once with this code. @default - it keeps running */
  readonly serverExits?: number;
  /** The export directory's files (name -> content). @default - a config.json of the recipe's export architecture */
  readonly exportFiles?: Record<string, string>;
  /** The image computes prompt log-probabilities. @default true (the pinned image) */
  readonly promptLogprobs?: boolean;
  /** Leaf tasks lm_eval reports per task. @default - EVAL_TASKS leafTasks */
  readonly leaves?: Record<string, number>;
  /** eval.json cannot be written (the mount refuses it). @default false */
  readonly unwritable?: boolean;
  /** The server dies right after lm_eval has written its results. @default false */
  readonly serverDiesAfterScoring?: boolean;
}

/** The stand-in `vllm`: the registry of the pinned image, the weights an export has. */
function vllmStandIn(dir: string, play: Play): string {
  if (play.serverExits !== undefined) return `echo "vllm: cannot load $2" >&2; exit ${play.serverExits}`;
  const registry = JSON.stringify([...VLLM_IMAGE_ROW.jaxArchitectures, ...VLLM_IMAGE_ROW.vllmFallback]);
  return [
    `echo "$@" >> ${dir}/vllm-calls; rm -f ${dir}/alive`,
    'model="$2"; overrides=""; prev=""',
    'for a in "$@"; do [ "$prev" = --hf-overrides ] && overrides="$a"; prev="$a"; done',
    'if [ -d "$model" ]; then',
    `  python3 -S - "$model" "$overrides" <<'PY' || exit 1`,
    'import json, os, sys',
    'model, overrides = sys.argv[1], sys.argv[2]',
    'if not os.path.exists(os.path.join(model, "config.json")):',
    '    sys.exit(f"ValueError: Invalid repository ID or local directory specified: {model} (no config.json)")',
    'config = json.load(open(os.path.join(model, "config.json")))',
    'config.update(json.loads(overrides) if overrides else {})',
    'arch = config["architectures"][0]',
    `if arch not in ${registry}:`,
    '    sys.exit(f"Model architectures {config[\'architectures\']} are not supported")',
    'if arch.endswith("ForConditionalGeneration") and "vision_config" in config and not os.path.exists(os.path.join(model, "vision.safetensors")):',
    '    sys.exit("ValueError: Following weights were not initialized from checkpoint: {\'vision_tower...\'}")',
    'PY',
    'fi',
    `touch ${dir}/alive; echo $$ > ${dir}/server-pid`,
    // Lives until the script kills it (every path of the eval script does), not for a fixed time: a lifetime in seconds
    // raced the scoring on loaded cores. 600 s only bounds a stand-in a broken script left behind.
    'exec /bin/sleep 600',
  ].join('\n');
}

/** The stand-in `lm_eval`: results and n-samples per leaf task, a 500 on prompt log-probabilities the image lacks. */
function lmEvalStandIn(dir: string, play: Play): string {
  const loglikelihood = Object.entries(EVAL_TASKS).filter(([, t]) => t.loglikelihood).map(([n]) => n).join(' ');
  return [
    'for a in "$@"; do case "$prev" in --output_path) out="$a";; --model_args) margs="$a";; --tasks) task="$a";; --limit) limit="$a";; esac; prev="$a"; done',
    'name="${margs#model=}"; name="${name%%,*}"',
    `case " ${loglikelihood} " in *" $task "*) if [ "${play.promptLogprobs === false ? 0 : 1}" = 0 ]; then echo "openai.InternalServerError: Error code: 500" >&2; exit 1; fi;; esac`,
    'mkdir -p "$out/served"',
    `python3 -S - "$name" "$task" "$limit" "$out/served/results_1.json" <<'PY'`,
    'import json, sys',
    'name, task, limit, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]',
    `scores = json.load(open(${JSON.stringify(path.join(dir, 'scores.json'))}))`,
    `leaves = json.load(open(${JSON.stringify(path.join(dir, 'leaves.json'))})).get(task, 1)`,
    'n = {f"{task}_{i}" if leaves > 1 else task: {"original": 1000, "effective": limit} for i in range(leaves)}',
    'text = json.dumps({"results": {task: scores[name].get(task, {})}, "n-samples": n})',
    'open(out, "w").write(text.replace("\\"__NaN__\\"", "NaN").replace("\\"__Inf__\\"", "Infinity"))',
    'PY',
    ...(play.serverDiesAfterScoring ? [`kill "$(cat ${dir}/server-pid)"; while kill -0 "$(cat ${dir}/server-pid)" 2>/dev/null; do :; done`] : []),
  ].join('\n');
}

function run(recipe: string, evalOptions: EvalOptions, play: Play) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-'));
  const bin = path.join(dir, 'bin');
  const mount = path.join(dir, 'export');
  fs.mkdirSync(bin);
  fs.mkdirSync(mount);
  fs.writeFileSync(path.join(dir, 'token'), 'hf_dummy');
  const p = buildPipeline(RECIPES[recipe], testPlatform(), { runId: 'r1', eval: evalOptions });
  const files = play.exportFiles ?? { 'config.json': JSON.stringify({ architectures: [exportArchitecture(recipe)] }) };
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(mount, name), content);
  if (play.unwritable) fs.mkdirSync(path.join(mount, 'eval.json')); // open(..., "w") on a directory: IsADirectoryError, an OSError
  const encode = (v: unknown) => JSON.stringify(v, (_k, x) => (Number.isNaN(x) ? '__NaN__' : x === Infinity ? '__Inf__' : x));
  fs.writeFileSync(path.join(dir, 'scores.json'), encode(play.scores));
  fs.writeFileSync(path.join(dir, 'leaves.json'), JSON.stringify(play.leaves ?? Object.fromEntries(Object.entries(EVAL_TASKS).map(([n, t]) => [n, t.leafTasks ?? 1]))));
  const stand = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
  stand('pip', 'exit 0');
  stand('sleep', 'exit 0'); // the poll interval; the server stand-in sleeps with /bin/sleep
  stand('vllm', vllmStandIn(dir, play));
  // /health answers only while the server lives (its stand-in marks that), after `unreadyPolls` refusals.
  // (polls before the stand-in has started are refused and not counted: no race with its start).
  stand('curl', `[ -f ${dir}/alive ] || exit 7; echo x >> ${dir}/curl-calls; n=$(wc -l < ${dir}/curl-calls); [ $(( n % ${(play.unreadyPolls ?? 2) + 1} )) -eq 0 ] || exit 7`);
  stand('lm_eval', lmEvalStandIn(dir, play));
  const script = evalScript(p.eval!, { pipeline: p.name, exportMount: mount }).replace(HF_TOKEN_FILE, path.join(dir, 'token')).split('/tmp/eval').join(path.join(dir, 'eval'));
  // The own task's dataset commit (jobs/hf-revision.ts resolveDatasetLines): a stand-in huggingface_hub answers it.
  fs.mkdirSync(path.join(dir, 'pylib', 'huggingface_hub'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'pylib', 'huggingface_hub', '__init__.py'), `class HfApi:\n    def dataset_info(self, repo, revision=None):\n        return type("Info", (), {"sha": "${'d'.repeat(40)}"})()\n`);
  const r = spawnSync('bash', ['-c', script], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, PYTHONPATH: path.join(dir, 'pylib') }, encoding: 'utf8', timeout: 120000 });
  const read = (f: string) => (fs.existsSync(f) && fs.statSync(f).isFile() ? fs.readFileSync(f, 'utf8') : undefined);
  const evalJson = read(path.join(mount, 'eval.json'));
  if (process.env.EVAL_DEBUG) process.stderr.write(`rc ${r.status}\n${r.stdout}\n${r.stderr}\n`);
  const line = r.stdout.split('\n').find((l) => l.startsWith(EVAL_RESULT_PREFIX));
  return {
    rc: r.status,
    out: r.stdout,
    err: r.stderr,
    evalJson: evalJson !== undefined ? JSON.parse(evalJson) : undefined,
    result: line !== undefined ? JSON.parse(line.slice(EVAL_RESULT_PREFIX.length)) : undefined,
    resultAt: line !== undefined ? r.stdout.indexOf(line) : -1,
    curlCalls: (read(path.join(dir, 'curl-calls')) ?? '').split('\n').filter(Boolean).length,
    vllmCalls: (read(path.join(dir, 'vllm-calls')) ?? '').split('\n').filter(Boolean),
    pipeline: p,
  };
}

/** The architecture MaxText's to_huggingface writes for the recipe's model (models.ts SERVING). */
function exportArchitecture(recipe: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../../jobs/models').SERVING[RECIPES[recipe].model.name].exportArchitecture;
}

const GATE = { metric: 'answer_accuracy,none', minDelta: 0 };
const rs = (acc: number, format = 1) => ({ gsm8k_reasoning: { 'answer_accuracy,none': acc, 'answer_format,none': format } });
const ppl = (w: number) => ({ heldout: { 'word_perplexity,none': w, 'byte_perplexity,none': 1.5, 'bits_per_byte,none': 0.6 } });

describe('the gate decides the exit code', () => {
  test('trained above base: exit 0, eval.json written next to the export, EVAL_RESULT printed', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: rs(0.6), trained: rs(0.7) } });
    expect(r.rc).toBe(0);
    expect(r.evalJson).toMatchObject({
      pipeline: 'rl-qwen3',
      image: 'vllm/vllm-tpu:nightly-20260816-11250b4-1d2d83a',
      samples: 500,
      seed: 1234,
      baseModel: 'Qwen/Qwen3-30B-A3B-Instruct-2507',
      trainedModel: r.pipeline.paths.hfExportDir,
      evalJson: `${r.pipeline.paths.hfExportDir}eval.json`,
      gate: { metric: 'answer_accuracy,none', minDelta: 0, passed: true },
    });
    expect(r.evalJson.results[0]).toMatchObject({ task: 'gsm8k_reasoning', metric: 'answer_accuracy,none', base: 0.6, trained: 0.7, samples: 500 });
    expect(r.evalJson.results[0].delta).toBeCloseTo(0.1, 10);
    expect(r.result).toEqual(r.evalJson);
    // Base first, then the export from the mount, each with the base model's tokenizer.
    expect(r.vllmCalls.map((c) => c.split(' ').slice(0, 4).join(' '))).toEqual(['serve Qwen/Qwen3-30B-A3B-Instruct-2507 --served-model-name base', expect.stringMatching(/^serve \/.*\/export --served-model-name trained$/)]);
  });
  test('trained below base with minDelta 0: exit 3 (GATE_EXIT_CODE), eval.json still written with passed false', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: rs(0.6), trained: rs(0.55) } });
    expect(r.rc).toBe(GATE_EXIT_CODE);
    expect(r.evalJson.gate).toEqual({ metric: 'answer_accuracy,none', minDelta: 0, passed: false });
    expect(r.out).toMatch(/gate failed: gsm8k_reasoning answer_accuracy,none improved -0\.0500 \(base 0\.6, trained 0\.55\), below minDelta 0/);
  });
  test('a negative minDelta allows that much of a drop: -0.1 lets a 0.05 drop pass', () => {
    expect(run('rl-qwen3', { gate: { ...GATE, minDelta: -0.1 } }, { scores: { base: rs(0.6), trained: rs(0.55) } }).rc).toBe(0);
  });
  test('no gate: a worse model still exits 0; the scores are recorded', () => {
    const r = run('rl-qwen3', {}, { scores: { base: rs(0.6), trained: rs(0.1) } });
    expect(r.rc).toBe(0);
    expect(r.evalJson.gate).toBeUndefined();
  });
  test('perplexity (SFT held-out): lower is better, so a lower trained perplexity passes and a higher one fails', () => {
    const gate = { metric: 'word_perplexity,none', minDelta: 0 };
    expect(run('sft-gemma4', { gate }, { scores: { base: ppl(12), trained: ppl(9) } }).rc).toBe(0);
    expect(run('sft-gemma4', { gate }, { scores: { base: ppl(12), trained: ppl(13) } }).rc).toBe(GATE_EXIT_CODE);
  });
});

describe('the gate fails closed', () => {
  test('NaN from the trained model: exit 1, EVAL_RESULT with null and the error, gate not passed, no eval.json', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: rs(0.6), trained: rs(NaN) } });
    expect(r.rc).toBe(EVAL_ERROR_EXIT_CODE);
    expect(r.result.gate).toEqual({ metric: 'answer_accuracy,none', minDelta: 0, passed: false });
    expect(r.result.results[0]).toMatchObject({ trained: null, base: 0.6 });
    expect(r.result.errors).toEqual(['trained gsm8k_reasoning answer_accuracy,none is nan, not a finite number']);
    expect(r.out).toContain('eval: the scores cannot be trusted; the gate does not pass');
    expect(r.evalJson).toBeUndefined();
  });
  test('Inf on an ungated metric still fails the step: the run is not trusted', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: rs(0.6, Infinity), trained: rs(0.7) } });
    expect(r.rc).toBe(EVAL_ERROR_EXIT_CODE);
    expect(r.result.errors).toEqual(['base gsm8k_reasoning answer_format,none is inf, not a finite number']);
  });
  test('a metric lm_eval did not report: exit 1, naming it', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: { gsm8k_reasoning: { 'answer_accuracy,none': 0.6 } }, trained: rs(0.7) } });
    expect(r.rc).toBe(EVAL_ERROR_EXIT_CODE);
    expect(r.out).toContain('eval: lm_eval reported no answer_format,none for task gsm8k_reasoning (base model)');
  });
  test('a partial run: mmlu scored 50 of its 57 subjects -> exit 1', () => {
    const scores = { mmlu: { 'acc,none': 0.7 } };
    const r = run('rl-qwen3', { tasks: ['mmlu'], gate: { metric: 'acc,none', minDelta: 0 } }, { scores: { base: scores, trained: { mmlu: { 'acc,none': 0.8 } } }, leaves: { mmlu: 50 } });
    expect(r.rc).toBe(EVAL_ERROR_EXIT_CODE);
    expect(r.out).toContain('eval: partial run: the base model\'s mmlu scored 50 of 57 leaf task(s) in full (9 samples each)');
    expect(r.result.gate.passed).toBe(false);
  });
  test('all 57 mmlu subjects: 9 samples each (500 / 57, rounded up) reach lm_eval, and the gate passes', () => {
    const r = run('rl-qwen3', { tasks: ['mmlu'], gate: { metric: 'acc,none', minDelta: 0 } }, { scores: { base: { mmlu: { 'acc,none': 0.7 } }, trained: { mmlu: { 'acc,none': 0.8 } } } });
    expect(r.rc).toBe(0);
    expect(r.evalJson.results[0].samples).toBe(9 * 57);
  });
  test('eval.json cannot be written: EVAL_RESULT was printed first, exit 1 says where the scores are', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: rs(0.6), trained: rs(0.7) }, unwritable: true });
    expect(r.rc).toBe(EVAL_ERROR_EXIT_CODE);
    expect(r.result.gate.passed).toBe(true);
    const failure = r.out.indexOf(`eval: could not write ${r.pipeline.paths.hfExportDir}eval.json`);
    expect(failure).toBeGreaterThan(r.resultAt);
    expect(r.out).toContain('the scores are on the EVAL_RESULT line above');
  });
});

describe('the server and the scorer', () => {
  test('the health poll retries until vLLM answers: 2 refused polls, then ready, for each model', () => {
    const r = run('rl-qwen3', {}, { scores: { base: rs(0.6), trained: rs(0.7) }, unreadyPolls: 2 });
    expect(r.rc).toBe(0);
    expect(r.curlCalls).toBe(6);
  });
  test('a server that dies after its scores were written loses nothing: exit 0', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: rs(0.6), trained: rs(0.7) }, serverDiesAfterScoring: true });
    expect(r.rc).toBe(0);
    expect(r.evalJson.gate.passed).toBe(true);
  });
  test('a server that exits before it is ready fails the step (exit 1), nothing written', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: rs(0.6), trained: rs(0.7) }, serverExits: 1 });
    expect(r.rc).toBe(1);
    expect(r.out).toContain('eval: vllm serve exited before it was ready (base)');
    expect(r.evalJson).toBeUndefined();
  });
  test('a 30B model whose server takes 40 minutes to answer passes: its window is 61 GB at 50 MB/s plus 30 min of compile', () => {
    const p = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' }).eval!;
    expect(p.serverStartSeconds).toBe(1220 + 1800);
    const fortyMinutes = (40 * 60) / SERVER_POLL_SECONDS;
    const r = run('rl-qwen3', {}, { scores: { base: rs(0.6), trained: rs(0.7) }, unreadyPolls: fortyMinutes });
    expect(r.rc).toBe(0);
    expect(r.curlCalls).toBe(2 * (fortyMinutes + 1));
  });
  test('a server never ready within its window fails the step (exit 1), naming the polls and minutes', () => {
    const polls = serverStartPolls(buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' }).eval!);
    const r = run('rl-qwen3', {}, { scores: { base: rs(0.6), trained: rs(0.7) }, unreadyPolls: 100000 });
    expect(r.rc).toBe(1);
    expect(r.out).toContain(`eval: vllm not ready after ${polls} polls (50 min) (base)`);
    expect(r.curlCalls).toBeLessThanOrEqual(polls);
  });
});

describe('what the pinned image loads', () => {
  test('Gemma 4: the export declares Gemma4ForConditionalGeneration with a vision_config and no vision weights; --hf-overrides serves Gemma4ForCausalLM', () => {
    const config = JSON.stringify({ architectures: ['Gemma4ForConditionalGeneration'], model_type: 'gemma4', text_config: { model_type: 'gemma4_text' }, vision_config: { model_type: 'gemma4_vision' } });
    const r = run('sft-gemma4', {}, { scores: { base: ppl(12), trained: ppl(9) }, exportFiles: { 'config.json': config } });
    expect(r.rc).toBe(0);
    expect(r.vllmCalls[1]).toContain('--hf-overrides {"architectures":["Gemma4ForCausalLM"]}');
  });
  test('the same export without the override fails as vLLM would: missing vision weights', () => {
    // The stand-in is checked against itself: dropping the override from the call is what the pipeline must not do.
    const config = JSON.stringify({ architectures: ['Gemma4ForConditionalGeneration'], vision_config: {} });
    const r = run('rl-qwen3', {}, { scores: { base: rs(0.6), trained: rs(0.7) }, exportFiles: { 'config.json': config } });
    expect(r.rc).toBe(1);
    expect(r.err).toContain('Following weights were not initialized from checkpoint');
    expect(r.out).toContain('eval: vllm serve exited before it was ready (trained)');
  });
  test('an adapter-only directory (to_huggingface Adapter mode) cannot be served: exit 1', () => {
    const r = run('rl-qwen3', {}, { scores: { base: rs(0.6), trained: rs(0.7) }, exportFiles: { 'adapter_config.json': '{}', 'adapter_model.safetensors': '' } });
    expect(r.rc).toBe(1);
    expect(r.err).toContain('no config.json');
  });
  test('prompt log-probabilities present (the pinned image): the SFT held-out set scores', () => {
    expect(VLLM_IMAGE_ROW.features.promptLogprobs).toBe(true);
    expect(run('sft-gemma4', {}, { scores: { base: ppl(12), trained: ppl(9) } }).rc).toBe(0);
  });
  test('prompt log-probabilities absent (tpu-inference before #2750): lm_eval gets a 500 and the step fails naming the task', () => {
    const r = run('sft-gemma4', {}, { scores: { base: ppl(12), trained: ppl(9) }, promptLogprobs: false });
    expect(r.rc).toBe(1);
    expect(r.out).toContain('eval: lm_eval failed on heldout for the base model');
  });
});
