import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main, parseArgs, readPrices, run } from '../../review/cli';
import { review } from '../../review/findings';
import { durationSeconds, extractStack, gcsUses } from '../../review/model';
import { loadPrices } from '../../jobs/prices';
import { COMMENT_MARKER, mermaid, renderReport } from '../../review/report';
import { asTf, IMAGE, infraJson, pipelineJson } from './fixtures';

const BUCKET = 'gs://proj-post-training/qwen3-8b';

function models() {
  return [extractStack('infra', asTf(infraJson())), extractStack('rl-qwen3', asTf(pipelineJson()))];
}

/** Writes fixtures as a synthesized app (manifest.json + stacks/<name>/cdk.tf.json). */
function writeSynthesis(stacks: Record<string, unknown>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'review-test-'));
  const manifest: Record<string, unknown> = {};
  for (const [name, json] of Object.entries(stacks)) {
    fs.mkdirSync(path.join(dir, 'stacks', name), { recursive: true });
    fs.writeFileSync(path.join(dir, 'stacks', name, 'cdk.tf.json'), JSON.stringify(json, null, 2));
    manifest[name] = { name, synthesizedStackPath: `stacks/${name}/cdk.tf.json`, workingDirectory: `stacks/${name}` };
  }
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ version: '0.21.0', stacks: manifest }));
  return dir;
}

test('the pipeline is ordered by depends_on, with model, slice, chip-hours and GCS reads/writes', () => {
  const p = models()[1]!.pipeline!;
  expect(p.steps.map((s) => [s.name, s.kind])).toEqual([
    ['qwen3-8b-to-maxtext', 'conversion'],
    ['qwen3-8b-train', 'training'],
    ['qwen3-8b-to-hf', 'export'],
  ]);
  expect(p.edges).toEqual([['qwen3-8b-to-maxtext', 'qwen3-8b-train'], ['qwen3-8b-train', 'qwen3-8b-to-hf']]);
  expect(p).toMatchObject({ model: 'qwen3-8b', tpuTopology: '4x8', tpuChips: 32, chipHours: 32 * 24, images: [IMAGE] });
  expect(p.gcsWritten).toEqual([`${BUCKET}/max-text-format/`, `${BUCKET}/trained/`, `${BUCKET}/hf-trained/`]);
  expect(p.gcsRead).toEqual([`${BUCKET}/max-text-format/0/items/`, `${BUCKET}/trained/rl/checkpoints/actor/50/model_params/`]);
});

test('steps chained through completion gates (data sources) still form the graph', () => {
  // GIVEN train depends on a gate that depends on to-maxtext, as constructs/jobset-step.ts synthesizes it
  const json = pipelineJson();
  json.resource.kubernetes_manifest.train.depends_on = ['data.kubernetes_resource.to-maxtext_Completed'];
  json.resource.kubernetes_manifest['to-hf'].depends_on = ['data.kubernetes_resource.train_Completed', 'kubernetes_manifest.spc'];
  json.data = {
    kubernetes_resource: {
      'to-maxtext_Completed': { depends_on: ['kubernetes_manifest.to-maxtext'] },
      train_Completed: { depends_on: ['kubernetes_manifest.train'] },
    },
  };
  json.resource.kubernetes_manifest.spc = { manifest: { apiVersion: 'secrets-store.csi.x-k8s.io/v1', kind: 'SecretProviderClass', metadata: { name: 'hf' } } };
  const p = extractStack('rl-qwen3', asTf(json)).pipeline!;
  expect(p.edges).toEqual([['qwen3-8b-to-maxtext', 'qwen3-8b-train'], ['qwen3-8b-train', 'qwen3-8b-to-hf']]);
});

test('GCS paths are classified by the flag that carries them', () => {
  expect(gcsUses([{ text: 'python x load_parameters_path=gs://b/in/ base_output_directory=gs://b/out/ --gcs_scratch_location=gs://b/pathways/' }])).toEqual([
    { path: 'gs://b/in/', access: 'read', key: 'load_parameters_path' },
    { path: 'gs://b/out/', access: 'write', key: 'base_output_directory' },
    { path: 'gs://b/pathways/', access: 'write', key: 'gcs_scratch_location' },
  ]);
  expect(gcsUses([{ text: 'gs://b/x', key: 'DATA_PATH' }])).toEqual([{ path: 'gs://b/x', access: 'read', key: 'DATA_PATH' }]);
});

