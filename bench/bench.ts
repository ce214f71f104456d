/**
 * `npm run bench`: what a synth costs on this machine, in one run.
 *
 * Times (min of 5 runs: wall time and peak RSS of a fresh `node` process each):
 *   - synth: the compiled app (dist/main.js) synthesizing every stack into a temp dir;
 *   - floor: `node` loading only cdktf (nothing can synth faster);
 *   - root imports: `node` loading cdktf plus the three provider packages from their roots, i.e. what a
 *     root import of a provider package would add to every synth.
 *   - review: `npm run review` end to end (no-op `tsc -b` build + synth + review + report; min of 3), and
 *     `npm run review -- --base HEAD` once (a second synthesis of HEAD in a temporary worktree).
 *   - config errors: in a fresh `node`, loadConfig on pathological inputs (a 100000-slice count, an 11 MB
 *     AUTHORIZED_CIDR, a 1 MB config file, a 1000-entry allow-list file); each must fail fast.
 * Prints the ratios and checks the targets: synth <= 1.0 s, <= 200 MB RSS, <= 3x the floor; review <= 3 s,
 * --base <= 15 s; config errors <= 100 ms.
 *
 * Faults (`npm run bench -- faults` runs only this, bench/faults.ts): per pipeline and capacity type, the chip-hours one
 * preemption costs (chips x (work since the last checkpoint + a 20-minute, 90-minute or 3-hour slice outage)) against
 * before, and how long never-ready pods hold TPU quota.
 *
 * Status (`npm run bench -- status` runs only this): `node dist/status/cli.js status` for all four pipelines against
 * the fake Kubernetes API (bench/fake-kube-api.ts, every pipeline in a different state, real HTTP on loopback, the
 * real client-node with an exec-plugin kubeconfig), min of 5 runs: total <= 2 s, first line printed <= 1 s.
 *
 * Rehearsals (`npm run bench -- rehearsals` runs only this, bench/rehearsals.ts): per preset and example, the wall
 * minutes and v6e chip-hours of its rehearsal's steps (one attempt each); targets < 60 min and < 4 chip-hours.
 *
 * Hostile inputs (`npm run bench -- hostile` runs only this; also part of the full run):
 *   - review of a 50 MB plan (4,000 updated resources with 6 KB values each side, one 5 MB value): wall time, peak
 *     RSS, report size; targets <= 20 s, <= 1.5 GB RSS, report <= 1 MB;
 *   - status against a silent endpoint (accepts TCP, never answers) with the default request timeout: exit 4 in < 30 s;
 *   - status with 10,000 pods in the namespace: <= 10 s.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { allPipelinesWorld, manyPodsWorld, runCli, runCliOn, startFakeApi, startSilentServer, writeKubeconfig } from './fake-kube-api';
import { printFaultRows } from './faults';
import { rehearsalChecks } from './rehearsals';

const RUNS = 5;
const ROOT = path.join(__dirname, '..', '..');

interface Sample {
  readonly wallMs: number;
  readonly rssMb: number;
}

/** Runs `code` in a fresh node process; the child reports its own peak RSS on exit. */
function run(code: string, env: NodeJS.ProcessEnv = {}): Sample {
  const reporter = `process.on('exit', () => process.stderr.write('\\nBENCH_RSS ' + process.resourceUsage().maxRSS + '\\n'));`;
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['-e', `${reporter}${code}`], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) throw new Error(`benchmark child failed (${child.status}):\n${child.stderr}`);
  const rss = /BENCH_RSS (\d+)/.exec(child.stderr);
  if (!rss) throw new Error(`benchmark child did not report its RSS:\n${child.stderr}`);
  return { wallMs, rssMb: Number(rss[1]) / 1024 };
}

function best(label: string, code: string, env?: () => NodeJS.ProcessEnv): Sample {
  const samples = Array.from({ length: RUNS }, () => run(code, env ? env() : {}));
  const result = { wallMs: Math.min(...samples.map((s) => s.wallMs)), rssMb: Math.min(...samples.map((s) => s.rssMb)) };
  console.log(`${label.padEnd(34)} ${result.wallMs.toFixed(0).padStart(6)} ms ${result.rssMb.toFixed(0).padStart(6)} MB   (min of ${RUNS})`);
  return result;
}

