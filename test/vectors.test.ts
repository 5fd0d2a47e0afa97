import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { test } from 'node:test';
import { HnswIndex } from '../src/core/vectors/hnsw';
import { clustered, gauss, rng } from '../src/bench/random-vectors';
import { VectorIndex } from '../src/core/vectors/index';
import { normalized } from '../src/core/vectors/arena';
import { crc32, tableCrc32 } from '../src/core/vectors/crc';
import { VectorStore, type VectorHit } from '../src/core/vectors/store';
import { tmpFolder } from './helpers';

function dot64(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Cosine in float64, no tricks. */
function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return ab / Math.sqrt(aa * bb);
}

/** Reference cosine top-k in float64, no tricks: ids and true scores, best first. */
function bruteForceHits(
  vectors: Map<number, Float32Array>,
  q: Float32Array,
  k: number,
  keep: (id: number) => boolean = () => true,
): { id: number; s: number }[] {
  return [...vectors]
    .filter(([id]) => keep(id))
    .map(([id, v]) => ({ id, s: cosine(v, q) }))
    .sort((a, b) => b.s - a.s || a.id - b.id)
    .slice(0, k);
}
function bruteForce(vectors: Map<number, Float32Array>, q: Float32Array, k: number, keep?: (id: number) => boolean): number[] {
  return bruteForceHits(vectors, q, k, keep).map((h) => h.id);
}

/** Quantisation error a score may carry: well above what int8 codes cause, well below what a wrong scale would. */
const SCORE_ERROR = 0.02;

/**
 * `got` is the true top-k up to quantisation: each score is within SCORE_ERROR of the true cosine,
 * and a hit may stand in for a true top-k one only when their true scores are that close.
 */
function assertTopK(
  got: VectorHit[],
  vectors: Map<number, Float32Array>,
  q: Float32Array,
  k: number,
  keep?: (id: number) => boolean,
): void {
  const want = bruteForceHits(vectors, q, k, keep);
  assert.equal(got.length, want.length);
  const kth = want[want.length - 1].s;
  for (const h of got) {
    const truth = cosine(vectors.get(h.id)!, q);
    assert.ok(Math.abs(h.score - truth) < SCORE_ERROR, `score ${h.score}, cosine ${truth}`);
    assert.ok(truth >= kth - 2 * SCORE_ERROR, `id ${h.id} (cosine ${truth}) is not near the top ${k} (k-th ${kth})`);
  }
}

test('exact search matches a float64 brute force up to quantisation, with k, filters, replacement and removal', () => {
  const dim = 48;
  const store = VectorStore.create(path.join(tmpFolder('vectors'), 'v.f32'), dim, 'm1');
  const gen = clustered(dim, 8, 1, 1);
  const ref = new Map<number, Float32Array>();
  for (let id = 0; id < 3000; id++) {
    const v = gen();
    store.add(id, v, id % 3);
    ref.set(id, v);
  }
  for (let id = 0; id < 3000; id += 7) {
    const v = gen();
    store.add(id, v, id % 3); // replaced: a new slot, the old one dead
    ref.set(id, v);
  }
  for (let id = 1; id < 3000; id += 11) {
    assert.equal(store.remove(id, id % 3), true);
    ref.delete(id);
  }
  assert.equal(store.remove(1, 1), false);
  assert.equal(store.size, ref.size);
  assert.ok(store.deadSlots > 0);
  assert.equal(store.has(2, 2), true);
  assert.equal(store.has(2, 0), false, 'kind is part of the key');

  const r = rng(9);
  for (let i = 0; i < 20; i++) {
    const q = Float32Array.from({ length: dim }, () => gauss(r));
    const got = store.search(q, 10);
    assertTopK(got, ref, q, 10);
    for (let j = 1; j < got.length; j++) assert.ok(got[j - 1].score >= got[j].score);
    const filtered = store.search(q, 5, (_id, kind) => kind === 2);
    assertTopK(filtered, ref, q, 5, (id) => id % 3 === 2);
    assert.ok(filtered.every((h) => h.kind === 2));
  }
  // Stored normalised (and quantised): a vector finds itself with score ~1, `get` gives it back.
  const v = store.get(42)!;
  assert.ok(Math.abs(v.reduce((s, x) => s + x * x, 0) - 1) < 0.01);
  assert.ok(cosine(v, ref.get(42)!) > 0.999);
  const self = store.search(ref.get(42)!, 1)[0];
  assert.equal(self.id, 42);
  assert.ok(Math.abs(self.score - 1) < 0.01);
  assert.deepEqual(store.search(v, 0), []);
  assert.throws(() => store.add(1, new Float32Array(dim - 1)), /dimensions/);
  assert.throws(() => store.add(-1, v), /id/);
  assert.throws(() => store.add(1, v, 300), /kind/);
  store.close();
});

