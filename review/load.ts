/**
 * Reads a synthesized CDKTF app (`cdktf.out/manifest.json` + `stacks/<stack>/cdk.tf.json`), or produces one by
 * running the compiled app (`node dist/main.js`) with `CDKTF_OUTDIR`, which cdktf's `App` reads for its outdir.
 *
 * The only review module that touches the file system or spawns processes besides `diff.ts` (worktrees) and the CLI.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/** Standard Terraform JSON, as much of it as the review reads. */
export interface TerraformJson {
  readonly resource?: Record<string, Record<string, Record<string, unknown>>>;
  readonly data?: Record<string, Record<string, Record<string, unknown>>>;
  readonly output?: Record<string, Record<string, unknown>>;
  readonly terraform?: Record<string, unknown>;
  readonly [key: string]: unknown;
}

/** One synthesized stack. */
export interface SynthesizedStack {
  readonly name: string;
  /** Directory Terraform runs in (holds cdk.tf.json, assets, and after `cdktf diff` the `plan` file). */
  readonly dir: string;
  readonly json: TerraformJson;
  /** The file's text, for the secret scan (scanning text, not parsed values, catches keys in map keys too). */
  readonly text: string;
}

/** All stacks of one synthesis, in manifest order. */
export interface Synthesis {
  readonly outdir: string;
  readonly stacks: readonly SynthesizedStack[];
}

interface ManifestStack {
  readonly name?: string;
  readonly synthesizedStackPath?: string;
  readonly workingDirectory?: string;
}

/**
 * Reads `<outdir>/manifest.json` and every stack's Terraform JSON.
 *
 * @throws when the manifest is missing (run a synth first) or a stack file cannot be read.
 */
export function readSynthesis(outdir: string): Synthesis {
  const manifestPath = path.join(outdir, 'manifest.json');
  if (!fs.existsSync(manifestPath)) {
    throw new Error(`no synthesized app at ${outdir}: ${manifestPath} is missing (run \`npm run synth\` or drop --no-synth)`);
  }
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { stacks?: Record<string, ManifestStack> };
  const stacks = Object.entries(manifest.stacks ?? {}).map(([key, entry]) => {
    const name = entry.name ?? key;
    const relative = entry.synthesizedStackPath ?? path.join('stacks', name, 'cdk.tf.json');
    const text = fs.readFileSync(path.join(outdir, relative), 'utf8');
    const dir = path.join(outdir, entry.workingDirectory ?? path.dirname(relative));
    return { name, dir, json: JSON.parse(text) as TerraformJson, text };
  });
  return { outdir, stacks };
}

/** Builds a synthesis from in-memory Terraform JSON (tests, fixtures). */
export function synthesisFromJson(stacks: Record<string, TerraformJson>, outdir = '<memory>'): Synthesis {
  return {
    outdir,
    stacks: Object.entries(stacks).map(([name, json]) => ({
      name,
      dir: path.join(outdir, 'stacks', name),
      json,
      text: JSON.stringify(json, null, 2),
    })),
  };
}

/**
 * Node flags of every run of the compiled app (cdktf.json `app`, the npm scripts' `--check`, the review's synthesis):
 * cdktf 0.21.0 calls `util.isArray` (lib/terraform-output.js), which Node >= 22 deprecates at run time (DEP0044)
 * with a warning on stderr that the cdktf CLI shows as an `[ERROR]` line and that the user cannot act on.
 * Only that warning is silenced. __tests__/ci/node-versions.test.ts proves it and keeps the three places equal.
 */
export const APP_NODE_FLAGS: readonly string[] = ['--disable-warning=DEP0044'];

/**
 * Runs the compiled app (`node <repo>/dist/main.js`) with its outdir set to `outdir`.
 *
 * Offline: the app only evaluates TypeScript constructs; nothing here contacts a registry or a cloud.
 * @throws with the app's stderr when synthesis fails.
 */
export function synthesize(repoDir: string, outdir: string, env: NodeJS.ProcessEnv = process.env): void {
  const entry = path.join(repoDir, 'dist', 'main.js');
  if (!fs.existsSync(entry)) {
    throw new Error(`${entry} does not exist: build first (\`npm run build\`)`);
  }
  try {
    execFileSync(process.execPath, [...APP_NODE_FLAGS, entry], {
      cwd: repoDir,
      env: { ...env, CDKTF_OUTDIR: outdir, CHECKPOINT_DISABLE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 2 ** 20,
    });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
    throw new Error(`synthesis in ${repoDir} failed:\n${stderr.trim()}`);
  }
}