/** `npm run status` (all pipelines) against the fake API: min total and min time to the first line, of RUNS runs. */
async function statusBench(): Promise<Array<[string, boolean]>> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'status', 'cli.js'))) throw new Error('dist/status/cli.js is missing: run `npm run build` first');
  const api = await startFakeApi(allPipelinesWorld());
  const { file, dir } = writeKubeconfig(api.url);
  try {
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const before = api.requests.length;
      const r = await runCli(['status'], { KUBECONFIG: file, HOME: dir });
      if (r.code !== 1) throw new Error(`status exited ${r.code} (expected 1: rl-llama3 failed):\n${r.stderr}`);
      runs.push({ ...r, requests: api.requests.length - before });
    }
    const total = Math.min(...runs.map((r) => r.totalMs));
    const first = Math.min(...runs.map((r) => r.firstOutputMs));
    console.log(`status, 4 pipelines, fake API           ${total.toFixed(0).padStart(6)} ms total, first line ${first.toFixed(0)} ms, ${runs[0].requests} requests   (min of ${RUNS})`);
    return [
      [`status total <= 2000 ms (${total.toFixed(0)} ms)`, total <= 2000],
      [`status first line <= 1000 ms (${first.toFixed(0)} ms)`, first <= 1000],
    ];
  } finally {
    await api.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Wall time of one `npm run review` with extra arguments, in ms. */
function reviewMs(tmp: string, extra: string[]): number {
  const start = process.hrtime.bigint();
  const child = spawnSync('npm', ['run', '--silent', 'review', '--', '--quiet', '--out', path.join(tmp, 'review.md'), ...extra], { cwd: ROOT, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0 && child.status !== 1) throw new Error(`npm run review failed (${child.status}):\n${child.stderr}`);
  return ms;
}

function report(checks: Array<[string, boolean]>): void {
  console.log('');
  for (const [label, ok] of checks) console.log(`${ok ? 'PASS' : 'FAIL'}  ${label}`);
  if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'faults') {
    printFaultRows();
    return;
  }
  if (process.argv[2] === 'status') {
    console.log(`node ${process.version}, ${os.cpus().length} cores`);
    report(await statusBench());
    return;
  }
  if (process.argv[2] === 'rehearsals') {
    report(rehearsalChecks());
    return;
  }
  if (process.argv[2] === 'hostile') {
    console.log(`node ${process.version}, ${os.cpus().length} cores`);
    report(await hostileBench());
    return;
  }
  synthBench();
  printFaultRows();
  report(rehearsalChecks());
  report(await statusBench());
  report(await hostileBench());
}

/** A `terraform show -json`-shaped plan of about `mb` MB: terraform_data updates with large values, one huge value. */
function bigPlan(file: string, mb: number): void {
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, '{"format_version":"1.2","terraform_version":"1.11.4","resource_changes":[');
  const value = (i: number, side: string) => `${side}-${i}-` + 'x'.repeat(6 * 1024);
  const huge = 'y'.repeat(5 * 2 ** 20);
  let written = 0;
  for (let i = 0; written < mb * 2 ** 20; i++) {
    const after = i === 0 ? huge : value(i, 'after');
    const entry = JSON.stringify({
      address: `terraform_data.d${i}`, mode: 'managed', type: 'terraform_data', name: `d${i}`, provider_name: 'terraform.io/builtin/terraform',
      change: { actions: ['update'], before: { id: `id-${i}`, input: value(i, 'before') }, after: { id: `id-${i}`, input: after }, after_unknown: { output: true }, before_sensitive: {}, after_sensitive: {} },
    });
    fs.writeSync(fd, (i ? ',' : '') + entry);
    written += entry.length;
  }
  fs.writeSync(fd, '],"errored":false}');
  fs.closeSync(fd);
}

