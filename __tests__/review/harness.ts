/**
 * Runs the review CLI in-process on a synthesized app written to a temporary directory, and collects every output:
 * the exit code, stdout, stderr and the report file. Shared by the fail-closed tests (issue 24).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../../review/cli';
import type { Synthesis } from '../../review/load';
import { infraJson, pipelineJson } from './fixtures';

export const REAL = path.join(__dirname, 'fixtures', 'real-plans');

const dirs: string[] = [];
export function cleanUp(): void {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

export function tempDir(prefix = 'review-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A synthesized app on disk (manifest.json + stacks/<name>/cdk.tf.json). */
export function synthesisDir(stacks: Record<string, unknown> = { infra: infraJson(), 'rl-qwen3': pipelineJson() }): string {
  const dir = tempDir('review-synth-');
  const manifest: Record<string, unknown> = {};
  for (const [name, json] of Object.entries(stacks)) {
    fs.mkdirSync(path.join(dir, 'stacks', name), { recursive: true });
    fs.writeFileSync(path.join(dir, 'stacks', name, 'cdk.tf.json'), JSON.stringify(json));
    manifest[name] = { name, synthesizedStackPath: `stacks/${name}/cdk.tf.json`, workingDirectory: `stacks/${name}` };
  }
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ version: '0.21.0', stacks: manifest }));
  return dir;
}

/** How token-shapes.json holds the Hugging Face token prefix, so nothing token-shaped is committed (make-hostile.sh). */
export const TOKEN_MARK = '@HF@';
/** The token prefix, spelled at run time. */
export const HF_PREFIX = ['h', 'f'].join('');

/** A real plan of REAL with its TOKEN_MARK put back to the token prefix, written to a temporary file: its path. */
export function realTokenPlan(name: string): string {
  return writeFile(`${name}.json`, fs.readFileSync(path.join(REAL, `${name}.json`), 'utf8').split(TOKEN_MARK).join(HF_PREFIX));
}

export function writeFile(name: string, content: unknown): string {
  const file = path.join(tempDir('review-plan-'), name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly report: string;
  /** stdout, stderr and the report together, for the canary checks. */
  readonly all: string;
}

/** `npm run review -- --from <dir> --out <dir>/report.md <args>` in-process. */
export function runCli(args: readonly string[], dir = synthesisDir(), synthesizeBase?: (repoDir: string, ref: string) => Synthesis): CliResult {
  const out = path.join(dir, 'report.md');
  let stdout = '';
  let stderr = '';
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  let code: number;
  try {
    code = main(['--from', dir, '--out', out, ...args], synthesizeBase);
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  const report = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
  return { code, stdout, stderr, report, all: stdout + stderr + report };
}

/** The canaries (or parts of them) found in `text`: each entry is a substring that must never be printed. */
export function leaked(text: string, canaries: readonly string[]): string[] {
  return canaries.filter((c) => text.includes(c));
}
