/**
 * buildPipeline: recipe + platform + options -> the pipeline's Kubernetes objects in order
 * (`to-maxtext` -> `train` -> `to-hf`), their names, waits, logs commands and gs:// paths.
 * Pure and deterministic (no cdktf, no env): the same inputs give byte-identical manifests and hashes.
 */
import {
  BuiltJobSet,
  cpuPodJobSet,
  JOBSET_POD_LABELS,
  JobSetCommon,
  MAIN_CONTAINER,
  multiHostJaxJobSet,
  PATHWAYS_DEFAULTS,
  pathwaysHeadResources,
  pathwaysJobSet,
  PodCommon,
  QUEUE_LABEL,
  tpuVmEnv,
} from './jobset';
import {
  trainKey,
  checkpointPeriod,
  lastCheckpointStep,
  buildScript,
  CommandContext,
  onCpu as placeOnCpu,
  PipelinePaths,
  pipelinePaths,
  toHfInvocation,
  toHfPrelude,
  toMaxTextInvocation,
  trainInvocation,
  trainPrelude,
  runName,
  runNameProblem,
  conversionKey,
  shellQuote,
  isHfRepoId,
  MAXTEXT_SRC,
  trainTokenizer,
} from './maxtext';
import { EVAL_RUN_RECORD_FILE, evalRunRecord, recordFileLine, recordLine, runRecord, RunRecord, runRecordPath } from './run-record';
import { listingRevisionPatch, resolveRevisionLines, RevisionSource, tokenizerAtRevisionLines, TOKENIZER_DIR } from './hf-revision';
import { CapacityType, DEFAULT_TRAIN_MAX_RESTARTS } from './capacity';
import { sha256Of } from './spec-key';
import { cpuQuotaCoresPerNode, podsReadyRequeueMinutes } from './kueue';
import { parseMillicores } from './quantity';
import { checkJobSetNames, checkRunId, jobSetName, JobSetNameShape, PART_OF, PIPELINE_LABELS, runIdLimit } from './names';
import { Platform, TpuPoolGroup } from './platform';
import { imagesIn } from './image-ref';
import { vllmImage } from './vllm';
import { imageMaxTextVersion } from './recipes/common';
import { ContainerResources, JsonValue, MaxTextArgs, Recipe, RECIPE_STEP_NAMES, RecipeStepName, StepName } from './recipes/types';
import { buildFilesConfigMap, CONFIGMAP_MAX_BYTES, configMapBytes, filesVolume } from './recipe-files';
import { evalDataset, evalJobSet, EvalPlan, EXPORT_MOUNT, planEval } from './eval';
import { planServe, ServePlan } from './serve';
import type { RehearsalCheckPlan, RehearsalFacts } from './rehearsal';
import type { VerdictWriter } from './rehearsal-record';
import { buildSecretProviderClass } from './secrets';
import { TpuSlice, tpuSlice } from './tpu';
import { targetGroup, validateRecipe } from './validate';
import { rolloutSettings, rowOf, settingOwning } from './methods';
import { MAXTEXT_CONFIG_KEYS } from './maxtext-keys';
import { firstCheckpointProblem } from './step-time';
import { didYouMean } from './spec';

export type { StepName } from './recipes/types';
export type { PipelineOptions } from './pipeline-options';
import type { PipelineOptions } from './pipeline-options';
export { STEP_NAMES } from './recipes/types';

/** Resources of a conversion pod on the CPU pool: a 30B model in bf16 is ~62 GB; to_huggingface holds it unsharded. */
export const DEFAULT_CONVERSION_RESOURCES: ContainerResources = {
  requests: { cpu: '16', memory: '128Gi' },
  limits: { memory: '200Gi' },
};


/** One step: one JobSet. */
export interface PipelineStep {
  readonly name: StepName;
  readonly jobSetName: string;
  readonly namespace: string;
  /** The JobSet manifest (pure Kubernetes content). */
  readonly manifest: Record<string, unknown>;
  /** How long one attempt may run (the Jobs' activeDeadlineSeconds), minutes. */
  readonly timeoutMinutes: number;
  readonly maxRestarts: number;
  /**
   * How long the deploy waits for the JobSet to end (`timeouts.create`), minutes: the queue allowance plus every
   * attempt the failure policy allows plus a margin, so the JobSet ends by itself (Completed, or Failed on its
   * deadline) before Terraform's wait gives up. See waitMinutes().
   */
  readonly waitMinutes: number;
  /** Labels of the step's main pod: job 0, completion index 0 of the main replicated job (the Pathways head). */
  readonly mainPodSelector: Readonly<Record<string, string>>;
  /** `kubectl logs` for the step's main pod (job 0, pod 0, main container). */
  readonly logsCommand: string;
  /** What the JobSet controller derives names from (replicated jobs, coordinator). */
  readonly nameShape: JobSetNameShape;
  /** `kubectl get jobset` for the step. */
  readonly statusCommand: string;
  /** Where the step runs. */
  readonly runsOn: 'cpu' | 'tpu';
  /**
   * The TPU capacity the step holds, and the capacity type of its slices (a flex-start step gets the lost-host watcher,
   * jobs/argo.ts). @default - none (CPU step)
   */
  readonly tpu?: { readonly slice: TpuSlice; readonly slices: number; readonly capacity: CapacityType };
  /**
   * sha256 over this step's manifest and the previous step's specHash. A change here means this step (and, through
   * the chain, every later one) must be replaced; constructs/jobset-step.ts turns it into `replace_triggered_by`.
   */
  readonly specHash: string;
}

