/**
 * The shape of a post-training recipe: one tutorial's parameters as typed data.
 *
 * A recipe names MaxText keys exactly as MaxText spells them (`batch_size`, `rl.num_generations`), so a
 * value can be compared with the tutorial by eye and overridden from config by the same key. Values that
 * are derived (paths in the bucket, model name, TPU numbers) are NOT in the recipe: jobs/maxtext.ts and
 * jobs/pipeline.ts derive them in one place; the HF token is never an argument (environment only). Pure; no cdktf.
 */
import { TpuMachineType } from '../tpu';

/** The steps of a pipeline, in order: the three MaxText steps, then `eval` (jobs/eval.ts; `eval.enabled: false` drops it). */
export type StepName = 'to-maxtext' | 'train' | 'to-hf' | 'eval';
export const STEP_NAMES: readonly StepName[] = ['to-maxtext', 'train', 'to-hf', 'eval'];
/** The steps a recipe sets timeouts and restarts for (MaxText's); `eval` takes its settings from jobs/eval.ts. */
export type RecipeStepName = Exclude<StepName, 'eval'>;
export const RECIPE_STEP_NAMES: readonly RecipeStepName[] = ['to-maxtext', 'train', 'to-hf'];

/** A scalar MaxText value. Booleans render as Python `True`/`False` (OmegaConf also reads `true`, `1`). */
export type Scalar = string | number | boolean;
/** A JSON value (for dict-valued keys such as `vllm_additional_config`); rendered as JSON. */
export type JsonValue = Scalar | readonly JsonValue[] | { readonly [key: string]: JsonValue };
/** MaxText `key=value` arguments, in the order they are rendered. */
export type MaxTextArgs = Readonly<Record<string, JsonValue>>;

/** The number a MaxText key holds in `args`, or `fallback` when it holds none (or not a number). */
export function numberArg(args: MaxTextArgs, key: string, fallback: number): number {
  const value = args[key];
  return typeof value === 'number' ? value : fallback;
}
/** Container environment variables (name -> value). */
export type EnvMap = Readonly<Record<string, string>>;

/** Kubernetes requests/limits of one container (quantities as Kubernetes spells them). */
export interface ContainerResources {
  /** @default - the limits (Kubernetes defaulting) */
  readonly requests?: { readonly cpu?: string; readonly memory?: string; readonly 'ephemeral-storage'?: string };
  /** @default - none */
  readonly limits?: { readonly cpu?: string; readonly memory?: string };
}

/** `maxtext.checkpoint_conversion.to_maxtext`: the keys the tutorials pass (model and paths are derived; the token comes from the environment). */
export interface ToMaxTextArgs {
  readonly scan_layers: boolean;
  readonly use_multimodal: boolean;
  readonly skip_jax_distributed_system: boolean;
  /** 0 for Pathways, 1 for McJAX (MaxText docs: `$((1 - USE_PATHWAYS))`). */
  readonly checkpoint_storage_use_zarr3: 0 | 1;
  readonly checkpoint_storage_use_ocdbt: 0 | 1;
  readonly hardware: 'cpu' | 'tpu' | 'gpu';
  /** Let the CLI set model-YAML keys (a rehearsal's cut model, jobs/rehearsal.ts). @default - not passed (false) */
  readonly override_model_config?: boolean;
  /** Decoder layers of the model (a rehearsal's cut). @default - not passed (the model YAML's) */
  readonly base_num_decoder_layers?: number;
}

/** argparse flags of to_maxtext (`--flag=value`). */
export interface ToMaxTextFlags {
  /** HF repo to read; @default - MaxText's HF_IDS[model_name] (not passed). */
  readonly hf_model_path?: string;
  readonly lazy_load_tensors: boolean;
}

/** `maxtext.checkpoint_conversion.to_huggingface` keys the tutorials pass (paths are derived; the token comes from the environment). */
export interface ToHfArgs {
  /** @default - not passed (tutorial 002 does not pass it) */
  readonly skip_jax_distributed_system?: boolean;
  /** @default - not passed (tutorial 002 does not pass it) */
  readonly hardware?: 'cpu';
  readonly scan_layers: boolean;
  readonly use_multimodal: boolean;
  readonly weight_dtype: 'bfloat16' | 'float32';
  /** Let the CLI set model-YAML keys (a rehearsal's cut model, jobs/rehearsal.ts). @default - not passed (false) */
  readonly override_model_config?: boolean;
  /** Decoder layers of the model (a rehearsal's cut). @default - not passed (the model YAML's) */
  readonly base_num_decoder_layers?: number;
}

