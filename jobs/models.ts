/**
 * The model table: one row per supported MaxText model key, the one home of model facts. The HBM estimate
 * (jobs/hbm.ts) reads the sizes; the pipeline spec (jobs/spec.ts) reads the Hugging Face side (which repositories and
 * architectures a key converts from, whether RL can sync its weights into the sampler, the export name). Adding a
 * model is one row here; a model without a row is refused with the list of keys.
 *
 * Sources, all AI-Hypercomputer/maxtext at tag maxtext-v0.2.4:
 * - shapes: `src/maxtext/configs/models/<key>.yml` (`base_num_decoder_layers`, `base_num_query_heads`,
 *   `base_num_kv_heads`, `head_dim`, `base_emb_dim`, `vocab_size`, `num_experts`, `num_experts_per_tok`,
 *   `logits_via_embedding`); the `-Instruct` Llama keys have no yml of their own (pyconfig reads the base key's; the
 *   shapes are those of `llama31_8b_config` in hf_model_configs.py, which both keys map to);
 * - HF architecture and "converts both ways": `src/maxtext/checkpoint_conversion/utils/hf_model_configs.py`
 *   `HF_MODEL_CONFIGS` (the HF config to_huggingface writes; `architectures`, or the transformers config class's
 *   `*ForCausalLM`) and `utils/param_mapping.py` `PARAM_MAPPING` (the weight mapping both directions use): a key in both;
 * - the default HF repository: `src/maxtext/utils/globals.py` `HF_IDS` (what to_maxtext downloads without
 *   `--hf_model_path`, and what to_huggingface bundles the tokenizer of);
 * - RoPE theta: `rope_max_timescale` of the key's yml (the global layers' for Gemma), compared with the repository's
 *   `rope_theta` (HF_REPO_FACTS below), with `vocab_size` and the layer count: a repository whose facts differ
 *   trains with wrong positions or shapes under the key, and is refused naming the key that fits;
 * - the RL sampler's weight sync (`standaloneVllm`, read per row in the mapping; `maxtextOnVllm`).
 * Parameter counts: the Hugging Face model cards, or the shapes above where the card counts a vision tower the text
 * model does not train (Gemma 3: 48 x (q/o 3840x4096x2 + k/v 3840x2048x2 + MLP 3x3840x15360) + 262144x3840 = 11.8B).
 * Gemma 4 mixes sliding-window and global layers; the estimate counts every layer at the local shape, which is within
 * the estimate's precision for the short sequences RL uses. Pure; no cdktf.
 */

/**
 * Model keys whose weights MaxText's standalone vLLM sampler (vLLM's own HF model class) can receive from the trainer:
 * maxtext-v0.2.4 `src/maxtext/integration/tunix/weight_mapping/__init__.py` `StandaloneVllmWeightMapping.__getattr__`
 * dispatches on these prefixes and raises "vLLM weight mapping not found" for any other key. A recipe that runs the
 * MaxText model inside vLLM instead (`vllm_hf_overrides: {architectures: [MaxTextForCausalLM]}` with
 * `vllm_additional_config.maxtext_config`, tutorials 000/001) syncs with no-op mappings
 * (`src/maxtext/utils/model_creation_utils.py`: `use_no_op_mappings = "maxtext_config" in vllm_additional_config`),
 * but `TunixMaxTextAdapter.__init__` still reads `HF_MODEL_CONFIGS[model_name]`, so that path needs a converting key.
 */
export const STANDALONE_VLLM_PREFIXES = ['llama3.1', 'qwen2', 'qwen3', 'gemma3', 'deepseek3', 'gpt-oss'] as const;

export interface ModelSize {
  /** All parameters (every expert of a MoE model): what weights, gradients and optimizer state scale with. */
  readonly params: number;
  /** Parameters used per token (MoE: active experts). @default - params (dense) */
  readonly activeParams?: number;
  /** Decoder layers, KV heads and head dimension: the KV cache per token is 2 x layers x kvHeads x headDim values. */
  readonly layers: number;
  /** Query heads (`base_num_query_heads`). */
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  /** Hidden size (`base_emb_dim`): a saved layer input is tokens x hidden values. */
  readonly hidden: number;
  /** Vocabulary (`vocab_size`): the logits are tokens x vocab values. */
  readonly vocab: number;
  /**
   * The output projection is the embedding table (`logits_via_embedding: true`), so there is one vocab x hidden
   * matrix, not two. @default false
   */
  readonly tiedEmbedding?: boolean;
  /** Routed experts and experts per token (`num_experts`, `num_experts_per_tok`). @default - dense (no experts) */
  readonly experts?: { readonly total: number; readonly perToken: number };
}

