/**
 * End to end on the real app: synthesize main.ts with the example config (in-process, into a temp outdir), review
 * every stack, render the report; and synthesize HEAD in a temporary worktree as `--base` does.
 * Skipped only while main.ts does not exist yet.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { modelsOf } from '../../review/cli';
import { diffSyntheses, synthesizeRef } from '../../review/diff';
import { review } from '../../review/findings';
import { readSynthesis, Synthesis } from '../../review/load';
import { loadPrices } from '../../jobs/prices';
import { renderReport } from '../../review/report';

const ROOT = path.resolve(__dirname, '..', '..');
const hasApp = fs.existsSync(path.join(ROOT, 'main.ts'));
const maybe = hasApp ? describe : describe.skip;

/** Runs main.ts in this process with CDKTF_OUTDIR pointing at a temp dir, like `node dist/main.js` does. */
function synthesizeInProcess(): Synthesis {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'review-e2e-'));
  const saved = { ...process.env };
  // The example config only: no developer env overrides.
  for (const key of ['CONFIG_FILE', 'PROJECT', 'TOPOLOGY', 'COMPUTE_TYPE', 'RESERVATION', 'STATE_BUCKET', 'DNS_ENDPOINT', 'AUTHORIZED_CIDR']) delete process.env[key];
  process.env.CDKTF_OUTDIR = outdir;
  try {
    jest.isolateModules(() => {
      require(path.join(ROOT, 'main'));
    });
  } finally {
    process.env = saved;
  }
  return readSynthesis(outdir);
}

maybe('review of the real synthesized app', () => {
  let synthesis: Synthesis;
  beforeAll(() => {
    synthesis = synthesizeInProcess();
  });

  test('the example config has no error findings', () => {
    const models = modelsOf(synthesis);
    const findings = review(models, synthesis.stacks.map((s) => ({ stack: s.name, text: s.text, json: s.json })));
    const errors = findings.filter((f) => f.severity === 'error').map((f) => `${f.rule} ${f.stack} ${f.address}: ${f.message}`);
    expect(errors).toEqual([]);
  });

  test('infra: every TPU pool is a known v6e slice with a fixed size, a reservation, the node SA; the Kueue quota is found', () => {
    const infra = modelsOf(synthesis).find((m) => m.name === 'infra')!;
    expect(infra.tpuPools.length).toBeGreaterThan(0);
    for (const p of infra.tpuPools) {
      expect(p.slice).toBeDefined();
      expect(p.nodeCount).toBe(p.slice!.vms);
      expect(p.autoscaling).toBeUndefined();
      expect(p.serviceAccount).toMatch(/@.*\.iam\.gserviceaccount\.com$/);
    }
    expect(infra.controlPlanes).toHaveLength(1);
    expect(infra.kueue.map((q) => q.tpuChips)).toEqual([infra.tpuPools.reduce((sum, p) => sum + p.slice!.chips, 0)]);
    expect(infra.workloadIdentity.length).toBeGreaterThan(0);
  });

  test('pipeline stacks have an ordered step graph on a slice infra has', () => {
    const models = modelsOf(synthesis);
    const shapes = models.flatMap((m) => m.tpuPools).map((p) => p.slice!.topology);
    for (const m of models.filter((x) => x.name !== 'infra')) {
      expect(m.pipeline).toBeDefined();
      expect(m.pipeline!.steps.map((s) => s.kind)).toEqual(['conversion', 'training', 'export']);
      expect(m.pipeline!.edges).toEqual([
        [m.pipeline!.steps[0]!.name, m.pipeline!.steps[1]!.name],
        [m.pipeline!.steps[1]!.name, m.pipeline!.steps[2]!.name],
      ]);
      if (m.pipeline!.tpuTopology) expect(shapes).toContain(m.pipeline!.tpuTopology);
      for (const s of m.pipeline!.steps) expect(s.images.length).toBeGreaterThan(0);
    }
  });

  test('the report renders and fits in one pull-request comment', () => {
    const models = modelsOf(synthesis);
    const md = renderReport({ models, findings: review(models), prices: loadPrices(), source: 'e2e' });
    expect(md).toContain('## Capacity and cost');
    expect(md).toContain('## Access');
    expect(md).toContain('## Pipelines');
    expect(md.length).toBeLessThan(65000);
  });

  test('--base synthesizes a git ref in a temporary worktree and diffs it', () => {
    // This checkout may itself be a worktree (.git is a file then): ask git where its directory is.
    const gitDir = path.resolve(ROOT, execFileSync('git', ['-C', ROOT, 'rev-parse', '--git-dir'], { encoding: 'utf8' }).trim());
    const commonDir = path.resolve(ROOT, execFileSync('git', ['-C', ROOT, 'rev-parse', '--git-common-dir'], { encoding: 'utf8' }).trim());
    const worktreesBefore = fs.existsSync(path.join(commonDir, 'worktrees')) ? fs.readdirSync(path.join(commonDir, 'worktrees')) : [];
    const before = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8');
    const base = synthesizeRef(ROOT, 'HEAD');
    expect(base.outdir).toMatch(/^HEAD \([0-9a-f]{10}\)$/);
    expect(base.stacks.map((s) => s.name)).toContain('infra');
    const diffs = diffSyntheses(base, synthesis);
    expect(diffs.map((d) => d.stack)).toEqual(expect.arrayContaining(synthesis.stacks.map((s) => s.name)));
    // the worktree is gone and the checkout untouched
    expect(fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8')).toBe(before);
    const worktrees = fs.existsSync(path.join(commonDir, 'worktrees')) ? fs.readdirSync(path.join(commonDir, 'worktrees')) : [];
    expect(worktrees.filter((w) => w.startsWith('src') && !worktreesBefore.includes(w))).toEqual([]);
  });
});
