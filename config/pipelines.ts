/**
 * The pipelines of the config: the presets (the four tutorials, jobs/recipes) and every `pipelines.<name>` entry,
 * resolved into recipes (jobs/spec.ts), selected against the platform and built. The reward file is read here
 * (config/ is the only layer that reads files). Every problem of every pipeline is collected into one ConfigError.
 */
import * as fs from 'fs';
import * as path from 'path';
import { applyLock, lockImageProblems, unlockedNote } from '../jobs/lock-apply';
import { pinnedImage } from '../jobs/lock';
import { buildPipeline, checkRunOutputs, DEFAULT_RUN_ID, Pipeline, PipelineOptions } from '../jobs/pipeline';
import { pipelineNameProblem } from '../jobs/names';
import { findTpuGroup, Platform } from '../jobs/platform';
import { CONFIGMAP_MAX_BYTES } from '../jobs/recipe-files';
import { RECIPES } from '../jobs/recipes';
import { asRehearsal, rehearsalName, rehearsalOf, rehearsalProof } from '../jobs/rehearsal';
import { imageMaxTextVersion } from '../jobs/recipes/common';
import { LM_EVAL_VERSION } from '../jobs/eval';
import { SERVE_STACK_PREFIX, serveNames } from '../jobs/serve';
import type { Recipe } from '../jobs/recipes/types';
import { didYouMean, isPlainEntry, PipelineSpec, resolveSpec, SpecFile } from '../jobs/spec';
import { sha256Of } from '../jobs/spec-key';
import { sliceShapeName, tpuSlice, TpuSlice } from '../jobs/tpu';
import { ConfigError, LoadedConfig, REHEARSE_SOURCE, SERVE_SOURCE, sourceOf } from './load';
import { parsePython } from './python';
import { platformFromConfig } from './platform';
import { PipelineConfig, SINGLE_HOST_SLICE } from './schema';

/** The message for an entry that names no preset and defines no pipeline. */
function unknownName(loaded: LoadedConfig, key: string, knownNames: readonly string[]): string {
  return (
    `${sourceOf(loaded, `pipelines.${key}`)}: no preset named '${key}'${didYouMean(key, knownNames)}; presets: ${knownNames.join(', ')}; ` +
    'a new pipeline sets method, model, hfModel and dataset (docs/pipelines.md "Your own pipeline")'
  );
}

function checkNames(loaded: LoadedConfig, knownNames: readonly string[]): void {
  const unknown = Object.keys(loaded.config.pipelines).filter((key) => !knownNames.includes(key));
  if (unknown.length > 0) throw new ConfigError(unknown.map((key) => unknownName(loaded, key, knownNames)));
}

/** What a repository file shipped to the pods must be, by what it is for (MaxText reads a `.py` by import, a template as JSON). */
const FILE_KINDS = {
  reward: { ext: '.py', why: 'a Python file (.py): MaxText imports it (train_rl.py build_reward_fns)' },
  processor: { ext: '.py', why: "a Python file (.py): MaxText imports its process_data (rl/utils_rl.py load_custom_callable)" },
  template: { ext: '.json', why: 'a JSON file (.json): MaxText reads only .json templates (input_pipeline/instruction_data_processing.py load_data_template_from_file)' },
} as const;

/**
 * Reads a file of the user's repository for a pipeline (a reward file, a dataset template or processor): relative to the
 * repository root, inside it (symbolic links resolved), of its kind's extension, at most a ConfigMap's size, UTF-8 (its
 * text kept byte for byte, a BOM included); a `.py` file also read by Python's parser (config/python.ts). Says why not
 * instead of throwing.
 */
