/**
 * The entry point as a user runs it (`node dist/main.js`, what cdktf.json runs): bad input fails before
 * anything is written. dist/ is brought up to date by the project's one build (`tsc -b tsconfig.build.json`, as `npm run review`).
 */
import { APP_NODE_FLAGS } from '../review/load';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureDist } from './dist';

const ROOT = path.join(__dirname, '..');

beforeAll(ensureDist);

function runMain(env: Record<string, string>) {
  const outdir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-main-')), 'cdktf.out');
  const child = spawnSync(process.execPath, [...APP_NODE_FLAGS, path.join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, CDKTF_OUTDIR: outdir, ...env },
    encoding: 'utf8',
  });
  return { ...child, outdir };
}

test('a bad value: exit 1, the message names the variable and the allowed values, once, on stderr; nothing is written', () => {
  const { status, stderr, stdout, outdir } = runMain({ TOPOLOGY: '4x9' });
  expect(status).toBe(1);
  expect(stdout).toBe('');
  expect(stderr).toBe(
    "invalid config:\n  - TOPOLOGY (env): topology must be one of 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16 for ct6e-standard-4t, got '4x9'\n",
  );
  expect(fs.existsSync(outdir)).toBe(false);
});

test('a recipe asked for that does not fit the infra: exit 1 before anything is written', () => {
  const { status, stderr, outdir } = runMain({ TOPOLOGY: '4x4', PIPELINES: 'rl-qwen3' });
  expect(status).toBe(1);
  expect(stderr).toMatch(/PIPELINES \(env\): rl-qwen3 trains on ct6e-standard-4t 4x8 \(v6e-32\), infra has ct6e-standard-4t 4x4/);
  expect(fs.existsSync(outdir)).toBe(false);
});

test('the example config synthesizes infra and the v6e-32 pipelines; notes on stdout: the one left out, the placeholders still set, the eval steps left out', () => {
  const { status, stderr, stdout, outdir } = runMain({});
  // stdout, not stderr: the cdktf CLI logs an app's stderr at ERROR level (@cdktf/commons src/util.js exec).
  expect(stderr).toBe('');
  expect(stdout).toBe(
    // First the environment and what it was built from (docs/configuration.md "Where a value comes from").
    'environment my-tpu-project.tpu-post-train (project my-tpu-project, cluster tpu-post-train, region us-east5), built from config/example.json (the default: CONFIG_FILE unset) and no environment variable\n' +
    "note: placeholders of the example config still set (synth works; a plan stops on them, before anything is created): project 'my-tpu-project' (set PROJECT); " +
      "bucket 'my-tpu-project-post-training' (set GCS_BUCKET); tpu.reservation 'my-v6e-32-reservation' (set RESERVATION); " +
      "controlPlane.authorizedCidrs '203.0.113.0/24' (set AUTHORIZED_CIDR)\n" +
      'note: rl-llama3 left out: rl-llama3 trains on ct6e-standard-8t 2x4 (v6e-8-8t), infra has ct6e-standard-4t 4x8; ' +
      'SINGLE_HOST_RESERVATION=<v6e-8 reservation> (or SINGLE_HOST_CAPACITY=spot|flex-start) adds it next to the main slices\n' +
      // Without a single-host slice the eval step (vLLM on one host) has nowhere to run: one line per pipeline.
      ['rl-qwen3: eval step left out: qwen3-30b-a3b needs a single-host ct6e-standard-4t 2x2 (v6e-4)', 'rl-gemma4: eval step left out: gemma4-26b needs a single-host ct6e-standard-4t 2x2 (v6e-4)', 'sft-gemma4: eval step left out: gemma4-31b needs a single-host ct6e-standard-8t 2x4 (v6e-8)']
        .map(
          (head) =>
            `note: ${head} or larger (SINGLE_HOST_RESERVATION=<v6e-8 reservation>, or SINGLE_HOST_CAPACITY=spot|flex-start, adds a v6e-8); infra has no single-host slice; ` +
            `set config/example.json: pipelines.${head.split(':')[0]}.eval.enabled to false to silence this\n`,
        )
        .join('') +
      // What post-training.lock.json lacks for the stacks built, once (jobs/lock-apply.ts unlockedNote): the shipped lock holds kubectl only.
      'note: post-training.lock.json lacks dataset HuggingFaceH4/ultrachat_200k@main, dataset openai/gsm8k@main, ' +
      'image us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.4, image us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server:latest, ' +
      'image us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:latest, model Qwen/Qwen3-30B-A3B-Instruct-2507@main, model google/gemma-4-26b-a4b-it@main, ' +
      'model google/gemma-4-31b-it@main: images are pulled by tag (a moved tag is not detected), revisions are resolved at run time, dataset splits and ' +
      'columns are not checked; run `npm run lock` where the registries and the Hub answer (requireLock: true refuses an unlocked fact)\n',
  );
  expect(status).toBe(0);
  expect(fs.readdirSync(path.join(outdir, 'stacks')).sort()).toEqual(['infra', 'rl-gemma4', 'rl-qwen3', 'sft-gemma4']);
});

