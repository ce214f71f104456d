/**
 * The eval step's container script, run for real in bash with stand-ins for `pip`, `vllm`, `curl` and `lm_eval` on
 * PATH (the real python3 runs the summary): the health poll retries until the server answers, eval.json is written
 * into the export directory, the EVAL_RESULT line is printed, and the gate's exit codes are 0 (passed, or no gate),
 * 3 (GATE_EXIT_CODE: the trained model improved less than minDelta) and 1 (a server that dies or never answers, a
 * metric lm_eval did not report).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EVAL_RESULT_PREFIX, EvalOptions, evalScript, GATE_EXIT_CODE, SERVER_START_POLLS } from '../../jobs/eval';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { HF_TOKEN_FILE } from '../../jobs/secrets';
import { testPlatform } from '../jobs/fixtures';

interface Play {
  /** Scores lm_eval reports, per served model name and result key. */
  readonly scores: Record<'base' | 'trained', Record<string, number>>;
  /** Failed health polls before each server answers (every (n+1)th poll succeeds: no race with the server's start). @default 2 */
  readonly unreadyPolls?: number;
  /** The server exits at once with this code. @default - it keeps running */
  readonly serverExits?: number;
}

function run(recipe: string, evalOptions: EvalOptions, play: Play) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-'));
  const bin = path.join(dir, 'bin');
  const mount = path.join(dir, 'export');
  fs.mkdirSync(bin);
  fs.mkdirSync(mount);
  fs.writeFileSync(path.join(dir, 'token'), 'hf_dummy');
  const p = buildPipeline(RECIPES[recipe], testPlatform(), { runId: 'r1', eval: evalOptions });
  const task = p.eval!.tasks[0];
  const stand = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
  stand('pip', 'exit 0');
  stand('sleep', 'exit 0'); // the poll interval; the server stand-in sleeps with /bin/sleep
  stand(
    'vllm',
    play.serverExits !== undefined
      ? `echo "vllm: cannot load $2" >&2; exit ${play.serverExits}`
      : `echo "$@" >> ${dir}/vllm-calls; exec /bin/sleep 30`,
  );
  stand('curl', `echo x >> ${dir}/curl-calls; n=$(wc -l < ${dir}/curl-calls); [ $(( n % ${(play.unreadyPolls ?? 2) + 1} )) -eq 0 ] || exit 7`);
  const results = (name: 'base' | 'trained') => JSON.stringify({ results: { [task]: play.scores[name] } });
  stand(
    'lm_eval',
    [
      'for a in "$@"; do case "$prev" in --output_path) out="$a";; --model_args) margs="$a";; esac; prev="$a"; done',
      'name="${margs#model=}"; name="${name%%,*}"',
      'mkdir -p "$out/served"',
      `if [ "$name" = base ]; then echo '${results('base')}' > "$out/served/results_1.json"; else echo '${results('trained')}' > "$out/served/results_1.json"; fi`,
    ].join('\n'),
  );
  const script = evalScript(p.eval!, { pipeline: p.name, exportMount: mount }).replace(HF_TOKEN_FILE, path.join(dir, 'token')).split('/tmp/eval').join(path.join(dir, 'eval'));
  const r = spawnSync('bash', ['-c', script], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8', timeout: 60000 });
  const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : undefined);
  const evalJson = read(path.join(mount, 'eval.json'));
  if (process.env.EVAL_DEBUG) process.stderr.write(`rc ${r.status}\n${r.stdout}\n${r.stderr}\n`);
  if (r.status === null) process.stderr.write(`eval-script: killed (${r.signal}, ${r.error}):\n${r.stderr}\n`);
  return {
    rc: r.status,
    out: r.stdout,
    err: r.stderr,
    evalJson: evalJson !== undefined ? JSON.parse(evalJson) : undefined,
    curlCalls: (read(path.join(dir, 'curl-calls')) ?? '').split('\n').filter(Boolean).length,
    vllmCalls: (read(path.join(dir, 'vllm-calls')) ?? '').split('\n').filter(Boolean),
    pipeline: p,
  };
}

const GATE = { metric: 'exact_match,strict-match', minDelta: 0 };
const gsm = (strict: number, flexible = strict) => ({ 'exact_match,strict-match': strict, 'exact_match,flexible-extract': flexible });