export function readRepoFile(repoRoot: string, written: string, kind: keyof typeof FILE_KINDS = 'reward'): SpecFile {
  const name = path.basename(written);
  const fail = (problem: string): SpecFile => ({ path: written, name, problem });
  if (path.isAbsolute(written)) return fail(`is an absolute path; name a file inside this repository (${repoRoot}), relative to its root`);
  const absolute = path.resolve(repoRoot, written);
  const inside = (p: string, root: string) => p === root || p.startsWith(root + path.sep);
  if (!inside(absolute, repoRoot)) return fail(`is outside the repository (${repoRoot}); the pods get files of this repository only`);
  if (path.extname(written) !== FILE_KINDS[kind].ext) return fail(`must be ${FILE_KINDS[kind].why}`);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(absolute);
  } catch {
    return fail('not found in the repository');
  }
  if (!stat.isFile()) return fail('is not a regular file');
  let real: string;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    return fail('cannot be resolved');
  }
  if (!inside(real, fs.realpathSync(repoRoot))) return fail(`is a link to ${real}, outside the repository`);
  if (stat.size > CONFIGMAP_MAX_BYTES) {
    return fail(`is ${stat.size} bytes; a ConfigMap holds at most ${CONFIGMAP_MAX_BYTES} (1 MiB): move data the reward loads into the bucket`);
  }
  const bytes = fs.readFileSync(absolute);
  let content: string;
  try {
    // ignoreBOM keeps a leading BOM in the text, so its UTF-8 (what the ConfigMap ships, jobs/recipe-files.ts) is the file.
    content = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return fail(FILE_KINDS[kind].ext === '.py' ? 'is not UTF-8 text (Python 3 reads source as UTF-8, PEP 3120); save it as UTF-8' : 'is not UTF-8 text; save it as UTF-8');
  }
  const sha256 = sha256Of(content);
  if (FILE_KINDS[kind].ext !== '.py') return { path: written, name, content, sha256 };
  const python = parsePython(bytes, sha256);
  if ('problem' in python) return fail(python.problem);
  return { path: written, name, content, sha256, python };
}

/** The pipeline fields of an entry, with the reward file read. */
function specOf(loaded: LoadedConfig, name: string, entry: PipelineConfig | undefined): PipelineSpec {
  const e = entry ?? ({} as Partial<PipelineConfig>);
  const reward = e.reward === undefined ? undefined : typeof e.reward === 'string' ? { file: e.reward } : e.reward;
  return {
    name,
    source: `${loaded.file}: pipelines.${name}`,
    extends: e.extends,
    method: e.method,
    model: e.model,
    hfModel: e.hfModel,
    hfRevision: e.hfRevision,
    hfArchitecture: e.hfArchitecture,
    tokenizer: e.tokenizer,
    dataset: e.dataset,
    reward: reward && { file: readRepoFile(loaded.repoRoot, reward.file), functions: 'functions' in reward ? reward.functions : undefined },
    datasetFiles: {
      ...(e.dataset?.template !== undefined ? { template: readRepoFile(loaded.repoRoot, e.dataset.template, 'template') } : {}),
      ...(e.dataset?.processor !== undefined ? { processor: readRepoFile(loaded.repoRoot, e.dataset.processor, 'processor') } : {}),
    },
    lora: e.lora,
    slice: e.slice,
    steps: e.steps,
    training: e.training,
    defaultSlice: { machineType: loaded.config.tpu.machineType, topology: loaded.config.tpu.topology },
  };
}

/** Every pipeline's recipe: the presets, then the file's new entries in file order; problems and notices by name. */
export function pipelineRecipes(loaded: LoadedConfig): {
  recipes: Record<string, Recipe>;
  problems: string[];
  notices: Record<string, string[]>;
} {
  const presetNames = Object.keys(RECIPES);
  const names = [...new Set([...presetNames, ...Object.keys(loaded.config.pipelines)])];
  const recipes: Record<string, Recipe> = {};
  const problems: string[] = [];
  const notices: Record<string, string[]> = {};
  for (const name of names) {
    const reserved = pipelineNameProblem(name);
    if (reserved) {
      problems.push(`${sourceOf(loaded, `pipelines.${name}`)}: ${reserved}`);
      continue;
    }
    const spec = specOf(loaded, name, loaded.config.pipelines[name]);
    if (!RECIPES[name] && isPlainEntry(spec)) {
      problems.push(unknownName(loaded, name, presetNames));
      continue;
    }
    const resolved = resolveSpec(spec, RECIPES);
    problems.push(...resolved.problems);
    notices[name] = [...resolved.notices];
    if (resolved.recipe) recipes[name] = resolved.recipe;
  }
  return { recipes, problems, notices };
}

