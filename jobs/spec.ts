/**
 * A pipeline as data: a config entry (method, MaxText model key, HF repository and revision, dataset, reward file,
 * LoRA, slice, steps) resolved into the Recipe the builders take. The four tutorials are presets of the same schema
 * (jobs/recipes/*.ts): an entry may `extends` one and change its model, data or slice; an entry without `extends`
 * starts from the method's base (METHOD_BASES). Every problem of an entry is collected (never thrown one by one), each
 * naming its config key, showing the value and saying what fits. Pure; no cdktf, no files (config/ reads the reward
 * file and passes its text).
 *
 * MaxText keys used, at AI-Hypercomputer/maxtext maxtext-v0.2.4:
 * - SFT data (src/maxtext/configs/types.py HfDataset, DatasetGeneral; configs/post_train/sft.yml): `dataset_type=hf`,
 *   `hf_path`, `hf_name` (the dataset config), `train_split`, `train_data_columns` (sft.yml: ['messages']);
 * - RL data (types.py RLDataset; trainers/post_train/rl/train_rl.py get_dataset: `load_dataset(dataset_name,
 *   name=hf_subset, split=...)`): `dataset_name`, `eval_dataset_name`, `hf_subset`, `train_split`, `eval_split`; the
 *   built-in processor (rl/utils_rl.py process_data) reads a `problem`|`prompt`|`question` and an
 *   `answer`|`solution`|`expected_answer` column;
 * - rewards (types.py RLReward; train_rl.py build_reward_fns: the built-in stack is replaced only when both are set):
 *   `reward_functions_path`, `reward_functions` (comma-separated names, each `(prompts, completions, tmvp_config,
 *   **kwargs) -> list[float]`);
 * - the loss (types.py RL.loss_algo: Literal["grpo", "gspo-token"]): `rl.loss_algo`;
 * - LoRA (types.py LoRA, extra="forbid"; sft/train_sft.py setup_trainer_state is the only trainer that applies it:
 *   `lora_utils.apply_lora_to_model`; train_rl.py never does): `lora.enable_lora`, `lora.lora_rank` (NonNegativeInt,
 *   "Set >0 when LoRA is enabled"), `lora.lora_alpha`, `lora.lora_module_path` (default: configs/post_train/
 *   lora_module_path.yml by model prefix).
 * No dataset revision key exists at that version: a dataset `revision` is recorded in the run record only.
 */
import { checkpointPeriod } from './maxtext';
import { exportNameOf, hasStandaloneVllmMapping, hfRepoProblem, MODEL_KEYS, modelRow, STANDALONE_VLLM_PREFIXES } from './models';
import { CONFIGMAP_KEY, CONFIGMAP_MAX_BYTES, configMapBytes, RECIPE_FILES_DIR } from './recipe-files';
import { CONVERSION_MAX_RESTARTS, CONVERSION_TIMEOUT_MINUTES, TUTORIAL_IMAGE } from './recipes/common';
import { JsonValue, MaxTextArgs, Recipe, RecipeFile, RunLineage } from './recipes/types';
import { hfIdProblem } from './hf-id';
import { PythonModule, rewardFunctions } from './reward';
import { sliceProblem, slicesForAcceleratorType, TpuMachineType, tpuSlice } from './tpu';

/** Post-training methods a config entry may name: SFT, and RL with the GRPO or GSPO-token loss. */
export const METHODS = ['sft', 'grpo', 'gspo'] as const;
export type Method = (typeof METHODS)[number];
/** `rl.loss_algo` of each RL method (types.py RL.loss_algo). */
export const LOSS_ALGO: Readonly<Record<Exclude<Method, 'sft'>, string>> = { grpo: 'grpo', gspo: 'gspo-token' };

/** The steps a new pipeline trains when `steps` is not set: tutorial 003's 1000 SFT steps, tutorials' 50 RL batches. */
export const DEFAULT_STEPS: Readonly<Record<'sft' | 'rl', number>> = { sft: 1000, rl: 50 };
/** The chat column(s) SFT trains on when the dataset does not say (sft.yml `train_data_columns`). */
export const DEFAULT_SFT_COLUMNS: readonly string[] = ['messages'];
/** LoRA alpha when not set: the rank (adapter scale alpha/rank = 1); MaxText's own default 0.0 would scale it to nothing. */
export const loraAlphaDefault = (rank: number): number => rank;

