/**
 * review/synth-cache.ts: `npm run review` reviews the synthesis in cdktf.out again only when nothing it was made from
 * changed. Never stale: a changed config file (the default one, or CONFIG_FILE's outside the repository), environment
 * variable, compiled program, installed dependencies, reward file or chart synthesizes again, and so does a synthesis
 * that failed. The cases run a stand-in app (dist/main.js of a temporary repository) through the real synthesize();
 * the last traces every file the real app opens while it synthesizes and checks the fingerprint covers it.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { synthesize } from '../../review/load';
import { parseArgs, run } from '../../review/cli';
import { INPUTS_RECORD, inputFiles, synthesizeIfChanged } from '../../review/synth-cache';
import { ensureDist } from '../dist';

const ROOT = path.resolve(__dirname, '..', '..');

/** A stand-in app: writes a manifest and counts its runs in the outdir; exits 1 when its config says `fail`. */
const APP = `
const fs = require('fs'), path = require('path');
const out = process.env.CDKTF_OUTDIR;
const config = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', process.env.CONFIG_FILE || 'config/example.json'), 'utf8'));
if (config.fail) { process.stderr.write('config says fail'); process.exit(1); }
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, 'manifest.json'), JSON.stringify({ stacks: {} }));
fs.appendFileSync(path.join(out, 'runs'), 'x');
`;

function tempRepo(): string {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-cache-'));
  for (const [rel, text] of Object.entries({
    'package.json': '{}',
    'config/example.json': '{"project": "a"}',
    'charts/kueue-queues/values.yaml': 'a: 1\n',
    'dist/main.js': APP,
    'node_modules/.package-lock.json': '{}',
  })) {
    fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    fs.writeFileSync(path.join(repo, rel), text);
  }
  return repo;
}

describe('a synthesis is reused only while its inputs are unchanged', () => {
  let repo: string;
  let outdir: string;
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
  /** Whether the next review reuses the synthesis, and how often the app ran in all. */
  const review = (e: NodeJS.ProcessEnv = env) => {
    const { reused } = synthesizeIfChanged(repo, outdir, synthesize, e);
    return { reused, runs: fs.readFileSync(path.join(outdir, 'runs'), 'utf8').length };
  };
  const edit = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    fs.writeFileSync(path.join(repo, rel), text);
  };

  beforeEach(() => {
    repo = tempRepo();
    outdir = path.join(repo, 'cdktf.out');
    expect(review()).toEqual({ reused: false, runs: 1 });
    expect(review()).toEqual({ reused: true, runs: 1 });
  });
  afterEach(() => fs.rmSync(repo, { recursive: true, force: true }));

  test('the config file changed: synthesized again, then reused', () => {
    edit('config/example.json', '{"project": "b"}');
    expect(review()).toEqual({ reused: false, runs: 2 });
    expect(review()).toEqual({ reused: true, runs: 2 });
  });

  test('the same bytes written again (a save without a change) still synthesize again: the file was written', () => {
    edit('config/example.json', '{"project": "a"}');
    expect(review()).toEqual({ reused: false, runs: 2 });
  });

  test('an environment variable set, changed or unset: synthesized again; npm\'s own variables change nothing', () => {
    expect(review({ ...env, TOPOLOGY: '4x4' })).toEqual({ reused: false, runs: 2 });
    expect(review({ ...env, TOPOLOGY: '4x4', npm_lifecycle_event: 'review', npm_config_user_agent: 'npm/10', INIT_CWD: '/x' })).toEqual({ reused: true, runs: 2 });
    expect(review({ ...env, TOPOLOGY: '4x8' })).toEqual({ reused: false, runs: 3 });
    expect(review()).toEqual({ reused: false, runs: 4 });
  });

  test('CONFIG_FILE outside the repository: named, then changed, synthesizes again', () => {
    const outside = path.join(repo, '..', `${path.basename(repo)}-config.json`);
    fs.writeFileSync(outside, '{"project": "c"}');
    try {
      const withFile = { ...env, CONFIG_FILE: outside };
      expect(review(withFile)).toEqual({ reused: false, runs: 2 });
      expect(review(withFile)).toEqual({ reused: true, runs: 2 });
      fs.writeFileSync(outside, '{"project": "d"}');
      expect(review(withFile)).toEqual({ reused: false, runs: 3 });
    } finally {
      fs.rmSync(outside, { force: true });
    }
  });

  test('the lock changed (post-training.lock.json, or LOCK_FILE outside the repository): synthesizes again', () => {
    edit('post-training.lock.json', '{"version": 1}');
    expect(review()).toEqual({ reused: false, runs: 2 });
    const outside = path.join(repo, '..', `${path.basename(repo)}-lock.json`);
    fs.writeFileSync(outside, '{"version": 1}');
    try {
      const withLock = { ...env, LOCK_FILE: outside };
      expect(review(withLock)).toEqual({ reused: false, runs: 3 });
      expect(review(withLock)).toEqual({ reused: true, runs: 3 });
      fs.writeFileSync(outside, '{"version": 1, "images": {}}');
      expect(review(withLock)).toEqual({ reused: false, runs: 4 });
    } finally {
      fs.rmSync(outside, { force: true });
    }
  });

  test('the program changed (dist/, the installed dependencies): synthesized again', () => {
    edit('dist/main.js', `${APP}\n// rebuilt`);
    expect(review()).toEqual({ reused: false, runs: 2 });
    edit('dist/jobs/new.js', '');
    expect(review()).toEqual({ reused: false, runs: 3 });
    edit('node_modules/.package-lock.json', '{"packages": {}}');
    expect(review()).toEqual({ reused: false, runs: 4 });
    expect(review()).toEqual({ reused: true, runs: 4 });
  });

  test('a reward file added or a chart changed: synthesized again; a report or a note written beside them is no input', () => {
    edit('config/examples/rewards/mine.py', 'def reward(): return 1\n');
    expect(review()).toEqual({ reused: false, runs: 2 });
    edit('charts/kueue-queues/templates/queues.yaml', 'kind: ClusterQueue\n');
    expect(review()).toEqual({ reused: false, runs: 3 });
    edit('review-report.md', '# Plan review');
    edit('notes/today.md', 'x');
    expect(review()).toEqual({ reused: true, runs: 3 });
  });

  test('a failed synthesis leaves no record: the next review synthesizes, whatever it finds in the folder', () => {
    edit('config/example.json', '{"fail": true}');
    expect(() => synthesizeIfChanged(repo, outdir, synthesize, env)).toThrow('config says fail');
    expect(fs.existsSync(path.join(outdir, INPUTS_RECORD))).toBe(false);
    edit('config/example.json', '{"project": "a"}');
    expect(review()).toEqual({ reused: false, runs: 2 });
  });

  test('a synthesis another command wrote into the folder since (other inputs: SERVE set, say) is not taken for the recorded one', () => {
    fs.writeFileSync(path.join(outdir, 'manifest.json'), JSON.stringify({ stacks: { 'serve-rl-qwen3': {} } }));
    expect(review()).toEqual({ reused: false, runs: 2 });
    expect(review()).toEqual({ reused: true, runs: 2 });
    fs.mkdirSync(path.join(outdir, 'stacks', 'serve-rl-qwen3'), { recursive: true });
    fs.writeFileSync(path.join(outdir, 'stacks', 'serve-rl-qwen3', 'cdk.tf.json'), '{}');
    expect(review()).toEqual({ reused: false, runs: 3 });
  });

  test('a record of other inputs, or a folder without its manifest, is not reused', () => {
    fs.writeFileSync(path.join(outdir, INPUTS_RECORD), 'another fingerprint\n');
    expect(review()).toEqual({ reused: false, runs: 2 });
    fs.rmSync(path.join(outdir, 'manifest.json'));
    expect(review()).toEqual({ reused: false, runs: 3 });
  });
});