test('the WebAssembly SIMD kernel and the plain JS fallback agree', () => {
  const dir = tmpFolder('vectors');
  for (const dim of [384, 37, 8, 1]) {
    const simd = VectorStore.create(path.join(dir, `s${dim}.f32`), dim, 'm');
    const js = VectorStore.create(path.join(dir, `j${dim}.f32`), dim, 'm', { simd: false });
    assert.equal(simd.arena.simd, true, 'SIMD is available on Node 20');
    assert.equal(js.arena.simd, false);
    const gen = clustered(dim, 5, 1, dim);
    for (let id = 0; id < 2500; id++) {
      const v = gen();
      simd.add(id, v);
      js.add(id, v);
    }
    const r = rng(dim);
    for (let i = 0; i < 10; i++) {
      const q = Float32Array.from({ length: dim }, () => gauss(r));
      const a = simd.search(q, 10);
      const b = js.search(q, 10);
      assert.equal(a.length, Math.min(10, 2500));
      a.forEach((h, j) => assert.ok(Math.abs(h.score - b[j].score) < 1e-5, `${dim}-d: ${h.score} vs ${b[j].score}`));
      assert.deepEqual(new Set(a.slice(0, 5).map((h) => h.id)), new Set(b.slice(0, 5).map((h) => h.id)));
    }
    // Each computes the dot products of the dequantised vectors, query . codes and codes . codes.
    const q = normalized(
      Float32Array.from({ length: dim }, () => gauss(r)),
      dim,
    );
    for (const store of [simd, js]) {
      store.arena.setQuery(q);
      for (let id = 0; id < 50; id++) {
        const [a, b] = [store.slotOf(id)!, store.slotOf(id + 1)!];
        const [v, w] = [store.get(id)!, store.get(id + 1)!];
        assert.ok(Math.abs(store.arena.queryDot(a) - dot64(q, v)) < 1e-5, `${dim}-d query . slot`);
        assert.ok(Math.abs(store.arena.slotDot(a, b) - dot64(v, w)) < 1e-5, `${dim}-d slot . slot`);
      }
    }
    simd.close();
    js.close();
  }
});

test('CRC-32 gives the standard values, from zlib and from the table fallback alike', () => {
  const known: [string, number][] = [
    ['', 0],
    ['a', 0xe8b7be43],
    ['123456789', 0xcbf43926],
    ['The quick brown fox jumps over the lazy dog', 0x414fa339],
  ];
  for (const [text, want] of known) {
    assert.equal(crc32(Buffer.from(text, 'latin1')), want, `crc32("${text}")`);
    assert.equal(tableCrc32(Buffer.from(text, 'latin1')), want, `tableCrc32("${text}")`);
  }
  const r = rng(7);
  const native = (zlib as unknown as { crc32?: (data: Uint8Array) => number }).crc32;
  for (const n of [1, 3, 255, 4096, 100_003]) {
    const data = Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
    assert.equal(tableCrc32(data), crc32(data), `${n} bytes`);
    if (native) assert.equal(crc32(data), native(data), `${n} bytes: crc32 is zlib's where Node has it`);
  }
});

