/**
 * `npm run status` / `npm run logs` against API servers that misbehave: silent (accepts, never answers), slow,
 * 401/403/500, garbage, 10,000 pods; a credential plugin that fails the way gke-gcloud-auth-plugin does; pods whose
 * messages and logs carry secrets. The compiled CLI in a child process, the real @kubernetes/client-node, the fake
 * API server of bench/fake-kube-api.ts. A fresh process per run where the process is the point (deadlines that abandon
 * a request or a plugin, FIFOs); the CLI host (cli-host.ts, `hosted`) where a run is read for its answer only. Short request timeouts (--timeout) keep each test fast; the documented
 * default is asserted separately.
 */
import * as fs from 'fs';
import {
  allPipelinesWorld,
  cliEnv,
  CONTEXT,
  emptyWorld,
  jobSet,
  manyPodsWorld,
  pipeline,
  platform,
  pod,
  runCli,
  startSilentServer,
  step,
  TOKEN,
  workload,
} from '../../bench/fake-kube-api';
import { DEFAULT_TIMEOUT_SECONDS } from '../../status/cli';
import { closeAfter, fake, kubeconfig, useFakeApis } from './fake-api-harness';
import { useCliHost } from './cli-host';

const HF = 'hf_' + 'Q1w2E3r4T5y6U7i8O9p0A1s2D3f4';
const GH = 'ghp_' + 'x'.repeat(36);

useFakeApis();
const runHosted = useCliHost({ runCli: false });
/** runCli in the file's CLI host: for runs whose process ends with its answer (no request or plugin left behind). */
const hosted = (args: string[], env: Record<string, string>) => runHosted(args, cliEnv(env));
const noSecret = (text: string) => {
  expect(text).not.toContain(HF);
  expect(text).not.toContain(GH);
};

test('the default request timeout keeps a silent endpoint under 30 s (two request rounds per poll)', () => {
  expect(DEFAULT_TIMEOUT_SECONDS).toBe(10);
  expect(2 * DEFAULT_TIMEOUT_SECONDS).toBeLessThan(30);
});

/**
 * A kubeconfig whose user has a static token, the one the fake API accepts. The request deadline also covers the exec
 * credential plugin (status/cluster.ts `call`), which client-node 1.4 starts with an asynchronous spawn (exec_auth.js):
 * on loaded cores a node plugin can take longer than a 0.3 s deadline, which then fires before any connection is made.
 * With a static token nothing asynchronous runs between the deadline's start and the connect (microtasks only), so the
 * connect always comes first.
 */
function staticTokenKubeconfig(url: string): Record<string, string> {
  const env = kubeconfig(url);
  const config = JSON.parse(fs.readFileSync(env.KUBECONFIG, 'utf8'));
  config.users = config.users.map((u: { name: string }) => ({ name: u.name, user: { token: TOKEN } }));
  fs.writeFileSync(env.KUBECONFIG, JSON.stringify(config));
  return env;
}

test('a silent endpoint (accepts, never answers): exit 4 within the timeout, naming the server and the allow-list', async () => {
  const silent = await startSilentServer();
  closeAfter(() => silent.close());
  const r = await runCli(['status', '--timeout', '0.3'], staticTokenKubeconfig(silent.url));
  expect(r.code).toBe(4);
  // No wall-clock bound (node's start on loaded cores takes seconds): the message says the 0.3 s deadline ended it;
  // without the deadline the CLI would wait on the silent socket until jest's timeout.
  // The client did connect (the server accepts it whenever this process gets to: no ordering with the child's exit).
  await silent.connected;
  expect(silent.connections()).toBeGreaterThan(0);
  expect(r.stderr).toContain(`no answer from the cluster at ${silent.url} (kubeconfig context ${CONTEXT}): no answer within 0.3 s`);
  expect(r.stderr).toContain("this machine's address is not in the control plane's allow-list (AUTHORIZED_CIDR:");
  expect(r.stderr).toContain('DNS_ENDPOINT=true');
});

test('logs against a silent endpoint: the same, exit 4', async () => {
  const silent = await startSilentServer();
  closeAfter(() => silent.close());
  const r = await runCli(['logs', 'rl-qwen3', '--timeout', '0.3'], kubeconfig(silent.url));
  expect(r.code).toBe(4);
  expect(r.stderr).toContain(`no answer from the cluster at ${silent.url}`);
  expect(r.stderr).toContain('no answer within 0.3 s');
});

