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
import { editDistance } from '../util/edit-distance';
import { checkpointPeriod } from './maxtext';
import { exportNameOf, hasStandaloneVllmMapping, hfRepoProblem, MODEL_KEYS, modelRow, STANDALONE_VLLM_PREFIXES } from './models';
import { CONFIGMAP_KEY, CONFIGMAP_MAX_BYTES, configMapBytes, RECIPE_FILES_DIR } from './recipe-files';
import { DatasetSpec, Method, methodArgs, methodOf, METHOD_ROWS, METHODS, rowOf, rowOfMethod } from './methods';
import type { TrainingSetting } from './methods/types';
import { JsonValue, MaxTextArgs, Recipe, RecipeFile, RunLineage } from './recipes/types';
import { hfIdProblem } from './hf-id';
import { PythonModule, rewardFunctions } from './reward';
import { acceleratorTypeExamples, sliceProblem, slicesForAcceleratorType, TpuMachineType, tpuSlice } from './tpu';

export type { DatasetSpec, Method } from './methods';
export { DEFAULT_SFT_COLUMNS, LOSS_ALGO, METHODS, methodOf } from './methods';

/** LoRA alpha when not set: the rank (adapter scale alpha/rank = 1); MaxText's own default 0.0 would scale it to nothing. */
export const loraAlphaDefault = (rank: number): number => rank;

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
  /** The dataset's template and processor files, read by config/ (`dataset.template`, `dataset.processor`). @default - none */
  readonly datasetFiles?: { readonly template?: SpecFile; readonly processor?: SpecFile };
  /** The reward file and the names of its reward functions. @default - MaxText's built-in rewards */
  readonly reward?: { readonly file: SpecFile; readonly functions?: readonly string[] };
  /** Typed training settings of the method (jobs/methods/ `settings`), by name. @default - none: each setting's default runs */
  readonly training?: Readonly<Record<string, number | string | boolean>>;
  /** SFT only. @default - none (full fine-tune) */
  readonly lora?: { readonly rank: number; readonly alpha?: number; readonly modules?: string };
  /** Cloud TPU accelerator type, e.g. `v6e-8`. @default - the preset's, else `defaultSlice` */
  readonly slice?: string;
  /** Training steps (the method's `stepsKey`: SFT and DPO `steps`, RL `num_batches`). @default - the preset's, else the method table row's `defaultSteps` */
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
    [spec.extends, spec.method, spec.model, spec.hfModel, spec.hfRevision, spec.hfArchitecture, spec.tokenizer, spec.dataset, spec.reward, spec.lora, spec.slice, spec.steps, spec.training]
      .every((v) => v === undefined)
  );
}


/** ` (did you mean 'x'?)` for the closest candidate within a third of the word's length, else ''. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const scored = candidates.map((c) => ({ c, d: editDistance(word.toLowerCase(), c.toLowerCase()) })).sort((x, y) => x.d - y.d);
  const best = scored[0];
  return best && best.d <= Math.max(2, Math.ceil(word.length / 3)) ? ` (did you mean '${best.c}'?)` : '';
}

/** Whether the RL recipe runs the MaxText model inside vLLM (train_rl.py: "MaxText" in vllm_hf_overrides.architectures). */
export function usesMaxTextOnVllm(recipe: Recipe): boolean {
  return /MaxText/.test(JSON.stringify(recipe.train.args['vllm_hf_overrides'] ?? {}));
}

