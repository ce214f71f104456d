/**
 * The review under hostile input: plans with sensitive values, of the wrong shape or type, truncated, huge; a
 * `--base` change that destroys a slice; unknown values; a JobSet running now; the on-purpose `:latest` images.
 * Each ends with the documented exit code and a clear message, and no secret in any output.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PATHWAYS_IMAGES } from '../../jobs/jobset';
import { main, parseArgs, run } from '../../review/cli';
import { diffSyntheses } from '../../review/diff';
import { review } from '../../review/findings';
import { synthesisFromJson } from '../../review/load';
import { extractStack } from '../../review/model';
import { KNOWN_AFTER_APPLY, reviewPlan } from '../../review/plan';
import { capText, maskSensitive, MAX_VALUE_CHARS, redact, REDACTED, Redactor } from '../../util/redact';
import { asTf, infraJson, pipelineJson } from './fixtures';

const REAL = path.join(__dirname, 'fixtures', 'real-plans');
const OLD_TOKEN = 'sensitive-OLD-canary-0123';
const NEW_TOKEN = 'sensitive-NEW-canary-4567';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A synthesized app on disk (manifest.json + stacks/<name>/cdk.tf.json). */
function synthesisDir(stacks: Record<string, unknown>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'review-hostile-'));
  dirs.push(dir);
  const manifest: Record<string, unknown> = {};
  for (const [name, json] of Object.entries(stacks)) {
    fs.mkdirSync(path.join(dir, 'stacks', name), { recursive: true });
    fs.writeFileSync(path.join(dir, 'stacks', name, 'cdk.tf.json'), JSON.stringify(json));
    manifest[name] = { name, synthesizedStackPath: `stacks/${name}/cdk.tf.json`, workingDirectory: `stacks/${name}` };
  }
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ version: '0.21.0', stacks: manifest }));
  return dir;
}

