/**
 * `npm run report -- <pipeline>` end to end: the compiled CLI against the fake Kubernetes API (bench/fake-kube-api.ts)
 * with a finished run of every preset (conversion, training with its step lines, export, eval with its EVAL_RESULT
 * line), the HTML page it writes opened in a real headless browser, Debian's Chromium: its DOM after the scripts ran
 * (every chart drawn by uPlot, no script error), and screenshots at two widths in the test's output folder
 * (reports/test-output/html-report/, gitignored), each decoded (pngjs) and checked for the loss line's own colour.
 * Without Chromium the browser tests are skipped outside CI with the reason; in CI (.ci/run installs it) they fail.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { PNG } from 'pngjs';
import { EVAL_RESULT_PREFIX } from '../../jobs/eval';
import { emptyWorld, evalLine, iso, jobSet, pipeline, pod, rlLine, runCli, runCliOn, sftLine, workload, World, ROOT } from '../../bench/fake-kube-api';
import { fake, useFakeApis } from './fake-api-harness';
import { useCliHost } from './cli-host';

useFakeApis();
useCliHost();

export const OUTPUT = path.join(ROOT, 'reports', 'test-output', 'html-report');
const PRESETS = ['rl-qwen3', 'rl-gemma4', 'sft-gemma4', 'rl-llama3'] as const;
const LOSSES = [1.9, 1.6, 1.41, 1.2, 1.05, 0.98, 0.9, 0.84, 0.86, 0.8, 0.74, 0.71];
/** Minutes of each step line: a slower stretch in the middle (a checkpoint save), so the step-time curve has a shape. */
const MINUTES = [10, 12, 14, 16, 22, 24, 26, 28, 30, 32, 34, 36];

