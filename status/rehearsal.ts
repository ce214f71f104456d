/**
 * What a rehearsal proved (`npm run status -- rehearse-<pipeline>`): the combination its record names (jobs/rehearsal.ts
 * RehearsalFacts: image refs, pinned by tag or digest, MaxText/vLLM/lm-eval versions, model, method, revision, dataset
 * and file hashes), which steps passed, the first failure with its log lines, and what a rehearsal cannot show. The
 * verdict record the rehearsal's Workflow writes to the bucket at its end (jobs/rehearsal-record.ts) is read when
 * present; until then, or when it cannot be read, the verdict is computed from the steps' states. Pure but for the
 * reader it is given.
 */
import { RehearsalCheckPlan, RehearsalFacts, rehearsalUnavailableText, rehearsalVerdictOf } from '../jobs/rehearsal';
import type { ObjectNames } from './bucket';
import { RehearsalRecord, rehearsalRecordFromJson, RehearsalVerdict } from '../jobs/rehearsal-record';
import type { ObjectReader } from './eval';

/** What a verdict reads of a step's status (status/model.ts StepStatus; a shape here, so this module does not import the model that imports it). */
export interface VerdictStep {
  readonly name: string;
  readonly state: string;
  readonly reason?: string;
  readonly message?: string;
  readonly details: readonly string[];
}

export type { RehearsalVerdict } from '../jobs/rehearsal-record';

/** The verdict of a rehearsal from its facts and its steps' states. */
export function rehearsalVerdict(facts: RehearsalFacts, steps: readonly VerdictStep[]): RehearsalVerdict {
  const passed = steps.filter((s) => s.state === 'completed').map((s) => s.name);
  const failed = steps.find((s) => s.state === 'failed');
  // Never deployed (every step `not deployed: npm run deploy -- rehearse-<p>`) is not running.
  const deployed = steps.some((s) => s.state !== 'not-created' || !(s.message ?? '').startsWith('not deployed'));
  const verdict = failed ? 'failed' : steps.length > 0 && passed.length === steps.length ? 'passed' : deployed ? 'running' : 'not-deployed';
  return {
    verdict,
    key: facts.key,
    of: facts.of,
    passed,
    ...(failed
      ? { firstFailure: { step: failed.name, reason: [failed.reason, failed.message].filter(Boolean).join(': '), lines: failed.details.filter((d) => d.startsWith('  ')).map((d) => d.slice(2)) } }
      : {}),
  };
}

/** Where the verdict came from: the Workflow's record in the bucket, or the steps' states. */
export type VerdictSource = { readonly record: string; readonly writtenAt: string } | { readonly computed: string };

/**
 * The verdict from the Workflow's record: its steps, its first failure with the log lines its writer read from the
 * failed step's pod (kept in the record, so they show after the pods are gone); when the writer could not read them
 * (linesMissing) and status read the same step's lines from the cluster, those instead.
 */
export function verdictFromRecord(record: RehearsalRecord, computed: RehearsalVerdict): RehearsalVerdict {
  const f = record.firstFailure;
  const base = { verdict: record.verdict, key: record.key, of: record.of, passed: [...record.passed] };
  if (!f) return base;
  const fromCluster = f.lines.length === 0 && computed.firstFailure?.step === f.step && computed.firstFailure.lines.length > 0;
  return { ...base, firstFailure: fromCluster ? { step: f.step, reason: f.reason, lines: computed.firstFailure!.lines } : { ...f, lines: [...f.lines] } };
}

/** Where a failure's lines came from, or why it has none: the line status prints above them. */
function failureLogLines(f: NonNullable<RehearsalVerdict['firstFailure']>): string[] {
  if (f.lines.length === 0) return f.linesMissing ? [`  first failure, no log lines: ${f.linesMissing}`] : [];
  const from = f.logFrom ? ` (${f.logFrom.pod}/${f.logFrom.container}${f.logFrom.previous ? ', its run before the restart' : ''})` : '';
  return [`  first failure, last lines of ${f.step}${from}:`, ...(f.linesCut ? [`    (${f.linesCut})`] : []), ...f.lines.map((l) => `    ${l}`)];
}