function writePlan(dir: string, name: string, content: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** Runs the CLI in-process; stdout, stderr and the report file together. */
function cli(planFile: string, stack = 'infra') {
  const dir = synthesisDir({ infra: infraJson(), 'rl-qwen3': pipelineJson() });
  const out = path.join(dir, 'report.md');
  let stdout = '';
  let stderr = '';
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  const started = Date.now();
  let code: number;
  try {
    code = main(['--from', dir, '--out', out, '--plan', `${stack}=${planFile}`]);
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  const report = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
  return { code, stdout, stderr, report, all: stdout + stderr + report, ms: Date.now() - started };
}

const change = (address: string, actions: unknown, before: unknown, after: unknown, extra: Record<string, unknown> = {}) => ({
  address, mode: 'managed', type: address.split('.')[0], name: address.split('.')[1], change: { actions, before, after, ...extra },
});
const planOf = (...changes: unknown[]) => ({ format_version: '1.2', terraform_version: '1.11.4', resource_changes: changes });

describe('secrets', () => {
  test('a real plan with a sensitive variable, resource value and output: no token in stdout, stderr or the report', () => {
    const r = cli(path.join(REAL, 'sensitive.json'));
    expect(r.report).toContain('## Terraform plans');
    expect(r.report).toContain('terraform_data.login');
    expect(r.all).not.toContain(OLD_TOKEN);
    expect(r.all).not.toContain(NEW_TOKEN);
    expect(r.all).not.toContain('hf_OLD');
    expect(r.all).not.toContain('hf_NEW');
  });

  test('reviewPlan masks every value Terraform marks sensitive, and registers the old value Terraform left unmarked', () => {
    const raw = JSON.parse(fs.readFileSync(path.join(REAL, 'sensitive.json'), 'utf8'));
    const redactor = new Redactor();
    const plan = reviewPlan('infra', 'sensitive.json', raw, { redactor });
    const [c] = plan.changes;
    // after_sensitive marks input.token; before's `output.token` is not marked by Terraform 1.11.4 (it is unknown after),
    // but terraform_data's output is a copy of its input: the input's marks mask it too (plan.ts pairedMarks).
    expect(c!.after).toMatchObject({ input: { token: REDACTED, user: 'trainer' }, output: KNOWN_AFTER_APPLY });
    expect(JSON.stringify(raw)).toContain(OLD_TOKEN); // unmarked in the plan itself...
    expect(c!.before).toMatchObject({ output: { token: REDACTED, user: 'trainer' } }); // ...masked in the review
    expect(redactor.text(JSON.stringify(raw))).not.toContain(OLD_TOKEN); // ...and registered for the way out
    expect(redactor.text(`variable: ${NEW_TOKEN}`)).toBe(`variable: ${REDACTED}`);
  });

  test('a token in an unmarked plan value is redacted by its shape; so is a private key split over lines', () => {
    const token = 'hf_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6';
    const key = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\nkqhkiG9w0BAQEF\n-----END PRIVATE KEY-----\n';
    const dir = synthesisDir({});
    const file = writePlan(dir, 'p.json', planOf(
      change('terraform_data.env', ['update'], { input: { HF_TOKEN: 'unset', KEY: 'unset' } }, { input: { HF_TOKEN: token, KEY: key } }),
    ));
    const r = cli(file);
    expect(r.report).toContain('terraform_data.env');
    expect(r.all).not.toContain(token);
    expect(r.all).not.toContain('MIIEvQIBADANBg');
    expect(r.all).not.toContain('kqhkiG9w0BAQEF');
  });

  test('a token the --base diff shows is redacted in the report', () => {
    const head = pipelineJson();
    const token = 'hf_' + 'K1l2M3n4B5v6C7x8Z9a0S1d2F3g4';
    head.resource.kubernetes_manifest.train.manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0].args = ['python3', `hf_access_token=${token}`];
    const dir = synthesisDir({ 'rl-qwen3': head });
    const result = run(parseArgs(['--from', dir, '--base', 'main']), dir, Date.now(), new Redactor(), () => synthesisFromJson({ 'rl-qwen3': asTf(pipelineJson()) }));
    expect(result.markdown).toContain('## Changes against `main`');
    expect(result.markdown).toContain('hf_access_token: (unset) -> hf_…(redacted)');
    expect(result.markdown).not.toContain(token);
    expect(result.findings.filter((f) => f.rule === 'secret-in-output')).toHaveLength(1);
  });

  test('maskSensitive follows nested and list markers; redact() keeps the kind of secret, not a character of it', () => {
    expect(maskSensitive({ a: [1, 'x'], b: { c: 's3cr3t-value', d: 'open' } }, { a: [false, true], b: { c: true } })).toEqual({
      a: [1, REDACTED],
      b: { c: REDACTED, d: 'open' },
    });
    expect(redact('token ghp_' + 'a'.repeat(36) + ' and AKIA' + 'B'.repeat(16))).toBe('token gh…(redacted) and AKIA…(redacted)');
    expect(capText('x'.repeat(MAX_VALUE_CHARS + 10))).toBe(`${'x'.repeat(MAX_VALUE_CHARS)}… (10 more characters)`);
  });
});

describe('what cannot be read is an error (exit 2), never "no changes"', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['change: null', planOf({ address: 'google_container_node_pool.tpu', mode: 'managed', type: 'google_container_node_pool', name: 'tpu', change: null }),
      /resource_changes\[0\] \(google_container_node_pool\.tpu\) is not a change Terraform writes: change: Expected object, received null/],
    ['actions as a string', planOf(change('google_container_node_pool.tpu', 'delete', {}, null)),
      /resource_changes\[0\] \(google_container_node_pool\.tpu\) is not a change Terraform writes: change\.actions: Expected array, received string/],
    ['an unknown action', planOf(change('google_container_node_pool.tpu', ['destroy'], {}, null)), /change\.actions\[0\]: Invalid enum value/],
    ['before as a string', planOf(change('google_container_node_pool.tpu', ['update'], 'tpu-v6e', {})), /change\.before: Expected object, received string/],
    ['an entry without an address', planOf({ mode: 'managed', type: 'x', name: 'y', change: { actions: ['delete'] } }), /resource_changes\[0\] is not a change Terraform writes: address: Required/],
    ['a list', [1, 2], /not a Terraform JSON plan \(got a list, no format_version\)/],
    ['a number', 42, /not a Terraform JSON plan \(got a number/],
    ['null', null, /not a Terraform JSON plan \(got null/],
    ['resource_changes: null', { format_version: '1.2', resource_changes: null }, /resource_changes must be a list, got null/],
    ['errored as a string', { format_version: '1.2', planned_values: {}, errored: 'yes' }, /errored: Expected boolean, received string/],
    ['only a format_version', { format_version: '1.2' }, /not a Terraform JSON plan \(neither resource_changes nor planned_values\)/],
    ['planned_values: null', { format_version: '1.2', planned_values: null }, /planned_values must be an object, got null/],
    ['planned_values: 5', { format_version: '1.2', planned_values: 5 }, /planned_values must be an object, got number/],
    ['a state (terraform show -json without a plan file)', { format_version: '1.0', terraform_version: '1.11.4', values: { root_module: {} } }, /this is Terraform state .* not a plan/],
  ];
  test.each(cases)('%s', (_name, content, message) => {
    const dir = synthesisDir({});
    const r = cli(writePlan(dir, 'bad.json', content));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^review: .*bad\.json/);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/TypeError|Cannot read properties/);
    expect(r.stdout).not.toContain('No changes');
  });

  test('text that is not JSON is not quoted back (it may be a secret)', () => {
    const dir = synthesisDir({});
    const r = cli(writePlan(dir, 'text.json', 'token=supersecretvalue123'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/text\.json is not valid JSON \(Unexpected token 'o'\)/);
    expect(r.stderr).not.toContain('supersecretvalue123');
  });

  test('a truncated plan: exit 2, named, within a second', () => {
    const dir = synthesisDir({});
    const text = fs.readFileSync(path.join(REAL, 'sensitive.json'), 'utf8');
    const r = cli(writePlan(dir, 'cut.json', text.slice(0, Math.floor(text.length / 2))));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cut\.json is not valid JSON/);
    expect(r.all).not.toContain('hf_OLD');
    expect(r.ms).toBeLessThan(1000);
  });
});

