/**
 * The models the recipes train, by MaxText model name: the one home of their sizes. The HBM estimate
 * (jobs/hbm.ts) reads it; add a row to estimate another model (without one, the fit check says so and skips).
 *
 * Parameter counts: the models' own names and Hugging Face cards (Qwen3-30B-A3B: 30.5B total, 3.3B active;
 * Gemma 4 26B-A4B; Gemma 4 31B; Llama 3.1 8B: 8.03B). Attention shapes (layers, KV heads, head dim) for the KV cache:
 * AI-Hypercomputer/maxtext `src/maxtext/configs/models/<name>.yml` at maxtext-v0.2.4 (`base_num_decoder_layers`,
 * `base_num_kv_heads`, `head_dim`). Gemma 4 mixes sliding-window and global layers; the estimate counts every layer
 * at the local shape, which is within the estimate's precision for the short sequences RL uses. Pure; no cdktf.
 */

export interface ModelSize {
  /** All parameters (every expert of a MoE model): what weights, gradients and optimizer state scale with. */
  readonly params: number;
  /** Parameters used per token (MoE: active experts). @default - params (dense) */
  readonly activeParams?: number;
  /** Decoder layers, KV heads and head dimension: the KV cache per token is 2 x layers x kvHeads x headDim values. */
  readonly layers: number;
  readonly kvHeads: number;
  readonly headDim: number;
}

export const MODELS: Readonly<Record<string, ModelSize>> = {
  'qwen3-30b-a3b': { params: 30.5e9, activeParams: 3.3e9, layers: 48, kvHeads: 4, headDim: 128 },
  'gemma4-26b': { params: 26e9, activeParams: 4e9, layers: 30, kvHeads: 8, headDim: 256 },
  'gemma4-31b': { params: 31e9, layers: 60, kvHeads: 16, headDim: 256 },
  'llama3.1-8b-Instruct': { params: 8.03e9, layers: 32, kvHeads: 8, headDim: 128 },
};

/** The size row of a MaxText model name, or undefined when the table has none. */
export function modelSize(name: string): ModelSize | undefined {
  return MODELS[name];
}