/** A post-training pipeline ready for a stack. */
export interface Pipeline {
  readonly name: string;
  readonly runId: string;
  readonly tutorial: string;
  readonly description: string;
  readonly image: string;
  readonly model: { readonly name: string; readonly hfRepo: string; readonly exportName: string; readonly hfRevision?: string };
  readonly runtime: Recipe['runtime'];
  readonly namespace: string;
  readonly slice: TpuSlice;
  readonly slices: number;
  /** The recipe after options were applied (what the manifests were built from). */
  readonly recipe: Recipe;
  /** The steps in order; each starts only when the previous one completed. */
  readonly steps: readonly PipelineStep[];
  /** The SecretProviderClass the pods mount the HF token through. */
  readonly secretProviderClass: Record<string, unknown>;
  /**
   * The ConfigMap of the recipe's files (the reward file), mounted read-only into the training pods
   * (jobs/recipe-files.ts). @default - none (no files)
   */
  readonly filesConfigMap?: Record<string, unknown>;
  /** Each step's run record as synthesized, and where the step writes it (jobs/run-record.ts); status shows them. */
  readonly runRecords: Readonly<Record<StepName, { readonly path: string; readonly record: RunRecord }>>;
  /** Every gs:// path the pipeline reads or writes. */
  readonly paths: PipelinePaths;
  /** Labels on every object of the pipeline. */
  readonly labels: Readonly<Record<string, string>>;
  /** Every distinct image the pipeline's pods pull, in first-seen order (the preflight checks those in Artifact Registry). */
  readonly images: readonly string[];
  /** What the eval step runs. @default - no eval step (`eval.enabled: false`, or no single-host slice fits: see notices) */
  readonly eval?: EvalPlan;
  /** What `serve-<pipeline>` deploys. @default - no serve stack (`serve.enabled` not true) */
  readonly serve?: ServePlan;
  /** Warnings for the user (a tight HBM fit), printed once by main.ts. */
  readonly notices: readonly string[];
  /** What a rehearsal proves (jobs/rehearsal.ts asRehearsal). @default - none: not a rehearsal */
  readonly rehearsal?: RehearsalFacts;
  /** A rehearsal's verdict writer, run by its Workflow's exit handler (jobs/rehearsal-record.ts). @default - none: not a rehearsal */
  readonly verdictWriter?: VerdictWriter;
  /**
   * What the plan checks about this pipeline's rehearsal (jobs/rehearsal.ts RehearsalCheckPlan): its proof, and whether
   * `requireRehearsal` makes it a condition of the deploy. @default - none: a rehearsal (or a pipeline built alone)
   */
  readonly rehearsalCheck?: RehearsalCheckPlan;
  /**
   * Says which MaxText the tutorial installs and which this pipeline runs, when they differ (recipe
   * `tutorialMaxText`). @default - none: the pipeline runs the tutorial's MaxText
   */
  readonly maxtextDifference?: string;
}

/** The sentence reporting a deliberate MaxText version difference, or undefined when there is none. */
export function maxtextDifference(recipe: Recipe): string | undefined {
  const tutorial = recipe.tutorialMaxText;
  if (tutorial === undefined) return undefined;
  const running = imageMaxTextVersion(recipe.image);
  if (running === tutorial.version) return undefined;
  const runs = running === undefined ? `runs ${recipe.image} (MaxText version not known from the tag)` : `runs MaxText ${running} (the image's)`;
  return `tutorial ${recipe.tutorial} installs MaxText ${tutorial.version}; this pipeline ${runs}: ${tutorial.why}`;
}

/**
 * The Pathways workload container's resources. The head takes a CPU-pool node to itself (JobSet exclusive placement
 * on kubernetes.io/hostname, host-network ports), but Kueue's CPU flavor counts only CPU and memory: with the
 * gcluster template's requests (2 CPUs) Kueue admitted heads and conversions that then stayed Pending. So the
 * workload container requests the rest of the node's whole CPUs (cpuQuotaCoresPerNode minus the proxy's and the
 * resource manager's), and its CPU limit is raised to match (a request may not exceed its limit): Kueue and the
 * scheduler both count the head as one node. Memory: the recipe's `memoryLimit` as request and limit, else the
 * template's.
 */
export function wholeNodeHead(memoryLimit: string | undefined, cpuMachineType: string): ContainerResources {
  const sidecars = parseMillicores(PATHWAYS_DEFAULTS.proxy.limits!.cpu!) + parseMillicores(PATHWAYS_DEFAULTS.resourceManager.limits!.cpu!);
  // A node too small for the sidecars is refused by the CPU-pool fit check (jobs/validate.ts); keep the request valid.
  const cpu = Math.max(cpuQuotaCoresPerNode(cpuMachineType) * 1000 - sidecars, parseMillicores(PATHWAYS_DEFAULTS.workload.requests!.cpu!));
  const base = PATHWAYS_DEFAULTS.workload;
  const limitCpu = Math.max(cpu, parseMillicores(base.limits!.cpu!));
  return {
    requests: { cpu: `${cpu}m`, memory: memoryLimit ?? base.requests!.memory },
    limits: { cpu: `${limitCpu}m`, memory: memoryLimit ?? base.limits!.memory },
  };
}

/** Default allowance for a step waiting in Kueue's queue (for quota or a slice to free up), minutes. */
export const DEFAULT_QUEUE_MINUTES = 60;
/** Longest queue allowance a config may set, minutes (7 days). */
export const MAX_QUEUE_MINUTES = 7 * 24 * 60;
/**
 * Longest one attempt of a step may be given, minutes (30 days): beyond it a value is a typo (seconds for minutes), and
 * the deploy, which waits attempts x timeout, would wait for months.
 */
export const MAX_STEP_TIMEOUT_MINUTES = 30 * 24 * 60;
/** Margin for the JobSet controller to recreate Jobs between attempts and set its terminal state, minutes per attempt. */
export const ATTEMPT_MARGIN_MINUTES = 10;

/**
 * The deploy's wait for a step: queue + Kueue's requeuing of never-ready pods (podsReadyRequeueMinutes, jobs/kueue.ts)
 * + (maxRestarts + 1) x (attempt deadline + margin). A wait that reaches
 * `timeouts.create` returns "Operation timed out" AND state (hashicorp/terraform-provider-kubernetes v2.38.0,
 * manifest/provider/apply.go: on a WaiterError it reads the object and sets NewState), so Terraform records the create
 * as tainted and the next apply would replace (kill and restart) a JobSet that may still be training. Deriving the
 * wait from the Jobs' own deadlines makes the JobSet end first unless it queued longer than `queueMinutes`.
 */
export function waitMinutes(runMinutes: number, maxRestarts: number, queueMinutes: number): number {
  return queueMinutes + podsReadyRequeueMinutes() + (maxRestarts + 1) * (runMinutes + ATTEMPT_MARGIN_MINUTES);
}

/** sha256 of the previous hash and a manifest (jobs/spec-key.ts, the one hashing helper). */
export function chainHash(previous: string, manifest: unknown): string {
  return sha256Of(previous, manifest);
}

