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
 *     makes that `prompt_logprobs`; tpu-inference computes them on TPU from #2750 (659d18cc4, first released in v0.22;
 *     the pinned image's 11250b4 contains it: jobs/vllm.ts VLLM_IMAGES), which taskImageProblem checks per task.
 *   - lm_eval/evaluator_utils.py (v0.4.12): results_*.json carries `n-samples` {task: {original, effective}} per leaf
 *     task, which the summary reads to refuse a partial run.
 *   - vLLM serving facts: jobs/vllm.ts.
 */
import { BuiltJobSet, JobSetCommon, singleHostTpuJobSet } from './jobset';
import { EVAL_DATASET_REVISION_ENV, resolveDatasetLines } from './hf-revision';
import { HF_TOKEN_ENV, PipelinePaths, shellQuote } from './maxtext';
import { modelSize, servingOf } from './models';
import { Platform, TpuPoolGroup } from './platform';
import { methodOf, rowOf } from './methods';
import { RECIPE_FILES_DIR } from './recipe-files';
import { Recipe } from './recipes/types';
import { HF_TOKEN_FILE } from './secrets';
import { DEFAULT_MAX_MODEL_LEN, fitText, IMAGE_DISK_GB, serverStartSeconds, VLLM_TPU_IMAGE, servingFit, ServingFit, singleHostSlices, TPU_POOL_DISK_GB, VLLM_HEALTH_PATH, VLLM_IMAGE_ROW, VLLM_PORT, VllmImage, vllmImage, weightBytes } from './vllm';
import { generationOf, TpuSlice } from './tpu';

/** `ct6e-standard-8t 2x4 (v6e-8)`. */
function shape(s: TpuSlice): string {
  return `${s.machineType} ${s.topology} (${s.acceleratorType})`;
}

/** lm-evaluation-harness release the eval step installs (`pip install lm_eval[api]==`); the pinned image's own (jobs/vllm.ts VLLM_IMAGES). */
export const LM_EVAL_VERSION = VLLM_IMAGE_ROW.lmEval;

/** One task a config may name. */
export interface EvalTask {
  /** Result keys (`<metric>,<filter>`) it computes, and whether higher is better. */
  readonly metrics: Readonly<Record<string, boolean>>;
  /** The range every metric lies in: a gate's minDelta must be within its width. */
  readonly range: readonly [number, number];
  /** Scored from prompt log-probabilities (multiple_choice, loglikelihood, loglikelihood_rolling): the image needs them. */
  readonly loglikelihood: boolean;
  /** Scored as `loglikelihood_rolling` (a whole text, lm-eval's prefix token in front). @default false */
  readonly rolling?: boolean;
  /** Leaf tasks lm-eval expands it into: `--limit` applies to each (evaluator.py get_sample_size per task). @default 1 */
  readonly leafTasks?: number;
  /** pip extras of lm_eval the task imports beyond `api` (pyproject.toml optional-dependencies). @default - none */
  readonly extras?: readonly string[];
  /**
   * Only for pipelines whose method row has this (jobs/methods/: `heldoutEval` for an SFT dataset's evaluation split,
   * `rollout` for a GRPO run's template), with what the task scores. @default - any method
   */
  readonly needs?: { readonly row: 'heldoutEval' | 'rollout'; readonly scores: string };
}

/**
 * The tasks a config may name (lm_eval/tasks at v0.4.12: gsm8k/gsm8k.yaml, arc/arc_easy.yaml (arc_challenge includes
 * it), hellaswag/hellaswag.yaml, mmlu/default/_mmlu.yaml (57 subject tasks), truthfulqa/truthfulqa_mc2.yaml,
 * winogrande/default.yaml, ifeval/ifeval.yaml; pyproject.toml `ifeval = ["langdetect", "immutabledict", "nltk>=3.9.1"]`).
 * `heldout` is the SFT dataset's evaluation split in the model's chat template (heldoutTaskYaml); `gsm8k_reasoning` is
 * GSM8K's test split in the template and `<answer>` format GRPO trained with (reasoningTaskYaml).
 */
export const EVAL_TASKS: Readonly<Record<string, EvalTask>> = {
  gsm8k: { metrics: { 'exact_match,strict-match': true, 'exact_match,flexible-extract': true }, range: [0, 1], loglikelihood: false },
  gsm8k_reasoning: { metrics: { 'answer_accuracy,none': true, 'answer_format,none': true }, range: [0, 1], loglikelihood: false, needs: { row: 'rollout', scores: 'scores a GRPO run in its training template' } },
  arc_challenge: { metrics: { 'acc,none': true, 'acc_norm,none': true }, range: [0, 1], loglikelihood: true },
  hellaswag: { metrics: { 'acc,none': true, 'acc_norm,none': true }, range: [0, 1], loglikelihood: true },
  mmlu: { metrics: { 'acc,none': true }, range: [0, 1], loglikelihood: true, leafTasks: 57 },
  truthfulqa_mc2: { metrics: { 'acc,none': true }, range: [0, 1], loglikelihood: true },
  winogrande: { metrics: { 'acc,none': true }, range: [0, 1], loglikelihood: true },
  ifeval: {
    metrics: { 'prompt_level_strict_acc,none': true, 'inst_level_strict_acc,none': true, 'prompt_level_loose_acc,none': true, 'inst_level_loose_acc,none': true },
    range: [0, 1],
    loglikelihood: false,
    extras: ['ifeval'],
  },
  heldout: { metrics: { 'word_perplexity,none': false, 'byte_perplexity,none': false, 'bits_per_byte,none': false }, range: [0, Infinity], loglikelihood: true, rolling: true, needs: { row: 'heldoutEval', scores: "scores an SFT dataset's evaluation split" } },
};
/** The task over an SFT recipe's own evaluation split. */
export const HELDOUT_TASK = 'heldout';
/** The task over GSM8K in a GRPO recipe's own prompt template and answer tags. */
export const REASONING_TASK = 'gsm8k_reasoning';
/** MaxText sft.yml defaults the held-out task falls back to when the recipe does not set them. */
export const SFT_DEFAULTS = { hfPath: 'HuggingFaceH4/ultrachat_200k', evalSplit: 'test_sft', column: 'messages' } as const;

