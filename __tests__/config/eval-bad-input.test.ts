/**
 * Bad eval and serve input, as a user runs it (`node dist/main.js`): an eval task or metric that does not exist, a gate
 * on a metric the step does not compute, `eval.enabled: true` where no single-host slice fits, a serve stack for a model
 * that does not fit one host: exit 1, naming the file key, writing nothing. And `serve.enabled` adds serve-<pipeline>.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureDist } from '../dist';

const ROOT = path.join(__dirname, '..', '..');
const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'config', 'example.json'), 'utf8'));
const REAL = { PROJECT: 'acme-tpu-prod', GCS_BUCKET: 'acme-post-train-ckpt', RESERVATION: 'acme-v6e-32', AUTHORIZED_CIDR: '198.18.0.0/15' };

beforeAll(ensureDist);

function main(patch: (c: any) => void, env: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-eval-bad-'));
  const file = path.join(dir, 'config.json');
  const copy = JSON.parse(JSON.stringify(example));
  patch(copy);
  fs.writeFileSync(file, JSON.stringify(copy, null, 2));
  const outdir = path.join(dir, 'cdktf.out');
  const r = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, CDKTF_OUTDIR: outdir, CONFIG_FILE: file, ...REAL, ...env },
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout, wrote: fs.existsSync(outdir), file };
}

function refused(patch: (c: any) => void, env: Record<string, string>, expected: string) {
  const r = main(patch, env);
  expect({ status: r.status, wrote: r.wrote, stdout: r.stdout }).toEqual({ status: 1, wrote: false, stdout: '' });
  expect(r.stderr).toContain(expected.replace('<file>', r.file));
}

const WITH_SINGLE_HOST = { SINGLE_HOST_RESERVATION: 'acme-v6e-8' };

test('an lm-eval task that does not exist', () => {
  refused((c) => (c.pipelines['rl-qwen3'].eval = { tasks: ['gsm9k'] }), WITH_SINGLE_HOST, "<file>: pipelines.rl-qwen3.eval.tasks: no lm-evaluation-harness task 'gsm9k' here; tasks: gsm8k, ");
});

test('a gate on a metric the step does not compute', () => {
  refused(
    (c) => (c.pipelines['sft-gemma4'].eval = { gate: { metric: 'exact_match,strict-match' } }),
    WITH_SINGLE_HOST,
    "<file>: pipelines.sft-gemma4.eval.gate.metric must be a metric the step computes (word_perplexity,none, byte_perplexity,none, bits_per_byte,none), got 'exact_match,strict-match'",
  );
});

test('an unknown eval key is refused by the schema', () => {
  const r = main((c) => (c.pipelines['rl-qwen3'].eval = { task: ['gsm8k'] }), WITH_SINGLE_HOST);
  expect({ status: r.status, wrote: r.wrote }).toEqual({ status: 1, wrote: false });
  expect(r.stderr).toMatch(/pipelines\.rl-qwen3\.eval.*task/);
});

test('eval.enabled true without a single-host slice that fits: refused, naming the key; left to a notice when merely on by default', () => {
  refused((c) => (c.pipelines['rl-qwen3'].eval = { enabled: true }), {}, '<file>: pipelines.rl-qwen3.eval.enabled: the eval step cannot run: qwen3-30b-a3b needs a single-host');
  const ok = main(() => undefined);
  expect(ok.status).toBe(0);
  expect(ok.stdout).toContain('rl-qwen3: eval step left out: qwen3-30b-a3b needs a single-host ct6e-standard-4t 2x2 (v6e-4) or larger');
});

describe('serve', () => {
  test('serve.enabled synthesizes serve-<pipeline> next to the pipeline stack', () => {
    const r = main((c) => (c.pipelines['rl-qwen3'].serve = { enabled: true }));
    expect(r.status).toBe(0);
    const stacks = fs.readdirSync(path.join(path.dirname(r.file), 'cdktf.out', 'stacks')).sort();
    expect(stacks).toEqual(['infra', 'rl-gemma4', 'rl-qwen3', 'serve-rl-qwen3', 'sft-gemma4']);
  });
  test('a model that does not fit one host: exit 1, naming the key, nothing written', () => {
    refused(
      (c) => (c.pipelines['sft-gemma4'].serve = { enabled: true, sequences: 64 }),
      {},
      '<file>: pipelines.sft-gemma4.serve: gemma4-31b does not fit one v6e host',
    );
  });
  test('a reservation capacity without its reservation', () => {
    refused((c) => (c.pipelines['rl-qwen3'].serve = { enabled: true, capacity: 'reservation' }), {}, "<file>: pipelines.rl-qwen3.serve.reservation: capacity 'reservation' needs a reservation name");
  });
});