/** One row of the model table: the sizes plus the Hugging Face side of the key. */
export interface ModelRow extends ModelSize {
  /** Family name as users say it, in messages (`Llama 3.1`, `Qwen3`, `Gemma 4`). */
  readonly family: string;
  /**
   * Hugging Face repositories this key converts from, the `HF_IDS` default first: an `hfModel` (or tokenizer) listed
   * under another key is refused naming that key.
   */
  readonly hfRepos: readonly string[];
  /**
   * What a repository name of this key looks like (case-insensitive), for repositories not listed (fine-tunes such as
   * `acme/Qwen3-8B-support`); a name that does not match needs `hfArchitecture` declared.
   */
  readonly hfNamePattern: RegExp;
  /** HF `architectures` the key converts from (hf_model_configs.py). */
  readonly hfArchitectures: readonly string[];
  /** RoPE base frequency (`rope_max_timescale` of the yml; Gemma: the global layers'), the HF `rope_theta`. */
  readonly ropeTheta: number;
  /** In both `HF_MODEL_CONFIGS` and `PARAM_MAPPING`: to_maxtext and to_huggingface both convert it. */
  readonly convertsBothWays: boolean;
  /**
   * The standalone vLLM sampler can receive every weight of the model from the trainer: the mapping
   * StandaloneVllmWeightMapping dispatches the key to (STANDALONE_VLLM_PREFIXES) names each of its weights, MoE experts
   * included. Read per mapping at maxtext-v0.2.4 `src/maxtext/integration/tunix/weight_mapping/`: qwen3.py
   * QWEN3_VLLM_MAPPING maps the dense `mlp.wi_0/wi_1/wo` only, while Qwen3 MoE layers hold `moe_block` (gate and
   * experts: models/qwen3.py line 1604 `Qwen3MoeDecoderLayer.moe_block = RoutedMoE`), so no Qwen3 MoE key has it;
   * llama3.py and gemma3.py map every weight of their dense text models (Gemma ties the output to the embedding).
   */
  readonly standaloneVllm: boolean;
  /** to_huggingface `model_name` of the export. @default - the key */
  readonly exportName?: string;
  /** Where the row's facts come from (files at maxtext-v0.2.4 and the model card). */
  readonly source: string;
}

const YML = (key: string) => `configs/models/${key}.yml`;
const CONVERSION = 'hf_model_configs.py HF_MODEL_CONFIGS + param_mapping.py PARAM_MAPPING';

const LLAMA31_8B = { layers: 32, heads: 32, kvHeads: 8, headDim: 128, hidden: 4096, vocab: 128256, ropeTheta: 500_000 } as const;
const LLAMA31_8B_REPOS = ['meta-llama/Llama-3.1-8B-Instruct', 'meta-llama/Llama-3.1-8B', 'meta-llama/Meta-Llama-3.1-8B-Instruct', 'meta-llama/Meta-Llama-3.1-8B'];

