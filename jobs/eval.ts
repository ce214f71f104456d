/**
 * The `eval` step after `to-hf`: one JobSet on a single-host TPU slice that serves the base model (from Hugging Face)
 * and the exported model (from the bucket, through GKE's Cloud Storage FUSE CSI driver) in turn with vLLM, scores
 * both with lm-evaluation-harness on a held-out set, writes `eval.json` next to the export and applies the gate.
 * Pure; no cdktf.
 *
 * Read at:
 *   - EleutherAI/lm-evaluation-harness v0.4.12 (6d64254) lm_eval/tasks/<task>.yaml: task names, `metric_list`,
 *     `filter_list` (a result key is `<metric>,<filter>`, `none` without filters: lm_eval/evaluator.py) and
 *     `higher_is_better`; `loglikelihood_rolling` tasks report word_perplexity, byte_perplexity, bits_per_byte
 *     (lm_eval/api/task.py ConfigurableTask.process_results), lower is better. The `local-completions` model talks to an
 *     OpenAI-compatible server (lm_eval/models/openai_completions.py); results land in
 *     `<output_path>/<model>/results_<time>.json`.
 *   - AI-Hypercomputer/maxtext maxtext-v0.2.4 src/maxtext/configs/post_train/sft.yml: `hf_path`
 *     (HuggingFaceH4/ultrachat_200k), `hf_eval_split: 'test_sft'`, `eval_data_columns: ['messages']`: the SFT
 *     preset's held-out split; the GRPO presets are scored on GSM8K's test split (lm-eval task `gsm8k`).
 *   - Log-likelihood tasks (the SFT held-out set): lm-eval's local-completions `_create_payload` asks for `echo: true,
 *     logprobs: 1, max_tokens: 1`; vLLM `CompletionRequest.to_sampling_params` (entrypoints/openai/completion/protocol.py)
 *     makes that `prompt_logprobs`; tpu-inference b8692ff `compute_prompt_logprobs` (layers/jax/sample/sampling.py,
 *     tests/e2e/test_sampling_params.py TestPromptLogprobs) computes them on TPU.
 *   - vLLM serving facts: jobs/vllm.ts.
 */
import { BuiltJobSet, JobSetCommon, singleHostTpuJobSet } from './jobset';
import { HF_TOKEN_ENV, PipelinePaths, shellQuote } from './maxtext';
import { modelSize } from './models';
import { Platform, TpuPoolGroup } from './platform';
import { Recipe } from './recipes/types';
import { HF_TOKEN_FILE } from './secrets';
import { DEFAULT_MAX_MODEL_LEN, fitText, servingFit, ServingFit, singleHostSlices, VLLM_HEALTH_PATH, VLLM_PORT, vllmImage } from './vllm';
import { generationOf, TpuSlice } from './tpu';

/** `ct6e-standard-8t 2x4 (v6e-8)`. */
function shape(s: TpuSlice): string {
  return `${s.machineType} ${s.topology} (${s.acceleratorType})`;
}

/** lm-evaluation-harness release the eval step installs (`pip install lm_eval[api]==`). */
export const LM_EVAL_VERSION = '0.4.12';

/**
 * The lm-evaluation-harness tasks a config may name, with the result keys (`<metric>,<filter>`) each computes and
 * whether higher is better (lm_eval/tasks at v0.4.12: gsm8k/gsm8k.yaml, arc/arc_easy.yaml (arc_challenge includes it),
 * hellaswag/hellaswag.yaml, mmlu/default/_mmlu.yaml, truthfulqa/truthfulqa_mc2.yaml, winogrande/default.yaml,
 * ifeval/ifeval.yaml). `heldout` is this project's task over the SFT dataset's evaluation split (heldoutTaskYaml).
 */
