#!/usr/bin/env node
/**
 * Entry point of `npm run review`: brings dist/ up to date, then runs dist/review/cli.js in this process.
 *
 * Why not `npm run build && node dist/review/cli.js`: even a no-op incremental `tsc` spends ~3 s on this 2-core
 * machine parsing the provider type definitions, which alone is the review's whole time budget. Here only the
 * TypeScript sources newer than their compiled output are transpiled (type-check free, as jest's ts-jest does;
 * `npm test` type-checks), and nothing at all when dist/ is current. Plain JS so it runs before any build.
 */
'use strict';
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const TSCONFIG = path.join(ROOT, fs.existsSync(path.join(ROOT, 'tsconfig.build.json')) ? 'tsconfig.build.json' : 'tsconfig.json');

/** The tsconfig's `include` list, following `extends` when the file has none. */
function includes(file) {
  const config = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (config.include) return config.include;
  return config.extends ? includes(path.resolve(path.dirname(file), config.extends)) : ['**/*.ts'];
}

function walk(dir, out) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else out.push(full);
  }
  return out;
}

/** Source files (.ts, and .json modules next to them) the build includes. Patterns: `file.ts` or `dir/**\/*.ts`. */
function sources() {
  const files = [];
  for (const pattern of includes(TSCONFIG)) {
    const recursive = /^(.*)\/\*\*\/\*\.ts$/.exec(pattern);
    if (recursive) files.push(...walk(path.join(ROOT, recursive[1]), []));
    else if (fs.existsSync(path.join(ROOT, pattern))) files.push(path.join(ROOT, pattern));
  }
  return files.filter((f) => (f.endsWith('.ts') && !f.endsWith('.d.ts')) || (f.endsWith('.json') && !/tsconfig|package/.test(path.basename(f))));
}

function outputOf(file) {
  return path.join(ROOT, 'dist', path.relative(ROOT, file).replace(/\.ts$/, '.js'));
}

function isStale(file) {
  const out = outputOf(file);
  return !fs.existsSync(out) || fs.statSync(out).mtimeMs < fs.statSync(file).mtimeMs;
}

/** Transpiles (or copies, for JSON) every stale source; returns how many were refreshed. */
function refresh() {
  const stale = sources().filter(isStale);
  if (stale.length === 0) return 0;
  const ts = require('typescript');
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(TSCONFIG, ts.sys.readFile).config, ts.sys, ROOT);
  const options = { ...parsed.options, noEmit: false, declaration: false, sourceMap: false, incremental: false };
  for (const file of stale) {
    const out = outputOf(file);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    if (file.endsWith('.json')) {
      fs.copyFileSync(file, out);
    } else {
      const result = ts.transpileModule(fs.readFileSync(file, 'utf8'), { compilerOptions: options, fileName: file });
      fs.writeFileSync(out, result.outputText);
    }
  }
  return stale.length;
}

if (require.main === module) {
  const refreshed = refresh();
  if (refreshed > 0 && process.env.REVIEW_VERBOSE) process.stderr.write(`review: transpiled ${refreshed} file(s) into dist/\n`);
  const { main } = require(path.join(ROOT, 'dist', 'review', 'cli.js'));
  process.exitCode = main(process.argv.slice(2));
}

module.exports = { refresh, sources, isStale };
