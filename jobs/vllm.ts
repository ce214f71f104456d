/**
 * vLLM on TPU: the one home of the serving facts the eval step (jobs/eval.ts) and the serve stack (jobs/serve.ts)
 * share: the pinned images, the server's port, health endpoint and probes, and the serving fit check (weights plus KV
 * cache per chip on a single-host slice). Pure; no cdktf.
 *
 * Read at (see docs/pipelines.md "Evaluation"):
 *   - vllm-project/tpu-inference b8692ff (2026-08-22) examples/offload/gke/benchmarks/single-host/deploy-cpu-offload.yaml:
 *     the image `vllm/vllm-tpu:nightly-20260504-e2a6582-67058ca`, `vllm serve <model> --port 8000 --tensor-parallel-size
 *     N --seed 42 --gpu-memory-utilization 0.9`, startup/liveness/readiness probes on `GET /health` port 8000 (startup:
 *     period 30 s, failureThreshold 120), `google.com/tpu` requested = limited, the gcsfuse CSI volume for a bucket.
 *   - vllm-project/tpu-inference v0.27.0 support_matrices/nightly/v6e/default/model_support_matrix.csv: Qwen3-30B-A3B,
 *     Llama-3.1-8B-Instruct and gemma-4-31B-it pass on v6e; release images are `vllm/vllm-tpu:latest` (docs), which moves.
 *   - AI-Hypercomputer/tpu-recipes c8cfe2f inference/trillium/vLLM/Gemma4/docker-compose-gemma4-{26B-A4B,31B}.yml: Gemma 4
 *     runs the `vllm/vllm-tpu:gemma4` image, `--max-model-len 16384 --tensor-parallel-size 8`; Qwen3/README.md: a 32B
 *     model needs at least 4 chips (v6e-4, topology 2x2), a 4B one 1 chip.
 *   - Google Cloud "Serve an LLM using TPU Trillium on GKE with vLLM": single-host only (ct6e-standard-8t for Llama 3.1
 *     70B); multi-host vLLM on TPU is not supported on GKE, so a model that needs more than one host is refused.
 */
import { ModelSize } from './models';
import { GENERATIONS, TpuGeneration, TpuSlice, tpuSlice } from './tpu';

/** vLLM's OpenAI-compatible server port and health endpoint (tpu-inference deploy-cpu-offload.yaml). */
export const VLLM_PORT = 8000;
export const VLLM_HEALTH_PATH = '/health';

/** The image every model is served with unless its family has its own (VLLM_FAMILY_IMAGES). */
export const VLLM_TPU_IMAGE = 'vllm/vllm-tpu:nightly-20260504-e2a6582-67058ca';
/** Model families (MaxText model-key prefixes) that need another image: Gemma 4 runs tpu-recipes' `gemma4` build. */
export const VLLM_FAMILY_IMAGES: Readonly<Record<string, string>> = { gemma4: 'vllm/vllm-tpu:gemma4' };

/** The vLLM image for a MaxText model key. */
export function vllmImage(model: string): string {
  const family = Object.keys(VLLM_FAMILY_IMAGES).find((prefix) => model.startsWith(prefix));
  return family !== undefined ? VLLM_FAMILY_IMAGES[family] : VLLM_TPU_IMAGE;
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