export const MODELS: Readonly<Record<string, ModelRow>> = {
  'qwen3-30b-a3b': {
    params: 30.5e9, activeParams: 3.3e9, layers: 48, heads: 32, kvHeads: 4, headDim: 128, hidden: 2048, vocab: 151936, experts: { total: 128, perToken: 8 },
    // rope_max_timescale: 10_000_000, maxtext-v0.2.4 src/maxtext/configs/models/qwen3-30b-a3b.yml l.37.
    ropeTheta: 10_000_000,
    family: 'Qwen3', hfRepos: ['Qwen/Qwen3-30B-A3B-Thinking-2507', 'Qwen/Qwen3-30B-A3B-Instruct-2507'],
    // The 2507 releases (RoPE theta 10M); the original Qwen3-30B-A3B (1M) is qwen3-30b-a3b-base's.
    hfNamePattern: /qwen-?3-30b-a3b.*2507/i, hfArchitectures: ['Qwen3MoeForCausalLM'], convertsBothWays: true, standaloneVllm: false,
    source: `${YML('qwen3-30b-a3b')}; ${CONVERSION} (qwen3_30b_a3b_thinking_2507_config); card Qwen/Qwen3-30B-A3B-Instruct-2507 (30.5B, 3.3B active)`,
  },
  'qwen3-30b-a3b-base': {
    params: 30.5e9, activeParams: 3.3e9, layers: 48, heads: 32, kvHeads: 4, headDim: 128, hidden: 2048, vocab: 151936, experts: { total: 128, perToken: 8 },
    // rope_max_timescale: 1_000_000, maxtext-v0.2.4 src/maxtext/configs/models/qwen3-30b-a3b-base.yml l.37; the original
    // Qwen/Qwen3-30B-A3B's config.json has the same (HF_REPO_FACTS, with where it was read).
    ropeTheta: 1_000_000,
    family: 'Qwen3', hfRepos: ['Qwen/Qwen3-30B-A3B-Base', 'Qwen/Qwen3-30B-A3B'],
    // The original release and its base (RoPE theta 1M): MaxText's key for them (HF_IDS: Qwen/Qwen3-30B-A3B-Base).
    hfNamePattern: /qwen-?3-30b-a3b(?!.*2507)/i, hfArchitectures: ['Qwen3MoeForCausalLM'], convertsBothWays: true, standaloneVllm: false,
    source: `${YML('qwen3-30b-a3b-base')}; ${CONVERSION} (qwen3_30b_a3b_base_config); card Qwen/Qwen3-30B-A3B (30.5B, 3.3B active)`,
  },
  'qwen3-235b-a22b': {
    params: 235e9, activeParams: 22e9, layers: 94, heads: 64, kvHeads: 4, headDim: 128, hidden: 4096, vocab: 151936, experts: { total: 128, perToken: 8 },
    // rope_max_timescale: 5000000, maxtext-v0.2.4 src/maxtext/configs/models/qwen3-235b-a22b.yml l.38.
    ropeTheta: 5_000_000,
    family: 'Qwen3', hfRepos: ['Qwen/Qwen3-235B-A22B-Thinking-2507', 'Qwen/Qwen3-235B-A22B-Instruct-2507'],
    // The 2507 releases (RoPE theta 5M); MaxText 0.2.4 has no key for the original Qwen3-235B-A22B (1M).
    hfNamePattern: /qwen-?3-235b-a22b.*2507/i, hfArchitectures: ['Qwen3MoeForCausalLM'], convertsBothWays: true, standaloneVllm: false,
    source: `${YML('qwen3-235b-a22b')}; ${CONVERSION} (qwen3_235b_a22b_thinking_2507_config); card Qwen/Qwen3-235B-A22B-Instruct-2507 (235B, 22B active)`,
  },
  'qwen3-8b': {
    params: 8.2e9, layers: 36, heads: 32, kvHeads: 8, headDim: 128, hidden: 4096, vocab: 151936, ropeTheta: 1_000_000,
    family: 'Qwen3', hfRepos: ['Qwen/Qwen3-8B', 'Qwen/Qwen3-8B-Base'], hfNamePattern: /qwen-?3-8b/i,
    hfArchitectures: ['Qwen3ForCausalLM'], convertsBothWays: true, standaloneVllm: true, source: `${YML('qwen3-8b')}; ${CONVERSION}; card Qwen/Qwen3-8B (8.2B)`,
  },
  'qwen3-14b': {
    params: 14.8e9, layers: 40, heads: 40, kvHeads: 8, headDim: 128, hidden: 5120, vocab: 151936, ropeTheta: 1_000_000,
    family: 'Qwen3', hfRepos: ['Qwen/Qwen3-14B', 'Qwen/Qwen3-14B-Base'], hfNamePattern: /qwen-?3-14b/i,
    hfArchitectures: ['Qwen3ForCausalLM'], convertsBothWays: true, standaloneVllm: true, source: `${YML('qwen3-14b')}; ${CONVERSION}; card Qwen/Qwen3-14B (14.8B)`,
  },
  'qwen3-32b': {
    params: 32.8e9, layers: 64, heads: 64, kvHeads: 8, headDim: 128, hidden: 5120, vocab: 151936, ropeTheta: 1_000_000,
    family: 'Qwen3', hfRepos: ['Qwen/Qwen3-32B'], hfNamePattern: /qwen-?3-32b/i,
    hfArchitectures: ['Qwen3ForCausalLM'], convertsBothWays: true, standaloneVllm: true, source: `${YML('qwen3-32b')}; ${CONVERSION}; card Qwen/Qwen3-32B (32.8B)`,
  },
  'gemma4-26b': {
    params: 25.2e9, activeParams: 3.8e9, layers: 30, heads: 16, kvHeads: 8, headDim: 256, hidden: 2816, vocab: 262144, tiedEmbedding: true, ropeTheta: 1_000_000,
    experts: { total: 128, perToken: 8 },
    family: 'Gemma 4', hfRepos: ['google/gemma-4-26b-a4b-it'], hfNamePattern: /gemma-?4-26b/i,
    hfArchitectures: ['Gemma4ForConditionalGeneration'], convertsBothWays: true, standaloneVllm: false,
    source: `${YML('gemma4-26b')}; ${CONVERSION}; card google/gemma-4-26B-A4B-it (25.2B, 3.8B active)`,
  },
  'gemma4-31b': {
    params: 31e9, layers: 60, heads: 32, kvHeads: 16, headDim: 256, hidden: 5376, vocab: 262144, tiedEmbedding: true, ropeTheta: 1_000_000,
    family: 'Gemma 4', hfRepos: ['google/gemma-4-31b-it'], hfNamePattern: /gemma-?4-31b/i,
    hfArchitectures: ['Gemma4ForConditionalGeneration'], convertsBothWays: true, standaloneVllm: false, source: `${YML('gemma4-31b')}; ${CONVERSION}; card google/gemma-4-31b-it (31B)`,
  },
  'gemma3-12b': {
    params: 11.8e9, layers: 48, heads: 16, kvHeads: 8, headDim: 256, hidden: 3840, vocab: 262144, tiedEmbedding: true, ropeTheta: 1_000_000,
    family: 'Gemma 3', hfRepos: ['google/gemma-3-12b-it', 'google/gemma-3-12b-pt'], hfNamePattern: /gemma-?3-12b/i,
    hfArchitectures: ['Gemma3ForConditionalGeneration'], convertsBothWays: true, standaloneVllm: true, source: `${YML('gemma3-12b')}; ${CONVERSION}; text model from the shapes (11.8B)`,
  },
  'gemma3-27b': {
    params: 27.0e9, layers: 62, heads: 32, kvHeads: 16, headDim: 128, hidden: 5376, vocab: 262144, tiedEmbedding: true, ropeTheta: 1_000_000,
    family: 'Gemma 3', hfRepos: ['google/gemma-3-27b-it', 'google/gemma-3-27b-pt'], hfNamePattern: /gemma-?3-27b/i,
    hfArchitectures: ['Gemma3ForConditionalGeneration'], convertsBothWays: true, standaloneVllm: true, source: `${YML('gemma3-27b')}; ${CONVERSION}; text model from the shapes (27.0B)`,
  },
  'llama3.1-8b-Instruct': {
    params: 8.03e9, ...LLAMA31_8B,
    family: 'Llama 3.1', hfRepos: LLAMA31_8B_REPOS, hfNamePattern: /llama-?3\.1-8b/i, hfArchitectures: ['LlamaForCausalLM'], convertsBothWays: true, standaloneVllm: true,
    // Tutorial 002 exports with HF_MODEL_NAME=llama3.1-8b (the same HF_MODEL_CONFIGS entry, llama31_8b_config).
    exportName: 'llama3.1-8b',
    source: `hf_model_configs.py llama31_8b_config (no yml of its own); ${CONVERSION}; card meta-llama/Llama-3.1-8B-Instruct (8.03B)`,
  },
  'llama3.1-8b': {
    params: 8.03e9, ...LLAMA31_8B,
    family: 'Llama 3.1', hfRepos: ['meta-llama/Llama-3.1-8B', 'meta-llama/Llama-3.1-8B-Instruct', 'meta-llama/Meta-Llama-3.1-8B', 'meta-llama/Meta-Llama-3.1-8B-Instruct'],
    hfNamePattern: /llama-?3\.1-8b/i, hfArchitectures: ['LlamaForCausalLM'], convertsBothWays: true, standaloneVllm: true,
    source: `${YML('llama3.1-8b')}; ${CONVERSION}; card meta-llama/Llama-3.1-8B (8.03B)`,
  },
  'llama3.1-70b': {
    params: 70.6e9, layers: 80, heads: 64, kvHeads: 8, headDim: 128, hidden: 8192, vocab: 128256, ropeTheta: 500_000,
    family: 'Llama 3.1', hfRepos: ['meta-llama/Llama-3.1-70B', 'meta-llama/Llama-3.1-70B-Instruct', 'meta-llama/Meta-Llama-3.1-70B-Instruct'],
    hfNamePattern: /llama-?3\.1-70b/i, hfArchitectures: ['LlamaForCausalLM'], convertsBothWays: true, standaloneVllm: true,
    source: `${YML('llama3.1-70b')}; ${CONVERSION}; card meta-llama/Llama-3.1-70B (70.6B)`,
  },
};

