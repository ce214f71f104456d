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
import type { WorkflowObject } from './workflow';
import { PassThrough, Writable } from 'stream';
import { finished } from 'stream/promises';
import { ApiException, CoreV1Api, createConfiguration, CustomObjectsApi, KubeConfig, Log, Observable, RequestContext, ResponseContext, ServerConfiguration } from '@kubernetes/client-node';
import fetch from 'node-fetch';
import { execToken, PluginError } from './exec-credential';
import { redactLines } from './redact-stream';
import { JOBSET_API_VERSION } from '../jobs/jobset';
import { RECORD_LABEL } from '../jobs/record';
import { KUEUE, LogRequest, Snapshot } from './model';
import type { ServeSnapshot } from './serve';

/**
 * Why the cluster gave no usable answer: no connection (`unreachable`, with the system error code), no answer in time
 * (`timeout`), the credential plugin failed (`plugin`), credentials refused (`auth`, HTTP 401), permission denied
 * (`forbidden`, HTTP 403), the server failed (`server`, HTTP 5xx), or any other answer a cluster with this project's
 * controllers would not give (`api`: 404 without the CRDs, a body that is not a Kubernetes list).
 */
export type ClusterErrorKind = 'unreachable' | 'timeout' | 'plugin' | 'auth' | 'forbidden' | 'server' | 'api' | 'bound';

export class ClusterError extends Error {
  constructor(
    message: string,
    readonly kind: ClusterErrorKind,
    /** The system error code of a failed connection (ECONNREFUSED, ENOTFOUND, ...). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ClusterError';
  }
}

export interface ClusterOptions {
  /** How long one request (credential plugin included) may take before it is abandoned (status/cli.ts DEFAULT_TIMEOUT_SECONDS). */
  readonly requestTimeoutMs: number;
}

/** The kubeconfig context and API server a client talks to. */
export interface Target {
  readonly context: string;
  readonly server: string;
}

const [JOBSET_GROUP, JOBSET_VERSION] = JOBSET_API_VERSION.split('/');

/** The credential plugin's failure, from its stderr (client-node 1.4 exec_auth.js rejects with `new Error(stderr)`). */
const PLUGIN_FAILURE = /gke-gcloud-auth-plugin|ExecCredential|access token|config-helper|default credentials|default token|gcloud auth|Reauthentication|invalid_grant|print credential failed/i;

function describe(err: unknown): ClusterError {
  if (err instanceof ClusterError) return err;
  if (err instanceof PluginError) return new ClusterError(err.message.slice(0, 1000), 'plugin');
  if (err instanceof ApiException) {
    // client-node 1.x: `body` is the parsed Status for most codes; for others only the message holds
    // "HTTP-Code: N\nMessage: ...\nBody: ...".
    const text = String(err.message);
    const bodyText = /\nBody: (\{.*)\n/.exec(text)?.[1];
    const body = (typeof err.body === 'string' ? safeJson(err.body) : err.body) ?? (bodyText ? safeJson(bodyText) : undefined);
    const detail = String((body as { message?: string } | undefined)?.message ?? /\nMessage: (.*)/.exec(text)?.[1] ?? text.split('\n')[0]).slice(0, 300);
    if (err.code === 401) return new ClusterError(`the API server refused the request (HTTP 401): ${detail}`, 'auth');
    if (err.code === 403) return new ClusterError(`the API server refused the request (HTTP 403): ${detail}`, 'forbidden');
    if (err.code >= 500) return new ClusterError(`the API server failed (HTTP ${err.code}): ${detail}`, 'server');
    return new ClusterError(`the API server answered HTTP ${err.code}: ${detail}`, 'api');
  }
  const e = err as { message?: string; code?: string; name?: string; type?: string };
  const message = e?.message ?? String(err);
  const plugin = /spawn (\S+) ENOENT/.exec(message);
  if (plugin) {
    // The kubeconfig's exec credential plugin is missing (get-credentials writes gke-gcloud-auth-plugin).
    return new ClusterError(`the kubeconfig's credential plugin '${plugin[1]}' is not installed (gcloud components install gke-gcloud-auth-plugin)`, 'plugin');
  }
  if (e?.name === 'AbortError') return new ClusterError('the request was abandoned', 'timeout');
  // The server answered, with too much (node-fetch 2.7.0 `size`: FetchError type max-size) or with a body that does not
  // decompress (a zlib error code): not a connection problem, never "no route".
  if (e?.name === 'FetchError' && e.type === 'max-size') {
    return new ClusterError(`the server's answer is over ${MAX_ANSWER_BYTES / 2 ** 20} MiB after decompression (the bound of one answer): not a Kubernetes list of this project's size; the API server or a proxy in front of it is misbehaving`, 'bound');
  }
  if (e?.name === 'FetchError' && /^Z_|^ERR_(ZLIB|BROTLI)/.test(String(e.code ?? ''))) {
    return new ClusterError(`the server's answer does not decompress (${String(e.code)}): not a Kubernetes API response`, 'api');
  }
  // node-fetch's FetchError carries the system error (`code`/`errno`): no connection.
  if (e?.name === 'FetchError' || typeof e?.code === 'string') {
    return new ClusterError(message.replace(/^request to \S+ failed, reason: /, ''), 'unreachable', e.code);
  }
  if (err instanceof SyntaxError || /mediaType .* is not supported|Unexpected token|JSON/.test(message)) {
    return new ClusterError(`the server's answer is not a Kubernetes API response (${message.slice(0, 200)})`, 'api');
  }
  // client-node's ObjectSerializer reading an answer of the wrong shape (a malformed object) throws a TypeError: the
  // server answered, so it is not a connection problem.
  if (err instanceof TypeError || err instanceof RangeError) {
    return new ClusterError(`the server's answer is not a Kubernetes object this client can read (${message.slice(0, 200)})`, 'api');
  }
  // Anything else failed before a request was sent: the exec credential plugin (its stderr is the message).
  if (PLUGIN_FAILURE.test(message) || !/\S/.test(message) || e?.name === 'Error') return new ClusterError(message.trim().slice(0, 1000) || 'the credential plugin failed without a message', 'plugin');
  return new ClusterError(message, 'unreachable');
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 300) };
  }
}

