/**
 * What a rehearsal proved (`npm run status -- rehearse-<pipeline>`): the combination its record names (jobs/rehearsal.ts
 * RehearsalFacts: image digests, MaxText/vLLM/lm-eval versions, model, method, revision, dataset and file hashes), which
 * steps passed, the first failure with its log lines (the failed rule's tail, status/model.ts), and what a rehearsal
 * cannot show. Pure: the record and the step states in, lines out.
 */
import type { RehearsalFacts } from '../jobs/rehearsal';
import type { StepStatus } from './model';

export interface RehearsalVerdict {
  /** `passed`: every step completed; `failed`: a step failed; `running`: neither yet. */
  readonly verdict: 'passed' | 'failed' | 'running';
  readonly key: string;
  readonly of: string;
  readonly passed: readonly string[];
  /** The first failed step, its reason and its last log lines. @default - none failed */
  readonly firstFailure?: { readonly step: string; readonly reason: string; readonly lines: readonly string[] };
}

/** The verdict of a rehearsal from its facts and its steps' states. */
export function rehearsalVerdict(facts: RehearsalFacts, steps: readonly StepStatus[]): RehearsalVerdict {
  const passed = steps.filter((s) => s.state === 'completed').map((s) => s.name);
  const failed = steps.find((s) => s.state === 'failed');
  const verdict = failed ? 'failed' : steps.length > 0 && passed.length === steps.length ? 'passed' : 'running';
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

/** The text lines status prints under a rehearsal. */
export function rehearsalLines(facts: RehearsalFacts, v: RehearsalVerdict): string[] {
  const head =
    v.verdict === 'passed'
      ? `rehearsal of ${v.of} PASSED (key ${v.key}): every step ran on the cut model; \`npm run deploy -- ${v.of}\` may spend the slice`
      : v.verdict === 'failed'
        ? `rehearsal of ${v.of} FAILED at ${v.firstFailure!.step} (key ${v.key}): ${v.firstFailure!.reason}`
        : `rehearsal of ${v.of} running (key ${v.key})`;
  const versions = Object.entries(facts.versions).map(([k, x]) => `${k} ${x}`).join(', ');
  return [
    head,
    `  steps passed: ${v.passed.length > 0 ? v.passed.join(', ') : 'none yet'}`,
    ...(v.firstFailure && v.firstFailure.lines.length > 0 ? [`  first failure, last lines of ${v.firstFailure.step}:`, ...v.firstFailure.lines.map((l) => `    ${l}`)] : []),
    `  combination: ${facts.model} (${facts.hfRepo}@${facts.revision ?? 'head at run time'}), ${facts.method}, cut to ${facts.layers} layers, ${facts.steps} steps`,
    `  images: ${facts.images.join(', ')}`,
    `  versions: ${versions}`,
    ...Object.entries(facts.hashes).map(([path, sha]) => `  sha256 ${sha.slice(0, 16)} ${path}`),
    `  cannot show: ${facts.cannotShow.join('; ')}`,
  ];
}
