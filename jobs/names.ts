/**
 * Kubernetes names of pipeline objects, derived from the stack, run id and step, and checked against the
 * limits JobSet enforces (pod names `<jobset>-<replicatedJob>-<jobIndex>-<podIndex>-xxxxx` must be a
 * DNS-1035 label of at most 63 characters). Pure; no cdktf.
 */

/** Maximum length of a DNS-1035 label (pod names, JobSet names, label values). */
export const MAX_LABEL = 63;
/** The random suffix the Job controller appends to a pod name: `-xxxxx`. */
export const POD_SUFFIX_LENGTH = 6;

const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const RUN_ID = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** One replicated job of a JobSet, as far as names are concerned. */
export interface ReplicatedJobShape {
  readonly name: string;
  readonly replicas: number;
  readonly parallelism: number;
}

/** Checks a run id: lowercase letters, digits and '-', starting and ending alphanumeric. */
export function checkRunId(runId: string, source: string): void {
  if (!RUN_ID.test(runId)) {
    throw new Error(
      `${source}.runId must be lowercase letters, digits and '-', starting and ending with a letter or digit, got '${runId}'`,
    );
  }
}

/** JobSet name of a step: `<stack>-<runId>-<step>`, e.g. `rl-qwen3-r1-train`. */
export function jobSetName(stack: string, runId: string, step: string): string {
  return `${stack}-${runId}-${step}`;
}

/** The longest pod name the JobSet can produce (last job index, last pod index, 5-character suffix). */
export function longestPodName(jobSet: string, rjob: ReplicatedJobShape): string {
  return `${jobSet}-${rjob.name}-${rjob.replicas - 1}-${rjob.parallelism - 1}-xxxxx`;
}

/**
 * Throws when a name the JobSet controller derives would be invalid: the JobSet name itself, or a pod name
 * over 63 characters. The message says how many characters the run id may have.
 */
export function checkJobSetNames(jobSet: string, rjobs: readonly ReplicatedJobShape[], source: string): void {
  if (!DNS_1035.test(jobSet) || jobSet.length > MAX_LABEL) {
    throw new Error(`${source}: JobSet name '${jobSet}' must be a DNS-1035 label of at most ${MAX_LABEL} characters`);
  }
  for (const rjob of rjobs) {
    const pod = longestPodName(jobSet, rjob);
    if (pod.length > MAX_LABEL) {
      const over = pod.length - MAX_LABEL;
      throw new Error(
        `${source}: pod name '${pod}' is ${pod.length} characters, over the ${MAX_LABEL} JobSet allows; ` +
          `shorten the run id by at least ${over} characters`,
      );
    }
  }
}

/** Pipeline-stack output carrying a pipeline's `maxtextDifference` (jobs/pipeline.ts); the plan review reads it. */
export const TUTORIAL_MAXTEXT_OUTPUT = 'tutorial_maxtext';
