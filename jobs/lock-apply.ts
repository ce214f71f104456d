/**
 * What synth does with the lock (jobs/lock.ts), offline and deterministic: a recipe's images become `tag@sha256:...`
 * where the lock has them, its model and dataset revisions become the locked commits (so every step downloads, and
 * every run and eval record carries, the commit the lock holds, not one resolved at run time), and the pipeline is
 * checked against the locked facts:
 *   - the dataset's config and splits exist (MaxText's data path loads `load_dataset(hf_path|dataset_name,
 *     name=hf_name|hf_subset, split=...)`: maxtext-v0.2.4 src/maxtext/input_pipeline/hf_data_processing.py, and
 *     trainers/post_train/rl/train_rl.py get_dataset), and its named columns exist with a type the method reads
 *     (SFT/DPO `train_data_columns`: text or messages; RL's built-in process_data reads a `problem`|`prompt`|`question`
 *     and an `answer`|`solution`|`expected_answer` column, rl/utils_rl.py). Which column *layouts* MaxText's data path
 *     refuses (SFT plain prompt/completion, DPO message columns) is jobs/spec.ts's (issue 44); here only the facts.
 *   - the model's config.json agrees with its model-table row (architectures, layers, hidden size, KV heads).
 * A thing the lock lacks is a note naming `npm run lock`; with `requireLock` a problem. Pure; no cdktf.
 */
import { hubKey, Lock, LOCK_COMMAND, LockedDataset, pinnedImage } from './lock';
import { rowOf } from './methods';
import type { MethodRow } from './methods/types';
import { modelRow } from './models';
import type { Recipe } from './recipes/types';
import type { Pipeline } from './pipeline';
import { watchesLostHost } from './argo';
import { PATHWAYS_IMAGES } from './jobset';
import { VLLM_TPU_IMAGE } from './vllm';
import { LOST_HOST } from './lost-host';
import { TUTORIAL_IMAGE } from './recipes/common';

/** Images the program names itself (beside a pipeline's MaxText image): each is locked whatever the config. */
export const PROGRAM_IMAGES: readonly string[] = [TUTORIAL_IMAGE, PATHWAYS_IMAGES.proxy, PATHWAYS_IMAGES.server, VLLM_TPU_IMAGE, LOST_HOST.image];