/**
 * GRPO prompt templates at maxtext-v0.2.4 (`src/maxtext/examples/chat_templates/<file>`), keyed by the recipe's
 * `data_template_path` (rl.yml default `maxtext/examples/chat_templates/gsm8k_rl.json`). utils_rl.py
 * format_maxtext_messages fills SYSTEM_PROMPT's tokens (rl.yml: `<reasoning>`, `</reasoning>`, `<answer>`,
 * `</answer>`), puts it and the question into TEMPLATE as one user message, and process_data applies the tokenizer's
 * chat template with add_generation_prompt=True. The rewards read the `<answer>` tag.
 */
const RL_SYSTEM_PROMPT =
  'You are given a problem. Think about the problem and provide your reasoning. Place it between {reasoning_start_token} and {reasoning_end_token}. Then, provide the final answer (i.e., just one numerical value) between {solution_start_token} and {solution_end_token}.';
export const RL_TEMPLATES: Readonly<Record<string, { readonly SYSTEM_PROMPT: string; readonly TEMPLATE: string }>> = {
  'maxtext/examples/chat_templates/gsm8k_rl.json': { SYSTEM_PROMPT: RL_SYSTEM_PROMPT, TEMPLATE: '<start_of_turn>user\n{system_prompt}\n\n{question}<end_of_turn>\n<start_of_turn>model' },
  'maxtext/examples/chat_templates/openmathinstruct2_rl.json': { SYSTEM_PROMPT: RL_SYSTEM_PROMPT, TEMPLATE: '{system_prompt}\n\n{question}' },
};
/** rl.yml's default `data_template_path`. */
export const RL_DEFAULT_TEMPLATE = 'maxtext/examples/chat_templates/gsm8k_rl.json';
/** rl.yml's answer tags. */
export const RL_TOKENS = { reasoning_start_token: '<reasoning>', reasoning_end_token: '</reasoning>', solution_start_token: '<answer>', solution_end_token: '</answer>' } as const;

/** Examples scored per task (lm_eval `--limit`; a task of N leaf tasks gets ceil(samples / N) per leaf). */
export const DEFAULT_EVAL_SAMPLES = 500;
/** lm_eval `--seed` (python, numpy, torch, fewshot): one value for all four. */
export const DEFAULT_EVAL_SEED = 1234;
/** One attempt of the eval step, minutes: two model loads and compilations plus scoring. */
export const DEFAULT_EVAL_TIMEOUT_MINUTES = 240;
/** Restarts after a lost or preempted host (an application error or a failed gate ends the step at once). */
export const DEFAULT_EVAL_MAX_RESTARTS = 1;
/** Exit code of a failed gate; an application error, so the pod failure policy fails the JobSet without a restart. */
export const GATE_EXIT_CODE = 3;
/** Seconds between health polls of a starting vLLM server; the number of polls comes from the model (serverStartSeconds). */
export const SERVER_POLL_SECONDS = 10;
/** The line the step prints with its eval.json (status reads it from the log). */
export const EVAL_RESULT_PREFIX = 'EVAL_RESULT ';

/** Where the bucket's export directory is mounted in the eval pod. */
export const EXPORT_MOUNT = '/gcs/export';
/** GKE's Cloud Storage FUSE CSI driver and its sidecar-injection annotation (GKE docs "Access Cloud Storage buckets with the Cloud Storage FUSE CSI driver"). */
export const GCSFUSE_DRIVER = 'gcsfuse.csi.storage.gke.io';
export const GCSFUSE_ANNOTATION = 'gke-gcsfuse/volumes';

/** Why `image` cannot run `task`, naming both, or undefined. */
export function taskImageProblem(task: string, image: VllmImage): string | undefined {
  const t = EVAL_TASKS[task];
  if (t?.loglikelihood && !image.features.promptLogprobs) {
    return `task '${task}' is scored from prompt log-probabilities, which ${image.tag} (tpu-inference ${image.tpuInference.slice(0, 7)}) does not compute (tpu-inference #2750, first released in v0.22)`;
  }
  return undefined;
}

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
  /** Examples per task as configured. */
  readonly samples: number;
  /** lm_eval `--limit` per task: samples over the task's leaf tasks (mmlu: 57), rounded up. */
  readonly limits: Readonly<Record<string, number>>;
  readonly seed: number;
  readonly image: string;
  /** The single-host slice group it runs on and the fit that chose it. */
  readonly group: TpuPoolGroup;
  readonly fit: ServingFit;
  readonly maxModelLen: number;
  /** The base model (Hugging Face repo) and the trained one (the export). */
  readonly baseModel: string;
  /** The base model's revision (`hfRevision`): the base weights and both models' tokenizer. @default - the repository's head */
  readonly baseRevision?: string;
  readonly trainedModel: string;
  /** `vllm serve` arguments the model's export needs (models.ts SERVING), passed for both models. */
  readonly vllmArgs: readonly string[];
  /** Seconds each server may take to answer /health (jobs/vllm.ts serverStartSeconds). */
  readonly serverStartSeconds: number;
  /** Bytes of the base model the pod downloads to its node's disk (requested as ephemeral storage). */
  readonly downloadBytes: number;
  /** `<hfExportDir>eval.json`. */
  readonly evalJson: string;
  readonly timeoutMinutes: number;
  readonly maxRestarts: number;
  /**
   * The held-out task's dataset, its config (`hf_name`), split and column (SFT; two text columns as `question,answer`).
   * @default - not a held-out task
   */
  readonly heldout?: Heldout;
  /** The GRPO prompt template the reasoning task renders (RL_TEMPLATES). @default - not the reasoning task */
  readonly reasoning?: { readonly templatePath: string; readonly SYSTEM_PROMPT: string; readonly TEMPLATE: string };
  /** pip extras of lm_eval beyond `api`. */
  readonly extras: readonly string[];
}

/** `<hfExportDir>eval.json`: the eval step's result next to the export. */
export function evalJsonPath(paths: PipelinePaths): string {
  return `${paths.hfExportDir}eval.json`;
}

/** The default tasks of a recipe: what it trained, in the format it trained in. */
export function defaultTasks(recipe: Recipe): string[] {
  return [...rowOf(recipe).defaultEval];
}