export const EVAL_TASKS: Readonly<Record<string, Readonly<Record<string, boolean>>>> = {
  gsm8k: { 'exact_match,strict-match': true, 'exact_match,flexible-extract': true },
  arc_challenge: { 'acc,none': true, 'acc_norm,none': true },
  hellaswag: { 'acc,none': true, 'acc_norm,none': true },
  mmlu: { 'acc,none': true },
  truthfulqa_mc2: { 'acc,none': true },
  winogrande: { 'acc,none': true },
  ifeval: { 'prompt_level_strict_acc,none': true, 'inst_level_strict_acc,none': true, 'prompt_level_loose_acc,none': true, 'inst_level_loose_acc,none': true },
  heldout: { 'word_perplexity,none': false, 'byte_perplexity,none': false, 'bits_per_byte,none': false },
};
/** The task over an SFT recipe's own evaluation split. */
export const HELDOUT_TASK = 'heldout';
/** MaxText sft.yml defaults the held-out task falls back to when the recipe does not set them. */
export const SFT_DEFAULTS = { hfPath: 'HuggingFaceH4/ultrachat_200k', evalSplit: 'test_sft', column: 'messages' } as const;

/** Examples scored per task (lm_eval `--limit`). */
export const DEFAULT_EVAL_SAMPLES = 500;
/** lm_eval `--seed` (python, numpy, torch, fewshot): one value for all four. */
export const DEFAULT_EVAL_SEED = 1234;
/** One attempt of the eval step, minutes: two model loads and compilations plus scoring. */
export const DEFAULT_EVAL_TIMEOUT_MINUTES = 240;
/** Restarts after a lost or preempted host (an application error or a failed gate ends the step at once). */
export const DEFAULT_EVAL_MAX_RESTARTS = 1;
/** Exit code of a failed gate; an application error, so the pod failure policy fails the JobSet without a restart. */
export const GATE_EXIT_CODE = 3;
/** Health polls of a starting vLLM server, and the seconds between them (a 30B model loads and compiles in ~20 min). */
export const SERVER_START_POLLS = 180;
export const SERVER_POLL_SECONDS = 10;
/** The line the step prints with its eval.json (status reads it from the log). */
export const EVAL_RESULT_PREFIX = 'EVAL_RESULT ';

/** Where the bucket's export directory is mounted in the eval pod. */
export const EXPORT_MOUNT = '/gcs/export';
/** GKE's Cloud Storage FUSE CSI driver and its sidecar-injection annotation (GKE docs "Access Cloud Storage buckets with the Cloud Storage FUSE CSI driver"). */
export const GCSFUSE_DRIVER = 'gcsfuse.csi.storage.gke.io';
export const GCSFUSE_ANNOTATION = 'gke-gcsfuse/volumes';

/** `pipelines.<name>.eval` as config/ hands it down. */
export interface EvalOptions {
  /** Run the step. @default true */
  readonly enabled?: boolean;
  /** lm-evaluation-harness tasks (EVAL_TASKS). @default - `gsm8k` for GRPO, `heldout` (the dataset's evaluation split) for SFT */
  readonly tasks?: readonly string[];
  /** Examples per task. @default DEFAULT_EVAL_SAMPLES */
  readonly samples?: number;
  /** @default DEFAULT_EVAL_SEED */
  readonly seed?: number;
  /** Fail the step when the trained model's improvement on `metric` is below `minDelta`. @default - no gate */
  readonly gate?: { readonly metric: string; readonly minDelta: number };
  /** @default DEFAULT_EVAL_TIMEOUT_MINUTES */
  readonly timeoutMinutes?: number;
  /** @default DEFAULT_EVAL_MAX_RESTARTS */
  readonly maxRestarts?: number;
  /** vLLM `--max-model-len`. @default DEFAULT_MAX_MODEL_LEN */
  readonly maxModelLen?: number;
  /** Where `enabled` came from when it was set (an explicit `true` turns "no slice fits" from a notice into an error). @default - not set */
  readonly enabledSource?: string;
}

