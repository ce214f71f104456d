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
import { REDACTED, SECRET_PATTERNS } from '../util/redact';
import { cpuPodJobSet, JOBSET_POD_LABELS, MAIN_CONTAINER, QUEUE_LABEL } from './jobset';
import { shellQuote } from './maxtext';
import { PART_OF, PIPELINE_LABELS } from './names';
import type { Platform } from './platform';
import type { Recipe } from './recipes/types';
import { HF_TOKEN_FILE } from './secrets';

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
  /** The step's last log lines, redacted and bounded (VERDICT_LOG); empty when they could not be read (linesMissing). */
  readonly lines: readonly string[];
  /** The pod and container the lines came from, and why that pod. @default - not read */
  readonly logFrom?: { readonly pod: string; readonly container: string; readonly chosen: string; readonly previous?: boolean };
  /** Why there are no lines (no cluster, a 403, the pods gone, a timeout). @default - lines were read */
  readonly linesMissing?: string;
  /** What the bounds cut (bytes kept, earlier lines left out). @default - nothing cut */
  readonly linesCut?: string;
}

/** A rehearsal's verdict: computed by status from the steps, or read from the record. */
export interface RehearsalVerdict {
  /** `passed`: every step completed; `failed`: a step failed; `not-deployed`: no step exists; `running`: otherwise. */
  readonly verdict: 'passed' | 'failed' | 'running' | 'not-deployed';
  readonly key: string;
  readonly of: string;
  readonly passed: readonly string[];
  /** The first failed step, its reason and its last log lines. @default - none failed */
  readonly firstFailure?: RehearsalFailure;
}

/**
 * What a rehearsal proves, known at synth: it goes into the rehearsal's record ConfigMap (jobs/record.ts) next to the
 * steps' run records in the bucket (jobs/run-record.ts), and `npm run status -- rehearse-<pipeline>` shows it with
 * which steps passed and the first failure's log lines (status/rehearsal.ts).
 */
export interface RehearsalFacts {
  /** The pipeline rehearsed. */
  readonly of: string;
  /** rehearsalKey of the combination: equal for the pipeline and its rehearsal. */
  readonly key: string;
  readonly model: string;
  readonly hfRepo: string;
  /** @default - none: the repository's head at run time (the conversion's run record says which commit it read) */
  readonly revision?: string;
  readonly method: Recipe['train']['kind'];
  /** Every image the rehearsal's pods pull, as the pipeline names them: by digest where the lock pins them (imagesPinnedBy). */
  readonly images: readonly string[];
  /** `tag` unless every image names a digest: what the rehearsal key compares (a moved tag is not detected). */
  readonly imagesPinnedBy: 'tag' | 'digest';
  /** MaxText (the image's tag), vLLM (the eval image) and lm-evaluation-harness versions. */
  readonly versions: { readonly maxtext?: string; readonly vllm?: string; readonly lmEval?: string };
  /** sha256 of the dataset settings and of every file the pods read, by path. */
  readonly hashes: Readonly<Record<string, string>>;
  /** Decoder layers of the cut model, training steps. */
  readonly layers: number;
  readonly steps: number;
  readonly cannotShow: readonly string[];
  /** Where the Workflow's exit handler writes the verdict record (below). */
  readonly recordPath: string;
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
    (failure === undefined || (typeof failure.step === 'string' && typeof failure.reason === 'string' && Array.isArray(failure.lines) && failure.lines.every((l) => typeof l === 'string')));
  return wellFormed ? (o as unknown as RehearsalRecord) : undefined;
}

/**
 * How much of the failed step's log the record carries: the last `lines` lines of its main container, each cut to
 * `lineChars` characters (its start kept), the last ones kept within `totalChars`; the log read is bounded by
 * `maxBytes` and `timeoutSeconds` (of which the last `keepBytes` are kept), the pod list by `listBytes`.
 */
export const VERDICT_LOG = { lines: 50, lineChars: 500, totalChars: 16_000, keepBytes: 256 * 1024, maxBytes: 16 << 20, listBytes: 8 << 20, timeoutSeconds: 20 } as const;
/** Where every pod finds its service account's token and the cluster CA (the kubelet's standard mount). */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/**
 * What the writer's service account may do, and nothing more (a Role in the pipelines' namespace, constructs/identity.ts):
 * list the failed step's pods by their JobSet label, get one, and read its log. Bound to the writer's own KSA
 * (Platform.verdictServiceAccountName), never to the one the pipeline steps run as.
 */