/** The dataset of an entry, as the config file spells it. */
export interface DatasetSpec {
  /** Hugging Face dataset repository, e.g. `HuggingFaceH4/ultrachat_200k`. */
  readonly hf?: string;
  /** The dataset's config (subset), e.g. `main`. @default - none */
  readonly config?: string;
  /** Training split. @default - MaxText's: `train` */
  readonly split?: string;
  /** RL only: the evaluation split. @default - MaxText's: `test` */
  readonly evalSplit?: string;
  /** Dataset commit, recorded in the run record (MaxText 0.2.4 has no key to pin it). @default - none */
  readonly revision?: string;
  /** SFT only: the chat column(s). @default DEFAULT_SFT_COLUMNS */
  readonly columns?: readonly string[];
  /** RL only: MaxText `data_template_path` (prompt template). @default - rl.yml's (gsm8k_rl.json) or the preset's */
  readonly template?: string;
}

/** A file the config read for an entry: its text, or why it could not be used (config/ decides). */
export interface SpecFile {
  /** The path as written in the config. */
  readonly path: string;
  /** The file name (a ConfigMap key). */
  readonly name: string;
  /** @default - none (see problem) */
  readonly content?: string;
  /** sha256 of the content. @default - none */
  readonly sha256?: string;
  /** Why it cannot be shipped (missing, outside the repository, not .py, too large). @default - none */
  readonly problem?: string;
  /** A `.py` file as Python's parser reads it (config/python.ts). @default - none */
  readonly python?: PythonModule;
}

/** One `pipelines.<name>` entry's pipeline fields, with where it came from. */
export interface PipelineSpec {
  readonly name: string;
  /** Source prefix of every message, e.g. `config/my.json: pipelines.sft-llama3-support`. */
  readonly source: string;
  /** @default - none: the method's base (or the preset of the same name) */
  readonly extends?: string;
  /** @default - the preset's */
  readonly method?: string;
  /** @default - the preset's */
  readonly model?: string;
  /** @default - the preset's when the model is unchanged, else the key's HF_IDS repository */
  readonly hfModel?: string;
  /** @default - none: the repository's head when the conversion runs */
  readonly hfRevision?: string;
  /** The HF repository's architecture, declared when its name does not say the model. @default - none */
  readonly hfArchitecture?: string;
  /** Tokenizer repository (`tokenizer_path`). @default - hfModel */
  readonly tokenizer?: string;
  /** @default - the preset's */
  readonly dataset?: DatasetSpec;
  /** The reward file and the names of its reward functions. @default - MaxText's built-in rewards */
  readonly reward?: { readonly file: SpecFile; readonly functions?: readonly string[] };
  /** SFT only. @default - none (full fine-tune) */
  readonly lora?: { readonly rank: number; readonly alpha?: number; readonly modules?: string };
  /** Cloud TPU accelerator type, e.g. `v6e-8`. @default - the preset's, else `defaultSlice` */
  readonly slice?: string;
  /** Training steps (SFT `steps`; RL `num_batches`). @default - the preset's, else DEFAULT_STEPS */
  readonly steps?: number;
  /** The slice shape a new pipeline trains on without `slice`: infra's main slices. */
  readonly defaultSlice: { readonly machineType: TpuMachineType; readonly topology: string };
}

/** What resolving an entry gives: the recipe, or the problems; notices either way. */
export interface ResolvedSpec {
  /** @default - none when there are problems */
  readonly recipe?: Recipe;
  readonly problems: readonly string[];
  readonly notices: readonly string[];
}

/** True when an entry changes nothing a preset fixes (only deploy options: runId, image, ...). */
export function isPlainEntry(spec: PipelineSpec): boolean {
  return (
    [spec.extends, spec.method, spec.model, spec.hfModel, spec.hfRevision, spec.hfArchitecture, spec.tokenizer, spec.dataset, spec.reward, spec.lora, spec.slice, spec.steps]
      .every((v) => v === undefined)
  );
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const keep = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = keep;
    }
  }
  return row[b.length];
}

/** ` (did you mean 'x'?)` for the closest candidate within a third of the word's length, else ''. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const scored = candidates.map((c) => ({ c, d: distance(word.toLowerCase(), c.toLowerCase()) })).sort((x, y) => x.d - y.d);
  const best = scored[0];
  return best && best.d <= Math.max(2, Math.ceil(word.length / 3)) ? ` (did you mean '${best.c}'?)` : '';
}

/** The method a recipe trains with. */
export function methodOf(recipe: Recipe): Method {
  if (recipe.train.kind === 'sft') return 'sft';
  return recipe.train.args['rl.loss_algo'] === LOSS_ALGO.gspo ? 'gspo' : 'grpo';
}

