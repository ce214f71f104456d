/**
 * `npm run retry -- <pipeline>`: Argo Workflows' own retry of a pipeline's failed Workflow, through argo-server's API
 * (argoproj/argo-workflows v4.1.2 pkg/apiclient/workflow/workflow.proto `RetryWorkflow`: PUT
 * /api/v1/workflows/{namespace}/{name}/retry, body WorkflowRetryRequest {name, namespace, restartSuccessful,
 * nodeFieldSelector, parameters}; server/workflow/workflow_server.go `RetryWorkflow` runs workflow/util/util.go
 * `FormulateRetryWorkflow`: only a Failed or Error Workflow; every failed execution node without a succeeded
 * descendant is reset or deleted with what depends on it, every succeeded node kept, the phase set Running, so the
 * controller runs the DAG on from the step that failed). What the UI's RETRY button and `argo retry` do.
 *
 * Reached as `npm run workflows-ui` documents it: `kubectl port-forward` to the argo-server Service (ClusterIP only),
 * plain HTTP inside the tunnel (chart value server.secure false), the caller's own token (authModes client: argo-server
 * acts with it, so the caller's RBAC decides), `gcloud auth print-access-token` as `npm run status` reads the bucket.
 */
import { startBackground } from '../util/child-process';
import { ARGO_SERVER } from '../jobs/argo';
import type { EngineView } from './workflow';

export interface PortForward {
  /** http://127.0.0.1:<local port> */
  readonly url: string;
  readonly stop: () => void;
}

/** kubectl's arguments: a free local port (`:<port>`), the argo-server Service of `namespace`. */
export function portForwardArgs(namespace: string, context?: string): string[] {
  return [...(context ? ['--context', context] : []), '-n', namespace, 'port-forward', `svc/${ARGO_SERVER.service}`, `:${ARGO_SERVER.port}`];
}

/**
 * Starts `kubectl port-forward` (util/child-process.ts startBackground) and resolves once it prints its `Forwarding from
 * 127.0.0.1:<port> -> 2746` line; rejects with kubectl's own words when it exits first or says nothing within `timeoutMs`.
 */
export async function startPortForward(namespace: string, env: Readonly<Record<string, string | undefined>>, timeoutMs: number, context?: string): Promise<PortForward> {
  try {
    const bg = await startBackground('kubectl', portForwardArgs(namespace, context), { timeoutMs, env: env as NodeJS.ProcessEnv, ready: /Forwarding from 127\.0\.0\.1:(\d+) -> / });
    return { url: `http://127.0.0.1:${bg.ready[1]}`, stop: bg.stop };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new Error(e.code === 'ENOENT' ? 'kubectl is not installed (npm run retry reaches the engine through kubectl port-forward)' : `port-forward to svc/${ARGO_SERVER.service} in ${namespace}: ${e.message}`);
  }
}

export interface RetryAnswer {
  readonly ok: boolean;
  readonly status: number;
  /** argo-server's error message (grpc-gateway's `{"code", "message"}`). @default - none */
  readonly message?: string;
  /** The Workflow's phase in the answer (Running once retried). @default - none */
  readonly phase?: string;
}

/** PUT /api/v1/workflows/<namespace>/<name>/retry with the caller's token. */
export async function retryWorkflowRequest(url: string, namespace: string, name: string, token: () => Promise<string>, timeoutMs: number): Promise<RetryAnswer> {
  const path = `/api/v1/workflows/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/retry`;
  const res = await fetch(`${url}${path}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${await token()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, namespace }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let body: { message?: unknown; status?: { phase?: unknown } } = {};
  try {
    body = JSON.parse(text);
  } catch {
    body = { message: text.trim().slice(0, 300) };
  }
  const message = typeof body.message === 'string' && body.message !== '' ? body.message : undefined;
  const phase = typeof body.status?.phase === 'string' ? body.status.phase : undefined;
  return { ok: res.ok, status: res.status, ...(message ? { message } : {}), ...(phase ? { phase } : {}) };
}

/** What the command prints: which step the run resumes from and what it keeps, or the engine's refusal. */
export function retryLines(pipeline: string, workflow: string, view: EngineView, answer: RetryAnswer): string[] {
  if (!answer.ok) return [`${pipeline}: the engine refused to retry Workflow ${workflow} (HTTP ${answer.status}): ${answer.message ?? 'no message'}`];
  const failed = view.steps.find((s) => s.message || s.wait === 'Failed' || s.wait === 'Error' || s.createRefused);
  const kept = view.steps.filter((s) => s.wait === 'Succeeded').map((s) => s.step);
  return [
    `${pipeline}: retried Workflow ${workflow} (Argo's retry): it runs again from ${failed ? failed.step : 'its failed task'}` +
      `${kept.length > 0 ? `; ${kept.join(', ')} finished and ${kept.length === 1 ? 'is' : 'are'} kept, not re-run` : ''}`,
    `follow it with: npm run status -- ${pipeline} --watch`,
  ];
}
