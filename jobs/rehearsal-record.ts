/**
 * A rehearsal's verdict record: what it proved (jobs/rehearsal.ts RehearsalFacts: image refs, versions, model key,
 * method, revision, dataset and file hashes), the Workflow's end, which steps passed and the first failure. The one home
 * of its shape: the rehearsal Workflow's exit handler writes it next to the export (`<export dir>.rehearsal.json`),
 * and `npm run status -- rehearse-<pipeline>` reads it when present, computing the same verdict from the cluster when
 * not (status/rehearsal.ts). Pure; no cdktf.
 *
 * Written by Argo Workflows v4.1.2 (16a52d67daf2f4a8a76fa8bec02a76a46aa46257), [AW] below:
 * - `spec.onExit` names a template the controller runs once the entry DAG is fulfilled, whatever its phase —
 *   [AW] workflow/controller/operator.go:484-521 (`HasExitHook`, `executeTemplate(... onExitTemplate: true)`).
 * - Before it, the controller sets `workflow.status` (the entry node's phase mapped to Succeeded / Failed / Error,
 *   operator.go:448-457) and `workflow.failures`: every node Failed or Error, as `displayName`, `message`,
 *   `templateName`, `phase`, `podName`, `finishedAt` (operator.go:459-479), JSON-marshalled and then
 *   `strconv.Quote`d (operator.go:479; util/variables/keys/globals.go:60-62: "consumers must JSON-decode twice", the
 *   literal `"null"` when nothing failed). Both are exit-handler variables ([AW] variables.md:319-324, in its docs folder) and the
 *   validator knows `workflow.failures` only when an onExit is set (workflow/validate/validate.go:287-296).
 * - Tags in a resource template's manifest are substituted in the JSON-marshalled template (simple tags escaped with
 *   strconv.Quote: util/template/simple_template.go:66-72); an expression tag `{{=...}}` is evaluated by expr with the
 *   sprig functions (util/expr/env/env.go:21-29 `sprig`; variables.md:116) and the validator replaces it by a
 *   placeholder before checking the manifest is YAML (validate.go:123-138, 947-957). So the failures travel base64
 *   encoded (`sprig.b64enc`): no quote of theirs can break the JobSet's JSON.
 * - An exit handler that fails turns a Succeeded Workflow into Failed (operator.go:527-541); a DAG task with
 *   `continueOn` for its phase does not fail its DAG (workflow/controller/dag.go:227-235). So the handler is a DAG
 *   whose one task, the verdict JobSet's create, continues on failure and error: writing the verdict never changes
 *   the rehearsal's outcome. The create does not wait for the JobSet; status reads the record once it is there.
 */
import { cpuPodJobSet, QUEUE_LABEL } from './jobset';
import { shellQuote } from './maxtext';
import { PART_OF, PIPELINE_LABELS } from './pipeline';
import type { Platform } from './platform';
import type { RehearsalFacts } from './rehearsal';

/** Suffix of the record: `<export dir without its trailing slash>.rehearsal.json`, next to the steps' run records. */
export const REHEARSAL_RECORD_SUFFIX = '.rehearsal.json';
/** The step label value and JobSet name suffix of the verdict writer. */
export const VERDICT_STEP = 'verdict';
/** The exit handler's templates: the DAG and the create it runs. */
export const VERDICT_TEMPLATES = { handler: 'rehearsal-verdict', create: 'rehearsal-verdict-create' } as const;
/** One attempt of the verdict writer, seconds (it reads no checkpoint: a pod start and one small write). */
export const VERDICT_DEADLINE_SECONDS = 900;

/** The first step that failed, why, and its last log lines when known. */
export interface RehearsalFailure {
  readonly step: string;
  readonly reason: string;
  /** The step's last log lines. Empty in a record the Workflow wrote (the engine has no logs); status adds them. */
  readonly lines: readonly string[];
}