/** A list's items; an answer that is not a list is an error, not an empty cluster. */
function items<T>(list: unknown, what: string): T[] {
  // The API server always writes `items` (`[]` when empty); a page, a string or an object without it is not a list.
  if (typeof list !== 'object' || list === null || !('items' in list)) {
    const shown = typeof list === 'string' ? list : JSON.stringify(list);
    throw new ClusterError(`the server's answer to the ${what} list is not a Kubernetes list (${String(shown).slice(0, 80)})`, 'api');
  }
  const xs = (list as { items?: unknown }).items;
  if (xs === null) return [];
  if (!Array.isArray(xs) || xs.some((x) => typeof x !== 'object' || x === null)) {
    throw new ClusterError(`the server's answer to the ${what} list is not a Kubernetes list (items: ${JSON.stringify(xs)?.slice(0, 80)})`, 'api');
  }
  return xs as T[];
}

/**
 * The largest answer body read, after decompression (64 MiB: a JobSet list of this project's pipelines is well under
 * 1 MiB). client-node 1.4's own transport (gen/http/isomorphic-fetch.js) reads with node-fetch 2.7.0 without a size
 * limit and decompresses gzip as it reads, so a 1 GiB gzip answer grew the process past 2 GB and then failed as a
 * FetchError, which read as "no route to the control plane". node-fetch's public `size` option bounds the decompressed
 * body; client-node takes the transport through its public `createConfiguration({ httpApi })`.
 */
export const MAX_ANSWER_BYTES = 64 * 2 ** 20;

/** client-node's HttpLibrary (its isomorphic-fetch.js, same request and answer) with the body bounded. */
class BoundedFetch {
  constructor(private readonly maxBytes: number) {}
  send(request: RequestContext): Observable<ResponseContext> {
    const answer = fetch(request.getUrl(), {
      method: request.getHttpMethod().toString(),
      body: request.getBody() as never,
      headers: request.getHeaders(),
      signal: request.getSignal() as never,
      agent: request.getAgent() as never,
      size: this.maxBytes,
    }).then((resp) => {
      const headers: Record<string, string> = {};
      resp.headers.forEach((value, name) => (headers[name] = value));
      return new ResponseContext(resp.status, headers, { text: () => resp.text(), binary: () => resp.buffer() });
    });
    return new Observable(answer);
  }
}