/** What the eval step does, resolved. */
export interface EvalPlan {
  readonly tasks: readonly string[];
  /** Every metric scored: task, result key, direction. */
  readonly metrics: ReadonlyArray<{ readonly task: string; readonly metric: string; readonly higherIsBetter: boolean }>;
  readonly gate?: { readonly metric: string; readonly minDelta: number };
  readonly samples: number;
  readonly seed: number;
  readonly image: string;
  /** The single-host slice group it runs on and the fit that chose it. */
  readonly group: TpuPoolGroup;
  readonly fit: ServingFit;
  readonly maxModelLen: number;
  /** The base model (Hugging Face repo) and the trained one (the export). */
  readonly baseModel: string;
  readonly trainedModel: string;
  /** `<hfExportDir>eval.json`. */
  readonly evalJson: string;
  readonly timeoutMinutes: number;
  readonly maxRestarts: number;
  /** The held-out task's dataset, split and column (SFT). @default - not a held-out task */
  readonly heldout?: { readonly path: string; readonly split: string; readonly column: string };
}

/** `<hfExportDir>eval.json`: the eval step's result next to the export. */
export function evalJsonPath(paths: PipelinePaths): string {
  return `${paths.hfExportDir}eval.json`;
}

/** The default tasks of a recipe. */
export function defaultTasks(recipe: Recipe): string[] {
  return recipe.train.kind === 'rl' ? ['gsm8k'] : [HELDOUT_TASK];
}

function heldoutOf(recipe: Recipe): { path: string; split: string; column: string } {
  const args = recipe.train.args;
  const str = (key: string, fallback: string) => (typeof args[key] === 'string' && args[key] !== '' ? (args[key] as string) : fallback);
  return { path: str('hf_path', SFT_DEFAULTS.hfPath), split: str('hf_eval_split', SFT_DEFAULTS.evalSplit), column: SFT_DEFAULTS.column };
}

function list(values: readonly string[]): string {
  return values.join(', ');
}

/**
 * The eval step's plan, or why there is none. `problems` are errors (exit 1 at synth); `notice` says why a default-on
 * step was left out (infra has no single-host slice the model fits), which is an error instead when `enabled` was set.
 */