/** The held-out task's dataset: repository, config (lm-eval `dataset_name`), evaluation split and column(s). */
export interface Heldout {
  readonly path: string;
  /** The dataset's config, as training loads it (`hf_name`). @default - none (the dataset's default config) */
  readonly name?: string;
  readonly split: string;
  readonly column: string;
}

/**
 * The held-out task's dataset as training reads it: `hf_path` and its config `hf_name` (maxtext-v0.2.4
 * input_pipeline/hf_data_processing.py l.485 `load_dataset(..., name=config.hf_name)`), and the evaluation split:
 * `hf_eval_split` when the pipeline sets one (dataset.evalSplit), else sft.yml's `test_sft` only for sft.yml's own
 * dataset (UltraChat's split: l.38-40); for any other dataset the split is unknown (`split` undefined), which
 * taskProblems refuses.
 */
function heldoutOf(recipe: Recipe): Omit<Heldout, 'split'> & { readonly split?: string } {
  const args = recipe.train.args;
  const str = (key: string) => (typeof args[key] === 'string' && args[key] !== '' ? (args[key] as string) : undefined);
  // The chat column, or the two text columns (prompt/question first) of the SFT column sets (jobs/methods/sft.ts).
  const given = Array.isArray(args['train_data_columns']) ? (args['train_data_columns'] as string[]) : [SFT_DEFAULTS.column];
  const first = (c: string) => (c === 'prompt' || c === 'question' ? 0 : 1);
  const column = [...given].sort((a, b) => first(a) - first(b)).join(',');
  const path = str('hf_path') ?? SFT_DEFAULTS.hfPath;
  const name = str('hf_name');
  const split = str('hf_eval_split') ?? (path === SFT_DEFAULTS.hfPath ? SFT_DEFAULTS.evalSplit : undefined);
  return { path, ...(name !== undefined ? { name } : {}), ...(split !== undefined ? { split } : {}), column };
}

/** The recipe's `data_template_path` (rl.yml's default when unset). */
function rlTemplatePath(recipe: Recipe): string {
  const t = recipe.train.args.data_template_path;
  return typeof t === 'string' && t !== '' ? t : RL_DEFAULT_TEMPLATE;
}

/**
 * The GRPO template the run trains with: one of MaxText's (RL_TEMPLATES), or the pipeline's own `dataset.template`
 * file shipped under RECIPE_FILES_DIR (a JSON object with string TEMPLATE and SYSTEM_PROMPT: jobs/spec.ts
 * templateProblem checks it at synth). @returns undefined when neither (the reasoning task cannot render it)
 */
function rlTemplate(recipe: Recipe): { readonly SYSTEM_PROMPT: string; readonly TEMPLATE: string } | undefined {
  const path = rlTemplatePath(recipe);
  if (Object.prototype.hasOwnProperty.call(RL_TEMPLATES, path)) return RL_TEMPLATES[path];
  const own = recipe.files?.find((f) => `${RECIPE_FILES_DIR}/${f.name}` === path);
  if (!own) return undefined;
  try {
    const t = JSON.parse(own.content) as { SYSTEM_PROMPT?: unknown; TEMPLATE?: unknown };
    return typeof t.TEMPLATE === 'string' && typeof t.SYSTEM_PROMPT === 'string' ? { SYSTEM_PROMPT: t.SYSTEM_PROMPT, TEMPLATE: t.TEMPLATE } : undefined;
  } catch {
    return undefined;
  }
}

function list(values: readonly string[]): string {
  return values.join(', ');
}

/** The configured tasks' problems: unknown, listed twice, of another method, or beyond the image. */
function taskProblems(tasks: readonly string[], recipe: Recipe, key: string, image: VllmImage): string[] {
  const problems: string[] = [];
  if (tasks.length === 0) problems.push(`${key}.tasks must name at least one task; tasks: ${list(Object.keys(EVAL_TASKS))}`);
  const twice = tasks.filter((t, i) => tasks.indexOf(t) !== i);
  if (twice.length > 0) problems.push(`${key}.tasks lists ${list([...new Set(twice)].map((t) => `'${t}'`))} more than once; name each task once`);
  for (const task of new Set(tasks)) {
    const t = Object.prototype.hasOwnProperty.call(EVAL_TASKS, task) ? EVAL_TASKS[task] : undefined;
    if (!t) problems.push(`${key}.tasks: no lm-evaluation-harness task '${task}' here; tasks: ${list(Object.keys(EVAL_TASKS))}`);
    else if (t.needs && !rowOf(recipe)[t.needs.row]) problems.push(`${key}.tasks: '${task}' ${t.needs.scores}; ${recipe.name} trains with ${methodOf(recipe)}`);
    else if (task === HELDOUT_TASK && heldoutOf(recipe).split === undefined) {
      const { path } = heldoutOf(recipe);
      problems.push(
        `${key}.tasks: '${task}' scores the dataset's evaluation split, and ${recipe.name} names none for ${path}: sft.yml's ` +
          `hf_eval_split '${SFT_DEFAULTS.evalSplit}' is ${SFT_DEFAULTS.hfPath}'s split (lm-eval would fail after training on a dataset without it); ` +
          `set dataset.evalSplit to a split of ${path} that training does not read, or name other tasks in eval.tasks`,
      );
    } else if (task === REASONING_TASK && !rlTemplate(recipe)) {
      problems.push(`${key}.tasks: '${task}' renders the GRPO template, but ${recipe.name}'s data_template_path '${rlTemplatePath(recipe)}' is none of ${list(Object.keys(RL_TEMPLATES))} nor a template file of the pipeline (dataset.template)`);
    } else {
      const beyond = taskImageProblem(task, image);
      if (beyond) problems.push(`${key}.tasks: ${beyond}`);
    }
  }
  return problems;
}