/** Whether the RL recipe runs the MaxText model inside vLLM (train_rl.py: "MaxText" in vllm_hf_overrides.architectures). */
export function usesMaxTextOnVllm(recipe: Recipe): boolean {
  return /MaxText/.test(JSON.stringify(recipe.train.args['vllm_hf_overrides'] ?? {}));
}

const CONVERSION = { maxRestarts: { 'to-maxtext': CONVERSION_MAX_RESTARTS, 'to-hf': CONVERSION_MAX_RESTARTS } } as const;
/** What both method bases share: a single-VM v6e-8 on McJAX with the tutorial image and the conversions' limits. */
const BASE_SHAPE = {
  model: { name: '', hfRepo: '' },
  slice: { machineType: 'ct6e-standard-8t', topology: '2x4' },
  image: TUTORIAL_IMAGE,
  runtime: 'mcjax',
  ...CONVERSION,
  timeoutMinutes: { 'to-maxtext': CONVERSION_TIMEOUT_MINUTES, train: 720, 'to-hf': CONVERSION_TIMEOUT_MINUTES },
} as const;
const TO_HF_ARGS = { skip_jax_distributed_system: true, hardware: 'cpu', scan_layers: true, use_multimodal: false, weight_dtype: 'bfloat16' } as const;

/**
 * The base of a new pipeline without `extends`, per method: McJAX (one JAX process per TPU VM), conversions on the CPU
 * pool with McJAX checkpoint storage (OCDBT + Zarr3 on, `$((1 - USE_PATHWAYS))`), scanned layers everywhere. RL's base
 * is tutorial 002's single-host shape (no Pathways; MaxText's standalone vLLM sampler on the same chips); RL on a
 * multi-host slice needs Pathways: extend rl-qwen3 or rl-gemma4. Model, data, slice and steps are filled in by
 * resolveSpec.
 */
export const METHOD_BASES: Readonly<Record<'sft' | 'rl', Recipe>> = {
  sft: {
    name: 'sft',
    tutorial: '-',
    description: 'SFT (train_sft) on multi-host JAX',
    ...BASE_SHAPE,
    toMaxText: {
      args: { scan_layers: true, use_multimodal: false, skip_jax_distributed_system: true, checkpoint_storage_use_zarr3: 1, checkpoint_storage_use_ocdbt: 1, hardware: 'cpu' },
      flags: { lazy_load_tensors: true },
    },
    train: {
      kind: 'sft',
      args: { run_name: 'sft', dataset_type: 'hf', per_device_batch_size: 1, steps: DEFAULT_STEPS.sft, skip_jax_distributed_system: false },
      env: { JAX_PLATFORMS: 'tpu,cpu', ENABLE_PJRT_COMPATIBILITY: 'true' },
    },
    toHf: { args: TO_HF_ARGS },
  },
  rl: {
    name: 'rl',
    tutorial: '-',
    description: 'RL (train_rl) on a single TPU VM, McJAX',
    ...BASE_SHAPE,
    toMaxText: {
      args: { scan_layers: true, use_multimodal: false, hardware: 'cpu', skip_jax_distributed_system: true, checkpoint_storage_use_zarr3: 1, checkpoint_storage_use_ocdbt: 1 },
      flags: { lazy_load_tensors: false },
    },
    train: {
      kind: 'rl',
      args: { run_name: 'rl', num_batches: DEFAULT_STEPS.rl, num_test_batches: 10, rollout_data_parallelism: 1, rollout_tensor_parallelism: -1 },
      env: {},
    },
    toHf: { args: TO_HF_ARGS },
    tpuVmEnv: true,
  },
};

type Problems = string[];