/** A failed step of a pipeline's build: every problem found, one per line (config/ lists each). */
export class PipelineProblems extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'PipelineProblems';
  }
}

/** Runs `fn`, adding what it throws (one problem per line) to `problems`; undefined when it threw. */
function collect<T>(problems: string[], fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    problems.push(...(err instanceof PipelineProblems ? err.problems : (err as Error).message.split('\n')));
    return undefined;
  }
}

/** An override's value in the type of the recipe's current value, or why it cannot be (`want`). */
function coerce(key: string, current: JsonValue, value: string | number | boolean): { value: JsonValue } | { want: string } {
  if (key === 'run_name') {
    const problem = runNameProblem(value);
    if (problem) return { want: problem };
  }
  if (typeof current === 'number') {
    const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    return Number.isFinite(n) ? { value: n } : { want: 'a number' };
  }
  if (typeof current === 'boolean') {
    if (typeof value === 'boolean') return { value };
    if (/^(true|1)$/i.test(String(value))) return { value: true };
    if (/^(false|0)$/i.test(String(value))) return { value: false };
    return { want: 'a boolean' };
  }
  if (typeof current === 'string') return typeof value === 'string' ? { value } : { want: 'a string' };
  // An object (or list) value: JSON text of the same kind; `true` or `7` would reach MaxText where it reads a mapping.
  const want = Array.isArray(current) ? 'a JSON list' : 'a JSON object';
  if (typeof value !== 'string') return { want };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { want };
  }
  const fits = Array.isArray(current) ? Array.isArray(parsed) : parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  return fits ? { value: parsed as JsonValue } : { want };
}

/** `args` with every override of a key it has applied; each value that does not fit adds a problem (once per key). */
function overrideArgs<A>(args: A, overrides: Readonly<Record<string, string | number | boolean>>, source: string, problems: Set<string>): A {
  const out: Record<string, JsonValue> = { ...(args as unknown as Record<string, JsonValue>) };
  for (const [key, value] of Object.entries(overrides)) {
    if (!(key in out)) continue;
    const r = coerce(key, out[key], value);
    if ('value' in r) out[key] = r.value;
    else problems.add(`${source}.overrides.${key} must be ${r.want}, got '${String(value)}'`);
  }
  return out as unknown as A;
}

/** MaxText keys (and to_maxtext flags) the recipe's steps pass: an override of one replaces it in every step that has it. */
export function overridableKeys(recipe: Recipe): string[] {
  const keys = new Set<string>([
    ...Object.keys(recipe.toMaxText.args),
    ...Object.keys(recipe.toMaxText.flags),
    ...Object.keys(recipe.train.args),
    ...Object.keys(recipe.toHf.args),
  ]);
  return [...keys].sort();
}

/**
 * Keys this program derives for every training run (jobs/maxtext.ts trainInvocation, checkpointArgs): an override
 * would put a second value on the command line beside the derived one.
 */
export const DERIVED_TRAIN_KEYS: readonly string[] = [
  'model_name', 'base_output_directory', 'load_parameters_path', 'hf_access_token', 'enable_checkpointing', 'checkpoint_period', 'max_num_checkpoints_to_keep',
];

/** An override of a key no step passes: a JSON-like text becomes a number or a boolean (as MaxText's YAML would read it). */
function newValue(value: string | number | boolean): JsonValue {
  if (typeof value !== 'string') return value;
  const t = value.trim();
  if (/^(true|false)$/i.test(t)) return /^true$/i.test(t);
  // The pattern refuses '' (which Number reads as 0), hex and binary; Number refuses '1.2.3' the pattern lets through.
  return /^[-+]?[\d.]+(e[-+]?\d+)?$/i.test(t) && Number.isFinite(Number(t)) ? Number(t) : value;
}

/**
 * Overrides of keys the recipe does not pass: any key of the training module's MaxText config class (jobs/maxtext-keys.ts,
 * generated from maxtext-v0.2.4 configs/types.py) is added to the training arguments; a key of no class is refused with
 * "did you mean", a key this program derives is refused naming what sets it.
 */
function addedTrainArgs(recipe: Recipe, overrides: Readonly<Record<string, string | number | boolean>>, source: string, problems: Set<string>): MaxTextArgs {
  const passed = overridableKeys(recipe);
  const cls = rowOf(recipe).configClass;
  const known = MAXTEXT_CONFIG_KEYS[cls];
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(overrides)) {
    if (passed.includes(key)) continue;
    const shown = JSON.stringify(key).slice(1, -1);
    if (DERIVED_TRAIN_KEYS.includes(key)) {
      problems.add(`${source}.overrides.${shown}: set by this program for every run (the paths, the model key and the checkpoints it derives); remove it`);
    } else if (known[key] === undefined) {
      problems.add(
        `${source}.overrides.${shown}: not a key ${recipe.name} passes nor a key of MaxText's ${cls} (maxtext-v0.2.4 configs/types.py, jobs/maxtext-keys.ts)` +
          `${didYouMean(key, [...passed, ...Object.keys(known)])}`,
      );
    } else {
      out[key] = newValue(value);
    }
  }
  return out;
}

/**
 * Overrides of keys a typed training setting owns (jobs/methods/ `settings`: `learning_rate` is `training.learningRate`'s):
 * refused always, naming the override, the setting and the value to give it, so every value that runs has one config key.
 */
function ownedOverrideProblems(recipe: Recipe, overrides: Readonly<Record<string, string | number | boolean>>, source: string): string[] {
  const row = rowOf(recipe);
  return Object.entries(overrides).flatMap(([key, value]) => {
    const owner = settingOwning(row, key);
    if (!owner) return [];
    const { name, setting } = owner;
    const given = newValue(value);
    const moved = typeof given === 'number' && setting.fromArgs ? setting.fromArgs({ ...recipe.train.args, [key]: given }) : given;
    const also = recipe.trainingKeys?.[key] !== undefined ? ` (${source}.training.${name} is also given)` : '';
    return [
      `${source}.overrides.${JSON.stringify(key).slice(1, -1)}: ${key} is owned by the typed setting ${source}.training.${name} ` +
        `(${setting.doc}; MaxText ${setting.key})${also}; remove the override and set it there: "training": {"${name}": ${JSON.stringify(moved)}}`,
    ];
  });
}