/** The supported model keys, in table order. */
export const MODEL_KEYS: readonly string[] = Object.keys(MODELS);

/** The size row of a MaxText model name, or undefined when the table has none. */
export function modelSize(name: string): ModelSize | undefined {
  return MODELS[name];
}

/**
 * The size of a model cut to `layers` decoder layers (MaxText `override_model_config=true base_num_decoder_layers=N`,
 * jobs/rehearsal.ts): the embedding (and, untied, the output projection) stays whole, the decoder layers scale.
 */
export function cutModelSize(size: ModelSize, layers: number): ModelSize {
  if (layers >= size.layers) return size;
  const embedding = size.vocab * size.hidden * (size.tiedEmbedding ? 1 : 2);
  const scale = (total: number) => embedding + ((total - embedding) / size.layers) * layers;
  return { ...size, params: scale(size.params), ...(size.activeParams !== undefined ? { activeParams: scale(size.activeParams) } : {}), layers };
}

/** The table row of a model key, or undefined. */
export function modelRow(key: string): ModelRow | undefined {
  return Object.prototype.hasOwnProperty.call(MODELS, key) ? MODELS[key] : undefined;
}

/** The to_huggingface model name of a key's export (the row's exportName, else the key). */
export function exportNameOf(key: string): string {
  return modelRow(key)?.exportName ?? key;
}

