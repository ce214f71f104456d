/**
 * vLLM on TPU: the one home of the serving facts the eval step (jobs/eval.ts) and the serve stack (jobs/serve.ts)
 * share: the pinned images, the server's port, health endpoint and probes, and the serving fit check (weights plus KV
 * cache per chip on a single-host slice). Pure; no cdktf.
 *
 * Read at (see docs/pipelines.md "Evaluation"):
 *   - vllm-project/tpu-inference b8692ff (2026-08-22) examples/offload/gke/benchmarks/single-host/deploy-cpu-offload.yaml:
 *     `vllm serve <model> --port 8000 --tensor-parallel-size N --seed 42 --gpu-memory-utilization 0.9`,
 *     startup/liveness/readiness probes on `GET /health` port 8000 (startup: period 30 s, failureThreshold 120),
 *     `google.com/tpu` requested = limited, the gcsfuse CSI volume for a bucket. The image is VLLM_IMAGES' (below), whose
 *     features are read at the commits its tag names, not at b8692ff.
 *   - vllm-project/tpu-inference v0.27.0 support_matrices/nightly/v6e/default/model_support_matrix.csv: Qwen3-30B-A3B,
 *     Llama-3.1-8B-Instruct and gemma-4-31B-it pass on v6e; release images are `vllm/vllm-tpu:latest` (docs), which moves.
 *   - AI-Hypercomputer/tpu-recipes c8cfe2f inference/trillium/vLLM/Gemma4/docker-compose-gemma4-{26B-A4B,31B}.yml:
 *     `--max-model-len 16384 --tensor-parallel-size 8` (their `vllm/vllm-tpu:gemma4` image names no commits, so it is not
 *     pinned here); Qwen3/README.md: a 32B model needs at least 4 chips (v6e-4, topology 2x2), a 4B one 1 chip.
 *   - Google Cloud "Serve an LLM using TPU Trillium on GKE with vLLM": single-host only (ct6e-standard-8t for Llama 3.1
 *     70B); multi-host vLLM on TPU is not supported on GKE, so a model that needs more than one host is refused.
 */
import { ModelSize, modelSize } from './models';
import { GENERATIONS, TpuGeneration, TpuSlice, tpuSlice } from './tpu';

/** vLLM's OpenAI-compatible server port and health endpoint (tpu-inference deploy-cpu-offload.yaml). */
export const VLLM_PORT = 8000;
export const VLLM_HEALTH_PATH = '/health';

/**
 * One pinned serving image and the upstream commits it contains. A nightly's tag names its commits:
 * vllm-project/tpu-inference .buildkite/nightly_releases.yml (same text at 11250b4 and v0.27.0) tags
 * `nightly-$DATE-${BUILDKITE_COMMIT:0:7}-${VLLM_COMMIT_HASH:0:7}` and builds docker/Dockerfile, which clones vLLM at
 * VLLM_COMMIT_HASH and installs `lm-eval[api,math]==0.4.12`. Release tags (`v0.27.0`) are built by no recipe in the
 * repository, so their commits are not knowable offline; this program pins nightlies only.
 */
export interface VllmImage {
  /** `vllm/vllm-tpu:<tag>`. */
  readonly tag: string;
  /** The tpu-inference commit (the tag's first sha, expanded in the mirror) and its date. */
  readonly tpuInference: string;
  /** The vLLM commit (the tag's second sha = tpu-inference's .buildkite/vllm_lkg.version at that commit). */
  readonly vllm: string;
  /** lm-evaluation-harness the image's Dockerfile installs (docker/Dockerfile `lm-eval[api,math]==`). */
  readonly lmEval: string;
  /** Features the eval and serve steps rely on, read at `tpuInference`. */
  readonly features: {
    /** tpu-inference #2750 (659d18cc4, first released in v0.22.x): prompt log-probabilities, which log-likelihood tasks need. */
    readonly promptLogprobs: boolean;
    /** LoRA adapters at serve time: only on the vLLM-PyTorch (torchax) path, not the JAX one (model_loader.py `lora_manager = None`). */
    readonly loraOnJaxPath: boolean;
  };
  /** Architectures the JAX (flax_nnx) path registers: tpu_inference/models/common/model_loader.py `_MODEL_REGISTRY`. */
  readonly jaxArchitectures: readonly string[];
  /** Architectures the JAX registry has but that run vLLM's PyTorch class: model_loader.py `_VLLM_PREFERRED_ARCHITECTURES`. */
  readonly vllmPreferred: readonly string[];
  /**
   * Architectures outside the JAX registry that this program serves through the torchax fallback
   * (model_loader.py falls back to vLLM's own class): vLLM `vllm/model_executor/models/registry.py`
   * `_TEXT_GENERATION_MODELS`, read at a stored vLLM version (0002bff0), not at `vllm`: the vLLM mirror could not be
   * fetched (1.1 GB snapshot).
   */
  readonly vllmFallback: readonly string[];
  /** Where each value above was read. */
  readonly sources: readonly string[];
}

