/**
 * Test and benchmark support for `npm run status` (not part of the CLI): a fake Kubernetes API server over real HTTP on 127.0.0.1 (random port) serving recorded-shape List responses
 * (`items`, `metadata.resourceVersion`) for JobSets, Kueue v1beta2 Workloads, Pods and Events, and pod logs; plus
 * fixture objects built from the same jobs/ builders the stacks use (manifests, labels, names), and a kubeconfig
 * with an exec plugin (like gke-gcloud-auth-plugin) for the real @kubernetes/client-node to talk to it.
 */
import { spawn } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo, createServer, Socket } from 'net';
import * as os from 'os';
import * as path from 'path';
import { loadDeployment } from '../config/deployment';
import { JOBSET_POD_LABELS, QUEUE_LABEL } from '../jobs/jobset';
import { provisioningCheckName, tpuFlavorName } from '../jobs/kueue';
import { Pipeline, PipelineStep, StepName } from '../jobs/pipeline';
import { Platform } from '../jobs/platform';
import { PipelineRecord, recordConfigMap } from '../jobs/record';
import { TPU_RESOURCE } from '../jobs/tpu';
import { KUEUE } from '../status/model';

/** The repository root (this file runs from bench/ under ts-jest and from dist/bench/ compiled). */
export const ROOT = fs.existsSync(path.join(__dirname, '..', 'charts')) ? path.join(__dirname, '..') : path.join(__dirname, '..', '..');
export const TOKEN = 'fake-exec-token';

/**
 * The example config (config/example.json) with the single-host pool asked for, so all four pipelines exist: what the
 * fixtures are built from, and the environment every CLI run below gets.
 */
export const FIXTURE_ENV: Readonly<Record<string, string>> = { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' };
const example = loadDeployment({ env: { ...FIXTURE_ENV } });
export const platform: Platform = example.platform;
export const pipelines: readonly Pipeline[] = example.pipelines;
export function pipeline(name: string): Pipeline {
  return pipelines.find((p) => p.name === name)!;
}
/** What the pipeline's stack records in the cluster (jobs/record.ts), as the status model reads it. */
export function record(name: string): PipelineRecord {
  return example.records[name]!;
}
/** The record ConfigMap as the API server returns it. */
export function recordMap(r: PipelineRecord, labels: Readonly<Record<string, string>> = pipeline(r.name)?.labels ?? {}): Obj {
  const m = recordConfigMap(r, labels) as Obj;
  return { ...m, metadata: { ...m.metadata, uid: `uid-${m.metadata.name}-${uidCounter++}`, creationTimestamp: iso(0), resourceVersion: '90' } };
}
export function step(p: Pipeline, name: StepName): PipelineStep {
  return p.steps.find((s) => s.name === name)!;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;
/** A Kubernetes object as JSON. */
type Obj = Json & { metadata: Json };
let uidCounter = 0;
const T0 = Date.parse('2026-12-01T06:00:00Z');
export const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

/** The JobSet as the API server returns it: the stack's manifest plus server metadata and a status. */
export function jobSet(s: PipelineStep, status: Json = {}): Obj {
  const m = s.manifest as Obj;
  return {
    ...m,
    metadata: { ...m.metadata, uid: `uid-${s.jobSetName}-${uidCounter++}`, creationTimestamp: iso(0), resourceVersion: '100', generation: 1 },
    status: { restarts: 0, ...status },
  };
}

/** Kueue's workload name for a JobSet (kueue v0.19.2 jobframework/workload_names.go: kind-name-sha1(kind,group,name,uid)[:5]). */
export function workloadName(js: Obj): string {
  const [group] = String(js.apiVersion).split('/');
  const hash = createHash('sha1').update(`${js.kind}\n${group}\n${js.metadata.name}\n${js.metadata.uid}`).digest('hex').slice(0, 5);
  return `jobset-${js.metadata.name}-${hash}`;
}

const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, reason, message, lastTransitionTime: iso(1) });