export const VERDICT_WRITER_RBAC_RULES: readonly { readonly apiGroups: readonly string[]; readonly resources: readonly string[]; readonly verbs: readonly string[] }[] = [
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
  { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
];

/** A step as the writer reads it: its name, its JobSet, the container whose log it reads, the labels of its main pod. */
export interface WriterStep {
  readonly name: string;
  readonly jobSet: string;
  readonly container: string;
  readonly mainPod: Readonly<Record<string, string>>;
}

/**
 * The Python that writes the record: argv[1] the facts JSON, argv[2] its gs:// path, argv[3] the steps in order
 * (WriterStep), argv[4] the log settings (verdictLogConfig); WORKFLOW_STATUS and WORKFLOW_FAILURES_B64 from the exit
 * handler. A step failed when its wait task's own node (`<step>-wait`, not a retry's `<step>-wait(n)`) is among the
 * failures; else the first step with any failed node; the steps before it passed.
 *
 * The failed step's last log lines: it lists the step's pods from the in-cluster API (`KUBERNETES_SERVICE_HOST`/`_PORT`,
 * the service account's token and CA under SERVICE_ACCOUNT_DIR, or `$SERVICE_ACCOUNT_DIR`) by the JobSet's label, takes
 * the pod whose main container exited non-zero first (its previous run's log when it has restarted since), else the
 * step's main pod, and reads the container's tail (VERDICT_LOG). The pods are still there: JobSet v0.12.0 deletes only the
 * active Jobs of a finished JobSet, never the failed one (kubernetes-sigs/jobset f22e565a,
 * pkg/controllers/jobset_controller.go:162-176), and nothing deletes the JobSet before the Workflow. Secrets are redacted
 * before a line is kept: the HF token's own text (the mounted file) and util/redact.ts SECRET_PATTERNS. A read that
 * fails (no cluster, 403, 404, no pod, a timeout) leaves `lines` empty and says why in `linesMissing`; it never stops
 * the record. A failure to write is printed and the pod still exits 0. Double quotes only (shell-quoted as one word);
 * no `{{` (the engine would substitute it).
 */
export const VERDICT_WRITER = [
  'import base64, datetime, json, os, re, ssl, sys, time, urllib.error, urllib.parse, urllib.request',
  'facts, path, steps, cfg = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])',
  'order = [s["name"] for s in steps]',
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
  'try:',
  '    hf_token = open(cfg["hfTokenFile"]).read().strip()',
  'except OSError:',
  '    hf_token = ""',
  'def redact(text):',
  '    if len(hf_token) >= 8:',
  '        text = text.replace(hf_token, cfg["redacted"])',
  '    for s in cfg["secrets"]:',
  '        text = re.sub(s["pattern"], lambda m, shown=s["shown"]: shown, text)',
  '    return text',
  'def cut(text, n):',
  '    return text if len(text) <= n else text[:n] + "… (" + str(len(text) - n) + " more characters)"',
  'class Missing(Exception):',
  '    pass',
  'def call(p, query, limit):',
  '    host = os.environ.get("KUBERNETES_SERVICE_HOST", "")',
  '    if not host:',
  '        raise Missing("not run in a cluster (no KUBERNETES_SERVICE_HOST)")',
  '    url = "https://" + ("[" + host + "]" if ":" in host else host) + ":" + os.environ.get("KUBERNETES_SERVICE_PORT", "443") + p + "?" + urllib.parse.urlencode(query)',
  '    sa = os.environ.get("SERVICE_ACCOUNT_DIR", cfg["serviceAccountDir"])',
  '    token = open(sa + "/token").read().strip()',
  '    request = urllib.request.Request(url, headers=dict(Authorization="Bearer " + token))',
  '    try:',
  '        response = urllib.request.urlopen(request, timeout=cfg["timeoutSeconds"], context=ssl.create_default_context(cafile=sa + "/ca.crt"))',
  '    except urllib.error.HTTPError as e:',
  '        body = e.read(4096).decode("utf-8", "replace")',
  '        try:',
  '            body = str(json.loads(body).get("message", body))',
  '        except (ValueError, AttributeError):',
  '            pass',
  '        raise Missing("HTTP " + str(e.code) + " from " + p + ": " + cut(redact(body), 300))',
  '    data, read, start, note = b"", 0, time.monotonic(), ""',
  '    with response:',
  '        while True:',
  '            chunk = response.read(65536)',
  '            if not chunk:',
  '                break',
  '            read += len(chunk)',
  '            data = (data + chunk)[-limit:]',
  '            if read > cfg["maxBytes"] or time.monotonic() - start > cfg["timeoutSeconds"]:',
  '                note = "stopped reading after " + str(read) + " bytes and " + str(int(time.monotonic() - start)) + " s"',
  '                break',
  '    if read > len(data):',
  '        note = note or "kept the last " + str(len(data)) + " of " + str(read) + " bytes"',
  '    return data, note',
  'def terminated(pod, c):',
  '    st = next((s for s in (pod.get("status") or dict()).get("containerStatuses") or [] if s.get("name") == c), dict())',
  '    for key in ("state", "lastState"):',
  '        t = (st.get(key) or dict()).get("terminated")',
  '        if t and t.get("exitCode", 0) != 0:',
  '            return t, key == "lastState"',
  '    return None, False',
  'def pick(pods, step):',
  '    c = step["container"]',
  '    has = [p for p in pods if any(x.get("name") == c for x in (p.get("spec") or dict()).get("containers") or [])]',
  '    failed = sorted((str(terminated(p, c)[0].get("finishedAt") or ""), i) for i, p in enumerate(has) if terminated(p, c)[0])',
  '    if failed:',
  '        return has[failed[0][1]], terminated(has[failed[0][1]], c)[1], "its " + c + " exited non-zero"',
  '    labels = lambda p: (p.get("metadata") or dict()).get("labels") or dict()',
  '    main = [p for p in has if all(labels(p).get(k) == v for k, v in step["mainPod"].items())]',
  '    return (main + has + [None])[0], False, "its main pod (no " + c + " exited non-zero)"',
  'def log_lines(step):',
  '    c, js = step["container"], step["jobSet"]',
  '    try:',
  '        pods = json.loads(call("/api/v1/namespaces/" + cfg["namespace"] + "/pods", dict(labelSelector=cfg["jobSetLabel"] + "=" + js), cfg["listBytes"])[0].decode()).get("items") or []',
  '        if not pods:',
  '            return dict(linesMissing="no pod of JobSet " + js + " is left to read (deleted, or none was created)")',
  '        pod, previous, why = pick(pods, step)',
  '        if pod is None:',
  '            return dict(linesMissing="no pod of JobSet " + js + " has a container " + c)',
  '        name = pod["metadata"]["name"]',
  '        query = dict(container=c, tailLines=str(cfg["lines"]), **(dict(previous="true") if previous else dict()))',
  '        data, note = call("/api/v1/namespaces/" + cfg["namespace"] + "/pods/" + name + "/log", query, cfg["keepBytes"])',
  '    except Missing as e:',
  '        return dict(linesMissing=str(e))',
  '    except Exception as e:',
  '        return dict(linesMissing="reading the log failed: " + cut(redact(type(e).__name__ + ": " + str(e)), 300))',
  '    out = dict(logFrom=dict(pod=name, container=c, chosen=why, **(dict(previous=True) if previous else dict())))',
  '    lines = [l.rstrip("\\r").split("\\r")[-1] for l in redact(data.decode("utf-8", "replace")).split("\\n")]',
  '    while lines and lines[-1] == "":',
  '        lines.pop()',
  '    lines = [cut(l, cfg["lineChars"]) for l in lines[-cfg["lines"]:]]',
  '    kept, total = [], 0',
  '    for l in reversed(lines):',
  '        total += len(l) + 1',
  '        if total > cfg["totalChars"]:',
  '            break',
  '        kept.insert(0, l)',
  '    notes = [n for n in (note, (str(len(lines) - len(kept)) + " earlier lines left out (over " + str(cfg["totalChars"]) + " characters)") if len(kept) < len(lines) else "") if n]',
  '    out["lines"] = kept',
  '    if notes:',
  '        out["linesCut"] = "; ".join(notes)',
  '    if not kept:',
  '        out["linesMissing"] = "the log of " + name + "/" + c + " is empty"',
  '    return out',
  'record = dict(facts, version=1, workflowStatus=status, passed=list(order))',
  'if status == "Succeeded":',
  '    record["verdict"] = "passed"',
  'else:',
  '    record["verdict"] = "failed"',
  '    at = next((i for i, s in enumerate(order) if s + "-wait" in names), None)',
  '    if at is None:',
  '        at = next((i for i, s in enumerate(order) if any(base(n) == s for n in names)), None)',
  '    step = order[at] if at is not None else "workflow"',
  '    own = [f for f in failures if base(str(f.get("displayName", ""))) == step]',
  '    why = "; ".join(sorted(set(str(f.get("message", "")) for f in (own or failures) if f.get("message")))) or status',
  '    record["passed"] = list(order[:at]) if at is not None else []',
  '    failure = dict(step=step, reason=redact(why), lines=[])',
  '    failure.update(log_lines(steps[at]) if at is not None else dict(linesMissing="no step failed: the Workflow ended " + status))',
  '    record["firstFailure"] = failure',
  'record["writtenAt"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")',
  'text = json.dumps(record, indent=1, sort_keys=True) + chr(10)',
  'print(text)',
  'try:',
  '    import gcsfs',
  '    gcsfs.GCSFileSystem().pipe(path, text.encode())',
  'except Exception as e:',
  '    print("rehearsal record " + path + " not written: " + repr(e))',
].join('\n');

/** What the writer needs of a built step (jobs/pipeline.ts PipelineStep). */
export interface VerdictStepInput {
  readonly name: string;
  readonly jobSetName: string;
  readonly mainPodSelector: Readonly<Record<string, string>>;
}

/** A step as the writer reads it: the main container of every step's JobSet (jobs/jobset.ts MAIN_CONTAINER), never a sidecar. */
export function writerStep(s: VerdictStepInput): WriterStep {
  return { name: s.name, jobSet: s.jobSetName, container: MAIN_CONTAINER, mainPod: { ...s.mainPodSelector } };
}

/** The writer's log settings (argv[4]): the bounds, where to read, and what to redact (util/redact.ts's shapes, one home). */
export function verdictLogConfig(namespace: string): Record<string, unknown> {
  return {
    ...VERDICT_LOG,
    namespace,
    jobSetLabel: JOBSET_POD_LABELS.jobSetName,
    serviceAccountDir: SERVICE_ACCOUNT_DIR,
    hfTokenFile: HF_TOKEN_FILE,
    redacted: REDACTED,
    secrets: SECRET_PATTERNS.map((p) => ({ pattern: p.pattern.source, shown: p.shown })),
  };
}

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
 * The verdict writer of a built rehearsal: one pod on the CPU pool, as its own KSA (Platform.verdictServiceAccountName:
 * Workload Identity to its own GSA `<cluster>-gke-vw-sa`, which may write only the bucket's `*.rehearsal.json` objects
 * and read the HF token it mounts to redact it: constructs/bucket.ts verdictRecordCondition; the only
 * KSA bound to VERDICT_WRITER_RBAC_RULES, to read the failed step's pods and log), in the pipeline's queue, with the
 * MaxText image (python3 and gcsfs, which the steps' run records use), no restart.
 */
export function verdictWriter(
  built: { readonly name: string; readonly image: string; readonly namespace: string; readonly steps: ReadonlyArray<VerdictStepInput>; readonly paths: { readonly hfExportDir: string } },
  facts: RehearsalFacts,
  jobSetPrefix: string,
  runId: string,
  platform: Pick<Platform, 'verdictServiceAccountName' | 'localQueue' | 'cpuPool'>,
): VerdictWriter {
  const recordPath = rehearsalRecordPath(built.paths.hfExportDir);
  const jobSetName = `${jobSetPrefix}-${runId}-${VERDICT_STEP}`;
  const args = [JSON.stringify(facts), recordPath, JSON.stringify(built.steps.map(writerStep)), JSON.stringify(verdictLogConfig(built.namespace))];
  const script = ['python3', '-c', VERDICT_WRITER, ...args].map(shellQuote).join(' ');
  const { manifest } = cpuPodJobSet(
    {
      name: jobSetName,
      namespace: built.namespace,
      pod: {
        pipeline: built.name,
        serviceAccountName: platform.verdictServiceAccountName,
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