/**
 * The serving image table. One row: every model key is served and scored with it (Gemma 4 too: its text-only class
 * Gemma4ForCausalLM is registered from tpu-inference v0.25.0, #3070 4d1b99c90, an ancestor of 11250b4).
 */
export const VLLM_IMAGES: Readonly<Record<string, VllmImage>> = {
  'nightly-20260816': {
    tag: 'vllm/vllm-tpu:nightly-20260816-11250b4-1d2d83a',
    tpuInference: '11250b46bfcacbedc2a21128ec285e55d263211b (2026-08-15, main; after v0.26.0, contains 659d18cc4 #2750 and 4d1b99c90 #3070)',
    vllm: '1d2d83a07fd3180068917a031c28dcc83141d0be',
    lmEval: '0.4.12',
    features: { promptLogprobs: true, loraOnJaxPath: false },
    jaxArchitectures: [
      'Llama4ForCausalLM', 'DeepseekV3ForCausalLM', 'LlamaForCausalLM', 'Llama4ForConditionalGeneration', 'Qwen3ForCausalLM',
      'Qwen2_5_VLForConditionalGeneration', 'Eagle3LlamaForCausalLM', 'GptOssForCausalLM', 'Qwen2ForCausalLM',
      'Gemma4ForConditionalGeneration', 'Gemma4ForCausalLM', 'Gemma4MTPModel', 'DFlashForCausalLM', 'DFlashDraftModel',
    ],
    vllmPreferred: ['GptOssForCausalLM', 'Qwen3MoeForCausalLM', 'KimiK25ForConditionalGeneration', 'Qwen3_5MoeForConditionalGeneration'],
    vllmFallback: ['Qwen3MoeForCausalLM', 'Gemma3ForCausalLM', 'Gemma3ForConditionalGeneration'],
    sources: [
      'tag: a third-party manifest in the search index ("nightly-20260816-11250b4-1d2d83a or newer, pinned in the manifest"); format: tpu-inference .buildkite/nightly_releases.yml',
      'tpu-inference 11250b4 .buildkite/vllm_lkg.version = 1d2d83a07fd3 (the tag\'s vLLM sha)',
      'tpu-inference 11250b4 docker/Dockerfile:73 lm-eval[api,math]==0.4.12',
      'tpu-inference 11250b4 tpu_inference/models/common/model_loader.py _MODEL_REGISTRY, _VLLM_PREFERRED_ARCHITECTURES, lora_manager = None (JAX path)',
      'tpu-inference 11250b4 tpu_inference/runner/tpu_runner.py: prompt_logprobs raise only for multimodal models (all --limit-mm-per-prompt limits 0 counts as text-only) and speculative decoding',
      'vLLM must also know an overridden architecture: vLLM registry.py _TEXT_GENERATION_MODELS "Gemma4ForCausalLM": ("gemma4", ...) seen only in third-party copies of the registry, not read at 1d2d83a',
      'digest: not knowable offline (no container registry reachable)',
    ],
  },
};

/** The image every model is served and scored with. */
export const VLLM_IMAGE_ROW: VllmImage = VLLM_IMAGES['nightly-20260816'];


