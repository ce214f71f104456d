// `npm run status|logs` build step (and `npm run review`'s, scripts/review.mjs): runs `tsc -b tsconfig.build.json` only when something it reads is newer
// than its last build (dist/.tsbuildinfo.build): a source file or directory under tsconfig.build.json's `include`
// (a directory's time changes when a file is added or removed), a tsconfig, package.json or package-lock.json. A no-op
// `tsc -b` costs about 0.3 s of CPU (it loads the compiler and reads its build info); this check, a few ms of stat.
// After a build, the build info's time is set to now, so an edit that changed nothing is not built again.
// Exit status: tsc's when it runs, else 0.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG = 'tsconfig.build.json';
const BUILD_INFO = path.join(ROOT, 'dist', '.tsbuildinfo.build');

/** The newest modification time (ms) of `dir` and every directory and .ts file under it. */
function newest(dir) {
  let t = statSync(dir).mtimeMs;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(full));
    else if (e.name.endsWith('.ts')) t = Math.max(t, statSync(full).mtimeMs);
  }
  return t;
}

/** Whether anything the build reads is newer than the last build (or there is none). */
export function stale() {
  let built;
  try {
    built = statSync(BUILD_INFO).mtimeMs;
  } catch {
    return true;
  }
  const config = JSON.parse(readFileSync(path.join(ROOT, CONFIG), 'utf8'));
  const inputs = ['tsconfig.json', CONFIG, 'package.json', 'package-lock.json'].map((f) => statSync(path.join(ROOT, f)).mtimeMs);
  for (const pattern of config.include ?? []) {
    // "main.ts" or "<dir>/**/*.ts"
    const dir = pattern.replace(/\/\*\*\/\*\.ts$/, '');
    inputs.push(dir === pattern ? statSync(path.join(ROOT, pattern)).mtimeMs : newest(path.join(ROOT, dir)));
  }
  return Math.max(...inputs) >= built;
}

/** Builds when stale(); returns tsc's exit status, or 0 when there was nothing to build. */
export function buildIfStale() {
  if (!stale()) return 0;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-b', CONFIG], { cwd: ROOT, stdio: 'inherit' });
  if (r.status === 0) {
    const now = new Date();
    utimesSync(BUILD_INFO, now, now);
  }
  return r.status ?? 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = buildIfStale();
}
