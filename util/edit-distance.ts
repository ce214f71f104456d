/**
 * The program's one edit distance (config/load.ts did-you-mean for variables, jobs/spec.ts didYouMean for keys and
 * names).
 */
/** Edit distance with adjacent transpositions (optimal string alignment): `TPU_CAPACTIY` is 1 from `TPU_CAPACITY`. */
export function editDistance(a: string, b: string): number {
  // One flat table, row i at i * w (the did-you-mean of every environment variable runs this on each synth).
  const w = b.length + 1;
  const d = new Uint32Array((a.length + 1) * w);
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    d[i * w] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[(i - 1) * w + j]! + 1, d[i * w + j - 1]! + 1, d[(i - 1) * w + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[(i - 2) * w + j - 2]! + cost);
      d[i * w + j] = v;
    }
  }
  return d[a.length * w + b.length]!;
}

/**
 * `editDistance(a, b) <= limit`, computed only as far as that question needs (the variables' did-you-mean asks it for
 * every environment variable and known name on each synth, in code too short-lived to be optimized): a distance is at
 * least the difference of the lengths, so most pairs stop there; the rest fill only the cells within `limit` of the
 * diagonal (any other is further than `limit`) and stop at the first row with none within it (no later row can come
 * back under: each row's best is at most one more than the row before's, transpositions included).
 */
export function withinEditDistance(a: string, b: string, limit: number): boolean {
  if (Math.abs(a.length - b.length) > limit) return false;
  const over = limit + 1;
  const w = b.length + 1;
  const d = new Uint32Array((a.length + 1) * w).fill(over);
  for (let j = 0; j <= Math.min(b.length, limit); j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    if (i <= limit) d[i * w] = i;
    let best = i <= limit ? i : over;
    for (let j = Math.max(1, i - limit); j <= Math.min(b.length, i + limit); j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[(i - 1) * w + j]! + 1, d[i * w + j - 1]! + 1, d[(i - 1) * w + j - 1]! + cost, over);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[(i - 2) * w + j - 2]! + cost);
      d[i * w + j] = v;
      best = Math.min(best, v);
    }
    if (best > limit) return false;
  }
  return d[a.length * w + b.length]! <= limit;
}
