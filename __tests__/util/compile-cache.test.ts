/**
 * util/compile-cache.ts, as the entry point uses it (the first import of dist/main.js): its own V8 code cache on every
 * Node line (one entry per module, taken after the module ran; not Node's `module.enableCompileCache()`). Each run
 * here gets its own cache folder (NODE_COMPILE_CACHE). No timing: what is checked is what is cached, that a second
 * synth takes every entry (writes none), that the output is the same, and that an edited file is never served stale.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { APP_NODE_FLAGS } from '../../review/load';
import { ensureDist } from '../dist';

const ROOT = path.join(__dirname, '..', '..');
const MAIN = path.join(ROOT, 'dist', 'main.js');
const CACHE = path.join(ROOT, 'dist', 'util', 'compile-cache.js');

beforeAll(ensureDist);

const tmp = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** `node -e code` with the app's node flags (cdktf.json), only PATH and `env`; the modules it loaded from files, from require.cache at exit. */
function node(code: string, env: Record<string, string>) {
  const report = `process.on('exit', () => process.stderr.write('\\nMODULES ' + JSON.stringify(Object.keys(require.cache))));`;
  const r = spawnSync(process.execPath, [...APP_NODE_FLAGS, '-e', `${report}${code}`], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  expect(r.stderr.replace(/\nMODULES .*\n?$/, '')).toBe('');
  expect(r.status).toBe(0);
  return { stdout: r.stdout, loaded: JSON.parse(/MODULES (.*)/.exec(r.stderr)![1]!) as string[] };
}

/** Every file under `dir` with its mtime. */
function listing(dir: string): Record<string, number> {
  if (!fs.existsSync(dir)) return {};
  const out: Record<string, number> = {};
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const p = path.join(dir, f);
    if (fs.statSync(p).isFile()) out[f] = fs.statSync(p).mtimeMs;
  }
  return out;
}

const synth = (cacheDir: string, outdir: string, extra: Record<string, string> = {}) =>
  node(`require(${JSON.stringify(MAIN)})`, { NODE_COMPILE_CACHE: cacheDir, CDKTF_OUTDIR: outdir, ...extra });

const stacksOf = (outdir: string) =>
  Object.fromEntries(fs.readdirSync(path.join(outdir, 'stacks')).map((s) => [s, fs.readFileSync(path.join(outdir, 'stacks', s, 'cdk.tf.json'), 'utf8')]));

test('a synth caches every module it loads; the next synth takes every entry (writes none) and writes the same stacks as a synth without the cache', () => {
  const cacheDir = tmp('tpt-cc-');
  const outs = [tmp('tpt-cc-out-'), tmp('tpt-cc-out-'), tmp('tpt-cc-out-')];
  const first = synth(cacheDir, outs[0]!);
  const afterFirst = listing(cacheDir);
  const second = synth(cacheDir, outs[1]!);
  expect(listing(cacheDir)).toEqual(afterFirst);
  const uncached = tmp('tpt-cc-off-');
  synth(uncached, outs[2]!, { NODE_DISABLE_COMPILE_CACHE: '1' });
  expect(listing(uncached)).toEqual({});
  expect(stacksOf(outs[1]!)).toEqual(stacksOf(outs[2]!));
  expect(second.loaded).toEqual(first.loaded);
  // The resolution cache (util/resolve-cache.ts, its own test) sits beside the code cache: one file. On Node 22+ the
  // variable NODE_COMPILE_CACHE also turns Node's own cache on, for the modules loaded before this one was installed.
  expect(Object.keys(afterFirst).filter((e) => e.startsWith(`tpt-resolve${path.sep}`)).length).toBe(1);
  const entries = Object.keys(afterFirst).filter((e) => e.startsWith('tpt-v8-'));
  // One entry per JavaScript module loaded after the cache was installed (not main.js, compile-cache.js and the
  // resolve-cache.js it imports; a JSON file is parsed, not compiled), on every Node line: none in Node's own layout.
  const { codeCacheDir, codeCacheEntry } = require(CACHE) as typeof import('../../util/compile-cache');
  const dir = codeCacheDir({ NODE_COMPILE_CACHE: cacheDir });
  const before = [MAIN, CACHE, path.join(ROOT, 'dist', 'util', 'resolve-cache.js')];
  const expected = first.loaded.filter((m) => !before.includes(m) && !m.endsWith('.json')).map((m) => path.relative(cacheDir, codeCacheEntry(dir, m)));
  expect(expected.length).toBeGreaterThan(400);
  expect(entries.sort()).toEqual([...new Set(expected)].sort());
});