export function planEval(
  recipe: Recipe,
  platform: Platform,
  paths: PipelinePaths,
  options: EvalOptions | undefined,
  source: string,
): { plan?: EvalPlan; problems: string[]; notice?: string } {
  const o = options ?? {};
  if (o.enabled === false) return { problems: [] };
  const key = `${source}.eval`;
  const problems: string[] = [];
  const tasks = o.tasks ?? defaultTasks(recipe);
  if (tasks.length === 0) problems.push(`${key}.tasks must name at least one task; tasks: ${list(Object.keys(EVAL_TASKS))}`);
  for (const task of tasks) {
    if (!(task in EVAL_TASKS)) problems.push(`${key}.tasks: no lm-evaluation-harness task '${task}' here; tasks: ${list(Object.keys(EVAL_TASKS))}`);
    else if (task === HELDOUT_TASK && recipe.train.kind !== 'sft') problems.push(`${key}.tasks: '${HELDOUT_TASK}' scores an SFT dataset's evaluation split; ${recipe.name} trains with ${recipe.train.kind}`);
  }
  const metrics = tasks.filter((t) => t in EVAL_TASKS).flatMap((task) => Object.entries(EVAL_TASKS[task]).map(([metric, higherIsBetter]) => ({ task, metric, higherIsBetter })));
  if (o.gate && !metrics.some((m) => m.metric === o.gate!.metric)) {
    const computed = [...new Set(metrics.map((m) => m.metric))];
    problems.push(`${key}.gate.metric must be a metric the step computes (${list(computed) || 'none'}), got '${o.gate.metric}'`);
  }
  const wholeNumber = (name: string, value: number | undefined, min: number, max: number) => {
    if (value !== undefined && !(Number.isInteger(value) && value >= min && value <= max)) problems.push(`${key}.${name} must be a whole number from ${min} to ${max}, got ${value}`);
  };
  wholeNumber('samples', o.samples, 1, 100000);
  wholeNumber('timeoutMinutes', o.timeoutMinutes, 1, 7 * 24 * 60);
  wholeNumber('maxRestarts', o.maxRestarts, 0, 20);
  wholeNumber('maxModelLen', o.maxModelLen, 256, 1 << 20);

  const maxModelLen = o.maxModelLen ?? DEFAULT_MAX_MODEL_LEN;
  const size = modelSize(recipe.model.name);
  let placed: { group: TpuPoolGroup; fit: ServingFit } | undefined;
  let notice: string | undefined;
  const cannotRun = (why: string) => {
    if (o.enabled === true) problems.push(`${o.enabledSource ?? `${key}.enabled`}: the eval step cannot run: ${why}`);
    else notice = `${recipe.name}: eval step left out: ${why}; set ${key}.enabled to false to silence this`;
  };
  if (!size) {
    cannotRun(`model '${recipe.model.name}' has no row in the model table (jobs/models.ts), so the slice it is served on is unknown`);
  } else {
    const singles = platform.tpuGroups.filter((g) => !g.slice.multiHost);
    const fits = singles.map((g) => ({ group: g, fit: servingFit(size, g.slice, { maxModelLen }) }));
    placed = fits.filter((f) => f.fit.fits).sort((a, b) => a.group.slice.chips - b.group.slice.chips)[0];
    if (!placed) {
      const smallest = singleHostSlices(generationOf(recipe.slice.machineType) ?? 'v6e')
        .map((s) => servingFit(size, s, { maxModelLen }))
        .find((f) => f.fits);
      const have = singles.length > 0 ? singles.map((g) => `${shape(g.slice)} (${fitText(fits.find((f) => f.group === g)!.fit)})`).join(', ') : 'no single-host slice';
      const need = smallest ? `a single-host ${shape(smallest.slice)} or larger (SINGLE_HOST_RESERVATION=<v6e-8 reservation>, or SINGLE_HOST_CAPACITY=spot|flex-start, adds a v6e-8)` : 'more than one host, which vLLM on TPU does not serve from on GKE';
      cannotRun(`${recipe.model.name} needs ${need}; infra has ${have}`);
    }
  }
  if (problems.length > 0 || !placed) return { problems, ...(notice ? { notice } : {}) };
  return {
    problems,
    plan: {
      tasks,
      metrics,
      ...(o.gate ? { gate: { metric: o.gate.metric, minDelta: o.gate.minDelta } } : {}),
      samples: o.samples ?? DEFAULT_EVAL_SAMPLES,
      seed: o.seed ?? DEFAULT_EVAL_SEED,
      image: vllmImage(recipe.model.name),
      group: placed.group,
      fit: placed.fit,
      maxModelLen,
      baseModel: recipe.model.hfRepo,
      trainedModel: paths.hfExportDir,
      evalJson: evalJsonPath(paths),
      timeoutMinutes: o.timeoutMinutes ?? DEFAULT_EVAL_TIMEOUT_MINUTES,
      maxRestarts: o.maxRestarts ?? DEFAULT_EVAL_MAX_RESTARTS,
      ...(tasks.includes(HELDOUT_TASK) ? { heldout: heldoutOf(recipe) } : {}),
    },
  };
}

/** The lm-eval task file of the held-out task: the evaluation split's conversations, scored as rolling log-likelihood. */
export function heldoutTaskYaml(h: { path: string; split: string; column: string }): string {
  return [
    `task: ${HELDOUT_TASK}`,
    `dataset_path: ${JSON.stringify(h.path)}`,
    `test_split: ${JSON.stringify(h.split)}`,
    'output_type: loglikelihood_rolling',
    'doc_to_text: ""',
    `doc_to_target: "{% for m in ${h.column} %}{{ m['content'] }}\\n\\n{% endfor %}"`,
    'metric_list:',
    '  - metric: word_perplexity',
    '  - metric: byte_perplexity',
    '  - metric: bits_per_byte',
  ].join('\n');
}