test('flush makes vectors durable; unflushed ones are simply absent after a reopen', () => {
  const file = path.join(tmpFolder('vectors'), 'v.f32');
  const dim = 16;
  const gen = clustered(dim, 4, 1, 2);
  const store = VectorStore.create(file, dim, 'model-a');
  for (let id = 0; id < 100; id++) store.add(id, gen());
  store.remove(5);
  assert.equal(store.flush(), 101);
  const q = gen();
  const before = store.search(q, 10);
  store.add(1000, gen()); // never flushed: lost in a "crash"

  const r = VectorStore.load(file, dim, 'model-a');
  assert.ok(r.ok);
  assert.equal(r.store.size, 99);
  assert.equal(r.store.has(5), false);
  assert.equal(r.store.has(1000), false);
  assert.equal(r.tornBytes, 0);
  assert.deepEqual(r.store.search(q, 10), before);
  assert.equal(r.store.instance, store.instance);
  r.store.close();
});

test('a torn tail is cut off; damage in the middle, a bad header, another model or dimension mean rebuild', () => {
  const dir = tmpFolder('vectors');
  const file = path.join(dir, 'v.f32');
  const dim = 8;
  const gen = clustered(dim, 2, 1, 3);
  const store = VectorStore.create(file, dim, 'model-a');
  for (let id = 0; id < 50; id++) store.add(id, gen());
  store.close();
  const good = fs.readFileSync(file);
  const recordBytes = 16 + 4 * dim;
  const headerBytes = good.length - 50 * recordBytes;

  // An interrupted append: half a record, then a whole record of garbage.
  fs.appendFileSync(file, Buffer.alloc(recordBytes / 2, 7));
  let r = VectorStore.load(file, dim, 'model-a');
  assert.ok(r.ok);
  assert.equal(r.tornBytes, recordBytes / 2);
  assert.equal(r.store.size, 50);
  assert.equal(fs.statSync(file).size, good.length, 'the torn bytes are truncated away');
  r.store.add(77, gen());
  r.store.close();
  fs.appendFileSync(file, Buffer.alloc(recordBytes + 3, 1));
  r = VectorStore.load(file, dim, 'model-a');
  assert.ok(r.ok && r.store.has(77) && r.store.size === 51 && r.tornBytes === recordBytes + 3);
  r.store.close();

  // A flipped byte inside record 10, with good records after it: corruption.
  const damaged = Buffer.from(good);
  damaged[headerBytes + 10 * recordBytes + 20] ^= 0xff;
  fs.writeFileSync(file, damaged);
  r = VectorStore.load(file, dim, 'model-a');
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.code, 'corrupt');

  const badHeader = Buffer.from(good);
  badHeader[12] ^= 1;
  fs.writeFileSync(file, badHeader);
  r = VectorStore.load(file, dim, 'model-a');
  assert.equal(!r.ok && r.code, 'corrupt');
  fs.writeFileSync(file, Buffer.from('not a vector file at all, just some text'));
  assert.equal((VectorStore.load(file, dim, 'model-a') as { code: string }).code, 'corrupt');

  fs.writeFileSync(file, good);
  const other = VectorStore.load(file, dim, 'model-b');
  assert.equal(!other.ok && other.code, 'model-mismatch');
  assert.match(!other.ok ? other.reason : '', /model-a.*model-b/);
  assert.equal((VectorStore.load(file, dim * 2, 'model-a') as { code: string }).code, 'dim-mismatch');
  assert.equal((VectorStore.load(path.join(dir, 'absent.f32'), dim, 'model-a') as { code: string }).code, 'missing');

  // open(): load, or create afresh and say why.
  const opened = VectorStore.open(file, dim, 'model-b');
  assert.match(opened.rebuilt ?? '', /model-a/);
  assert.equal(opened.store.size, 0);
  opened.store.close();
  const again = VectorStore.open(file, dim, 'model-b');
  assert.equal(again.rebuilt, null);
  again.store.close();
});

