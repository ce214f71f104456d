/**
 * The cluster record of a pipeline stack: one ConfigMap per pipeline (`<pipeline>-record` in the pipelines'
 * namespace) that holds what the stack deployed, so `npm run status` and `npm run logs` learn it from the cluster
 * itself, whatever config a shell has (a new shell without the deploy's exports reads config/example.json):
 * the step names, JobSet names and main-pod labels, the run name and run id, every bucket path, the export path, the
 * images per container with the key that sets each, and the deployment's hash (the last step's spec hash, which
 * chains every step's manifest: jobs/pipeline.ts `specHash`).
 *
 * Status works on `PipelineRecord` alone, built from the cluster's ConfigMap or, before one exists, from the local
 * config (`pipelineRecord`): both are the same shape, and comparing their hashes says when the local config
 * disagrees with what is deployed. Pure; no cdktf.
 */
import { lastCheckpointStep } from './maxtext';
import { findTpuGroup, Platform } from './platform';
import type { Pipeline, PipelineStep } from './pipeline';
import { PATHWAYS_IMAGES } from './jobset';
import type { CapacityType } from './capacity';
import { lineageLine } from './lineage';
import type { TrainKind } from './methods';
import type { RehearsalFacts } from './rehearsal';

/** Version of the record's shape; a record of another version is read as "not understood" (status says so). */
export const RECORD_VERSION = 1;
/** Label that marks a record ConfigMap (value `"true"`), next to the pipeline's own labels. */
export const RECORD_LABEL = 'tpu-post-training/record';
/** The ConfigMap key that holds the record as JSON. */
export const RECORD_KEY = 'record.json';

/** Name of a pipeline's record ConfigMap: `<pipeline>-record`. */
export function recordName(pipeline: string): string {
  return `${pipeline}-record`;
}

/** Who sets a container's image: the config key (or variable) a user changes, or the code that fixes it. */
export interface ImageSource {
  readonly image: string;
  /** `pipelines.rl-qwen3.image (or CLOUD_IMAGE_NAME)`, `jobs/jobset.ts PATHWAYS_IMAGES.proxy (code, ...)`. */
  readonly setBy: string;
  /** What a change of it does, one clause: `starts a new run (the run name carries the image)`. @default - nothing to add */
  readonly effect?: string;
}

export interface RecordedStep {
  readonly name: string;
  readonly jobSetName: string;
  readonly namespace: string;
  /** Labels of the step's main pod (job 0, completion index 0 of the main replicated job). */
  readonly mainPodSelector: Readonly<Record<string, string>>;
  /** How long the deploy waits for the JobSet to end (`timeouts.create`), minutes. */
  readonly waitMinutes: number;
  /** TPU chips the step holds when admitted (slice chips x slices). @default - a CPU step */
  readonly tpuChips?: number;
  /** The accelerator type and capacity of the step's own pool (the eval step's single-host pool differs from training's). @default - a CPU step */
  readonly tpuPool?: { readonly acceleratorType: string; readonly capacity: CapacityType | 'on-demand' };
  /** Steps a training step runs to (progress total). @default - not a training step */
  readonly totalSteps?: number;
  /** Where the step writes. @default - nothing the user reads */
  readonly output?: string;
  /** Image of every container of the step's pods, by container name, with who sets it. */
  readonly images: Readonly<Record<string, ImageSource>>;
  /** The step's spec hash (jobs/pipeline.ts). */
  readonly specHash: string;
  /** What the step made and from what, with its run record in the bucket (jobs/lineage.ts). @default - no run record */
  readonly lineage?: string;
  /** gs:// path of the step's run record (jobs/run-record.ts): status reads the commits it downloaded there. @default - none */
  readonly runRecord?: string;
}