test('a hung credential plugin is covered by the same deadline', async () => {
  const api = await fake();
  // The plugin hangs for a minute: only the deadline can end the run sooner (the message says it did).
  const r = await runCli(['status', '--timeout', '0.5'], kubeconfig(api.url, { plugin: 'setTimeout(() => {}, 60000);\n' }));
  expect(r.code).toBe(4);
  expect(r.stderr).toContain('no answer within 0.5 s');
});

test('a slow server within the timeout is fine; beyond it, exit 4', async () => {
  const api = await fake(allPipelinesWorld());
  api.misbehave = () => ({ delayMs: 200 });
  const ok = await runCli(['status', 'rl-qwen3', '--json', '--timeout', '2'], kubeconfig(api.url));
  expect(ok.code).toBe(3);
  const late = await runCli(['status', 'rl-qwen3', '--timeout', '0.1'], kubeconfig(api.url));
  expect(late.code).toBe(4);
  expect(late.stderr).toContain('no answer within 0.1 s');
});

describe('the plugin fails the way gke-gcloud-auth-plugin does: the login it needs, not get-credentials', () => {
  // Messages of kubernetes/cloud-provider-gcp cmd/gke-gcloud-auth-plugin (cred/cred.go): the gcloud path and the
  // --use_application_default_credentials path.
  const failing = (stderr: string) => `process.stderr.write(${JSON.stringify(stderr)}); process.exit(1);\n`;
  test.each([
    ['no gcloud login', 'F1201 06:00:00 main.go:27] failure while executing gcloud, with args [config config-helper --format=json]: exit status 1\n', 'gcloud auth login, then retry'],
    ['an expired login', 'ERROR: (gcloud.config.config-helper) There was a problem refreshing your current auth tokens: Reauthentication failed. cannot prompt during non-interactive execution.\n', 'gcloud auth login, then retry'],
    ['no ADC', 'getting google default token failed after multiple retries: cannot construct google default token source: google: could not find default credentials.\n', 'gcloud auth application-default login, then retry'],
  ])('%s', async (_name, stderr, fix) => {
    const api = await fake();
    const r = await hosted(['status'], kubeconfig(api.url, { plugin: failing(stderr) }));
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`no credentials for the cluster at ${api.url} (kubeconfig context ${CONTEXT}): the credential plugin failed:`);
    expect(r.stderr).toContain(fix);
    expect(r.stderr).not.toContain('get-credentials');
    expect(api.requests).toHaveLength(0);
  });

  test('a plugin that prints a token-bearing error: redacted', async () => {
    const api = await fake();
    const r = await hosted(['status'], kubeconfig(api.url, { plugin: failing(`cached token ya29.${'a'.repeat(40)} is expired; Bearer ${'b'.repeat(30)}\n`) }));
    expect(r.code).toBe(4);
    expect(r.stderr).not.toContain('a'.repeat(40));
    expect(r.stderr).not.toContain('b'.repeat(30));
    expect(r.stderr).toContain('ya29.…(redacted)');
  });
});

test('403: names the IAM role to ask for; 500: says the server failed; both exit 4', async () => {
  const api = await fake();
  api.misbehave = () => ({ code: 403, body: JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message: 'jobsets.jobset.x-k8s.io is forbidden: User "me@example.com" cannot list resource "jobsets"' }) });
  const forbidden = await hosted(['status'], kubeconfig(api.url));
  expect(forbidden.code).toBe(4);
  expect(forbidden.stderr).toContain('denies the request: the API server refused the request (HTTP 403): jobsets.jobset.x-k8s.io is forbidden');
  expect(forbidden.stderr).toContain(`roles/container.viewer (read-only: enough for status and logs) or roles/container.developer on project ${platform.project}`);
  expect(forbidden.stderr).not.toContain('get-credentials');
  api.misbehave = () => ({ code: 500, body: JSON.stringify({ kind: 'Status', status: 'Failure', code: 500, message: 'etcdserver: request timed out' }) });
  const failed = await hosted(['status'], kubeconfig(api.url));
  expect(failed.code).toBe(4);
  expect(failed.stderr).toContain('failed: the API server failed (HTTP 500): etcdserver: request timed out');
});