test('a large plan (2,000 changes, a 2 MB value): values and rows are capped, the report stays small', () => {
  const big = 'v'.repeat(2 * 2 ** 20);
  const changes = Array.from({ length: 2000 }, (_, i) =>
    change(`terraform_data.d${i}`, ['update'], { input: { v: i === 0 ? 'small' : `${i}-a` } }, { input: { v: i === 0 ? big : `${i}-b` } }));
  const dir = synthesisDir({});
  const r = cli(writePlan(dir, 'big.json', planOf(...changes)));
  expect(r.code).toBe(1); // the plan's resources are not in the synthesized infra stack (plan-wrong-stack)
  expect(r.report.length).toBeLessThan(200_000);
  expect(r.report).toContain('... and 1850 more changes');
  expect(r.report).not.toContain('v'.repeat(MAX_VALUE_CHARS + 1));
});

describe('--base', () => {
  const diffOf = (head: ReturnType<typeof infraJson>) =>
    diffSyntheses(synthesisFromJson({ infra: asTf(infraJson()) }), synthesisFromJson({ infra: asTf(head) }));

  test('reservation -> flex-start replaces the TPU pool: an error, as through --plan', () => {
    const head = infraJson();
    const nodeConfig = head.resource.google_container_node_pool['tpu-32'].node_config;
    nodeConfig.reservation_affinity = { consume_reservation_type: 'NO_RESERVATION' };
    nodeConfig.flex_start = true;
    const found = review([], [], [], undefined, diffOf(head)).filter((f) => f.rule === 'base-destroys-tpu-pool');
    expect(found).toEqual([expect.objectContaining({ severity: 'error', stack: 'infra', address: 'google_container_node_pool.tpu-32' })]);
    expect(found[0]!.message).toMatch(/^TPU pool tpu-v6e-32-0: capacity reservation tpu-v6e-32-0-reservation -> flex-start/);
    expect(found[0]!.message).toContain('Terraform replaces the pool (node_config.flex_start, node_config.reservation_affinity cannot change in place)');
  });

  test('a slice deleted is an error; a renamed address says to add a moved block; a plan for the stack takes over', () => {
    const head = infraJson();
    delete head.resource.google_container_node_pool['tpu-8'];
    head.resource.google_container_node_pool['tpu-32-new'] = head.resource.google_container_node_pool['tpu-32'];
    delete head.resource.google_container_node_pool['tpu-32'];
    const diffs = diffOf(head);
    const found = review([], [], [], undefined, diffs).filter((f) => f.rule === 'base-destroys-tpu-pool');
    expect(found.map((f) => [f.address, f.severity])).toEqual([
      ['google_container_node_pool.tpu-32', 'error'],
      ['google_container_node_pool.tpu-8', 'error'],
    ]);
    expect(found[0]!.fix).toBe('add a `moved` block from google_container_node_pool.tpu-32 to google_container_node_pool.tpu-32-new');
    expect(found[1]!.message).toMatch(/^TPU pool tpu-v6e-8-8t-0 removed: .*the pool is removed, so Terraform deletes the slice/);
    const withPlan = review([], [], [reviewPlan('infra', 'p.json', planOf())], undefined, diffs);
    expect(withPlan.filter((f) => f.rule === 'base-destroys-tpu-pool')).toEqual([]);
    // an in-place change (not ForceNew) is not this error
    const resized = infraJson();
    resized.resource.google_container_node_pool.cpu.autoscaling.total_max_node_count = 8;
    expect(review([], [], [], undefined, diffOf(resized)).filter((f) => f.rule === 'base-destroys-tpu-pool')).toEqual([]);
  });
});