/** Whether the standalone vLLM sampler can sync every weight of the key's model (the row's `standaloneVllm`). */
export function hasStandaloneVllmMapping(key: string): boolean {
  return modelRow(key)?.standaloneVllm ?? false;
}

/** The architecture facts of a Hugging Face repository, from its `config.json`, that must equal its key's. */
export interface HfRepoFacts {
  readonly ropeTheta: number;
  readonly vocab: number;
  readonly layers: number;
  /** Where the facts come from. */
  readonly source: string;
}

/** MaxText at maxtext-v0.2.4 (commit 538fe7a3f3376d94cf3f04e77741aa6d7e8efa45): the conversion's HF configs. */
const HF_CONFIGS = 'AI-Hypercomputer/maxtext maxtext-v0.2.4 (538fe7a3) src/maxtext/checkpoint_conversion/utils/hf_model_configs.py';
/**
 * Repositories of one name family whose releases differ in architecture facts: each release's `config.json` facts,
 * each with where it was read. The 2507 releases of Qwen3 MoE changed RoPE theta (30B-A3B 1M -> 10M, 235B-A22B 1M ->
 * 5M) and kept every shape. The keys' own values are `rope_max_timescale` of maxtext-v0.2.4
 * src/maxtext/configs/models/qwen3-30b-a3b.yml l.37 (10_000_000), qwen3-30b-a3b-base.yml l.37 (1_000_000) and
 * qwen3-235b-a22b.yml l.38 (5000000). The Hub is not reachable from this repository's tests, so the original releases'
 * config.json values are read from public copies of those files, named beside each (an original release says
 * `max_position_embeddings: 40960`, a 2507 release 262144).
 */