/** What a pipeline stack deployed, as status reads it. */
export interface PipelineRecord {
  readonly version: typeof RECORD_VERSION;
  /** The pipeline (and stack) name. */
  readonly name: string;
  readonly runId: string;
  /** MaxText's run_name of training (the directory under `trained/`). */
  readonly runName: string;
  readonly project: string;
  readonly cluster: string;
  readonly namespace: string;
  /** `sft` or `rl`: which progress lines training logs (jobs/run-log.ts). */
  readonly trainKind: TrainKind;
  /** The TPU slice training runs on, and the capacity it is paid as. */
  readonly slice: { readonly acceleratorType: string; readonly machineType: string; readonly topology: string; readonly chips: number };
  readonly capacity: CapacityType | 'on-demand';
  /** The CPU machine type of the conversions, the export and the Pathways head (`cpu-np`). */
  readonly cpuMachineType: string;
  /** Every gs:// path of the pipeline (jobs/maxtext.ts PipelinePaths), by name. */
  readonly paths: Readonly<Record<string, string>>;
  /** Where the Hugging Face export lands. */
  readonly exportPath: string;
  readonly steps: readonly RecordedStep[];
  /** The last step's spec hash: equal hashes, equal deployed manifests. */
  readonly deploymentHash: string;
  /** A rehearsal's facts: the combination it proves (jobs/rehearsal.ts). @default - none: not a rehearsal */
  readonly rehearsal?: RehearsalFacts;
}

/** Where a step writes (the path the user reads once it completed). */
export function stepOutput(pipeline: Pipeline, step: PipelineStep): string | undefined {
  const outputs: Readonly<Record<string, string>> = {
    'to-maxtext': pipeline.paths.maxtextCheckpoint,
    train: pipeline.paths.trainedCheckpoint,
    'to-hf': pipeline.paths.hfExportDir,
    ...(pipeline.eval ? { eval: pipeline.eval.evalJson } : {}),
  };
  return outputs[step.name];
}

interface PodSpecLike {
  readonly containers?: ReadonlyArray<{ readonly name: string; readonly image?: string }>;
  readonly initContainers?: ReadonlyArray<{ readonly name: string; readonly image?: string }>;
}

/** Every container of a JobSet manifest's pod templates, with its image. */
export function containerImages(manifest: Record<string, unknown>): Array<{ name: string; image: string }> {
  const jobs = ((manifest.spec as { replicatedJobs?: unknown[] } | undefined)?.replicatedJobs ?? []) as Array<{
    template?: { spec?: { template?: { spec?: PodSpecLike } } };
  }>;
  return jobs.flatMap((rj) => {
    const pod = rj.template?.spec?.template?.spec ?? {};
    return [...(pod.initContainers ?? []), ...(pod.containers ?? [])].map((c) => ({ name: c.name, image: c.image ?? '' }));
  });
}

/**
 * Who sets the image of a container: the MaxText image is the pipeline's `image` (config key, or CLOUD_IMAGE_NAME);
 * the Pathways proxy, resource manager and workers run the images of jobs/jobset.ts PATHWAYS_IMAGES, which a recipe
 * may override (jobs/recipes/<pipeline>.ts `pathways.proxyImage` / `serverImage`); no config key sets them.
 */
export function imageSource(pipeline: Pipeline, container: string, image: string): ImageSource {
  if (container === 'pathways-proxy') {
    return { image, setBy: `code: jobs/jobset.ts PATHWAYS_IMAGES.proxy${image === PATHWAYS_IMAGES.proxy ? '' : `, overridden by jobs/recipes pathways.proxyImage of ${pipeline.recipe.name}`} (no config key)` };
  }
  if (container === 'pathways-rm' || container === 'pathways-worker') {
    return { image, setBy: `code: jobs/jobset.ts PATHWAYS_IMAGES.server${image === PATHWAYS_IMAGES.server ? '' : `, overridden by jobs/recipes pathways.serverImage of ${pipeline.recipe.name}`} (no config key)` };
  }
  return { image, setBy: `pipelines.${pipeline.name}.image (or CLOUD_IMAGE_NAME), the MaxText image`, effect: 'a new image trains a new run (the run name carries it)' };
}

