/**
 * The models the recipes train, by MaxText model name: the one home of their sizes. The HBM estimate
 * (jobs/hbm.ts) reads it; add a row to estimate another model (without one, the fit check says so and skips).
 *
 * Parameter counts: the Hugging Face model cards (Qwen3-30B-A3B: 30.5B total, 3.3B active; Gemma 4 26B-A4B: 25.2B
 * total, 3.8B active, `google/gemma-4-26B-A4B-it`, which the shapes below reproduce: 30 layers x (attention 35M +
 * 128 experts x 3 x 2816 x 704 + shared MLP 3 x 2816 x 2112) + a 262144 x 2816 embedding = 25.2B; Gemma 4 31B: the
 * name; Llama 3.1 8B: 8.03B). Shapes (layers, KV heads, head dim, hidden size, vocabulary, tied embedding):
 * AI-Hypercomputer/maxtext `src/maxtext/configs/models/<name>.yml` at maxtext-v0.2.4 (`base_num_decoder_layers`,
 * `base_num_kv_heads`, `head_dim`, `base_emb_dim`, `vocab_size`, `logits_via_embedding`). Gemma 4 mixes
 * sliding-window and global layers; the estimate counts every layer at the local shape, which is within the
 * estimate's precision for the short sequences RL uses. Pure; no cdktf.
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
  /** Query heads (`base_num_query_heads`): dot-product attention scores are batch x heads x length x length values. */
  readonly heads: number;
  /** Hidden size (`base_emb_dim`): a saved layer input is tokens x hidden values. */
  readonly hidden: number;
  /** Vocabulary (`vocab_size`): the logits are tokens x vocab values. */
  readonly vocab: number;
  /**
   * The output projection is the embedding table (`logits_via_embedding: true`), so there is one vocab x hidden
   * matrix, not two. @default false
   */
  readonly tiedEmbedding?: boolean;
}

export const MODELS: Readonly<Record<string, ModelSize>> = {
  'qwen3-30b-a3b': { params: 30.5e9, activeParams: 3.3e9, layers: 48, kvHeads: 4, headDim: 128, heads: 32, hidden: 2048, vocab: 151936 },
  'gemma4-26b': { params: 25.2e9, activeParams: 3.8e9, layers: 30, kvHeads: 8, headDim: 256, heads: 16, hidden: 2816, vocab: 262144, tiedEmbedding: true },
  'gemma4-31b': { params: 31e9, layers: 60, kvHeads: 16, headDim: 256, heads: 32, hidden: 5376, vocab: 262144, tiedEmbedding: true },
  'llama3.1-8b-Instruct': { params: 8.03e9, layers: 32, kvHeads: 8, headDim: 128, heads: 32, hidden: 4096, vocab: 128256 },
};

/** The size row of a MaxText model name, or undefined when the table has none. */
export function modelSize(name: string): ModelSize | undefined {
  return MODELS[name];
}