/** The pipelines to build, and one notice per pipeline left out because infra lacks its slice. */
export interface PipelineSelection {
  readonly names: readonly string[];
  readonly notices: readonly string[];
}

/**
 * The variables that give infra a slice shape, for the "left out" notice and the error: a reservation of that shape
 * only where the main slices consume one (spot and flex-start need none).
 */
function howToAdd(slice: TpuSlice, capacity: string): string {
  if (slice.machineType === SINGLE_HOST_SLICE.machineType && slice.topology === SINGLE_HOST_SLICE.topology) {
    return 'SINGLE_HOST_RESERVATION=<v6e-8 reservation> (or SINGLE_HOST_CAPACITY=spot|flex-start) adds it next to the main slices';
  }
  const reservation = capacity === 'reservation' ? ' with its RESERVATION' : ` (${capacity} capacity: no reservation needed)`;
  return `COMPUTE_TYPE=${slice.machineType} TOPOLOGY=${slice.topology} (TPU_TYPE=${slice.acceleratorType})${reservation} makes it the main slice shape`;
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** On unless turned off; with PIPELINES, only the listed ones. */
function isEnabled(loaded: LoadedConfig, name: string): boolean {
  const entry = loaded.config.pipelines[name];
  return loaded.pipelinesSelected ? entry?.enabled === true : entry?.enabled ?? true;
}

/**
 * Which pipelines to build against `platform`. A pipeline runs only on a slice shape infra has: one that was merely
 * enabled by default is left out with one notice saying why and which variables add the shape; one that was asked
 * for (named in PIPELINES, or `enabled: true` in the file) is an error. Unknown `pipelines.<key>` are errors too.
 */
export function selectPipelines(
  loaded: LoadedConfig,
  recipes: Readonly<Record<string, Recipe>>,
  platform: Platform,
  failed: readonly string[] = [],
): PipelineSelection {
  const knownNames = Object.keys(recipes);
  checkNames(loaded, [...knownNames, ...failed]);
  const names: string[] = [];
  // Pipelines left out, by the slice shape they lack: one notice per shape, not per pipeline.
  const leftOut = new Map<string, { names: string[]; slice: TpuSlice }>();
  const problems: string[] = [];
  // The main slices' capacity (the first group, config/platform.ts): a reservation to name only where they consume one.
  const capacity = platform.tpuGroups[0]?.capacity.type ?? 'reservation';
  const have = platform.tpuGroups.map((g) => `${g.slice.machineType} ${g.slice.topology}`).join(', ') || 'no TPU slices';
  const servesNothing: string[] = [];
  for (const name of knownNames) {
    const entry = loaded.config.pipelines[name];
    if (!isEnabled(loaded, name)) {
      // A server of a pipeline that is not built has no export to serve: no serve stack, said once.
      if (entry?.serve?.enabled === true) {
        servesNothing.push(`${sourceOf(loaded, `pipelines.${name}.serve.enabled`)}: serve.enabled is set, but ${name} is disabled (${sourceOf(loaded, `pipelines.${name}.enabled`)}), so no serve-${name} stack is built`);
      }
      continue;
    }
    const machineType = entry?.machineType ?? recipes[name].slice.machineType;
    const topology = entry?.topology ?? recipes[name].slice.topology;
    if (findTpuGroup(platform, machineType, topology)) {
      names.push(name);
      continue;
    }
    const slice = tpuSlice(machineType, topology, `${sourceOf(loaded, `pipelines.${name}`)}: topology`);
    if (loaded.pipelinesSelected || entry?.enabled === true) {
      const why = `${name} trains on ${machineType} ${topology} (${sliceShapeName(slice)}), infra has ${have}`;
      problems.push(`${sourceOf(loaded, `pipelines.${name}.enabled`)}: ${why}; ${howToAdd(slice, capacity)}, or leave ${name} out`);
    } else {
      const shape = `${machineType} ${topology}`;
      leftOut.set(shape, { names: [...(leftOut.get(shape)?.names ?? []), name], slice });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const notices = [...leftOut.entries()].map(([shape, { names: out, slice }]) => {
    const trains = out.length === 1 ? `${out[0]} trains` : `they train`;
    return `${listed(out)} left out: ${trains} on ${shape} (${sliceShapeName(slice)}), infra has ${have}; ${howToAdd(slice, capacity)}`;
  });
  notices.push(...servesNothing);
  return { names, notices };
}

/** Options for the pipeline `name` (names were checked by `selectPipelines`). */
export function pipelineOptions(loaded: LoadedConfig, name: string): PipelineOptions {
  const entry = loaded.config.pipelines[name];
  const configSource = `${loaded.file}: pipelines.${name}`;
  if (!entry) return { runId: DEFAULT_RUN_ID, configSource };
  return {
    runId: entry.runId,
    runIdSource: sourceOf(loaded, `pipelines.${name}.runId`),
    image: entry.image !== undefined ? pinnedImage(entry.image, loaded.lock?.lock) : undefined,
    imageSource: sourceOf(loaded, `pipelines.${name}.image`),
    conversionOn: entry.conversionOn,
    timeoutMinutes: entry.timeoutMinutes,
    queueMinutes: entry.queueMinutes,
    maxRestarts: entry.maxRestarts,
    resumeRun: entry.resumeRun,
    machineType: entry.machineType,
    topology: entry.topology,
    overrides: entry.overrides,
    ...(entry.eval ? { eval: { ...entry.eval, enabledSource: sourceOf(loaded, `pipelines.${name}.eval.enabled`) } } : {}),
    ...(entry.serve ? { serve: entry.serve } : {}),
    configSource,
  };
}

/**
 * Every selected pipeline (selectPipelines), built (and validated against the platform) from the config, with the
 * notices for the user: pipelines left out, tight HBM fits. Throws before anything is built elsewhere when a config
 * value or recipe is invalid.
 */
export function selectAndBuildPipelines(
  loaded: LoadedConfig,
  platform: Platform = platformFromConfig(loaded),
): { pipelines: Pipeline[]; notices: string[]; lockNote?: string } {
  const { recipes: given, problems, notices: specNotices } = pipelineRecipes(loaded);
  const locked = lockedRecipes(loaded, given);
  const recipes = locked.recipes;
  problems.push(...locked.problems);
  const collect = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.issues);
      else problems.push(...(err as Error).message.split('\n'));
    }
  };
  let selection: PipelineSelection = { names: [], notices: [] };
  // Entries whose recipe has problems are not selected (their problems are already listed).
  const valid = recipes;
  collect(() => {
    selection = selectPipelines(loaded, valid, platform, Object.keys(loaded.config.pipelines).filter((n) => !recipes[n]));
  });
  // A serve stack asked for by name (SERVE, `npm run deploy -- serve-<name>`) needs its pipeline built here.
  for (const name of Object.keys(loaded.config.pipelines)) {
    if (loaded.sources[`pipelines.${name}.serve.enabled`] !== SERVE_SOURCE || !recipes[name] || selection.names.includes(name)) continue;
    const why = isEnabled(loaded, name)
      ? `it is left out: infra has no slice of its shape (the note above says which variables add it)`
      : `${sourceOf(loaded, `pipelines.${name}.enabled`)} turns it off`;
    problems.push(`${SERVE_SOURCE}: ${serveNames(name).stack} serves the export of ${name}, which this config does not build: ${why}`);
  }
  const pipelines: Pipeline[] = [];
  // Each pipeline's rehearsal, built once: for its proof (withRehearsalCheck) and, when REHEARSE asks, as a stack.
  const rehearsals = new Map<string, Pipeline>();
  for (const name of selection.names) collect(() => void pipelines.push(withRehearsalCheck(loaded, name, recipes[name], platform, buildPipeline(recipes[name], platform, pipelineOptions(loaded, name)), rehearsals)));
  // Rehearsals asked for by REHEARSE (`npm run deploy -- rehearse-<name>`): each a pipeline built from its own's recipe.
  for (const name of loaded.rehearse ?? []) {
    const why = rehearsalRefusal(loaded, name, recipes, selection.names);
    if (why) problems.push(why);
    else collect(() => void pipelines.push(buildRehearsal(loaded, name, recipes[name], platform, rehearsals.get(name))));
  }
  // The images every built pipeline pulls: pinned by the lock, else a note (with requireLock, a problem).
  const imageUnlocked = lockedImages(loaded, pipelines, problems);
  // No pipeline may write into another's training run or export.
  if (problems.length === 0) collect(() => checkRunOutputs(pipelines));
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    pipelines,
    ...lockNote(loaded, [...selection.names.flatMap((n) => locked.unlocked[n] ?? []), ...imageUnlocked]),
    notices: [...selection.notices, ...selection.names.flatMap((n) => specNotices[n] ?? []), ...pipelines.flatMap((p) => p.notices)],
  };
}