test('with the single-host pool asked for, every stack; unread tutorial variables get one line each, never a value', () => {
  const token = ['hf', 'main', 'canary', String(process.pid)].join('_');
  const { status, stderr, stdout, outdir } = runMain({ SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation', HF_TOKEN: token, MODEL_NAME: 'qwen3-30b-a3b' });
  expect(status).toBe(0);
  expect(stdout.split('\n').filter((l) => l !== '')).toEqual([
    expect.stringMatching(/^environment my-tpu-project\.tpu-post-train .*built from config\/example\.json \(the default: CONFIG_FILE unset\) and env SINGLE_HOST_RESERVATION$/),
    expect.stringMatching(/^note: MODEL_NAME is set but not read by this program: /),
    expect.stringMatching(/^note: HF_TOKEN is set but not read by this program: .*its value was not read/),
    expect.stringMatching(/^note: placeholders of the example config still set .*singleHost.reservation 'my-v6e-8-reservation' \(set SINGLE_HOST_RESERVATION\)/),
    // The single-host RL tutorial shares its chips with vLLM: accepted, with the fit check's tight note (jobs/hbm.ts).
    expect.stringMatching(/^note: rl-llama3: llama3\.1-8b-Instruct fits ct6e-standard-8t 2x4 \(v6e-8-8t\) tightly: /),
    expect.stringMatching(/^note: post-training\.lock\.json lacks dataset .*image vllm\/vllm-tpu:nightly-20260816-11250b4-1d2d83a, model .*: images are pulled by tag/),
  ]);
  expect(stderr).toBe('');
  expect(stdout + stderr).not.toContain(token);
  expect(fs.readdirSync(path.join(outdir, 'stacks')).sort()).toEqual(['infra', 'rl-gemma4', 'rl-llama3', 'rl-qwen3', 'sft-gemma4']);
});

/** The modules a synth of the example config loaded (require.cache at exit) and where it wrote; one child, run once. */
let synthRun: { loaded: string[]; outdir: string } | undefined;
function synthModules(): { loaded: string[]; outdir: string } {
  if (synthRun) return synthRun;
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-modules-'));
  const code = `require(${JSON.stringify(path.join(ROOT, 'dist', 'main.js'))}); process.on('exit', () => process.stderr.write('\\nMODULES ' + JSON.stringify(Object.keys(require.cache))));`;
  const r = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, env: { PATH: process.env.PATH, CDKTF_OUTDIR: outdir }, encoding: 'utf8' });
  expect(r.status).toBe(0);
  synthRun = { loaded: JSON.parse(/MODULES (.*)/.exec(r.stderr)![1]!) as string[], outdir };
  return synthRun;
}

test('a synth loads only the provider modules its stacks use: each loaded resource, data source or provider class is in the output', () => {
  const { loaded, outdir } = synthModules();
  // @cdktf/provider-google/lib/data-google-storage-bucket/index.js -> data.google_storage_bucket
  const modules = [...new Set(loaded.map((m) => /@cdktf[\\/]provider-(google|kubernetes|helm)[\\/]lib[\\/]([^\\/]+)[\\/]/.exec(m)).filter((m) => m !== null).map((m) => `${m![1]}/${m![2]}`))];
  expect(modules.length).toBeGreaterThan(10);
  const used = new Set<string>();
  for (const stack of fs.readdirSync(path.join(outdir, 'stacks'))) {
    const tf = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', stack, 'cdk.tf.json'), 'utf8'));
    for (const t of Object.keys(tf.resource ?? {})) used.add(t);
    for (const t of Object.keys(tf.data ?? {})) used.add(`data.${t}`);
    for (const p of Object.keys(tf.provider ?? {})) used.add(`provider.${p}`);
  }
  const typeOf = (m: string) => {
    const [provider, lib] = m.split('/') as [string, string];
    if (lib === 'provider') return `provider.${provider}`;
    return lib.startsWith('data-') ? `data.${lib.slice(5).replace(/-/g, '_')}` : `${provider}_${lib.replace(/-/g, '_')}`;
  };
  expect(modules.filter((m) => !used.has(typeOf(m)))).toEqual([]);
});

test('a synth never loads the generated modules the program has lean classes for (constructs/cluster-data.ts, google-provider.ts); the cluster and its pools are the prebuilt classes', () => {
  const { loaded, outdir } = synthModules();
  const pipeline = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'rl-qwen3', 'cdk.tf.json'), 'utf8'));
  expect(Object.keys(pipeline.data.google_container_cluster)).toEqual(['cluster']);
  const infra = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'infra', 'cdk.tf.json'), 'utf8'));
  expect(Object.keys(infra.resource.google_container_cluster)).toHaveLength(1);
  expect(Object.keys(infra.provider.google)).toHaveLength(1);
  expect(Object.keys(infra.resource.google_container_node_pool).length).toBeGreaterThanOrEqual(3);
  // data.google_container_cluster (2.2 MB) and the google provider (585 KB, ~190 unset settings per stack) have lean
  // classes with three settings each; the cluster and node pools (issue 47: a hand-written converter wrote wrong
  // Terraform names) are the generated classes, loaded by deep path.
  const google = (lib: string) => loaded.some((m) => new RegExp(`@cdktf[\\\\/]provider-google[\\\\/]lib[\\\\/]${lib}[\\\\/]`).test(m));
  expect(['data-google-container-cluster', 'provider'].filter(google)).toEqual([]);
  expect(['container-cluster', 'container-node-pool'].filter(google)).toEqual(['container-cluster', 'container-node-pool']);
});

