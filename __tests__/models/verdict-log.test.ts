/**
 * The rehearsal record's first failure carries the failed step's last log lines (jobs/rehearsal-record.ts
 * VERDICT_WRITER): the writer's own container, run under python3 as the exit handler starts it, reads the step's pods
 * and log from the in-cluster API the way a pod does (KUBERNETES_SERVICE_HOST/_PORT over TLS, the service account's
 * token and CA), here the fake API server (bench/fake-kube-api.ts) behind a TLS front with a self-signed certificate made
 * by openssl. Cases: a failed train step (the head's main container, not a sidecar, not a worker), a 403 on pods/log,
 * the pods gone, a huge log, secrets in the log, a read that stalls.
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import type { AddressInfo } from 'net';
import { loadDeployment } from '../../config/deployment';
import { emptyWorld, FakeApi, iso, jobSet, pod, startFakeApi, TOKEN, World } from '../../bench/fake-kube-api';
import { rehearsalRecordFromJson, RehearsalRecord, VERDICT_LOG, VERDICT_WRITER, verdictLogConfig, writerStep } from '../../jobs/rehearsal-record';
import { MAIN_CONTAINER } from '../../jobs/jobset';
import { resources, synthStack } from '../util';

const d = loadDeployment({ env: { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation', REHEARSE: 'rl-qwen3' } });
const rehearsal = d.pipelines.find((p) => p.name === 'rehearse-rl-qwen3')!;
const writer = rehearsal.verdictWriter!;
const train = rehearsal.steps.find((s) => s.name === 'train')!;
const TRACE = ['Traceback (most recent call last):', '  File "rewards/final_number.py", line 12, in reward', "TypeError: unsupported operand type(s) for +: 'int' and 'str'"];
/** What the exit handler substitutes when train failed (workflow.status; sprig.b64enc of the strconv.Quote'd failures). */
const FAILED_ENV = {
  WORKFLOW_STATUS: 'Failed',
  WORKFLOW_FAILURES_B64: Buffer.from(
    JSON.stringify(JSON.stringify([{ displayName: 'train-wait', message: "main: Error (exit code 64): failure condition 'status.terminalState == Failed' evaluated true", templateName: 'train-wait', phase: 'Failed' }])),
  ).toString('base64'),
};

let dir: string;
let api: FakeApi;
let front: https.Server;
let port: number;

