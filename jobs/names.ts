/**
 * Kubernetes names of pipeline objects, derived from the stack, run id and step, and checked against every name and
 * label value the JobSet controller derives from them (kubernetes-sigs/jobset v0.12.0 pkg/webhooks/jobset_webhook.go):
 * Job names `<jobset>-<rjob>-<jobIndex>` and pod names `<jobset>-<rjob>-<jobIndex>-<podIndex>-xxxxx` are DNS-1035
 * labels of at most 63 characters; the headless Service (subdomain, the JobSet name) too; with a coordinator, the
 * label value `<jobset>-<rjob>-<jobIndex>-<podIndex>.<subdomain>` is at most 63 characters. Pure; no cdktf.
 */

/** Maximum length of a DNS-1035 label (pod names, JobSet names, label values). */
export const MAX_LABEL = 63;

const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** Run ids: lowercase letters, digits and '-', starting and ending alphanumeric (the one definition; config uses it). */
export const RUN_ID_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** One replicated job of a JobSet, as far as names are concerned. */
export interface ReplicatedJobShape {
  readonly name: string;
  readonly replicas: number;
  readonly parallelism: number;
}

/** The JobSet's coordinator pod (Pathways head). */
export interface CoordinatorShape {
  readonly replicatedJob: string;
  readonly jobIndex: number;
  readonly podIndex: number;
}

/** What a step's names depend on besides the JobSet name. */
export interface JobSetNameShape {
  readonly step: string;
  readonly replicatedJobs: readonly ReplicatedJobShape[];
  /** @default - no coordinator */
  readonly coordinator?: CoordinatorShape;
}

/**
 * Why a pipeline name cannot be used, or undefined: it names a stack, prefixes every JobSet, Service and ConfigMap, and
 * is the value of the `tpu-post-training/pipeline` label, so it must be a DNS-1035 label (a lowercase letter first, a
 * letter or digit last: Kubernetes refuses a label value or a name ending in '-', which the providers only find at
 * plan). A name such as `abc-` is refused at synth.
 */
export function pipelineNameProblem(name: string): string | undefined {
  const reserved = reservedNameProblem(name);
  if (reserved) return reserved;
  if (DNS_1035.test(name) && name.length <= MAX_LABEL) return undefined;
  return `pipeline name must start with a lowercase letter, hold only lowercase letters, digits and '-', end with a letter or digit, and have at most ${MAX_LABEL} characters (it names the stack, its JobSets and its label value), got '${name}'`;
}