/** The base recipe: the preset (`extends`, or the entry's own name), or the method's base. */
function baseOf(spec: PipelineSpec, presets: Readonly<Record<string, Recipe>>, problems: Problems): { base?: Recipe; method?: Method } {
  const names = Object.keys(presets);
  const presetName = spec.extends ?? (presets[spec.name] ? spec.name : undefined);
  let base: Recipe | undefined;
  if (presetName !== undefined) {
    base = presets[presetName];
    if (!base) problems.push(`${spec.source}.extends: no preset named '${presetName}'; presets: ${names.join(', ')}${didYouMean(presetName, names)}`);
  } else {
    for (const field of ['method', 'model', 'hfModel', 'dataset'] as const) {
      if (spec[field] === undefined) {
        problems.push(`${spec.source}.${field}: is required for a new pipeline (or extends one of ${names.join(', ')})`);
      }
    }
  }
  let method: Method | undefined = base ? methodOf(base) : undefined;
  if (spec.method !== undefined) {
    if (!(METHODS as readonly string[]).includes(spec.method)) {
      problems.push(`${spec.source}.method: must be one of ${METHODS.join(', ')}, got '${spec.method}'${didYouMean(spec.method, METHODS)}`);
      return { base };
    }
    const wanted = spec.method as Method;
    if (base && (wanted === 'sft') !== (base.train.kind === 'sft')) {
      problems.push(
        `${spec.source}.method: '${wanted}' cannot change ${presetName}'s method (${methodOf(base)}); extend a preset of the same kind, or leave out extends`,
      );
      return { base };
    }
    method = wanted;
  }
  if (!base && method) base = METHOD_BASES[method === 'sft' ? 'sft' : 'rl'];
  return { base, method };
}

/** The recipe with `set` merged into its training arguments. */
const withArgs = (recipe: Recipe, set: MaxTextArgs): Recipe => ({ ...recipe, train: { ...recipe.train, args: { ...recipe.train.args, ...set } } }) as Recipe;

/** Model key, HF repository, revision and tokenizer. */
function applyModel(spec: PipelineSpec, recipe: Recipe, problems: Problems, notices: string[]): Recipe {
  const key = spec.model ?? recipe.model.name;
  const row = modelRow(key);
  if (!row) {
    problems.push(`${spec.source}.model: no model table row for '${key}' (jobs/models.ts); models: ${MODEL_KEYS.join(', ')}${didYouMean(key, MODEL_KEYS)}`);
    return recipe;
  }
  const changed = key !== recipe.model.name;
  const hfModel = spec.hfModel ?? (changed ? row.hfRepos[0] : recipe.model.hfRepo);
  // The id's syntax first (jobs/hf-id.ts): a URL or a name with spaces would otherwise pass the name pattern below.
  const idProblem = spec.hfModel !== undefined ? hfIdProblem(spec.hfModel, row.hfRepos[0]) : undefined;
  const repoProblem = idProblem ?? hfRepoProblem(key, hfModel, spec.hfArchitecture);
  if (repoProblem) problems.push(`${spec.source}.hfModel: '${hfModel}' ${repoProblem}`);
  const tokenizer = spec.tokenizer ?? hfModel;
  if (spec.tokenizer !== undefined) {
    const p = hfIdProblem(spec.tokenizer, row.hfRepos[0]) ?? hfRepoProblem(key, spec.tokenizer, spec.hfArchitecture, true);
    if (p) problems.push(`${spec.source}.tokenizer: '${spec.tokenizer}' ${p}`);
  }
  if (spec.hfRevision !== undefined && !/^[0-9a-f]{40}$/.test(spec.hfRevision)) {
    problems.push(`${spec.source}.hfRevision: must be a 40-hex commit of ${hfModel} (a branch or tag moves), got '${spec.hfRevision}'`);
  }
  if (spec.hfRevision === undefined && !isPlainEntry(spec)) {
    notices.push(`${spec.source}: no hfRevision: the conversion takes whatever ${hfModel}'s head is when it runs; pin a commit with hfRevision`);
  }
  const repoChanged = changed || hfModel !== recipe.model.hfRepo;
  const fromBase = recipe.model.name === '';
  let out: Recipe = {
    ...recipe,
    model: { name: key, hfRepo: hfModel, ...(spec.hfRevision !== undefined ? { hfRevision: spec.hfRevision } : {}) },
    // Name the repository whenever it is not the preset's own: without the flag to_maxtext downloads HF_IDS[key]
    // (maxtext-v0.2.4 to_maxtext.py main: `model_id = hf_model_path or HF_IDS[model_name_original]`).
    toMaxText: repoChanged ? { ...recipe.toMaxText, flags: { ...recipe.toMaxText.flags, hf_model_path: hfModel } } : recipe.toMaxText,
    toHf: changed ? { ...recipe.toHf, modelName: exportNameOf(key) === key ? undefined : exportNameOf(key) } : recipe.toHf,
  };
  // The tokenizer the run trains with: without tokenizer_path RLConfig takes HF_IDS[model_name] (types.py RLConfig
  // validator), which is not the repository trained (e.g. Qwen3-30B-A3B-Thinking-2507 for qwen3-30b-a3b).
  if (repoChanged || fromBase || spec.tokenizer !== undefined || out.train.args['tokenizer_path'] !== undefined) {
    out = withArgs(out, { tokenizer_path: tokenizer });
  }
  const extra = out.train.args['vllm_additional_config'];
  if (changed && extra && typeof extra === 'object' && !Array.isArray(extra) && 'maxtext_config' in extra) {
    const mc = (extra as Record<string, JsonValue>)['maxtext_config'] as Record<string, JsonValue>;
    out = withArgs(out, { vllm_additional_config: { ...(extra as Record<string, JsonValue>), maxtext_config: { ...mc, model_name: key } } });
  }
  return out;
}

