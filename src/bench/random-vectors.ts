/** Seeded test and benchmark data for the vector index: the same numbers on every run. */

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal sample (Box-Muller). */
export function gauss(r: () => number): number {
  return Math.sqrt(-2 * Math.log(Math.max(r(), 1e-12))) * Math.cos(2 * Math.PI * r());
}

/** Points around `clusters` random centres; `spread` 1 puts as much noise as signal in each point. */
export function clustered(dim: number, clusters: number, spread: number, seed: number): () => Float32Array {
  const r = rng(seed);
  const centres = Array.from({ length: clusters }, () => Float32Array.from({ length: dim }, () => gauss(r)));
  return () => {
    const c = centres[Math.floor(r() * clusters)]!;
    return Float32Array.from({ length: dim }, (_, i) => c[i]! + spread * gauss(r));
  };
}