test('durations parse like Terraform timeouts', () => {
  expect(durationSeconds('24h')).toBe(86400);
  expect(durationSeconds('1h30m')).toBe(5400);
  expect(durationSeconds('90s')).toBe(90);
  expect(durationSeconds('soon')).toBeUndefined();
});

test('the Mermaid graph has one node per step and the conversion -> training -> export edges', () => {
  expect(mermaid(models()[1]!.pipeline!)).toBe([
    '```mermaid',
    'flowchart LR',
    '  s0["qwen3-8b-to-maxtext<br/>conversion · CPU · ≤2h"]',
    '  s1["qwen3-8b-train<br/>training · 32 TPU chips 4x8 · ≤24h"]',
    '  s2["qwen3-8b-to-hf<br/>export · CPU · ≤2h"]',
    '  s0 --> s1',
    '  s1 --> s2',
    '```',
  ].join('\n'));
});

test('the report has findings, capacity and cost with the price table named, access and pipelines', () => {
  const ms = models();
  const prices = loadPrices();
  const md = renderReport({ models: ms, findings: review(ms), prices, source: 'fixtures' });
  expect(md.startsWith(COMMENT_MARKER)).toBe(true);
  expect(md).toContain('# Plan review: ✅ no errors');
  expect(md).toContain('| tpu-v6e-32-0 | ct6e-standard-4t | 4x8 | 32 | 8 | reservation tpu-v6e-32-0-reservation |');
  expect(md).toContain(`_Prices: ${prices.name}, ${prices.date}`);
  expect(md).toContain('Pipeline holds at most **768 chip-hours**');
  expect(md).toMatch(/\| serviceAccount:tpu-post-train-gke-wl-sa@proj\.iam\.gserviceaccount\.com \| roles\/storage\.admin \| bucket \| proj-post-training \|/);
  expect(md).toContain('| 203.0.113.0/24 (office) | internal only |');
  expect(md).toContain('| default/workload-identity-k8s-sa | tpu-post-train-gke-wl-sa@proj.iam.gserviceaccount.com |');
  expect(md).toContain('Public: nothing public.');
  expect(md).toContain('```mermaid');
  expect(md).toContain(`| qwen3-8b-train | write | \`${BUCKET}/trained/\` | base_output_directory |`);
});

function priceFile(table: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prices-')), 'p.json');
  fs.writeFileSync(file, JSON.stringify(table));
  return file;
}

const BUILT_IN = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'jobs', 'prices.json'), 'utf8'));

test('a price file overrides the built-in table and the report names it', () => {
  const file = priceFile({ ...BUILT_IN, name: 'negotiated', date: '2026-01-01', tpu: { v6e: { ...BUILT_IN.tpu.v6e, 'commit-1y': { chipHour: 1, estimate: false, source: 'contract' } } } });
  const md = renderReport({ models: models(), findings: [], prices: readPrices(file), source: 'fixtures' });
  expect(md).toContain('| tpu-v6e-32-0 | ct6e-standard-4t | 4x8 | 32 | 8 | reservation tpu-v6e-32-0-reservation | 1-year commitment $1/chip-h | $32.00 (the reservation is billed whether or not pods run) | $32.00 |');
  expect(md).toContain('_Prices: negotiated, 2026-01-01');
  expect(md).toContain(file);
});