/** A rehearsal's verdict: computed by status from the steps, or read from the record. */
export interface RehearsalVerdict {
  /** `passed`: every step completed; `failed`: a step failed; `running`: neither yet. */
  readonly verdict: 'passed' | 'failed' | 'running';
  readonly key: string;
  readonly of: string;
  readonly passed: readonly string[];
  /** The first failed step, its reason and its last log lines. @default - none failed */
  readonly firstFailure?: RehearsalFailure;
}

/** The record the exit handler writes: the facts, and the verdict at the Workflow's end. */
export interface RehearsalRecord extends RehearsalFacts {
  readonly version: 1;
  readonly verdict: 'passed' | 'failed';
  /** `workflow.status`: Succeeded, Failed or Error. */
  readonly workflowStatus: string;
  readonly passed: readonly string[];
  /** @default - none: it passed */
  readonly firstFailure?: RehearsalFailure;
  /** When the exit handler wrote it (UTC, ISO 8601). */
  readonly writtenAt: string;
}

/** gs:// path of a rehearsal's record. */
export function rehearsalRecordPath(hfExportDir: string): string {
  return `${hfExportDir.replace(/\/$/, '')}${REHEARSAL_RECORD_SUFFIX}`;
}

/** The record read back, when it is one for exactly these facts (same key); undefined otherwise. */
export function rehearsalRecordFromJson(text: string, facts: Pick<RehearsalFacts, 'key'>): RehearsalRecord | undefined {
  let r: unknown;
  try {
    r = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof r !== 'object' || r === null) return undefined;
  const o = r as Record<string, unknown>;
  const failure = o.firstFailure as Record<string, unknown> | undefined;
  const wellFormed =
    o.version === 1 && o.key === facts.key && (o.verdict === 'passed' || o.verdict === 'failed') && Array.isArray(o.passed) && o.passed.every((s) => typeof s === 'string') &&
    typeof o.workflowStatus === 'string' && typeof o.writtenAt === 'string' &&
    (failure === undefined || (typeof failure.step === 'string' && typeof failure.reason === 'string' && Array.isArray(failure.lines)));
  return wellFormed ? (o as unknown as RehearsalRecord) : undefined;
}

/**
 * The Python that writes the record: argv[1] the facts JSON, argv[2] its gs:// path, argv[3] the steps in order;
 * WORKFLOW_STATUS and WORKFLOW_FAILURES_B64 from the exit handler. A step failed when its wait task's own node
 * (`<step>-wait`, not a retry's `<step>-wait(n)`) is among the failures; else the first step with any failed node; the
 * steps before it passed. A failure to write is printed and the pod still exits 0. Double quotes only (shell-quoted
 * as one word); no `{{` (the engine would substitute it).
 */
export const VERDICT_WRITER = [
  'import base64, datetime, json, os, sys',
  'facts, path, steps = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])',
  'status = os.environ.get("WORKFLOW_STATUS", "")',
  'raw = base64.b64decode(os.environ.get("WORKFLOW_FAILURES_B64", "")).decode() or "null"',
  'failures = json.loads(raw)',
  'if isinstance(failures, str):',
  '    failures = json.loads(failures)',
  'failures = [f for f in (failures or []) if isinstance(f, dict)]',
  'names = [str(f.get("displayName", "")) for f in failures]',
  'def base(n):',
  '    n = n.split("(")[0]',
  '    return n[:-5] if n.endswith("-wait") else n',
  'record = dict(facts, version=1, workflowStatus=status, passed=list(steps))',
  'if status == "Succeeded":',
  '    record["verdict"] = "passed"',
  'else:',
  '    record["verdict"] = "failed"',
  '    at = next((i for i, s in enumerate(steps) if s + "-wait" in names), None)',
  '    if at is None:',
  '        at = next((i for i, s in enumerate(steps) if any(base(n) == s for n in names)), None)',
  '    step = steps[at] if at is not None else "workflow"',
  '    own = [f for f in failures if base(str(f.get("displayName", ""))) == step]',
  '    why = "; ".join(sorted(set(str(f.get("message", "")) for f in (own or failures) if f.get("message")))) or status',
  '    record["passed"] = list(steps[:at]) if at is not None else []',
  '    record["firstFailure"] = dict(step=step, reason=why, lines=[])',
  'record["writtenAt"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")',
  'text = json.dumps(record, indent=1, sort_keys=True) + chr(10)',
  'print(text)',
  'try:',
  '    import gcsfs',
  '    gcsfs.GCSFileSystem().pipe(path, text.encode())',
  'except Exception as e:',
  '    print("rehearsal record " + path + " not written: " + repr(e))',
].join('\n');