/** The Workload Kueue creates for a JobSet: owned by it, labelled with its uid (reconciler.go ConstructWorkload). */
export function workload(js: Obj, admitted: boolean, options: { message?: string; chips?: number } = {}): Obj {
  const conditions = admitted
    ? [cond('QuotaReserved', 'True', 'QuotaReserved', `Quota reserved in ClusterQueue ${platform.clusterQueue}`), cond('Admitted', 'True', 'Admitted', 'The workload is admitted')]
    : [cond('QuotaReserved', 'False', 'Pending', options.message ?? 'waiting')];
  return {
    apiVersion: `${KUEUE.group}/${KUEUE.version}`,
    kind: 'Workload',
    metadata: {
      name: workloadName(js),
      namespace: js.metadata.namespace,
      uid: `wl-${js.metadata.uid}`,
      labels: { [KUEUE.jobUidLabel]: js.metadata.uid },
      ownerReferences: [{ apiVersion: js.apiVersion, kind: 'JobSet', name: js.metadata.name, uid: js.metadata.uid, controller: true, blockOwnerDeletion: true }],
      creationTimestamp: iso(0),
      resourceVersion: '101',
    },
    spec: { queueName: js.metadata.labels[QUEUE_LABEL], podSets: js.spec.replicatedJobs.map((r: Json) => ({ name: r.name, count: r.template.spec.parallelism })) },
    status: {
      conditions,
      ...(admitted
        ? {
            admission: {
              clusterQueue: platform.clusterQueue,
              podSetAssignments: js.spec.replicatedJobs.map((r: Json) => ({
                name: r.name,
                resourceUsage: r.name === 'worker' || r.name === 'slice' ? { [TPU_RESOURCE]: String(options.chips ?? 0) } : { cpu: '16' },
              })),
            },
          }
        : {}),
    },
  };
}

/**
 * Kueue v0.19.2's message per deactivation reason (the `DeactivationTarget` condition's; status/model.ts
 * `deactivationOf` cites where each is set). The admission check's: `buildAdmissionChecksMessage` over the flex-start
 * ProvisioningRequest check with GKE's CapacityRevoked message copied into it.
 */
export function kueueDeactivationMessage(cause: string, slice = pipeline('rl-qwen3').slice): string {
  if (cause === 'RequeuingLimitExceeded') return 'exceeding the maximum number of re-queuing retries';
  if (cause === 'MaximumExecutionTimeExceeded') return 'exceeding the maximum execution time';
  if (cause === 'AdmissionCheck') return `AdmissionCheck in Rejected state: "${provisioningCheckName(tpuFlavorName(slice))}" (Capacity was revoked by the cloud provider)`;
  return '';
}

/**
 * What Kueue v0.19.2 leaves on a workload it deactivated for `cause` (undefined: `spec.active: false` set by hand):
 * `evicted` (the usual state: Evicted `DeactivatedDueTo<cause>`, "The workload is deactivated due to <message>") or
 * `target` (the moment between: `spec.active` false, the DeactivationTarget condition not yet turned into the eviction).
 */
export function deactivatedWorkload(js: Obj, cause: string | undefined, stage: 'evicted' | 'target' = 'evicted', extraSpec: Json = {}): Obj {
  const w = workload(js, stage === 'target');
  const message = cause ? kueueDeactivationMessage(cause) : '';
  const conditions =
    stage === 'target'
      ? [...w.status.conditions, cond('DeactivationTarget', 'True', cause ?? 'Deactivated', message)]
      : [
          cond('QuotaReserved', 'False', 'Pending', 'The workload is deactivated'),
          cond('Evicted', 'True', cause ? `DeactivatedDueTo${cause}` : 'Deactivated', `The workload is deactivated${cause ? ` due to ${message}` : ''}`),
        ];
  return { ...w, spec: { ...w.spec, ...extraSpec, active: false }, status: { ...w.status, conditions } };
}

/** A pod of a JobSet: the replicated job's pod template labels (from the manifest) plus the JobSet/Job controller labels. */
export function pod(js: Obj, rjob: string, status: Json, index = 0): Obj {
  const r = js.spec.replicatedJobs.find((x: Json) => x.name === rjob);
  const template = r.template.spec.template;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${js.metadata.name}-${rjob}-0-${index}-x7k2p`,
      namespace: js.metadata.namespace,
      uid: `pod-${js.metadata.uid}-${rjob}-${index}`,
      creationTimestamp: iso(2),
      labels: {
        ...template.metadata.labels,
        [JOBSET_POD_LABELS.jobSetName]: js.metadata.name,
        [JOBSET_POD_LABELS.replicatedJob]: rjob,
        [JOBSET_POD_LABELS.jobIndex]: '0',
        [JOBSET_POD_LABELS.completionIndex]: String(index),
      },
    },
    spec: template.spec,
    status,
  };
}

export function running(startedMinutes: number, containers: string[] = ['workload-container']): Json {
  return {
    phase: 'Running',
    startTime: iso(startedMinutes),
    conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True' }],
    containerStatuses: containers.map((name) => ({ name, ready: true, restartCount: 0, state: { running: { startedAt: iso(startedMinutes) } } })),
  };
}

export function event(p: Obj, reason: string, message: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${p.metadata.name}.${reason}`, namespace: p.metadata.namespace, resourceVersion: '200' },
    involvedObject: { kind: 'Pod', name: p.metadata.name, namespace: p.metadata.namespace, uid: p.metadata.uid },
    reason,
    message,
    type: 'Warning',
    count: 3,
    firstTimestamp: iso(2),
    lastTimestamp: iso(3),
  };
}

