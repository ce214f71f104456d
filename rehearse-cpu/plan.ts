/**
 * The CPU rehearsal's plan (`npm run rehearse:cpu -- <pipeline>`): what python/rehearse_cpu/run.py runs, taken from the
 * pipeline's rehearsal as synthesized (jobs/rehearsal.ts asRehearsal, built by config/pipelines.ts when REHEARSE names
 * it): each step's own bash (the main container's `command` of its JobSet: the same script a pod runs), the model's
 * table row and the facts the local stand-ins are made from. Pure; no cdktf, no config/ import.
 */
import type { Pipeline } from '../jobs/pipeline';

/** One step: the script the JobSet's main container runs, as synthesized. */
export interface PlanStep {
  readonly name: string;
  readonly runsOn: 'cpu' | 'tpu';
  readonly image: string;
  readonly script: string;
  /** The container's environment, literal values only (secret references are named, valued '' here). */
  readonly env: Readonly<Record<string, string>>;
}

/** What the Python side needs. */
export interface CpuPlan {
  readonly version: 1;
  readonly pipeline: string;
  readonly method: string;
  readonly model: { readonly name: string; readonly hfRepo: string; readonly hfRevision?: string };
  /** The recipe after the rehearsal cut (dataset, template, reward, train and eval settings), as plain JSON. */
  readonly recipe: unknown;
  /** The gs:// bucket the pipeline reads and writes (mapped to a local folder). */
  readonly buckets: readonly string[];
  readonly steps: readonly PlanStep[];
  /** The eval step's plan (tasks, limits, held-out task), when the pipeline has one. @default - none */
  readonly eval?: unknown;
}

interface Container {
  readonly name?: string;
  readonly image?: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: ReadonlyArray<{ readonly name: string; readonly value?: string }>;
}

/** The main container of a step's JobSet: the first replicated job's `workload-container` (or its first container). */
function mainContainer(manifest: Record<string, unknown>): Container {
  const jobs = (manifest.spec as { replicatedJobs: Array<{ template: { spec: { template: { spec: { containers: Container[] } } } } }> }).replicatedJobs;
  const containers = jobs[0].template.spec.template.spec.containers;
  return containers.find((c) => c.name === 'workload-container') ?? containers[0];
}

/** The bash a container runs: `/bin/bash -c <script>`. */
function scriptOf(c: Container): string {
  const words = [...(c.command ?? []), ...(c.args ?? [])];
  const i = words.indexOf('-c');
  if (i < 0 || i + 1 >= words.length) throw new Error(`container ${c.name ?? '?'} runs ${JSON.stringify(words).slice(0, 200)}, not a bash -c script`);
  return words[i + 1];
}

/** Every `gs://<bucket>` a text names. */
function bucketsOf(text: string): string[] {
  return [...new Set([...text.matchAll(/gs:\/\/([a-z0-9][a-z0-9._-]{1,220})/g)].map((m) => m[1]))].sort();
}

/** The plan of a built (rehearsal) pipeline. */
export function cpuPlan(pipeline: Pipeline, name: string): CpuPlan {
  const steps = pipeline.steps.map((s): PlanStep => {
    const c = mainContainer(s.manifest);
    const env: Record<string, string> = {};
    for (const e of c.env ?? []) env[e.name] = e.value ?? '';
    return { name: s.name, runsOn: s.runsOn, image: c.image ?? '', script: scriptOf(c), env };
  });
  const text = JSON.stringify(steps);
  return {
    version: 1,
    pipeline: name,
    method: String((pipeline.recipe as unknown as { method?: string }).method ?? ''),
    model: { name: pipeline.model.name, hfRepo: pipeline.model.hfRepo, ...(pipeline.model.hfRevision ? { hfRevision: pipeline.model.hfRevision } : {}) },
    recipe: JSON.parse(JSON.stringify(pipeline.recipe)),
    buckets: bucketsOf(text),
    steps,
    ...(pipeline.eval ? { eval: JSON.parse(JSON.stringify(pipeline.eval)) } : {}),
  };
}