/** A self-signed certificate for 127.0.0.1 (the CA the pod trusts is the certificate itself). */
function certificate(into: string): { key: string; cert: string } {
  const key = path.join(into, 'key.pem');
  const cert = path.join(into, 'cert.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  return { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-verdict-log-'));
  const { key, cert } = certificate(dir);
  fs.mkdirSync(path.join(dir, 'sa'));
  fs.writeFileSync(path.join(dir, 'sa', 'token'), `${TOKEN}\n`);
  fs.writeFileSync(path.join(dir, 'sa', 'ca.crt'), cert);
  fs.writeFileSync(path.join(dir, 'gcsfs.py'), ['class GCSFileSystem:', '    def pipe(self, p, data):', `        open(${JSON.stringify(path.join(dir, 'out.json'))}, "wb").write(data)`].join('\n'));
  api = await startFakeApi(emptyWorld());
  // The TLS front: what the pod reaches at KUBERNETES_SERVICE_HOST:PORT, passed on to the fake API as it came.
  front = https.createServer({ key, cert }, (req, res) => {
    const out = http.request(`${api.url}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    out.on('error', () => res.destroy());
    res.on('close', () => out.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  port = (front.address() as AddressInfo).port;
});

afterAll(async () => {
  front.closeAllConnections();
  await new Promise<void>((resolve) => front.close(() => resolve()));
  await api.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  api.misbehave = undefined;
  api.requests.splice(0);
});

/** Runs `command` (argv) as the writer's pod runs it, in the cluster's environment; the record it wrote. */
function run(command: string[], env: Record<string, string> = FAILED_ENV): Promise<{ record: RehearsalRecord; code: number | null; stderr: string }> {
  fs.rmSync(path.join(dir, 'out.json'), { force: true });
  const child = spawn(command[0]!, command.slice(1), {
    env: { PATH: process.env.PATH ?? '', HOME: dir, PYTHONPATH: dir, KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(port), SERVICE_ACCOUNT_DIR: path.join(dir, 'sa'), ...env },
  });
  let stderr = '';
  child.stderr.on('data', (b) => (stderr += b));
  child.stdout.resume();
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const record = rehearsalRecordFromJson(fs.readFileSync(path.join(dir, 'out.json'), 'utf8'), rehearsal.rehearsal!);
      resolve({ record: record!, code, stderr });
    });
  });
}

/** The writer's container command exactly as its JobSet carries it. */
const container = () => (writer.manifest as any).spec.replicatedJobs[0].template.spec.template.spec.containers[0];
const asDeployed = () => run(container().command);
/** The same script with other log settings (argv[4]): a short timeout, a token file of the test's own. */
const withSettings = (over: Record<string, unknown>) =>
  run(['python3', '-c', VERDICT_WRITER, JSON.stringify(rehearsal.rehearsal), writer.recordPath, JSON.stringify(rehearsal.steps.map(writerStep)), JSON.stringify({ ...verdictLogConfig(rehearsal.namespace), ...over })]);

/** train failed: its Pathways head's main container exited 1 (sidecars running), a worker exited 1 later. */
function failedTrain(lines: string[] | undefined): World {
  const w = emptyWorld();
  const js = jobSet(train, { terminalState: 'Failed' });
  w.jobSets.push(js);
  const head = pod(js, 'pathways-head', {
    phase: 'Failed',
    initContainerStatuses: [{ name: 'pathways-proxy', state: { running: {} } }],
    containerStatuses: [{ name: MAIN_CONTAINER, state: { terminated: { exitCode: 1, finishedAt: iso(9) } } }],
  });
  const worker = pod(js, 'worker', { phase: 'Failed', containerStatuses: [{ name: 'pathways-worker', state: { terminated: { exitCode: 1, finishedAt: iso(10) } } }] });
  w.pods.push(worker, head);
  if (lines) w.logs[head.metadata.name] = lines.map((l) => `${iso(8)} ${l}`);
  w.logs[worker.metadata.name] = [`${iso(10)} worker: lost the head`];
  return w;
}

test('the writer JobSet is the deployed one: its argv carries the steps, each with its JobSet and main container', () => {
  const script = container().command[2] as string;
  for (const s of rehearsal.steps) expect(script).toContain(`"jobSet":"${s.jobSetName}"`);
  expect(script).toContain(`"container":"${MAIN_CONTAINER}"`);
  expect(script).toContain('"serviceAccountDir":"/var/run/secrets/kubernetes.io/serviceaccount"');
});

test("a failed train step: the record carries the head's main container's last lines, says which pod and container, and read them with the pod's token", async () => {
  api.world = failedTrain(['starting', ...TRACE]);
  const { record, code, stderr } = await asDeployed();
  expect(stderr).not.toContain('Traceback');
  expect(code).toBe(0);
  expect(record.verdict).toBe('failed');
  const head = api.world.pods.find((p) => p.metadata.labels['jobset.sigs.k8s.io/replicatedjob-name'] === 'pathways-head')!.metadata.name;
  expect(record.firstFailure).toEqual({
    step: 'train',
    reason: expect.stringContaining('failure condition'),
    lines: ['starting', ...TRACE],
    logFrom: { pod: head, container: MAIN_CONTAINER, chosen: `its ${MAIN_CONTAINER} exited non-zero` },
  });
  // One list by the JobSet's label in the namespace, one log read of the main container's tail.
  expect(api.requests.map((r) => [r.path, r.query])).toEqual([
    [`/api/v1/namespaces/${rehearsal.namespace}/pods`, { labelSelector: `jobset.sigs.k8s.io/jobset-name=${train.jobSetName}` }],
    [`/api/v1/namespaces/${rehearsal.namespace}/pods/${head}/log`, { container: MAIN_CONTAINER, tailLines: String(VERDICT_LOG.lines) }],
  ]);
});

test('a container that restarted since it failed: its previous log is read, and the record says so', async () => {
  const w = failedTrain(TRACE);
  const head = w.pods[1]!;
  head.status.containerStatuses = [{ name: MAIN_CONTAINER, state: { running: {} }, lastState: { terminated: { exitCode: 2, finishedAt: iso(9) } } }];
  api.world = w;
  const { record } = await asDeployed();
  expect(record.firstFailure!.logFrom).toEqual({ pod: head.metadata.name, container: MAIN_CONTAINER, chosen: `its ${MAIN_CONTAINER} exited non-zero`, previous: true });
  expect(api.requests[1]!.query).toMatchObject({ previous: 'true' });
});

test('no main container exited non-zero (a deadline, an eviction): the main pod of the step is read', async () => {
  const w = failedTrain(TRACE);
  w.pods[1]!.status.containerStatuses = [{ name: MAIN_CONTAINER, state: { terminated: { exitCode: 0, finishedAt: iso(9) } } }];
  api.world = w;
  const { record } = await asDeployed();
  expect(record.firstFailure).toMatchObject({ lines: TRACE, logFrom: { pod: w.pods[1]!.metadata.name, chosen: `its main pod (no ${MAIN_CONTAINER} exited non-zero)` } });
});

test("a 403 on pods/log: no lines, the API's message says why, the record is still written", async () => {
  api.world = failedTrain(TRACE);
  const message = 'pods "x" is forbidden: User "system:serviceaccount:default:wl" cannot get resource "pods/log" in API group "" in the namespace "default"';
  api.misbehave = (req) => (req.path.endsWith('/log') ? { code: 403, body: JSON.stringify({ kind: 'Status', status: 'Failure', message, reason: 'Forbidden', code: 403 }) } : undefined);
  const { record, code } = await asDeployed();
  expect(code).toBe(0);
  expect(record.firstFailure).toMatchObject({ step: 'train', lines: [], linesMissing: expect.stringMatching(/^HTTP 403 from \/api\/v1\/namespaces\/[^ ]+\/log: pods "x" is forbidden: .*pods\/log/) });
  expect(record.firstFailure!.logFrom).toBeUndefined();
});

test('a 403 on the pod list, and a wrong token (401): each said, never a crash', async () => {
  api.world = failedTrain(TRACE);
  api.misbehave = (req) => (req.path.endsWith('/pods') ? { code: 403, body: JSON.stringify({ kind: 'Status', message: 'pods is forbidden: cannot list resource "pods"', code: 403 }) } : undefined);
  expect((await asDeployed()).record.firstFailure!.linesMissing).toBe(`HTTP 403 from /api/v1/namespaces/${rehearsal.namespace}/pods: pods is forbidden: cannot list resource "pods"`);
  api.misbehave = undefined;
  fs.writeFileSync(path.join(dir, 'sa', 'token'), 'another-token');
  try {
    expect((await asDeployed()).record.firstFailure!.linesMissing).toMatch(/^HTTP 401 from .*: Unauthorized$/);
  } finally {
    fs.writeFileSync(path.join(dir, 'sa', 'token'), `${TOKEN}\n`);
  }
});

test('the pods are gone (or never started): no lines, and the record says no pod of the JobSet is left', async () => {
  api.world = emptyWorld();
  const { record, code } = await asDeployed();
  expect(code).toBe(0);
  expect(record.firstFailure).toEqual({ step: 'train', reason: expect.any(String), lines: [], linesMissing: `no pod of JobSet ${train.jobSetName} is left to read (deleted, or none was created)` });
});

test('a pod deleted between the list and the log read (404): said, not a crash', async () => {
  api.world = failedTrain(TRACE);
  api.misbehave = (req) => (req.path.endsWith('/log') ? { code: 404, body: JSON.stringify({ kind: 'Status', message: 'pods "gone" not found', code: 404 }) } : undefined);
  expect((await asDeployed()).record.firstFailure!.linesMissing).toMatch(/^HTTP 404 from .*\/log: pods "gone" not found$/);
});

test('a huge log: the last 50 lines at most, each cut to 500 characters, 16,000 in all, the last line kept; a progress bar shows its last state', async () => {
  const long = 'x'.repeat(3000);
  api.world = failedTrain([...Array.from({ length: 5000 }, (_, i) => `step ${i} ${long}`), `progress 1%\r${'progress 50%\r'.repeat(1000)}progress 99%`, ...TRACE]);
  const { record } = await asDeployed();
  const f = record.firstFailure!;
  expect(f.lines.length).toBeLessThanOrEqual(VERDICT_LOG.lines);
  expect(f.lines.slice(-4)).toEqual(['progress 99%', ...TRACE]);
  for (const l of f.lines) expect(l.length).toBeLessThanOrEqual(VERDICT_LOG.lineChars + 40);
  expect(f.lines.reduce((n, l) => n + l.length + 1, 0)).toBeLessThanOrEqual(VERDICT_LOG.totalChars);
  expect(f.lines[0]).toMatch(/^step \d+ x+… \(2\d{3} more characters\)$/);
  expect(f.linesCut).toMatch(/^\d+ earlier lines left out \(over 16000 characters\)$/);
});

test('a log larger than the bytes kept: its end is kept, and the record says how much was read', async () => {
  api.world = failedTrain([`${'y'.repeat(400_000)}`, ...TRACE]);
  const { record } = await asDeployed();
  expect(record.firstFailure!.lines.slice(-3)).toEqual(TRACE);
  expect(record.firstFailure!.linesCut).toMatch(/^kept the last 262144 of \d+ bytes$/);
});

test('secrets in the log never reach the record: token shapes, and the HF token text from its mounted file', async () => {
  const hf = `hf_${'A1b2C3d4'.repeat(4)}`;
  const mounted = 'my-org-token-4f9d2a7c1e';
  const tokenFile = path.join(dir, 'hf-token');
  fs.writeFileSync(tokenFile, `${mounted}\n`);
  api.world = failedTrain([`login with ${hf}`, `Authorization: Bearer ${'z'.repeat(40)}`, `HF_TOKEN=${mounted} huggingface_hub.errors.GatedRepoError: 403`, '-----BEGIN PRIVATE KEY-----', 'MIIEv...', '-----END PRIVATE KEY-----', 'done']);
  const { record } = await withSettings({ hfTokenFile: tokenFile });
  const text = JSON.stringify(record);
  expect(text).not.toContain(hf);
  expect(text).not.toContain('z'.repeat(16));
  expect(text).not.toContain(mounted);
  expect(text).not.toContain('MIIEv');
  expect(record.firstFailure!.lines).toEqual(['login with hf_…(redacted)', 'Authorization: Bearer (redacted)', 'HF_TOKEN=(sensitive value) huggingface_hub.errors.GatedRepoError: 403', '-----BEGIN PRIVATE KEY-----…(redacted)', 'done']);
});

test("a token-like string in the engine's failure message is redacted too", async () => {
  api.world = emptyWorld();
  const hf = `hf_${'Q'.repeat(30)}`;
  const env = { WORKFLOW_STATUS: 'Failed', WORKFLOW_FAILURES_B64: Buffer.from(JSON.stringify(JSON.stringify([{ displayName: 'train-wait', message: `bad token ${hf}` }]))).toString('base64') };
  const { record } = await run(container().command, env);
  expect(record.firstFailure!.reason).toBe('bad token hf_…(redacted)');
});

test('a log read that stalls: the read times out, the record says so and is still written', async () => {
  api.world = failedTrain(TRACE);
  api.misbehave = (req) => (req.path.endsWith('/log') ? 'headers' : undefined);
  const started = Date.now();
  const { record, code } = await withSettings({ timeoutSeconds: 1 });
  expect(code).toBe(0);
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(record.firstFailure!.linesMissing).toMatch(/^reading the log failed: (TimeoutError|timeout|socket\.timeout): .*timed out/);
});

test('outside a cluster (no KUBERNETES_SERVICE_HOST) and a CA that does not match: no lines, said', async () => {
  api.world = failedTrain(TRACE);
  expect((await run(container().command, { ...FAILED_ENV, KUBERNETES_SERVICE_HOST: '' })).record.firstFailure!.linesMissing).toBe('not run in a cluster (no KUBERNETES_SERVICE_HOST)');
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-other-ca-'));
  try {
    fs.mkdirSync(path.join(other, 'sa'));
    fs.writeFileSync(path.join(other, 'sa', 'token'), TOKEN);
    fs.writeFileSync(path.join(other, 'sa', 'ca.crt'), certificate(other).cert);
    const { record } = await run(container().command, { ...FAILED_ENV, SERVICE_ACCOUNT_DIR: path.join(other, 'sa') });
    expect(record.firstFailure!.linesMissing).toMatch(/^reading the log failed: URLError: .*CERTIFICATE_VERIFY_FAILED/);
  } finally {
    fs.rmSync(other, { recursive: true, force: true });
  }
});

test('a Succeeded rehearsal reads nothing from the cluster', async () => {
  api.world = failedTrain(TRACE);
  const { record } = await run(container().command, { WORKFLOW_STATUS: 'Succeeded', WORKFLOW_FAILURES_B64: Buffer.from(JSON.stringify('null')).toString('base64') });
  expect(record.verdict).toBe('passed');
  expect(api.requests).toEqual([]);
});

test('a Workflow that ended Error with no step among the failures (its deadline): no step log to read, said, nothing read', async () => {
  api.world = failedTrain(TRACE);
  const { record } = await run(container().command, { WORKFLOW_STATUS: 'Error', WORKFLOW_FAILURES_B64: Buffer.from(JSON.stringify('null')).toString('base64') });
  expect(record.firstFailure).toEqual({ step: 'workflow', reason: 'Error', lines: [], linesMissing: 'no step failed: the Workflow ended Error' });
  expect(record.passed).toEqual([]);
  expect(api.requests).toEqual([]);
});

/**
 * Kubernetes' RBAC authorizer, as far as a namespaced resource request goes, modelled to check that the requests the
 * writer makes are granted by what infra binds to the KSA its pod runs as, and to nothing the steps run as. Read at
 * kubernetes/kubernetes (the program pins no Kubernetes version; GKE's channel picks it; these rules are old and stable):
 * - request attributes, staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go `NewRequestInfo`
 *   (01bb682e): `/api/v1/namespaces/<ns>/<resource>[/<name>[/<subresource>]]`, API group '' under `/api`; GET is
 *   `get`, and `list` (or `watch` with `watch=true`) when there is no name;
 * - plugin/pkg/auth/authorizer/rbac/rbac.go `RuleAllows` (01aa0f3f): verb, API group, `<resource>/<subresource>` and
 *   resource name must each match; pkg/apis/rbac/v1/evaluation_helpers.go (03bf11a3) `VerbMatches`, `APIGroupMatches`,
 *   `ResourceMatches`, `ResourceNameMatches` (`*` matches all; no resourceNames matches any name);
 * - the rules a service account has in a namespace: those of every Role bound to it there by a RoleBinding whose subject
 *   is `{kind: ServiceAccount, name, namespace}`, the namespace defaulting to the binding's (pkg/registry/rbac/validation/
 *   rule.go `appliesToUser`, 05c351a9); ClusterRoleBindings likewise (infra makes none: asserted).
 */
interface Rule { api_groups: string[]; resources: string[]; verbs: string[]; resource_names?: string[] }
function attributes(r: { method: string; path: string; query: Record<string, string> }) {
  const m = /^\/api\/v1\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?$/.exec(r.path);
  if (!m) throw new Error(`model: not a namespaced core request: ${r.path}`);
  const [, namespace, resource, name = '', subresource = ''] = m;
  let verb = ({ GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as Record<string, string>)[r.method] ?? '';
  if (!name && verb === 'get') verb = r.query.watch && !['false', '0'].includes(r.query.watch.toLowerCase()) ? 'watch' : 'list';
  return { namespace, apiGroup: '', resource, name, subresource, verb };
}
function ruleAllows(a: ReturnType<typeof attributes>, rule: Rule): boolean {
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return (
    rule.verbs.some((v) => v === '*' || v === a.verb) &&
    rule.api_groups.some((g) => g === '*' || g === a.apiGroup) &&
    rule.resources.some((x) => x === '*' || x === combined || (a.subresource !== '' && x === `*/${a.subresource}`)) &&
    (!rule.resource_names?.length || rule.resource_names.includes(a.name))
  );
}
/** The rules infra's synthesized JSON gives service account `namespace/name` in `namespace`. */
function rulesOf(infra: any, namespace: string, name: string): Rule[] {
  const roles = resources(infra, 'kubernetes_role_v1');
  const roleOf = (ref: string): any => {
    const byAddress = /^\$\{kubernetes_role_v1\.([^.]+)\.metadata\[0\]\.name\}$/.exec(ref);
    return byAddress ? roles[byAddress[1]] : Object.values(roles).find((x: any) => x.metadata.name === ref);
  };
  return Object.values(resources(infra, 'kubernetes_role_binding_v1'))
    .filter((b: any) => b.metadata.namespace === namespace && b.subject.some((x: any) => x.kind === 'ServiceAccount' && x.name === name && (x.namespace || namespace) === namespace))
    .flatMap((b: any) => {
      expect(b.role_ref.kind).toBe('Role');
      const role = roleOf(b.role_ref.name);
      expect(role.metadata.namespace).toBe(namespace);
      return role.rule as Rule[];
    });
}
const allowed = (infra: any, sa: string, r: { method: string; path: string; query: Record<string, string> }) => {
  const a = attributes(r);
  return rulesOf(infra, a.namespace, sa).some((rule) => ruleAllows(a, rule));
};

describe("RBAC: infra grants the writer's reads to the writer's KSA alone (constructs/identity.ts)", () => {
  const infra = synthStack('infra', { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' });
  const podSpec = (m: any) => m.spec.replicatedJobs.map((r: any) => r.template.spec.template.spec);
  const writerKsa = podSpec(writer.manifest)[0].serviceAccountName as string;
  const stepKsas = [...new Set(rehearsal.steps.flatMap((s) => podSpec(s.manifest).map((p: any) => p.serviceAccountName as string)))];

  test('the writer runs as its own KSA, the steps as the workload KSA; infra creates both and binds no ClusterRole', () => {
    expect(writerKsa).toBe(d.platform.verdictServiceAccountName);
    expect(stepKsas).toEqual([d.platform.serviceAccountName]);
    expect(Object.values(resources(infra, 'kubernetes_service_account_v1')).map((k: any) => k.metadata.name).sort()).toEqual([d.platform.serviceAccountName, writerKsa].sort());
    expect(resources(infra, 'kubernetes_cluster_role_binding_v1')).toEqual({});
  });

  test("every request the writer makes for a failed step is allowed for the writer's KSA and refused for the steps' KSA", async () => {
    api.world = failedTrain(TRACE);
    const { record } = await asDeployed();
    expect(record.firstFailure!.lines).toEqual(TRACE);
    expect(api.requests.map((r) => attributes(r).verb)).toEqual(['list', 'get']);
    for (const r of api.requests) {
      expect(allowed(infra, writerKsa, r)).toBe(true);
      expect(allowed(infra, stepKsas[0]!, r)).toBe(false);
    }
  });

  test('the model refuses what the Role does not grant, and would allow the steps under the shape before (the Role bound to the workload KSA)', () => {
    const ns = rehearsal.namespace;
    const get = (p: string, query: Record<string, string> = {}) => ({ method: 'GET', path: `/api/v1/namespaces/${ns}/${p}`, query });
    expect(allowed(infra, writerKsa, get('pods', { watch: 'true' }))).toBe(false);
    expect(allowed(infra, writerKsa, get('secrets'))).toBe(false);
    expect(allowed(infra, writerKsa, get('pods/x/exec'))).toBe(false);
    expect(allowed(infra, writerKsa, { method: 'DELETE', path: `/api/v1/namespaces/${ns}/pods/x`, query: {} })).toBe(false);
    expect(allowed(infra, writerKsa, { ...get('pods'), path: '/api/v1/namespaces/kube-system/pods' })).toBe(false);
    const before = JSON.parse(JSON.stringify(infra));
    for (const b of Object.values(resources(before, 'kubernetes_role_binding_v1')) as any[]) b.subject = [{ kind: 'ServiceAccount', name: stepKsas[0], namespace: ns }];
    expect(allowed(before, stepKsas[0]!, get('pods'))).toBe(true);
    expect(allowed(before, stepKsas[0]!, get('pods/x/log'))).toBe(true);
  });
});
