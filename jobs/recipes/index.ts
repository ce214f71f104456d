/**
 * The recipe registry: stack name -> recipe. To add a pipeline, add one file next to these (copy the closest
 * tutorial), export a `Recipe`, and list it here; `main.ts` makes a stack for every entry.
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