/** Checks a run id's format: lowercase letters, digits and '-', starting and ending with a letter or digit. */
export function checkRunId(runId: string, runIdSource: string): void {
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new Error(
      `${runIdSource}: run id must be lowercase letters, digits and '-', starting and ending with a letter or digit, got '${runId}'`,
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

/** The coordinator label value JobSet puts on every pod (`jobset.sigs.k8s.io/coordinator`); subdomain = JobSet name. */
export function coordinatorEndpoint(jobSet: string, c: CoordinatorShape): string {
  return `${jobSet}-${c.replicatedJob}-${c.jobIndex}-${c.podIndex}.${jobSet}`;
}

/** Every name or label value the JobSet controller would derive that is invalid, as `what 'value' (length)`. */
export function jobSetNameProblems(jobSet: string, shape: JobSetNameShape): string[] {
  const problems: string[] = [];
  const label = (what: string, value: string) => {
    if (!DNS_1035.test(value)) problems.push(`${what} '${value}' is not a DNS-1035 label`);
    else if (value.length > MAX_LABEL) problems.push(`${what} '${value}' is ${value.length} characters, over the ${MAX_LABEL} JobSet allows`);
  };
  label('JobSet name (and Service)', jobSet);
  for (const rjob of shape.replicatedJobs) {
    label('Job name', `${jobSet}-${rjob.name}-${rjob.replicas - 1}`);
    label('pod name', longestPodName(jobSet, rjob));
  }
  if (shape.coordinator) {
    const value = coordinatorEndpoint(jobSet, shape.coordinator);
    if (value.length > MAX_LABEL) problems.push(`coordinator label value '${value}' is ${value.length} characters, over the ${MAX_LABEL} JobSet allows`);
  }
  return problems;
}

/** The longest run id whose derived names are all valid for these steps of `stack`. */
export function runIdLimit(stack: string, shapes: readonly JobSetNameShape[]): number {
  let n = 0;
  while (n < MAX_LABEL && shapes.every((s) => jobSetNameProblems(jobSetName(stack, 'r'.repeat(n + 1), s.step), s).length === 0)) n++;
  return n;
}

/**
 * Why a pipeline may not have this name, or undefined: every pipeline is a stack named after it (main.ts), beside
 * `infra`, each `serve-<pipeline>` and each `rehearse-<pipeline>`; a pipeline named like one of those would be that
 * stack (cdktf refuses two stacks of one name, and `npm run deploy -- serve-x` asks for x's server).
 */
function reservedNameProblem(name: string): string | undefined {
  const shown = JSON.stringify(name).slice(1, -1);
  if (name === 'infra') return `'${shown}' is the infra stack's name; a pipeline is a stack named after it: rename the entry (e.g. 'infra-run')`;
  const prefix = ['serve-', 'rehearse-'].find((p) => name.startsWith(p));
  if (prefix) {
    return (
      `'${shown}' starts with '${prefix}', the prefix of the ${prefix.slice(0, -1)} stack of a pipeline (${prefix}<pipeline>); ` +
      `a pipeline is a stack named after it: rename the entry (e.g. '${shown.slice(prefix.length) || 'my'}-${prefix.slice(0, -1)}')`
    );
  }
  return undefined;
}

/** The shortest useful run id (DEFAULT_RUN_ID's length): a name that leaves no room for it is the name's problem. */
const SHORT_RUN_ID = 'r1';

/** The longest pipeline name whose derived names stay valid with `runId` (0 when none does). */
export function nameLimit(runId: string, shapes: readonly JobSetNameShape[]): number {
  let n = 0;
  while (n < MAX_LABEL && shapes.every((s) => jobSetNameProblems(jobSetName('p'.repeat(n + 1), runId, s.step), s).length === 0)) n++;
  return n;
}

/** Throws when a derived name is invalid, naming the problem and how long run ids (or, when no run id fits, names) of this stack may be. */
export function checkJobSetNames(
  stack: string,
  runId: string,
  shapes: readonly JobSetNameShape[],
  source: string,
  runIdSource = `${source}.runId`,
): void {
  for (const shape of shapes) {
    const name = jobSetName(stack, runId, shape.step);
    const problems = jobSetNameProblems(name, shape);
    const tooLong = problems.find((p) => p.includes(' characters, over the '));
    if (tooLong && runIdLimit(stack, shapes) < SHORT_RUN_ID.length) {
      throw new Error(
        `${source}: pipeline name '${stack}' is too long for the names JobSet derives from it: with run id '${runId}' ` +
          `(JobSet ${name}: ${tooLong}); names of this pipeline's shape may have at most ${nameLimit(runId, shapes)} characters ` +
          `(${nameLimit(SHORT_RUN_ID, shapes)} with run id '${SHORT_RUN_ID}'): use a shorter pipeline name`,
      );
    }
    if (tooLong) {
      throw new Error(
        `${runIdSource}: run id '${runId}' is too long: run ids of ${stack} may have at most ${runIdLimit(stack, shapes)} characters ` +
          `(JobSet ${name}: ${tooLong})`,
      );
    }
    if (problems.length > 0) throw new Error(`${source}: ${problems[0]}`);
  }
}

/** Pipeline-stack output carrying a pipeline's `maxtextDifference` (jobs/pipeline.ts); the plan review reads it. */
export const TUTORIAL_MAXTEXT_OUTPUT = 'tutorial_maxtext';

/**
 * Output of every pipeline stack (constructs/rehearsal-check.ts): `passed (...)`, `stale: ...` or `none: ...`. Here,
 * with no import, so the plan review reads it without loading the pipeline builders.
 */
export const REHEARSAL_OUTPUT = 'rehearsal';

/** Label keys on every object of a pipeline (and `step` on a step's JobSet and pods); `npm run status` selects by them. */
export const PIPELINE_LABELS = {
  partOf: 'app.kubernetes.io/part-of',
  pipeline: 'tpu-post-training/pipeline',
  runId: 'tpu-post-training/run-id',
  step: 'tpu-post-training/step',
} as const;
/** Value of PIPELINE_LABELS.partOf. */
export const PART_OF = 'tpu-post-training';