test('a price file with wrong types is an error naming the file and the key, never $NaN', () => {
  const file = priceFile({ ...BUILT_IN, tpu: { v6e: { ...BUILT_IN.tpu.v6e, spot: { chipHour: 'cheap', estimate: true, source: 'x' } } }, thresholds: { stackChips: -1, stackHourly: 10 } });
  expect(() => readPrices(file)).toThrow(
    `price file ${file}: tpu.v6e.spot.chipHour: Expected number, received string; thresholds.stackChips: Number must be greater than 0 (see jobs/prices.json for the shape)`,
  );
  expect(() => readPrices(priceFile({ name: 'broken' }))).toThrow(/date: Required; currency: Required; source: Required; tpu: Required; reservationRate: Required/);
  const bad = path.join(path.dirname(file), 'bad.json');
  fs.writeFileSync(bad, '{ nope');
  expect(() => readPrices(bad)).toThrow(new RegExp(`^price file ${bad}: `));
});

test('a reservation is priced at the committed-use rate and says why; idle scale-from-0 capacity costs nothing idle', () => {
  const { stackCost } = require('../../review/cost');
  const infra = infraJson();
  const flex = infra.resource.google_container_node_pool['tpu-32'];
  delete flex.node_count;
  flex.node_config.flex_start = true;
  flex.node_config.reservation_affinity = { consume_reservation_type: 'NO_RESERVATION' };
  flex.autoscaling = { total_min_node_count: 0, total_max_node_count: 8 };
  const m = extractStack('infra', asTf(infra));
  const prices = loadPrices();
  const cost = stackCost(m, prices);
  const byName = (n: string) => cost.pools.find((c: any) => c.pool.name === n);
  // the 8-chip slice is reservation-bound: 1-year commitment rate (TPU reservations require a CUD), billed idle too
  expect(byName('tpu-v6e-8-8t-0')).toMatchObject({ rate: 'commit-1y', chipHour: 1.89, idleHourly: 8 * 1.89, runningHourly: 8 * 1.89 });
  expect(byName('tpu-v6e-8-8t-0').rateWhy).toMatch(/You can only use a reservation for TPUs if you have a committed use discount/);
  // the flex-start 4x8 slice scales 0..8: nothing idle, the flex-start price while running
  expect(byName('tpu-v6e-32-0')).toMatchObject({ rate: 'flex-start', estimate: true, idleHourly: 0, runningHourly: 32 * 1.35 });
  // cpu-np autoscales 0..4: idle at its minimum (0)
  expect(byName('cpu-np')).toMatchObject({ idleHourly: 0 });
  expect(cost.idleHourly).toBeCloseTo(8 * 1.89 + 0.1);
  const md = renderReport({ models: [m], findings: [], prices, source: 'fixtures' });
  expect(md).toContain('| tpu-v6e-32-0 | ct6e-standard-4t | 4x8 | 32 | 8 | flex-start | flex-start $1.35/chip-h (estimate) | $0.00 (scales from 0 (autoscaling 0..8): nothing billed while idle) | $43.20 |');
  expect(md).toContain('Rate assumed for reservation-bound pools: **1-year commitment**');
  expect(md).toContain('Estimates (not list prices): v6e 1-year commitment, v6e 3-year commitment, v6e spot, v6e flex-start.');
});

test('a stack past the chips or hourly threshold gets a finding; the thresholds come from the table or the flags', () => {
  const ms = models();
  expect(review(ms).filter((f) => f.rule.startsWith('stack-'))).toEqual([]);
  const low = loadPrices(undefined, { stackChips: 32, stackHourly: 50 });
  const found = review(ms, [], [], low).filter((f) => f.rule.startsWith('stack-'));
  expect(found.map((f) => [f.rule, f.severity, f.stack])).toEqual([
    ['stack-chips-over-threshold', 'warning', 'infra'],
    ['stack-hourly-over-threshold', 'warning', 'infra'],
  ]);
  expect(found[0]!.message).toBe('infra holds 40 TPU chips (tpu-v6e-32-0 32, tpu-v6e-8-8t-0 8), above the threshold of 32');
  expect(found[1]!.message).toMatch(/^infra costs ~\$\d+\.\d\d\/h with all its capacity running \(idle ~\$\d+\.\d\d\/h\), above the threshold of \$50\.00\/h$/);
  expect(parseArgs(['--max-chips', '32', '--max-hourly', '50'])).toMatchObject({ maxChips: 32, maxHourly: 50 });
  expect(() => parseArgs(['--max-chips', 'many'])).toThrow("--max-chips must be a positive whole number, got 'many'");
});