/** The data a recipe trains on, as MaxText's arguments name it (the method's defaults where the config names none). */
export interface DataUse {
  readonly repo: string;
  readonly revision?: string;
  /** The dataset config (`hf_name` / `hf_subset`). @default - none: the dataset's only (or `default`) config */
  readonly config?: string;
  /** Split names the run loads, each with the MaxText key that names it. */
  readonly splits: ReadonlyArray<{ readonly key: string; readonly split: string }>;
  /** SFT/DPO `train_data_columns`. @default - none */
  readonly columns?: readonly string[];
  /** Data files (`hf_train_files`, `hf_data_files`) replace the config and splits: not checked. */
  readonly files: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The recipe's data: `hf_path` (SFT, DPO) or `dataset_name` (RL, else the row's built-in `openai/gsm8k`), the config
 * (`hf_name`; RL `hf_subset`, rl.yml l.245 default `main`), the splits (`train_split`, `hf_eval_split`, `eval_split`;
 * RL defaults `train` and `test`, rl.yml l.243-244; other methods' splits only as the recipe names them), the columns.
 */
export function dataUseOf(recipe: Recipe): DataUse | undefined {
  const args = recipe.train.args as Record<string, unknown>;
  // RL's data path (train_rl.py get_dataset: dataset_name, hf_subset, train_split/eval_split with rl.yml's defaults) is
  // the row whose dataset template and processor files apply; the others read hf_path, hf_name, train_split, hf_eval_split.
  const rl = rowOf(recipe).datasetFiles;
  const repo = str(args['hf_path']) ?? str(args['dataset_name']) ?? rowOf(recipe).builtInDataset;
  if (repo === undefined) return undefined;
  const splits: Array<{ key: string; split: string }> = [];
  const train = str(args['train_split']) ?? (rl ? 'train' : undefined);
  if (train) splits.push({ key: 'train_split', split: train });
  const evalKey = rl ? 'eval_split' : 'hf_eval_split';
  const evalSplit = str(args[evalKey]) ?? (rl ? 'test' : undefined);
  if (evalSplit) splits.push({ key: evalKey, split: evalSplit });
  const columns = Array.isArray(args['train_data_columns']) ? (args['train_data_columns'] as unknown[]).filter((c): c is string => typeof c === 'string') : undefined;
  return {
    repo,
    revision: recipe.lineage?.dataset?.hf === repo ? recipe.lineage.dataset.revision : undefined,
    config: str(args['hf_name']) ?? str(args['hf_subset']) ?? (rl ? 'main' : undefined),
    splits,
    ...(columns ? { columns } : {}),
    files: ['hf_train_files', 'hf_data_files', 'hf_eval_files'].some((k) => str(args[k]) !== undefined),
  };
}

/** Every image a recipe's steps name (before the lock): its MaxText image, and the Pathways images when it runs on Pathways. */
export function recipeImages(recipe: Recipe): string[] {
  return [recipe.image, ...(recipe.runtime === 'pathways' ? [recipe.pathways?.proxyImage ?? PATHWAYS_IMAGES.proxy, recipe.pathways?.serverImage ?? PATHWAYS_IMAGES.server] : [])];
}

/** What the lock must hold for a recipe: its images (and the program's), its model and dataset keys. */
export function lockTargetsOf(recipe: Recipe): { images: string[]; models: string[]; datasets: string[] } {
  const data = dataUseOf(recipe);
  return {
    images: [...new Set([...recipeImages(recipe), ...PROGRAM_IMAGES])],
    models: [hubKey(recipe.model.hfRepo, recipe.model.hfRevision)],
    datasets: data ? [hubKey(data.repo, data.revision)] : [],
  };
}

export interface LockApplied {
  readonly recipe: Recipe;
  /** Refusals (a split or config the dataset lacks, a model that is not its row's; with requireLock, what is unlocked). */
  readonly problems: readonly string[];
  /** The model and dataset the lock lacks, when it is not required (images: lockImageProblems, after the build). */
  readonly unlocked: readonly string[];
}

/** Every image a built pipeline's pods pull: its JobSets', the serve stack's and the lost-host watcher's. */
export function pipelineImages(p: Pick<Pipeline, 'images' | 'serve' | 'steps' | 'recipe'>): string[] {
  const watcher = p.steps.some(watchesLostHost) ? [p.recipe.imagePins?.[LOST_HOST.image] ?? LOST_HOST.image] : [];
  return [...new Set([...p.images, ...(p.serve ? [p.serve.image] : []), ...watcher])];
}

/** The images of a built pipeline not pinned by digest: each unlocked (a note), or with requireLock a problem. */
export function lockImageProblems(p: Pick<Pipeline, 'images' | 'serve' | 'steps' | 'recipe'>, o: { lockFile: string; requireLock: boolean; requireSource: string }): { problems: string[]; unlocked: string[] } {
  const tags = pipelineImages(p).filter((i) => !i.includes('@sha256:'));
  if (!o.requireLock) return { problems: [], unlocked: tags.map((i) => `image ${i}`) };
  return { problems: tags.map((i) => `${o.requireSource}: image ${i} is not in ${o.lockFile} (it would be pulled by tag); run \`${LOCK_COMMAND}\` where the registries and the Hub answer, and commit the lock`), unlocked: [] };
}

/** Why the locked dataset does not hold what the recipe loads, each naming the MaxText key and what it has. */
function datasetProblems(data: DataUse, locked: LockedDataset, key: string, source: string, method: { kind: string; rlData: boolean; row: MethodRow }, processor: boolean): string[] {
  if (data.files) return [];
  const names = Object.keys(locked.configs);
  const configName = data.config ?? (names.length === 1 ? names[0]! : 'default');
  const config = locked.configs[configName];
  if (!config) {
    return [`${source}: dataset ${data.repo} has no config '${configName}' at ${locked.commit.slice(0, 7)} (the lock's ${key}: ${names.join(', ')}); set dataset.config to one of them`];
  }
  const out: string[] = [];
  for (const s of data.splits) {
    if (!config.splits.includes(s.split)) out.push(`${source}: dataset ${data.repo} config '${configName}' has no split '${s.split}' (${s.key}; the lock's ${key} has ${config.splits.join(', ')}); set dataset.${s.key === 'train_split' ? 'split' : 'evalSplit'} to one of them`);
  }
  const known = Object.keys(config.columns);
  if (known.length === 0) return out;
  for (const column of data.columns ?? []) {
    const type = config.columns[column];
    if (type === undefined) out.push(`${source}: dataset ${data.repo} config '${configName}' has no column '${column}' (train_data_columns; it has ${known.join(', ')}); set dataset.columns`);
    else if (type === 'number' || type === 'other') out.push(`${source}: column '${column}' of ${data.repo} holds ${type === 'number' ? 'numbers' : 'neither text nor {role, content} messages'}; ${method.kind.toUpperCase()} trains on text or message columns`);
  }
  // The layouts the method's data path rejects (jobs/methods: SFT plain prompt/completion, DPO message columns), read
  // from the lock's column types as from dataset.columnTypes.
  const columns = (data.columns ?? []).filter((c) => config.columns[c] !== undefined);
  const layout = columns.length > 0 ? method.row.columnTypesProblem(columns, config.columns, `${source}.dataset`) : undefined;
  if (layout) out.push(`${layout} (column types as the lock's ${key} holds them)`);
  if (method.rlData && !processor) {
    const question = ['problem', 'prompt', 'question'].find((c) => config.columns[c] !== undefined);
    const answer = ['answer', 'solution', 'expected_answer'].find((c) => config.columns[c] !== undefined);
    if (!question || !answer) {
      out.push(`${source}: MaxText's built-in process_data (rl/utils_rl.py) reads a problem|prompt|question and an answer|solution|expected_answer column; ${data.repo} config '${configName}' has ${known.join(', ')}: add dataset.processor`);
    }
  }
  return out;
}

/** Why the locked config.json is not the model-table row's (architectures, layers, hidden size, KV heads). */
function modelProblems(recipe: Recipe, config: Lock['models'][string]['config'], key: string, source: string): string[] {
  const row = modelRow(recipe.model.name);
  if (!row) return [];
  const differ: string[] = [];
  if (config.architectures.length > 0 && !config.architectures.some((a) => row.hfArchitectures.includes(a))) differ.push(`architectures ${config.architectures.join(', ')} where ${recipe.model.name} converts ${row.hfArchitectures.join(', ')}`);
  if (config.num_hidden_layers !== undefined && config.num_hidden_layers !== row.layers) differ.push(`${config.num_hidden_layers} layers where ${recipe.model.name} has ${row.layers}`);
  if (config.hidden_size !== undefined && config.hidden_size !== row.hidden) differ.push(`hidden size ${config.hidden_size} where ${recipe.model.name} has ${row.hidden}`);
  if (config.num_key_value_heads !== undefined && config.num_key_value_heads !== row.kvHeads) differ.push(`${config.num_key_value_heads} KV heads where ${recipe.model.name} has ${row.kvHeads}`);
  return differ.length > 0 ? [`${source}: ${recipe.model.hfRepo}'s config.json (the lock's ${key}) has ${differ.join(', ')}: it is not a ${recipe.model.name} checkpoint; set model to the key that fits, or hfModel to a ${recipe.model.name} repository`] : [];
}

/**
 * The recipe with the lock applied (images pinned, revisions locked) and the locked facts checked; `source` prefixes
 * every message (`config/example.json: pipelines.rl-qwen3`), `lockFile` names the lock.
 */
export function applyLock(recipe: Recipe, lock: Lock | undefined, o: { source: string; lockFile: string; requireLock: boolean; requireSource: string }): LockApplied {
  const problems: string[] = [];
  const unlocked: string[] = [];
  const missing = (what: string, why: string) => {
    if (o.requireLock) problems.push(`${o.requireSource}: ${what} is not in ${o.lockFile} (${why}); run \`${LOCK_COMMAND}\` where the registries and the Hub answer, and commit the lock`);
    else unlocked.push(what);
  };
  const images = [...new Set([...recipeImages(recipe), VLLM_TPU_IMAGE, LOST_HOST.image])];
  const imagePins = Object.fromEntries(images.filter((i) => lock?.images[i]).map((i) => [i, pinnedImage(i, lock)]));
  const modelKey = hubKey(recipe.model.hfRepo, recipe.model.hfRevision);
  const model = lock?.models[modelKey];
  if (!model) missing(`model ${modelKey}`, 'its commit and config would be resolved at run time');
  else problems.push(...modelProblems(recipe, model.config, modelKey, o.source));
  const data = dataUseOf(recipe);
  const dataKey = data ? hubKey(data.repo, data.revision) : undefined;
  const dataset = dataKey ? lock?.datasets[dataKey] : undefined;
  if (data && !dataset) missing(`dataset ${dataKey}`, 'its config, splits and columns are not checked');
  if (data && dataset) problems.push(...datasetProblems(data, dataset, dataKey!, o.source, { kind: recipe.train.kind, rlData: rowOf(recipe).datasetFiles, row: rowOf(recipe) }, str((recipe.train.args as Record<string, unknown>)['dataset_processor_path']) !== undefined));
  const lineageData = recipe.lineage?.dataset;
  const out: Recipe = {
    ...recipe,
    image: pinnedImage(recipe.image, lock),
    ...(recipe.runtime === 'pathways'
      ? { pathways: { ...recipe.pathways!, proxyImage: pinnedImage(recipe.pathways?.proxyImage ?? PATHWAYS_IMAGES.proxy, lock), serverImage: pinnedImage(recipe.pathways?.serverImage ?? PATHWAYS_IMAGES.server, lock) } }
      : {}),
    ...(Object.keys(imagePins).length > 0 ? { imagePins } : {}),
    ...(model ? { model: { ...recipe.model, hfRevision: model.commit }, lockedModel: { key: modelKey, commit: model.commit, tokenizer: model.tokenizer } } : {}),
    ...(dataset && lineageData && lineageData.hf === data!.repo ? { lineage: { ...recipe.lineage, dataset: { ...lineageData, revision: dataset.commit } } } : {}),
  };
  return { recipe: out, problems, unlocked };
}

/** The one note of what the lock lacks (none when all is locked). */
export function unlockedNote(unlocked: readonly string[], lockFile: string, hasLock: boolean): string | undefined {
  const all = [...new Set(unlocked)].sort();
  if (all.length === 0) return undefined;
  return (
    `${hasLock ? `${lockFile} lacks` : `no ${lockFile}, so unlocked:`} ${all.join(', ')}: images are pulled by tag (a moved tag is not ` +
    `detected), revisions are resolved at run time, dataset splits and columns are not checked; run \`${LOCK_COMMAND}\` where the ` +
    `registries and the Hub answer (requireLock: true refuses an unlocked fact)`
  );
}