describe('the gate decides the exit code', () => {
  test('trained above base: exit 0, eval.json written next to the export, EVAL_RESULT printed', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: gsm(0.6), trained: gsm(0.7) } });
    expect(r.rc).toBe(0);
    expect(r.evalJson).toMatchObject({
      pipeline: 'rl-qwen3',
      image: 'vllm/vllm-tpu:nightly-20260504-e2a6582-67058ca',
      samples: 500,
      seed: 1234,
      baseModel: 'Qwen/Qwen3-30B-A3B-Instruct-2507',
      trainedModel: r.pipeline.paths.hfExportDir,
      evalJson: `${r.pipeline.paths.hfExportDir}eval.json`,
      gate: { metric: 'exact_match,strict-match', minDelta: 0, passed: true },
    });
    expect(r.evalJson.results[0]).toMatchObject({ task: 'gsm8k', metric: 'exact_match,strict-match', base: 0.6, trained: 0.7 });
    expect(r.evalJson.results[0].delta).toBeCloseTo(0.1, 10);
    const line = r.out.split('\n').find((l) => l.startsWith(EVAL_RESULT_PREFIX))!;
    expect(JSON.parse(line.slice(EVAL_RESULT_PREFIX.length))).toEqual(r.evalJson);
    // Base first, then the export from the mount, each with the base model's tokenizer.
    expect(r.vllmCalls.map((c) => c.split(' ').slice(0, 4).join(' '))).toEqual(['serve Qwen/Qwen3-30B-A3B-Instruct-2507 --served-model-name base', expect.stringMatching(/^serve \/.*\/export --served-model-name trained$/)]);
  });
  test('trained below base with minDelta 0: exit 3 (GATE_EXIT_CODE), eval.json still written with passed false', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: gsm(0.6), trained: gsm(0.55) } });
    expect(r.rc).toBe(GATE_EXIT_CODE);
    expect(r.evalJson.gate).toEqual({ metric: 'exact_match,strict-match', minDelta: 0, passed: false });
    expect(r.out).toMatch(/gate failed: gsm8k exact_match,strict-match improved -0\.0500 \(base 0\.6, trained 0\.55\), below minDelta 0/);
  });
  test('a negative minDelta allows that much of a drop: -0.1 lets a 0.05 drop pass', () => {
    expect(run('rl-qwen3', { gate: { ...GATE, minDelta: -0.1 } }, { scores: { base: gsm(0.6), trained: gsm(0.55) } }).rc).toBe(0);
  });
  test('a gate on one filter ignores the other: flexible-extract dropped, strict-match rose -> exit 0', () => {
    expect(run('rl-qwen3', { gate: GATE }, { scores: { base: gsm(0.6, 0.7), trained: gsm(0.65, 0.5) } }).rc).toBe(0);
  });
  test('no gate: a worse model still exits 0; the scores are recorded', () => {
    const r = run('rl-qwen3', {}, { scores: { base: gsm(0.6), trained: gsm(0.1) } });
    expect(r.rc).toBe(0);
    expect(r.evalJson.gate).toBeUndefined();
  });
  test('perplexity (SFT held-out): lower is better, so a lower trained perplexity passes and a higher one fails', () => {
    const ppl = (w: number) => ({ 'word_perplexity,none': w, 'byte_perplexity,none': 1.5, 'bits_per_byte,none': 0.6 });
    const gate = { metric: 'word_perplexity,none', minDelta: 0 };
    expect(run('sft-gemma4', { gate }, { scores: { base: ppl(12), trained: ppl(9) } }).rc).toBe(0);
    expect(run('sft-gemma4', { gate }, { scores: { base: ppl(12), trained: ppl(13) } }).rc).toBe(GATE_EXIT_CODE);
  });
});

describe('the server and the scorer', () => {
  test('the health poll retries until vLLM answers: 2 refused polls, then ready, for each model', () => {
    const r = run('rl-qwen3', {}, { scores: { base: gsm(0.6), trained: gsm(0.7) }, unreadyPolls: 2 });
    expect(r.rc).toBe(0);
    expect(r.curlCalls).toBe(6);
  });
  test('a server that exits before it is ready fails the step (exit 1), nothing written', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: gsm(0.6), trained: gsm(0.7) }, serverExits: 1 });
    expect(r.rc).toBe(1);
    expect(r.out).toContain('eval: vllm serve exited before it was ready (base)');
    expect(r.evalJson).toBeUndefined();
  });
  test(`a server never ready within ${SERVER_START_POLLS} polls fails the step (exit 1)`, () => {
    const r = run('rl-qwen3', {}, { scores: { base: gsm(0.6), trained: gsm(0.7) }, unreadyPolls: 100000 });
    expect(r.rc).toBe(1);
    expect(r.out).toContain(`eval: vllm not ready after ${SERVER_START_POLLS} polls (base)`);
  });
  test('a metric lm_eval did not report fails the step (exit 1), naming it', () => {
    const r = run('rl-qwen3', { gate: GATE }, { scores: { base: { 'exact_match,strict-match': 0.6 }, trained: gsm(0.7) } });
    expect(r.rc).toBe(1);
    expect(r.err).toContain('lm_eval reported no exact_match,flexible-extract for task gsm8k');
  });
});