/** What the fake server holds. `logs` maps pod name -> lines, each `<RFC3339> <text>` as timestamps=true returns. */
export interface World {
  jobSets: Obj[];
  workloads: Obj[];
  pods: Obj[];
  events: Obj[];
  /** ConfigMaps (the pipeline stacks' records). @default none */
  configMaps?: Obj[];
  /** The pipelines' Argo Workflows (jobs/argo.ts). @default none: the list answers 404, as before the engine is installed */
  workflows?: Obj[];
  /** A serve stack's Deployments, Services and Jobs (status/serve.ts). @default none */
  deployments?: Obj[];
  services?: Obj[];
  jobs?: Obj[];
  logs: Record<string, string[]>;
  /**
   * The moment the world was recorded (epoch ms): the server replays it as if recorded just now, shifting every
   * RFC 3339 time it serves (object times and log timestamps) by `<server start> - recordedAt`, so the CLI's clock sees
   * the recorded ages (a stall, an elapsed time) whatever day the tests run. Undefined: times served as recorded.
   */
  recordedAt?: number;
}
/** When the fixture worlds are recorded: an hour after T0. */
export const RECORDED_AT_MINUTES = 60;
export const emptyWorld = (): World => ({ jobSets: [], workloads: [], pods: [], events: [], logs: {}, recordedAt: T0 + RECORDED_AT_MINUTES * 60_000 });

const RFC3339 = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g;

/** RFC 3339 with nanoseconds, trailing zeros trimmed, as the API server writes log timestamps (Go time.RFC3339Nano). */
export function rfc3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString();
  const frac = `${iso.slice(20, 23)}000000`.replace(/0+$/, '');
  return `${iso.slice(0, 19)}${frac ? `.${frac}` : ''}Z`;
}

/** Shifts every RFC 3339 time in `text` by `offsetMs` (object times as ISO, log times as RFC3339Nano). */
function shiftTimes(text: string, offsetMs: number, nano: boolean): string {
  if (offsetMs === 0) return text;
  return text.replace(RFC3339, (t) => {
    const ms = new Date(t).getTime() + offsetMs;
    return nano ? rfc3339Nano(ms) : new Date(ms).toISOString();
  });
}

/** Label selector match (`k=v`, `k!=v`, `k in (a,b)`), as the API server applies it. */
export function selectorMatches(selector: string | null, labels: Record<string, string> = {}): boolean {
  if (!selector) return true;
  const terms = selector.match(/[^,(]+(\([^)]*\))?/g) ?? [];
  return terms.every((term) => {
    const inMatch = /^\s*(\S+)\s+in\s+\(([^)]*)\)\s*$/.exec(term);
    if (inMatch) return inMatch[2].split(',').map((v) => v.trim()).includes(labels[inMatch[1]]);
    const ne = /^(.+)!=(.*)$/.exec(term);
    if (ne) return labels[ne[1]] !== ne[2];
    const eq = /^(.+?)==?(.*)$/.exec(term);
    if (eq) return labels[eq[1]] === eq[2];
    throw new Error(`fake API: unsupported selector term '${term}'`);
  });
}

export interface Request {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
}