/** The accelerator type and capacity of the pool a step's slice runs on. */
function poolOf(platform: Platform, slice: { readonly acceleratorType: string; readonly machineType: string; readonly topology: string }): NonNullable<RecordedStep['tpuPool']> {
  return { acceleratorType: slice.acceleratorType, capacity: findTpuGroup(platform, slice.machineType, slice.topology)?.capacity.type ?? 'on-demand' };
}

/** The record of one pipeline as the local config builds it (the pipeline stack writes this into the cluster). */
export function pipelineRecord(pipeline: Pipeline, platform: Platform): PipelineRecord {
  const group = findTpuGroup(platform, pipeline.slice.machineType, pipeline.slice.topology);
  const runName = pipeline.recipe.train.args['run_name'];
  const paths = Object.fromEntries(Object.entries(pipeline.paths).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const steps = pipeline.steps.map((step): RecordedStep => {
    const output = stepOutput(pipeline, step);
    const lineage = lineageLine(pipeline, step);
    return {
      name: step.name,
      jobSetName: step.jobSetName,
      namespace: step.namespace,
      mainPodSelector: { ...step.mainPodSelector },
      waitMinutes: step.waitMinutes,
      ...(step.tpu ? { tpuChips: step.tpu.slice.chips * step.tpu.slices, tpuPool: poolOf(platform, step.tpu.slice) } : {}),
      ...(step.name === 'train' ? { totalSteps: lastCheckpointStep(pipeline.recipe.train) } : {}),
      ...(output !== undefined ? { output } : {}),
      images: Object.fromEntries(containerImages(step.manifest).map((c) => [c.name, imageSource(pipeline, c.name, c.image)])),
      specHash: step.specHash,
      ...(lineage !== undefined ? { lineage } : {}),
      ...(pipeline.runRecords[step.name] ? { runRecord: pipeline.runRecords[step.name]!.path } : {}),
    };
  });
  return {
    version: RECORD_VERSION,
    name: pipeline.name,
    runId: pipeline.runId,
    runName: typeof runName === 'string' ? runName : '',
    project: platform.project,
    cluster: platform.clusterName,
    namespace: pipeline.namespace,
    trainKind: pipeline.recipe.train.kind,
    slice: { acceleratorType: pipeline.slice.acceleratorType, machineType: pipeline.slice.machineType, topology: pipeline.slice.topology, chips: pipeline.slice.chips },
    capacity: group?.capacity.type ?? 'on-demand',
    cpuMachineType: platform.cpuPool.machineType,
    paths,
    exportPath: pipeline.paths.hfExportDir,
    steps,
    deploymentHash: steps[steps.length - 1]?.specHash ?? '',
    ...(pipeline.rehearsal ? { rehearsal: pipeline.rehearsal } : {}),
  };
}

/** The record ConfigMap (one per pipeline stack), labelled like the pipeline's other objects. */
export function recordConfigMap(record: PipelineRecord, labels: Readonly<Record<string, string>>): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: recordName(record.name), namespace: record.namespace, labels: { ...labels, [RECORD_LABEL]: 'true' } },
    data: { [RECORD_KEY]: JSON.stringify(record) },
  };
}

/** Reads a record ConfigMap's data back, or says why it cannot (another version, not JSON, a missing field). */
export function parseRecord(data: Readonly<Record<string, string>> | undefined): PipelineRecord | string {
  const text = data?.[RECORD_KEY];
  if (text === undefined) return `no ${RECORD_KEY} key`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `${RECORD_KEY} is not JSON`;
  }
  const r = value as Partial<PipelineRecord> | null;
  if (!r || typeof r !== 'object') return `${RECORD_KEY} is not an object`;
  if (r.version !== RECORD_VERSION) return `record version ${JSON.stringify(r.version)}, this version reads ${RECORD_VERSION} (update this checkout)`;
  const missing = (['name', 'runId', 'namespace', 'trainKind', 'slice', 'paths', 'exportPath', 'steps', 'deploymentHash'] as const).filter((k) => r[k] === undefined);
  if (missing.length > 0 || !Array.isArray(r.steps)) return `the record lacks ${missing.join(', ') || 'steps'}`;
  return r as PipelineRecord;
}