test('an edited module is compiled anew, never served from the entry of its old text (same length, later mtime)', () => {
  const cacheDir = tmp('tpt-cc-');
  const dir = tmp('tpt-cc-mod-');
  const mod = path.join(dir, 'm.js');
  const run = () => node(`require(${JSON.stringify(CACHE)}); process.stdout.write(require(${JSON.stringify(mod)}).word)`, { NODE_COMPILE_CACHE: cacheDir }).stdout;
  // Whole seconds, so both stamps have the same length (a V8 cache of the old text is accepted for the new one).
  fs.writeFileSync(mod, "exports.word = 'one';\n");
  fs.utimesSync(mod, 1_700_000_000, 1_700_000_000);
  expect(run()).toBe('one');
  expect(run()).toBe('one');
  expect(Object.keys(listing(cacheDir)).length).toBeGreaterThan(0);
  fs.writeFileSync(mod, "exports.word = 'two';\n");
  fs.utimesSync(mod, 1_700_000_100, 1_700_000_100);
  expect(run()).toBe('two');
  expect(run()).toBe('two');
});

test('a module that throws, and one that requires relative paths, behave as without the cache (require, resolve, __dirname)', () => {
  const cacheDir = tmp('tpt-cc-');
  const dir = tmp('tpt-cc-mod-');
  fs.writeFileSync(path.join(dir, 'a.js'), "exports.dir = __dirname; exports.b = require('./b').value; exports.resolved = require.resolve('./b'); exports.main = require.main === undefined;\n");
  fs.writeFileSync(path.join(dir, 'b.js'), 'exports.value = 42;\n');
  fs.writeFileSync(path.join(dir, 'bad.js'), "throw new Error('bad module');\n");
  const code = `require(${JSON.stringify(CACHE)}); const a = require(${JSON.stringify(path.join(dir, 'a.js'))}); let err = ''; try { require(${JSON.stringify(path.join(dir, 'bad.js'))}); } catch (e) { err = e.message + ' ' + e.stack.includes('bad.js:1'); } process.stdout.write(JSON.stringify({ ...a, err }));`;
  for (const env of [{}, { NODE_DISABLE_COMPILE_CACHE: '1' }, {}] as Array<Record<string, string>>) {
    expect(JSON.parse(node(code, { NODE_COMPILE_CACHE: cacheDir, ...env }).stdout)).toEqual({ dir, b: 42, resolved: path.join(dir, 'b.js'), main: true, err: 'bad module true' });
  }
});

test('a cache folder another user could write to is not used: nothing read from it, nothing written', () => {
  const cacheDir = tmp('tpt-cc-');
  const { codeCacheDir, ownFolder } = require(CACHE) as typeof import('../../util/compile-cache');
  const dir = codeCacheDir({ NODE_COMPILE_CACHE: cacheDir });
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o777);
  expect(ownFolder(dir)).toBe(false);
  const mod = path.join(tmp('tpt-cc-mod-'), 'm.js');
  fs.writeFileSync(mod, "exports.word = 'one';\n");
  const code = `require(${JSON.stringify(CACHE)}); process.stdout.write(require(${JSON.stringify(mod)}).word)`;
  expect(node(code, { NODE_COMPILE_CACHE: cacheDir }).stdout).toBe('one');
  expect(fs.readdirSync(dir)).toEqual([]);
  fs.chmodSync(dir, 0o700);
  expect(ownFolder(dir)).toBe(true);
  expect(node(code, { NODE_COMPILE_CACHE: cacheDir }).stdout).toBe('one');
  expect(fs.readdirSync(dir).length).toBeGreaterThan(0);
});