test.each([
  ['an HTML page', { code: 200, body: '<html><body>Sign in</body></html>', contentType: 'text/html' }],
  ['broken JSON', { code: 200, body: '{"items": [', contentType: 'application/json' }],
  ['a list whose items are not objects', { code: 200, body: '{"kind":"PodList","items":"nope"}', contentType: 'application/json' }],
])('garbage (%s): a clear message, exit 4, no stack trace', async (_name, answer) => {
  const api = await fake();
  api.misbehave = () => answer;
  const r = await hosted(['status'], kubeconfig(api.url));
  expect(r.code).toBe(4);
  expect(r.stderr).toMatch(/answered: .*(not a Kubernetes API response|not a Kubernetes list)/);
  expect(r.stderr).not.toMatch(/\n\s+at /);
});

test('--watch survives transient errors: retries with backoff, marks the view stale, ends on the terminal state', async () => {
  const qwen = pipeline('rl-qwen3');
  const w = emptyWorld();
  w.jobSets.push(jobSet(step(qwen, 'to-maxtext')));
  const api = await fake(w);
  let polls = 0;
  const completed = { terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done' }] };
  api.misbehave = (req) => {
    if (!req.path.endsWith('/jobsets')) return undefined;
    polls += 1;
    if (polls === 2) return { code: 503, body: '{"kind":"Status","code":503,"message":"the server is currently unable to handle the request"}' };
    if (polls === 3) return 'silent';
    if (polls === 4) {
      api.world.jobSets = qwen.steps.map((s) => jobSet(s, completed));
    }
    return undefined;
  };
  // --timeout 1, not 0.3: the first request spawns the credential plugin (a node process), which on a loaded 2-core
  // machine can take longer than 0.3 s; this test is about what happens after the first answer.
  const r = await runCli(['status', 'rl-qwen3', '--watch', '--interval', '1', '--timeout', '1', '--json'], kubeconfig(api.url));
  expect(r.code).toBe(0);
  const stale = r.stderr.split('\n').filter((l) => l.includes('view stale since'));
  expect(stale).toHaveLength(2);
  expect(stale[0]).toMatch(/\(1 failed poll\(s\)\): the cluster at .* failed: the API server failed \(HTTP 503\).*; retrying in 1s$/);
  expect(stale[1]).toMatch(/\(2 failed poll\(s\)\): no answer from the cluster at .*no answer within 1 s.*; retrying in 2s$/);
  const docs = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(docs.at(-1).pipelines[0].steps.map((s: { state: string }) => s.state)).toEqual(['completed', 'completed', 'completed', 'completed']);
}, 20_000);

test('secrets in pod messages, events and logs are redacted in status and logs', async () => {
  const qwen = pipeline('rl-qwen3');
  const w = emptyWorld();
  const js = jobSet(step(qwen, 'to-maxtext'), {
    terminalState: 'Failed',
    conditions: [{ type: 'Failed', status: 'True', reason: 'FailedJobs', message: `job failed: HF_TOKEN=${HF}` }],
  });
  w.jobSets.push(js);
  w.workloads.push(workload(js, true));
  const p = pod(js, 'convert', { phase: 'Failed', containerStatuses: [{ name: 'workload-container', state: { terminated: { exitCode: 1, reason: 'Error', message: `token ${GH}` } } }] });
  w.pods.push(p);
  w.logs[p.metadata.name] = [
    `2026-12-01T06:00:00Z login with ${HF}`,
    '2026-12-01T06:00:01Z -----BEGIN PRIVATE KEY-----',
    '2026-12-01T06:00:01Z MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
    '2026-12-01T06:00:01Z -----END PRIVATE KEY-----',
    '2026-12-01T06:00:02Z Traceback: ValueError',
  ];
  const api = await fake(w);
  const env = kubeconfig(api.url);
  const status = await hosted(['status', 'rl-qwen3'], env);
  expect(status.code).toBe(1);
  noSecret(status.stdout + status.stderr);
  expect(status.stdout).toContain('hf_…(redacted)');
  for (const args of [['logs', 'rl-qwen3', 'to-maxtext'], ['logs', 'rl-qwen3', 'to-maxtext', '-f']]) {
    const logs = await hosted(args, env);
    expect(logs.code).toBe(0);
    noSecret(logs.stdout + logs.stderr);
    expect(logs.stdout).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
    expect(logs.stdout).toContain('Traceback: ValueError');
  }
});

test('10,000 pods: one answer (its wall time is a target of npm run bench -- hostile, not of a test on loaded cores)', async () => {
  const api = await fake(manyPodsWorld(10_000));
  const r = await hosted(['status', 'rl-qwen3', '--json'], kubeconfig(api.url));
  expect(r.code).toBe(3);
  expect(JSON.parse(r.stdout).pipelines[0].steps[1].state).toBeDefined();
  expect(api.requests.filter((q) => q.path.endsWith('/pods'))).toHaveLength(1);
}, 30_000);

test('terminal escape sequences in pod messages, events and logs never reach the terminal (status, status --watch, logs)', async () => {
  // The payloads of issue 35: a clipboard write (OSC 52), a clear screen (CSI 2J), a title set (OSC 0), 8-bit CSI.
  const OSC52 = '\u001b]52;c;Y2FuYXJ5\u0007';
  const CLEAR = '\u001b[2J\u001b[H';
  const qwen = pipeline('rl-qwen3');
  const w = emptyWorld();
  const js = jobSet(step(qwen, 'to-maxtext'), {
    terminalState: 'Failed',
    conditions: [{ type: 'Failed', status: 'True', reason: 'FailedJobs', message: `job failed ${OSC52}${CLEAR}\u001b]0;pwned\u0007 \u009b31m` }],
  });
  w.jobSets.push(js);
  w.workloads.push(workload(js, true));
  const p = pod(js, 'convert', { phase: 'Failed', containerStatuses: [{ name: 'workload-container', state: { terminated: { exitCode: 1, reason: 'Error', message: `oom ${CLEAR}` } } }] });
  w.pods.push(p);
  w.logs[p.metadata.name] = [`2026-12-01T06:00:00Z step 1 ${OSC52}`, `2026-12-01T06:00:01Z ${CLEAR}Traceback: ValueError\r`];
  const api = await fake(w);
  const env = kubeconfig(api.url);
  const controls = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
  const status = await hosted(['status', 'rl-qwen3'], env);
  expect(status.code).toBe(1);
  expect(status.stdout + status.stderr).not.toMatch(controls);
  expect(status.stdout).toContain('FailedJobs: job failed'); // the message is shown, whole sequences are dropped
  expect(status.stdout).not.toContain('Y2FuYXJ5');
  expect(status.stdout).toContain('step 1');
  for (const args of [['logs', 'rl-qwen3', 'to-maxtext'], ['logs', 'rl-qwen3', 'to-maxtext', '-f']]) {
    const logs = await hosted(args, env);
    expect(logs.code).toBe(0);
    expect(logs.stdout + logs.stderr).not.toMatch(controls);
    expect(logs.stdout).toContain('Traceback: ValueError');
  }
});

describe('a log read without -f is bounded in time and in decompressed bytes', () => {
  /** A world with one finished conversion pod whose log the fake server answers with `respond`. */
  async function logWorld(respond: (res: import('http').ServerResponse) => void) {
    const w = emptyWorld();
    const js = jobSet(step(pipeline('rl-qwen3'), 'to-maxtext'), { terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True' }] });
    w.jobSets.push(js);
    w.workloads.push(workload(js, true));
    const p = pod(js, 'convert', { phase: 'Succeeded', containerStatuses: [{ name: 'workload-container', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] });
    w.pods.push(p);
    w.logs[p.metadata.name] = ['2026-12-01T06:00:00Z done'];
    const api = await fake(w);
    // Only the log read itself (not the one-line probe `hasLog` makes with tailLines=1).
    api.misbehave = (req) => (req.path.endsWith('/log') && req.query.tailLines === undefined ? { respond } : undefined);
    return api;
  }

  test('a server that trickles a line every 50 ms forever: ends after 12 x --timeout, naming the bound (exit 4)', async () => {
    const timers: NodeJS.Timeout[] = [];
    const api = await logWorld((res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const t = setInterval(() => res.write('2026-12-01T06:00:00Z still here\n'), 50);
      timers.push(t);
      res.on('close', () => clearInterval(t));
    });
    try {
      // A static token: the deadline must start the log read, not race the credential plugin's start. 1 s a request
      // (12 s in all): the pod lookup before the read must not itself time out on two loaded cores (0.3 s did once).
      const r = await runCli(['logs', 'rl-qwen3', 'to-maxtext', '--timeout', '1'], staticTokenKubeconfig(api.url));
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('the log did not end within 12 s (12 x --timeout, the bound of a log read without -f)');
      expect(r.stderr).not.toMatch(/allow-list|no route/); // not blamed on the network
      expect(r.stdout).toContain('still here');
    } finally {
      timers.forEach(clearInterval);
    }
  }, 60_000);

  test('a gzip bomb (80 MiB inflated from a few hundred KB): cut at 64 MiB after decompression, naming the bound', async () => {
    const bomb = require('zlib').gzipSync(Buffer.from('2026-12-01T06:00:00Z aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n'.repeat(80 * 2 ** 20 / 64))) as Buffer;
    expect(bomb.length).toBeLessThan(2 ** 20);
    const api = await logWorld((res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const r = await runCli(['logs', 'rl-qwen3', 'to-maxtext', '--timeout', '5'], kubeconfig(api.url));
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('the log is over 64 MiB after decompression (the bound of a log read without -f)');
    expect(r.stderr).not.toMatch(/allow-list|no route/);
  }, 60_000);
});

describe('a list answer is bounded in decompressed bytes (issue 45)', () => {
  test('a gzip bomb as the JobSet list: cut at 64 MiB after decompression, named as the bound, never "no route"', async () => {
    // 80 MiB of one JSON list inflated from well under 1 MiB: node-fetch 2.7.0's `size` stops reading at MAX_ANSWER_BYTES.
    const bomb = require('zlib').gzipSync(Buffer.concat([Buffer.from('{"kind":"JobSetList","items":[{"a":"'), Buffer.alloc(80 * 2 ** 20, 'a'), Buffer.from('"}]}')])) as Buffer;
    expect(bomb.length).toBeLessThan(2 ** 20);
    const api = await fake(emptyWorld());
    api.misbehave = (req) => (req.path.endsWith('/jobsets') ? { respond: (res) => { res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }); res.end(bomb); } } : undefined);
    const r = await runCli(['status', '--timeout', '5'], kubeconfig(api.url));
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("answered past a bound of this tool: the server's answer is over 64 MiB after decompression (the bound of one answer)");
    expect(r.stderr).not.toMatch(/allow-list|no route/);
  }, 60_000);
});

describe('kubeconfig and CA reads are bounded for files, FIFOs and devices', () => {
  /** A FIFO held open for writing by this process (so a reader waits for data that never comes), closed after the test. */
  function heldFifo(dir: string, name: string): string {
    const fifo = require('path').join(dir, name);
    require('child_process').execFileSync('mkfifo', [fifo]);
    const fd = fs.openSync(fifo, 'r+'); // Linux: a FIFO opened read-write has a writer and never blocks the open
    closeAfter(async () => fs.closeSync(fd));
    return fifo;
  }

  test('a FIFO kubeconfig that never ends: exit 4 within --timeout, naming the bound', async () => {
    const env = kubeconfig('http://127.0.0.1:9');
    const fifo = heldFifo(env.HOME!, 'config-fifo');
    const r = await runCli(['status', '--timeout', '0.3'], { ...env, KUBECONFIG: fifo });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`cannot read ${fifo}: no end of data after 0.3 s (0 MiB read) (--timeout)`);
  });

  test('a FIFO certificate-authority that never ends, and /dev/zero as one: exit 4 naming the bound, no request made', async () => {
    const api = await fake();
    const env = kubeconfig(api.url);
    const fifo = heldFifo(env.HOME!, 'ca-fifo');
    for (const [ca, message] of [
      [fifo, `cannot read ${fifo}: no end of data after 0.3 s (0 MiB read) (--timeout)`],
      ['/dev/zero', 'cannot read /dev/zero is over the limit of 1 MiB (the credential file bound, 1 MiB)'],
    ]) {
      const config = JSON.parse(fs.readFileSync(env.KUBECONFIG!, 'utf8'));
      config.clusters[0].cluster['certificate-authority'] = ca;
      fs.writeFileSync(env.KUBECONFIG!, JSON.stringify(config));
      const r = await runCli(['status', '--timeout', '0.3'], env);
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(message);
    }
    expect(api.requests).toEqual([]);
  });
});
