/**
 * The stand-ins several test files share, one copy each: a `cdktf` on PATH for the npm scripts' wrapper
 * (scripts/cdktf.mjs), a `gcloud` on PATH that prints a token, and Terraform planning or applying a small JSON
 * configuration of built-in resources (a precondition evaluated by Terraform itself: no provider, no network). The
 * Cloud Storage stand-in on loopback is environments/fake-gcs.ts (self-contained: one test runs it in a child process).
 */
import { spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..');

/** PATH with `bin` first, then this node's folder (the wrapper's `#!/usr/bin/env node`), then the inherited PATH. */
export function pathWith(bin: string): string {
  return `${bin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`;
}

/** What the stand-in cdktf saw: its arguments and the environment variables asked for (null when unset). */
export interface CdktfCall {
  readonly args: string[];
  readonly env: Record<string, string | null>;
}

export interface WrapperRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The stand-in's folder (its bin/, its record, the synthesized output). */
  readonly dir: string;
  /** What cdktf was called with; undefined when the wrapper never started it. */
  readonly called?: CdktfCall;
  /** Where the stand-in synthesized: `<dir>/<the --output cdktf got>`, or `<dir>/cdktf.out` without one. */
  readonly outdir: string;
  /** The stacks synthesized there, sorted ([] when none). */
  readonly stacks: string[];
}

/**
 * Runs `node scripts/cdktf.mjs <args>` (what `npm run synth|diff|deploy|destroy` run) in the checkout with a stand-in
 * `cdktf` first on PATH: it records its arguments and the variables `record` names, runs cdktf.json's app into
 * `<dir>/<--output>` as cdktf synth does, and exits with FAKE_CDKTF_EXIT (default 0). `env` is the whole environment
 * besides PATH.
 */
export function runWrapper(args: string[], env: Record<string, string> = {}, record: readonly string[] = []): WrapperRun {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-cdktf-'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const file = path.join(dir, 'cdktf-called.json');
  fs.writeFileSync(
    path.join(bin, 'cdktf'),
    [
      '#!/usr/bin/env node',
      "const { execSync } = require('child_process');",
      'const args = process.argv.slice(2);',
      `const names = ${JSON.stringify(record)};`,
      `require('fs').writeFileSync(${JSON.stringify(file)}, JSON.stringify({ args, env: Object.fromEntries(names.map((n) => [n, process.env[n] ?? null])) }));`,
      `const out = require('path').join(${JSON.stringify(dir)}, args.includes('--output') ? args[args.indexOf('--output') + 1] : 'cdktf.out');`,
      "execSync(JSON.parse(require('fs').readFileSync('cdktf.json', 'utf8')).app, { stdio: 'inherit', env: { ...process.env, CDKTF_OUTDIR: out } });",
      'process.exit(Number(process.env.FAKE_CDKTF_EXIT ?? 0));',
    ].join('\n'),
    { mode: 0o755 },
  );
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'cdktf.mjs'), ...args], { cwd: ROOT, env: { PATH: pathWith(bin), ...env }, encoding: 'utf8' });
  const called = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as CdktfCall) : undefined;
  const output = called?.args.includes('--output') ? called.args[called.args.indexOf('--output') + 1]! : 'cdktf.out';
  const outdir = path.join(dir, output);
  const stacks = fs.existsSync(path.join(outdir, 'stacks')) ? fs.readdirSync(path.join(outdir, 'stacks')).sort() : [];
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, dir, called, outdir, stacks };
}

/** A `gcloud` in its own bin folder that runs `script` (default: prints the token `gcloud-token`) and counts its runs. */
export function standInGcloud(script = 'echo gcloud-token'): { bin: string; runs: () => number } {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-gcloud-'));
  const runs = path.join(bin, 'runs');
  fs.writeFileSync(path.join(bin, 'gcloud'), `#!/bin/sh\necho run >> ${JSON.stringify(runs)}\n${script}\n`, { mode: 0o755 });
  return { bin, runs: () => (fs.existsSync(runs) ? fs.readFileSync(runs, 'utf8').split('\n').filter(Boolean).length : 0) };
}

/** `terraform <args>` in `dir`: no prompts, no version check, no CLI config (so no provider mirror or plugin cache). */
export function terraform(dir: string, args: readonly string[]): SpawnSyncReturns<string> {
  const env = { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: '/dev/null' };
  return spawnSync('terraform', [...args], { cwd: dir, env, encoding: 'utf8' });
}

/** A scratch folder holding `config` as main.tf.json, initialised (throws when init fails); remove it when done. */
function initialised(config: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-tf-'));
  fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify(config));
  const init = terraform(dir, ['init', '-input=false', '-no-color']);
  if (init.status !== 0) throw new Error(`terraform init failed: ${init.stderr}`);
  return dir;
}

/** Terraform's plan of `config`: whether it passed, and its stdout and stderr (a failed precondition's message). */
export function terraformPlan(config: unknown): { ok: boolean; output: string } {
  const dir = initialised(config);
  try {
    const p = terraform(dir, ['plan', '-input=false', '-no-color', '-lock=false']);
    return { ok: p.status === 0, output: `${p.stdout}\n${p.stderr}` };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Terraform's apply of `config` with local state: its outputs, or the errors. */
export function terraformApply(config: unknown): { outputs?: Record<string, { value: unknown }>; errors?: string } {
  const dir = initialised(config);
  try {
    const apply = terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color', '-lock=false']);
    if (apply.status !== 0) return { errors: apply.stderr };
    const out = terraform(dir, ['output', '-json', '-no-color']);
    if (out.status !== 0) throw new Error(`terraform output failed: ${out.stderr}`);
    return { outputs: JSON.parse(out.stdout) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
