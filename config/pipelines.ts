/**
 * Per-pipeline options from config (`pipelines.<name>` in the file, CLOUD_IMAGE_NAME / RUN_ID from env).
 */
import { buildPipeline, checkRunOutputs, DEFAULT_RUN_ID, Pipeline, PipelineOptions } from '../jobs/pipeline';
import { Platform } from '../jobs/platform';
import { RECIPES } from '../jobs/recipes';
import { ConfigError, LoadedConfig, sourceOf } from './load';
import { platformFromConfig } from './platform';


/**
 * Names of the pipelines to synthesize: every recipe unless disabled (`enabled: false`, or PIPELINES). Throws
 * ConfigError for a `pipelines.<key>` that names no recipe (a typo would otherwise silently configure nothing).
 */
export function enabledPipelines(loaded: LoadedConfig, knownNames: readonly string[]): string[] {
  checkNames(loaded, knownNames);
  return knownNames.filter((name) => loaded.config.pipelines[name]?.enabled ?? true);
}

function checkNames(loaded: LoadedConfig, knownNames: readonly string[]): void {
  const unknown = Object.keys(loaded.config.pipelines).filter((key) => !knownNames.includes(key));
  if (unknown.length > 0) {
    throw new ConfigError(
      unknown.map((key) => `${sourceOf(loaded, `pipelines.${key}`)}: no recipe named '${key}'; recipes: ${knownNames.join(', ')}`),
    );
  }
}

/** Options for the pipeline `name` (names were checked by `enabledPipelines`). */
export function pipelineOptions(loaded: LoadedConfig, name: string): PipelineOptions {
  const entry = loaded.config.pipelines[name];
  const configSource = `${loaded.file}: pipelines.${name}`;
  if (!entry) return { runId: DEFAULT_RUN_ID, configSource };
  return {
    runId: entry.runId,
    image: entry.image,
    conversionOn: entry.conversionOn,
    timeoutMinutes: entry.timeoutMinutes,
    queueMinutes: entry.queueMinutes,
    maxRestarts: entry.maxRestarts,
    machineType: entry.machineType,
    topology: entry.topology,
    overrides: entry.overrides,
    configSource,
  };
}

/**
 * Every enabled pipeline, built (and validated against the platform) from the config: what the stacks deploy and
 * what `npm run status` looks for. Throws before anything is built elsewhere when a config value or recipe is invalid.
 */
export function buildPipelines(loaded: LoadedConfig, platform: Platform = platformFromConfig(loaded)): Pipeline[] {
  const pipelines = enabledPipelines(loaded, Object.keys(RECIPES)).map((name) => buildPipeline(RECIPES[name], platform, pipelineOptions(loaded, name)));
  // No pipeline may write into another's training run or export.
  checkRunOutputs(pipelines);
  return pipelines;
}