/** Step settings shared by the two conversions. */
export interface ConversionStep<A> {
  readonly args: A;
  /** Resources of the conversion pod on the CPU pool. @default DEFAULT_CONVERSION_RESOURCES (jobs/pipeline.ts) */
  readonly resources?: ContainerResources;
  /**
   * to-maxtext only: keep a converted checkpoint an earlier run left in the bucket instead of converting again
   * (a re-run with a new run id would otherwise fail on the existing step 0). @default true
   */
  readonly reuseExisting?: boolean;
}

/** `to_huggingface` step. */
export interface ToHfStep extends ConversionStep<ToHfArgs> {
  /** Pass `--override_model_architecture` (tutorials 000/001/003 do). @default false */
  readonly overrideModelArchitecture?: boolean;
  /** MaxText model name used for the export, when it differs (tutorial 002: `llama3.1-8b`). @default - recipe model name */
  readonly modelName?: string;
  /**
   * The run trained LoRA adapters (train_sft `lora.enable_lora`): export the adapter in HF PEFT format
   * (`lora.lora_restore_path` = the trained checkpoint, no `load_parameters_path`; rank and alpha as trained), per
   * maxtext-v0.2.4 docs/tutorials/posttraining/lora.md and to_huggingface.py "Adapter" mode. @default - a full model
   */
  readonly lora?: { readonly rank: number; readonly alpha: number };
}

/**
 * In-container source patches the tutorials apply before training. Each is a named, documented option;
 * jobs/maxtext.ts holds the exact code and fails the pod if the pattern is not found.
 */
export interface SourcePatches {
  /**
   * Replace the RL optimizer `optax.adamw(...)` in `utils_rl.get_optimizer` with
   * `optax.adafactor(learning_rate=learning_rate)` (tutorials 000, 001): far less optimizer state in HBM.
   * @default false
   */
  readonly adafactor?: boolean;
  /**
   * Hard-code Tunix's vLLM sampler `reshard_chunk_size` to this value (tutorial 000: 4): weight sync between
   * trainer and sampler reshards this many keys at a time, bounding peak HBM.
   * @default - not patched
   */
  readonly vllmReshardChunkSize?: number;
}

/** GRPO `maxtext.trainers.post_train.rl.train_rl`. */
export interface RlTrain {
  readonly kind: 'rl';
  /** MaxText keys in tutorial order (paths and model_name are derived; the token comes from the environment). */
  readonly args: MaxTextArgs;
  /** Env of the training container (the tutorials' inline `VAR=value python3 ...` and `--env`). */
  readonly env: EnvMap;
  /** In-container source patches applied before training. @default - none */
  readonly patches?: SourcePatches;
  /** Export `VLLM_HOST_IP=$(hostname -I | awk '{print $1}')` before training (tutorials 000, 001). @default false */
  readonly exportVllmHostIp?: boolean;
  /**
   * Memory request and limit of the Pathways workload container (requested, so the scheduler and Kueue reserve it). Replaces tutorial 000's `echo 190G > /sys/fs/cgroup/memory.max`
   * (which needs a privileged container and is invisible to the scheduler). Checked against the cpu-np machine.
   * @default - the Pathways default (PATHWAYS_DEFAULTS.workload in jobs/jobset.ts)
   */
  readonly memoryLimit?: string;
}

/** `maxtext.trainers.post_train.sft.train_sft` on multi-host JAX. */
export interface SftTrain {
  readonly kind: 'sft';
  readonly args: MaxTextArgs;
  readonly env: EnvMap;
}

/** DPO `maxtext.trainers.post_train.dpo.train_dpo` on multi-host JAX (jobs/methods/dpo.ts). */
export interface DpoTrain {
  readonly kind: 'dpo';
  readonly args: MaxTextArgs;
  readonly env: EnvMap;
}

/** Env of the Pathways containers, per container as the tutorials pass them (`--env`, `--pathways-*-env`). */
export interface PathwaysSettings {
  /** `--pathways-proxy-env`. */
  readonly proxyEnv: EnvMap;
  /** `--pathways-server-env` (resource manager). */
  readonly serverEnv: EnvMap;
  /** `--pathways-worker-env`. */
  readonly workerEnv: EnvMap;
  /** @default PATHWAYS_IMAGES.proxy (jobs/jobset.ts) */
  readonly proxyImage?: string;
  /** Image of the resource manager and the workers. @default PATHWAYS_IMAGES.server (jobs/jobset.ts) */
  readonly serverImage?: string;
}

/** A file of the user's repository shipped to the training pods. */
export interface RecipeFile {
  /** File name in the ConfigMap and under the mount (a ConfigMap key: letters, digits, '-', '_', '.'). */
  readonly name: string;
  /** The file's text. */
  readonly content: string;
  /** sha256 hex of the content (names it in the train key and the run record). */
  readonly sha256: string;
  /** Where it came from, e.g. `rewards/my_reward.py`. */
  readonly path: string;
}