export interface FakeApi {
  readonly url: string;
  readonly requests: Request[];
  world: World;
  /** Answer 403 to a cluster-wide Workload list (a user who may list only the namespace). @default false */
  forbidClusterWorkloads?: boolean;
  /** Answer 403 to a cluster-wide ConfigMap list (status then reads the records of the config's namespace only). @default false */
  forbidClusterConfigMaps?: boolean;
  /** Called before each JobSet list (to change the world between polls). */
  onJobSetList?: (n: number) => void;
  /**
   * A misbehaving server, per request (n counts every request): `silent` never answers, `headers` sends a 200 with
   * its headers and one line, then nothing (the socket stays open), `{ delayMs }` answers late,
   * `{ code, body, contentType }` answers that instead of the world, `{ respond }` writes the answer itself (a trickle,
   * a gzip bomb). @default - answers from the world
   */
  misbehave?: (req: Request, n: number) =>
    | 'silent' | 'headers' | { delayMs: number } | { code: number; body: string; contentType?: string } | { respond: (res: http.ServerResponse) => void } | undefined;
  close(): Promise<void>;
}

function list(kind: string, apiVersion: string, items: Obj[]) {
  return { apiVersion, kind: `${kind}List`, metadata: { resourceVersion: '12345' }, items };
}

