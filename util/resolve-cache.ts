/**
 * A cache of where each `require` of the entry point's modules resolved, for the synth (util/compile-cache.ts installs
 * it, on every Node line). A synth loads ~530 modules through ~810 `require` calls; Node resolves each one anew on every
 * run (node v20.20 lib/internal/modules/cjs/loader.js `Module._resolveFilename`: the candidate files and folders stat'ed
 * one by one, package.json files read for `exports` and `main`, real paths): measured, ~14% of a synth's CPU. This keeps
 * the answers, one file per checkout and Node invocation, and serves them while nothing they depend on changed.
 *
 * What an answer depends on, and what is watched for it: resolving `request` from a module in folder D to file F looks
 * at candidates in D, in F's folder, in the folders between them and in their common ancestor (`./x` → `x.js`,
 * `x/index.js`; `pkg` → `D/node_modules`, `../node_modules`, ..., `pkg/package.json`). Each of those folders is watched
 * by its mtime (a file or folder added, removed or renamed in it changes it), and so is every package.json in one
 * (its `main` or `exports` edited in place). Any difference, or another Node version, platform, NODE_PATH or node
 * flags: the whole cache is dropped and written anew from Node's own answers. An answer that is not an absolute path
 * (a built-in module), a request with an absolute path (nothing to search), `require.resolve` with `paths`, and the
 * main module are never cached.
 *
 * The folder is the compile cache's (NODE_COMPILE_CACHE or `<tmp>/node-compile-cache`), used only if it is this
 * user's alone, as for the code cache: an answer read from it decides which file runs.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import nodeModule = require('module');
import * as os from 'os';
import * as path from 'path';

/** The part of Node's CommonJS loader this replaces (the same signature on Node 20, 22 and 24). */
interface Resolver {
  _resolveFilename(request: string, parent: { filename?: string | null } | null | undefined, isMain: boolean, options?: unknown): string;
}

/** The cache file's content. */
export interface ResolveRecord {
  /** `<folder of the requiring module>\0<request>` -> the file Node resolved it to. */
  readonly entries: Record<string, string>;
  /** Every watched folder and package.json -> its stamp when the entries were written. */
  readonly stamps: Record<string, string>;
}

/** The cache file for the modules installed by `owner` (this checkout's compile-cache.js) under this Node and its flags. */
export function resolveCacheFile(env: NodeJS.ProcessEnv = process.env, owner: string = __filename): string {
  const key = JSON.stringify([owner, process.version, process.platform, process.arch, nodeFlags(process.execArgv), env.NODE_PATH ?? '']);
  const root = env.NODE_COMPILE_CACHE || path.join(os.tmpdir(), 'node-compile-cache');
  return path.join(root, 'tpt-resolve', `${crypto.createHash('sha1').update(key).digest('hex')}.json`);
}

/** The flags whose next argument is code (`node -e|-p <code>`: the bench's and the tests' children), which resolves nothing. */
const CODE_FLAGS = ['-e', '--eval', '-p', '--print'];

/** Node's flags without those flags and their code. */
function nodeFlags(execArgv: readonly string[]): string[] {
  return execArgv.filter((a, i) => !CODE_FLAGS.includes(a) && !CODE_FLAGS.includes(execArgv[i - 1] ?? ''));
}

/** A path's stamp: mtime and size, '' when it is not there. */
function stampOf(p: string): string {
  const s = fs.statSync(p, { throwIfNoEntry: false });
  return s === undefined ? '' : `${s.mtimeMs} ${s.size}`;
}

/** Folders from `dir` up to `top` (both included); `top` is an ancestor of `dir` or `dir` itself. */
function foldersUpTo(dir: string, top: string): string[] {
  const out = [dir];
  for (let d = dir; d !== top && path.dirname(d) !== d; ) out.push((d = path.dirname(d)));
  return out;
}

/** The deepest folder both `a` and `b` are in. */
function commonFolder(a: string, b: string): string {
  let c = a;
  while (c !== b && !b.startsWith(c.endsWith(path.sep) ? c : c + path.sep) && path.dirname(c) !== c) c = path.dirname(c);
  return c;
}

/** What the entries depend on (module doc): each folder between a requiring folder and its answer, their package.json files. */
export function watchedPaths(entries: Record<string, string>): string[] {
  const folders = new Set<string>();
  for (const [key, file] of Object.entries(entries)) {
    const from = key.slice(0, key.indexOf('\0'));
    const to = path.dirname(file);
    const top = commonFolder(from, to);
    for (const d of [...foldersUpTo(from, top), ...foldersUpTo(to, top)]) folders.add(d);
  }
  const packages = [...folders].map((d) => path.join(d, 'package.json')).filter((p) => fs.existsSync(p));
  return [...folders, ...packages].sort();
}

/** The entries of a cache file whose every watched path still has its stamp; none otherwise. */
export function readResolveCache(file: string): Record<string, string> {
  try {
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as ResolveRecord;
    for (const [p, stamp] of Object.entries(record.stamps)) if (stampOf(p) !== stamp) return {};
    return record.entries;
  } catch {
    return {};
  }
}

function writeResolveCache(file: string, entries: Record<string, string>): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const stamps = Object.fromEntries(watchedPaths(entries).map((p) => [p, stampOf(p)]));
    // Written beside and renamed: a synth running at the same time reads a whole file or none.
    const temp = `${file}.${process.pid}`;
    fs.writeFileSync(temp, JSON.stringify({ entries, stamps } satisfies ResolveRecord));
    fs.renameSync(temp, file);
  } catch {
    // A read-only or full temp folder: the next synth resolves as Node does, nothing else changes.
  }
}

/**
 * Serves `require` resolutions from `file` while its watched paths are unchanged; at exit writes the cache anew when a
 * request missed it (Node's own answer is used and kept). `usable(folder)` says whether the cache folder may be used.
 */
export function installResolveCache(file: string, usable: (folder: string) => boolean): void {
  if (!usable(path.dirname(file))) return;
  const Module = nodeModule as unknown as Resolver;
  const original = Module._resolveFilename;
  const entries: Record<string, string> = readResolveCache(file);
  let missed = false;
  Module._resolveFilename = function resolveCached(request, parent, isMain, options) {
    const from = parent?.filename;
    if (isMain || options !== undefined || typeof from !== 'string' || !path.isAbsolute(from) || path.isAbsolute(request)) {
      return original.call(this, request, parent, isMain, options);
    }
    const key = `${path.dirname(from)}\0${request}`;
    const hit = entries[key];
    if (hit !== undefined) return hit;
    const found = original.call(this, request, parent, isMain, options);
    if (path.isAbsolute(found)) {
      entries[key] = found;
      missed = true;
    }
    return found;
  };
  process.once('exit', () => {
    if (missed) writeResolveCache(file, entries);
  });
}