/** Dataset fields per method. */
function applyDataset(spec: PipelineSpec, recipe: Recipe, problems: Problems, notices: string[]): Recipe {
  const d = spec.dataset;
  if (d === undefined) return recipe;
  const at = `${spec.source}.dataset`;
  const sft = recipe.train.kind === 'sft';
  const example = sft ? 'HuggingFaceH4/ultrachat_200k' : 'openai/gsm8k';
  if (d.hf === undefined || d.hf.trim() === '') problems.push(`${at}.hf: is required (the Hugging Face dataset repository, e.g. ${example})`);
  else {
    const idProblem = hfIdProblem(d.hf, example);
    if (idProblem) problems.push(`${at}.hf: '${d.hf}' ${idProblem}`);
  }
  if (sft && (d.template !== undefined || d.evalSplit !== undefined)) {
    problems.push(`${at}: ${d.template !== undefined ? 'template' : 'evalSplit'} is for RL (data_template_path, eval_split); SFT reads hf, config, split and columns`);
  }
  if (!sft && d.columns !== undefined) {
    problems.push(
      `${at}.columns: RL reads a question column (problem, prompt or question) and an answer column (answer, solution or expected_answer) ` +
        `by name (MaxText rl/utils_rl.py process_data), got ${JSON.stringify(d.columns)}; use a dataset with those columns`,
    );
  }
  if (sft && d.columns !== undefined && (d.columns.length === 0 || d.columns.some((c) => c.trim() === ''))) {
    problems.push(`${at}.columns: must name at least one column (the chat messages, e.g. ["messages"]), got ${JSON.stringify(d.columns)}`);
  }
  if (d.revision !== undefined) {
    notices.push(`${at}.revision: recorded in the run record only: MaxText 0.2.4 has no key to pin a dataset revision, so training reads what the Hub serves then`);
  }
  const hf = d.hf ?? '';
  const optional = (key: string, value: string | undefined): MaxTextArgs => (value !== undefined ? { [key]: value } : {});
  if (sft) {
    return withArgs(recipe, {
      dataset_type: 'hf',
      hf_path: hf,
      ...optional('hf_name', d.config),
      ...optional('train_split', d.split),
      train_data_columns: [...(d.columns ?? DEFAULT_SFT_COLUMNS)],
    });
  }
  return withArgs(recipe, {
    dataset_name: hf,
    eval_dataset_name: hf,
    ...optional('hf_subset', d.config),
    ...optional('train_split', d.split),
    ...optional('eval_split', d.evalSplit),
    ...optional('data_template_path', d.template),
  });
}