test('unknown values read (known after apply), never `-` or `?`', () => {
  const pool = infraJson().resource.google_container_node_pool['tpu-32'];
  const plan = reviewPlan('infra', 'p.json', planOf(
    change('google_container_node_pool.tpu', ['update'], pool, { ...pool, node_count: null }, { after_unknown: { node_count: true } }),
    change('google_container_node_pool.cpu', ['update'], infraJson().resource.google_container_node_pool.cpu,
      { ...infraJson().resource.google_container_node_pool.cpu, autoscaling: null }, { after_unknown: { autoscaling: true } }),
  ));
  const lines = plan.changes.flatMap((c) => c.summary);
  expect(lines[0]).toContain(`node count 8 -> ${KNOWN_AFTER_APPLY}`);
  expect(lines[1]).toContain(`size 0-4 nodes -> ${KNOWN_AFTER_APPLY}`);
  for (const l of lines) expect(l).not.toMatch(/ -> (-|\?)/);
});

test('every describer, every attribute of the plan fixtures unknown in turn: (known after apply), never a made-up value, never a crash', () => {
  const dir = path.join(__dirname, 'fixtures', 'plans');
  let checked = 0;
  for (const f of fs.readdirSync(dir)) {
    for (const rc of JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).resource_changes) {
      const before = rc.change.before;
      if (!before) continue;
      const leaves: Array<Array<string | number>> = [];
      const walk = (v: unknown, p: Array<string | number>) => {
        if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...p, Array.isArray(v) ? Number(k) : k]);
        if (p.length) leaves.push(p);
      };
      walk(before, []);
      for (const p of leaves) {
        // `after` = `before` with the value at p unknown (absent from after, `true` in after_unknown), as Terraform writes it.
        const after = JSON.parse(JSON.stringify(before));
        const unknown: any = {};
        let o = after;
        let u = unknown;
        for (let i = 0; i < p.length - 1; i++) {
          o = o[p[i]!];
          u[p[i]!] ??= typeof p[i + 1] === 'number' ? [] : {};
          u = u[p[i]!];
        }
        const last = p[p.length - 1]!;
        if (Array.isArray(o)) o[last as number] = null;
        else delete o[last];
        u[last] = true;
        const plan = reviewPlan('infra', f, planOf({ ...rc, change: { actions: ['update'], before, after, after_unknown: unknown } }));
        for (const line of plan.changes.flatMap((c) => c.summary)) expect([p.join('.'), line]).not.toEqual([p.join('.'), expect.stringMatching(/ -> (-|\?|false|true|no|yes|off|0)(?=[,;) ]|$)/)]);
        checked += 1;
      }
    }
  }
  expect(checked).toBeGreaterThan(200);
});

