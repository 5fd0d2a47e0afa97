/**
 * An approximate nearest-neighbour index (HNSW) over the vectors of a VectorStore, for stores
 * large enough that exact search costs more per query than the service should spend (see
 * index.ts for the threshold). The graph itself is in hnsw-graph.ts, its file in hnsw-file.ts.
 *
 * Slots never change once written (a replaced vector gets a new slot), so a dead slot stays in
 * the graph as a waypoint and is left out of results. `compact()` renumbers slots and changes the
 * store's `instance`: the index is then `stale` (searches fall back to exact) and must be rebuilt.
 *
 * Deterministic: levels come from a seeded PRNG whose state is saved with the graph, and vectors
 * are inserted in slot order, so the same store and seed give the same graph, byte for byte.
 *
 * Building is too slow to redo at every start: `save()` writes the graph atomically, `load()`
 * checks it belongs to this store (instance, slot-id checksum, parameters) and `sync()` then adds
 * what came since. `buildAsync` builds in time slices so a service keeps answering (exactly)
 * meanwhile.
 */
import { normalized } from './arena.js';
import { loadGraph, saveGraph } from './hnsw-file.js';
import { HnswGraph } from './hnsw-graph.js';
import type { VectorFilter, VectorHit, VectorStore } from './store.js';
import { TopK } from './top-k.js';

export interface HnswOptions {
  /** Links per node on upper levels (level 0 gets 2M). Default 16. */
  M?: number;
  /** Candidate list size while building. Default 64. */
  efConstruction?: number;
  /** Default candidate list size while searching (raised to k when smaller). Default 64. */
  efSearch?: number;
  /** PRNG seed for node levels. Default 42. */
  seed?: number;
}

export type HnswLoadResult = { ok: true; index: HnswIndex } | { ok: false; reason: string };

export class HnswIndex {
  efSearch: number;
  /** Slots below this were either inserted or dead when seen. */
  private synced = 0;

  private constructor(
    private readonly store: VectorStore,
    private readonly graph: HnswGraph,
    efSearch: number | undefined,
  ) {
    this.efSearch = efSearch ?? 64;
  }

  /** The store instance this graph's node numbers refer to. */
  get instance(): string {
    return this.graph.instance;
  }

  /** An empty index over `store` (validates the options). */
  private static empty(store: VectorStore, options: HnswOptions = {}): HnswIndex {
    const graph = new HnswGraph(store, { M: options.M ?? 16, efConstruction: options.efConstruction ?? 64, seed: options.seed ?? 42 });
    return new HnswIndex(store, graph, options.efSearch);
  }

  /** Builds the graph over every live vector in the store (synchronous; see `buildAsync`). */
  static build(store: VectorStore, options?: HnswOptions): HnswIndex {
    const index = HnswIndex.empty(store, options);
    index.sync();
    return index;
  }

  /**
   * Builds in time slices of `sliceMs`, yielding to the event loop between them so a service keeps
   * answering (with exact search) meanwhile. `onProgress(done, total)` after each slice.
   */
  static async buildAsync(
    store: VectorStore,
    options?: HnswOptions,
    control: { sliceMs?: number; onProgress?: (done: number, total: number) => void; signal?: AbortSignal } = {},
  ): Promise<HnswIndex> {
    const index = HnswIndex.empty(store, options);
    const slice = control.sliceMs ?? 25;
    while (index.synced < store.slots) {
      if (control.signal?.aborted) throw new Error('HNSW build aborted');
      if (index.stale) throw new Error('vector store was compacted during the HNSW build');
      const until = performance.now() + slice;
      while (index.synced < store.slots && performance.now() < until) index.sync(64);
      control.onProgress?.(index.synced, store.slots);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return index;
  }

  /** Nodes in the graph (dead slots inserted earlier included). */
  get size(): number {
    return this.graph.nodes;
  }
  /** True once the store was compacted or recreated: the graph must be rebuilt. */
  get stale(): boolean {
    return this.store.instance !== this.instance;
  }
  /** Live store slots not yet in the graph (call `sync`). */
  get behind(): number {
    return this.store.slots - this.synced;
  }

  /** Inserts store slots added since the last sync (at most `limit`); returns how many were inserted. */
  sync(limit = Infinity): number {
    if (this.stale) throw new Error('HNSW index is stale (vector store compacted): rebuild it');
    let inserted = 0;
    const end = this.store.slots;
    while (this.synced < end && inserted < limit) {
      const slot = this.synced++;
      if (this.store.isLive(slot) && !this.graph.has(slot)) {
        this.graph.insert(slot);
        inserted++;
      }
    }
    return inserted;
  }

  /** Inserts the vector stored for (id, kind) if it is not in the graph yet. */
  add(id: number, kind = 0): boolean {
    if (this.stale) throw new Error('HNSW index is stale (vector store compacted): rebuild it');
    const slot = this.store.slotOf(id, kind);
    if (slot === undefined || this.graph.has(slot)) return false;
    this.graph.insert(slot);
    return true;
  }

  /**
   * Approximate top-k by cosine. `ef` (>= k) trades speed for recall. Dead slots and rejected
   * candidates are skipped; when fewer than k survive, falls back to exact search.
   */
  search(query: ArrayLike<number>, k: number, ef = this.efSearch, filter?: VectorFilter): VectorHit[] {
    k = Math.floor(k);
    if (!(k > 0) || this.store.size === 0) return [];
    if (this.stale) return this.store.search(query, k, filter);
    const arena = this.store.arena;
    arena.setQuery(normalized(query, this.store.dim));
    const top = new TopK(k);
    const res = this.graph.searchQuery(Math.max(ef, k));
    for (let i = 0; i < res.size; i++) {
      const slot = res.vals[i];
      const score = -res.keys[i];
      if (score <= top.floor || !this.store.isLive(slot)) continue;
      if (filter && !filter(this.store.idOf(slot), this.store.kindOf(slot))) continue;
      top.push(score, slot);
    }
    // Vectors added to the store but not yet synced are scanned exactly.
    for (let slot = this.synced; slot < this.store.slots; slot++) {
      if (!this.store.isLive(slot)) continue;
      const score = arena.queryDot(slot);
      if (score <= top.floor) continue;
      if (filter && !filter(this.store.idOf(slot), this.store.kindOf(slot))) continue;
      top.push(score, slot);
    }
    if (top.size < Math.min(k, this.store.size)) return this.store.search(query, k, filter);
    return this.store.hits(top);
  }

  /** Writes the graph to `file` atomically (temp file, fsync, rename). */
  save(file: string): void {
    saveGraph(file, this.graph, this.store, this.synced);
  }

  /**
   * Loads a graph saved by `save` for this store; says why not (missing, damaged, made for another
   * store or numbering, other parameters) so the caller rebuilds. Call `sync()` afterwards.
   */
  static load(file: string, store: VectorStore, options: HnswOptions = {}): HnswLoadResult {
    const loaded = loadGraph(file, store, options);
    if (typeof loaded === 'string') return { ok: false, reason: loaded };
    const index = new HnswIndex(store, loaded.graph, options.efSearch);
    index.synced = loaded.covered;
    return { ok: true, index };
  }
}