/** The bases of a new pipeline without `extends`, by method table row (jobs/methods/: each row's `base`). */
export const METHOD_BASES: readonly Recipe[] = METHOD_ROWS.map((r) => r.base);

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
    if (base && rowOfMethod(wanted) !== rowOf(base)) {
      problems.push(
        `${spec.source}.method: '${wanted}' cannot change ${presetName}'s method (${methodOf(base)}); extend a preset of the same kind, or leave out extends`,
      );
      return { base };
    }
    method = wanted;
  }
  if (!base && method) base = rowOfMethod(method)!.base;
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
  // A method's base has no model (name ''), so a new pipeline always counts as changed.
  const repoChanged = changed || hfModel !== recipe.model.hfRepo;
  let out: Recipe = {
    ...recipe,
    model: { name: key, hfRepo: hfModel, ...(spec.hfRevision !== undefined ? { hfRevision: spec.hfRevision } : {}) },
    // Name the repository whenever it is not the preset's own: without the flag to_maxtext downloads HF_IDS[key]
    // (maxtext-v0.2.4 to_maxtext.py main: `model_id = hf_model_path or HF_IDS[model_name_original]`).
    toMaxText: repoChanged ? { ...recipe.toMaxText, flags: { ...recipe.toMaxText.flags, hf_model_path: hfModel } } : recipe.toMaxText,
    toHf: changed ? { ...recipe.toHf, modelName: exportNameOf(key) === key ? undefined : exportNameOf(key) } : recipe.toHf,
  };
  // The tokenizer the run trains with: without tokenizer_path RLConfig takes HF_IDS[model_name] (types.py RLConfig
  // validator), which is not the repository trained (e.g. Qwen3-30B-A3B-Thinking-2507 for qwen3-30b-a3b). With the
  // repository unchanged a preset keeps its own tokenizer_path (the presets that set one set their repository).
  if (repoChanged || spec.tokenizer !== undefined) {
    out = withArgs(out, { tokenizer_path: tokenizer });
  }
  const extra = out.train.args['vllm_additional_config'];
  if (changed && extra && typeof extra === 'object' && !Array.isArray(extra) && 'maxtext_config' in extra) {
    const mc = (extra as Record<string, JsonValue>)['maxtext_config'] as Record<string, JsonValue>;
    out = withArgs(out, { vllm_additional_config: { ...(extra as Record<string, JsonValue>), maxtext_config: { ...mc, model_name: key } } });
  }
  return out;
}

/** Dataset fields, by the method table row's data checks. */
function applyDataset(spec: PipelineSpec, recipe: Recipe, problems: Problems, notices: string[]): Recipe {
  const d = spec.dataset;
  if (d === undefined) return recipe;
  const at = `${spec.source}.dataset`;
  const data = rowOf(recipe).dataset(d, at);
  problems.push(...data.problems);
  if (d.revision !== undefined) {
    notices.push(`${at}.revision: recorded in the run record only: MaxText 0.2.4 has no key to pin a dataset revision, so training reads what the Hub serves then`);
  }
  return withArgs(recipe, data.args);
}