test('compact rewrites only live vectors atomically and renumbers slots', () => {
  const file = path.join(tmpFolder('vectors'), 'v.f32');
  const dim = 12;
  const gen = clustered(dim, 3, 1, 4);
  const store = VectorStore.create(file, dim, 'm');
  const added = new Map<number, Float32Array>();
  const add = (id: number) => {
    const v = gen();
    added.set(id, v);
    store.add(id, v);
  };
  for (let id = 0; id < 2000; id++) add(id);
  for (let id = 0; id < 2000; id += 2) store.remove(id);
  for (let id = 1; id < 150; id += 2) add(id);
  store.flush();
  for (let id = 151; id < 200; id += 2) add(id); // unflushed: compact writes them too
  const q = gen();
  const before = store.search(q, 20);
  const instance = store.instance;
  const sizeBefore = fs.statSync(file).size;
  store.compact();
  assert.notEqual(store.instance, instance);
  assert.equal(store.slots, 1000);
  assert.equal(store.deadSlots, 0);
  assert.ok(fs.statSync(file).size < sizeBefore / 3);
  assert.deepEqual(store.search(q, 20), before);
  // The file keeps the float32 vectors as added (normalised), not the in-memory int8 codes.
  const recordBytes = 16 + 4 * dim;
  const bytes = fs.readFileSync(file);
  const seen = new Set<number>();
  for (let off = bytes.length - 1000 * recordBytes; off < bytes.length; off += recordBytes) {
    const id = bytes.readDoubleLE(off + 8);
    const vec = new Float32Array(Uint8Array.from(bytes.subarray(off + 16, off + recordBytes)).buffer);
    assert.deepEqual(vec, normalized(added.get(id)!, dim));
    seen.add(id);
  }
  assert.equal(seen.size, 1000);
  store.add(5000, gen());
  store.close();
  const r = VectorStore.load(file, dim, 'm');
  assert.ok(r.ok);
  assert.equal(r.store.size, 1001);
  assert.deepEqual(
    r.store
      .search(q, 20)
      .filter((h) => h.id !== 5000)
      .slice(0, 10),
    before.slice(0, 10),
  );
  // A loaded store compacts too: its slots are the file's add records (remove records skipped).
  r.store.remove(5000);
  r.store.compact();
  assert.equal(r.store.slots, 1000);
  assert.deepEqual(r.store.search(q, 20), before);
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['v.f32'], 'no temp files left behind');
  r.store.close();
});

function recallAt(store: VectorStore, search: (q: Float32Array) => VectorHit[], queries: Float32Array[], k: number): number {
  let hit = 0;
  for (const q of queries) {
    const exact = new Set(store.search(q, k).map((h) => h.id));
    for (const h of search(q)) if (exact.has(h.id)) hit++;
  }
  return hit / (k * queries.length);
}

test('exact search over the int8 codes: recall@10 >= 0.98 against float64 on clustered 384-d data, scores within 0.02', (t) => {
  const dim = 384;
  const store = VectorStore.create(path.join(tmpFolder('vectors'), 'v.f32'), dim, 'm');
  const gen = clustered(dim, 100, 2, 11);
  const ref = new Map<number, Float32Array>();
  for (let id = 0; id < 10000; id++) {
    const v = gen();
    store.add(id, v);
    ref.set(id, v);
  }
  let hit = 0;
  let worst = 0;
  const queries = Array.from({ length: 50 }, gen);
  for (const q of queries) {
    const want = new Set(bruteForce(ref, q, 10));
    for (const h of store.search(q, 10)) {
      if (want.has(h.id)) hit++;
      worst = Math.max(worst, Math.abs(h.score - cosine(ref.get(h.id)!, q)));
    }
  }
  const recall = hit / (10 * queries.length);
  t.diagnostic(`int8 exact search 10000x${dim}: recall@10 ${recall.toFixed(3)}, largest score error ${worst.toFixed(4)}`);
  assert.ok(recall >= 0.98, `recall@10 ${recall}`);
  assert.ok(worst < SCORE_ERROR, `score error ${worst}`);
  store.close();
});