/** The summarising program (python3): both results, eval.json, the EVAL_RESULT line, the gate's exit code. */
const SUMMARISE = `import glob, json, os, sys
spec = json.loads(os.environ["EVAL_SPEC"])
def scores(which):
    files = sorted(glob.glob(f"/tmp/eval/{which}/**/results_*.json", recursive=True))
    if not files:
        sys.exit(f"no lm_eval results for the {which} model under /tmp/eval/{which}")
    return json.load(open(files[-1]))["results"]
base, trained = scores("base"), scores("trained")
results = []
for m in spec["metrics"]:
    b, t = base.get(m["task"], {}).get(m["metric"]), trained.get(m["task"], {}).get(m["metric"])
    if not isinstance(b, (int, float)) or not isinstance(t, (int, float)):
        sys.exit(f"lm_eval reported no {m['metric']} for task {m['task']}")
    sign = 1 if m["higherIsBetter"] else -1
    results.append({**m, "base": b, "trained": t, "delta": t - b, "improvement": sign * (t - b)})
out = {k: spec[k] for k in ("pipeline", "image", "samples", "seed", "baseModel", "trainedModel", "evalJson")}
out["results"] = results
gate = spec.get("gate")
failed = []
if gate:
    failed = [r for r in results if r["metric"] == gate["metric"] and r["improvement"] < gate["minDelta"]]
    out["gate"] = {**gate, "passed": not failed}
text = json.dumps(out, sort_keys=True)
with open(os.environ["EVAL_JSON_FILE"], "w") as f:
    f.write(text + "\\n")
print("${EVAL_RESULT_PREFIX}" + text, flush=True)
for r in failed:
    print(f"gate failed: {r['task']} {r['metric']} improved {r['improvement']:+.4f} (base {r['base']}, trained {r['trained']}), below minDelta {gate['minDelta']}", flush=True)
sys.exit(${GATE_EXIT_CODE} if failed else 0)
`;

/** What the script needs besides the plan. */
export interface EvalScriptInput {
  readonly pipeline: string;
  /**
   * The run's commits (jobs/hf-revision.ts): shell lines setting HF_REVISION (the base model's weights, served at it)
   * and fetching the tokenizer at its commit into `tokenizerDir` (vLLM's and lm-eval's tokenizer for both models).
   * @default - the base repository's head, its tokenizer by name
   */
  readonly atRevision?: { readonly lines: readonly string[]; readonly tokenizerDir: string };
  /** Where the export directory is mounted. @default EXPORT_MOUNT */
  readonly exportMount?: string;
}

/**
 * The eval container's script: install lm-eval, then for the base and the trained model: start `vllm serve`, poll
 * its health endpoint (bounded; a server that exits fails the step), score every task, stop the server; then the
 * summary writes eval.json into the export directory, prints it on one EVAL_RESULT line and exits GATE_EXIT_CODE when
 * the gate fails.
 */
