/**
 * A compile cache for the entry point that imports this first (main.ts), so a synth after the first no longer compiles
 * cdktf and the ~12 MB of provider modules again, on every Node line:
 *
 * - V8's code cache by hand, as the v8-compile-cache package did for older lines: each CommonJS module is compiled with
 *   `vm.Script` and the V8 code cache kept for its file (`installCodeCache` below). The cache is taken at exit, after
 *   the module ran (`script.createCachedData()`), so it holds the functions the synth called too, not only the top
 *   level: measured on this app, about twice what a cache taken at compile time saves.
 * - Not Node's own `module.enableCompileCache()` (22.1+): it keeps the code V8 gives right after a module is compiled
 *   (nodejs/node src/compile_cache.cc `MaybeSave`, read at d24228bb: the function serialized when compiled, written at
 *   exit by `Persist`), i.e. the top level and what V8 compiled eagerly; every other function a synth calls is compiled
 *   again on each run.
 *   Measured (interleaved, 15 runs each, example synth): Node 22.23.5 2.01x the floor with Node's, 1.81x with this;
 *   Node 24.22.3 1.62x and 1.57x.
 * - Where each `require` resolved (util/resolve-cache.ts), served while the folders it depends on are unchanged.
 *
 * NODE_DISABLE_COMPILE_CACHE=1 turns both off (Node's own variable, kept for every cache here).
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import nodeModule = require('module');
import * as os from 'os';
import * as path from 'path';
import * as vm from 'vm';
import { installResolveCache, resolveCacheFile } from './resolve-cache';

/** The parts of Node's CommonJS loader the cache replaces (node v20.20 lib/internal/modules/cjs/loader.js; the same on 22 and 24). */
interface CjsModule {
  exports: unknown;
  require(id: string): unknown;
  _compile(content: string, filename: string, format?: string): unknown;
}
interface CjsLoader {
  prototype: CjsModule;
  wrap(content: string): string;
  _resolveFilename(request: string, parent: CjsModule, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: CjsModule): string[] | null;
  _extensions: unknown;
  _cache: unknown;
}

/** The cache's folder: Node's own default, one subfolder per V8 version and architecture (V8 refuses any other's). */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.NODE_COMPILE_CACHE || path.join(os.tmpdir(), 'node-compile-cache'), `tpt-v8-${process.versions.v8}-${process.arch}`);
}

/** The cache file of one module path; its first line is the source's size and mtime, so an edited file is compiled anew. */
export function codeCacheEntry(dir: string, filename: string): string {
  return path.join(dir, crypto.createHash('sha1').update(filename).digest('hex'));
}
const stampOf = (filename: string) => {
  const s = fs.statSync(filename);
  return `${s.size} ${s.mtimeMs}\n`;
};

function readEntry(file: string, stamp: string): Buffer | undefined {
  try {
    const data = fs.readFileSync(file);
    return data.subarray(0, stamp.length).toString('latin1') === stamp ? data.subarray(stamp.length) : undefined;
  } catch {
    return undefined;
  }
}

/** The `require` a CommonJS module gets (Node's makeRequireFunction, without policy redirects: this app sets none). */
function requireOf(Module: CjsLoader, mod: CjsModule): NodeJS.Require {
  const req = ((id: string) => mod.require(id)) as NodeJS.Require;
  const resolve = ((request: string, options?: unknown) => Module._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => Module._resolveLookupPaths(request, mod);
  req.resolve = resolve;
  req.main = require.main;
  req.extensions = Module._extensions as NodeJS.Require['extensions'];
  req.cache = Module._cache as NodeJS.Require['cache'];
  return req;
}

/**
 * Compiles each CommonJS module through `vm.Script` with its cached code, and at exit writes the cache of every
 * module that had none (or a stale or refused one). ES modules, and a `.js` file that is not CommonJS, keep Node's own
 * path. A cache that cannot be read or written is skipped: the module compiles as without it.
 */
export function installCodeCache(dir: string): void {
  if (!ownFolder(dir)) return;
  const Module = nodeModule as unknown as CjsLoader;
  const original = Module.prototype._compile;
  const pending: Array<readonly [vm.Script, string, string]> = [];
  Module.prototype._compile = function compileCached(this: CjsModule, content: string, filename: string, format?: string) {
    if (format === 'module' || !path.isAbsolute(filename)) return original.call(this, content, filename, format);
    let script: vm.Script;
    let file = '';
    let stamp = '';
    try {
      file = codeCacheEntry(dir, filename);
      stamp = stampOf(filename);
      const cachedData = readEntry(file, stamp);
      script = new vm.Script(Module.wrap(content), { filename, cachedData, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
      if (cachedData === undefined || script.cachedDataRejected === true) pending.push([script, file, stamp]);
    } catch {
      // ESM syntax in a `.js` without a package type (Node detects it), or a file that went away: Node's own path.
      return original.call(this, content, filename, format);
    }
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, requireOf(Module, this), this, filename, path.dirname(filename));
  };
  process.once('exit', () => writeEntries(dir, pending));
}

/**
 * Whether the cache folder is this user's alone, or not there yet: code read from the cache runs as this program, so a
 * folder another user owns or may write to (the default sits in the shared temp folder) is not used at all.
 */
export function ownFolder(dir: string): boolean {
  try {
    const s = fs.statSync(dir);
    return s.isDirectory() && (process.getuid === undefined || s.uid === process.getuid()) && (s.mode & 0o022) === 0;
  } catch {
    return true;
  }
}

function writeEntries(dir: string, pending: ReadonlyArray<readonly [vm.Script, string, string]>): void {
  if (pending.length === 0) return;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const [script, file, stamp] of pending) {
      // Written beside and renamed: a synth running at the same time reads a whole entry or none.
      const temp = `${file}.${process.pid}`;
      fs.writeFileSync(temp, Buffer.concat([Buffer.from(stamp, 'latin1'), script.createCachedData()]));
      fs.renameSync(temp, file);
    }
  } catch {
    // A read-only or full temp folder: the next synth compiles again, nothing else changes.
  }
}

if (!process.env.NODE_DISABLE_COMPILE_CACHE) {
  installCodeCache(codeCacheDir());
  // Where each require resolved (util/resolve-cache.ts), in a folder of the same rules.
  installResolveCache(resolveCacheFile(), ownFolder);
}
