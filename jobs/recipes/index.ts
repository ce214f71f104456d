/**
 * The presets: the four tutorials as recipes, by stack name. A pipeline of your own is a config entry
 * (`pipelines.<name>`, resolved by jobs/spec.ts), which may `extends` one of these; a new preset is for a tutorial this
 * project reproduces: one file next to these, listed here.
 */
import { rlGemma4 } from './rl-gemma4';
import { rlLlama3 } from './rl-llama3';
import { rlQwen3 } from './rl-qwen3';
import { sftGemma4 } from './sft-gemma4';
import { Recipe } from './types';

export type { Recipe } from './types';

export const RECIPES: Readonly<Record<string, Recipe>> = {
  [rlQwen3.name]: rlQwen3,
  [rlGemma4.name]: rlGemma4,
  [sftGemma4.name]: sftGemma4,
  [rlLlama3.name]: rlLlama3,
};