export const HF_REPO_FACTS: Readonly<Record<string, HfRepoFacts>> = {
  'Qwen/Qwen3-30B-A3B': {
    ropeTheta: 1_000_000, vocab: 151936, layers: 48,
    // rope_theta 1000000.0, vocab_size 151936, num_hidden_layers 48, max_position_embeddings 40960 (the original release).
    source: 'Qwen/Qwen3-30B-A3B config.json, as copied in alibaba/InferSim f2293dab6d23fe2780356eb71e0ffc3b4baf61dd hf_configs/qwen3-30B-A3B_config.json',
  },
  'Qwen/Qwen3-30B-A3B-Base': { ropeTheta: 1_000_000, vocab: 151936, layers: 48, source: `${HF_CONFIGS} l.721-757 qwen3_30b_a3b_base_config ("Matches Qwen/Qwen3-30B-A3B-Base", rope_theta l.748)` },
  'Qwen/Qwen3-30B-A3B-Instruct-2507': { ropeTheta: 10_000_000, vocab: 151936, layers: 48, source: `${HF_CONFIGS} qwen3_30b_a3b_thinking_2507_config (rope_theta l.712; the Instruct-2507 shares the Thinking-2507 architecture)` },
  'Qwen/Qwen3-30B-A3B-Thinking-2507': { ropeTheta: 10_000_000, vocab: 151936, layers: 48, source: `${HF_CONFIGS} qwen3_30b_a3b_thinking_2507_config (rope_theta l.712)` },
  'Qwen/Qwen3-235B-A22B': {
    ropeTheta: 1_000_000, vocab: 151936, layers: 94,
    // rope_theta 1000000.0, vocab_size 151936, num_hidden_layers 94, max_position_embeddings 40960 (the original release),
    // committed 2025-05-16, before the 2507 releases; zyzshishui/slime a29386384f6fa74b4e926a675b40038a91289659
    // scripts/models/qwen3-235B-A22B.sh converts it with `--rotary-base 1000000`.
    source:
      'Qwen/Qwen3-235B-A22B config.json, as copied in ayushi-uwc/elo-benchmark-mathematical-reasoning abd47879937fccdf603f9a53d91efe5b5ec4879f litellm_config.py HARD_CODED_CONFIGS',
  },
  'Qwen/Qwen3-235B-A22B-Instruct-2507': {
    ropeTheta: 5_000_000, vocab: 151936, layers: 94,
    source: `${HF_CONFIGS} qwen3_235b_a22b_thinking_2507_config (rope_theta l.785); a 2507 config.json (rope_theta 5000000, max_position_embeddings 262144) in alibaba/InferSim f2293da hf_configs/qwen3-235B-A22B_config.json`,
  },
  'Qwen/Qwen3-235B-A22B-Thinking-2507': { ropeTheta: 5_000_000, vocab: 151936, layers: 94, source: `${HF_CONFIGS} qwen3_235b_a22b_thinking_2507_config (rope_theta l.785)` },
};

/** The recorded facts of a repository (case-insensitive name), or undefined. */
export function hfRepoFacts(repo: string): HfRepoFacts | undefined {
  const name = Object.keys(HF_REPO_FACTS).find((r) => r.toLowerCase() === repo.toLowerCase());
  return name === undefined ? undefined : HF_REPO_FACTS[name];
}

/** The facts of `facts` that differ from the key's row, as text (`RoPE theta 1000000 where k has 10000000`), or []. */
function factDifferences(key: string, row: ModelRow, facts: HfRepoFacts, tokenizerOnly: boolean): string[] {
  const out: string[] = [];
  if (!tokenizerOnly && facts.ropeTheta !== row.ropeTheta) out.push(`RoPE theta ${facts.ropeTheta} where ${key} has ${row.ropeTheta}`);
  if (facts.vocab !== row.vocab) out.push(`vocabulary ${facts.vocab} where ${key} has ${row.vocab}`);
  if (!tokenizerOnly && facts.layers !== row.layers) out.push(`${facts.layers} layers where ${key} has ${row.layers}`);
  return out;
}

/**
 * Why a repository with recorded facts is not `key`'s: each fact that differs, and the key whose facts are the
 * repository's, or that no key of the table (nor of MaxText 0.2.4) has them. Undefined when the facts agree or none are
 * recorded.
 */
