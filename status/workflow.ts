/**
 * The engine's view of a pipeline for `npm run status`: the pipeline's Argo Workflow (jobs/argo.ts) and, per step,
 * where its two DAG tasks stand: the create (`<step>`) and the wait (`<step>-wait`), with the wait's retries, and, on a
 * flex-start TPU step, its lost-host watcher (`<step>-watch`, jobs/lost-host.ts), whose failure explains the step's. Pure.
 *
 * Read from the Workflow's status as argoproj/argo-workflows v4.1.2 writes it (pkg/apis/workflow/v1alpha1/
 * workflow_types.go): `phase` (Pending, Running, Succeeded, Failed, Error), `message`, `nodes` (id -> NodeStatus with
 * `displayName`, `type` Retry|Pod|DAG, `phase`, `message`, `children`); a DAG task with a retryStrategy is a Retry node
 * named by the task whose children are the attempts `<task>(n)` (workflow/controller/operator.go). When the object
 * outgrows MAX_WORKFLOW_SIZE the nodes are in `compressedNodes`, base64 of gzip JSON (workflow/packer/packer.go;
 * util/file/fileutil.go); a node status offloaded to a database (not configured here) is reported as unreadable.
 */
import { gunzipSync } from 'zlib';
import { stepTasks } from '../jobs/argo';
import { PIPELINE_LABELS } from '../jobs/pipeline';

export interface WorkflowNode {
  readonly displayName?: string;
  readonly type?: string;
  readonly phase?: string;
  readonly message?: string;
  readonly children?: readonly string[];
}

export interface WorkflowObject {
  readonly metadata: { readonly name?: string; readonly labels?: Readonly<Record<string, string>>; readonly creationTimestamp?: string };
  readonly status?: {
    readonly phase?: string;
    readonly message?: string;
    readonly nodes?: Readonly<Record<string, WorkflowNode>>;
    readonly compressedNodes?: string;
    readonly offloadNodeStatusVersion?: string;
  };
}

export interface EngineStep {
  readonly step: string;
  /** The create task: Succeeded (created), Failed (already there, or refused: see message), Running, or '' (not started). */
  readonly create: string;
  /** The wait task: Running (watching the JobSet), Succeeded, Failed, Error, or '' (not started). */
  readonly wait: string;
  /** Attempts of the wait task so far (1 + retries). */
  readonly waitAttempts: number;
  /** The last message of the step's failing task. @default - none */
  readonly message?: string;
  /**
   * The create task ended Failed or Error for a reason other than AlreadyExists (the API server refused the JobSet, a
   * webhook unreachable past the retries): the step failed there, whatever its wait then read (NotFound). @default false
   */
  readonly createRefused?: boolean;
}

export interface EngineView {
  readonly workflow: string;
  readonly phase: string;
  readonly message?: string;
  readonly steps: readonly EngineStep[];
  /** Why the nodes could not be read. @default - they could */
  readonly unreadable?: string;
}

/** The nodes, inflated when compressed. */
export function workflowNodes(wf: WorkflowObject): { nodes: Record<string, WorkflowNode>; unreadable?: string } {
  const s = wf.status ?? {};
  if (s.nodes) return { nodes: { ...s.nodes } };
  if (s.compressedNodes) {
    try {
      return { nodes: JSON.parse(gunzipSync(Buffer.from(s.compressedNodes, 'base64')).toString('utf8')) };
    } catch (err) {
      return { nodes: {}, unreadable: `compressedNodes could not be read (${(err as Error).message})` };
    }
  }
  if (s.offloadNodeStatusVersion) return { nodes: {}, unreadable: 'the node status is offloaded to the controller\'s database' };
  return { nodes: {} };
}

/** The pipeline's newest Workflow among those listed (label tpu-post-training/pipeline). */
export function pipelineWorkflowOf(workflows: readonly WorkflowObject[], pipeline: string): WorkflowObject | undefined {
  return [...workflows]
    .filter((w) => w.metadata.labels?.[PIPELINE_LABELS.pipeline] === pipeline)
    .sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')))[0];
}

/** Where each step's tasks stand in the Workflow. */
export function engineView(wf: WorkflowObject, steps: readonly string[]): EngineView {
  const { nodes, unreadable } = workflowNodes(wf);
  const all = Object.values(nodes);
  const byTask = (task: string) => all.find((n) => n.displayName === task && n.type !== 'Pod') ?? all.find((n) => n.displayName === task);
  const out = steps.map((step) => {
    const t = stepTasks(step);
    const create = byTask(t.create);
    const wait = byTask(t.wait);
    // A create that Failed (AlreadyExists) is how a re-attached or migrated step starts: only the wait's end, or a
    // create that errored (its wait then never runs), is the step's failure.
    // The watcher that ran out of budget deleted the JobSet: its message says why, the wait's only that it is gone.
    const watch = byTask(t.watch);
    const failed = (n?: WorkflowNode) => n !== undefined && (n.phase === 'Failed' || n.phase === 'Error');
    const last = (n?: WorkflowNode) => (n?.type === 'Retry' ? nodes[(n.children ?? [])[(n.children ?? []).length - 1] ?? ''] : undefined);
    const messageOf = (n: WorkflowNode) => last(n)?.message || n.message;
    // Refused: the create's last attempt failed for another reason than finding the JobSet there (AlreadyExists).
    const createRefused = failed(create) && !(messageOf(create!) ?? '').includes('AlreadyExists') && (create!.phase === 'Failed' || !wait);
    const failing = failed(watch) ? watch : createRefused ? create : failed(wait) ? wait : undefined;
    const attempts = wait?.type === 'Retry' ? (wait.children ?? []).length : wait ? 1 : 0;
    const message = failing ? messageOf(failing) : undefined;
    return { step, create: create?.phase ?? '', wait: wait?.phase ?? '', waitAttempts: attempts, ...(message ? { message } : {}), ...(createRefused ? { createRefused } : {}) };
  });
  return {
    workflow: wf.metadata.name ?? '?',
    phase: wf.status?.phase || 'Pending',
    ...(wf.status?.message ? { message: wf.status.message } : {}),
    steps: out,
    ...(unreadable ? { unreadable } : {}),
  };
}

/** `to-maxtext ✓ → train watching (2 attempts) → to-hf · → eval ·` */
function stepText(s: EngineStep): string {
  if (s.wait === 'Succeeded') return `${s.step} ✓${s.create === 'Failed' ? ' (JobSet was already there)' : ''}`;
  if (s.wait === 'Failed' || s.wait === 'Error' || s.createRefused) return `${s.step} ✗`;
  if (s.wait === 'Running' || s.wait === 'Pending') return `${s.step} watching${s.waitAttempts > 1 ? ` (attempt ${s.waitAttempts})` : ''}`;
  if (s.create === 'Running' || s.create === 'Pending' || s.create === 'Succeeded') return `${s.step} creating`;
  return `${s.step} ·`;
}

/** The engine's lines under a pipeline: the Workflow and its DAG, then the failing step's message. */
export function engineLines(v: EngineView): string[] {
  const lines = [`engine: Workflow ${v.workflow} ${v.phase}: ${v.steps.map(stepText).join(' → ')}`];
  const failed = v.steps.find((s) => s.message);
  if (failed) lines.push(`engine: ${failed.step}: ${failed.message}`);
  else if (v.message && v.phase !== 'Running') lines.push(`engine: ${v.message}`);
  if (v.unreadable) lines.push(`engine: ${v.unreadable}`);
  return lines;
}