/** The gate's problems: a metric the step does not compute, a minDelta that is not finite or wider than the metric's range. */
function gateProblems(gate: EvalOptions['gate'], tasks: readonly string[], key: string): string[] {
  if (!gate) return [];
  const known = tasks.filter((t) => Object.prototype.hasOwnProperty.call(EVAL_TASKS, t));
  const owner = known.find((t) => gate.metric in EVAL_TASKS[t].metrics);
  if (owner === undefined) {
    const computed = [...new Set(known.flatMap((t) => Object.keys(EVAL_TASKS[t].metrics)))];
    return [`${key}.gate.metric must be a metric the step computes (${list(computed) || 'none'}), got '${gate.metric}'`];
  }
  const [lo, hi] = EVAL_TASKS[owner].range;
  const width = hi - lo;
  if (!Number.isFinite(gate.minDelta)) return [`${key}.gate.minDelta must be a finite number, got ${gate.minDelta}`];
  if (Math.abs(gate.minDelta) > width) {
    return [`${key}.gate.minDelta must be from ${-width} to ${width}: ${gate.metric} lies in ${lo}..${hi}, so no model can improve it by ${gate.minDelta}`];
  }
  return [];
}

/** The whole-number options' problems. */
function numberProblems(o: EvalOptions, key: string): string[] {
  const problems: string[] = [];
  const wholeNumber = (name: string, value: number | undefined, min: number, max: number) => {
    if (value !== undefined && !(Number.isInteger(value) && value >= min && value <= max)) problems.push(`${key}.${name} must be a whole number from ${min} to ${max}, got ${value}`);
  };
  wholeNumber('samples', o.samples, 1, 100000);
  wholeNumber('timeoutMinutes', o.timeoutMinutes, 1, 7 * 24 * 60);
  wholeNumber('maxRestarts', o.maxRestarts, 0, 20);
  wholeNumber('maxModelLen', o.maxModelLen, 256, 1 << 20);
  return problems;
}

/** Where the step runs, or why it cannot: the model's serveability, the base model's download, the slice it fits. */
function placeEval(recipe: Recipe, platform: Platform, maxModelLen: number): { group: TpuPoolGroup; fit: ServingFit } | { why: string } {
  const size = modelSize(recipe.model.name);
  if (!size) return { why: `model '${recipe.model.name}' has no row in the model table (jobs/models.ts), so the slice it is served on is unknown` };
  const serving = servingOf(recipe.model.name);
  if (serving?.unservable) return { why: `${VLLM_TPU_IMAGE} cannot serve ${recipe.model.name}: ${serving.unservable}` };
  const diskGb = weightBytes(size) / 1e9 + IMAGE_DISK_GB;
  if (diskGb > TPU_POOL_DISK_GB) {
    return { why: `the base model ${recipe.model.hfRepo} (${(weightBytes(size) / 1e9).toFixed(0)} GB) and the image (${IMAGE_DISK_GB} GB) exceed a TPU node's ${TPU_POOL_DISK_GB} GB boot disk` };
  }
  const singles = platform.tpuGroups.filter((g) => !g.slice.multiHost);
  const fits = singles.map((g) => ({ group: g, fit: servingFit(size, g.slice, { maxModelLen }) }));
  const placed = fits.filter((f) => f.fit.fits).sort((a, b) => a.group.slice.chips - b.group.slice.chips)[0];
  if (placed) return placed;
  const smallest = singleHostSlices(generationOf(recipe.slice.machineType) ?? 'v6e')
    .map((s) => servingFit(size, s, { maxModelLen }))
    .find((f) => f.fits);
  const have = singles.length > 0 ? singles.map((g) => `${shape(g.slice)} (${fitText(fits.find((f) => f.group === g)!.fit)})`).join(', ') : 'no single-host slice';
  const need = smallest ? `a single-host ${shape(smallest.slice)} or larger (SINGLE_HOST_RESERVATION=<v6e-8 reservation>, or SINGLE_HOST_CAPACITY=spot|flex-start, adds a v6e-8)` : 'more than one host, which vLLM on TPU does not serve from on GKE';
  return { why: `${recipe.model.name} needs ${need}; infra has ${have}` };
}

/**
 * The eval step's plan, or why there is none. `problems` are errors (exit 1 at synth); `notice` says why a default-on
 * step was left out (the model cannot be served, or infra has no single-host slice it fits), which is an error instead
 * when `enabled` was set. A disabled step still has its tasks and gate checked: `enabled: false` hides no typo.
 */
export function planEval(
  recipe: Recipe,
  platform: Platform,
  paths: PipelinePaths,
  options: EvalOptions | undefined,
  source: string,
): { plan?: EvalPlan; problems: string[]; notice?: string } {
  const o = options ?? {};
  const key = `${source}.eval`;
  const image = VLLM_IMAGE_ROW;
  const tasks = o.tasks ?? defaultTasks(recipe);
  const problems = [...taskProblems(tasks, recipe, key, image), ...gateProblems(o.gate, tasks, key), ...numberProblems(o, key)];
  if (o.enabled === false) return { problems };
  const maxModelLen = o.maxModelLen ?? DEFAULT_MAX_MODEL_LEN;
  const placed = placeEval(recipe, platform, maxModelLen);
  let notice: string | undefined;
  if ('why' in placed) {
    if (o.enabled === true) problems.push(`${o.enabledSource ?? `${key}.enabled`}: the eval step cannot run: ${placed.why}`);
    else notice = `${recipe.name}: eval step left out: ${placed.why}; set ${key}.enabled to false to silence this`;
  }
  if (problems.length > 0 || 'why' in placed) return { problems, ...(notice ? { notice } : {}) };
  return { problems, plan: resolvePlan(recipe, paths, o, tasks, placed, maxModelLen) };
}