export { PART_OF, PIPELINE_LABELS };

/** The run id of a first run: its MaxText run_name is the tutorial's. */
export const DEFAULT_RUN_ID = 'r1';

/** What a run's name may be: one gs:// path segment MaxText joins under base_output_directory. */
const RUN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The identity of a training run, its MaxText `run_name`: `<run_name>[-<runId>]-<trainKey>` (e.g.
 * `rl-3f9a1c2b7d10`, `rl-r2-3f9a1c2b7d10`). MaxText restores the newest checkpoint under
 * `<base_output_directory>/<run_name>/` whatever else changed (maxtext-v0.2.4 src/maxtext/configs/types.py
 * checkpoint_dir; trainers/post_train/rl/train_rl.py restore), so the name carries a key of everything training
 * computes (jobs/maxtext.ts trainKey): the same spec keeps its name and a restart or a re-apply resumes it; a changed
 * spec trains anew in a new directory and exports to a new `hf-trained/<run_name>/<exportKey>/`. A run id other than
 * DEFAULT_RUN_ID adds itself (a deliberate re-run of an unchanged spec). `overrides.run_name` replaces the tutorial's
 * prefix; the key is always appended.
 */
export function runIdentity(recipe: Recipe, options: PipelineOptions, trainChips: number): string {
  const name = recipe.train.args['run_name'];
  const base = typeof name === 'string' && name !== '' ? name : recipe.train.kind;
  return [base, ...(options.runId === DEFAULT_RUN_ID ? [] : [options.runId]), trainKey(recipe, trainChips)].join('-');
}

/**
 * resolveRecipe, plus the run's identity (runIdentity), which names the export; training's run_name is the identity,
 * or `resumeRun` when set.
 */
export function resolveRun(recipe: Recipe, options: PipelineOptions, trainChips: number): { recipe: Recipe; identity: string } {
  const source = options.configSource ?? recipe.name;
  const overrides = options.overrides ?? {};
  const problems = new Set<string>(ownedOverrideProblems(recipe, overrides, source));
  const added = addedTrainArgs(recipe, overrides, source, problems);
  const trainArgs = { ...overrideArgs(recipe.train.args as MaxTextArgs, overrides, source, problems), ...added };
  const resolved: Recipe = {
    ...recipe,
    image: options.image ?? recipe.image,
    conversionOn: options.conversionOn ?? recipe.conversionOn ?? 'cpu',
    slice: {
      machineType: (options.machineType ?? recipe.slice.machineType) as Recipe['slice']['machineType'],
      topology: options.topology ?? recipe.slice.topology,
    },
    toMaxText: {
      ...recipe.toMaxText,
      args: overrideArgs(recipe.toMaxText.args, overrides, source, problems),
      flags: overrideArgs(recipe.toMaxText.flags, overrides, source, problems),
    },
    toHf: { ...recipe.toHf, args: overrideArgs(recipe.toHf.args, overrides, source, problems) },
  };
  const identity = runIdentity({ ...resolved, train: { ...recipe.train, args: trainArgs } as Recipe['train'] }, options, trainChips);
  if (!RUN_NAME.test(identity)) {
    problems.add(`${source}.overrides.run_name gives run name '${identity}', which is not one path segment (letters, digits, '.', '_', '-'; at most 128)`);
  }
  const resume = options.resumeRun;
  if (resume !== undefined && !RUN_NAME.test(resume)) {
    problems.add(`${source}.resumeRun must be the run name of an earlier run (the directory under trained/, e.g. 'rl-3f9a1c2b7d10'), got '${resume}'`);
  }
  if (problems.size > 0) throw new PipelineProblems([...problems]);
  return { recipe: { ...resolved, train: { ...recipe.train, args: { ...trainArgs, run_name: resume ?? identity } } as Recipe['train'] }, identity };
}

/** Labels of a JobSet's main pod: `mainReplicatedJob`, job index 0, completion index 0. */
export function mainPodSelector(jobSet: string, mainReplicatedJob: string): Record<string, string> {
  return {
    [JOBSET_POD_LABELS.jobSetName]: jobSet,
    [JOBSET_POD_LABELS.replicatedJob]: mainReplicatedJob,
    [JOBSET_POD_LABELS.jobIndex]: '0',
    [JOBSET_POD_LABELS.completionIndex]: '0',
  };
}