/** The reward file: RL only, a .py in the repository within a ConfigMap, with MaxText-shaped functions. */
function applyReward(spec: PipelineSpec, recipe: Recipe, problems: Problems): { recipe: Recipe; file?: RecipeFile } {
  const r = spec.reward;
  if (r === undefined) return { recipe };
  const at = `${spec.source}.reward`;
  if (recipe.train.kind !== 'rl') {
    problems.push(`${at}: a reward file is for RL (grpo, gspo); ${spec.name} trains with sft, got '${r.file.path}'`);
    return { recipe };
  }
  if (r.file.problem !== undefined || r.file.content === undefined || r.file.sha256 === undefined) {
    problems.push(`${at}: '${r.file.path}' ${r.file.problem ?? 'could not be read'}`);
    return { recipe };
  }
  if (!CONFIGMAP_KEY.test(r.file.name)) {
    problems.push(`${at}: file name '${r.file.name}' must be letters, digits, '-', '_' or '.' (it becomes a ConfigMap key)`);
    return { recipe };
  }
  const bytes = configMapBytes([{ name: r.file.name, content: r.file.content }]);
  if (bytes > CONFIGMAP_MAX_BYTES) {
    problems.push(`${at}: '${r.file.path}' is ${bytes} bytes; a ConfigMap holds at most ${CONFIGMAP_MAX_BYTES} (1 MiB): move data the reward loads into the bucket`);
    return { recipe };
  }
  if (r.file.python === undefined) {
    problems.push(`${at}: '${r.file.path}' was not read by Python's parser`);
    return { recipe };
  }
  // The signature, by Python's own parser (config/python.ts), against how MaxText and Tunix call it (jobs/reward.ts).
  const checked = rewardFunctions(r.file.path, r.file.python, r.functions);
  problems.push(...checked.problems.map((p) => `${spec.source}.${p.key}: ${p.text}`));
  if (checked.problems.length > 0) return { recipe };
  const names = checked.names;
  const file: RecipeFile = { name: r.file.name, content: r.file.content, sha256: r.file.sha256, path: r.file.path };
  return {
    recipe: withArgs(recipe, { reward_functions_path: `${RECIPE_FILES_DIR}/${file.name}`, reward_functions: names.join(',') }),
    file,
  };
}

/** LoRA: SFT only (train_sft applies it; train_rl never does), rank > 0. */
function applyLora(spec: PipelineSpec, recipe: Recipe, problems: Problems): Recipe {
  const l = spec.lora;
  if (l === undefined) return recipe;
  const at = `${spec.source}.lora`;
  if (recipe.train.kind !== 'sft') {
    problems.push(`${at}: LoRA is for SFT only: MaxText 0.2.4 train_rl never applies LoRA (only train_sft calls lora_utils.apply_lora_to_model); remove lora or use method sft`);
    return recipe;
  }
  if (!(Number.isInteger(l.rank) && l.rank >= 1)) problems.push(`${at}.rank: must be a whole number >= 1 (types.py LoRA lora_rank: "Set >0 when LoRA is enabled"), got ${l.rank}`);
  const alpha = l.alpha ?? loraAlphaDefault(l.rank);
  if (!(alpha > 0)) problems.push(`${at}.alpha: must be > 0 (the adapter scales by alpha / rank), got ${alpha}`);
  const out = withArgs(recipe, {
    'lora.enable_lora': true,
    'lora.lora_rank': l.rank,
    'lora.lora_alpha': alpha,
    ...(l.modules !== undefined ? { 'lora.lora_module_path': l.modules } : {}),
  });
  return { ...out, toHf: { ...out.toHf, lora: { rank: l.rank, alpha } } };
}

/** Steps and slice. */
function applyShape(spec: PipelineSpec, recipe: Recipe, fromBase: boolean, problems: Problems): Recipe {
  let out = recipe;
  if (spec.slice !== undefined) {
    const candidates = slicesForAcceleratorType(spec.slice);
    if (candidates.length === 0) {
      problems.push(`${spec.source}.slice: must be a Cloud TPU accelerator type of the TPU table such as v6e-8, v6e-16, v6e-32, v5p-16 or tpu7x-16, got '${spec.slice}'`);
    } else {
      out = { ...out, slice: { machineType: candidates[0].machineType, topology: candidates[0].topology } };
    }
  } else if (fromBase) {
    out = { ...out, slice: spec.defaultSlice };
  }
  const sft = out.train.kind === 'sft';
  const key = sft ? 'steps' : 'num_batches';
  if (spec.steps !== undefined) {
    if (!(Number.isInteger(spec.steps) && spec.steps >= 1)) {
      problems.push(`${spec.source}.steps: must be a whole number >= 1, got ${spec.steps}`);
      return out;
    }
    out = withArgs(out, { [key]: spec.steps });
    const r = checkpointPeriod(spec.steps);
    if ('problem' in r) problems.push(`${spec.source}.steps: ${r.problem}`);
  }
  return out;
}