/** An API client of `kc`'s current cluster, as KubeConfig.makeApiClient builds it, reading through BoundedFetch. */
export function boundedApiClient<T>(kc: KubeConfig, type: new (config: ReturnType<typeof createConfiguration>) => T, maxBytes = MAX_ANSWER_BYTES): T {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new ClusterError('the kubeconfig has no current cluster', 'unreachable');
  return new type(createConfiguration({ baseServer: new ServerConfiguration(cluster.server, {}), authMethods: { default: kc }, httpApi: new BoundedFetch(maxBytes) }));
}

export class Cluster {
  private core: CoreV1Api;
  private custom: CustomObjectsApi;
  private workloadsClusterWide = true;

  private readonly timeoutMs: number;
  /** The exec plugin's run shared by every request (status/exec-credential.ts), and when its token expires. */
  private credential?: Promise<void>;
  private credentialExpiresAt = 0;

  constructor(private kc: KubeConfig, options: ClusterOptions) {
    this.core = boundedApiClient(kc, CoreV1Api);
    this.custom = boundedApiClient(kc, CustomObjectsApi);
    this.timeoutMs = options.requestTimeoutMs;
  }

  /**
   * Runs the current user's exec credential plugin once (a minute before its token expires, again), killed at the
   * request deadline, and puts its token in place of the plugin for every client of this Cluster.
   */
  private authenticate(): Promise<void> {
    const user = this.kc.getCurrentUser();
    if (!user?.exec?.command) return Promise.resolve();
    if (this.credential && Date.now() < this.credentialExpiresAt - 60_000) return this.credential;
    const exec = user.exec as { command: string; args?: string[]; env?: Array<{ name: string; value: string }> };
    this.credentialExpiresAt = Infinity; // while it runs, every request waits for this one run
    this.credential = execToken(exec, this.timeoutMs).then(
      ({ token, expiresAt }) => {
        this.credentialExpiresAt = expiresAt ?? Infinity;
        const kc = new KubeConfig();
        kc.loadFromOptions({
          clusters: this.kc.clusters,
          contexts: this.kc.contexts,
          currentContext: this.kc.currentContext,
          users: this.kc.users.map((u) => (u.name === user.name ? { name: u.name, token } : u)),
        });
        this.kc = kc;
        this.core = boundedApiClient(kc, CoreV1Api);
        this.custom = boundedApiClient(kc, CustomObjectsApi);
      },
      (err) => {
        this.credential = undefined;
        throw describe(err);
      },
    );
    return this.credential;
  }