export async function startFakeApi(world: World): Promise<FakeApi> {
  const requests: Request[] = [];
  let jobSetLists = 0;
  // The moment the recorded world is replayed at (one offset for every request of this server).
  const startedAt = Date.now();
  const api: FakeApi = {
    url: '',
    requests,
    world,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const query = Object.fromEntries(url.searchParams.entries());
    const request = { method: req.method ?? 'GET', path: url.pathname, query };
    requests.push(request);
    const odd = api.misbehave?.(request, requests.length - 1);
    if (odd === 'silent') return; // the socket stays open, nothing is ever written
    if (odd === 'headers') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('2026-12-01T06:00:00Z the first line, then silence\n');
      return;
    }
    if (odd && 'respond' in odd) return odd.respond(res);
    if (odd && 'code' in odd) {
      res.writeHead(odd.code, { 'content-type': odd.contentType ?? 'application/json' });
      return res.end(odd.body);
    }
    if (odd && 'delayMs' in odd) {
      const timer = setTimeout(() => answer(req, res, url), odd.delayMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    return answer(req, res, url);
  });
  const answer = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => {
    const offset = api.world.recordedAt !== undefined ? startedAt - api.world.recordedAt : 0;
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(shiftTimes(JSON.stringify(body), offset, false));
    };
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      return send(401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    }
    const w = api.world;
    const sel = url.searchParams.get('labelSelector');
    let m: RegExpExecArray | null;
    if ((m = /^\/apis\/jobset\.x-k8s\.io\/v1alpha2\/namespaces\/([^/]+)\/jobsets$/.exec(url.pathname))) {
      api.onJobSetList?.(jobSetLists++);
      const ns = m[1];
      return send(200, list('JobSet', 'jobset.x-k8s.io/v1alpha2', api.world.jobSets.filter((j) => j.metadata.namespace === ns && selectorMatches(sel, j.metadata.labels))));
    }
    if ((m = /^\/apis\/argoproj\.io\/v1alpha1\/namespaces\/([^/]+)\/workflows$/.exec(url.pathname))) {
      if (!w.workflows) return send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', code: 404 });
      const ns = m[1];
      return send(200, list('Workflow', 'argoproj.io/v1alpha1', w.workflows.filter((x) => x.metadata.namespace === ns && selectorMatches(sel, x.metadata.labels))));
    }
    if (url.pathname === '/apis/kueue.x-k8s.io/v1beta2/workloads' && api.forbidClusterWorkloads) {
      return send(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'workloads.kueue.x-k8s.io is forbidden: cannot list resource "workloads" at the cluster scope', reason: 'Forbidden', code: 403 });
    }
    if (url.pathname === '/apis/kueue.x-k8s.io/v1beta2/workloads') return send(200, list('Workload', 'kueue.x-k8s.io/v1beta2', w.workloads));
    if ((m = /^\/apis\/kueue\.x-k8s\.io\/v1beta2\/namespaces\/([^/]+)\/workloads$/.exec(url.pathname))) {
      const ns = m[1];
      return send(200, list('Workload', 'kueue.x-k8s.io/v1beta2', w.workloads.filter((x) => x.metadata.namespace === ns)));
    }
    if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/pods$/.exec(url.pathname))) {
      const ns = m[1];
      return send(200, list('Pod', 'v1', w.pods.filter((p) => p.metadata.namespace === ns && selectorMatches(sel, p.metadata.labels))));
    }
    // Built-in lists of a serve stack, by namespace and label selector, as the API server answers them.
    for (const [re, kind, apiVersion, key] of [
      [/^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments$/, 'Deployment', 'apps/v1', 'deployments'],
      [/^\/api\/v1\/namespaces\/([^/]+)\/services$/, 'Service', 'v1', 'services'],
      [/^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs$/, 'Job', 'batch/v1', 'jobs'],
    ] as const) {
      if ((m = re.exec(url.pathname))) {
        const ns = m[1];
        return send(200, list(kind, apiVersion, (w[key] ?? []).filter((o) => o.metadata.namespace === ns && selectorMatches(sel, o.metadata.labels))));
      }
    }
    if (url.pathname === '/api/v1/configmaps') {
      if (api.forbidClusterConfigMaps) {
        return send(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'configmaps is forbidden: cannot list resource "configmaps" at the cluster scope', reason: 'Forbidden', code: 403 });
      }
      return send(200, list('ConfigMap', 'v1', (w.configMaps ?? []).filter((c) => selectorMatches(sel, c.metadata.labels))));
    }
    if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps$/.exec(url.pathname))) {
      const ns = m[1];
      return send(200, list('ConfigMap', 'v1', (w.configMaps ?? []).filter((c) => c.metadata.namespace === ns && selectorMatches(sel, c.metadata.labels))));
    }
    if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/events$/.exec(url.pathname))) {
      const ns = m[1];
      const field = url.searchParams.get('fieldSelector');
      const type = field ? /^type=(\w+)$/.exec(field)?.[1] : undefined;
      return send(200, list('Event', 'v1', w.events.filter((e) => e.metadata.namespace === ns && (!type || e.type === type))));
    }
    if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(url.pathname))) {
      const podName = m[2];
      const p = w.pods.find((x) => x.metadata.name === podName);
      if (!p) return send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `pods "${podName}" not found`, reason: 'NotFound', code: 404 });
      const container = url.searchParams.get('container');
      if (!p.spec.containers.some((c: Json) => c.name === container)) {
        return send(400, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `container ${container} is not valid for pod ${podName}`, code: 400 });
      }
      const waiting = [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].find((c: Json) => c.name === container)?.state?.waiting;
      if (waiting || !p.status?.containerStatuses) {
        const why = waiting?.reason ?? 'ContainerCreating';
        return send(400, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `container "${container}" in pod "${podName}" is waiting to start: ${why}`, reason: 'BadRequest', code: 400 });
      }
      let lines = (w.logs[podName] ?? []).map((l) => l.replace(/^\S+/, (t) => (/^\d{4}-\d\d-\d\dT/.test(t) ? shiftTimes(t, offset, true) : t)));
      const tail = url.searchParams.get('tailLines');
      if (tail) lines = lines.slice(-Number(tail));
      if (url.searchParams.get('timestamps') !== 'true') lines = lines.map((l) => l.replace(/^\S+ /, ''));
      const limitBytes = url.searchParams.get('limitBytes');
      res.writeHead(200, { 'content-type': 'text/plain' });
      if (limitBytes) return res.end(Buffer.from(lines.map((l) => `${l}\n`).join('')).subarray(0, Number(limitBytes)));
      if (url.searchParams.get('follow') === 'true') {
        // Streams one line at a time, then ends (the container exited).
        let i = 0;
        const tick = setInterval(() => {
          if (i < lines.length) res.write(`${lines[i++]}\n`);
          else {
            clearInterval(tick);
            res.end();
          }
        }, 5);
        return;
      }
      return res.end(lines.map((l) => `${l}\n`).join(''));
    }
    return send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `the server could not find the requested resource (${url.pathname})`, reason: 'NotFound', code: 404 });
  };
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  api.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy(); // silent requests hold their sockets open
      server.close(() => resolve());
    });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (api as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}