/** Each recipe with the lock applied (jobs/lock-apply.ts): pinned images, locked revisions, the locked facts' problems. */
function lockedRecipes(loaded: LoadedConfig, given: Record<string, Recipe>): { recipes: Record<string, Recipe>; problems: string[]; unlocked: Record<string, readonly string[]> } {
  if (!loaded.lock) return { recipes: given, problems: [], unlocked: {} };
  const requireLock = loaded.config.requireLock;
  const requireSource = sourceOf(loaded, 'requireLock');
  const recipes: Record<string, Recipe> = {};
  const problems: string[] = [];
  const unlocked: Record<string, readonly string[]> = {};
  for (const [name, recipe] of Object.entries(given)) {
    const image = loaded.config.pipelines[name]?.image;
    const source = `${loaded.file}: pipelines.${name}`;
    // An image the config names is locked like the recipe's own.
    const withImage = image !== undefined ? { ...recipe, image } : recipe;
    const applied = applyLock(withImage, loaded.lock.lock, { source, lockFile: loaded.lock.file, requireLock: requireLock && isEnabled(loaded, name), requireSource: `${requireSource} (${name})` });
    recipes[name] = applied.recipe;
    problems.push(...applied.problems);
    unlocked[name] = applied.unlocked;
  }
  return { recipes, problems, unlocked };
}