/** The verdict writer's JobSet, its name and where it writes. */
export interface VerdictWriter {
  readonly jobSetName: string;
  readonly recordPath: string;
  /** The JobSet the exit handler creates (the engine's tags in its env). */
  readonly manifest: Record<string, unknown>;
}

/** Engine tags the writer's env carries (substituted by the exit handler; see the header). */
export const VERDICT_ENV = { WORKFLOW_STATUS: '{{workflow.status}}', WORKFLOW_FAILURES_B64: '{{=sprig.b64enc(workflow.failures)}}' } as const;

/**
 * The verdict writer of a built rehearsal: one pod on the CPU pool, as the workload service account (it writes to the
 * bucket as the steps do), in the pipeline's queue, with the MaxText image (python3 and gcsfs, which the steps' run
 * records use), no restart.
 */
export function verdictWriter(
  built: { readonly name: string; readonly image: string; readonly namespace: string; readonly steps: ReadonlyArray<{ readonly name: string }>; readonly paths: { readonly hfExportDir: string } },
  facts: RehearsalFacts,
  jobSetPrefix: string,
  runId: string,
  platform: Pick<Platform, 'serviceAccountName' | 'localQueue' | 'cpuPool'>,
): VerdictWriter {
  const recordPath = rehearsalRecordPath(built.paths.hfExportDir);
  const jobSetName = `${jobSetPrefix}-${runId}-${VERDICT_STEP}`;
  const script = ['python3', '-c', VERDICT_WRITER, JSON.stringify(facts), recordPath, JSON.stringify(built.steps.map((s) => s.name))].map(shellQuote).join(' ');
  const { manifest } = cpuPodJobSet(
    {
      name: jobSetName,
      namespace: built.namespace,
      pod: {
        pipeline: built.name,
        serviceAccountName: platform.serviceAccountName,
        labels: { [PIPELINE_LABELS.partOf]: PART_OF, [PIPELINE_LABELS.step]: VERDICT_STEP, [QUEUE_LABEL]: platform.localQueue },
      },
      maxRestarts: 0,
      activeDeadlineSeconds: VERDICT_DEADLINE_SECONDS,
    },
    { image: built.image, script, env: { ...VERDICT_ENV }, resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '2Gi' } } },
    platform.cpuPool.name,
  );
  return { jobSetName, recordPath, manifest };
}

/**
 * The Workflow's exit handler for a verdict writer (jobs/argo.ts adds it): `onExit` names a DAG whose one task creates
 * the writer's JobSet and continues on failure or error, so the rehearsal's own outcome stands whatever the write does.
 */
export function verdictExitHandler(w: VerdictWriter): { readonly onExit: string; readonly templates: readonly Record<string, unknown>[] } {
  return {
    onExit: VERDICT_TEMPLATES.handler,
    templates: [
      { name: VERDICT_TEMPLATES.handler, dag: { tasks: [{ name: 'write', template: VERDICT_TEMPLATES.create, continueOn: { failed: true, error: true } }] } },
      {
        name: VERDICT_TEMPLATES.create,
        retryStrategy: { limit: 3, retryPolicy: 'OnError', backoff: { duration: '10s', factor: 2 } },
        resource: { action: 'create', setOwnerReference: true, manifest: JSON.stringify(w.manifest) },
      },
    ],
  };
}
