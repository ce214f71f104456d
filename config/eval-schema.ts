/**
 * `pipelines.<name>.eval` and `pipelines.<name>.serve`: the zod sub-schemas of the eval step (jobs/eval.ts) and the
 * serve stack (jobs/serve.ts), merged into the pipeline entry by config/schema.ts. Which tasks and metrics exist, and
 * whether a model fits, are checked when the pipeline is built (they depend on the recipe and the platform).
 */
import { z } from 'zod';

export const evalConfig = z
  .object({
    /** Run the eval step after to-hf. `true` insists (no single-host slice that fits is then an error). @default true */
    enabled: z.boolean().optional(),
    /** lm-evaluation-harness task names. @default - gsm8k (GRPO presets), heldout: the dataset's evaluation split (SFT) */
    tasks: z.array(z.string().max(128)).max(16).optional(),
    /** Examples scored per task (lm_eval --limit). @default 500 */
    samples: z.number().optional(),
    /** lm_eval --seed and vLLM --seed. @default 1234 */
    seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
    /** Fail the pipeline when the trained model's improvement on `metric` (an lm-eval result key) is below `minDelta`. @default - no gate */
    gate: z.object({ metric: z.string().max(128), minDelta: z.number().default(0) }).strict().optional(),
    /** One attempt of the eval step, minutes. @default 240 */
    timeoutMinutes: z.number().optional(),
    /** Restarts after a lost or preempted host. @default 1 */
    maxRestarts: z.number().optional(),
    /** vLLM --max-model-len. @default 16384 */
    maxModelLen: z.number().optional(),
  })
  .strict();

export const serveConfig = z
  .object({
    /** Synthesize the serve-<pipeline> stack (vLLM on a single-host TPU pool serving the latest export). @default false */
    enabled: z.boolean().default(false),
    /** reservation | spot | flex-start: where the serving pool's capacity comes from. @default spot */
    capacity: z.enum(['reservation', 'spot', 'flex-start']).optional(),
    /** The reservation the serving pool consumes (capacity reservation). */
    reservation: z.string().max(256).optional(),
    /** An internal passthrough load balancer instead of a ClusterIP Service. @default false */
    internalLoadBalancer: z.boolean().optional(),
    /** vLLM --max-model-len. @default 16384 */
    maxModelLen: z.number().optional(),
    /** Sequences of maxModelLen the KV cache must hold at once (the fit check). @default 8 */
    sequences: z.number().optional(),
  })
  .strict();

export type EvalConfig = z.infer<typeof evalConfig>;
export type ServeConfig = z.infer<typeof serveConfig>;
