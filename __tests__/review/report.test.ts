import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main, parseArgs, run } from '../../review/cli';
import { review } from '../../review/findings';
import { durationSeconds, extractStack, gcsUses } from '../../review/model';
import { loadPrices } from '../../review/prices';
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

test('a price file overrides the built-in table and the report names it', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prices-')), 'p.json');
  fs.writeFileSync(file, JSON.stringify({ ...loadPrices(), name: 'negotiated', date: '2026-01-01', tpuChipHour: { v6e: { reservation: 1 } } }));
  const prices = loadPrices(file);
  const md = renderReport({ models: models(), findings: [], prices, source: 'fixtures' });
  expect(md).toContain('| tpu-v6e-32-0 | ct6e-standard-4t | 4x8 | 32 | 8 | reservation tpu-v6e-32-0-reservation | $32.00 |');
  expect(md).toContain(`_Prices: negotiated, 2026-01-01`);
  expect(md).toContain(file);
  fs.writeFileSync(file, JSON.stringify({ name: 'broken' }));
  expect(() => loadPrices(file)).toThrow(/must have a 'date' field/);
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

test('cli: bad arguments are usage errors (exit 2)', () => {
  expect(() => parseArgs(['--plan', 'nofile'])).toThrow(/--plan takes <stack>=<file>/);
  expect(() => parseArgs(['--bogus'])).toThrow(/unknown option/);
  expect(parseArgs(['--base=origin/main', '--plan', 'infra=a.json', '--plan', 'rl-qwen3=b.json', '--no-synth'])).toEqual({
    out: 'review-report.md',
    base: 'origin/main',
    plans: [{ stack: 'infra', file: 'a.json' }, { stack: 'rl-qwen3', file: 'b.json' }],
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

test('a slice the price table has no rate for is named in the total, not silently counted as $0', () => {
  const infra = infraJson();
  const pool = infra.resource.google_container_node_pool['tpu-32'];
  pool.node_config.machine_type = 'ct5p-hightpu-4t';
  pool.placement_policy.tpu_topology = '2x2x2';
  pool.node_count = 2;
  const ms = [extractStack('infra', asTf(infra))];
  const md = renderReport({ models: ms, findings: [], prices: loadPrices(), source: 'fixtures' });
  expect(md).toContain('The TPU figure leaves out v5p-16: the price table has no rate for it');
  expect(renderReport({ models: models(), findings: [], prices: loadPrices(), source: 'fixtures' })).not.toContain('leaves out');
});
