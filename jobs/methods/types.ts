/**
 * The shape of one row of the method table (jobs/methods/index.ts): a MaxText post-training trainer, with everything
 * the program does differently for it. A new method is one file under jobs/methods/ plus its row; nothing outside this
 * folder tests a method by name (__tests__/architecture.test.ts). Pure; no cdktf.
 */
import type { HbmEstimate, HbmInput } from '../hbm';
import type { MaxTextArgs, Recipe } from '../recipes/types';
import type { TrainerDefaults, TrainKind } from './kind';

export type { TrainerDefaults, TrainKind } from './kind';


/**
 * What a dataset column holds, as the lock records it (post-training.lock.json `datasets["<repo>@<rev>"].configs[<config>]
 * .columns[<col>]`, issue 43) or the config declares it: plain text, a list of `{role, content}` messages, a number, or
 * anything else.
 */
export type ColumnType = 'text' | 'messages' | 'number' | 'other';

/** The dataset of an entry, as the config file spells it. */
export interface DatasetSpec {
  /** Hugging Face dataset repository, e.g. `HuggingFaceH4/ultrachat_200k`. */
  readonly hf?: string;
  /** The dataset's config (subset), e.g. `main`. @default - the method's (MethodRow.dataset docs) */
  readonly config?: string;
  /** Training split. @default - the method's MaxText config file's */
  readonly split?: string;
  /** The evaluation split: RL `eval_split` (rl.yml l.244 `test`); SFT `hf_eval_split` (sft.yml l.40 `test_sft`), which the `heldout` eval task scores. @default - the method's config file's */
  readonly evalSplit?: string;
  /** Dataset commit, recorded in the run record (MaxText 0.2.4 has no key to pin it). @default - none */
  readonly revision?: string;
  /** The column(s) the method reads (SFT: the chat column; DPO: [prompt,] chosen, rejected). @default - the method's */
  readonly columns?: readonly string[];
  /** What each column holds (ColumnType), from the config or the lock. @default - not known: nothing is refused for it */
  readonly columnTypes?: Readonly<Record<string, ColumnType>>;
  /** RL only: a `.json` prompt template of the repository, shipped to the pods (`data_template_path`). @default - rl.yml's (gsm8k_rl.json) or the preset's */
  readonly template?: string;
  /** RL only: a `.py` file of the repository defining `process_data`, shipped to the pods (`dataset_processor_path`). @default - MaxText's built-in process_data */
  readonly processor?: string;
}

/**
 * One typed training setting of a method (`pipelines.<name>.training.<setting>`): the MaxText key it sets, where its
 * default was read (maxtext-v0.2.4), the value a run gets without it, and what it may be.
 */
export interface TrainingSetting {
  /** The MaxText key it sets. */
  readonly key: string;
  /** The file and line the default was read from (AI-Hypercomputer/maxtext maxtext-v0.2.4). */
  readonly source: string;
  /** The value MaxText runs with when neither the setting nor the recipe passes the key (the method's config file's). */
  readonly default: number | string | boolean;
  /** What it may be: a whole number >= 1, a number > 0, >= 0, in [0, 1], a boolean, or one of `values`. */
  readonly kind: 'int' | 'positive' | 'nonneg' | 'fraction' | 'bool' | 'enum';
  /** For `enum`. @default - none */
  readonly values?: readonly string[];
  /** One line: what it is. */
  readonly doc: string;
  /** The MaxText arguments it sets from its value and the recipe's arguments. @default - `{ [key]: value }` */
  readonly toArgs?: (value: number, args: MaxTextArgs) => MaxTextArgs;
  /** The value that runs, read back from the arguments. @default - `args[key]`, else `default` */
  readonly fromArgs?: (args: MaxTextArgs) => number;
}


/** Which log lines of the training container this project reads (jobs/run-log.ts). */
export interface MethodLog {
  /** Per-step progress (group 1: steps done). */
  readonly progress: RegExp;
  /** The loss on a progress line (group 1). */
  readonly loss: RegExp;
  /** RE2 form of `progress` for the stall alert's log-based metric. */
  readonly progressLql: string;
}

