/**
 * The thin cluster client of `npm run status` / `npm run logs`: @kubernetes/client-node 1.x on the user's
 * kubeconfig (as `gcloud container clusters get-credentials` writes it: an exec plugin, `gke-gcloud-auth-plugin`).
 *
 * One poll is four list calls in the pipelines' namespace, whatever the number of pipelines and pods: JobSets and
 * Pods by the pipelines' label selector, Kueue Workloads (cluster-wide, to see what else holds the ClusterQueue's
 * quota; the namespace only when the user may not list them cluster-wide; Kueue does not copy JobSet labels onto
 * workloads, see model.ts), and Warning Events (events carry no labels of the objects they describe, so they are
 * selected by `type=Warning` and matched to pods by name). Logs are read only for the main pods that need them.
 *
 * client-node 1.x ships only ES modules; this CommonJS build loads it with `require` (Node >= 20.19, package.json
 * engines). It refuses a plain-http server unless the kubeconfig sets insecure-skip-tls-verify (config.js).
 */
import { PassThrough, Writable } from 'stream';
import { finished } from 'stream/promises';
import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig, Log } from '@kubernetes/client-node';
import { JOBSET_API_VERSION } from '../jobs/jobset';
import { KUEUE, LogRequest, Snapshot } from './model';

/** Why the cluster gave no answer: no connection, refused credentials, or an API error. */
export class ClusterError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'auth' | 'plugin' | 'api',
  ) {
    super(message);
    this.name = 'ClusterError';
  }
}

/** The kubeconfig context and API server a client talks to. */
export interface Target {
  readonly context: string;
  readonly server: string;
}

const [JOBSET_GROUP, JOBSET_VERSION] = JOBSET_API_VERSION.split('/');

function describe(err: unknown): ClusterError {
  if (err instanceof ClusterError) return err;
  if (err instanceof ApiException) {
    // client-node 1.x: `body` is the parsed Status for most codes; for others only the message holds
    // "HTTP-Code: N\nMessage: ...\nBody: ...".
    const text = String(err.message);
    const bodyText = /\nBody: (\{.*)\n/.exec(text)?.[1];
    const body = (typeof err.body === 'string' ? safeJson(err.body) : err.body) ?? (bodyText ? safeJson(bodyText) : undefined);
    const detail = (body as { message?: string } | undefined)?.message ?? /\nMessage: (.*)/.exec(text)?.[1] ?? text.split('\n')[0];
    if (err.code === 401 || err.code === 403) return new ClusterError(`the API server refused the request (HTTP ${err.code}): ${detail}`, 'auth');
    return new ClusterError(`the API server answered HTTP ${err.code}: ${detail}`, 'api');
  }
  const message = (err as { message?: string })?.message ?? String(err);
  const plugin = /spawn (\S+) ENOENT/.exec(message);
  if (plugin) {
    // The kubeconfig's exec credential plugin is missing (get-credentials writes gke-gcloud-auth-plugin).
    return new ClusterError(`the kubeconfig's credential plugin '${plugin[1]}' is not installed (gcloud components install gke-gcloud-auth-plugin)`, 'plugin');
  }
  return new ClusterError(message, 'unreachable');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 300) };
  }
}

function items<T>(list: unknown): T[] {
  return ((list as { items?: T[] } | undefined)?.items ?? []) as T[];
}

export class Cluster {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private workloadsClusterWide = true;

  constructor(private readonly kc: KubeConfig) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  /** The context and server this client uses; throws ClusterError when the kubeconfig names none. */
  target(): Target {
    const context = this.kc.getCurrentContext();
    const cluster = this.kc.getCurrentCluster();
    if (!context || !cluster) throw new ClusterError('the kubeconfig has no current context', 'unreachable');
    return { context, server: cluster.server };
  }

  private async workloads(namespace: string): Promise<unknown> {
    const { group, version, workloads: plural } = KUEUE;
    if (this.workloadsClusterWide) {
      try {
        return await this.custom.listClusterCustomObject({ group, version, plural });
      } catch (err) {
        if (!(err instanceof ApiException && err.code === 403)) throw err;
        this.workloadsClusterWide = false;
      }
    }
    return this.custom.listNamespacedCustomObject({ group, version, namespace, plural });
  }

  /** One poll: JobSets, Workloads, Pods and Warning Events (four list calls). */
  async snapshot(namespace: string, labelSelector: string): Promise<Snapshot> {
    try {
      const [jobSets, workloads, pods, events] = await Promise.all([
        this.custom.listNamespacedCustomObject({ group: JOBSET_GROUP, version: JOBSET_VERSION, namespace, plural: 'jobsets', labelSelector }),
        this.workloads(namespace),
        this.core.listNamespacedPod({ namespace, labelSelector }),
        this.core.listNamespacedEvent({ namespace, fieldSelector: 'type=Warning' }),
      ]);
      return { jobSets: items(jobSets), workloads: items(workloads), pods: items(pods), events: items(events) };
    } catch (err) {
      throw describe(err);
    }
  }

  /** The requested log lines (with timestamps, for the progress rate); a missing log reads as empty. */
  async readLogs(namespace: string, requests: readonly LogRequest[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    await Promise.all(
      requests.map(async (r) => {
        try {
          const read = (range: { tailLines?: number; limitBytes?: number }) =>
            this.core.readNamespacedPodLog({ name: r.pod, namespace, container: r.container, timestamps: true, ...range });
          if (r.full) {
            out.set(r.pod, await read({}));
            return;
          }
          // A training step: the first bytes (the evaluation before training) and the tail; the head alone when it is the whole log.
          const head = r.headBytes ? await read({ limitBytes: r.headBytes }) : undefined;
          if (head !== undefined && Buffer.byteLength(head) < r.headBytes!) {
            out.set(r.pod, head);
            return;
          }
          const tail = await read({ tailLines: r.tailLines });
          out.set(r.pod, head !== undefined ? `${head}\n${tail}` : tail);
        } catch (err) {
          if (err instanceof ApiException && (err.code === 400 || err.code === 404)) return; // not started yet, or gone
          throw describe(err);
        }
      }),
    );
    return out;
  }

  /** Whether the container has a log yet (the API answers 400 while it is waiting to start). */
  async hasLog(namespace: string, pod: string, container: string): Promise<boolean> {
    try {
      await this.core.readNamespacedPodLog({ name: pod, namespace, container, tailLines: 1 });
      return true;
    } catch (err) {
      if (err instanceof ApiException && (err.code === 400 || err.code === 404)) return false;
      throw describe(err);
    }
  }

  /** Writes a container's log to `out` (without ending it); with `follow`, until the container ends or the call is interrupted. */
  async streamLog(namespace: string, pod: string, container: string, out: Writable, follow: boolean): Promise<void> {
    const pipe = new PassThrough();
    pipe.pipe(out, { end: false });
    try {
      await new Log(this.kc).log(namespace, pod, container, pipe, { follow });
    } catch (err) {
      throw describe(err);
    }
    await finished(pipe);
  }
}