function resolvePlan(recipe: Recipe, paths: PipelinePaths, o: EvalOptions, tasks: readonly string[], placed: { group: TpuPoolGroup; fit: ServingFit }, maxModelLen: number): EvalPlan {
  const size = modelSize(recipe.model.name)!;
  const samples = o.samples ?? DEFAULT_EVAL_SAMPLES;
  const startSeconds = serverStartSeconds(size);
  const template = tasks.includes(REASONING_TASK) ? rlTemplatePath(recipe) : undefined;
  return {
    tasks,
    metrics: tasks.flatMap((task) => Object.entries(EVAL_TASKS[task].metrics).map(([metric, higherIsBetter]) => ({ task, metric, higherIsBetter }))),
    ...(o.gate ? { gate: { metric: o.gate.metric, minDelta: o.gate.minDelta } } : {}),
    samples,
    limits: Object.fromEntries(tasks.map((t) => [t, Math.ceil(samples / (EVAL_TASKS[t].leafTasks ?? 1))])),
    seed: o.seed ?? DEFAULT_EVAL_SEED,
    image: recipe.imagePins?.[vllmImage(recipe.model.name)] ?? vllmImage(recipe.model.name),
    group: placed.group,
    fit: placed.fit,
    maxModelLen,
    baseModel: recipe.model.hfRepo,
    ...(recipe.model.hfRevision !== undefined ? { baseRevision: recipe.model.hfRevision } : {}),
    trainedModel: paths.hfExportDir,
    vllmArgs: servingOf(recipe.model.name)?.vllmArgs ?? [],
    serverStartSeconds: startSeconds,
    downloadBytes: weightBytes(size),
    evalJson: evalJsonPath(paths),
    // Two server starts plus scoring (DEFAULT_EVAL_TIMEOUT_MINUTES covers the scoring of the default tasks).
    timeoutMinutes: o.timeoutMinutes ?? Math.max(DEFAULT_EVAL_TIMEOUT_MINUTES, Math.ceil((2 * startSeconds) / 60) + 120),
    maxRestarts: o.maxRestarts ?? DEFAULT_EVAL_MAX_RESTARTS,
    ...(tasks.includes(HELDOUT_TASK) ? { heldout: heldoutOf(recipe) as Heldout } : {}),
    ...(template ? { reasoning: { templatePath: template, ...rlTemplate(recipe)! } } : {}),
    extras: [...new Set(tasks.flatMap((t) => EVAL_TASKS[t].extras ?? []))],
  };
}

/**
 * The helpers the project's tasks load (`!function utils.<fn>`, lm_eval/utils.py): both render prompts with the base
 * model's tokenizer at its revision (EVAL_TOKENIZER, EVAL_TOKENIZER_REVISION), so the base and the trained model are
 * scored on the same text. `reasoning_results` reads the last `<answer>` tag (the end tag may be the stop string, which
 * vLLM leaves out) and compares numbers, as MaxText's rewards do (utils_rl.py extract_hash_answer: the text after `####`).
 */
export function taskUtilsPy(plan: Pick<EvalPlan, 'heldout' | 'reasoning'>): string {
  return [
    'import os, re',
    'from transformers import AutoTokenizer',
    '_tok = []',
    'def _tokenizer():',
    '    if not _tok:',
    '        _tok.append(AutoTokenizer.from_pretrained(os.environ["EVAL_TOKENIZER"], revision=os.environ.get("EVAL_TOKENIZER_REVISION") or None))',
    '    return _tok[0]',
    `HELDOUT_COLUMN = ${JSON.stringify(plan.heldout?.column ?? SFT_DEFAULTS.column)}`,
    '# A chat column: its conversation; two text columns (prompt, completion; question, answer): one user and one',
    '# assistant turn, as MaxText\'s SFT data processing makes of them; either in the chat template.',
    'def _conversation(d):',
    '    columns = HELDOUT_COLUMN.split(",")',
    '    if len(columns) == 1:',
    '        return d[columns[0]]',
    '    return [{"role": "user", "content": d[columns[0]]}, {"role": "assistant", "content": d[columns[1]]}]',
    '# The chat template writes the BOS text (Llama 3.1, Gemma); lm-eval puts its own BOS in front (jobs/eval.ts requestArgs).',
    'def _no_bos(text):',
    '    bos = _tokenizer().bos_token',
    '    return text[len(bos):] if bos and text.startswith(bos) else text',
    'def heldout_docs(dataset):',
    '    return dataset.map(lambda d: {"text": _no_bos(_tokenizer().apply_chat_template(_conversation(d), tokenize=False))})',
    `TEMPLATE = ${JSON.stringify(plan.reasoning ? { SYSTEM_PROMPT: plan.reasoning.SYSTEM_PROMPT, TEMPLATE: plan.reasoning.TEMPLATE } : {})}`,
    `TOKENS = ${JSON.stringify(RL_TOKENS)}`,
    'def reasoning_docs(dataset):',
    '    system = TEMPLATE["SYSTEM_PROMPT"].format(**TOKENS)',
    '    def one(d):',
    '        content = TEMPLATE["TEMPLATE"].format(system_prompt=system, question=d["question"])',
    '        prompt = _no_bos(_tokenizer().apply_chat_template([{"role": "user", "content": content}], tokenize=False, add_generation_prompt=True))',
    '        return {"prompt": prompt, "answer_value": d["answer"].split("####")[-1].strip()}',
    '    return dataset.map(one)',
    'def _number(text):',
    '    try:',
    '        return float(text.strip().replace(",", "").replace("$", "").rstrip("."))',
    '    except ValueError:',
    '        return None',
    'def reasoning_results(doc, results):',
    '    found = re.findall(r"<answer>(.*?)(?:</answer>|$)", results[0], re.S)',
    '    if not found:',
    '        return {"answer_accuracy": 0.0, "answer_format": 0.0}',
    '    got, want = _number(found[-1]), _number(doc["answer_value"])',
    '    return {"answer_accuracy": float(got is not None and want is not None and abs(got - want) < 1e-6), "answer_format": 1.0}',
  ].join('\n');
}

/**
 * Where a task file's dataset commit goes: the eval script replaces it with EVAL_DATASET_REVISION, resolved once before
 * lm-eval loads anything (lm-eval passes `dataset_kwargs` to `datasets.load_dataset`), so the run record's
 * `datasetRevisionDownloaded` is the commit scored.
 */
export const DATASET_REVISION_PLACEHOLDER = '@EVAL_DATASET_REVISION@';
const datasetRevisionLines = ['dataset_kwargs:', `  revision: "${DATASET_REVISION_PLACEHOLDER}"`];

/** The dataset the project's own task reads (heldout: the run's evaluation split; gsm8k_reasoning: GSM8K's test split), or none (lm-eval's built-in tasks read their own). */
export function evalDataset(plan: Pick<EvalPlan, 'heldout' | 'reasoning'>): { readonly hf: string; readonly config?: string; readonly split: string } | undefined {
  if (plan.heldout) return { hf: plan.heldout.path, ...(plan.heldout.name !== undefined ? { config: plan.heldout.name } : {}), split: plan.heldout.split };
  return plan.reasoning ? { hf: REASONING_DATASET.path, config: REASONING_DATASET.name, split: REASONING_DATASET.split } : undefined;
}
/** GSM8K as the reasoning task reads it (rl.yml dataset_name, hf_subset, eval_split). */
const REASONING_DATASET = { path: 'openai/gsm8k', name: 'main', split: 'test' } as const;

