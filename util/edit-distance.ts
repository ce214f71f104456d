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
 * `editDistance(a, b) <= limit`, measured only when the lengths allow it: a distance is at least the difference of the
 * lengths, so most pairs of names are ruled out without a table.
 */
export function withinEditDistance(a: string, b: string, limit: number): boolean {
  return Math.abs(a.length - b.length) <= limit && editDistance(a, b) <= limit;
}