/** The images of the built pipelines the lock does not pin: their names (a note), or problems with requireLock. */
function lockedImages(loaded: LoadedConfig, pipelines: readonly Pipeline[], problems: string[]): string[] {
  if (!loaded.lock) return [];
  return pipelines.flatMap((p) => {
    const r = lockImageProblems(p, { lockFile: loaded.lock!.file, requireLock: loaded.config.requireLock, requireSource: `${sourceOf(loaded, 'requireLock')} (${p.name})` });
    problems.push(...r.problems);
    return r.unlocked;
  });
}

/** The one note of what the lock lacks for the built pipelines. */
function lockNote(loaded: LoadedConfig, unlocked: readonly string[]): { lockNote?: string } {
  const note = loaded.lock ? unlockedNote(unlocked, loaded.lock.file, loaded.lock.lock !== undefined) : undefined;
  return note ? { lockNote: note } : {};
}

/** Why `rehearse-<name>` cannot be built: a serve stack, a pipeline the config does not have or does not build. */
function rehearsalRefusal(loaded: LoadedConfig, name: string, recipes: Record<string, Recipe>, built: readonly string[]): string | undefined {
  const stack = rehearsalName(name);
  if (name.startsWith(SERVE_STACK_PREFIX) && !recipes[name]) {
    return `${REHEARSE_SOURCE}: ${stack} names the serve stack '${name}': a serve stack has no training to rehearse; rehearse its pipeline (rehearse-${name.slice(SERVE_STACK_PREFIX.length)})`;
  }
  if (!recipes[name]) {
    const known = Object.keys(recipes);
    return `${REHEARSE_SOURCE}: ${stack}: no pipeline named '${name}'${didYouMean(name, known)}; pipelines: ${known.join(', ')}`;
  }
  if (!built.includes(name)) {
    const why = isEnabled(loaded, name)
      ? 'it is left out: infra has no slice of its shape (the note above says which variables add it)'
      : `${sourceOf(loaded, `pipelines.${name}.enabled`)} turns it off`;
    return `${REHEARSE_SOURCE}: ${stack} rehearses ${name}, which this config does not build: ${why}`;
  }
  return undefined;
}