/**
 * The lm-eval task file of the held-out task: the evaluation split's conversations in the chat template, scored as
 * rolling log-likelihood. The dataset's config goes in `dataset_name`: lm-eval v0.4.12 loads
 * `datasets.load_dataset(path=dataset_path, name=dataset_name, **dataset_kwargs)` (lm_eval/api/task.py l.869-873), so
 * without it a dataset's config is dropped and load_dataset picks the default one (or fails when there are several).
 */
export function heldoutTaskYaml(h: Heldout): string {
  return [
    `task: ${HELDOUT_TASK}`,
    `dataset_path: ${JSON.stringify(h.path)}`,
    ...(h.name !== undefined ? [`dataset_name: ${JSON.stringify(h.name)}`] : []),
    ...datasetRevisionLines,
    `test_split: ${JSON.stringify(h.split)}`,
    'output_type: loglikelihood_rolling',
    'process_docs: !function utils.heldout_docs',
    'doc_to_text: ""',
    'doc_to_target: "{{text}}"',
    'metric_list:',
    '  - metric: word_perplexity',
    '  - metric: byte_perplexity',
    '  - metric: bits_per_byte',
  ].join('\n');
}

/** The lm-eval task file of the GRPO task: GSM8K's test split (rl.yml dataset_name, eval_split, hf_subset) in the training template. */
export function reasoningTaskYaml(): string {
  return [
    `task: ${REASONING_TASK}`,
    `dataset_path: ${REASONING_DATASET.path}`,
    `dataset_name: ${REASONING_DATASET.name}`,
    ...datasetRevisionLines,
    `test_split: ${REASONING_DATASET.split}`,
    'output_type: generate_until',
    'process_docs: !function utils.reasoning_docs',
    'doc_to_text: "{{prompt}}"',
    'doc_to_target: "{{answer_value}}"',
    'generation_kwargs:',
    `  until: [${JSON.stringify(RL_TOKENS.solution_end_token)}]`,
    '  max_gen_toks: 1024',
    '  do_sample: false',
    '  temperature: 0.0',
    'process_results: !function utils.reasoning_results',
    'metric_list:',
    '  - metric: answer_accuracy',
    '    aggregation: mean',
    '    higher_is_better: true',
    '  - metric: answer_format',
    '    aggregation: mean',
    '    higher_is_better: true',
  ].join('\n');
}

/** Exit code when the step's own output cannot be trusted or kept (non-finite or missing scores, a partial run, eval.json unwritable). */
export const EVAL_ERROR_EXIT_CODE = 1;

/**
 * The summarising program (python3). Fails closed: a task without results, fewer leaf tasks or samples than asked
 * (a partial run), different sample counts for the two models, a missing metric, NaN or Inf each end the step with
 * EVAL_ERROR_EXIT_CODE and never pass the gate. The EVAL_RESULT line is printed before eval.json is written, so a
 * failed write loses nothing; the gate's exit code comes last.
 */
