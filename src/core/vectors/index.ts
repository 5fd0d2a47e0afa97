/**
 * The vectors of one kind of thing (episodes, entities or facts): an exact store (store.ts),
 * and once it holds `approximateAbove` vectors an HNSW graph (hnsw.ts) over it, built in the
 * background in time slices and saved beside the store so a restart does not rebuild it.
 *
 * Search is exact until the graph is built (and whenever it is stale or missing): the answer is
 * always there, only its cost changes. Vectors added after the build are scanned exactly by the
 * graph's search and inserted a few at a time by `maintain()`.
 */
import * as fs from 'node:fs';
import { HnswIndex, type HnswOptions } from './hnsw.js';
import { VectorStore, type VectorHit } from './store.js';

export interface VectorIndexOptions {
  /** Build the approximate index once the store holds this many vectors. */
  approximateAbove: number;
  hnsw?: HnswOptions;
  log?: (msg: string) => void;
}

/**
 * Vectors of one kind past which searches use an HNSW graph. Exact search costs time linear in the
 * store, a graph search barely grows, but the graph costs a background build, memory and a file:
 * below this, exact search is quick enough not to be worth them.
 */
export const DEFAULT_APPROXIMATE_ABOVE = 50_000;

export class VectorIndex {
  private graph?: HnswIndex;
  private building?: Promise<void>;
  private readonly abort = new AbortController();
  /** Graph nodes when last saved: save again only when it grew. */
  private savedNodes = 0;

  private constructor(
    readonly store: VectorStore,
    private readonly graphFile: string,
    private readonly options: VectorIndexOptions,
  ) {}

  /**
   * Opens (or, when missing, unreadable or made by another model, recreates) the store at `file`,
   * and loads its saved graph when it still matches the store. `rebuilt` says why the store was
   * recreated: everything must be embedded again.
   */
  static open(file: string, dim: number, modelId: string, options: VectorIndexOptions): { index: VectorIndex; rebuilt: string | null } {
    const { store, rebuilt } = VectorStore.open(file, dim, modelId);
    const index = new VectorIndex(store, `${file}.hnsw`, options);
    if (!rebuilt && store.size >= options.approximateAbove) {
      const loaded = HnswIndex.load(index.graphFile, store, options.hnsw);
      if (loaded.ok) {
        index.graph = loaded.index;
        index.savedNodes = loaded.index.size;
      } else options.log?.(`vectors: approximate index of ${file} not loaded (${loaded.reason}); rebuilding it in the background`);
    }
    return { index, rebuilt };
  }

  get size(): number {
    return this.store.size;
  }

  /** Whether searches use the approximate graph. */
  get approximate(): boolean {
    return this.graph !== undefined && !this.graph.stale;
  }

  /** Vectors added since the approximate index was last extended (0 without one). */
  get behind(): number {
    return this.graph && !this.graph.stale ? this.graph.behind : 0;
  }

  has(id: number): boolean {
    return this.store.has(id);
  }

  add(id: number, vec: ArrayLike<number>): void {
    this.store.add(id, vec);
  }

  remove(id: number): boolean {
    return this.store.remove(id);
  }

  ids(): number[] {
    return [...this.store.entries()].map((e) => e.id);
  }

  /** Top-k by cosine: approximate when the graph is built, exact otherwise. */
  search(query: ArrayLike<number>, k: number): VectorHit[] {
    return this.approximate ? this.graph!.search(query, k) : this.store.search(query, k);
  }

  /**
   * Background upkeep, called when the service is idle: compacts a store mostly made of dead
   * slots (dropping a graph over the old numbering), starts the graph build past the threshold,
   * and inserts up to `budget` new vectors into a built graph. Never throws.
   */
  maintain(budget = 64): void {
    try {
      if (this.building) return;
      if (this.store.needsCompaction) {
        this.store.compact();
        this.graph = undefined;
        fs.rmSync(this.graphFile, { force: true });
      }
      if (this.graph?.stale) this.graph = undefined;
      if (!this.graph && this.store.size >= this.options.approximateAbove) this.startBuild();
      else if (this.graph && this.graph.behind > 0) this.graph.sync(budget);
    } catch (err) {
      this.options.log?.(`vectors: upkeep failed (${(err as Error).message}); searches stay exact`);
      this.graph = undefined;
    }
  }

  /**
   * After a forget: rewrites the file without the removed vectors now, and drops the approximate
   * graph (its file included) that still links them; it is rebuilt in the background.
   */
  erase(): void {
    if (this.store.deadSlots === 0) return;
    this.store.compact();
    this.graph = undefined;
    fs.rmSync(this.graphFile, { force: true });
  }

  /** Resolves when a build in progress ends (tests and benchmarks wait on it). */
  async settled(): Promise<void> {
    await this.building;
  }

  private startBuild(): void {
    const started = performance.now();
    const log = this.options.log;
    log?.(`vectors: building the approximate index over ${this.store.size} vectors in the background`);
    this.building = HnswIndex.buildAsync(this.store, this.options.hnsw, { signal: this.abort.signal })
      .then((graph) => {
        this.graph = graph;
        this.save();
        log?.(`vectors: approximate index ready (${graph.size} nodes in ${Math.round(performance.now() - started)} ms)`);
      })
      .catch((err: Error) => {
        if (!this.abort.signal.aborted) log?.(`vectors: approximate index build failed (${err.message}); searches stay exact`);
      })
      .finally(() => {
        this.building = undefined;
      });
  }

  /** Appends queued vectors to the file (fsynced). */
  flush(): void {
    this.store.flush();
  }

  /** Writes the graph when it grew since it was last written (it is derived: losing it costs a rebuild, not data). */
  save(): void {
    if (!this.graph || this.graph.stale || this.graph.size === this.savedNodes) return;
    try {
      this.graph.save(this.graphFile);
      this.savedNodes = this.graph.size;
    } catch (err) {
      this.options.log?.(`vectors: could not save the approximate index (${(err as Error).message})`);
    }
  }

  close(): void {
    this.abort.abort();
    this.store.flush();
    this.save();
    this.store.close();
  }
}