test('HNSW recall@10 against exact search stays >= 0.95 on clustered 384-d data (20k vectors)', (t) => {
  const dim = 384;
  const n = 20000;
  const store = VectorStore.create(path.join(tmpFolder('vectors'), 'v.f32'), dim, 'm');
  const gen = clustered(dim, 100, 2, 5);
  for (let id = 0; id < n; id++) store.add(id, gen());
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const index = HnswIndex.build(store, { seed: 1 });
  const buildMs = performance.now() - t0;
  const buildCpu = process.cpuUsage(cpu0);
  const queries = Array.from({ length: 100 }, gen);
  const t1 = performance.now();
  const recall = recallAt(store, (q) => index.search(q, 10), queries, 10);
  const exactAndApproxMs = performance.now() - t1;
  t.diagnostic(
    `HNSW ${n}x${dim}: build ${(buildMs / 1000).toFixed(1)} s (cpu ${((buildCpu.user + buildCpu.system) / 1e6).toFixed(1)} s), ` +
      `recall@10 ${recall.toFixed(3)} at ef 64; 100 queries exact+approx ${exactAndApproxMs.toFixed(0)} ms`,
  );
  assert.equal(index.size, n);
  assert.ok(recall >= 0.95, `recall@10 ${recall}`);
  // Filters and dead slots are honoured.
  const q = queries[0];
  const odd = index.search(q, 10, 64, (id) => id % 2 === 1);
  assert.equal(odd.length, 10);
  assert.ok(odd.every((h) => h.id % 2 === 1));
  const top = index.search(q, 1)[0];
  store.remove(top.id);
  assert.notEqual(index.search(q, 1)[0].id, top.id);
});

test('HNSW is deterministic, saves and loads, syncs new vectors, and goes stale on compaction', () => {
  const dir = tmpFolder('vectors');
  const dim = 32;
  const store = VectorStore.create(path.join(dir, 'v.f32'), dim, 'm');
  const gen = clustered(dim, 20, 1, 6);
  for (let id = 0; id < 3000; id++) store.add(id, gen());
  store.flush();
  const a = HnswIndex.build(store, { seed: 7 });
  const b = HnswIndex.build(store, { seed: 7 });
  a.save(path.join(dir, 'a.hnsw'));
  b.save(path.join(dir, 'b.hnsw'));
  assert.deepEqual(fs.readFileSync(path.join(dir, 'a.hnsw')), fs.readFileSync(path.join(dir, 'b.hnsw')), 'same seed, same graph');

  const queries = Array.from({ length: 30 }, gen);
  const loaded = HnswIndex.load(path.join(dir, 'a.hnsw'), store);
  assert.ok(loaded.ok);
  for (const q of queries) assert.deepEqual(loaded.index.search(q, 10), a.search(q, 10));

  // New vectors: found before sync (scanned exactly), and inserted by sync.
  const fresh = gen();
  store.add(99999, fresh);
  assert.equal(loaded.index.search(fresh, 1)[0].id, 99999);
  assert.equal(loaded.index.sync(), 1);
  assert.equal(loaded.index.search(fresh, 1)[0].id, 99999);
  assert.equal(loaded.index.size, 3001);
  // Continuing after a load gives the same graph as never having stopped.
  a.sync();
  loaded.index.save(path.join(dir, 'c.hnsw'));
  a.save(path.join(dir, 'a2.hnsw'));
  assert.deepEqual(fs.readFileSync(path.join(dir, 'c.hnsw')), fs.readFileSync(path.join(dir, 'a2.hnsw')));
  assert.ok(recallAt(store, (q) => loaded.index.search(q, 10), queries, 10) >= 0.95);

  // Other parameters, a damaged file, a compacted store: rebuild.
  assert.match((HnswIndex.load(path.join(dir, 'a.hnsw'), store, { M: 8 }) as { reason: string }).reason, /parameters/);
  const damaged = fs.readFileSync(path.join(dir, 'a.hnsw'));
  damaged[damaged.length - 5] ^= 0xff;
  fs.writeFileSync(path.join(dir, 'd.hnsw'), damaged);
  assert.match((HnswIndex.load(path.join(dir, 'd.hnsw'), store) as { reason: string }).reason, /checksum/);
  store.remove(3);
  store.compact();
  assert.equal(loaded.index.stale, true);
  assert.throws(() => loaded.index.sync(), /stale/);
  assert.equal(loaded.index.search(fresh, 1)[0].id, 99999, 'a stale index falls back to exact search');
  assert.match((HnswIndex.load(path.join(dir, 'a.hnsw'), store) as { reason: string }).reason, /another vector file/);
  store.close();
});

