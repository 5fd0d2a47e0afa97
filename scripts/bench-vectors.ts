/**
 * Measures the vector store and the HNSW index on clustered synthetic 384-d data.
 *
 *   node --import tsx scripts/bench-vectors.ts [--sizes 10000,100000,300000] [--hnsw 100000] [--dim 384]
 *        [--M 16] [--efc 64] [--spread 1.5]
 *
 * Prints wall time and, for builds, CPU time (the machines are shared: CPU time is steadier); the
 * size of the in-memory vector region (int8 codes); and the recall@10 of exact search over those
 * codes against float64 cosine over the vectors as generated. RECALL_VECTORS_SIMD=0 measures the
 * plain JS fallback.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { clustered } from '../src/bench/random-vectors';
import { HnswIndex } from '../src/core/vectors/hnsw';
import { VectorStore } from '../src/core/vectors/store';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const sizes = opt('sizes', '10000,100000,300000').split(',').map(Number);
const hnswAt = new Set(opt('hnsw', '100000').split(',').map(Number));
const dim = Number(opt('dim', '384'));
const M = Number(opt('M', '16'));
const efConstruction = Number(opt('efc', '64'));
const spread = Number(opt('spread', '1.5'));

/** The vectors of a store of n: the same sequence every time. */
const generator = (n: number): (() => Float32Array) => clustered(dim, Math.max(20, Math.round(n / 200)), spread, n);

/** Recall@10 of `search` against float64 cosine, generating the n vectors again rather than keeping them. */
function recallVsFloat64(n: number, queries: Float32Array[], search: (q: Float32Array) => number[]): number {
  const gen = generator(n);
  const tops = queries.map(() => [] as { id: number; s: number }[]);
  for (let id = 0; id < n; id++) {
    const v = gen();
    let vv = 0;
    for (let i = 0; i < dim; i++) vv += v[i] * v[i];
    const inv = 1 / Math.sqrt(vv);
    queries.forEach((q, j) => {
      let d = 0;
      for (let i = 0; i < dim; i++) d += q[i] * v[i];
      const top = tops[j];
      if (top.length === 10 && d * inv <= top[9].s) return;
      top.push({ id, s: d * inv });
      top.sort((a, b) => b.s - a.s);
      if (top.length > 10) top.pop();
    });
  }
  let hit = 0;
  queries.forEach((q, j) => {
    const want = new Set(tops[j].map((h) => h.id));
    for (const id of search(q)) if (want.has(id)) hit++;
  });
  return hit / (10 * queries.length);
}
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const f = (x: number, d = 1): string => x.toFixed(d);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-bench-vectors-'));
try {
  console.log(
    `# ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; ${dim}-d, spread ${spread}`,
  );
  for (const n of sizes) {
    const file = path.join(dir, `v${n}.f32`);
    const gen = generator(n);
    let t = performance.now();
    const store = VectorStore.create(file, dim, 'bench');
    for (let id = 0; id < n; id++) {
      store.add(id, gen());
      if (id % 1000 === 999) store.flush();
    }
    store.flush();
    const addMs = performance.now() - t;
    store.close();
    t = performance.now();
    const c0 = cpuMs();
    const r = VectorStore.load(file, dim, 'bench');
    const loadMs = performance.now() - t;
    const loadCpu = cpuMs() - c0;
    if (!r.ok) throw new Error(r.reason);
    const s = r.store;
    const queries = Array.from({ length: 100 }, gen);
    const lat = queries.map((q) => {
      const t0 = performance.now();
      s.search(q, 10);
      return performance.now() - t0;
    });
    const recall = recallVsFloat64(n, queries.slice(0, 20), (q) => s.search(q, 10).map((h) => h.id));
    console.log(
      `n=${n}: add+flush ${f(addMs / 1000)} s, file ${f(fs.statSync(file).size / 1e6)} MB, load ${f(loadMs, 0)} ms (cpu ${f(loadCpu, 0)}), ` +
        `exact top-10 p50 ${f(pct(lat, 0.5), 2)} ms p95 ${f(pct(lat, 0.95), 2)} ms, recall@10 vs float64 ${f(recall, 3)}, ` +
        `vectors in memory ${f(s.arena.byteLength / 1e6)} MB (${s.arena.stride} B a vector, SIMD ${s.arena.simd ? 'on' : 'off'}), ` +
        `rss ${f(process.memoryUsage().rss / 1e6, 0)} MB`,
    );
    if (hnswAt.has(n)) {
      t = performance.now();
      const c1 = cpuMs();
      const index = HnswIndex.build(s, { M, efConstruction });
      const buildMs = performance.now() - t;
      const buildCpu = cpuMs() - c1;
      const hf = path.join(dir, `v${n}.hnsw`);
      t = performance.now();
      index.save(hf);
      const saveMs = performance.now() - t;
      t = performance.now();
      const loaded = HnswIndex.load(hf, s);
      const hloadMs = performance.now() - t;
      if (!loaded.ok) throw new Error(loaded.reason);
      console.log(
        `  hnsw M=${M} efC=${efConstruction}: build ${f(buildMs / 1000)} s (cpu ${f(buildCpu / 1000)} s), file ${f(fs.statSync(hf).size / 1e6)} MB, ` +
          `save ${f(saveMs, 0)} ms, load ${f(hloadMs, 0)} ms, rss ${f(process.memoryUsage().rss / 1e6, 0)} MB`,
      );
      const exact = queries.map((q) => new Set(s.search(q, 10).map((h) => h.id)));
      for (const ef of [32, 64, 128]) {
        let hit = 0;
        const l = queries.map((q, i) => {
          const t0 = performance.now();
          const got = loaded.index.search(q, 10, ef);
          const ms = performance.now() - t0;
          for (const h of got) if (exact[i].has(h.id)) hit++;
          return ms;
        });
        console.log(
          `  ef=${ef}: recall@10 ${f(hit / (10 * queries.length), 3)}, p50 ${f(pct(l, 0.5), 2)} ms, p95 ${f(pct(l, 0.95), 2)} ms`,
        );
      }
    }
    s.close();
    fs.rmSync(file, { force: true });
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