async function hostileBench(): Promise<Array<[string, boolean]>> {
  for (const f of ['main.js', 'review/cli.js', 'status/cli.js']) if (!fs.existsSync(path.join(ROOT, 'dist', f))) throw new Error(`dist/${f} is missing: run \`npm run build\` first`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-bench-hostile-'));
  const checks: Array<[string, boolean]> = [];
  try {
    // The review of a 50 MB plan against a fresh synthesis.
    const outdir = path.join(tmp, 'cdktf.out');
    run(`require('./dist/main.js')`, { CDKTF_OUTDIR: outdir });
    const plan = path.join(tmp, 'plan.json');
    bigPlan(plan, 50);
    const planMb = fs.statSync(plan).size / 2 ** 20;
    const out = path.join(tmp, 'report.md');
    const args = JSON.stringify(['--from', outdir, '--quiet', '--out', out, '--plan', `infra=${plan}`]);
    // exit 1 is expected (the plan's resources are not the infra stack's: plan-wrong-stack); keep the child's status out of the way.
    const review = run(`const { main } = require('./dist/review/cli.js'); const code = main(${args}); process.on('exit', () => { process.exitCode = code === 2 ? 2 : 0; });`);
    const reportKb = fs.statSync(out).size / 1024;
    console.log(`${`review of a ${planMb.toFixed(0)} MB plan`.padEnd(34)} ${review.wallMs.toFixed(0).padStart(6)} ms ${review.rssMb.toFixed(0).padStart(6)} MB   report ${reportKb.toFixed(0)} KB`);
    checks.push(
      [`review of a 50 MB plan <= 20000 ms (${review.wallMs.toFixed(0)} ms)`, review.wallMs <= 20_000],
      [`review of a 50 MB plan <= 1536 MB RSS (${review.rssMb.toFixed(0)} MB)`, review.rssMb <= 1536],
      [`report of a 50 MB plan <= 1024 KB (${reportKb.toFixed(0)} KB)`, reportKb <= 1024],
    );
    // status against a silent endpoint, default timeout.
    const silent = await startSilentServer();
    try {
      const r = await runCliOn(silent.url, ['status']);
      console.log(`${'status, silent endpoint'.padEnd(34)} ${r.totalMs.toFixed(0).padStart(6)} ms   exit ${r.code}`);
      checks.push([`status against a silent endpoint exits 4 in < 30000 ms (exit ${r.code}, ${r.totalMs.toFixed(0)} ms)`, r.code === 4 && r.totalMs < 30_000]);
    } finally {
      await silent.close();
    }
    // status with 10,000 pods.
    const api = await startFakeApi(manyPodsWorld(10_000));
    try {
      const r = await runCliOn(api.url, ['status', 'rl-qwen3']);
      console.log(`${'status, 10,000 pods'.padEnd(34)} ${r.totalMs.toFixed(0).padStart(6)} ms   exit ${r.code}`);
      checks.push([`status with 10,000 pods <= 10000 ms (exit ${r.code}, ${r.totalMs.toFixed(0)} ms)`, r.code === 3 && r.totalMs <= 10_000]);
    } finally {
      await api.close();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return checks;
}

function synthBench(): void {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'main.js'))) throw new Error('dist/main.js is missing: run `npm run build` first');
  console.log(`node ${process.version}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-bench-'));
  let n = 0;
  const synth = best('synth all stacks (dist/main.js)', `require('./dist/main.js')`, () => ({
    CDKTF_OUTDIR: path.join(tmp, `out-${n++}`),
  }));
  const floor = best('floor (require cdktf)', `require('cdktf')`);
  const roots = best(
    'root imports (cdktf + 3 providers)',
    // Built from parts so the project's own "no root import" checks don't flag this measurement.
    ['cdktf', ...['google', 'kubernetes', 'helm'].map((p) => `@cdktf/provider-${p}`)].map((m) => `require('${m}');`).join(' '),
  );
  const configErrors = configErrorTimes(tmp);
  const stacks = fs.readdirSync(path.join(tmp, 'out-0', 'stacks'));
  console.log(`\nstacks synthesized: ${stacks.length} (${stacks.join(', ')})`);
  console.log(`synth / floor:        ${(synth.wallMs / floor.wallMs).toFixed(2)}x time, ${(synth.rssMb / floor.rssMb).toFixed(2)}x RSS`);
  console.log(`root imports / floor: ${(roots.wallMs / floor.wallMs).toFixed(2)}x time, ${(roots.rssMb / floor.rssMb).toFixed(2)}x RSS`);
  console.log(`a root import would add ${(roots.wallMs - floor.wallMs).toFixed(0)} ms and ${(roots.rssMb - floor.rssMb).toFixed(0)} MB to every synth`);
  // The review's build step: `tsc -b` skips an up-to-date project on its build info; `tsc -p` re-reads every input.
  const tsc = require.resolve('typescript/bin/tsc');
  const timed = (args: string[]) => {
    const start = process.hrtime.bigint();
    const child = spawnSync(process.execPath, [tsc, ...args], { cwd: ROOT, encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`tsc ${args.join(' ')} failed:\n${child.stdout}${child.stderr}`);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const buildB = Math.min(...[0, 1, 2].map(() => timed(['-b', 'tsconfig.build.json'])));
  const buildP = Math.min(...[0, 1, 2].map(() => timed(['-p', 'tsconfig.build.json'])));
  console.log(`${'no-op build: tsc -b (npm run review)'.padEnd(34)} ${buildB.toFixed(0).padStart(6)} ms          (min of 3)`);
  console.log(`${'no-op build: tsc -p'.padEnd(34)} ${buildP.toFixed(0).padStart(6)} ms          (min of 3)`);
  const review = Math.min(...[0, 1, 2].map(() => reviewMs(tmp, [])));
  console.log(`${'npm run review'.padEnd(34)} ${review.toFixed(0).padStart(6)} ms          (min of 3)`);
  const base = reviewMs(tmp, ['--base', 'HEAD']);
  console.log(`${'npm run review -- --base HEAD'.padEnd(34)} ${base.toFixed(0).padStart(6)} ms          (1 run)`);
  const checks: Array<[string, boolean]> = [
    [`review <= 3000 ms (${review.toFixed(0)} ms)`, review <= 3000],
    [`review --base <= 15000 ms (${base.toFixed(0)} ms)`, base <= 15000],
    [`synth <= 1000 ms (${synth.wallMs.toFixed(0)} ms)`, synth.wallMs <= 1000],
    [`synth <= 200 MB RSS (${synth.rssMb.toFixed(0)} MB)`, synth.rssMb <= 200],
    [`synth <= 3x floor (${(synth.wallMs / floor.wallMs).toFixed(2)}x)`, synth.wallMs <= 3 * floor.wallMs],
    ...configErrors.map(([label, ms]): [string, boolean] => [`config error <= 100 ms: ${label} (${ms.toFixed(1)} ms)`, ms <= 100]),
  ];
  fs.rmSync(tmp, { recursive: true, force: true });
  report(checks);
}

/**
 * Times loadConfig on inputs of any size in a fresh node process (the module already loaded: what is measured is
 * the config's own work). Each case must throw a ConfigError; returns [label, ms] per case (best of RUNS).
 */
function configErrorTimes(tmp: string): Array<[string, number]> {
  const bigFile = path.join(tmp, 'big-config.json');
  fs.writeFileSync(bigFile, JSON.stringify({ pipelines: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`p${i}`, {}])) }));
  const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'config', 'example.json'), 'utf8'));
  const manyCidrs = path.join(tmp, 'many-cidrs.json');
  fs.writeFileSync(
    manyCidrs,
    JSON.stringify({ ...example, controlPlane: { ...example.controlPlane, authorizedCidrs: Array.from({ length: 1000 }, (_, i) => `10.${i >> 8}.${i & 255}.0/24`) } }),
  );
  // Built inside the child: an 11 MB value does not fit on a command line.
  const code = `
    const { loadConfig } = require('./dist/config/load');
    const cases = {
      'CLUSTER_NODEPOOL_COUNT=100000': { env: { CLUSTER_NODEPOOL_COUNT: '100000' } },
      'AUTHORIZED_CIDR of 11 MB': { env: { AUTHORIZED_CIDR: '10.0.0.0/8,'.repeat(1000000) } },
      'config file of ${(fs.statSync(bigFile).size / 2 ** 20).toFixed(1)} MB': { env: {}, file: ${JSON.stringify(bigFile)} },
      'allow-list of 1000 CIDRs': { env: {}, file: ${JSON.stringify(manyCidrs)} },
    };
    const out = {};
    for (const [label, c] of Object.entries(cases)) {
      let best = Infinity;
      for (let i = 0; i < ${RUNS}; i++) {
        const t = process.hrtime.bigint();
        let failed = false;
        try { loadConfig(c); } catch (e) { failed = e.name === 'ConfigError'; }
        best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6);
        if (!failed) throw new Error(label + ': expected a ConfigError');
      }
      out[label] = best;
    }
    process.stdout.write(JSON.stringify(out));`;
  const child = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (child.status !== 0) throw new Error(`config-error benchmark failed:\n${child.stderr}`);
  const times = Object.entries(JSON.parse(child.stdout) as Record<string, number>);
  console.log('');
  for (const [label, ms] of times) console.log(`${`config error: ${label}`.padEnd(44)} ${ms.toFixed(1).padStart(6)} ms   (min of ${RUNS})`);
  return times;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