/** RL shape checks: the single-host base needs one VM; the sampler needs a weight-sync path for the model. */
function checkRl(spec: PipelineSpec, recipe: Recipe, fromBase: boolean, problems: Problems): Recipe {
  if (recipe.train.kind !== 'rl') return recipe;
  let out = recipe;
  if (fromBase) {
    const problem = sliceProblem(recipe.slice.machineType, recipe.slice.topology);
    const shape = problem === undefined ? tpuSlice(recipe.slice.machineType, recipe.slice.topology) : undefined;
    if (shape && shape.vms > 1) {
      problems.push(
        `${spec.source}.slice: RL without extends runs on one TPU VM (McJAX, tutorial 002's shape), got ` +
          `${recipe.slice.machineType} ${recipe.slice.topology} (${shape.vms} VMs${spec.slice === undefined ? ', infra\'s main slice' : ''}); ` +
          'RL on a multi-host slice runs on Pathways: extend rl-qwen3 or rl-gemma4, or set slice to a single-VM type such as v6e-8',
      );
    }
    // RLConfig counts VMs as devices / chips_per_vm (rl.yml default 4): the slice's own count.
    if (shape) out = withArgs(out, { chips_per_vm: shape.chipsPerVm });
  }
  const key = recipe.model.name;
  if (usesMaxTextOnVllm(recipe)) {
    if (!modelRow(key)?.convertsBothWays) {
      problems.push(`${spec.source}.model: '${key}' has no HF_MODEL_CONFIGS entry at maxtext-v0.2.4, which the MaxText-on-vLLM sampler reads (TunixMaxTextAdapter); RL cannot run it`);
    }
  } else if (!hasStandaloneVllmMapping(key)) {
    problems.push(
      `${spec.source}.model: RL with '${key}' needs a sampler weight-sync path: MaxText 0.2.4's standalone vLLM mappings cover every ` +
        `weight of ${MODEL_KEYS.filter(hasStandaloneVllmMapping).join(', ')} only (integration/tunix/weight_mapping, dispatched on ` +
        `${STANDALONE_VLLM_PREFIXES.join(', ')}; the Qwen3 one has no MoE weights); or extend rl-qwen3 or rl-gemma4, which run the MaxText model inside vLLM`,
    );
  }
  return out;
}

/**
 * Resolves one config entry against the presets: the recipe it deploys, or every problem it has. A plain entry of a
 * preset (only runId, image, ...) returns the preset itself, so the tutorials synthesize byte for byte as before.
 */
export function resolveSpec(spec: PipelineSpec, presets: Readonly<Record<string, Recipe>>): ResolvedSpec {
  const problems: Problems = [];
  const notices: string[] = [];
  if (isPlainEntry(spec) && presets[spec.name]) return { recipe: presets[spec.name], problems, notices };
  const { base, method } = baseOf(spec, presets, problems);
  if (!base || !method) return { problems, notices };
  const fromBase = Object.values(METHOD_BASES).includes(base);
  let recipe: Recipe = {
    ...base,
    name: spec.name,
    ...(fromBase ? {} : { description: `${base.description}, as configured` }),
  };
  if (method !== 'sft') recipe = method === methodOf(base) ? recipe : withArgs(recipe, { 'rl.loss_algo': LOSS_ALGO[method] });
  recipe = applyModel(spec, recipe, problems, notices);
  recipe = applyDataset(spec, recipe, problems, notices);
  const rewarded = applyReward(spec, recipe, problems);
  recipe = rewarded.recipe;
  recipe = applyLora(spec, recipe, problems);
  recipe = applyShape(spec, recipe, fromBase, problems);
  recipe = checkRl(spec, recipe, fromBase, problems);
  if (problems.length > 0) return { problems, notices };
  const lineage: RunLineage = {
    ...(spec.dataset?.hf !== undefined
      ? { dataset: { hf: spec.dataset.hf, config: spec.dataset.config, split: spec.dataset.split, revision: spec.dataset.revision } }
      : {}),
    ...(rewarded.file ? { reward: { path: rewarded.file.path, sha256: rewarded.file.sha256 } } : {}),
  };
  const description = fromBase
    ? `${method.toUpperCase()} of ${recipe.model.name} (${recipe.model.hfRepo}) on ${spec.dataset?.hf ?? 'its dataset'}`
    : recipe.description;
  return {
    recipe: {
      ...recipe,
      description,
      ...(rewarded.file ? { files: [rewarded.file] } : {}),
      ...(Object.keys(lineage).length > 0 ? { lineage } : {}),
    },
    problems,
    notices,
  };
}
