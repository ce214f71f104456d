/**
 * Per-pipeline options from config (`pipelines.<name>` in the file, CLOUD_IMAGE_NAME / RUN_ID from env).
 */
import { buildPipeline, checkRunOutputs, DEFAULT_RUN_ID, Pipeline, PipelineOptions } from '../jobs/pipeline';
import { findTpuGroup, Platform } from '../jobs/platform';
import { RECIPES } from '../jobs/recipes';
import type { Recipe } from '../jobs/recipes/types';
import { sliceShapeName, tpuSlice, TpuSlice } from '../jobs/tpu';
import { ConfigError, LoadedConfig, sourceOf } from './load';
import { platformFromConfig } from './platform';
import { SINGLE_HOST_SLICE } from './schema';

function checkNames(loaded: LoadedConfig, knownNames: readonly string[]): void {
  const unknown = Object.keys(loaded.config.pipelines).filter((key) => !knownNames.includes(key));
  if (unknown.length > 0) {
    throw new ConfigError(
      unknown.map((key) => `${sourceOf(loaded, `pipelines.${key}`)}: no recipe named '${key}'; recipes: ${knownNames.join(', ')}`),
    );
  }
}

/** The pipelines to build, and one notice per pipeline left out because infra lacks its slice. */
export interface PipelineSelection {
  readonly names: readonly string[];
  readonly notices: readonly string[];
}

/** The variables that give infra a slice shape, for the "left out" notice and the error. */
function howToAdd(slice: TpuSlice): string {
  if (slice.machineType === SINGLE_HOST_SLICE.machineType && slice.topology === SINGLE_HOST_SLICE.topology) {
    return 'SINGLE_HOST_RESERVATION=<v6e-8 reservation> (or SINGLE_HOST_CAPACITY=spot|flex-start) adds it next to the main slices';
  }
  return `COMPUTE_TYPE=${slice.machineType} TOPOLOGY=${slice.topology} (TPU_TYPE=${slice.acceleratorType}) with its RESERVATION makes it the main slice shape`;
}

/**
 * Which pipelines to build against `platform`. A pipeline runs only on a slice shape infra has: one that was merely
 * enabled by default is left out with one notice saying why and which variables add the shape; one that was asked
 * for (named in PIPELINES, or `enabled: true` in the file) is an error. Unknown `pipelines.<key>` are errors too.
 */
export function selectPipelines(loaded: LoadedConfig, recipes: Readonly<Record<string, Recipe>>, platform: Platform): PipelineSelection {
  const knownNames = Object.keys(recipes);
  checkNames(loaded, knownNames);
  const names: string[] = [];
  const notices: string[] = [];
  const problems: string[] = [];
  const have = platform.tpuGroups.map((g) => `${g.slice.machineType} ${g.slice.topology}`).join(', ') || 'no TPU slices';
  for (const name of knownNames) {
    const entry = loaded.config.pipelines[name];
    const enabled = loaded.pipelinesSelected ? entry?.enabled === true : entry?.enabled ?? true;
    if (!enabled) continue;
    const machineType = entry?.machineType ?? recipes[name].slice.machineType;
    const topology = entry?.topology ?? recipes[name].slice.topology;
    if (findTpuGroup(platform, machineType, topology)) {
      names.push(name);
      continue;
    }
    const slice = tpuSlice(machineType, topology, `${sourceOf(loaded, `pipelines.${name}`)}: topology`);
    const why = `${name} trains on ${machineType} ${topology} (${sliceShapeName(slice)}), infra has ${have}`;
    if (loaded.pipelinesSelected || entry?.enabled === true) {
      problems.push(`${sourceOf(loaded, `pipelines.${name}.enabled`)}: ${why}; ${howToAdd(slice)}, or leave ${name} out`);
    } else {
      notices.push(`${name} left out: ${why}; ${howToAdd(slice)}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
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
    image: entry.image,
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
): { pipelines: Pipeline[]; notices: string[] } {
  const selection = selectPipelines(loaded, RECIPES, platform);
  const pipelines = selection.names.map((name) => buildPipeline(RECIPES[name], platform, pipelineOptions(loaded, name)));
  // No pipeline may write into another's training run or export.
  checkRunOutputs(pipelines);
  return { pipelines, notices: [...selection.notices, ...pipelines.flatMap((p) => p.notices)] };
}

/** The selected pipelines alone (selectAndBuildPipelines without the notices; the deployment holds both). */
export function buildPipelines(loaded: LoadedConfig, platform: Platform = platformFromConfig(loaded)): Pipeline[] {
  return selectAndBuildPipelines(loaded, platform).pipelines;
}