/** The data a run trains on, as the config names it (for the run record; MaxText reads it from the arguments). */
export interface RunLineage {
  /** @default - none (the method's built-in dataset) */
  readonly dataset?: { readonly hf: string; readonly config?: string; readonly split?: string; readonly revision?: string };
  /** The reward file's path and sha256. @default - none (MaxText's built-in rewards) */
  readonly reward?: { readonly path: string; readonly sha256: string };
}

/** One tutorial (or config entry) as a pipeline. */
export interface Recipe {
  /** Stack name, e.g. `rl-qwen3`; also the prefix of every JobSet name. */
  readonly name: string;
  /** Which tutorial under ../shared/seeds it reproduces (e.g. `000`). */
  readonly tutorial: string;
  readonly description: string;
  /**
   * MaxText model name (a key of the model table, jobs/models.ts), the Hugging Face repo it comes from, and the
   * repository commit to_maxtext downloads (`--revision`). @default hfRevision - none: the repository's head at run time
   */
  readonly model: { readonly name: string; readonly hfRepo: string; readonly hfRevision?: string };
  /**
   * Files from the user's repository the training container reads (a reward function file, a dataset processor):
   * shipped in one ConfigMap of the pipeline stack and mounted read-only at RECIPE_FILES_DIR (jobs/pipeline.ts).
   * @default - none
   */
  readonly files?: readonly RecipeFile[];
  /**
   * MaxText keys set by the entry's typed training settings (`training.<name>`, jobs/spec.ts), key -> setting name: fit
   * advice names the setting for these keys, not an override (which would be refused). @default - none
   */
  readonly trainingKeys?: Readonly<Record<string, string>>;
  /** What the run is made from beyond the arguments, for its run record (jobs/run-record.ts). @default - none */
  readonly lineage?: RunLineage;
  /**
   * Images the lock pins beyond `image` and `pathways`: tag -> `tag@sha256:...` (jobs/lock-apply.ts; the eval and serve
   * vLLM image, the lost-host watcher's kubectl). @default - none: pulled by tag
   */
  readonly imagePins?: Readonly<Record<string, string>>;
  /**
   * The model as the lock holds it (jobs/lock.ts): its key, commit and tokenizer facts (the eval's prompts follow its BOS).
   * @default - not locked
   */
  readonly lockedModel?: {
    readonly key: string;
    readonly commit: string;
    readonly tokenizer: { readonly bosToken: string | null; readonly addBosToken: boolean | null; readonly chatTemplate: boolean; readonly chatTemplateSha256?: string | null };
  };
  /** Slice the training targets (must exist in `infra`). */
  readonly slice: { readonly machineType: TpuMachineType; readonly topology: string };
  /** Container image of every MaxText step. */
  readonly image: string;
  /**
   * The MaxText version the tutorial installs, when the recipe deliberately runs another one (the image's): the
   * difference is reported by the stack (`tutorial_maxtext` output), the plan review and docs/pipelines.md.
   * @default - none: the recipe runs the tutorial's version
   */
  readonly tutorialMaxText?: { readonly version: string; readonly why: string };
  /** `pathways`: head + workers JobSet (single controller); `mcjax`: one JAX process per TPU VM. */
  readonly runtime: 'pathways' | 'mcjax';
  /** Where the conversions run by default. @default 'cpu' */
  readonly conversionOn?: 'cpu' | 'tpu';
  /**
   * JobSet `failurePolicy.maxRestarts` of the two conversions. Training's comes from its slice's capacity type
   * (jobs/capacity.ts DEFAULT_TRAIN_MAX_RESTARTS), not from the recipe.
   */
  readonly maxRestarts: Readonly<Record<Exclude<RecipeStepName, 'train'>, number>>;
  /** How long `cdktf deploy` waits for each step (queueing included). */
  readonly timeoutMinutes: Readonly<Record<RecipeStepName, number>>;
  readonly toMaxText: ConversionStep<ToMaxTextArgs> & { readonly flags: ToMaxTextFlags };
  readonly train: RlTrain | SftTrain | DpoTrain;
  readonly toHf: ToHfStep;
  /** Required when runtime is `pathways` (validated). @default - none (McJAX) */
  readonly pathways?: PathwaysSettings;
  /**
   * Env for a single-host TPU VM as tutorial 002 exports it (TPU_SKIP_MDS_QUERY, TPU_WORKER_ID, TPU_TOPOLOGY, ...),
   * derived from the TPU table. Only valid on a single-VM slice.
   * @default false
   */
  readonly tpuVmEnv?: boolean;
}