function factsProblem(key: string, row: ModelRow, repo: string, tokenizerOnly: boolean): string | undefined {
  const facts = hfRepoFacts(repo);
  if (facts === undefined) return undefined;
  const differ = factDifferences(key, row, facts, tokenizerOnly);
  if (differ.length === 0) return undefined;
  const fits = MODEL_KEYS.filter((k) => MODELS[k].family === row.family && factDifferences(k, MODELS[k], facts, tokenizerOnly).length === 0);
  const fix =
    fits.length > 0
      ? `use model ${fits.map((k) => `'${k}'`).join(' or ')}`
      : `no key of the model table has these facts (nor has MaxText 0.2.4 configs/models): use one of ${key}'s repositories (${row.hfRepos.join(', ')})`;
  return (
    `has ${differ.join(', ')} (${facts.source}; configs/models/${key}.yml): converted under ${key} it would train with ` +
    `wrong positions or shapes; ${fix}`
  );
}

/** The RL sampler paths the key has at maxtext-v0.2.4, for the docs table and messages. */
export function rlSamplerPaths(key: string): Array<'vllm' | 'maxtext-on-vllm'> {
  const row = modelRow(key);
  return [...(hasStandaloneVllmMapping(key) ? (['vllm'] as const) : []), ...(row?.convertsBothWays ? (['maxtext-on-vllm'] as const) : [])];
}

/**
 * Why `repo` (an `hfModel` or tokenizer) is not a repository of model `key`, or undefined when it is: a repository
 * whose recorded architecture facts (HF_REPO_FACTS) differ from the key's is refused naming the key that fits (a
 * tokenizer: only the vocabulary counts); a repository the table lists under another key is that key's; one the table does not list must have a name of the key's family and
 * size, or a declared `architecture` the key converts from. Offline: names and declarations only (the Hub is not read).
 */
export function hfRepoProblem(key: string, repo: string, architecture?: string, tokenizerOnly = false): string | undefined {
  const row = modelRow(key);
  if (!row) return undefined;
  const differs = factsProblem(key, row, repo, tokenizerOnly);
  if (differs !== undefined) return differs;
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const expected = `${key} converts from ${row.hfRepos.join(', ')} (${row.hfArchitectures.join(', ')})`;
  if (row.hfRepos.some((r) => same(r, repo))) return undefined;
  const owner = MODEL_KEYS.find((k) => k !== key && MODELS[k].hfRepos.some((r) => same(r, repo)));
  if (owner !== undefined) return `is ${owner}'s repository (${MODELS[owner].family}, ${MODELS[owner].hfArchitectures.join(', ')}), not ${key}'s: ${expected}`;
  if (architecture !== undefined) {
    return row.hfArchitectures.includes(architecture) ? undefined : `declares architecture '${architecture}', which ${key} does not convert: ${expected}`;
  }
  if (row.hfNamePattern.test(repo)) return undefined;
  const sibling = MODEL_KEYS.find((k) => k !== key && MODELS[k].family === row.family && MODELS[k].hfNamePattern.test(repo));
  if (sibling !== undefined) {
    return (
      `names a release of ${sibling} (${MODELS[sibling].hfRepos.join(', ')}: RoPE theta ${MODELS[sibling].ropeTheta}), not of ${key} ` +
      `(RoPE theta ${row.ropeTheta}): ${expected}; use model '${sibling}'`
    );
  }
  return (
    `does not name a ${row.family} model of ${key}'s size: ${expected}; for a repository whose name does not say the model ` +
    `(a fine-tune), declare its architecture from its config.json with hfArchitecture`
  );
}

/**
 * The serveability column: how the serving image (jobs/vllm.ts VLLM_IMAGES) loads each key's export, kept apart
 * from the rows above. `exportArchitecture` is what to_huggingface writes into config.json at maxtext-v0.2.4:
 * `HF_MODEL_CONFIGS[key].architectures`, replaced by transformers' causal-LM mapping for the config's model_type
 * when it has one (checkpoint_conversion/utils/utils.py save_config_file). With `use_multimodal` false (its default,
 * configs/base.yml) to_huggingface drops every `vision_encoder` weight and writes no processor
 * (to_huggingface.py main), but the config keeps its `vision_config`: a Gemma export declares a multimodal class it
 * has no weights for.
 */