test('HNSW builds in slices without holding the event loop', async () => {
  const store = VectorStore.create(path.join(tmpFolder('vectors'), 'v.f32'), 64, 'm');
  const gen = clustered(64, 10, 1, 8);
  for (let id = 0; id < 4000; id++) store.add(id, gen());
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const progress: number[] = [];
  const index = await HnswIndex.buildAsync(store, {}, { sliceMs: 5, onProgress: (done) => progress.push(done) });
  clearInterval(timer);
  assert.equal(index.size, 4000);
  assert.ok(progress.length > 3 && progress[progress.length - 1] === 4000);
  assert.ok(ticks > 3, `timers ran ${ticks} times during the build`);
  const sync = HnswIndex.build(store);
  const q = gen();
  assert.deepEqual(index.search(q, 10), sync.search(q, 10), 'same graph as the one-shot build');
  store.close();
});

test('a vector index turns approximate past its threshold, in the background, keeps its recall, and reloads its graph', async () => {
  const dim = 64;
  const dir = tmpFolder('vectors');
  const file = path.join(dir, 'vectors.bin');
  const gen = clustered(dim, 20, 1, 9);
  const logs: string[] = [];
  const options = { approximateAbove: 3000, log: (m: string) => logs.push(m) };
  let { index } = VectorIndex.open(file, dim, 'm', options);
  for (let id = 1; id <= 2999; id++) index.add(id, gen());
  index.maintain();
  await index.settled();
  assert.equal(index.approximate, false, 'under the threshold search stays exact');
  index.add(3000, gen());
  index.maintain();
  assert.equal(index.approximate, false, 'exact while the graph is being built');
  const queries = Array.from({ length: 50 }, gen);
  assert.equal(index.search(queries[0]!, 10).length, 10, 'searches are answered during the build');
  await index.settled();
  assert.equal(index.approximate, true);
  assert.ok(fs.existsSync(`${file}.hnsw`), 'the built graph is saved');
  assert.ok(recallAt(index.store, (q) => index.search(q, 10), queries, 10) >= 0.95);
  // New vectors are found at once (scanned exactly) and joined to the graph by upkeep.
  const late = gen();
  index.add(5000, late);
  assert.equal(index.search(late, 1)[0]!.id, 5000);
  assert.equal(index.behind, 1);
  index.maintain();
  assert.equal(index.behind, 0);
  index.close();
  ({ index } = VectorIndex.open(file, dim, 'm', options));
  assert.equal(index.approximate, true, 'the saved graph is loaded, not rebuilt');
  assert.equal(index.search(late, 1)[0]!.id, 5000);
  index.close();
  // Another model: the vectors and the graph start over.
  const other = VectorIndex.open(file, dim, 'other-model', options);
  assert.match(other.rebuilt ?? '', /model/);
  assert.equal(other.index.size, 0);
  assert.equal(other.index.approximate, false);
  other.index.close();
  assert.ok(!logs.some((l) => /failed/.test(l)), logs.join('\n'));
});