test('the synth captures and formats no stack trace while it builds (cdktf records one per token) and restores stacks after', () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-stacks-'));
  const code = [
    `const before = Error.prepareStackTrace; const cdktfTrace = require('cdktf/lib/tokens/private/stack-trace');`,
    `const capture = cdktfTrace.captureStackTrace; let captured = 0, empty = 0, uncaptured = 0;`,
    // An accessor as Error.stackTraceLimit: V8 walks no frames at all (main.ts withoutStackTraces).
    `const walksNoFrames = () => typeof Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit').get === 'function';`,
    `require.cache[require.resolve('cdktf/lib/tokens/private/stack-trace')].exports.captureStackTrace = (...a) => { const s = capture(...a); captured++; if (s.length === 0) empty++; if (walksNoFrames()) uncaptured++; return s; };`,
    `require(${JSON.stringify(path.join(ROOT, 'dist', 'main.js'))});`,
    `const limit = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit');`,
    `process.stdout.write(JSON.stringify({ restored: Error.prepareStackTrace === before && new Error('x').stack.includes('at ') && limit.writable && limit.value === 10, captured, empty, uncaptured }));`,
  ].join('\n');
  const r = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, env: { PATH: process.env.PATH, CDKTF_OUTDIR: outdir }, encoding: 'utf8' });
  expect(r.status).toBe(0);
  const result = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('{')));
  expect(result.restored).toBe(true);
  expect(result.captured).toBeGreaterThan(100);
  // All but the few tokens cdktf's own modules make as they load, before the build starts.
  expect(result.captured - result.empty).toBeLessThanOrEqual(5);
  expect(result.captured - result.uncaptured).toBeLessThanOrEqual(5);
});

test('--check builds nothing cdktf builds again: it loads no cdktf and no provider module (the stacks are built once, by the app cdktf runs)', () => {
  const code = `process.argv.push('--check'); require(${JSON.stringify(path.join(ROOT, 'dist', 'main.js'))}); process.on('exit', () => process.stdout.write(JSON.stringify(Object.keys(require.cache))));`;
  const r = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, env: { PATH: process.env.PATH }, encoding: 'utf8' });
  expect(r.status).toBe(0);
  const loaded = JSON.parse(r.stdout) as string[];
  expect(loaded.some((m) => m.includes(`${path.sep}config${path.sep}deployment.js`))).toBe(true);
  expect(loaded.filter((m) => /node_modules[\\/](cdktf|@cdktf)[\\/]/.test(m) || m.includes(`${path.sep}dist${path.sep}stacks${path.sep}`))).toEqual([]);
});

test('--check (npm run diff|deploy|destroy run it before cdktf): the same validation, errors once, no notes, nothing written', () => {
  const bad = spawnSync(process.execPath, [...APP_NODE_FLAGS, path.join(ROOT, 'dist', 'main.js'), '--check'], { cwd: ROOT, env: { PATH: process.env.PATH, TOPOLOGY: '4x9' }, encoding: 'utf8' });
  expect([bad.status, bad.stdout]).toEqual([1, '']);
  expect(bad.stderr.match(/TOPOLOGY \(env\)/g)).toHaveLength(1);
  const outdir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-check-')), 'cdktf.out');
  const good = spawnSync(process.execPath, [...APP_NODE_FLAGS, path.join(ROOT, 'dist', 'main.js'), '--check'], { cwd: ROOT, env: { PATH: process.env.PATH, CDKTF_OUTDIR: outdir }, encoding: 'utf8' });
  expect([good.status, good.stdout, good.stderr, fs.existsSync(outdir)]).toEqual([0, '', '', false]);
  const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
  // Every cdktf command the README gives runs the check first, so a config error is printed once, plainly, and cdktf
  // (which would log it at ERROR level and repeat it in its summary) never starts.
  // (scripts/cdktf.mjs runs cdktf.json's app with --check, then cdktf; __tests__/config/serve-by-name.test.ts runs it.)
  // synth runs no cdktf-cli: the app in the runner's own process prints its error once (__tests__/synth-runner.test.ts).
  for (const command of ['diff', 'deploy', 'destroy']) expect(scripts[command]).toBe(`node scripts/build-if-stale.mjs && node scripts/cdktf.mjs ${command}`);
  expect(scripts.synth).toBe('node --disable-warning=DEP0044 scripts/synth.mjs');
});
