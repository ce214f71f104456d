/**
 * util/edit-distance.ts: the optimal-string-alignment distance both did-you-means use, and the bounded test the
 * variables' did-you-mean runs for every environment variable on each synth (config/load.ts misspelledVariables).
 */
import { editDistance, withinEditDistance } from '../../util/edit-distance';

/** The textbook table, written out: the model the flat-table version must agree with. */
function osaModel(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + cost);
    }
  }
  return d[a.length]![b.length]!;
}

const WORDS = ['', 'a', 'ab', 'ba', 'abc', 'ca', 'abdc', 'acbd', 'badc', 'abcd', 'dcba', 'ZONE', 'ZONES', 'ZONE_', 'OZNE', 'TPU_CAPACITY', 'TPU_CAPACTIY', 'TPU_CAPCAITY', 'TPU_TOPOLOGY', 'CLUSTER_NAME', 'CLSUTER_NAME', 'CLSUTERNAME', 'PROJECT', 'PROJECT_ID', 'PRJOECT_DI', 'HF_TOKEN', 'HOME'];

test('the distance: insertions, deletions, substitutions and adjacent transpositions each count 1', () => {
  expect(editDistance('TPU_CAPACTIY', 'TPU_CAPACITY')).toBe(1);
  expect(editDistance('ZONE', 'ZONES')).toBe(1);
  expect(editDistance('ZONES', 'ZONE')).toBe(1);
  expect(editDistance('ZONE', 'ZINE')).toBe(1);
  expect(editDistance('abc', 'abc')).toBe(0);
  expect(editDistance('', 'abc')).toBe(3);
  expect(editDistance('ca', 'abc')).toBe(3);
  for (const a of WORDS) for (const b of WORDS) expect([a, b, editDistance(a, b)]).toEqual([a, b, osaModel(a, b)]);
});

test('withinEditDistance is editDistance <= limit for every pair and limit (the length rule, the band and the early stop only skip work)', () => {
  for (const a of WORDS) for (const b of WORDS) for (const limit of [0, 1, 2, 3]) {
    expect([a, b, limit, withinEditDistance(a, b, limit)]).toEqual([a, b, limit, osaModel(a, b) <= limit]);
  }
});
