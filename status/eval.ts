/**
 * The eval step's result in `npm run status` and the run report: the step prints its eval.json on one line
 * (jobs/eval.ts EVAL_RESULT_PREFIX) before it exits, so status reads it from the main container's log through the
 * API server, as it reads MaxText's own evaluation. When the log no longer has it (the pod is gone: the pod garbage
 * collector deletes the pods of a node that scaled away), status reads eval.json itself from the bucket
 * (status/bucket.ts, `withEvalFiles`). Pure but for the reader it is given.
 */
import { EVAL_RESULT_PREFIX } from '../jobs/eval';

/** One scored metric of eval.json. */
export interface EvalScore {
  readonly task: string;
  readonly metric: string;
  readonly higherIsBetter: boolean;
  /** null when the step could not score it (NaN, Inf, missing: the step failed closed and says why in `errors`). */
  readonly base: number | null;
  readonly trained: number | null;
  readonly delta: number | null;
}

/** The parts of eval.json status shows. */
export interface EvalRecord {
  readonly evalJson: string;
  readonly trainedModel: string;
  readonly baseModel: string;
  readonly samples: number;
  readonly seed: number;
  readonly image: string;
  readonly results: readonly EvalScore[];
  /** @default - no gate */
  readonly gate?: { readonly metric: string; readonly minDelta: number; readonly passed: boolean };
  /** Why the scores cannot be trusted (jobs/eval.ts SUMMARISE): the step failed closed. @default - none */
  readonly errors?: readonly string[];
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const str = (v: unknown): v is string => typeof v === 'string';

const numOrNull = (v: unknown): v is number | null => v === null || num(v);

function score(v: any): EvalScore | undefined {
  if (!v || !str(v.task) || !str(v.metric) || typeof v.higherIsBetter !== 'boolean' || !numOrNull(v.base) || !numOrNull(v.trained)) return undefined;
  const delta = v.delta ?? null;
  if (!numOrNull(delta) || (delta === null && v.base !== null && v.trained !== null)) return undefined;
  return { task: v.task, metric: v.metric, higherIsBetter: v.higherIsBetter, base: v.base, trained: v.trained, delta };
}

/** eval.json's text (the file, or the JSON of an EVAL_RESULT line) as a record, or undefined when it is not well formed. */
export function evalRecordFromJson(text: string): EvalRecord | undefined {
  let v: any;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const results = Array.isArray(v?.results) ? v.results.map(score) : [];
  if (!str(v?.evalJson) || !str(v.trainedModel) || !str(v.baseModel) || !num(v.samples) || !num(v.seed) || !str(v.image)) return undefined;
  if (results.length === 0 || results.some((r: EvalScore | undefined) => r === undefined)) return undefined;
  const g = v.gate;
  const gate = g && str(g.metric) && num(g.minDelta) && typeof g.passed === 'boolean' ? { metric: g.metric, minDelta: g.minDelta, passed: g.passed } : undefined;
  const errors = Array.isArray(v.errors) && v.errors.every(str) && v.errors.length > 0 ? (v.errors as string[]) : undefined;
  return { evalJson: v.evalJson, trainedModel: v.trainedModel, baseModel: v.baseModel, samples: v.samples, seed: v.seed, image: v.image, results, ...(gate ? { gate } : {}), ...(errors ? { errors } : {}) };
}

/** The last well-formed EVAL_RESULT line of a log, or undefined (a malformed one is ignored, never trusted in part). */
export function evalRecordOf(log: string): EvalRecord | undefined {
  const lines = log.split('\n').filter((l) => l.includes(EVAL_RESULT_PREFIX));
  for (const line of lines.reverse()) {
    const record = evalRecordFromJson(line.slice(line.indexOf(EVAL_RESULT_PREFIX) + EVAL_RESULT_PREFIX.length));
    if (record) return record;
  }
  return undefined;
}

function fixed(n: number | null): string {
  return n === null ? 'not scored' : Number(n.toFixed(4)).toString();
}
function signed(n: number | null): string {
  return n === null ? 'no delta' : `${n >= 0 ? '+' : ''}${fixed(n)}`;
}

/** Text lines: one per task and metric (base -> trained, delta), the gate, eval.json and the export. */
export function evalLines(e: EvalRecord): string[] {
  const out = e.results.map((r) => `eval ${r.task} ${r.metric}: base ${fixed(r.base)} -> trained ${fixed(r.trained)} (${signed(r.delta)}${r.higherIsBetter ? '' : ', lower is better'})`);
  if (e.gate) out.push(`gate ${e.gate.metric} minDelta ${e.gate.minDelta}: ${e.gate.passed ? 'passed' : 'FAILED'}`);
  for (const error of e.errors ?? []) out.push(`eval error: ${error}`);
  out.push(`eval.json ${e.evalJson} (${e.samples} samples per task, seed ${e.seed}, ${e.image}); export ${e.trainedModel}`);
  return out;
}

/** Markdown table rows for the run report. */
export function evalTable(e: EvalRecord): string[] {
  const rows = ['| task | metric | base | trained | delta |', '|---|---|---|---|---|'];
  for (const r of e.results) rows.push(`| ${r.task} | ${r.metric.replace(/\|/g, '\\|')} | ${fixed(r.base)} | ${fixed(r.trained)} | ${signed(r.delta)}${r.higherIsBetter ? '' : ' (lower is better)'} |`);
  return rows;
}

/** What reads one object of the bucket (status/bucket.ts gcsReader): its text, none (404), or why not. */
export type ObjectReader = (gsUrl: string) => Promise<{ readonly text?: string; readonly problem?: string }>;

/**
 * Fills in the eval step's record from eval.json in the bucket where its log had none, for every eval step that ended
 * (completed, or failed: a failed gate writes eval.json first). Returns the statuses and a note per file not read.
 */
export async function withEvalFiles<S extends { readonly name: string; readonly steps: ReadonlyArray<{ readonly name: string; readonly state: string; readonly run?: { readonly eval?: EvalRecord } }> }>(
  statuses: readonly S[],
  outputs: ReadonlyMap<string, string | undefined>,
  read: ObjectReader,
): Promise<{ statuses: S[]; notes: string[] }> {
  const notes: string[] = [];
  const out = await Promise.all(
    statuses.map(async (p) => {
      const step = p.steps.find((s) => s.name === 'eval');
      const file = outputs.get(p.name);
      if (!step || step.run?.eval || !file || (step.state !== 'completed' && step.state !== 'failed')) return p;
      const got = await read(file);
      const record = got.text !== undefined ? evalRecordFromJson(got.text) : undefined;
      if (!record) {
        const why = got.problem ?? (got.text === undefined ? 'not found' : 'not a well-formed eval.json');
        if (got.text !== undefined || got.problem || step.state === 'completed') notes.push(`${p.name}: eval.json ${file} not read (${why}); its log has no EVAL_RESULT line either`);
        return p;
      }
      return { ...p, steps: p.steps.map((s) => (s === step ? { ...s, run: { points: [], ...s.run, eval: record } } : s)) };
    }),
  );
  return { statuses: out, notes };
}