/**
 * The pipeline of `rehearse-<name>`: the rehearsal (jobs/rehearsal.ts) of the pipeline's recipe and options, built, or
 * `prebuilt` when withRehearsalCheck built it already (the source only names where a refusal comes from).
 */
function buildRehearsal(loaded: LoadedConfig, name: string, recipe: Recipe, platform: Platform, prebuilt?: Pipeline): Pipeline {
  const built = prebuilt ?? buildRehearsalPipeline(loaded, name, recipe, platform, `${REHEARSE_SOURCE} ${rehearsalName(name)}`);
  return asRehearsal(built, name, { ...(imageMaxTextVersion(built.image) ? { maxtext: imageMaxTextVersion(built.image) } : {}), lmEval: LM_EVAL_VERSION }, platform);
}

/** The rehearsal of `name` (jobs/rehearsal.ts rehearsalOf) built as a pipeline; a refusal names `source`. */
function buildRehearsalPipeline(loaded: LoadedConfig, name: string, recipe: Recipe, platform: Platform, source: string): Pipeline {
  const r = rehearsalOf(recipe, pipelineOptions(loaded, name), platform, source);
  return buildPipeline(r.recipe, platform, r.options);
}

/**
 * Every pipeline's plan says whether a passing rehearsal of exactly its combination exists (constructs/rehearsal-check.ts):
 * the pipeline carries its rehearsal's proof, from its rehearsal built here (the same code as `rehearse-<name>`), and
 * with `requireRehearsal: true` the plan fails without it. A pipeline that cannot be rehearsed on this infra says why
 * in its `rehearsal` output; one that requires a rehearsal is then refused.
 */
function withRehearsalCheck(loaded: LoadedConfig, name: string, recipe: Recipe, platform: Platform, built: Pipeline, rehearsals: Map<string, Pipeline>): Pipeline {
  const required = loaded.config.pipelines[name]?.requireRehearsal === true;
  const source = required ? sourceOf(loaded, `pipelines.${name}.requireRehearsal`) : `pipelines.${name}`;
  let rehearsal: Pipeline;
  try {
    rehearsal = buildRehearsalPipeline(loaded, name, recipe, platform, source);
    rehearsals.set(name, rehearsal);
  } catch (err) {
    if (required) throw new ConfigError([`${source}: ${name} requires a passing rehearsal, and it cannot be rehearsed on this infra: ${(err as Error).message}`]);
    return { ...built, rehearsalCheck: { unavailable: (err as Error).message } };
  }
  return { ...built, rehearsalCheck: { proof: rehearsalProof(rehearsal, name, platform.bucket), required } };
}

/** The selected pipelines alone (selectAndBuildPipelines without the notices; the deployment holds both). */
export function buildPipelines(loaded: LoadedConfig, platform: Platform = platformFromConfig(loaded)): Pipeline[] {
  return selectAndBuildPipelines(loaded, platform).pipelines;
}
