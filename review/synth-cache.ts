/**
 * `npm run review` synthesizes the working tree into `cdktf.out` (review/load.ts `synthesize`), about three quarters of
 * its CPU. When nothing the synthesis reads has changed since the last one there, that synthesis is reviewed again
 * instead: after each synthesis the review records a fingerprint of its inputs beside it (`review-inputs.txt`, with a
 * stamp of every file the synthesis wrote), and synthesizes again whenever the fingerprint of the inputs now differs,
 * anything in the folder changed (another command synthesized into it), the record is missing, or the synthesis failed.
 *
 * The fingerprint (sha256) covers, as a file's size, modification and change times (ns) and inode (any write changes
 * the change time, which no tool can set back):
 *   - the program: every file of dist/ (the compiled app), and node_modules/.package-lock.json (npm writes it on every
 *     install) beside package-lock.json;
 *   - every `.json` and `.py` file of the repository (the config files, config/example.json, the reward files,
 *     processors and templates a config names, which config/pipelines.ts accepts only inside the repository and of those
 *     kinds; package.json, cdktf.json), and every file under charts/ (the Kueue queues chart the infra stack copies);
 *     not node_modules/, .git/, dist/ (above), cdktf.out* (the syntheses), coverage/, reports/, .stryker-tmp/, .gen/;
 *   - the config file CONFIG_FILE names, and the lock LOCK_FILE names (post-training.lock.json is a repository file),
 *     wherever they are;
 *   - the environment: every variable but those npm sets for its scripts (`npm_*`, INIT_CWD, NODE, COLOR, EDITOR), the
 *     shell's bookkeeping (`_`, OLDPWD, PWD, SHLVL, COLUMNS, LINES) and the two synthesize() sets itself (CDKTF_OUTDIR,
 *     CHECKPOINT_DISABLE);
 *   - Node's version, platform and architecture, the outdir.
 * __tests__/review/synth-cache.test.ts traces the files a real synthesis opens and fails when one is not covered.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

/** Beside manifest.json: the fingerprint of the inputs of the synthesis in that folder. */
export const INPUTS_RECORD = 'review-inputs.txt';

const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'coverage', 'reports', '.stryker-tmp', '.gen']);
const SKIPPED_ENV = new Set(['INIT_CWD', 'NODE', 'COLOR', 'EDITOR', '_', 'OLDPWD', 'PWD', 'SHLVL', 'COLUMNS', 'LINES', 'CDKTF_OUTDIR', 'CHECKPOINT_DISABLE']);

/** A file's identity for the fingerprint: size, mtime, ctime (ns), inode; `-` when it is not there. */
function stamp(file: string): string {
  try {
    const s = fs.statSync(file, { bigint: true });
    return `${s.size} ${s.mtimeNs} ${s.ctimeNs} ${s.ino}`;
  } catch {
    return '-';
  }
}

/**
 * Files under `dir` (relative to `root`, `/`-separated) that `keep` selects; below the top, SKIPPED_DIRS and the
 * syntheses (`cdktf.out*`) are skipped when `skip` is set.
 */
function filesUnder(root: string, dir: string, keep: (rel: string) => boolean, skip: boolean, out: string[] = []): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!skip || (!SKIPPED_DIRS.has(e.name) && !e.name.startsWith('cdktf.out'))) filesUnder(root, rel, keep, skip, out);
    } else if (keep(rel)) out.push(rel);
  }
  return out;
}

/** The repository files the fingerprint covers (relative, sorted): see the module comment. */
export function inputFiles(repoDir: string): string[] {
  const repo = filesUnder(repoDir, '', (rel) => rel.endsWith('.json') || rel.endsWith('.py') || rel.startsWith('charts/'), true);
  const program = filesUnder(repoDir, 'dist', () => true, false);
  return [...repo, ...program, 'node_modules/.package-lock.json'].sort();
}

/** The fingerprint of what a synthesis of `repoDir` into `outdir` with `env` reads (see the module comment). */
export function inputsFingerprint(repoDir: string, outdir: string, env: NodeJS.ProcessEnv): string {
  const hash = createHash('sha256');
  const line = (...parts: string[]) => hash.update(`${parts.join('\0')}\n`);
  line('review-inputs 1', process.version, process.platform, process.arch, path.resolve(outdir));
  for (const name of Object.keys(env).sort()) {
    if (env[name] === undefined || SKIPPED_ENV.has(name) || name.toLowerCase().startsWith('npm_')) continue;
    line('env', name, env[name]!);
  }
  // The default config (config/example.json) is a repository file; CONFIG_FILE may name one anywhere.
  if (env.CONFIG_FILE) line('config', path.resolve(repoDir, env.CONFIG_FILE), stamp(path.resolve(repoDir, env.CONFIG_FILE)));
  if (env.LOCK_FILE) line('lock', path.resolve(repoDir, env.LOCK_FILE), stamp(path.resolve(repoDir, env.LOCK_FILE)));
  for (const rel of inputFiles(repoDir)) line('file', rel, stamp(path.join(repoDir, rel)));
  return hash.digest('hex');
}

/**
 * What `outdir` holds now: every file in it but the record, by path and stamp. Recorded with the fingerprint, so a
 * synthesis that another command wrote into the same folder afterwards (`npm run synth -- --output cdktf.out`, from
 * other inputs: SERVE set by scripts/cdktf.mjs, say), or anything changed there, is not taken for the recorded one.
 */
export function outputStamp(outdir: string): string {
  const hash = createHash('sha256');
  for (const rel of filesUnder(outdir, '', (r) => r !== INPUTS_RECORD, false).sort()) hash.update(`${rel}\0${stamp(path.join(outdir, rel))}\n`);
  return hash.digest('hex');
}

/** Whether `outdir` holds the synthesis recorded with `fingerprint`, unchanged since. */
export function upToDate(outdir: string, fingerprint: string): boolean {
  let record: string;
  try {
    record = fs.readFileSync(path.join(outdir, INPUTS_RECORD), 'utf8');
  } catch {
    return false;
  }
  return record === `${fingerprint}\n${outputStamp(outdir)}\n` && fs.existsSync(path.join(outdir, 'manifest.json'));
}

/**
 * Synthesizes `repoDir` into `outdir` with `synthesize`, unless the synthesis there has the inputs of now (then it is
 * kept: `reused`). The record is removed before a synthesis and written after one succeeds, with the fingerprint taken
 * before it started (an input changed while it ran makes the next review synthesize again) and the stamp of what it wrote.
 */
export function synthesizeIfChanged(
  repoDir: string,
  outdir: string,
  synthesize: (repoDir: string, outdir: string, env: NodeJS.ProcessEnv) => void,
  env: NodeJS.ProcessEnv = process.env,
): { reused: boolean } {
  const fingerprint = inputsFingerprint(repoDir, outdir, env);
  if (upToDate(outdir, fingerprint)) return { reused: true };
  fs.rmSync(path.join(outdir, INPUTS_RECORD), { force: true });
  synthesize(repoDir, outdir, env);
  fs.writeFileSync(path.join(outdir, INPUTS_RECORD), `${fingerprint}\n${outputStamp(outdir)}\n`);
  return { reused: false };
}
