/**
 * The program's one edit distance (config/load.ts did-you-mean for variables, jobs/spec.ts didYouMean for keys and
 * names).
 */
/** Edit distance with adjacent transpositions (optimal string alignment): `TPU_CAPACTIY` is 1 from `TPU_CAPACITY`. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + cost);
    }
  }
  return d[a.length]![b.length]!;
}
