/**
 * The per-pipeline options config/ fills from `pipelines.<name>` (+ env): the input of jobs/pipeline.ts buildPipeline and
 * of jobs/rehearsal.ts rehearsalOf, in their own file so the rehearsal does not import the pipeline it is built into
 * (issue 47: pipeline <-> rehearsal was an import cycle). Pure; no cdktf.
 */
import type { EvalOptions } from './eval';
import type { ServeOptions } from './serve';
import type { StepName } from './recipes/types';

/** Per-pipeline options, filled by config/ from `pipelines.<name>` (+ env). */
export interface PipelineOptions {
  /** Part of every JobSet name; change it to re-run a finished pipeline. */
  readonly runId: string;
  /** Image of the MaxText steps. @default - the recipe's image (tpu_post_training:0.2.4) */
  readonly image?: string;
  /** Where the conversions run: the CPU pool, or the slice as the tutorials do. @default - the recipe's (`cpu`) */
  readonly conversionOn?: 'cpu' | 'tpu';
  /**
   * How long one attempt of each step may run, minutes (every Job's activeDeadlineSeconds; queueing not included).
   * @default - the recipe's timeoutMinutes
   */
  readonly timeoutMinutes?: Partial<Record<StepName, number>>;
  /** How long a step may wait in Kueue's queue before the deploy stops waiting, minutes. @default DEFAULT_QUEUE_MINUTES */
  readonly queueMinutes?: number;
  /**
   * JobSet restarts after a failure that is not a known application error, for every step.
   * @default - training: DEFAULT_TRAIN_MAX_RESTARTS of its slice's capacity type (jobs/capacity.ts); conversions: the recipe's
   */
  readonly maxRestarts?: number;
  /** Retarget the training slice (must exist in infra). @default - the recipe's slice */
  readonly machineType?: string;
  /** @default - the recipe's slice */
  readonly topology?: string;
  /**
   * Continue this earlier run (its MaxText run_name, the directory under `trained/`) at its newest checkpoint even
   * though the spec changed (e.g. more steps): training writes there, the export goes to the new spec's own
   * `hf-trained/<run name>/<export key>/`. @default - the run named by the spec (runIdentity)
   */
  readonly resumeRun?: string;
  /**
   * Recipe values by MaxText key, applied to every step that has the key; a key no step has is added to training when its
   * MaxText config class knows it (jobs/maxtext-keys.ts), else an error. @default - none
   */
  readonly overrides?: Readonly<Record<string, string | number | boolean>>;
  /** Where the options came from, e.g. `pipelines.rl-qwen3`; prefixes error messages. @default - the recipe name */
  readonly configSource?: string;
  /** Where `runId` came from when not the config file, e.g. `RUN_ID (env)`. @default - `<configSource>.runId` */
  readonly runIdSource?: string;
  /** Where `image` came from when not the config file, e.g. `CLOUD_IMAGE_NAME (env)`. @default - `<configSource>.image` */
  readonly imageSource?: string;
  /** The eval step after to-hf (jobs/eval.ts). @default - on, with the recipe's default tasks and no gate */
  readonly eval?: EvalOptions;
  /** The opt-in `serve-<pipeline>` stack (jobs/serve.ts). @default - none */
  readonly serve?: ServeOptions;
  /** What JobSet names start with (a rehearsal's short `rh-<pipeline>`, jobs/rehearsal.ts). @default - the recipe name */
  readonly jobSetPrefix?: string;
}