test('long attribute values show the changed words as key: old -> new, not a cut-off prefix', () => {
  const { attributeLine } = require('../../review/report');
  const cmd = (batch: number, scan: string) => JSON.stringify(`set -eu\nexec python3 -m maxtext.trainers.post_train.rl.train_rl \\\n  model_name=qwen3 \\\n  ${'x'.repeat(90)}=1 \\\n  batch_size=${batch} \\\n  scan_layers=${scan}`);
  expect(attributeLine('manifest.spec.args[0]', cmd(8, 'True'), cmd(16, 'False'))).toBe('`manifest.spec.args[0]`: `batch_size: 8 -> 16`, `scan_layers: True -> False`');
  expect(attributeLine('node_count', '8', '4')).toBe('`node_count`: `8` -> `4`');
});

test('cli: --from reads a synthesis, --plan adds the plan, errors exit 1', () => {
  const infra = infraJson();
  infra.resource.google_container_cluster.gke.master_authorized_networks_config.cidr_blocks.push({ cidr_block: '0.0.0.0/0' });
  const dir = writeSynthesis({ infra, 'rl-qwen3': pipelineJson() });
  const out = path.join(dir, 'report.md');
  const plan = path.join(__dirname, 'fixtures', 'plans', 'replace-tpu-pool.json');
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    expect(main(['--from', dir, '--out', out, '--plan', `infra=${plan}`])).toBe(1);
  } finally {
    spy.mockRestore();
    err.mockRestore();
  }
  const md = fs.readFileSync(out, 'utf8');
  expect(md).toContain('control-plane allow-list contains 0.0.0.0/0');
  expect(md).toContain('## Terraform plans');
  expect(md).toContain('TPU pool tpu-v6e-32-0: topology 4x8 -> 4x4, chips 32 -> 16');
  // and without the errors the same review passes
  const clean = writeSynthesis({ infra: infraJson(), 'rl-qwen3': pipelineJson() });
  expect(run(parseArgs(['--from', clean]), clean).findings.filter((f) => f.severity === 'error')).toEqual([]);
});

