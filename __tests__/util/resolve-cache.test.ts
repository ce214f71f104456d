/**
 * util/resolve-cache.ts, installed as the entry point installs it (dist/util/compile-cache.js, its first import): a
 * `require` is answered from the cache while nothing it depends on changed, and as Node answers it as soon as something
 * did: a file that shadows the cached one, a package.json edited in place, a nearer node_modules, a deleted file. Each
 * run gets its own cache folder (NODE_COMPILE_CACHE) and its own module tree in a temporary folder. No timing.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureDist } from '../dist';

const ROOT = path.join(__dirname, '..', '..');
const CACHE = path.join(ROOT, 'dist', 'util', 'compile-cache.js');
const RESOLVE_CACHE = path.join(ROOT, 'dist', 'util', 'resolve-cache.js');

beforeAll(ensureDist);

const tmp = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

/**
 * A module tree: app/main.js requires './lib/x' (lib/x/index.js), 'pkg' (node_modules/pkg, main a.js) and, from
 * app/lib/y.js, 'pkg' again. Each module exports its name.
 */
function tree(): string {
  const dir = tmp('tpt-rc-');
  write(path.join(dir, 'app', 'main.js'), "module.exports = [require('./lib/x'), require('pkg'), require('./lib/y')].join(' ');\n");
  write(path.join(dir, 'app', 'lib', 'x', 'index.js'), "module.exports = 'x/index';\n");
  write(path.join(dir, 'app', 'lib', 'y.js'), "module.exports = 'y:' + require('pkg');\n");
  write(path.join(dir, 'node_modules', 'pkg', 'package.json'), JSON.stringify({ name: 'pkg', main: 'a.js' }));
  write(path.join(dir, 'node_modules', 'pkg', 'a.js'), "module.exports = 'pkg/a';\n");
  write(path.join(dir, 'node_modules', 'pkg', 'b.js'), "module.exports = 'pkg/b';\n");
  return dir;
}

