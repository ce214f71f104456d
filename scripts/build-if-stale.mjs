// The one build step of every `npm run` command (build, synth, diff, deploy, destroy, bench, review, status, logs,
// workflows-ui): runs `tsc -p tsconfig.build.json` only when the CONTENT of what it compiles changed since its last
// successful build: every .ts and .json file under tsconfig.build.json's `include` (a .json a source imports is
// compiled into dist/ too: `resolveJsonModule`), the two tsconfigs, package.json and package-lock.json (a dependency's
// types). Their SHA-256, path by path, is kept in dist/.build-hash after a build that succeeded; a file whose time moved
// and whose bytes did not builds nothing, and a same-size edit with its time kept back builds (what a time check missed).
// Hashing the ~300 inputs costs a few ms of CPU; a tsc start that finds nothing to do, ~0.3 s (`tsc -b`) to ~9 s (`tsc -p`).
// Public APIs only: node:crypto, node:fs, and tsc's command line (typescript/bin/tsc, the package's own bin).
//
// Also exported: `enableCompileCache()`, Node's own compile cache (`module.enableCompileCache`, Node >= 22.1; a no-op
// before) in dist/.node-compile-cache, for the runners that load the compiled program in their own process
// (scripts/synth.mjs, scripts/review.mjs, scripts/status.mjs). Node keys each entry on a hash of the module's source
// (node src/compile_cache.cc), and the folder is the build's own, not the shared temporary folder.
// Exit status when run: tsc's when it runs, else 0.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG = 'tsconfig.build.json';
const HASH_FILE = path.join(ROOT, 'dist', '.build-hash');
/** What the build reads besides the sources (relative to the root). */
const SETTINGS = ['tsconfig.json', CONFIG, 'package.json', 'package-lock.json'];

/** Every .ts and .json file under `dir` (relative to the root), skipping node_modules. */
function sources(dir, into) {
  for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') sources(rel, into);
    } else if (e.name.endsWith('.ts') || e.name.endsWith('.json')) into.push(rel);
  }
  return into;
}

/** The files the build reads, sorted: the settings, then every source under the build config's `include`. */
export function inputs() {
  const config = JSON.parse(readFileSync(path.join(ROOT, CONFIG), 'utf8'));
  const files = [];
  for (const pattern of config.include ?? []) {
    // "main.ts" or "<dir>/**/*.ts"
    const dir = pattern.replace(/\/\*\*\/\*\.ts$/, '');
    if (dir === pattern) files.push(pattern);
    else if (existsSync(path.join(ROOT, dir))) sources(dir, files);
  }
  return [...SETTINGS, ...[...new Set(files)].sort()];
}

/** SHA-256 of every input's path and bytes, in order. */
export function inputsHash() {
  const hash = createHash('sha256');
  for (const file of inputs()) hash.update(`${file}\0`).update(readFileSync(path.join(ROOT, file))).update('\0');
  return hash.digest('hex');
}

/** Whether the inputs differ from those of the last successful build (or there is none). */
export function stale(hash = inputsHash()) {
  if (!existsSync(path.join(ROOT, 'dist', 'main.js'))) return true;
  try {
    return readFileSync(HASH_FILE, 'utf8').trim() !== hash;
  } catch {
    return true;
  }
}

/** Builds when the inputs changed; returns tsc's exit status, or 0 when there was nothing to build. */
export function buildIfStale() {
  const hash = inputsHash();
  if (!stale(hash)) return 0;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', CONFIG], { cwd: ROOT, stdio: 'inherit' });
  // The hash of what was read before tsc ran: an edit made during the build builds again next time.
  if (r.status === 0) {
    mkdirSync(path.dirname(HASH_FILE), { recursive: true });
    writeFileSync(HASH_FILE, `${hash}\n`);
  }
  return r.status ?? 1;
}

/** Node's own compile cache for what this process loads next (Node >= 22.1; nothing before). */
export function enableCompileCache() {
  const { enableCompileCache: enable } = createRequire(import.meta.url)('node:module');
  if (typeof enable === 'function') enable(path.join(ROOT, 'dist', '.node-compile-cache'));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = buildIfStale();
}
