// `npm run test:cdktn`: keeps the way out of the archived cdktf line true (docs/development.md, "Leaving cdktf 0.21").
// cdktf 0.21 and @cdktf/provider-* are the last releases of an archived line; the maintained fork cdktn installs under
// the name `cdktf` (an npm alias) and, with the SAME prebuilt provider packages, synthesizes the same JSON. This script
// does what the docs tell a user to do, in a temporary copy of the program:
//   1. package.json: `cdktf` -> `npm:cdktn@CDKTN`, `constructs` -> CONSTRUCTS (cdktn's peer range), npm `overrides` so
//      the provider packages (peer cdktf ^0.21, constructs ^10.4) take the alias too; `npm install` (the npm registry
//      is all it needs);
//   2. build the sources against it with the project's tsconfig (the program type-checks on cdktn's declarations);
//   3. synthesize every stack of each configuration below through the alias and through this checkout's cdktf, and
//      compare every stack's JSON: equal apart from the `//.metadata.version` (the library's version) and the
//      checkout's own path. Exit 1 on a difference, naming each stack and JSON path that differs.
// Usage: node scripts/cdktn-exit.mjs (after npm ci; .ci/run runs it).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The fork's release the docs name; `npm view cdktn versions` lists the others. */
export const CDKTN = '0.24.0';
/** The constructs release inside cdktn 0.24.0's peer range (>=10.6.0 <10.8.0). */
export const CONSTRUCTS = '10.6.0';
/** The program's own files a build and a synth read (sources, charts, the example config, tsconfig, cdktf.json). */
const COPIED = ['main.ts', 'util', 'config', 'constructs', 'stacks', 'jobs', 'review', 'status', 'bench', 'charts', 'tsconfig.json', 'tsconfig.build.json', 'cdktf.json'];
/** Configurations compared: the example, every stack of it (the single-host slice), and a serve stack. */
const CONFIGS = [
  { label: 'example', env: {} },
  { label: 'example + single-host slice + serve stack', env: { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation', SERVE: 'rl-qwen3' } },
];

function sh(cmd, args, options) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r.stdout;
}

/** The checkout's package.json with cdktf as the cdktn alias; dev tools only what the build needs. */
export function aliasedPackage(pkg, lockVersions) {
  return {
    name: `${pkg.name}-cdktn`,
    private: true,
    dependencies: { ...pkg.dependencies, cdktf: `npm:cdktn@${CDKTN}`, constructs: CONSTRUCTS },
    devDependencies: Object.fromEntries(['typescript', '@types/node', 'yaml'].map((d) => [d, lockVersions[d] ?? pkg.devDependencies[d]])),
    overrides: { cdktf: '$cdktf', constructs: '$constructs' },
  };
}

/**
 * `outdir`'s stacks as { stack: JSON }, the metadata version dropped, a local backend's path (relative to the stack's
 * folder) made absolute, and `root` written as `<root>`.
 */
function stacksOf(outdir, root) {
  const out = {};
  for (const stack of fs.readdirSync(path.join(outdir, 'stacks')).sort()) {
    const json = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', stack, 'cdk.tf.json'), 'utf8'));
    if (json['//']?.metadata) delete json['//'].metadata.version;
    const local = json.terraform?.backend?.local;
    if (local?.path) local.path = path.resolve(outdir, 'stacks', stack, local.path);
    out[stack] = JSON.parse(JSON.stringify(json).split(root).join('<root>'));
  }
  return out;
}

/** Every JSON path where `a` and `b` differ (at most `max`). */
export function differences(a, b, at = '', out = [], max = 20) {
  if (out.length >= max) return out;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) differences(a[k], b[k], `${at}${Array.isArray(a) ? `[${k}]` : `.${k}`}`, out, max);
  } else if (JSON.stringify(a) !== JSON.stringify(b)) {
    out.push(`${at || '.'}: ${JSON.stringify(a)?.slice(0, 120)} vs ${JSON.stringify(b)?.slice(0, 120)}`);
  }
  return out;
}

function synth(root, env, outdir) {
  sh(process.execPath, ['--disable-warning=DEP0044', path.join(root, 'dist', 'main.js')], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, CDKTF_OUTDIR: outdir },
  });
  return stacksOf(outdir, root);
}

function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-cdktn-'));
  try {
    for (const f of COPIED) fs.cpSync(path.join(ROOT, f), path.join(work, f), { recursive: true });
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
    const lockVersions = Object.fromEntries(['typescript', '@types/node', 'yaml'].map((d) => [d, lock.packages?.[`node_modules/${d}`]?.version]));
    fs.writeFileSync(path.join(work, 'package.json'), JSON.stringify(aliasedPackage(pkg, lockVersions), null, 2));
    sh('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: work });
    const installed = JSON.parse(fs.readFileSync(path.join(work, 'node_modules', 'cdktf', 'package.json'), 'utf8'));
    console.log(`cdktn: node_modules/cdktf is ${installed.name}@${installed.version}; building the program against it`);
    sh(process.execPath, [path.join(work, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: work });
    if (!fs.existsSync(path.join(ROOT, 'dist', 'main.js'))) sh('npm', ['run', 'build', '--silent'], { cwd: ROOT });
    let failed = false;
    for (const [i, { label, env }] of CONFIGS.entries()) {
      const theirs = synth(work, env, path.join(work, `out-cdktn-${i}`));
      const ours = synth(ROOT, env, path.join(work, `out-cdktf-${i}`));
      const names = [...new Set([...Object.keys(ours), ...Object.keys(theirs)])];
      const diffs = names.flatMap((s) => differences(ours[s], theirs[s]).map((d) => `${s}${d}`));
      console.log(`cdktn: ${label}: ${names.length} stacks (${names.join(', ')}): ${diffs.length === 0 ? 'the same JSON' : `${diffs.length} difference(s)`}`);
      for (const d of diffs) console.log(`  ${d}`);
      failed ||= diffs.length > 0 || names.length === 0;
    }
    return failed ? 1 : 0;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(main());