/** The reference of the pinned image. */
export const VLLM_TPU_IMAGE = VLLM_IMAGE_ROW.tag;

/** The vLLM image for a MaxText model key: one image for all (VLLM_IMAGES). */
export function vllmImage(_model: string): string {
  return VLLM_TPU_IMAGE;
}

/** Whether `architecture` is one the image loads (JAX registry, or vLLM's class through the torchax fallback). */
export function imageLoads(row: VllmImage, architecture: string): boolean {
  return row.jaxArchitectures.includes(architecture) || row.vllmFallback.includes(architecture);
}

/**
 * `--gpu-memory-utilization` the servers run with (tpu-inference example): the share of each chip's usable HBM vLLM may
 * take. On TPU it multiplies XLA's limit, not the chip's nominal HBM: tpu-inference b8692ff
 * tpu_inference/worker/tpu_worker.py `determine_available_memory` caps `bytes_limit` (jax `memory_stats()`, summed over
 * the local devices by utils.hbm_usage_bytes) x gpu_memory_utilization, minus what is in use. That limit is the TPU
 * table's `usableHbmGibPerChip` (jobs/tpu.ts, 31.25 GiB on v6e), the one home of the figure.
 */
export const HBM_UTILIZATION = 0.9;
/** `--max-model-len`: the longest prompt plus answer one sequence may hold (tpu-recipes' Gemma 4 recipes). */
export const DEFAULT_MAX_MODEL_LEN = 16384;
/** Sequences of max-model-len the KV cache must hold at once for a slice to count as fitting. */
export const DEFAULT_SERVE_SEQUENCES = 8;
/** Bytes per weight and KV-cache value in bf16, the dtype the exports are written in (recipes' `weight_dtype`). */
export const BF16_BYTES = 2;

/**
 * How fast a server reads its weights, bytes per second: the base model from Hugging Face into the pod's disk, the
 * export through the Cloud Storage FUSE mount. A conservative planning figure, not measured here (only a real node
 * shows it); the startup windows below scale with it.
 */
export const WEIGHT_READ_BYTES_PER_SECOND = 50e6;
/** Minutes vLLM on TPU compiles and warms up after the weights are in HBM (planning figure; a real TPU shows it). */
export const COMPILE_MINUTES = 30;
/** The vLLM TPU image unpacked on a node's boot disk, GB (a third-party note measured the 2026-06 nightly at 10.2 GB compressed; doubled for unpacking). */
export const IMAGE_DISK_GB = 21;
/** A TPU node pool's boot disk when nothing sets it, GB (constructs/tpu-slice-pool.ts `diskSizeGb` default). */
export const TPU_POOL_DISK_GB = 100;

/** Bytes of a model's bf16 weights on disk. */
export function weightBytes(model: ModelSize): number {
  return model.params * BF16_BYTES;
}

/** Seconds a server may take to answer /health: read the weights at WEIGHT_READ_BYTES_PER_SECOND, then compile. */
export function serverStartSeconds(model: ModelSize): number {
  return Math.ceil(weightBytes(model) / WEIGHT_READ_BYTES_PER_SECOND) + COMPILE_MINUTES * 60;
}

/** What the fit check weighs, per chip. */
export interface ServingFit {
  /** The slice tried. */
  readonly slice: TpuSlice;
  /** Tensor parallelism: every chip of the host. */
  readonly tensorParallel: number;
  readonly weightBytesPerChip: number;
  readonly kvBytesPerChip: number;
  /** HBM_UTILIZATION of one chip's usable HBM (the TPU table's usableHbmGibPerChip: XLA's bytes_limit). */
  readonly usableBytesPerChip: number;
  readonly fits: boolean;
}

/** Serving settings the fit check reads. */
export interface ServingShape {
  /** @default DEFAULT_MAX_MODEL_LEN */
  readonly maxModelLen?: number;
  /** @default DEFAULT_SERVE_SEQUENCES */
  readonly sequences?: number;
}

/**
 * Weights plus KV cache per chip with tensor parallelism over every chip of `slice`: weights split evenly; the KV
 * cache holds `sequences x maxModelLen` tokens of 2 x layers x ceil(kvHeads / TP) x headDim values (vLLM replicates
 * KV heads when TP exceeds them). Fits when that is at most HBM_UTILIZATION of a chip's usable HBM (XLA's limit).
 */