/** The reward file: RL only, a .py in the repository within a ConfigMap, with MaxText-shaped functions. */
function applyReward(spec: PipelineSpec, recipe: Recipe, problems: Problems): { recipe: Recipe; file?: RecipeFile } {
  const r = spec.reward;
  if (r === undefined) return { recipe };
  const at = `${spec.source}.reward`;
  if (!rowOf(recipe).reward) {
    const rewarded = METHODS.filter((m) => rowOfMethod(m)?.reward);
    problems.push(`${at}: a reward file is for RL (${rewarded.join(', ')}); ${spec.name} trains with ${methodOf(recipe)}, got '${r.file.path}'`);
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

/** Why a shipped file cannot be used, or undefined: its reading problem, its ConfigMap key. */
function shippedFileProblem(file: SpecFile, at: string): string | undefined {
  if (file.problem !== undefined || file.content === undefined || file.sha256 === undefined) return `${at}: '${file.path}' ${file.problem ?? 'could not be read'}`;
  if (!CONFIGMAP_KEY.test(file.name)) return `${at}: file name '${file.name}' must be letters, digits, '-', '_' or '.' (it becomes a ConfigMap key)`;
  return undefined;
}

/**
 * What MaxText needs of a dataset template (maxtext-v0.2.4 input_pipeline/instruction_data_processing.py
 * load_data_template_from_file: `json.load`, else None and train_rl.py prepare_datasets raises "Data template is
 * required"; rl/utils_rl.py process_data l.657-658 formats `TEMPLATE` and `SYSTEM_PROMPT`), or undefined.
 */
export function templateProblem(content: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch (err) {
    return `is not valid JSON (${(err as Error).message}); MaxText's load_data_template_from_file returns None and train_rl stops`;
  }
  // A string, a number, a list or null has no such key either.
  const missing = ['TEMPLATE', 'SYSTEM_PROMPT'].filter((k) => typeof (parsed as Record<string, unknown> | null)?.[k] !== 'string');
  return missing.length > 0 ? `has no string ${missing.join(' or ')} (rl/utils_rl.py process_data formats both)` : undefined;
}

/** A processor file defines a top-level `def process_data(` (rl/utils_rl.py load_custom_callable: getattr "process_data"). */
export const definesProcessData = (content: string): boolean => /^def\s+process_data\s*\(/m.test(content);

/** The dataset's template and processor files: shipped beside the reward file, passed as data_template_path and dataset_processor_path. */
function applyDatasetFiles(spec: PipelineSpec, recipe: Recipe, problems: Problems): { recipe: Recipe; files: RecipeFile[] } {
  const given = spec.datasetFiles ?? {};
  const entries = ([['template', 'data_template_path'], ['processor', 'dataset_processor_path']] as const).filter(([k]) => given[k] !== undefined);
  if (!rowOf(recipe).datasetFiles) return { recipe, files: [] };
  const files: RecipeFile[] = [];
  let out = recipe;
  for (const [kind, key] of entries) {
    const file = given[kind]!;
    const at = `${spec.source}.dataset.${kind}`;
    const problem =
      shippedFileProblem(file, at) ??
      (kind === 'template' ? templateProblem(file.content!) : definesProcessData(file.content!) ? undefined : "defines no top-level 'def process_data(dataset_name, model_tokenizer, template_config, tmvp_config, x)'");
    if (problem !== undefined) {
      problems.push(problem.startsWith(at) ? problem : `${at}: '${file.path}' ${problem}`);
      continue;
    }
    files.push({ name: file.name, content: file.content!, sha256: file.sha256!, path: file.path });
    out = withArgs(out, { [key]: `${RECIPE_FILES_DIR}/${file.name}` });
  }
  return { recipe: out, files };
}

/** Why a training setting's value is refused, or undefined. */
function settingProblem(setting: TrainingSetting, value: number | string | boolean): string | undefined {
  const n = typeof value === 'number' ? value : NaN;
  switch (setting.kind) {
    case 'int':
      return Number.isInteger(n) && n >= 1 ? undefined : 'a whole number >= 1';
    case 'positive':
      return n > 0 ? undefined : 'a number > 0';
    case 'nonneg':
      return n >= 0 ? undefined : 'a number >= 0';
    case 'fraction':
      return n >= 0 && n <= 1 ? undefined : 'a number from 0 to 1';
    case 'bool':
      return typeof value === 'boolean' ? undefined : 'true or false';
    default:
      return typeof value === 'string' && (setting.values ?? []).includes(value) ? undefined : `one of ${(setting.values ?? []).join(', ')}`;
  }
}

/**
 * The typed training settings (`training.<name>`): each sets its MaxText key (jobs/methods/ `settings`), in the row's
 * order; a name the method does not have or a value out of range is refused (an override of a key a setting owns is
 * refused whether or not the setting is given: jobs/pipeline.ts ownedOverrideProblems).
 */
function applyTraining(spec: PipelineSpec, recipe: Recipe, problems: Problems): Recipe {
  const given = spec.training;
  if (given === undefined) return recipe;
  const row = rowOf(recipe);
  const method = methodOf(recipe);
  const names = Object.keys(row.settings);
  for (const name of Object.keys(given).filter((k) => !names.includes(k))) {
    problems.push(`${spec.source}.training.${JSON.stringify(name).slice(1, -1)}: not a setting of ${method}; ${method} has ${names.join(', ')}${didYouMean(name, names)}`);
  }
  let out = recipe;
  for (const [name, setting] of Object.entries(row.settings)) {
    const value = given[name];
    if (value === undefined) continue;
    const at = `${spec.source}.training.${name}`;
    const bad = settingProblem(setting, value);
    if (bad) {
      problems.push(`${at}: must be ${bad} (MaxText ${setting.key}), got ${JSON.stringify(value)}`);
      continue;
    }
    const args = setting.toArgs && typeof value === 'number' ? setting.toArgs(value, out.train.args) : { [setting.key]: value };
    out = { ...withArgs(out, args), trainingKeys: { ...out.trainingKeys, ...Object.fromEntries(Object.keys(args).map((k) => [k, name])) } };
  }
  return out;
}

/** The value of each typed setting a recipe runs with: the recipe's argument, else the method's default. */
export function trainingValues(recipe: Recipe): Record<string, number | string | boolean> {
  const row = rowOf(recipe);
  return Object.fromEntries(
    Object.entries(row.settings).map(([name, s]) => {
      const given = recipe.train.args[s.key];
      const value = s.fromArgs ? s.fromArgs(recipe.train.args) : typeof given === 'number' || typeof given === 'string' || typeof given === 'boolean' ? given : s.default;
      return [name, value];
    }),
  );
}

/** LoRA: SFT only (train_sft applies it; train_rl never does), rank > 0. */
function applyLora(spec: PipelineSpec, recipe: Recipe, problems: Problems): Recipe {
  const l = spec.lora;
  if (l === undefined) return recipe;
  const at = `${spec.source}.lora`;
  if (!rowOf(recipe).lora) {
    problems.push(
      `${at}: LoRA is for SFT only: MaxText 0.2.4 ${rowOf(recipe).module.split('.').pop()} never applies LoRA (only train_sft calls lora_utils.apply_lora_to_model); remove lora or use method sft`,
    );
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
      problems.push(`${spec.source}.slice: must be a Cloud TPU accelerator type of the TPU table such as ${acceleratorTypeExamples()}, got '${spec.slice}'`);
    } else {
      out = { ...out, slice: { machineType: candidates[0].machineType, topology: candidates[0].topology } };
    }
  } else if (fromBase) {
    out = { ...out, slice: spec.defaultSlice };
  }
  const key = rowOf(out).stepsKey;
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
  if (!rowOf(recipe).rollout) return recipe;
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
  const fromBase = METHOD_BASES.includes(base);
  let recipe: Recipe = {
    ...base,
    name: spec.name,
    ...(fromBase ? {} : { description: `${base.description}, as configured` }),
  };
  if (method !== methodOf(base)) recipe = withArgs(recipe, methodArgs(method));
  recipe = applyModel(spec, recipe, problems, notices);
  recipe = applyDataset(spec, recipe, problems, notices);
  const rewarded = applyReward(spec, recipe, problems);
  recipe = rewarded.recipe;
  const data = applyDatasetFiles(spec, recipe, problems);
  recipe = data.recipe;
  const files = [...(rewarded.file ? [rewarded.file] : []), ...data.files];
  const names = files.map((f) => f.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length > 0) problems.push(`${spec.source}: the reward, template and processor files share the name '${twice[0]}' (one ConfigMap key each): rename one`);
  if (configMapBytes(files) > CONFIGMAP_MAX_BYTES) {
    problems.push(`${spec.source}: the reward, template and processor files hold ${configMapBytes(files)} bytes; a ConfigMap holds at most ${CONFIGMAP_MAX_BYTES} (1 MiB)`);
  }
  recipe = applyLora(spec, recipe, problems);
  recipe = applyTraining(spec, recipe, problems);
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
      ...(files.length > 0 ? { files } : {}),
      ...(Object.keys(lineage).length > 0 ? { lineage } : {}),
    },
    problems,
    notices,
  };
}