/** The text lines status prints under a rehearsal. */
export function rehearsalLines(facts: RehearsalFacts, v: RehearsalVerdict, source?: VerdictSource): string[] {
  const head =
    v.verdict === 'passed'
      ? `rehearsal of ${v.of} PASSED (key ${v.key}): every step ran on the cut model; \`npm run deploy -- ${v.of}\` may spend the slice`
      : v.verdict === 'failed'
        ? `rehearsal of ${v.of} FAILED at ${v.firstFailure!.step} (key ${v.key}): ${v.firstFailure!.reason}`
        : v.verdict === 'not-deployed'
          ? `rehearsal of ${v.of} not deployed (key ${v.key}): npm run deploy -- rehearse-${v.of}`
          : `rehearsal of ${v.of} running (key ${v.key})`;
  const versions = Object.entries(facts.versions).map(([k, x]) => `${k} ${x}`).join(', ');
  const pinned = facts.imagesPinnedBy === 'digest' ? 'by digest' : 'by tag: a tag moved since the rehearsal is not detected';
  const from = !source ? [] : 'record' in source ? [`  verdict: written by the rehearsal's Workflow at ${source.writtenAt} (${source.record})`] : [`  verdict: computed from the steps (${source.computed})`];
  return [
    head,
    ...from,
    `  steps passed: ${v.passed.length > 0 ? v.passed.join(', ') : 'none yet'}`,
    ...(v.firstFailure ? failureLogLines(v.firstFailure) : []),
    `  combination: ${facts.model} (${facts.hfRepo}@${facts.revision ?? 'head at run time'}), ${facts.method}, cut to ${facts.layers} layers, ${facts.steps} steps`,
    `  images (${pinned}): ${facts.images.join(', ')}`,
    `  versions: ${versions}`,
    ...Object.entries(facts.hashes).map(([path, sha]) => `  sha256 ${sha.slice(0, 16)} ${path}`),
    `  cannot show: ${facts.cannotShow.join('; ')}`,
  ];
}

type WithRehearsal = { readonly name: string; readonly rehearsal?: { readonly verdict: RehearsalVerdict; readonly lines: readonly string[] } };

/**
 * Replaces each rehearsal's computed verdict by its Workflow's record where the bucket has one for exactly its facts
 * (same key). Read for every rehearsal that ended by its steps or is still shown running (the record may be there
 * before the steps' objects are read); a record not there yet, or not readable, keeps the computed verdict and says so.
 */
export async function withRehearsalRecords<S extends WithRehearsal>(
  statuses: readonly S[],
  facts: ReadonlyMap<string, RehearsalFacts | undefined>,
  read: ObjectReader,
): Promise<{ statuses: S[]; notes: string[] }> {
  const notes: string[] = [];
  const out = await Promise.all(
    statuses.map(async (p) => {
      const f = facts.get(p.name);
      if (!p.rehearsal || !f?.recordPath) return p;
      const computed = p.rehearsal.verdict;
      const got = await read(f.recordPath);
      const record = got.text !== undefined ? rehearsalRecordFromJson(got.text, f) : undefined;
      if (record) {
        const verdict = verdictFromRecord(record, computed);
        return { ...p, rehearsal: { verdict, lines: rehearsalLines(f, verdict, { record: f.recordPath, writtenAt: record.writtenAt }) } };
      }
      const why = got.problem ?? (got.text === undefined ? 'not written yet: the Workflow writes it when it ends' : 'not a record of this rehearsal');
      if (got.problem || got.text !== undefined) notes.push(`${p.name}: rehearsal record ${f.recordPath} not read (${why}); the verdict is computed from the steps`);
      return { ...p, rehearsal: { verdict: computed, lines: rehearsalLines(f, computed, { computed: `record ${f.recordPath} ${got.problem ? 'not read' : got.text === undefined ? 'not written yet' : 'not of this rehearsal'}` }) } };
    }),
  );
  return { statuses: out, notes };
}

/**
 * What `npm run deploy -- <pipeline>` says before it applies: whether a passing rehearsal of exactly this combination
 * exists, from the same listing the plan's data source makes (constructs/rehearsal-check.ts), read once, read-only,
 * before Terraform runs. A listing that fails says why; the apply's `rehearsal` output still says it after.
 */
export async function rehearsalBeforeApply(
  pipelines: ReadonlyArray<{ readonly name: string; readonly rehearsalCheck?: RehearsalCheckPlan }>,
  list: (bucket: string, glob: string) => Promise<ObjectNames>,
): Promise<string[]> {
  return Promise.all(
    pipelines.map(async (p) => {
      const check = p.rehearsalCheck;
      if (!check) return `Rehearsal of ${p.name} (before the apply): none: not a pipeline that can be rehearsed`;
      if ('unavailable' in check) return `Rehearsal of ${p.name} (before the apply): ${rehearsalUnavailableText(p.name, check.unavailable)}`;
      const got = await list(check.proof.bucket, check.proof.glob);
      if ('problem' in got) return `Rehearsal of ${p.name}: not known before the apply (listing gs://${check.proof.bucket}/${check.proof.glob}: ${got.problem}); the apply's \`rehearsal\` output says it after`;
      const required = check.required ? '; requireRehearsal: the plan fails without it' : '';
      return `Rehearsal of ${p.name} (before the apply): ${rehearsalVerdictOf(check.proof, got.names)}${required}`;
    }),
  );
}