/** A label map as a Kubernetes equality selector (`k=v,k=v`). */
export function labelSelector(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

function logsCommand(namespace: string, selector: Readonly<Record<string, string>>): string {
  return `kubectl logs -n ${namespace} -f -c ${MAIN_CONTAINER} -l ${labelSelector(selector)}`;
}

/** The slice a pipeline trains on (retargeted by machineType/topology) and the infra group that has it. */
interface Target {
  readonly group: TpuPoolGroup;
  readonly slice: TpuSlice;
  readonly slices: number;
}

/** The training target, or undefined with its problems (a shape the TPU table lacks, a slice infra lacks). */
function targetOf(recipe: Recipe, platform: Platform, options: PipelineOptions, source: string, problems: string[]): Target | undefined {
  const shape = { machineType: options.machineType ?? recipe.slice.machineType, topology: options.topology ?? recipe.slice.topology };
  // The retargeted slice against the TPU table first (names the config field).
  if (collect(problems, () => tpuSlice(shape.machineType, shape.topology, `${source}.topology`)) === undefined) return undefined;
  const group = collect(problems, () => targetGroup({ ...recipe, slice: shape } as Recipe, platform, source));
  return group ? { group, slice: group.slice, slices: group.count } : undefined;
}

/** Everything the steps are built from, after every option checked out. */
interface PipelinePlan {
  readonly source: string;
  readonly target: Target;
  readonly resolved: Recipe;
  readonly identity: string;
  readonly paths: PipelinePaths;
  readonly workloadResources?: ContainerResources;
  readonly notices: readonly string[];
  readonly evaluation: ReturnType<typeof planEval>;
  readonly serve?: ServePlan;
  readonly baseLabels: Readonly<Record<string, string>>;
}

/** The CPU-pool pods of a pipeline (conversions, the Pathways head), for the CPU-pool fit check. */
function cpuPodsOf(resolved: Recipe, workloadResources: ContainerResources | undefined): Record<string, ContainerResources[]> {
  const cpuPods: Record<string, ContainerResources[]> = {};
  if (resolved.conversionOn !== 'tpu') {
    cpuPods['to-maxtext'] = [resolved.toMaxText.resources ?? DEFAULT_CONVERSION_RESOURCES];
    cpuPods['to-hf'] = [resolved.toHf.resources ?? DEFAULT_CONVERSION_RESOURCES];
  }
  if (resolved.runtime === 'pathways') cpuPods['pathways-head'] = pathwaysHeadResources(workloadResources);
  return cpuPods;
}

/** Checks of the resolved recipe: checkpoints, MaxText's start-up rules and the fit (jobs/validate.ts), the files' size. */
function recipeChecks(resolved: Recipe, platform: Platform, options: PipelineOptions, plan: { source: string; target: Target; workloadResources?: ContainerResources }, problems: string[]): string[] {
  const { source, target } = plan;
  const checkpoints = checkpointPeriod(lastCheckpointStep(resolved.train));
  if ('problem' in checkpoints) {
    problems.push(`${source}.overrides.${rowOf(resolved).stepsKey}: ${checkpoints.problem}`);
    return [];
  }
  const deadline = firstCheckpointProblem(resolved, {
    slice: target.slice,
    slices: target.slices,
    timeoutMinutes: options.timeoutMinutes?.train ?? resolved.timeoutMinutes.train,
    source,
  });
  if (deadline) problems.push(deadline);
  const files = resolved.files ?? [];
  if (configMapBytes(files) > CONFIGMAP_MAX_BYTES) {
    problems.push(`${source}: the pipeline's files (${files.map((f) => f.path).join(', ')}) hold ${configMapBytes(files)} bytes; a ConfigMap holds at most ${CONFIGMAP_MAX_BYTES}`);
  }
  const notices = collect(problems, () =>
    validateRecipe(resolved, {
      slice: target.slice,
      slices: target.slices,
      cpuMachineType: platform.cpuPool.machineType,
      cpuPoolName: platform.cpuPool.name,
      cpuPods: cpuPodsOf(resolved, plan.workloadResources),
      overridden: new Set(Object.keys(options.overrides ?? {})),
      configSource: options.configSource,
      imageSource: options.imageSource ?? (options.configSource ? `${options.configSource}.image` : undefined),
      retargeted: options.machineType !== undefined || options.topology !== undefined,
    }),
  );
  return notices ?? [];
}

/** The plan of a pipeline on its target, or undefined with every problem of its options, recipe, eval and serve. */
function planPipeline(recipe: Recipe, platform: Platform, options: PipelineOptions, source: string, target: Target, problems: string[]): PipelinePlan | undefined {
  const run = collect(problems, () => resolveRun(recipe, options, target.slice.chips * target.slices));
  // Bad overrides: the eval and serve options are still checked, against the recipe as given.
  const resolved = run?.recipe ?? recipe;
  const identity = run?.identity ?? runName(recipe.train);
  const paths = pipelinePaths(resolved, platform.bucket, platform.pathwaysScratchPrefix, identity);
  const workloadResources =
    resolved.runtime === 'pathways' ? wholeNodeHead(rolloutSettings(resolved.train).memoryLimit, platform.cpuPool.machineType) : undefined;
  const notices = run ? recipeChecks(resolved, platform, options, { source, target, workloadResources }, problems) : [];
  const evaluation = planEval(resolved, platform, paths, options.eval, source);
  const serving =
    options.serve?.enabled === true
      ? planServe(
          { pipeline: resolved.name, clusterName: platform.clusterName, namespace: platform.namespace, model: resolved.model.name, modelPath: paths.hfExportDir, trainingMachineType: target.slice.machineType, bucket: platform.bucket, cpuPool: platform.cpuPool.name, ...(resolved.imagePins?.[vllmImage(resolved.model.name)] ? { image: resolved.imagePins[vllmImage(resolved.model.name)] } : {}) },
          options.serve,
          source,
        )
      : { problems: [] as string[], plan: undefined };
  problems.push(...evaluation.problems, ...serving.problems);
  if (!run) return undefined;
  const baseLabels = { [PIPELINE_LABELS.partOf]: PART_OF, [PIPELINE_LABELS.pipeline]: resolved.name, [PIPELINE_LABELS.runId]: options.runId };
  return { source, target, resolved, identity, paths, workloadResources, notices, evaluation, serve: serving.plan, baseLabels };
}

/**
 * One attempt's deadline and the restarts of each step: the options' (ranges checked once, by the config schema,
 * config/schema.ts), else the recipe's (training: by its slice's capacity type), eval's from its plan.
 */
function stepLimits(plan: PipelinePlan, options: PipelineOptions) {
  const evalPlan = plan.evaluation.plan;
  const runMinutes = (step: StepName): number =>
    step === 'eval' ? evalPlan?.timeoutMinutes ?? 0 : options.timeoutMinutes?.[step] ?? plan.resolved.timeoutMinutes[step];
  const restarts = (step: StepName): number =>
    step === 'eval'
      ? // eval.maxRestarts, else the pipeline-wide maxRestarts, else eval's default.
        options.eval?.maxRestarts ?? options.maxRestarts ?? evalPlan?.maxRestarts ?? 0
      : options.maxRestarts ??
        (step === 'train' ? DEFAULT_TRAIN_MAX_RESTARTS[plan.target.group.capacity.type] : plan.resolved.maxRestarts[step as Exclude<RecipeStepName, 'train'>]);
  return { runMinutes, restarts };
}

/** What every step's JobSet shares: name, namespace, pod labels and service account, restarts and deadline. */
function commonOf(plan: PipelinePlan, platform: Platform, options: PipelineOptions, step: StepName): JobSetCommon {
  const limits = stepLimits(plan, options);
  const pod: PodCommon = {
    pipeline: plan.resolved.name,
    serviceAccountName: platform.serviceAccountName,
    labels: { ...plan.baseLabels, [PIPELINE_LABELS.step]: step, [QUEUE_LABEL]: platform.localQueue },
  };
  return {
    name: jobSetName(options.jobSetPrefix ?? plan.resolved.name, options.runId, step),
    namespace: platform.namespace,
    pod,
    maxRestarts: limits.restarts(step),
    activeDeadlineSeconds: limits.runMinutes(step) * 60,
  };
}

/** The facts every run record of the pipeline holds. */
const runFactsOf = (plan: PipelinePlan, options: PipelineOptions) => ({
  runId: options.runId,
  conversionKey: conversionKey(plan.resolved),
  chips: plan.target.slice.chips * plan.target.slices,
  slices: plan.target.slices,
});

/** The shell lines writing a step's run record at its start and end (jobs/run-record.ts). */
function recordLines(plan: PipelinePlan, options: PipelineOptions, step: StepName): { start: string; end: string } {
  const r = runRecord(plan.resolved, plan.paths, step, runFactsOf(plan, options));
  const at = runRecordPath(plan.paths, step);
  return { start: recordLine(r, at, 'start', shellQuote), end: recordLine(r, at, 'end', shellQuote) };
}

/**
 * Where the run's revisions come from (jobs/hf-revision.ts), or none when the conversion does not read the Hub (an
 * `hf_model_path` override naming a gs:// or local path). The tokenizer is the recipe's `tokenizer_path` when it names
 * a repository, else the weights' repository (what the export bundles).
 */
function revisionSource(recipe: Recipe, paths: PipelinePaths): RevisionSource | undefined {
  const repo = recipe.toMaxText.flags.hf_model_path ?? recipe.model.hfRepo;
  if (!isHfRepoId(repo)) return undefined;
  const tokenizerPath = recipe.train.args['tokenizer_path'];
  return {
    repo,
    ...(recipe.model.hfRevision !== undefined ? { pinned: recipe.model.hfRevision } : {}),
    tokenizer: isHfRepoId(tokenizerPath) ? tokenizerPath : repo,
    conversionRecord: runRecordPath(paths, 'to-maxtext'),
  };
}

/** The command context: with the tokenizer directory at the run's revision when the weights come from the Hub. */
function contextOf(plan: PipelinePlan): CommandContext {
  return { recipe: plan.resolved, paths: plan.paths, ...(revisionSource(plan.resolved, plan.paths) ? { atRevision: { tokenizerDir: TOKENIZER_DIR } } : {}) };
}

/**
 * The weights' commit resolved once by the conversion (one commit per repository for the whole run); training and
 * export read it and fetch the tokenizer at it. Training fetches a tokenizer only where it names one (tokenizer_path);
 * the export always bundles one.
 */
function revisionPrelude(plan: PipelinePlan, step: StepName): string[] {
  const revisions = revisionSource(plan.resolved, plan.paths);
  if (!revisions) return [];
  if (step === 'to-maxtext') return [...resolveRevisionLines(revisions), listingRevisionPatch(MAXTEXT_SRC)];
  if (step === 'train') {
    const tokenizer = trainTokenizer(plan.resolved);
    return tokenizer === undefined ? [] : tokenizerAtRevisionLines({ ...revisions, tokenizer });
  }
  return tokenizerAtRevisionLines(revisions);
}

/** A conversion step: on the CPU pool (one pod), or the tutorials' shape (every VM of one slice starts, index 0 converts). */
function conversionJobSet(plan: PipelinePlan, platform: Platform, options: PipelineOptions, step: 'to-maxtext' | 'to-hf'): { built: BuiltJobSet; runsOn: 'cpu' | 'tpu' } {
  const { resolved, paths } = plan;
  const ctx = contextOf(plan);
  const onCpu = resolved.conversionOn !== 'tpu';
  const conf = step === 'to-maxtext' ? resolved.toMaxText : resolved.toHf;
  const tutorialInv = step === 'to-maxtext' ? toMaxTextInvocation(ctx) : toHfInvocation(ctx);
  const inv = onCpu ? placeOnCpu(tutorialInv) : tutorialInv;
  const skipIfExists = step === 'to-maxtext' && conf.reuseExisting !== false ? `${paths.maxtextDir}0/commit_success.txt` : undefined;
  const common = commonOf(plan, platform, options, step);
  const record = recordLines(plan, options, step);
  const prelude = [...revisionPrelude(plan, step), ...(step === 'to-hf' ? toHfPrelude(resolved, paths) : [])];
  if (onCpu) {
    const script = buildScript(inv, { skipIfExists, retryTransientOnce: true, record, prelude });
    const resources = conf.resources ?? DEFAULT_CONVERSION_RESOURCES;
    return { built: cpuPodJobSet(common, { image: resolved.image, script, resources }, platform.cpuPool.name), runsOn: 'cpu' };
  }
  const script = buildScript(inv, { onlyIndexZero: true, skipIfExists, retryTransientOnce: true, record, prelude });
  return { built: multiHostJaxJobSet(common, { image: resolved.image, script }, plan.target.slice, 1, false), runsOn: 'tpu' };
}

/** The training step: Pathways (head + workers) or multi-host JAX, with the recipe's files mounted. */
function trainJobSet(plan: PipelinePlan, platform: Platform, options: PipelineOptions): BuiltJobSet {
  const { resolved, paths, target } = plan;
  const t = resolved.train;
  const tpuEnvPrelude = resolved.tpuVmEnv ? ['TPU_NAME="$(hostname)"', 'export TPU_NAME'] : [];
  const script = buildScript(trainInvocation(contextOf(plan)), { prelude: [...tpuEnvPrelude, ...trainPrelude(t), ...revisionPrelude(plan, 'train')], record: recordLines(plan, options, 'train') });
  const env = { ...(resolved.tpuVmEnv ? tpuVmEnv(target.slice) : {}), ...t.env };
  const extraVolumes = (resolved.files ?? []).length > 0 ? [filesVolume(resolved.name)] : undefined;
  const common = commonOf(plan, platform, options, 'train');
  if (resolved.runtime === 'pathways' && resolved.pathways) {
    return pathwaysJobSet(
      common,
      { image: resolved.image, script, env, resources: plan.workloadResources, extraVolumes },
      {
        slice: target.slice,
        slices: target.slices,
        scratch: paths.pathwaysScratch ?? `gs://${platform.bucket}/${platform.pathwaysScratchPrefix}`,
        headNodePool: platform.cpuPool.name,
        proxyEnv: resolved.pathways.proxyEnv,
        serverEnv: resolved.pathways.serverEnv,
        workerEnv: resolved.pathways.workerEnv,
        proxyImage: resolved.pathways.proxyImage,
        serverImage: resolved.pathways.serverImage,
      },
    );
  }
  return multiHostJaxJobSet(common, { image: resolved.image, script, env, extraVolumes }, target.slice, target.slices, true);
}

/** The eval step's tokenizer at the run's revision, when the weights come from the Hub. */
function evalRevision(plan: PipelinePlan): { lines: string[]; tokenizerDir: string } | undefined {
  const revisions = revisionSource(plan.resolved, plan.paths);
  return revisions ? { lines: tokenizerAtRevisionLines(revisions), tokenizerDir: TOKENIZER_DIR } : undefined;
}

/** The eval step's run record (jobs/run-record.ts evalRunRecord), or none without an eval step. */
function evalRecordOf(plan: PipelinePlan, options: PipelineOptions): RunRecord | undefined {
  const evalPlan = plan.evaluation.plan;
  if (!evalPlan) return undefined;
  const dataset = evalDataset(evalPlan);
  return evalRunRecord(plan.resolved, plan.paths, runFactsOf(plan, options), {
    image: evalPlan.image,
    tasks: evalPlan.tasks,
    evalJson: evalPlan.evalJson,
    tokenizer: revisionSource(plan.resolved, plan.paths)?.tokenizer ?? evalPlan.baseModel,
    ...(dataset ? { dataset } : {}),
  });
}

/** The eval step's record lines: written through its export mount, where eval.json goes. */
function evalRecordLines(plan: PipelinePlan, options: PipelineOptions): { start: string; end: string } | undefined {
  const record = evalRecordOf(plan, options);
  if (!record) return undefined;
  const file = `${EXPORT_MOUNT}/${EVAL_RUN_RECORD_FILE}`;
  const shown = runRecordPath(plan.paths, 'eval');
  return { start: recordFileLine(record, file, shown, 'start', shellQuote), end: recordFileLine(record, file, shown, 'end', shellQuote) };
}

/** The built JobSets in order. */
type BuiltStep = { readonly name: StepName; readonly built: BuiltJobSet; readonly runsOn: 'cpu' | 'tpu'; readonly slices: number };

function builtSteps(plan: PipelinePlan, platform: Platform, options: PipelineOptions): BuiltStep[] {
  const toMaxText = conversionJobSet(plan, platform, options, 'to-maxtext');
  const trained = trainJobSet(plan, platform, options);
  const toHf = conversionJobSet(plan, platform, options, 'to-hf');
  const evalPlan = plan.evaluation.plan;
  return [
    { name: 'to-maxtext', built: toMaxText.built, runsOn: toMaxText.runsOn, slices: 1 },
    { name: 'train', built: trained, runsOn: 'tpu', slices: plan.target.slices },
    { name: 'to-hf', built: toHf.built, runsOn: toHf.runsOn, slices: 1 },
    ...(evalPlan ? [{ name: 'eval' as const, built: evalJobSet(commonOf(plan, platform, options, 'eval'), evalPlan, platform, plan.resolved.name, evalRevision(plan), evalRecordLines(plan, options)), runsOn: 'tpu' as const, slices: 1 }] : []),
  ];
}

/** The steps with their names, waits, selectors and the hash chain that replaces a changed step and every later one. */
function pipelineSteps(plan: PipelinePlan, platform: Platform, options: PipelineOptions, built: readonly BuiltStep[]): PipelineStep[] {
  const { runMinutes } = stepLimits(plan, options);
  const queueMinutes = options.queueMinutes ?? DEFAULT_QUEUE_MINUTES;
  let previousHash = '';
  return built.map(({ name, built: b, runsOn, slices: n }) => {
    const c = commonOf(plan, platform, options, name);
    previousHash = chainHash(previousHash, b.manifest);
    const selector = mainPodSelector(c.name, b.mainReplicatedJob);
    return {
      name,
      jobSetName: c.name,
      namespace: platform.namespace,
      manifest: b.manifest,
      timeoutMinutes: runMinutes(name),
      maxRestarts: c.maxRestarts,
      waitMinutes: waitMinutes(runMinutes(name), c.maxRestarts, queueMinutes),
      nameShape: { step: name, replicatedJobs: b.replicatedJobs, coordinator: b.coordinator },
      mainPodSelector: selector,
      logsCommand: logsCommand(platform.namespace, selector),
      statusCommand: `kubectl get jobset -n ${platform.namespace} ${c.name}`,
      runsOn,
      ...(runsOn === 'tpu' ? { tpu: { ...tpuGroupOf(plan, name), slices: n } } : {}),
      specHash: previousHash,
    };
  });
}

/** The slice shape and capacity type a TPU step runs on: eval's own group when it has one, else the training target's. */
function tpuGroupOf(plan: PipelinePlan, step: StepName): { slice: TpuSlice; capacity: CapacityType } {
  const evalPlan = plan.evaluation.plan;
  return step === 'eval' && evalPlan ? { slice: evalPlan.group.slice, capacity: evalPlan.group.capacity.type } : { slice: plan.target.slice, capacity: plan.target.group.capacity.type };
}

/**
 * Flex-start nodes live at most maxRunDuration from their creation (GKE deletes them then). A JobSet restart recreates
 * the step's pods on the same slice (its nodes stay: Kueue keeps the workload admitted and its ProvisioningRequest
 * consumed, kubernetes-sigs/kueue v0.19.2 pkg/controller/admissionchecks/provisioning/controller.go), so every attempt
 * of the step (maxRestarts + 1, each up to timeoutMinutes) shares one slice's life: all of them must fit in it, or a
 * late restart is cut short with no time left (a 39-hour run with one restart at hour 25 on 36-hour nodes). A slice the
 * lost-host watcher re-requests (jobs/argo.ts LOST_HOST) spends one of the same maxRestarts, so the count of attempts
 * here covers restarts and re-requests together (a re-requested slice's nodes start a new life: counting it in the old
 * one only errs on the safe side).
 */
function flexStartProblems(plan: PipelinePlan, steps: readonly PipelineStep[]): string[] {
  return steps
    .filter((s) => s.runsOn === 'tpu')
    .flatMap((step) => {
      const capacity = step.name === 'eval' && plan.evaluation.plan ? plan.evaluation.plan.group.capacity : plan.target.group.capacity;
      const attempts = step.maxRestarts + 1;
      const allMinutes = attempts * step.timeoutMinutes;
      if (capacity.type !== 'flex-start' || allMinutes <= capacity.maxRunDurationSeconds / 60) return [];
      const lifetimeMinutes = capacity.maxRunDurationSeconds / 60;
      const timeoutKey = step.name === 'eval' ? 'eval.timeoutMinutes' : `timeoutMinutes.${step.name}`;
      const restartsKey = step.name === 'eval' ? 'eval.maxRestarts' : 'maxRestarts';
      return [
        `${plan.source}: step ${step.name} may run ${attempts} attempts (maxRestarts ${step.maxRestarts} + 1) of timeoutMinutes ` +
          `${step.timeoutMinutes} minutes, ${allMinutes} minutes in all, on one flex-start slice whose nodes live at most ` +
          `${lifetimeMinutes} minutes (flexStartMaxRunHours); every attempt shares the slice's life: raise flexStartMaxRunHours ` +
          `to at least ${Math.ceil(allMinutes / 60)}, or lower ${timeoutKey} or ${restartsKey}`,
      ];
    });
}

/** The Pipeline object of a plan and its steps. */
function assemble(plan: PipelinePlan, platform: Platform, options: PipelineOptions, steps: PipelineStep[]): Pipeline {
  const { resolved, paths, target, evaluation } = plan;
  const files = resolved.files ?? [];
  const difference = maxtextDifference(resolved);
  const runFacts = runFactsOf(plan, options);
  const evalRecord = evalRecordOf(plan, options);
  return {
    name: resolved.name,
    runId: options.runId,
    tutorial: resolved.tutorial,
    description: resolved.description,
    image: resolved.image,
    model: {
      name: resolved.model.name,
      hfRepo: resolved.model.hfRepo,
      exportName: resolved.toHf.modelName ?? resolved.model.name,
      ...(resolved.model.hfRevision !== undefined ? { hfRevision: resolved.model.hfRevision } : {}),
    },
    runtime: resolved.runtime,
    namespace: platform.namespace,
    slice: target.slice,
    slices: target.slices,
    recipe: resolved,
    steps,
    secretProviderClass: buildSecretProviderClass(resolved.name, platform, plan.baseLabels),
    ...(files.length > 0 ? { filesConfigMap: buildFilesConfigMap(resolved.name, platform.namespace, plan.baseLabels, files) } : {}),
    runRecords: Object.fromEntries([
      ...RECIPE_STEP_NAMES.map((step) => [step, { path: runRecordPath(paths, step), record: runRecord(resolved, paths, step, runFacts) }] as const),
      ...(evalRecord ? [['eval', { path: runRecordPath(paths, 'eval'), record: evalRecord }] as const] : []),
    ]) as Record<StepName, { path: string; record: RunRecord }>,
    paths,
    labels: plan.baseLabels,
    images: imagesIn(steps.map((s) => s.manifest)),
    ...(evaluation.plan ? { eval: evaluation.plan } : {}),
    ...(plan.serve ? { serve: plan.serve } : {}),
    notices: [...plan.notices, ...(evaluation.notice ? [evaluation.notice] : [])],
    ...(difference !== undefined ? { maxtextDifference: difference } : {}),
  };
}

/**
 * Builds the pipeline, in one pass over its problems: every problem of its options, names, recipe rules (jobs/validate.ts),
 * eval and serve is collected and thrown together (PipelineProblems, one per line), or none is.
 */
export function buildPipeline(recipe: Recipe, platform: Platform, options: PipelineOptions): Pipeline {
  const source = options.configSource ?? recipe.name;
  const runIdSource = options.runIdSource ?? `${source}.runId`;
  const problems: string[] = [];
  collect(problems, () => checkRunId(options.runId, runIdSource));
  const target = targetOf(recipe, platform, options, source, problems);
  const plan = target ? planPipeline(recipe, platform, options, source, target, problems) : undefined;
  // Every problem so far, a bad run id among them, stops here: the names below are checked with a valid run id only.
  if (!plan || problems.length > 0) throw new PipelineProblems(problems);
  const built = builtSteps(plan, platform, options);
  const shapes = built.map(({ name, built: b }) => ({ step: name, replicatedJobs: b.replicatedJobs, coordinator: b.coordinator }));
  collect(problems, () => checkJobSetNames(options.jobSetPrefix ?? plan.resolved.name, options.runId, shapes, source, runIdSource));
  const steps = pipelineSteps(plan, platform, options, built);
  problems.push(...flexStartProblems(plan, steps));
  if (problems.length > 0) throw new PipelineProblems(problems);
  return assemble(plan, platform, options, steps);
}

/** The longest run id `recipe` accepts on `platform` (every name and label value JobSet derives stays valid). */
export function maxRunIdLength(recipe: Recipe, platform: Platform): number {
  const shapes = buildPipeline(recipe, platform, { runId: DEFAULT_RUN_ID }).steps.map((s) => s.nameShape);
  return runIdLimit(recipe.name, shapes);
}

/** The directories a pipeline run writes that belong to it alone: its training run and its export. */
export function runOutputs(pipeline: Pipeline): string[] {
  return [pipeline.paths.trainRunDir, pipeline.paths.hfExportDir];
}

/**
 * Refuses pipelines that would write into each other's results: a training run directory or an export directory
 * equal to, or inside, another pipeline's (same model and run_name). The converted checkpoint is not checked: a
 * shared one is by design the identical conversion (jobs/maxtext.ts conversionKey).
 */
export function checkRunOutputs(pipelines: readonly Pipeline[]): void {
  const owned = pipelines.flatMap((p) => runOutputs(p).map((dir) => ({ pipeline: p.name, dir })));
  for (const a of owned) {
    const b = owned.find((o) => o.pipeline !== a.pipeline && (o.dir.startsWith(a.dir) || a.dir.startsWith(o.dir)));
    if (b) {
      throw new Error(
        `pipelines ${a.pipeline} and ${b.pipeline} would both write ${a.dir.length <= b.dir.length ? a.dir : b.dir}; ` +
          `give one another run_name (pipelines.${b.pipeline}.overrides.run_name)`,
      );
    }
  }
}

