/** A pipeline stack's JobSets as an ordered step graph (depends_on followed through completion gates). Pure. */
import type { TerraformJson } from './load';
import type { JobSetStep, StepKind } from './resources/kubernetes-manifest';
import { list } from './values';
import { SpendRange, spendRange } from '../jobs/budget';

export interface Pipeline {
  readonly stack: string;
  /** Steps in execution order. */
  readonly steps: readonly JobSetStep[];
  /** Edges `from -> to` between step names. */
  readonly edges: ReadonlyArray<readonly [string, string]>;
  readonly images: readonly string[];
  readonly model?: string;
  readonly tpuTopology?: string;
  readonly tpuChipsPerPod?: number;
  readonly tpuChips: number;
  /** Sum over TPU steps of chips x timeout hours (the deploy's window: queue allowance, every attempt, margins). */
  readonly chipHours: number;
  /**
   * What the TPU steps spend (jobs/budget.ts, the computation `npm run bench` uses): one attempt of each to its
   * deadline, and the worst case with every restart its failure policy allows. @default - unknown: a TPU step's
   * JobSet sets no attempt deadline
   */
  readonly spend?: SpendRange;
  readonly gcsRead: readonly string[];
  readonly gcsWritten: readonly string[];
  /** The stack's note that it runs another MaxText than its tutorial installs. @default - none */
  readonly maxtextDifference?: string;
  /** The stack's eval step and its gate (`eval_gate` output, jobs/eval.ts gateText). @default - no eval step */
  readonly evalGate?: string;
  /**
   * `requireRehearsal`: what the plan checks (the `rehearsal` output's expression names the proof object and key;
   * constructs/rehearsal-check.ts), and the verdict once planned. @default - no rehearsal required
   */
  readonly rehearsalRequired?: string;
  /**
   * What the plan says about this pipeline's rehearsal (every pipeline stack: constructs/rehearsal-check.ts), or why it
   * cannot be rehearsed on this infra. @default - the stack has no `rehearsal` output (a rehearsal stack)
   */
  readonly rehearsalCheck?: string;
}

const KIND_ORDER: Record<StepKind, number> = { conversion: 0, training: 1, other: 2, export: 3, evaluation: 4 };

/** Every resource's and data source's `depends_on`, by address (`type.name`, `data.type.name`). */
export function dependencyMap(json: TerraformJson): Map<string, string[]> {
  const deps = new Map<string, string[]>();
  const clean = (d: unknown) => String(d).replace(/^\$\{|\}$/g, '');
  for (const [prefix, blocks] of [['', json.resource], ['data.', json.data]] as const) {
    for (const [type, byName] of Object.entries(blocks ?? {})) {
      for (const [name, attrs] of Object.entries(byName ?? {})) deps.set(`${prefix}${type}.${name}`, list(attrs?.depends_on).map(clean));
    }
  }
  return deps;
}

/** The JobSets a step waits for: its depends_on, followed through anything that is not a JobSet. */
function upstreamSteps(step: JobSetStep, steps: Map<string, JobSetStep>, deps: Map<string, string[]>): JobSetStep[] {
  const found: JobSetStep[] = [];
  const seen = new Set<string>();
  const visit = (address: string) => {
    if (seen.has(address)) return;
    seen.add(address);
    const hit = steps.get(address);
    if (hit && hit !== step) return void found.push(hit);
    for (const next of address === step.address ? step.dependsOn : deps.get(address) ?? []) visit(next);
  };
  visit(step.address);
  return found;
}

/** The spend of the TPU steps, when each one's JobSet names its attempt deadline. */
function spendOfSteps(tpuSteps: readonly JobSetStep[]): { spend?: SpendRange } {
  if (tpuSteps.length === 0 || tpuSteps.some((s) => s.attemptSeconds === undefined)) return {};
  return { spend: spendRange(tpuSteps.map((s) => ({ attemptMinutes: s.attemptSeconds! / 60, maxRestarts: s.maxRestarts, chips: s.tpuChips }))) };
}

/** Orders steps by their dependencies (stable on the conversion -> training -> export convention). */
export function pipelineOf(stack: string, steps: readonly JobSetStep[], deps: Map<string, string[]> = new Map()): Pipeline | undefined {
  if (steps.length === 0) return undefined;
  const byAddress = new Map(steps.map((s) => [s.address, s]));
  const edges: Array<[string, string]> = [];
  const upstream = new Map<string, string[]>();
  for (const s of steps) {
    const from = upstreamSteps(s, byAddress, deps);
    upstream.set(s.address, from.map((f) => f.address));
    for (const f of from) edges.push([f.name, s.name]);
  }
  const sorted = [...steps].sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
  const ordered: JobSetStep[] = [];
  const placed = new Set<string>();
  while (ordered.length < sorted.length) {
    const next =
      sorted.find((s) => !placed.has(s.address) && (upstream.get(s.address) ?? []).every((d) => placed.has(d))) ??
      sorted.find((s) => !placed.has(s.address))!;
    placed.add(next.address);
    ordered.push(next);
  }
  if (edges.length === 0) {
    for (let i = 1; i < ordered.length; i++) edges.push([ordered[i - 1]!.name, ordered[i]!.name]);
  }
  const position = (n: string) => ordered.findIndex((s) => s.name === n);
  edges.sort((x, y) => position(x[0]) - position(y[0]) || position(x[1]) - position(y[1]));
  const tpuSteps = ordered.filter((s) => s.tpuChips > 0);
  const uniq = (xs: string[]) => [...new Set(xs)];
  const written = uniq(ordered.flatMap((s) => s.gcs.filter((g) => g.access === 'write').map((g) => g.path)));
  return {
    stack,
    steps: ordered,
    edges,
    images: uniq(ordered.flatMap((s) => s.images.map((i) => i.image))),
    model: ordered.find((s) => s.kind === 'training' && s.model)?.model ?? ordered.find((s) => s.model)?.model,
    tpuTopology: tpuSteps[0]?.tpuTopology,
    tpuChipsPerPod: tpuSteps[0]?.tpuChipsPerPod,
    tpuChips: Math.max(0, ...tpuSteps.map((s) => s.tpuChips)),
    chipHours: tpuSteps.reduce((sum, s) => sum + (s.tpuChips * (s.timeoutSeconds ?? 0)) / 3600, 0),
    ...spendOfSteps(tpuSteps),
    gcsRead: uniq(
      ordered.flatMap((s) => s.gcs.filter((g) => g.access === 'read' || (g.access === 'uses' && !written.includes(g.path))).map((g) => g.path)),
    ),
    gcsWritten: written,
  };
}
