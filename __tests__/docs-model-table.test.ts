/**
 * docs/pipelines.md "The model table" re-states jobs/models.ts (the one home of model facts) for readers: every row
 * and every fact of it is checked against the table here, so a changed or added row fails until the docs say the same.
 */
import * as fs from 'fs';
import * as path from 'path';
import { exportNameOf, MODEL_KEYS, MODELS, rlSamplerPaths } from '../jobs/models';

const DOC = path.join(__dirname, '..', 'docs', 'pipelines.md');

/** The rows of the first Markdown table after `heading`, as { column: cell }. */
function tableAfter(markdown: string, heading: string): Array<Record<string, string>> {
  const lines = markdown.slice(markdown.indexOf(heading)).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split('|').map((c) => c.trim()));
  }
  const [header, , ...body] = rows;
  return body.map((cells) => Object.fromEntries(header!.map((h, i) => [h, cells[i] ?? ''])));
}

const rows = tableAfter(fs.readFileSync(DOC, 'utf8'), '### The model table');
const billions = (text: string) => Number(text) * 1e9;
const SAMPLER: Record<string, string> = { vllm: 'vLLM', 'maxtext-on-vllm': 'MaxText-on-vLLM' };

test('the docs list every key of jobs/models.ts, once each, in table order', () => {
  expect(rows.map((r) => r.key!.replace(/`/g, ''))).toEqual(MODEL_KEYS);
});

describe.each(MODEL_KEYS.map((k) => [k] as const))('docs/pipelines.md model table row %s agrees with jobs/models.ts', (key) => {
  const row = MODELS[key]!;
  const doc = () => rows.find((r) => r.key === `\`${key}\``)!;

  test('parameters (active for MoE), layers, hidden, heads / KV, head dim, vocab', () => {
    const params = /^([\d.]+)B(?: \(([\d.]+)B\))?/.exec(doc()['params (active)']!);
    expect(params).not.toBeNull();
    expect(billions(params![1]!)).toBeCloseTo(row.params, -6);
    if (row.activeParams !== undefined) expect(billions(params![2]!)).toBeCloseTo(row.activeParams, -6);
    else expect(params![2]).toBeUndefined();
    expect(doc()).toMatchObject({
      layers: String(row.layers),
      hidden: String(row.hidden),
      'heads / KV': `${row.heads} / ${row.kvHeads}`,
      'head dim': String(row.headDim),
      vocab: String(row.vocab),
    });
  });

  test('experts, HF architecture, both ways, RL sampler paths, export name', () => {
    const experts = doc().experts!;
    if (row.experts) expect(experts).toMatch(new RegExp(`^${row.experts.total}, ${row.experts.perToken}( per token)?$`));
    else expect(experts).toBe('-');
    expect(doc()['HF architecture']).toBe(row.hfArchitectures.join(', '));
    expect(doc()['both ways']).toBe(row.convertsBothWays ? 'yes' : 'no');
    expect(doc()['RL sampler']!.replace(/ \(.*\)$/, '')).toBe(rlSamplerPaths(key).map((p) => SAMPLER[p]).join(', '));
    expect(doc()['export name']!.replace(/ \(.*\)$/, '')).toBe(`\`${exportNameOf(key)}\``);
  });
});
