/**
 * The trainer kinds and what the shared memory arithmetic (jobs/hbm.ts) needs of a trainer's defaults: the two facts
 * both the method table (jobs/methods/types.ts) and jobs/hbm.ts name, in their own file so neither imports the other's
 * module for them (issue 47: hbm <-> methods/types was an import cycle). Pure; no cdktf.
 */
/** The trainer kinds (`Recipe.train.kind`): one row each. */
export type TrainKind = 'sft' | 'rl' | 'dpo';

/** The defaults of the keys the memory model and the start-up checks read, as the trainer's config file sets them. */
export interface TrainerDefaults {
  readonly weight_dtype: string;
  readonly remat_policy: string;
  readonly decoder_layer_input: string;
  readonly attention: string;
  readonly max_target_length: number;
  /** Trainers whose batch is per device (SFT, DPO). @default - none (RL sizes its batch in prompts) */
  readonly per_device_batch_size?: number;
}