/** Loads the tree's main.js with the caches installed first; what it exports. */
function run(dir: string, cacheDir: string, env: Record<string, string> = {}): string {
  const code = `require(${JSON.stringify(CACHE)}); process.stdout.write(require(${JSON.stringify(path.join(dir, 'app', 'main.js'))}));`;
  const r = spawnSync(process.execPath, ['-e', code], { cwd: dir, env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: cacheDir, ...env }, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

/** The one resolution cache file under `cacheDir`, or undefined. */
function cacheFile(cacheDir: string): string | undefined {
  const dir = path.join(cacheDir, 'tpt-resolve');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  expect(files.length).toBeLessThanOrEqual(1);
  return files[0] === undefined ? undefined : path.join(dir, files[0]);
}

const entriesOf = (file: string) => (JSON.parse(fs.readFileSync(file, 'utf8')) as import('../../util/resolve-cache').ResolveRecord).entries;

test('the first run keeps every relative and package answer; the next run is served from the cache and writes nothing', () => {
  const dir = tree();
  const cacheDir = tmp('tpt-rc-cache-');
  expect(run(dir, cacheDir)).toBe('x/index pkg/a y:pkg/a');
  const file = cacheFile(cacheDir)!;
  const app = path.join(dir, 'app');
  expect(entriesOf(file)).toEqual({
    [`${app}\0./lib/x`]: path.join(app, 'lib', 'x', 'index.js'),
    [`${app}\0./lib/y`]: path.join(app, 'lib', 'y.js'),
    [`${app}\0pkg`]: path.join(dir, 'node_modules', 'pkg', 'a.js'),
    [`${path.join(app, 'lib')}\0pkg`]: path.join(dir, 'node_modules', 'pkg', 'a.js'),
  });
  // Served from the cache: an answer changed in the file (its stamps kept) is what the next run loads, and a run whose
  // every request hit writes nothing.
  const record = JSON.parse(fs.readFileSync(file, 'utf8'));
  record.entries[`${app}\0pkg`] = path.join(dir, 'node_modules', 'pkg', 'b.js');
  const tampered = JSON.stringify(record);
  fs.writeFileSync(file, tampered);
  expect(run(dir, cacheDir)).toBe('x/index pkg/b y:pkg/a');
  expect(fs.readFileSync(file, 'utf8')).toBe(tampered);
});

test.each([
  ['a file that shadows the cached one (lib/x.js before lib/x/index.js)', (dir: string) => write(path.join(dir, 'app', 'lib', 'x.js'), "module.exports = 'x.js';\n"), 'x.js pkg/a y:pkg/a'],
  ['a package.json whose main is edited in place', (dir: string) => fs.writeFileSync(path.join(dir, 'node_modules', 'pkg', 'package.json'), JSON.stringify({ name: 'pkg', main: 'b.js' })), 'x/index pkg/b y:pkg/b'],
  ['a nearer node_modules', (dir: string) => write(path.join(dir, 'app', 'lib', 'node_modules', 'pkg', 'index.js'), "module.exports = 'near';\n"), 'x/index pkg/a y:near'],
  ['a deleted file (lib/x/index.js, with lib/x/index.json beside it)', (dir: string) => {
    fs.rmSync(path.join(dir, 'app', 'lib', 'x', 'index.js'));
    write(path.join(dir, 'app', 'lib', 'x', 'index.json'), '"x/index.json"');
  }, 'x/index.json pkg/a y:pkg/a'],
])('%s: the next run takes Node\'s answer and keeps it', (_label, change, expected) => {
  const dir = tree();
  const cacheDir = tmp('tpt-rc-cache-');
  expect(run(dir, cacheDir)).toBe('x/index pkg/a y:pkg/a');
  change(dir);
  expect(run(dir, cacheDir)).toBe(expected);
  expect(run(dir, cacheDir)).toBe(expected);
  expect(run(dir, cacheDir, { NODE_DISABLE_COMPILE_CACHE: '1' })).toBe(expected);
});

test('another Node invocation (flags, NODE_PATH) has its own file; NODE_DISABLE_COMPILE_CACHE=1 writes none', () => {
  const { resolveCacheFile } = require(RESOLVE_CACHE) as typeof import('../../util/resolve-cache');
  const env = { NODE_COMPILE_CACHE: '/cache' };
  expect(path.dirname(resolveCacheFile(env))).toBe(path.join('/cache', 'tpt-resolve'));
  expect(resolveCacheFile({ ...env, NODE_PATH: '/elsewhere' })).not.toBe(resolveCacheFile(env));
  expect(resolveCacheFile(env, '/other/checkout/dist/util/resolve-cache.js')).not.toBe(resolveCacheFile(env));
  const cacheDir = tmp('tpt-rc-cache-');
  expect(run(tree(), cacheDir, { NODE_DISABLE_COMPILE_CACHE: '1' })).toBe('x/index pkg/a y:pkg/a');
  expect(cacheFile(cacheDir)).toBeUndefined();
});

test('a cache folder another user could write to is not used: nothing read from it, nothing written', () => {
  const dir = tree();
  const cacheDir = tmp('tpt-rc-cache-');
  const folder = path.join(cacheDir, 'tpt-resolve');
  fs.mkdirSync(folder, { mode: 0o777 });
  fs.chmodSync(folder, 0o777);
  expect(run(dir, cacheDir)).toBe('x/index pkg/a y:pkg/a');
  expect(fs.readdirSync(folder)).toEqual([]);
  fs.chmodSync(folder, 0o700);
  expect(run(dir, cacheDir)).toBe('x/index pkg/a y:pkg/a');
  expect(fs.readdirSync(folder).length).toBe(1);
});

test('watched: every folder between a requiring folder and its answer, their common folder and its package.json files', () => {
  const { watchedPaths } = require(RESOLVE_CACHE) as typeof import('../../util/resolve-cache');
  const dir = tree();
  const app = path.join(dir, 'app');
  const pkg = path.join(dir, 'node_modules', 'pkg');
  expect(watchedPaths({ [`${path.join(app, 'lib')}\0pkg`]: path.join(pkg, 'a.js'), [`${app}\0./lib/x`]: path.join(app, 'lib', 'x', 'index.js') })).toEqual(
    [dir, app, path.join(app, 'lib'), path.join(app, 'lib', 'x'), path.join(dir, 'node_modules'), pkg, path.join(pkg, 'package.json')].sort(),
  );
});