export interface ServingRow {
  /** `architectures[0]` of the export's config.json. */
  readonly exportArchitecture: string;
  /** The class the image builds for it, after `vllmArgs`. */
  readonly servedArchitecture: string;
  /** `vllm serve` arguments the export needs (both the eval step and the serve stack pass them). @default - none */
  readonly vllmArgs?: readonly string[];
  /** Why the pinned image cannot serve the export: eval and serve are refused at synth with it. @default - servable */
  readonly unservable?: string;
  readonly source: string;
}

const GEMMA4_TEXT_ONLY = {
  exportArchitecture: 'Gemma4ForConditionalGeneration',
  servedArchitecture: 'Gemma4ForCausalLM',
  // vLLM's --hf-overrides replaces config.architectures; tpu-inference (11250b4 models/jax/gemma4.py) Gemma4ForCausalLM
  // reads hf_config.text_config (the nested config MaxText writes) and skips weights named vision/audio/multi_modal.
  vllmArgs: ['--hf-overrides', '{"architectures":["Gemma4ForCausalLM"]}'],
  source:
    'maxtext-v0.2.4 hf_model_configs.py gemma4_*_dict (Gemma4ForConditionalGeneration, text_config + vision_config); ' +
    'tpu-inference 11250b4 model_loader.py _MODEL_REGISTRY["Gemma4ForCausalLM"] (#3070, 4d1b99c90), models/jax/gemma4.py load_weights skip_substrs',
} as const;
const GEMMA3_UNSERVABLE = {
  exportArchitecture: 'Gemma3ForConditionalGeneration',
  servedArchitecture: 'Gemma3ForConditionalGeneration',
  unservable:
    'its export (MaxText maxtext-v0.2.4 to_huggingface) declares Gemma3ForConditionalGeneration with a vision_config but ' +
    'holds no vision weights; tpu-inference 11250b4 registers no JAX Gemma 3 class, so the image builds vLLM\'s PyTorch ' +
    'Gemma3ForConditionalGeneration with its vision tower, whose weights are missing (deduced, not run)',
  source: 'maxtext-v0.2.4 hf_model_configs.py gemma3_*_config; tpu-inference 11250b4 model_loader.py _MODEL_REGISTRY (no Gemma3)',
} as const;
const plain = (architecture: string, path: 'JAX' | 'torchax'): ServingRow => ({
  exportArchitecture: architecture,
  servedArchitecture: architecture,
  source:
    `maxtext-v0.2.4 hf_model_configs.py (${architecture}); tpu-inference 11250b4 model_loader.py ` +
    (path === 'JAX' ? '_MODEL_REGISTRY' : '_VLLM_PREFERRED_ARCHITECTURES -> vLLM\'s PyTorch class through torchax'),
});

export const SERVING: Readonly<Record<string, ServingRow>> = {
  'qwen3-30b-a3b': plain('Qwen3MoeForCausalLM', 'torchax'),
  'qwen3-30b-a3b-base': plain('Qwen3MoeForCausalLM', 'torchax'),
  'qwen3-235b-a22b': plain('Qwen3MoeForCausalLM', 'torchax'),
  'qwen3-8b': plain('Qwen3ForCausalLM', 'JAX'),
  'qwen3-14b': plain('Qwen3ForCausalLM', 'JAX'),
  'qwen3-32b': plain('Qwen3ForCausalLM', 'JAX'),
  'gemma4-26b': GEMMA4_TEXT_ONLY,
  'gemma4-31b': GEMMA4_TEXT_ONLY,
  'gemma3-12b': GEMMA3_UNSERVABLE,
  'gemma3-27b': GEMMA3_UNSERVABLE,
  'llama3.1-8b-Instruct': plain('LlamaForCausalLM', 'JAX'),
  'llama3.1-8b': plain('LlamaForCausalLM', 'JAX'),
  'llama3.1-70b': plain('LlamaForCausalLM', 'JAX'),
};

/** The serveability of a key, or undefined when the table has no row for it. */
export function servingOf(key: string): ServingRow | undefined {
  return Object.prototype.hasOwnProperty.call(SERVING, key) ? SERVING[key] : undefined;
}