export function servingFit(model: ModelSize, slice: TpuSlice, shape: ServingShape = {}): ServingFit {
  const tp = slice.chips;
  const tokens = (shape.maxModelLen ?? DEFAULT_MAX_MODEL_LEN) * (shape.sequences ?? DEFAULT_SERVE_SEQUENCES);
  const weightBytesPerChip = (model.params * BF16_BYTES) / tp;
  const kvBytesPerChip = tokens * 2 * model.layers * Math.ceil(model.kvHeads / tp) * model.headDim * BF16_BYTES;
  const usableBytesPerChip = slice.usableHbmGibPerChip * 2 ** 30 * HBM_UTILIZATION;
  return { slice, tensorParallel: tp, weightBytesPerChip, kvBytesPerChip, usableBytesPerChip, fits: weightBytesPerChip + kvBytesPerChip <= usableBytesPerChip };
}

/** Every single-host slice (one VM) of a generation, fewest chips first, from the TPU table. */
export function singleHostSlices(generation: TpuGeneration): TpuSlice[] {
  const machines = GENERATIONS[generation].machines as Readonly<Record<string, { readonly topologies: readonly string[] }>>;
  return Object.entries(machines)
    .flatMap(([machineType, m]) => m.topologies.map((t) => tpuSlice(machineType, t)))
    .filter((s) => !s.multiHost)
    .sort((a, b) => a.chips - b.chips);
}

function gb(bytes: number): string {
  return `${(bytes / 1e9).toFixed(1)} GB`;
}

/** `61.0 GB weights + 12.9 GB KV cache per chip on 4 chips > 30.2 GB usable` (v6e: 0.9 of 31.25 GiB) for a message. */
export function fitText(fit: ServingFit): string {
  return (
    `${gb(fit.weightBytesPerChip)} weights + ${gb(fit.kvBytesPerChip)} KV cache per chip on ${fit.tensorParallel} chip(s) ` +
    `${fit.fits ? '<=' : '>'} ${gb(fit.usableBytesPerChip)} usable (${HBM_UTILIZATION} of ${fit.slice.usableHbmGibPerChip} GiB usable)`
  );
}

/**
 * The smallest single-host slice of `generation` that serves `model` (servingFit), or a problem naming what the
 * largest host lacks: such a model needs more than one host, which vLLM on TPU does not do on GKE.
 */
export function smallestServingSlice(modelName: string, model: ModelSize | undefined, generation: TpuGeneration, shape: ServingShape = {}): { fit: ServingFit } | { problem: string } {
  if (!model) return { problem: `model '${modelName}' has no row in the model table (jobs/models.ts), so its serving size is unknown` };
  const fits = singleHostSlices(generation).map((s) => servingFit(model, s, shape));
  const first = fits.find((f) => f.fits);
  if (first) return { fit: first };
  const largest = fits[fits.length - 1];
  return {
    problem:
      `${modelName} does not fit one ${generation} host: ${fitText(largest)}; it needs more than one host, and vLLM on TPU ` +
      `serves from one host only on GKE (lower maxModelLen or sequences, or serve a smaller model)`,
  };
}

/**
 * The training container's start-up budget, minutes: read the model's bf16 weights from Cloud Storage at the planning
 * rate (jobs/vllm.ts WEIGHT_READ_BYTES_PER_SECOND) and compile (COMPILE_MINUTES), once for the trainer and once more
 * for the rollout engine of a method with rollouts (RL: vLLM loads the same weights and compiles its own graphs). The
 * same planning figures as the eval and serve start windows; only a real slice measures them.
 */
export function trainStartMinutes(modelName: string, rollout: boolean): number | undefined {
  const size = modelSize(modelName);
  if (!size) return undefined;
  const once = weightBytes(size) / WEIGHT_READ_BYTES_PER_SECOND / 60 + COMPILE_MINUTES;
  return Math.ceil((rollout ? 2 : 1) * once);
}