/** One row of the method table. */
export interface MethodRow {
  readonly kind: TrainKind;
  /** The user-facing methods this trainer runs, each with the MaxText keys that select it (the first is the default). */
  readonly methods: Readonly<Record<string, MaxTextArgs>>;
  /** `python3 -m <module>` (maxtext-v0.2.4). */
  readonly module: string;
  /** The config file pyconfig loads for the module (pyconfig.py `_CONFIG_FILE_FOR_MODULE`-style table, l.51-57). */
  readonly configFile: string;
  /** The types.py class the module validates its keys with. */
  readonly configClass: 'MaxTextConfig' | 'RLConfig';
  /** What the loss is, one line (docs and messages). */
  readonly loss: string;
  /** The MaxText key `steps` sets. */
  readonly stepsKey: string;
  /** The steps a new pipeline trains when `steps` is not set. */
  readonly defaultSteps: number;
  /** The step of the last checkpoint training writes (the one the export reads). */
  readonly lastStep: (args: MaxTextArgs) => number;
  /** Below `<run>/checkpoints/`: where a step's `model_params` sit (`actor/` for RL). */
  readonly checkpointSubdir: string;
  /** Training honours `max_num_checkpoints_to_keep` (train_rl.py); others keep every checkpoint. */
  readonly keepsCheckpoints: boolean;
  readonly defaults: TrainerDefaults;
  /** `num_vocab_tiling` > 1 is accepted (SFT's loss tiles the logits; RLConfig and train_dpo refuse it). */
  readonly vocabTiling: boolean;
  /** The HBM estimate of one training step (jobs/hbm.ts holds the shared arithmetic). */
  readonly memory: (input: HbmInput) => HbmEstimate;
  /** A vLLM sampler beside the trainer (RL): the rollout rules of jobs/validate.ts apply. */
  readonly rollout: boolean;
  /** `scan_layers` training gets when not passed, or undefined when it reads the checkpoint's. */
  readonly scanLayersDefault?: boolean;
  /** What a resume repeats besides the steps since the restored checkpoint. */
  readonly resumeRepeats: string;
  readonly log: MethodLog;
  /** The eval step's tasks when the config names none (jobs/eval.ts EVAL_TASKS). */
  readonly defaultEval: readonly string[];
  /** The `heldout` eval task (the dataset's evaluation split of chat messages) applies. */
  readonly heldoutEval: boolean;
  /** The dataset MaxText's config file trains on when the recipe names none (for lineage). @default - none */
  readonly builtInDataset?: string;
  /** An example dataset repository for messages. */
  readonly exampleDataset: string;
  /**
   * Why the method's MaxText data path refuses these columns holding these types, or undefined: a model of upstream's
   * rule citing its source (a column whose type is not known passes). Pure: (columns, types) in, a message out.
   */
  readonly columnTypesProblem: (columns: readonly string[], types: Readonly<Record<string, ColumnType>>, at: string) => string | undefined;
  /** The MaxText arguments of an entry's `dataset`, or its problems (`at`: the key prefix for messages). */
  readonly dataset: (d: DatasetSpec, at: string) => { readonly args: MaxTextArgs; readonly problems: readonly string[] };
  /**
   * The tokens one optimizer step trains on, at least (jobs/step-time.ts bounds a step's time from them): MaxText pads
   * every sequence to `max_target_length`, so batch x sequence length is computed whatever the data holds; with the
   * arguments' label (`per_device_batch_size=1 x 8 chips x 2048 tokens`).
   */
  readonly stepTokens: (args: MaxTextArgs, chips: number) => { readonly tokens: number; readonly label: string };
  /** The typed settings that size a step (`stepTokens`), named in the deadline advice. */
  readonly stepSettings: readonly string[];
  /** The typed training settings (`pipelines.<name>.training`), by name. */
  readonly settings: Readonly<Record<string, TrainingSetting>>;
  /** A reward file applies (RL). */
  readonly reward: boolean;
  /** A dataset template and processor file apply (RL: train_rl.py prepare_datasets). */
  readonly datasetFiles: boolean;
  /** LoRA applies (train_sft is the only trainer that applies it at maxtext-v0.2.4). */
  readonly lora: boolean;
  /** The base of a new pipeline without `extends` (model, data, slice and steps filled in by jobs/spec.ts). */
  readonly base: Recipe;
  /** A new pipeline from `base` may run on more than one TPU VM (RL's base is single-host). */
  readonly multiHostBase: boolean;
}