test('the CLI says which synthesis it reviewed: a fresh one, then the same one again while nothing changed', () => {
  const repo = tempRepo();
  try {
    // A stand-in app that writes a synthesis the review reads: one stack without resources.
    fs.writeFileSync(path.join(repo, 'dist', 'main.js'), `${APP}
fs.writeFileSync(path.join(out, 'manifest.json'), JSON.stringify({ stacks: { infra: { name: 'infra', synthesizedStackPath: 'stacks/infra/cdk.tf.json', workingDirectory: 'stacks/infra' } } }));
fs.mkdirSync(path.join(out, 'stacks', 'infra'), { recursive: true });
fs.writeFileSync(path.join(out, 'stacks', 'infra', 'cdk.tf.json'), '{}');
`);
    const source = () => /\(from (a fresh synth|the synth of the working tree in `cdktf.out`, its inputs unchanged since)/.exec(run(parseArgs(['--quiet']), repo).markdown)?.[1];
    expect(source()).toBe('a fresh synth');
    expect(source()).toBe('the synth of the working tree in `cdktf.out`, its inputs unchanged since');
    fs.writeFileSync(path.join(repo, 'config', 'example.json'), '{"project": "z"}');
    expect(source()).toBe('a fresh synth');
  } finally {
    fs.rmSync(repo, { recursive: true, force: true });
  }
});

test('every repository file the real app opens while it synthesizes is one the fingerprint covers', () => {
  ensureDist();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-trace-'));
  try {
    // Logs the path of every file operation of the app's process (the module loader reads through fs too).
    const tracer = path.join(tmp, 'trace.js');
    fs.writeFileSync(tracer, `
const fs = require('fs');
const seen = new Set();
for (const name of ['readFileSync', 'openSync', 'statSync', 'lstatSync', 'existsSync', 'readdirSync', 'opendirSync', 'realpathSync', 'copyFileSync', 'accessSync', 'cpSync']) {
  const original = fs[name];
  if (typeof original !== 'function') continue;
  fs[name] = function (p, ...rest) { if (typeof p === 'string') seen.add(require('path').resolve(p)); return original.call(this, p, ...rest); };
}
process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(path.join(tmp, 'seen.json'))}, JSON.stringify([...seen])));
`);
    const outdir = path.join(tmp, 'out');
    const r = spawnSync(process.execPath, ['--require', tracer, path.join(ROOT, 'dist', 'main.js')], {
      cwd: ROOT,
      env: { ...process.env, CDKTF_OUTDIR: outdir, CHECKPOINT_DISABLE: '1' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const covered = new Set(inputFiles(ROOT));
    const seen = (JSON.parse(fs.readFileSync(path.join(tmp, 'seen.json'), 'utf8')) as string[])
      .filter((p) => p.startsWith(ROOT + path.sep))
      .map((p) => path.relative(ROOT, p).split(path.sep).join('/'))
      // Installed packages: covered by node_modules/.package-lock.json; directories: by their files.
      .filter((rel) => !rel.startsWith('node_modules/') && fs.existsSync(path.join(ROOT, rel)) && fs.statSync(path.join(ROOT, rel)).isFile());
    expect(seen.length).toBeGreaterThan(20);
    expect(seen.some((rel) => rel.startsWith('charts/'))).toBe(true);
    expect(seen.filter((rel) => !covered.has(rel))).toEqual([]);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