/** A TCP endpoint that accepts connections and never answers (what a laptop outside the control plane's allow-list meets). */
export async function startSilentServer(): Promise<{ url: string; connections: () => number; connected: Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let count = 0;
  let accepted: () => void = () => undefined;
  /** Resolves at the first accepted connection (however late this process gets to accept it). */
  const connected = new Promise<void>((resolve) => (accepted = resolve));
  const server = createServer((socket) => {
    count += 1;
    accepted();
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => count,
    connected,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The context name gcloud's get-credentials writes: gke_<project>_<location>_<cluster>. */
export const CONTEXT = `gke_${platform.project}_${platform.region}_${platform.clusterName}`;

/** A kubeconfig for `server` whose user authenticates with an exec plugin (a node script printing an ExecCredential). */
export function writeKubeconfig(server: string, options: { token?: string; command?: string; plugin?: string } = {}): { file: string; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-status-'));
  const plugin = path.join(dir, 'auth-plugin.js');
  fs.writeFileSync(
    plugin,
    options.plugin ??
      `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: '${options.token ?? TOKEN}', expirationTimestamp: '2099-01-01T00:00:00Z' } }));\n`,
  );
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    // client-node 1.x refuses plain http unless TLS verification is off (it is loopback here).
    clusters: [{ name: CONTEXT, cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [
      {
        name: CONTEXT,
        user: {
          exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: options.command ?? process.execPath, args: options.command ? [] : [plugin], interactiveMode: 'IfAvailable', provideClusterInfo: true },
        },
      },
    ],
    contexts: [{ name: CONTEXT, context: { cluster: CONTEXT, user: CONTEXT } }],
    'current-context': CONTEXT,
  };
  const file = path.join(dir, 'config');
  fs.writeFileSync(file, JSON.stringify(config));
  return { file, dir };
}

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Milliseconds from spawn to the first stdout byte, and to exit. */
  readonly firstOutputMs: number;
  readonly totalMs: number;
}

/**
 * Runs the status CLI against `server` as a user with a fresh kubeconfig (writeKubeconfig: `kubeconfig` picks the
 * token or plugin) and HOME, removed when the run ends.
 */
export async function runCliOn(server: string, args: string[], kubeconfig: Parameters<typeof writeKubeconfig>[1] = {}): Promise<Run> {
  const { file, dir } = writeKubeconfig(server, kubeconfig);
  try {
    return await runCli(args, { KUBECONFIG: file, HOME: dir });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the CLI with these arguments and exactly this environment (what setCliRunner hands in). */
export type CliRunner = (args: string[], env: Record<string, string>) => Promise<Run>;
let cliRunner: CliRunner | undefined;
/**
 * Where runCli runs the CLI from now on: the tests hand in one process for many runs (__tests__/status/cli-host.ts);
 * undefined goes back to the default. @default - a fresh child process per run
 */
export function setCliRunner(runner: CliRunner | undefined): void {
  cliRunner = runner;
}

/** Runs the compiled CLI (dist/status/cli.js) in a child process (or setCliRunner's); the fake API keeps answering meanwhile. */
export function runCli(args: string[], env: Record<string, string>): Promise<Run> {
  return (cliRunner ?? spawnCli)(args, cliEnv(env));
}

/** The environment runCli gives the CLI: PATH, the fixtures' (FIXTURE_ENV), then `env`. */
export function cliEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...FIXTURE_ENV, ...env };
}

/** The compiled CLI in a fresh child process with exactly `env`. */
export function spawnCli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - start) / 1e6;
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'status', 'cli.js'), ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    let firstOutputMs = -1;
    child.stdout.on('data', (d) => {
      if (firstOutputMs < 0) firstOutputMs = ms();
      stdout += d;
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, firstOutputMs, totalMs: ms() }));
  });
}

/** A Tunix train_rl progress line as absl prints it (tunix/sft/peft_trainer.py `_log_metrics`). */
export function rlLine(minutes: number, stepNo: number, loss = 0.512): string {
  return `${iso(minutes)} I1201 06:00:00.000000 140001 peft_trainer.py:736] Train step ${stepNo} training loss: ${loss.toFixed(6)}  - training perplexity: 1.668625`;
}
/** MaxText train_rl's evaluation line (train_rl.py, `num_test_batches > 0`): `Pre` before training, `Post` after. */
export function evalLine(minutes: number, when: 'Pre' | 'Post', corr: number, total: number, meanReward: number): string {
  const pct = (n: number) => (Math.round((n / total) * 10000) / 100).toString();
  return `${iso(minutes)} W1201 06:00:00.000000 140001 train_rl.py:786] ${when} RL Training: corr=${corr}, total=${total}, accuracy=${pct(corr)}%, partial_accuracy=${pct(corr)}%, format_accuracy=97.5%, mean_reward=${meanReward.toFixed(4)}`;
}
/** A MaxText SFT progress line (src/maxtext/common/metric_logger.py `_log_training_metrics`). */
export function sftLine(minutes: number, stepNo: number, loss = 1.204): string {
  return `${iso(minutes)} I1201 06:00:00.000000 140001 metric_logger.py:230] completed step: ${stepNo}, seconds: 1.912, TFLOP/s/device: 120.001, Tokens/s/device: 5012.400, total_weights: 65536, loss: ${loss.toFixed(3)}, lm_loss: ${loss.toFixed(3)}, perplexity: 3.333`;
}