const SUMMARISE = `import glob, json, math, os, sys
spec = json.loads(os.environ["EVAL_SPEC"])
errors = []
def results_of(which, task):
    files = sorted(glob.glob(f"/tmp/eval/{which}/{task}/**/results_*.json", recursive=True))
    if not files:
        errors.append(f"no lm_eval results for task {task} of the {which} model (a partial run)")
        return None
    return json.load(open(files[-1]))
def samples_of(which, task, doc):
    counts = doc.get("n-samples") or {}
    leaves, limit = spec["leaves"][task], spec["limits"][task]
    short = [k for k, c in counts.items() if not c.get("effective") or c["effective"] < min(limit, c.get("original") or 0)]
    if len(counts) < leaves or short:
        errors.append(f"partial run: the {which} model's {task} scored {len(counts) - len(short)} of {leaves} leaf task(s) in full ({limit} samples each)")
    return sum((c.get("effective") or 0) for c in counts.values())
docs, samples = {}, {}
for which in ("base", "trained"):
    for task in spec["tasks"]:
        doc = results_of(which, task)
        if doc is not None:
            docs[(which, task)] = doc.get("results", {})
            samples[(which, task)] = samples_of(which, task, doc)
for task in spec["tasks"]:
    if ("base", task) in samples and ("trained", task) in samples and samples[("base", task)] != samples[("trained", task)]:
        errors.append(f"{task}: the base model was scored on {samples[('base', task)]} samples, the trained one on {samples[('trained', task)]}")
def score(which, m):
    leaf = docs.get((which, m["task"]), {})
    v = leaf.get(m["task"], {}).get(m["metric"])
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        if (which, m["task"]) in docs:
            errors.append(f"lm_eval reported no {m['metric']} for task {m['task']} ({which} model)")
        return None
    if not math.isfinite(v):
        errors.append(f"{which} {m['task']} {m['metric']} is {v}, not a finite number")
        return None
    return v
results = []
for m in spec["metrics"]:
    b, t = score("base", m), score("trained", m)
    r = {**m, "base": b, "trained": t, "samples": samples.get(("trained", m["task"]))}
    if b is not None and t is not None:
        sign = 1 if m["higherIsBetter"] else -1
        r.update(delta=t - b, improvement=sign * (t - b))
    results.append(r)
out = {k: spec[k] for k in ("pipeline", "image", "samples", "seed", "baseModel", "trainedModel", "evalJson")}
if spec.get("baseRevision"):
    out["baseRevision"] = spec["baseRevision"]
out["results"] = results
gate = spec.get("gate")
failed = []
if gate:
    gated = [r for r in results if r["metric"] == gate["metric"]]
    failed = [r for r in gated if r.get("improvement") is None or r["improvement"] < gate["minDelta"]]
    out["gate"] = {**gate, "passed": bool(gated) and not failed and not errors}
if errors:
    out["errors"] = errors
text = json.dumps(out, sort_keys=True, allow_nan=False)
print("${EVAL_RESULT_PREFIX}" + text, flush=True)
for e in errors:
    print(f"eval: {e}", flush=True)
if errors:
    print("eval: the scores cannot be trusted; the gate does not pass", flush=True)
    sys.exit(${EVAL_ERROR_EXIT_CODE})
try:
    with open(os.environ["EVAL_JSON_FILE"], "w") as f:
        f.write(text + "\\n")
except OSError as e:
    print(f"eval: could not write {spec['evalJson']}: {e}; the scores are on the EVAL_RESULT line above", flush=True)
    sys.exit(${EVAL_ERROR_EXIT_CODE})
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
  /**
   * The step's run record (jobs/run-record.ts evalRunRecord): the start line once the commits are resolved (base model,
   * tokenizer, the own task's dataset), the end line after the scores are written. @default - no record
   */
  readonly record?: { readonly start: string; readonly end: string };
}

/** Health polls of a starting server: its start window over the poll interval. */
export function serverStartPolls(plan: Pick<EvalPlan, 'serverStartSeconds'>): number {
  return Math.ceil(plan.serverStartSeconds / SERVER_POLL_SECONDS);
}

/**
 * lm-eval `local-completions` request arguments of a task, by how it is scored, so every request the server scores
 * starts with exactly one BOS and lm-eval sums exactly the continuation's log-probabilities. Read at lm-eval v0.4.12
 * (lm_eval/models/api_models.py tok_encode, batch_loglikelihood_requests, loglikelihood_rolling with
 * `prefix_token=self.prefix_token_id` (BOS); openai_completions.py parse_logprobs `token_logprobs[ctxlen:-1]`) and
 * vLLM's completions protocol (`CompletionRequest.add_special_tokens` default True: a text prompt gets the tokenizer's
 * BOS; a prompt of token ids is taken as is), and run with lm-eval 0.4.12's own LocalCompletionsAPI against a
 * loopback stand-in of that endpoint and a tokenizer that adds BOS as Llama 3.1's and Gemma's do
 * (scripts/upstream-checks/loglikelihood_bos.py):
 * - `tokenized_requests=False` (text): lm-eval counts `ctxlen` in tokens without BOS, the server adds one, so the sum
 *   takes the context's last token too (a one-token answer scored -0.25 where -0.13 is right); a rolling text rendered
 *   by a chat template that starts with the BOS text reached the model with three BOS tokens.
 * - loglikelihood / multiple_choice: `tokenized_requests=True,add_bos_token=True` (lm-eval adds the one BOS itself,
 *   counted in `ctxlen`; the server adds nothing to token ids): right.
 * - loglikelihood_rolling (heldout): `tokenized_requests=True,add_bos_token=False` (lm-eval's prefix token is BOS) and
 *   the chat template's leading BOS text stripped (taskUtilsPy `_no_bos`): right.
 * - generate_until: text, the server adds the one BOS (the project's own prompts strip the template's: `_no_bos`).
 * A tokenizer without BOS (Qwen) adds none either way; lm-eval's prefix token is then its EOS, as lm-eval intends.
 */
export function requestArgs(task: string): string {
  const t = Object.prototype.hasOwnProperty.call(EVAL_TASKS, task) ? EVAL_TASKS[task] : undefined;
  if (!t?.loglikelihood) return 'tokenized_requests=False';
  return `tokenized_requests=True,add_bos_token=${t.rolling ? 'False' : 'True'}`;
}

/** The `score` shell function: serve $2 as $1, poll its health within the window, run every task, stop it. */
function scoreFunction(plan: EvalPlan, tok: { readonly name: string; readonly revision?: string }): string[] {
  const url = `http://127.0.0.1:${VLLM_PORT}`;
  const polls = serverStartPolls(plan);
  const tokenizer = `--tokenizer ${shellQuote(tok.name)}${tok.revision ? ` --tokenizer-revision ${shellQuote(tok.revision)}` : ''}`;
  const serveArgs = [`--port ${VLLM_PORT} --tensor-parallel-size ${plan.fit.tensorParallel} --max-model-len ${plan.maxModelLen} --seed ${plan.seed} ${tokenizer}`, ...plan.vllmArgs.map(shellQuote)].join(' ');
  const modelArgs = (task: string) =>
    `model=$name,base_url=${url}/v1/completions,tokenizer=${tok.name}${tok.revision ? `,revision=${tok.revision}` : ''},num_concurrent=8,max_retries=3,${requestArgs(task)}`;
  const includes = plan.heldout || plan.reasoning ? ' --include_path /tmp/eval-tasks' : '';
  return [
    // $1: served name (base|trained), $2: the model (HF repo or mounted directory), then extra vllm serve arguments.
    'score() {',
    '  name="$1"; model="$2"; shift 2',
    `  echo "eval: serving the $name model ($model); it has ${polls} polls of ${SERVER_POLL_SECONDS}s (${Math.round(plan.serverStartSeconds / 60)} min) to load and compile"`,
    `  vllm serve "$model" --served-model-name "$name" ${serveArgs} "$@" &`,
    '  server=$!',
    '  polls=0',
    `  until curl -fsS -o /dev/null ${url}${VLLM_HEALTH_PATH}; do`,
    '    if ! kill -0 "$server" 2>/dev/null; then wait "$server" || true; echo "eval: vllm serve exited before it was ready ($name)"; exit 1; fi',
    '    polls=$((polls + 1))',
    `    if [ "$polls" -ge ${polls} ]; then echo "eval: vllm not ready after ${polls} polls (${Math.round(plan.serverStartSeconds / 60)} min) ($name)"; kill "$server"; exit 1; fi`,
    `    sleep ${SERVER_POLL_SECONDS}`,
    '  done',
    ...plan.tasks.map(
      (task) =>
        `  lm_eval --model local-completions --model_args "${modelArgs(task)}" --tasks ${task} --limit ${plan.limits[task]} --seed ${plan.seed} --output_path "/tmp/eval/$name/${task}"${includes} ` +
        `|| { echo "eval: lm_eval failed on ${task} for the $name model"; kill "$server"; exit 1; }`,
    ),
    // A server that died after its last task has nothing left to stop: its scores are already written.
    '  kill "$server" 2>/dev/null || true; wait "$server" || true',
    '}',
  ];
}