function completed(m: number) {
  return { terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done', lastTransitionTime: iso(m) }] };
}

/** Every step of `name` completed: training admitted at 1 and ended at 40 with its step lines; eval with its scores. */
export function finishedRun(name: string): World {
  const p = pipeline(name);
  const w = emptyWorld();
  for (const s of p.steps) {
    const js = jobSet(s, completed(s.name === 'train' ? 40 : s.name === 'eval' ? 55 : 0));
    w.jobSets.push(js);
    if (s.name !== 'train' && s.name !== 'eval') continue;
    w.workloads.push(workload(js, true, { chips: s.name === 'train' ? p.slice.chips : 8 }));
    const main = pod(js, s.mainPodSelector['jobset.sigs.k8s.io/replicatedjob-name'] ?? 'slice', { phase: 'Succeeded', containerStatuses: [{ name: 'workload-container', state: { terminated: { exitCode: 0 } } }] });
    w.pods.push(main);
    if (s.name === 'train') {
      const rl = p.recipe.train.kind !== 'sft';
      w.logs[main.metadata.name] = [
        ...(rl ? [evalLine(8, 'Pre', 10, 80, 0.1234)] : []),
        ...LOSSES.map((l, i) => (rl ? rlLine(MINUTES[i]!, i + 1, l) : sftLine(MINUTES[i]!, i + 1, l))),
        ...(rl ? [evalLine(39, 'Post', 34, 80, 0.5678)] : []),
      ];
    } else {
      const e = p.eval!;
      const record = {
        baseModel: e.baseModel, evalJson: e.evalJson, image: e.image, pipeline: name, samples: 500, seed: 1234, trainedModel: e.trainedModel,
        results: [{ task: 'gsm8k', metric: 'exact_match,strict-match', higherIsBetter: true, base: 0.6, trained: 0.7, delta: 0.1 }],
        gate: { metric: 'exact_match,strict-match', minDelta: 0, passed: true },
      };
      w.logs[main.metadata.name] = [`${iso(50)} ${EVAL_RESULT_PREFIX}${JSON.stringify(record)}`];
    }
  }
  return w;
}

async function writeReport(name: string): Promise<{ file: string; code: number | null; stdout: string; stderr: string }> {
  fs.mkdirSync(OUTPUT, { recursive: true });
  const file = path.join(OUTPUT, `${name}.html`);
  const api = await fake(finishedRun(name));
  const r = await runCliOn(api.url, ['report', name, '--out', file]);
  return { file, ...r };
}

test.each(PRESETS)('%s: one self-contained HTML page, its path printed; the numbers of the poll; uPlot inlined, nothing fetched', async (name) => {
  const { file, code, stdout } = await writeReport(name);
  expect(stdout).toBe(`${file}\n`);
  expect(code).toBe(0);
  const page = fs.readFileSync(file, 'utf8');
  expect(page.startsWith('<!doctype html>')).toBe(true);
  expect(page).toContain(`<title>Run report: ${name}</title>`);
  // Offline: no src= nor href= to anything, the library inlined (uPlot's IIFE defines `var uPlot`).
  expect(page).not.toMatch(/\s(src|href)=/);
  expect(page).toContain('var uPlot=');
  const data = JSON.parse(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(page)![1]!);
  expect(data.map((c: any) => c.id)).toEqual(['train-loss', 'train-step-time']);
  expect(data[0].y).toEqual(LOSSES);
  expect(data[0].x).toEqual(LOSSES.map((_, i) => i + 1));
  // Seconds per step between consecutive lines: 120 s, then 360 s across the slow stretch.
  expect(data[1].y.slice(0, 4)).toEqual([120, 120, 120, 360]);
  expect(page).toContain('<h3>Eval: base vs trained</h3>');
  expect(page).toContain('<td>gsm8k</td><td>exact_match,strict-match</td><td>0.6</td><td>0.7</td><td>0.1</td>');
  expect(page).toContain('<h2>Whole run</h2>');
  expect(page).toMatch(/<h2>Lineage<\/h2><ul><li>to-maxtext: converted /);
  // The curves come before the tables: the first chart precedes the steps table.
  expect(page.indexOf('id="train-loss"')).toBeLessThan(page.indexOf('<h2>Steps</h2>'));
  if (name !== 'sft-gemma4') expect(page).toContain('<td>before training</td><td>10 / 80</td><td>12.5%</td><td>0.1234</td>');
});

test.each([
  [['report'], 'status: --report takes exactly one pipeline, got none'],
  [['report', 'rl-qwen3', '--watch'], 'status: --report writes a file once: leave out --watch and --json'],
])('%j exits 2: %s', async (args, message) => {
  const r = await runCli(args, { HOME: '/nonexistent-home' });
  expect(r.code).toBe(2);
  expect(r.stderr.split('\n')[0]).toBe(message);
});

// ---- in a real browser -------------------------------------------------------------------------------------------

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((c) => fs.existsSync(c));
const browserTest = CHROMIUM || process.env.CI ? test : test.skip;
if (!CHROMIUM && !process.env.CI) console.warn('html-report: Chromium not installed (apt-get install -y chromium): the browser tests are skipped outside CI');

function chromium(args: string[]): Promise<{ stdout: string; stderr: string }> {
  if (!CHROMIUM) throw new Error('Chromium is not installed: .ci/run installs it (apt-get install -y chromium)');
  return new Promise((resolve, reject) => {
    execFile(
      CHROMIUM,
      ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--no-first-run', '--disable-extensions', '--enable-logging=stderr', '--v=0', '--virtual-time-budget=5000', ...args],
      { timeout: 120_000, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => (err ? reject(Object.assign(err, { stderr })) : resolve({ stdout, stderr })),
    );
  });
}

/** Console messages Chromium logged (`CONSOLE(<line>)] "<message>"`), errors and warnings alike. */
function consoleMessages(stderr: string): string[] {
  return stderr.split('\n').filter((l) => /CONSOLE|Uncaught/.test(l));
}

/** Pixels of the loss line's colour (#1a73e8, uPlot's stroke, give or take antialiasing). */
function lineColoured(png: PNG): number {
  let n = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    const [r, g, b] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
    if (Math.abs(r - 0x1a) < 24 && Math.abs(g - 0x73) < 24 && Math.abs(b - 0xe8) < 24) n++;
  }
  return n;
}

browserTest.each(PRESETS)('%s in Chromium: every chart drawn, no console message; screenshots at 1200 and 420 px wide show the curves', async (name) => {
  const { file } = await writeReport(name);
  const url = `file://${file}`;
  const dom = await chromium(['--dump-dom', url]);
  expect(consoleMessages(dom.stderr)).toEqual([]);
  expect(dom.stdout).toContain('data-charts-drawn="2"');
  expect((dom.stdout.match(/<canvas/g) ?? []).length).toBe(2);
  for (const [width, height] of [[1200, 2400], [420, 1800]] as const) {
    const shot = path.join(OUTPUT, `${name}-${width}.png`);
    fs.rmSync(shot, { force: true });
    const r = await chromium([`--screenshot=${shot}`, `--window-size=${width},${height}`, url]);
    expect(consoleMessages(r.stderr)).toEqual([]);
    const png = PNG.sync.read(fs.readFileSync(shot));
    expect(png.width).toBe(width);
    // Not blank: some pixels are not white, and the series line is drawn (its colour appears nowhere else on the page).
    let ink = 0;
    for (let i = 0; i < png.data.length; i += 4) if (png.data[i]! < 200 || png.data[i + 1]! < 200 || png.data[i + 2]! < 200) ink++;
    expect(ink).toBeGreaterThan(5000);
    expect(lineColoured(png)).toBeGreaterThan(200);
  }
}, 300_000);