  /**
   * Runs one request with a deadline. client-node 1.4 has no timeout of its own: a per-call middleware puts an
   * AbortSignal on the request (RequestContext.setSignal, which its node-fetch transport honours:
   * gen/http/isomorphic-fetch.js), and the deadline also covers the exec credential plugin, which runs before the
   * middleware (exec_auth.js spawns it with no timeout); the plugin itself runs before that, once (authenticate).
   */
  private async call<T>(what: string, request: (options: { middleware: unknown[]; middlewareMergeStrategy: 'append' }) => Promise<T>): Promise<T> {
    await this.authenticate(); // its own deadline: a hung plugin is a plugin failure, not a silent control plane
    const controller = new AbortController();
    const middleware = {
      pre: (ctx: RequestContext) => {
        ctx.setSignal(controller.signal);
        return new Observable(Promise.resolve(ctx));
      },
      post: <R>(rsp: R) => new Observable(Promise.resolve(rsp)),
    };
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new ClusterError(`no answer within ${seconds(this.timeoutMs)} (${what})`, 'timeout'));
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([request({ middleware: [middleware], middlewareMergeStrategy: 'append' }), deadline]);
    } catch (err) {
      const e = describe(err);
      // An abort is our deadline firing: say so, not "the request was abandoned".
      throw e.kind === 'timeout' ? new ClusterError(`no answer within ${seconds(this.timeoutMs)} (${what})`, 'timeout') : e;
    } finally {
      clearTimeout(timer);
    }
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
        return await this.call('Workloads', (o) => this.custom.listClusterCustomObject({ group, version, plural }, o as never));
      } catch (err) {
        if (!(err instanceof ClusterError && err.kind === 'forbidden')) throw err;
        this.workloadsClusterWide = false;
      }
    }
    return this.call('Workloads', (o) => this.custom.listNamespacedCustomObject({ group, version, namespace, plural }, o as never));
  }

  /**
   * The pipelines' Argo Workflows (argoproj.io/v1alpha1, jobs/argo.ts) by the same labels; undefined when they cannot be
   * listed (the engine not installed yet, or no permission): status then shows the JobSets alone.
   */
  private async workflows(namespace: string, labelSelector: string): Promise<WorkflowObject[] | undefined> {
    try {
      const list = await this.call('Workflows', (o) => this.custom.listNamespacedCustomObject({ group: 'argoproj.io', version: 'v1alpha1', namespace, plural: 'workflows', labelSelector }, o as never));
      return items<WorkflowObject>(list, 'Workflow');
    } catch {
      return undefined;
    }
  }

  /** One poll: JobSets, Workloads, Pods, Warning Events and the Workflows (five list calls). */
  async snapshot(namespace: string, labelSelector: string): Promise<Snapshot> {
    try {
      const workflows = this.workflows(namespace, labelSelector);
      const [jobSets, workloads, pods, events] = await Promise.all([
        this.call('JobSets', (o) => this.custom.listNamespacedCustomObject({ group: JOBSET_GROUP, version: JOBSET_VERSION, namespace, plural: 'jobsets', labelSelector }, o as never)),
        this.workloads(namespace),
        this.call('Pods', (o) => this.core.listNamespacedPod({ namespace, labelSelector }, o as never)),
        this.call('Events', (o) => this.core.listNamespacedEvent({ namespace, fieldSelector: 'type=Warning' }, o as never)),
      ]);
      const wfs = await workflows;
      return { jobSets: items(jobSets, 'JobSet'), workloads: items(workloads, 'Workload'), pods: items(pods, 'Pod'), events: items(events, 'Event'), ...(wfs ? { workflows: wfs } : {}) };
    } catch (err) {
      throw describe(err);
    }
  }

  /** The serve stacks' objects (status/serve.ts): Deployments, Services, Jobs and Pods by the serve label, four list calls. */
  async serving(namespace: string, labelSelector: string): Promise<ServeSnapshot> {
    const builtIn = (what: string, group: string, plural: string) =>
      this.call(what, (o) => this.custom.listNamespacedCustomObject({ group, version: 'v1', namespace, plural, labelSelector }, o as never)).then((l) => items<never>(l, what));
    try {
      const [deployments, services, jobs, pods] = await Promise.all([
        builtIn('Deployment', 'apps', 'deployments'),
        this.call('Services', (o) => this.core.listNamespacedService({ namespace, labelSelector }, o as never)).then((l) => items<never>(l, 'Service')),
        builtIn('Job', 'batch', 'jobs'),
        this.call('Pods', (o) => this.core.listNamespacedPod({ namespace, labelSelector }, o as never)).then((l) => items<never>(l, 'Pod')),
      ]);
      return { deployments, services, jobs, pods };
    } catch (err) {
      throw describe(err);
    }
  }

  /**
   * The pipeline stacks' record ConfigMaps (jobs/record.ts) in the namespace, or in every namespace when none is given
   * (one list call each way; a user who may not list ConfigMaps cluster-wide gets `forbidden`).
   */
  async records(namespace?: string): Promise<Array<{ metadata?: { name?: string; namespace?: string }; data?: Record<string, string> }>> {
    try {
      const labelSelector = `${RECORD_LABEL}=true`;
      const list = await this.call('ConfigMaps', (o) =>
        namespace === undefined ? this.core.listConfigMapForAllNamespaces({ labelSelector }, o as never) : this.core.listNamespacedConfigMap({ namespace, labelSelector }, o as never),
      );
      return items(list, 'ConfigMap');
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
            this.call('log', (o) => this.core.readNamespacedPodLog({ name: r.pod, namespace, container: r.container, timestamps: true, ...range }, o as never)).then((log) => (typeof log === 'string' ? log : ''));
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
          if (err instanceof ClusterError && /HTTP (400|404)\b/.test(err.message) && err.kind === 'api') return; // not started yet, or gone
          throw describe(err);
        }
      }),
    );
    return out;
  }

  /** Whether the container has a log yet (the API answers 400 while it is waiting to start). */
  async hasLog(namespace: string, pod: string, container: string): Promise<boolean> {
    try {
      await this.call('log', (o) => this.core.readNamespacedPodLog({ name: pod, namespace, container, tailLines: 1 }, o as never));
      return true;
    } catch (err) {
      if (err instanceof ClusterError && err.kind === 'api' && /HTTP (400|404)\b/.test(err.message)) return false;
      throw describe(err);
    }
  }

  /**
   * Writes a container's log to `out` (without ending it); with `follow`, until the container ends or the call is
   * interrupted. Without `follow` the read is bounded: at most MAX_LOG_BYTES bytes after decompression (the API may
   * answer gzip-compressed, which the client inflates: a small answer can expand without end) and at most
   * LOG_READ_TIMEOUTS request timeouts in all (a server that trickles a byte at a time never goes idle).
   */
  async streamLog(namespace: string, pod: string, container: string, out: Writable, follow: boolean): Promise<void> {
    await this.authenticate();
    // Every line passes the shared redaction (util/redact.ts) on its way out.
    const pipe = redactLines();
    pipe.pipe(out, { end: false });
    // The deadline covers the connection (Log.log resolves once the server answered). A followed log then runs until
    // the container ends or the user stops it (a quiet training is not an error); a log read without -f must keep
    // coming: no byte for the request timeout (headers sent, then silence) ends it with a timeout.
    let controller: AbortController | undefined;
    let timer: NodeJS.Timeout | undefined;
    let fail: (e: Error) => void = () => undefined;
    const deadline = new Promise<never>((_, reject) => (fail = reject));
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        controller?.abort();
        fail(new ClusterError(`no answer within ${seconds(this.timeoutMs)} (log${controller ? ': the server sent headers, then nothing' : ''})`, 'timeout'));
      }, this.timeoutMs);
    };
    const watch = new PassThrough();
    let bytes = 0;
    const bound = (e: ClusterError) => {
      controller?.abort();
      watch.unpipe(pipe);
      fail(e);
    };
    watch.on('data', (chunk: Buffer) => {
      if (follow) return;
      bytes += chunk.length;
      if (bytes > MAX_LOG_BYTES) {
        bound(new ClusterError(`the log is over ${MAX_LOG_BYTES / 2 ** 20} MiB after decompression (the bound of a log read without -f): its first ${MAX_LOG_BYTES / 2 ** 20} MiB are shown; read the rest with -f or kubectl logs --limit-bytes`, 'bound'));
        return;
      }
      arm();
    });
    const total = follow ? undefined : setTimeout(() => {
      bound(new ClusterError(`the log did not end within ${seconds(this.timeoutMs * LOG_READ_TIMEOUTS)} (${LOG_READ_TIMEOUTS} x --timeout, the bound of a log read without -f): the server keeps sending; use -f to follow it`, 'bound'));
    }, this.timeoutMs * LOG_READ_TIMEOUTS);
    watch.pipe(pipe);
    arm();
    try {
      controller = await Promise.race([new Log(this.kc).log(namespace, pod, container, watch, { follow }), deadline]);
      if (follow) clearTimeout(timer);
      else arm();
      await Promise.race([finished(pipe), deadline]);
    } catch (err) {
      watch.unpipe(pipe);
      throw describe(err);
    } finally {
      clearTimeout(timer);
      clearTimeout(total);
    }
  }
}

/** The most bytes (after decompression) a log read without -f passes on. */
export const MAX_LOG_BYTES = 64 * 2 ** 20;
/** A log read without -f ends after this many request timeouts (--timeout) in all. */
export const LOG_READ_TIMEOUTS = 12;
