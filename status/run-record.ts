/**
 * What `npm run status` says about a finished step's lineage: the line jobs/lineage.ts built at synth and the pipeline
 * stack kept in its cluster record (`RecordedStep.lineage`), under every completed step; and the commits the step
 * actually downloaded, read from its run record in the bucket (`hfRevisionDownloaded`, `tokenizerRevisionDownloaded`,
 * written by the step itself: jobs/hf-revision.ts, jobs/run-record.ts).
 */
import type { PipelineRecord } from '../jobs/record';
import type { ObjectReader } from './eval';

export { lineageLine, repoAt, datasetName } from '../jobs/lineage';

/** What the commits read of a step's status (status/model.ts StepStatus; a shape here, so this module does not import the model that imports it). */
export interface CommitStep {
  readonly name: string;
  readonly state: string;
  readonly commits?: DownloadedCommits;
  readonly details: readonly string[];
}

/** The step statuses with the recorded lineage line under every completed step. */
export function withLineage<S extends { readonly state: string; readonly details: readonly string[] }>(pipeline: PipelineRecord, steps: readonly S[]): S[] {
  return steps.map((s, i) => {
    const line = s.state === 'completed' ? pipeline.steps[i]?.lineage : undefined;
    return line === undefined ? s : { ...s, details: [...s.details, line] };
  });
}

/** The commits a step downloaded, from its run record. */
export interface DownloadedCommits {
  /** The weights' repository and commit (`hfRepo@hfRevisionDownloaded`). @default - none recorded */
  readonly weights?: string;
  /** The tokenizer's repository and commit. @default - none recorded (MaxText's default tokenizer) */
  readonly tokenizer?: string;
  /** The eval step's own task dataset and commit (`datasetRevisionDownloaded`). @default - none recorded */
  readonly dataset?: string;
}

const COMMIT = /^[0-9a-f]{40}$/;

/** The commits of a run record's JSON text, or undefined when it holds none (or is no record). */
export function commitsOf(text: string): DownloadedCommits | undefined {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const at = (repo: unknown, sha: unknown) => (typeof repo === 'string' && typeof sha === 'string' && COMMIT.test(sha) ? `${repo}@${sha}` : undefined);
  const weights = at(r.hfRepo, r.hfRevisionDownloaded);
  const tokenizer = at(r.tokenizer, r.tokenizerRevisionDownloaded);
  const d = r.dataset as { hf?: unknown } | undefined;
  const dataset = at(d && typeof d === 'object' ? d.hf : undefined, r.datasetRevisionDownloaded);
  return weights || tokenizer || dataset
    ? { ...(weights ? { weights } : {}), ...(tokenizer ? { tokenizer } : {}), ...(dataset ? { dataset } : {}) }
    : undefined;
}

/** `downloaded Qwen/Qwen3-8B@<sha> (weights), Qwen/Qwen3-8B@<sha> (tokenizer, chat template)[, openai/gsm8k@<sha> (dataset)]`. */
export function commitsLine(c: DownloadedCommits): string {
  const parts = [c.weights && `${c.weights} (weights)`, c.tokenizer && `${c.tokenizer} (tokenizer, chat template)`, c.dataset && `${c.dataset} (dataset)`];
  return `downloaded ${parts.filter(Boolean).join(', ')}`;
}

/**
 * Adds to every completed step with a run record the commits it downloaded (a `commits` field for --json and a line),
 * read from the bucket; a record that cannot be read is one note, and the step is shown without it.
 */
export async function withDownloadedCommits<S extends { readonly name: string; readonly steps: readonly CommitStep[] }>(
  statuses: readonly S[],
  records: ReadonlyMap<string, PipelineRecord>,
  read: ObjectReader,
): Promise<{ statuses: S[]; notes: string[] }> {
  const notes: string[] = [];
  const out = await Promise.all(
    statuses.map(async (p) => {
      const recorded = records.get(p.name);
      const steps = await Promise.all(
        p.steps.map(async (s, i) => {
          const at = recorded?.steps[i]?.runRecord;
          if (s.state !== 'completed' || at === undefined) return s;
          const got = await read(at);
          const commits = got.text !== undefined ? commitsOf(got.text) : undefined;
          if (!commits) {
            notes.push(`${p.name} ${s.name}: run record ${at} not read (${got.problem ?? (got.text === undefined ? 'not found' : 'no commit recorded')}): the commits it downloaded are not shown`);
            return s;
          }
          return { ...s, commits, details: [...s.details, commitsLine(commits)] };
        }),
      );
      return { ...p, steps };
    }),
  );
  return { statuses: out, notes };
}