export function evalScript(plan: EvalPlan, input: EvalScriptInput): string {
  const mount = input.exportMount ?? EXPORT_MOUNT;
  const spec = {
    pipeline: input.pipeline,
    image: plan.image,
    samples: plan.samples,
    seed: plan.seed,
    baseModel: plan.baseModel,
    trainedModel: plan.trainedModel,
    evalJson: plan.evalJson,
    metrics: plan.metrics,
    ...(plan.gate ? { gate: plan.gate } : {}),
  };
  const url = `http://127.0.0.1:${VLLM_PORT}`;
  const tokenizer = input.atRevision?.tokenizerDir ?? plan.baseModel;
  const serveArgs = `--port ${VLLM_PORT} --tensor-parallel-size ${plan.fit.tensorParallel} --max-model-len ${plan.maxModelLen} --seed ${plan.seed} --tokenizer ${shellQuote(tokenizer)}`;
  const lmEval =
    `lm_eval --model local-completions --model_args "model=$1,base_url=${url}/v1/completions,tokenizer=${tokenizer},num_concurrent=8,max_retries=3,tokenized_requests=False" ` +
    `--tasks ${plan.tasks.join(',')} --limit ${plan.samples} --seed ${plan.seed} --output_path "/tmp/eval/$1"` +
    (plan.heldout ? ' --include_path /tmp/eval-tasks' : '');
  return [
    'set -eu',
    `${HF_TOKEN_ENV}="$(cat ${HF_TOKEN_FILE})"`,
    `export ${HF_TOKEN_ENV}`,
    `pip install --no-cache-dir 'lm_eval[api]==${LM_EVAL_VERSION}' || { sleep 30; pip install --no-cache-dir 'lm_eval[api]==${LM_EVAL_VERSION}'; }`,
    ...(input.atRevision?.lines ?? []),
    ...(plan.heldout ? ['mkdir -p /tmp/eval-tasks', `cat > /tmp/eval-tasks/${HELDOUT_TASK}.yaml <<'TASK'`, heldoutTaskYaml(plan.heldout), 'TASK'] : []),
    // $1: served name (base|trained), $2: the model (HF repo or mounted directory), $3: vllm serve's --revision or ''.
    'score() {',
    `  echo "eval: serving the $1 model ($2)"`,
    `  vllm serve "$2" --served-model-name "$1" ${serveArgs} $3 &`,
    '  server=$!',
    '  polls=0',
    `  until curl -fsS -o /dev/null ${url}${VLLM_HEALTH_PATH}; do`,
    '    if ! kill -0 "$server" 2>/dev/null; then wait "$server" || true; echo "eval: vllm serve exited before it was ready ($1)"; exit 1; fi',
    '    polls=$((polls + 1))',
    `    if [ "$polls" -ge ${SERVER_START_POLLS} ]; then echo "eval: vllm not ready after ${SERVER_START_POLLS} polls ($1)"; kill "$server"; exit 1; fi`,
    `    sleep ${SERVER_POLL_SECONDS}`,
    '  done',
    `  ${lmEval}`,
    '  kill "$server"; wait "$server" || true',
    '}',
    `score base ${shellQuote(plan.baseModel)} ${input.atRevision ? '"--revision=$HF_REVISION"' : "''"}`,
    `score trained ${shellQuote(mount)} ''`,
    `export EVAL_SPEC=${shellQuote(JSON.stringify(spec))}`,
    `export EVAL_JSON_FILE=${shellQuote(`${mount}/eval.json`)}`,
    `exec python3 - <<'SUMMARY'`,
    SUMMARISE.trimEnd(),
    'SUMMARY',
  ].join('\n');
}

/** The bucket-relative directory of a gs:// path (`gs://b/a/b/` -> `a/b`). */
function bucketDir(gsPath: string): string {
  return gsPath.replace(/^gs:\/\/[^/]+\//, '').replace(/\/$/, '');
}

/** The eval JobSet: one pod on the plan's single-host slice, the export directory mounted read-write (eval.json). */
export function evalJobSet(
  common: JobSetCommon,
  plan: EvalPlan,
  platform: Platform,
  pipeline: string,
  atRevision?: EvalScriptInput['atRevision'],
): BuiltJobSet {
  const withFuse: JobSetCommon = { ...common, pod: { ...common.pod, annotations: { [GCSFUSE_ANNOTATION]: 'true' } } };
  return singleHostTpuJobSet(
    withFuse,
    { image: plan.image, script: evalScript(plan, { pipeline, ...(atRevision ? { atRevision } : {}) }) },
    plan.group.slice,
    {
      volumes: [
        {
          name: 'export',
          csi: {
            driver: GCSFUSE_DRIVER,
            volumeAttributes: { bucketName: platform.bucket, mountOptions: `implicit-dirs,only-dir=${bucketDir(plan.trainedModel)}` },
          },
        },
      ],
      volumeMounts: [{ name: 'export', mountPath: EXPORT_MOUNT }],
    },
  );
}

/** The pipeline stack's output that states the eval step and its gate (the review shows it). */
export const EVAL_OUTPUT = 'eval_gate';

/** One line per gate for the review and the docs: `gate: exact_match,strict-match must improve by at least 0`. */
export function gateText(plan: EvalPlan): string {
  const what = `${plan.tasks.join(', ')} (${plan.samples} samples, seed ${plan.seed}) on ${plan.group.slice.acceleratorType}, base ${plan.baseModel} vs the export`;
  return plan.gate
    ? `${what}; gate: ${plan.gate.metric} must improve by at least ${plan.gate.minDelta} over the base model, else the pipeline fails`
    : `${what}; no gate: the scores are recorded, the pipeline does not fail on them`;
}