/**
 * rl-qwen3's training admitted on its 32 chips with `workers` running Pathways worker pods (the hostile-input test's
 * and the benchmark's crowded namespace: one pod list must carry them all).
 */
export function manyPodsWorld(workers: number): World {
  const w = emptyWorld();
  const js = jobSet(step(pipeline('rl-qwen3'), 'train'));
  w.jobSets.push(js);
  w.workloads.push(workload(js, true, { chips: 32 }));
  for (let i = 0; i < workers; i++) w.pods.push(pod(js, 'worker', running(11, ['pathways-worker']), i));
  return w;
}

/**
 * Every pipeline in a different state (the benchmark's world, and the request-count test's): rl-qwen3 training at
 * step 20 (Pathways head + workers), rl-gemma4 queued on quota behind it, sft-gemma4 training (multi-host JAX),
 * rl-llama3 converted and its train step failed.
 */
export function allPipelinesWorld(): World {
  const w = emptyWorld();
  const add = (js: Obj) => (w.jobSets.push(js), js);
  const completed = { terminalState: 'Completed', conditions: [cond('Completed', 'True', 'AllJobsCompleted', 'jobset completed successfully')] };

  const qwen = pipeline('rl-qwen3');
  w.jobSets.push(jobSet(step(qwen, 'to-maxtext'), completed));
  const qwenTrain = add(jobSet(step(qwen, 'train')));
  w.workloads.push(workload(qwenTrain, true, { chips: qwen.slice.chips * qwen.slices }));
  const head = pod(qwenTrain, 'pathways-head', running(10, ['workload-container']));
  w.pods.push(head, ...Array.from({ length: qwen.slice.vms }, (_, i) => pod(qwenTrain, 'worker', running(11, ['pathways-worker']), i)));
  w.logs[head.metadata.name] = [`${iso(10)} starting`, ...Array.from({ length: 20 }, (_, i) => rlLine(20 + i * 2, i + 1))];

  const gemma = pipeline('rl-gemma4');
  w.jobSets.push(jobSet(step(gemma, 'to-maxtext'), completed));
  const gemmaTrain = add(jobSet(step(gemma, 'train'), { conditions: [cond('Suspended', 'True', 'SuspendedJobs', 'jobset is suspended')] }));
  w.workloads.push(
    workload(gemmaTrain, false, {
      message: `couldn't assign flavors to pod set worker: insufficient unused quota for ${TPU_RESOURCE} in flavor ${tpuFlavorName(gemma.slice)}, ${gemma.slice.chips} more needed`,
    }),
  );

  const sft = pipeline('sft-gemma4');
  w.jobSets.push(jobSet(step(sft, 'to-maxtext'), completed));
  const sftTrain = add(jobSet(step(sft, 'train')));
  w.workloads.push(workload(sftTrain, true, { chips: sft.slice.chips }));
  const sftPods = Array.from({ length: sft.slice.vms }, (_, i) => pod(sftTrain, 'slice', running(5), i));
  w.pods.push(...sftPods);
  w.logs[sftPods[0].metadata.name] = Array.from({ length: 30 }, (_, i) => sftLine(30 + i, (i + 1) * 10));

  const llama = pipeline('rl-llama3');
  w.jobSets.push(jobSet(step(llama, 'to-maxtext'), completed));
  const llamaTrain = add(
    jobSet(step(llama, 'train'), {
      terminalState: 'Failed',
      conditions: [cond('Failed', 'True', 'FailJobSetFailurePolicyAction', `applying FailJobSet failure policy action (first failed job: ${step(llama, 'train').jobSetName}-slice-0)`)],
    }),
  );
  const llamaMain = pod(llamaTrain, 'slice', { phase: 'Failed', containerStatuses: [{ name: 'workload-container', state: { terminated: { exitCode: 1, reason: 'Error' } } }] });
  w.pods.push(llamaMain);
  w.logs[llamaMain.metadata.name] = [`${iso(30)} Traceback (most recent call last):`, `${iso(30)} ValueError: rl.num_generations must be > 1`];
  return w;
}