/**
 * The eval container's script: install lm-eval (with the tasks' extras), write the project's tasks, then for the base
 * and the trained model: start `vllm serve`, poll its health endpoint within the model's start window (a server that
 * exits fails the step), score each task, stop the server; then the summary (SUMMARISE).
 */
export function evalScript(plan: EvalPlan, input: EvalScriptInput): string {
  const mount = input.exportMount ?? EXPORT_MOUNT;
  const spec = {
    pipeline: input.pipeline,
    image: plan.image,
    samples: plan.samples,
    seed: plan.seed,
    baseModel: plan.baseModel,
    ...(plan.baseRevision ? { baseRevision: plan.baseRevision } : {}),
    trainedModel: plan.trainedModel,
    evalJson: plan.evalJson,
    tasks: plan.tasks,
    limits: plan.limits,
    leaves: Object.fromEntries(plan.tasks.map((t) => [t, EVAL_TASKS[t].leafTasks ?? 1])),
    metrics: plan.metrics,
    ...(plan.gate ? { gate: plan.gate } : {}),
  };
  const pkg = shellQuote(`lm_eval[${['api', ...plan.extras].join(',')}]==${LM_EVAL_VERSION}`);
  const taskFiles = [
    ...(plan.heldout ? [`cat > /tmp/eval-tasks/${HELDOUT_TASK}.yaml <<'TASK'`, heldoutTaskYaml(plan.heldout), 'TASK'] : []),
    ...(plan.reasoning ? [`cat > /tmp/eval-tasks/${REASONING_TASK}.yaml <<'TASK'`, reasoningTaskYaml(), 'TASK'] : []),
  ];
  // At the run's commit (jobs/hf-revision.ts): the tokenizer downloaded at it, the base weights served at it.
  const at = input.atRevision;
  const dataset = evalDataset(plan);
  const tokenizer = at ? { name: at.tokenizerDir } : { name: plan.baseModel, ...(plan.baseRevision ? { revision: plan.baseRevision } : {}) };
  const baseRevision = at ? '"--revision=$HF_REVISION"' : plan.baseRevision ? `--revision ${shellQuote(plan.baseRevision)}` : undefined;
  return [
    'set -eu',
    `${HF_TOKEN_ENV}="$(cat ${HF_TOKEN_FILE})"`,
    `export ${HF_TOKEN_ENV}`,
    `export EVAL_TOKENIZER=${shellQuote(tokenizer.name)} EVAL_TOKENIZER_REVISION=${shellQuote(tokenizer.revision ?? '')}`,
    `pip install --no-cache-dir ${pkg} || { sleep 30; pip install --no-cache-dir ${pkg}; }`,
    ...(at?.lines ?? []),
    ...(taskFiles.length > 0 ? ['mkdir -p /tmp/eval-tasks', "cat > /tmp/eval-tasks/utils.py <<'UTILS'", taskUtilsPy(plan), 'UTILS', ...taskFiles] : []),
    // The own task's dataset at one commit, resolved once (jobs/hf-revision.ts), written into its task file.
    ...(dataset ? [...resolveDatasetLines(dataset.hf), `sed -i "s/${DATASET_REVISION_PLACEHOLDER}/$${EVAL_DATASET_REVISION_ENV}/" /tmp/eval-tasks/*.yaml`] : []),
    ...(input.record ? [input.record.start] : []),
    ...scoreFunction(plan, tokenizer),
    `score base ${shellQuote(plan.baseModel)}${baseRevision ? ` ${baseRevision}` : ''}`,
    `score trained ${shellQuote(mount)}`,
    `export EVAL_SPEC=${shellQuote(JSON.stringify(spec))}`,
    `export EVAL_JSON_FILE=${shellQuote(`${mount}/eval.json`)}`,
    // Not exec: the end of the run record follows a summary that passed (set -e stops at one that did not).
    `python3 - <<'SUMMARY'`,
    SUMMARISE.trimEnd(),
    'SUMMARY',
    ...(input.record ? [input.record.end] : []),
  ].join('\n');
}

/** The bucket-relative directory of a gs:// path (`gs://b/a/b/` -> `a/b`). */
function bucketDir(gsPath: string): string {
  return gsPath.replace(/^gs:\/\/[^/]+\//, '').replace(/\/$/, '');
}

/** The node disk the base model's download needs: its weights plus 10 GiB of tokenizer, caches and logs, as an ephemeral-storage request. */
export function downloadRequest(plan: Pick<EvalPlan, 'downloadBytes'>): string {
  return `${Math.ceil(plan.downloadBytes / 2 ** 30) + 10}Gi`;
}

/** The eval JobSet: one pod on the plan's single-host slice, the export directory mounted read-write (eval.json). */
export function evalJobSet(
  common: JobSetCommon,
  plan: EvalPlan,
  platform: Platform,
  pipeline: string,
  atRevision?: EvalScriptInput['atRevision'],
  record?: EvalScriptInput['record'],
): BuiltJobSet {
  const withFuse: JobSetCommon = { ...common, pod: { ...common.pod, annotations: { [GCSFUSE_ANNOTATION]: 'true' } } };
  return singleHostTpuJobSet(
    withFuse,
    { image: plan.image, script: evalScript(plan, { pipeline, ...(atRevision ? { atRevision } : {}), ...(record ? { record } : {}) }), resources: { requests: { 'ephemeral-storage': downloadRequest(plan) } } },
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
  const count = (t: string) => ((EVAL_TASKS[t].leafTasks ?? 1) > 1 ? `${t}: ${plan.limits[t]} per subtask x ${EVAL_TASKS[t].leafTasks}` : `${t}: ${plan.limits[t]}`);
  const base = `${plan.baseModel}${plan.baseRevision ? `@${plan.baseRevision}` : ''}`;
  const what = `${plan.tasks.join(', ')} (samples ${plan.tasks.map(count).join(', ')}; seed ${plan.seed}) on ${plan.group.slice.acceleratorType}, base ${base} vs the export`;
  return plan.gate
    ? `${what}; gate: ${plan.gate.metric} must improve by at least ${plan.gate.minDelta} over the base model, else the pipeline fails`
    : `${what}; no gate: the scores are recorded, the pipeline does not fail on them`;
}
