/**
 * `npm run status -- <pipeline> --report`: one Markdown file per pipeline run, fit to attach to a pull request or a
 * ticket: every step's state, the training step's chip-hours and cost against the review's estimate, MaxText's
 * evaluation before and after, and the training curve as an inline SVG chart with its numbers. Pure: the CLI writes
 * the file.
 */
import { PipelineStatus } from './model';
import { chipHoursText, lossSeries, runLines } from './render';
import { evalTable } from './eval';

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Three significant digits, for axis labels. */
function short(n: number): string {
  return Number(n.toPrecision(3)).toString();
}

/**
 * An SVG line chart of `points` ([x, y]): axes with their min and max, one polyline, a circle per point when there
 * are few. Well-formed XML (tests parse it).
 */
export function lineChart(points: ReadonlyArray<readonly [number, number]>, options: { title: string; xLabel: string; yLabel: string }): string {
  const W = 640;
  const H = 260;
  const left = 64;
  const right = 16;
  const top = 32;
  const bottom = 40;
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  const sx = (x: number) => left + (x1 === x0 ? (W - left - right) / 2 : ((x - x0) / (x1 - x0)) * (W - left - right));
  const sy = (y: number) => top + (y1 === y0 ? (H - top - bottom) / 2 : ((y1 - y) / (y1 - y0)) * (H - top - bottom));
  const path = points.map((p) => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(' ');
  const dots = points.length <= 60 ? points.map((p) => `<circle cx="${sx(p[0]).toFixed(1)}" cy="${sy(p[1]).toFixed(1)}" r="2.5" fill="#1a73e8"/>`).join('') : '';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${xml(options.title)}">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-family="sans-serif" font-size="14">${xml(options.title)}</text>`,
    `<line x1="${left}" y1="${H - bottom}" x2="${W - right}" y2="${H - bottom}" stroke="#555"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${H - bottom}" stroke="#555"/>`,
    `<text x="${left - 6}" y="${top + 4}" text-anchor="end" font-family="sans-serif" font-size="11">${short(y1)}</text>`,
    `<text x="${left - 6}" y="${H - bottom}" text-anchor="end" font-family="sans-serif" font-size="11">${short(y0)}</text>`,
    `<text x="${left}" y="${H - bottom + 16}" text-anchor="middle" font-family="sans-serif" font-size="11">${short(x0)}</text>`,
    `<text x="${W - right}" y="${H - bottom + 16}" text-anchor="end" font-family="sans-serif" font-size="11">${short(x1)}</text>`,
    `<text x="${W / 2}" y="${H - 8}" text-anchor="middle" font-family="sans-serif" font-size="12">${xml(options.xLabel)}</text>`,
    `<text x="14" y="${H / 2}" text-anchor="middle" font-family="sans-serif" font-size="12" transform="rotate(-90 14 ${H / 2})">${xml(options.yLabel)}</text>`,
    points.length > 0 ? `<polyline fill="none" stroke="#1a73e8" stroke-width="2" points="${path}"/>` : '',
    dots,
    `</svg>`,
  ].join('\n');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The report of one pipeline: a Markdown document. `generatedAt` is epoch ms; `cluster` names where it was read. */
export function renderRunReport(p: PipelineStatus, options: { generatedAt: number; cluster: string }): string {
  const out: string[] = [`# Run report: \`${p.name}\``, ''];
  out.push(`Read from ${options.cluster} at ${new Date(options.generatedAt).toISOString()} by \`npm run status -- ${p.name} --report\`.`, '');
  out.push('| step | JobSet | state | detail |', '|---|---|---|---|');
  for (const s of p.steps) {
    const detail = [s.reason ? `${s.reason}:` : '', s.message ?? '', s.progress ? `(${s.progress.step}/${s.progress.total} steps)` : ''].filter(Boolean).join(' ');
    out.push(`| ${s.name} | \`${s.jobset}\` | ${s.state} | ${cell(detail)} |`);
  }
  out.push('');
  if (p.cost) out.push('## Whole run', '', `- ${p.cost.text}`, '');
  for (const s of p.steps.filter((x) => x.run)) {
    const run = s.run!;
    out.push(`## ${s.name}`, '');
    for (const line of runLines(run)) out.push(`- ${line}`);
    out.push('');
    const u = run.usage;
    if (u) {
      out.push('| | chip-hours | cost |', '|---|---|---|');
      out.push(`| held (Kueue admission to ${u.ended ? 'end' : 'now'}) | ${chipHoursText(u.chipHours)} | ${u.costText ?? 'no price'} |`);
      out.push(`| review estimate (chips x wait timeout) | ${chipHoursText(u.estimateChipHours)} | ${u.estimateCostText ?? 'no price'} |`, '');
    }
    const e = run.evaluation;
    if (e) {
      out.push('| evaluation | correct / total | accuracy | mean reward |', '|---|---|---|---|');
      for (const [label, r] of [['before training', e.before], ['after training', e.after]] as const) {
        out.push(r ? `| ${label} | ${r.correct} / ${r.total} | ${r.accuracy}% | ${r.meanReward ?? ''} |` : `| ${label} | not in the log | | |`);
      }
      if (e.accuracyChange !== undefined) out.push(`| **change** | | **${e.accuracyChange >= 0 ? '+' : ''}${e.accuracyChange} points** | |`);
      out.push('');
    }
    if (run.eval) out.push(...evalTable(run.eval), '');
    const loss = lossSeries(run);
    if (loss.length > 0) {
      out.push(lineChart(loss, { title: `${p.name} ${s.name}: training loss`, xLabel: 'step', yLabel: 'loss' }), '');
      out.push('<details><summary>loss per step</summary>', '', '| step | loss |', '|---|---|');
      for (const [step, value] of loss) out.push(`| ${step} | ${value} |`);
      out.push('', '</details>', '');
    }
  }
  return out.join('\n');
}