function quietly<T>(f: () => T): { value: T; stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  try {
    return { value: f(), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

test('cli: --help exits 0 with the usage; a flag without its value is a usage error naming the flag (exit 2)', () => {
  const help = quietly(() => main(['--help']));
  expect(help.value).toBe(0);
  expect(help.stdout).toMatch(/^usage: npm run review -- \[options\]/);
  expect(quietly(() => main(['-h'])).value).toBe(0);
  for (const [argv, flag] of [[['--base'], '--base'], [['--out', '--quiet'], '--out'], [['--prices='], '--prices'], [['--plan'], '--plan']] as const) {
    const r = quietly(() => main([...argv]));
    expect(r.value).toBe(2);
    expect(r.stderr).toBe(`review: ${flag} needs a value (see --help)\n`);
  }
  const prices = priceFile({ ...BUILT_IN, clusterManagementFeePerHour: '0.10' });
  const dir = writeSynthesis({ infra: infraJson() });
  const badPrices = quietly(() => main(['--from', dir, '--out', path.join(dir, 'r.md'), '--prices', prices]));
  expect(badPrices).toMatchObject({ value: 2, stderr: `review: price file ${prices}: clusterManagementFeePerHour: Expected number, received string (see jobs/prices.json for the shape)\n` });
  const unknown = quietly(() => main(['--bogus']));
  expect(unknown).toMatchObject({ value: 2, stderr: "review: unknown option '--bogus' (see --help)\n" });
});

test('cli: a plan file that is not JSON is named (exit 2); a no-changes plan exits 0; a plan of another stack is an error', () => {
  const dir = writeSynthesis({ infra: infraJson(), 'rl-qwen3': pipelineJson() });
  const out = path.join(dir, 'report.md');
  const bad = path.join(dir, 'bad.json');
  fs.writeFileSync(bad, '{"format_version": ');
  const r = quietly(() => main(['--from', dir, '--out', out, '--plan', `infra=${bad}`]));
  expect(r.value).toBe(2);
  expect(r.stderr).toMatch(new RegExp(`^review: --plan: ${bad} is not valid JSON \\(`));
  const none = path.join(__dirname, 'fixtures', 'real-plans', 'no-changes.json');
  expect(quietly(() => main(['--from', dir, '--out', out, '--quiet', '--plan', `infra=${none}`])).value).toBe(0);
  expect(fs.readFileSync(out, 'utf8')).toContain('No changes: the infrastructure matches the configuration.');
  // the rl-qwen3 plan passed as infra's
  const other = path.join(__dirname, 'fixtures', 'plans', 'tainted-training-jobset.json');
  expect(quietly(() => main(['--from', dir, '--out', out, '--quiet', '--plan', `infra=${other}`])).value).toBe(1);
  const md = fs.readFileSync(out, 'utf8');
  expect(md).toContain('plans 1 resource(s) that stack infra does not synthesize (kubernetes_manifest.train): it looks like the plan of rl-qwen3');
  // and as its own stack: the untaint command runs where cdktf runs Terraform for that stack
  expect(quietly(() => main(['--from', dir, '--out', out, '--quiet', '--plan', `rl-qwen3=${other}`])).value).toBe(1);
  expect(fs.readFileSync(out, 'utf8')).toContain(`cd ${path.relative(process.cwd(), path.join(dir, 'stacks', 'rl-qwen3'))} && terraform untaint 'kubernetes_manifest.train'`);
});

test('cli: bad arguments are usage errors (exit 2)', () => {
  expect(() => parseArgs(['--plan', 'nofile'])).toThrow(/--plan takes <stack>=<file>/);
  expect(() => parseArgs(['--bogus'])).toThrow(/unknown option/);
  expect(parseArgs(['--plan-failed', 'infra=init', '--plan-failed', 'rl-qwen3', '--expect-plan', 'infra'])).toMatchObject({
    failedPlans: ['infra', 'rl-qwen3'], failedSteps: { infra: 'init' }, expectedPlans: ['infra'],
  });
  expect(() => parseArgs(['--expect-plan', 'a b'])).toThrow("--expect-plan takes a stack name, got 'a b'");
  expect(parseArgs(['--plan-job-failed', 'synth<b>']).planJobFailed).toEqual(['synth?b?']);
  expect(parseArgs(['--base=origin/main', '--plan', 'infra=a.json', '--plan', 'rl-qwen3=b.json', '--no-synth'])).toEqual({
    out: 'review-report.md',
    base: 'origin/main',
    plans: [{ stack: 'infra', file: 'a.json' }, { stack: 'rl-qwen3', file: 'b.json' }],
    reviewed: [],
    failedPlans: [],
    failedSteps: {},
    planJobFailed: [],
    expectedPlans: [],
    maxPlanMb: 16,
    from: 'cdktf.out',
    quiet: false,
  });
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    expect(main(['--from', '/nonexistent-dir'])).toBe(2);
  } finally {
    err.mockRestore();
  }
});

test('a slice of another generation is read through the TPU table; without a rate it is named in the total, not counted as $0', () => {
  const infra = infraJson();
  const pool = infra.resource.google_container_node_pool['tpu-32'];
  pool.node_config.machine_type = 'ct5p-hightpu-4t';
  pool.placement_policy.tpu_topology = '2x2x2';
  pool.node_count = 2;
  const ms = [extractStack('infra', asTf(infra))];
  const md = renderReport({ models: ms, findings: [], prices: loadPrices(), source: 'fixtures' });
  // A v5p slice (another generation of the TPU table) is read as a slice; the built-in table has only v6e rates.
  expect(ms[0]!.tpuPools[0]!.slice).toMatchObject({ acceleratorType: 'v5p-16', chips: 8 });
  expect(md).toMatch(/no price for tpu-v6e-32-0/);
  expect(renderReport({ models: models(), findings: [], prices: loadPrices(), source: 'fixtures' })).not.toContain('no price for');
});
