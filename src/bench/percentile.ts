/** The benchmarks' percentile: the nearest-rank value at `p` (0 to 1) of `xs` (any order); 0 for none. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