describe('a JobSet running now', () => {
  const train = () => pipelineJson().resource.kubernetes_manifest.train;
  const withStatus = (status: unknown) => ({ ...train(), object: { ...train().manifest, status } });
  const replaced = (status: unknown) => {
    const after = train();
    after.manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0].args = ['other'];
    return review([], [], [reviewPlan('rl-qwen3', 'p.json', planOf(change('kubernetes_manifest.train', ['delete', 'create'], withStatus(status), after)))]);
  };

  test('replaced while its jobs are active: says it stops a training run in progress', () => {
    const [f] = replaced({ replicatedJobsStatus: [{ name: 'slice', active: 1, ready: 1, succeeded: 0, failed: 0, suspended: 0 }], restarts: 2 }).filter((x) => x.rule === 'plan-reruns-training');
    expect(f!.message).toContain('running now (1 job(s) active, after 2 restart(s)): replacing it stops a training run in progress');
  });

  test('finished or suspended: no such line', () => {
    for (const status of [
      { terminalState: 'Completed', replicatedJobsStatus: [{ name: 'slice', active: 0, succeeded: 1 }] },
      { conditions: [{ type: 'Suspended', status: 'True' }], replicatedJobsStatus: [{ name: 'slice', active: 0 }] },
      undefined,
    ]) {
      const [f] = replaced(status).filter((x) => x.rule === 'plan-reruns-training');
      expect(f!.message).not.toContain('running now');
    }
  });

  test('deleted while running: an error, not a warning', () => {
    const plan = reviewPlan('rl-qwen3', 'p.json', planOf(change('kubernetes_manifest.train', ['delete'], withStatus({ replicatedJobsStatus: [{ name: 'slice', active: 1 }] }), null)));
    const [f] = review([], [], [plan]).filter((x) => x.rule === 'plan-deletes-jobset');
    expect(f).toMatchObject({ severity: 'error' });
    expect(f!.message).toContain('deleting it stops a training run in progress');
  });
});

test('image-latest: the on-purpose Pathways images are one note for the whole review; another :latest image is a warning', () => {
  const pipeline = pipelineJson();
  const spec = pipeline.resource.kubernetes_manifest.train.manifest.spec.replicatedJobs[0].template.spec.template.spec;
  spec.initContainers = [
    { name: 'pathways-proxy', image: PATHWAYS_IMAGES.proxy },
    { name: 'pathways-rm', image: PATHWAYS_IMAGES.server },
  ];
  const second = pipelineJson();
  second.resource.kubernetes_manifest.train.manifest.spec.replicatedJobs[0].template.spec.template.spec.initContainers = [{ name: 'pathways-proxy', image: PATHWAYS_IMAGES.proxy }];
  second.resource.kubernetes_manifest['to-hf'].manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image = 'gcr.io/x/tool:latest';
  const found = review([extractStack('rl-qwen3', asTf(pipeline)), extractStack('rl-gemma4', asTf(second))]).filter((f) => f.rule === 'image-latest');
  expect(found.map((f) => f.severity)).toEqual(['warning', 'note']);
  expect(found[0]!.message).toContain('gcr.io/x/tool:latest');
  expect(found[1]!.message).toBe(
    'the Pathways images (proxy_server:latest, server:latest) run on the latest tag on purpose, as upstream runs them: 3 container(s) in qwen3-8b-train',
  );
});
