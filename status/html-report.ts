/**
 * `npm run report -- <pipeline>`: one self-contained HTML page of a pipeline run, from the same poll `status` makes
 * (status/model.ts PipelineStatus): every step's state and its lineage lines, the whole run's cost, per training or
 * eval step the chip-hours and cost against the review's estimate, the loss and step-time curves, MaxText's RL
 * evaluation before/after and the eval step's base-vs-trained scores. It opens offline: the plotting library, uPlot
 * (npm `uplot` 1.6.32, MIT: a ~50 KB canvas chart of x/y series, kept by its author since 2019), is inlined from its
 * minified IIFE build with its CSS, and the numbers travel as JSON in the page. Pure: the CLI reads the library's
 * files and writes the page.
 */
import { PipelineStatus, RunSummary } from './model';
import { chipHoursText, lossSeries, runLines } from './render';

/** uPlot's minified browser build and its stylesheet, as text (the CLI reads them from node_modules/uplot/dist). */
export interface PlotLibrary {
  readonly js: string;
  readonly css: string;
}

/** One chart of the page: x and y series of equal length. */
export interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly x: readonly number[];
  readonly y: readonly number[];
}

function html(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Text inside a <script> element: no `</script` (nor `<!--`) can end or bend it. */
function scriptText(text: string): string {
  return text.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** JSON safe inside <script type="application/json">. */
function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/** Seconds per step between consecutive timed step lines, at the later step: [[step, seconds], ...]. */
export function stepTimeSeries(run: RunSummary): Array<[number, number]> {
  const timed = run.points.filter((p) => p.at !== undefined);
  const out: Array<[number, number]> = [];
  for (let i = 1; i < timed.length; i++) {
    const steps = timed[i]!.step - timed[i - 1]!.step;
    if (steps > 0) out.push([timed[i]!.step, Math.round(((timed[i]!.at! - timed[i - 1]!.at!) / 1000 / steps) * 1000) / 1000]);
  }
  return out;
}

/** The charts of one step's run: loss and step time, each when it has a point. */
export function chartsOf(pipeline: string, stepName: string, run: RunSummary): ChartSpec[] {
  const out: ChartSpec[] = [];
  const loss = lossSeries(run);
  if (loss.length > 0) out.push({ id: `${stepName}-loss`, title: `${pipeline} ${stepName}: training loss`, xLabel: 'step', yLabel: 'loss', x: loss.map((p) => p[0]), y: loss.map((p) => p[1]) });
  const time = stepTimeSeries(run);
  if (time.length > 0) out.push({ id: `${stepName}-step-time`, title: `${pipeline} ${stepName}: seconds per step`, xLabel: 'step', yLabel: 'seconds', x: time.map((p) => p[0]), y: time.map((p) => p[1]) });
  return out;
}

function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return `<table><thead><tr>${head.map((h) => `<th>${html(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${html(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

const fmt = (v: number | null) => (v === null ? 'n/a' : String(Math.round(v * 10_000) / 10_000));

function runSection(stepName: string, run: RunSummary, charts: ChartSpec[], extra: readonly string[] = []): string {
  const out: string[] = [`<section><h2>${html(stepName)}</h2>`];
  // The curves first: the page is to be looked at.
  for (const c of charts) out.push(`<figure><div class="chart" id="${html(c.id)}" aria-label="${html(c.title)}"></div></figure>`);
  out.push(`<ul>${[...runLines(run), ...extra].map((l) => `<li>${html(l)}</li>`).join('')}</ul>`);
  const u = run.usage;
  if (u) {
    out.push(
      table(['', 'chip-hours', 'cost'], [
        [`held (Kueue admission to ${u.ended ? 'end' : 'now'})`, chipHoursText(u.chipHours), u.costText ?? 'no price'],
        ['review estimate (chips x wait timeout)', chipHoursText(u.estimateChipHours), u.estimateCostText ?? 'no price'],
      ]),
    );
  }
  const e = run.evaluation;
  if (e) {
    const row = (label: string, r?: { correct: number; total: number; accuracy: number; meanReward?: number }) =>
      r ? [label, `${r.correct} / ${r.total}`, `${r.accuracy}%`, r.meanReward !== undefined ? String(r.meanReward) : ''] : [label, 'not in the log', '', ''];
    out.push('<h3>MaxText evaluation, before and after training</h3>', table(['', 'correct / total', 'accuracy', 'mean reward'], [row('before training', e.before), row('after training', e.after)]));
  }
  if (run.eval) {
    out.push(
      '<h3>Eval: base vs trained</h3>',
      table(['task', 'metric', 'base', 'trained', 'delta'], run.eval.results.map((r) => [r.task, `${r.metric}${r.higherIsBetter ? '' : ' (lower is better)'}`, fmt(r.base), fmt(r.trained), fmt(r.delta)])),
    );
    if (run.eval.gate) out.push(`<p>gate ${html(run.eval.gate.metric)} minDelta ${run.eval.gate.minDelta}: <b>${run.eval.gate.passed ? 'passed' : 'FAILED'}</b></p>`);
  }
  out.push('</section>');
  return out.join('\n');
}

/** Draws every chart spec with uPlot, at the width of its box, again on resize; records what it drew on <body>. */
const DRAW = `
(function () {
  var specs = JSON.parse(document.getElementById('report-data').textContent);
  var plots = [];
  function opts(s, width) {
    return { title: s.title, width: width, height: 280, scales: { x: { time: false } },
      series: [{ label: s.xLabel }, { label: s.yLabel, stroke: '#1a73e8', width: 2, points: { show: s.x.length <= 60 } }],
      axes: [{ label: s.xLabel }, { label: s.yLabel }] };
  }
  specs.forEach(function (s) {
    var el = document.getElementById(s.id);
    plots.push(new uPlot(opts(s, Math.max(240, el.clientWidth)), [s.x, s.y], el));
  });
  window.addEventListener('resize', function () {
    plots.forEach(function (u, i) { u.setSize({ width: Math.max(240, document.getElementById(specs[i].id).clientWidth), height: 280 }); });
  });
  document.body.setAttribute('data-charts-drawn', String(plots.length));
})();
`;

/** The page. `generatedAt` is epoch ms; `cluster` names where it was read (status's header line). */
export function renderHtmlReport(p: PipelineStatus, options: { generatedAt: number; cluster: string; plot: PlotLibrary }): string {
  const charts: ChartSpec[] = [];
  const sections: string[] = [];
  for (const s of p.steps.filter((x) => x.run)) {
    const c = chartsOf(p.name, s.name, s.run!);
    charts.push(...c);
    // `status --goodput`'s line (status/goodput.ts), when it was read.
    sections.push(runSection(s.name, s.run!, c, s.details.map((d) => d.trim()).filter((d) => d.startsWith('goodput '))));
  }
  const steps = table(
    ['step', 'JobSet', 'state', 'detail'],
    p.steps.map((s) => [s.name, s.jobset, s.state, [s.reason ? `${s.reason}:` : '', s.message ?? '', s.progress ? `(${s.progress.step}/${s.progress.total} steps)` : ''].filter(Boolean).join(' ')]),
  );
  const lineage = p.steps.flatMap((s) => [
    ...s.details.filter((d) => /; run record /.test(d)) /* status/run-record.ts withLineage: jobs/lineage.ts lineageLine */.map((d) => `${s.name}: ${d.trim()}`),
    ...(s.commits ? [`${s.name}: downloaded ${Object.entries(s.commits).map(([k, v]) => `${k} ${String(v)}`).join(', ')}`] : []),
  ]);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Run report: ${html(p.name)}</title>`,
    `<style>${options.plot.css.replace(/<\//g, '<\\/')}\nbody{font-family:system-ui,sans-serif;margin:1.5rem;max-width:1100px;color:#202124}table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem;display:block;overflow-x:auto}th,td{border:1px solid #dadce0;padding:.25rem .5rem;text-align:left}th{background:#f1f3f4}figure{margin:1rem 0}.chart{width:100%}h2{border-bottom:1px solid #dadce0}</style>`,
    '</head><body>',
    `<h1>Run report: <code>${html(p.name)}</code></h1>`,
    `<p>Read from ${html(options.cluster)} at ${new Date(options.generatedAt).toISOString()} by <code>npm run report -- ${html(p.name)}</code>.</p>`,
    ...(p.cost ? [`<h2>Whole run</h2><p>${html(p.cost.text)}</p>`] : []),
    ...sections,
    '<h2>Steps</h2>',
    steps,
    ...(lineage.length > 0 ? [`<h2>Lineage</h2><ul>${lineage.map((l) => `<li>${html(l)}</li>`).join('')}</ul>`] : []),
    `<script>${scriptText(options.plot.js)}</script>`,
    `<script type="application/json" id="report-data">${jsonText(charts)}</script>`,
    `<script>${DRAW}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}
