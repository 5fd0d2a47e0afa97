/**
 * The memory service's dense retrieval channel: an embedding model (loaded in the background
 * after the service is up), one vector index per kind of thing (episodes, entities, facts) in
 * typed-array files beside the journal, and a queue that embeds what is new without ever blocking
 * a write. Everything here is best effort: without a model, queries use keyword + graph and
 * `status` says why.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EmbeddedKind, Memory, QueryInput, QueryResult } from '../../core/memory/memory.js';
import type { VectorHits } from '../../core/retrieval/types.js';
import { recipeFor, type RetrievalRecipe } from '../../core/retrieval/recipe.js';
import { DEFAULT_APPROXIMATE_ABOVE, VectorIndex } from '../../core/vectors/index.js';
import type { EmbedderOptions } from './embedder.js';
import { collectGarbage } from '../collect-garbage.js';
import { EmbeddingQueue } from './queue.js';
import { idleEmbedder, type IdleEmbedder } from './idle-embedder.js';
import { loadWorkerEmbedder, workerScript, type WorkerLoadResult } from './worker-embedder.js';

export interface EmbeddingSettings {
  /** Off unless set: a model costs memory and, the first time, a download. */
  enabled?: boolean;
  /** A local model folder (transformers.js layout). */
  modelPath?: string;
  /** Hub model id, fetched once into <memory>/models when downloads are allowed. */
  model?: string;
  allowDownload?: boolean;
  /** Where hub models are fetched from: a mirror of https://huggingface.co. */
  remoteHost?: string;
  /** Vectors of one kind past which searches use an approximate (HNSW) index. */
  approximateAbove?: number;
  /** Minutes without embedding work after which the model is let go (loaded again when needed); 0 keeps it. Default 10. */
  unloadAfterMinutes?: number;
}

const DEFAULT_UNLOAD_AFTER_MINUTES = 10;

/** What the memory gives the channel: which things exist, and the text to embed for each. */
export interface EmbeddingSource {
  ids(kind: EmbeddedKind, after?: number): number[];
  texts(kind: EmbeddedKind, ids: number[]): { id: number; text: string }[];
}

interface Pending {
  kind: EmbeddedKind;
  id: number;
  text: string;
}

const KINDS: readonly EmbeddedKind[] = ['episode', 'entity', 'fact'];

/** The queue is refilled from the backlog below PUMP_LOW texts, PUMP_CHUNK at a time. */
const PUMP_LOW = 256;
const PUMP_CHUNK = 256;

/** Episode vectors keep the file name they always had. */
const VECTOR_FILES: Record<EmbeddedKind, string> = { episode: 'vectors.bin', entity: 'vectors-entities.bin', fact: 'vectors-facts.bin' };

export class VectorChannel {
  private embedder?: IdleEmbedder;
  private indexes?: Record<EmbeddedKind, VectorIndex>;
  private queue?: EmbeddingQueue<Pending>;
  private flushTimer?: NodeJS.Timeout;
  private upkeepTimer?: NodeJS.Timeout;
  /**
   * Ids waiting for a vector, per kind. Their texts are read only as the queue runs low, so a
   * backlog of 100k turns (a first start with a model, a model change) holds numbers, not texts.
   */
  private readonly backlog: Record<EmbeddedKind, { ids: number[]; head: number }> = {
    episode: { ids: [], head: 0 },
    entity: { ids: [], head: 0 },
    fact: { ids: [], head: 0 },
  };
  /** Highest id of each kind already looked at: what is above it is new. */
  private readonly seen: Record<EmbeddedKind, number> = { episode: 0, entity: 0, fact: 0 };
  private state = 'disabled (set "embeddings": {"enabled": true} in config.json, or run `recall embeddings on`)';

  constructor(
    private readonly folder: string,
    private readonly settings: EmbeddingSettings,
    private readonly source: EmbeddingSource,
    private readonly log: (msg: string) => void,
  ) {}

  /** Loads the model and the vector files, then queues everything that has no vector yet. */
  async start(): Promise<void> {
    if (!this.settings.enabled) return;
    this.state = 'loading the embedding model';
    const options: EmbedderOptions = {
      memoryFolder: this.folder,
      modelPath: this.settings.modelPath,
      model: this.settings.model,
      remoteHost: this.settings.remoteHost,
      allowDownload: this.settings.allowDownload === true || process.env.RECALL_ALLOW_MODEL_DOWNLOAD === '1',
      log: this.log,
      onProgress: (p) => {
        if (p.status === 'download' && p.total)
          this.state = `downloading ${p.file ?? p.model}: ${Math.round(((p.loaded ?? 0) / p.total) * 100)}%`;
      },
    };
    // In a worker thread, loading and embedding never hold the service's requests.
    const script = workerScript();
    const load = (): Promise<WorkerLoadResult> =>
      script
        ? loadWorkerEmbedder(script, options)
        : Promise.resolve({ unavailable: `the embedding worker (embed-worker.js) is missing beside ${__dirname}` });
    const loaded = await load();
    if ('unavailable' in loaded) {
      this.state = `unavailable: ${loaded.unavailable}`;
      this.log(`embeddings ${this.state}; search uses keyword + graph`);
      return;
    }
    const configured = this.settings.unloadAfterMinutes;
    const idleMinutes = typeof configured === 'number' && configured >= 0 ? configured : DEFAULT_UNLOAD_AFTER_MINUTES;
    if (configured !== undefined && configured !== idleMinutes) {
      this.log(`embeddings.unloadAfterMinutes in config.json must be a number of minutes (0 keeps the model loaded); using ${idleMinutes}`);
    }
    const embedder = idleEmbedder(loaded.embedder, () => load(), idleMinutes * 60_000, this.log);
    const approximateAbove = this.settings.approximateAbove ?? DEFAULT_APPROXIMATE_ABOVE;
    const indexes = {} as Record<EmbeddedKind, VectorIndex>;
    for (const kind of KINDS) {
      const { index, rebuilt } = VectorIndex.open(path.join(this.folder, VECTOR_FILES[kind]), embedder.dim, embedder.id, {
        approximateAbove,
        log: this.log,
      });
      // A new model (or a lost file) means every vector is made again, in the background.
      if (rebuilt) this.log(`vectors (${kind}): ${rebuilt}; embedding every ${kind} in the background`);
      indexes[kind] = index;
    }
    this.embedder = embedder;
    this.indexes = indexes;
    this.queue = new EmbeddingQueue<Pending>({
      embedder,
      key: (p) => `${p.kind}:${p.id}`,
      log: this.log,
      store: (items, vectors) => {
        items.forEach((item, i) => indexes[item.kind].add(item.id, vectors[i]!));
        this.scheduleFlush();
        this.scheduleUpkeep(2000);
        this.pump();
      },
    });
    for (const kind of KINDS) this.reconcile(kind);
    this.scheduleUpkeep(0);
    this.state = 'ready';
    this.log(
      `embeddings ready: ${embedder.id}, ${KINDS.map((k) => `${indexes[k].size} ${k}`).join(', ')} vector(s), ${this.queue.pending + this.backlogSize} to embed`,
    );
  }

  /** Queues whatever was stored since the last call (nothing is read while there is no model). */
  catchUp(): void {
    if (!this.queue) return;
    for (const kind of KINDS) {
      const fresh = this.source.ids(kind, this.seen[kind]);
      if (fresh.length) this.enqueue(kind, fresh);
    }
  }

  /** Drops the vectors of things that were forgotten. */
  removed(kind: EmbeddedKind, ids: number[]): void {
    if (!this.indexes) return;
    for (const id of ids) this.indexes[kind].remove(id);
    this.scheduleUpkeep(2000);
    // An entity id can be reused once the newest entity is gone: look again from below it.
    for (const id of ids) this.seen[kind] = Math.min(this.seen[kind], id - 1);
    this.scheduleFlush();
  }

  /**
   * After a forget, before it answers: no vector file or graph file keeps a forgotten thing's
   * vector. Files not open (the model still loading, or unavailable) are deleted: they are derived,
   * and whatever is still held gets embedded again.
   */
  erase(): void {
    if (this.indexes) {
      for (const kind of KINDS) this.indexes[kind].erase();
      return;
    }
    for (const kind of KINDS) {
      const file = path.join(this.folder, VECTOR_FILES[kind]);
      fs.rmSync(file, { force: true });
      fs.rmSync(`${file}.hnsw`, { force: true });
    }
  }

  /** Drops vectors of things no longer held and queues those without one: at start, and after forgetting. */
  reconcile(kind: EmbeddedKind): void {
    if (!this.indexes) return;
    const index = this.indexes[kind];
    const present = this.source.ids(kind);
    const held = new Set(present);
    for (const id of index.ids()) if (!held.has(id)) index.remove(id);
    this.seen[kind] = 0;
    this.enqueue(kind, present);
  }

  private enqueue(kind: EmbeddedKind, ids: number[]): void {
    const index = this.indexes![kind];
    const backlog = this.backlog[kind];
    for (const id of ids) if (!index.has(id)) backlog.ids.push(id);
    if (ids.length) this.seen[kind] = Math.max(this.seen[kind], ids[ids.length - 1]!); // ids come in ascending order
    this.pump();
  }

  /**
   * Keeps a few hundred texts in the queue, entities and facts first (few, and what the graph
   * channel searches). When the last backlog is done, the garbage it left is collected.
   */
  private pump(): void {
    const queue = this.queue;
    const indexes = this.indexes;
    if (!queue || !indexes) return;
    let read = false;
    for (const kind of ['entity', 'fact', 'episode'] as const) {
      const backlog = this.backlog[kind];
      while (backlog.head < backlog.ids.length && queue.pending < PUMP_LOW) {
        const ids = backlog.ids.slice(backlog.head, backlog.head + PUMP_CHUNK).filter((id) => !indexes[kind].has(id));
        backlog.head += PUMP_CHUNK;
        queue.enqueue(this.source.texts(kind, ids).map((t) => ({ kind, id: t.id, text: t.text })));
        read = true;
      }
      if (backlog.head >= backlog.ids.length && backlog.ids.length > 0) {
        if (backlog.ids.length >= PUMP_CHUNK) void queue.drain().then(collectGarbage);
        backlog.ids = [];
        backlog.head = 0;
      }
    }
    if (read) this.scheduleUpkeep(2000);
  }

  private get backlogSize(): number {
    return KINDS.reduce((n, k) => n + this.backlog[k].ids.length - this.backlog[k].head, 0);
  }

  /** Things without a vector yet: queued, or in the backlog. */
  private get waiting(): number {
    return (this.queue?.pending ?? 0) + this.backlogSize;
  }

  /** The question's embedding (made in the model's thread), or undefined when there is no model. */
  async embedQuery(text: string): Promise<Float32Array | undefined> {
    if (!this.embedder) return undefined;
    const [query] = await this.embedder.embed([text]);
    return query;
  }

  /** The nearest episodes, entities and facts to an embedded question, `k` of each kind. */
  nearest(query: Float32Array, k: number): VectorHits | undefined {
    const indexes = this.indexes;
    if (!indexes) return undefined;
    const hits = {} as VectorHits;
    for (const kind of KINDS) hits[kind] = indexes[kind].search(query, k).map((h) => ({ rowid: h.id, score: h.score }));
    return hits;
  }

  /**
   * A question answered as the service answers it (the benchmarks call this too): the model's
   * thread embeds the question while this one runs the keyword and graph half, then the nearest
   * of each kind are fused in. A failed embedding leaves the question to keyword + graph.
   */
  async query(
    memory: Pick<Memory, 'startQuery'>,
    input: QueryInput,
    recipe: RetrievalRecipe = recipeFor(input.mode),
  ): Promise<QueryResult> {
    const wanted = recipe.channels.vector && this.ready && typeof input.query === 'string' && input.query.trim() !== '';
    // Caught at once, so bad input thrown by startQuery never leaves it unhandled.
    const embedding = (wanted ? this.embedQuery(input.query) : Promise.resolve(undefined)).catch(
      (err: Error) => void this.log(`embedding a question failed (${err.message}); answering with keyword + graph`),
    );
    const started = memory.startQuery(input, recipe);
    const query = await embedding;
    return started.finish(query ? this.nearest(query, started.vectorDepth) : undefined);
  }

  /** Resolves once everything waiting for a vector has one (a benchmark measures a fully embedded memory), or the channel stops. */
  async embedded(): Promise<void> {
    for (let left = this.waiting; left > 0 && this.queue;) {
      await this.queue.drain();
      if (this.waiting >= left) return; // nothing moved: the queue was stopped
      left = this.waiting;
    }
  }

  /**
   * Upkeep of the indexes (approximate indexes built past their threshold and extended with new
   * vectors, a few dozen at a time so a request never waits long; stores compacted), once
   * embedding pauses; it goes on in short steps while new vectors remain to be indexed.
   */
  private scheduleUpkeep(delayMs: number): void {
    if (this.upkeepTimer) return;
    this.upkeepTimer = setTimeout(() => {
      this.upkeepTimer = undefined;
      const indexes = this.indexes;
      if (!indexes) return;
      for (const kind of KINDS) indexes[kind].maintain();
      if (KINDS.some((k) => indexes[k].behind > 0)) this.scheduleUpkeep(20);
    }, delayMs);
  }

  status(): {
    embedder: string;
    vectors: number;
    vectors_by_kind: Record<EmbeddedKind, number>;
    vector_search: string;
    embedding_pending: number;
    embedding_backend: string;
    embedding_rate: number | null;
    embedding_eta_s: number | null;
  } {
    const ready = this.embedder
      ? `ready: ${this.embedder.id}${this.embedder.loaded ? '' : ' (model unloaded while idle; loads on the next question)'}`
      : this.state;
    const indexes = this.indexes;
    const byKind = { episode: 0, entity: 0, fact: 0 };
    for (const kind of KINDS) byKind[kind] = indexes?.[kind].size ?? 0;
    const approximate = indexes ? KINDS.filter((k) => indexes[k].approximate) : [];
    const pending = this.waiting;
    const rate = this.queue?.rate();
    return {
      embedder: ready,
      vectors: byKind.episode + byKind.entity + byKind.fact,
      vectors_by_kind: byKind,
      vector_search: !indexes ? 'none' : approximate.length ? `approximate (HNSW) for ${approximate.join(', ')}; exact otherwise` : 'exact',
      embedding_pending: pending,
      embedding_backend: this.backend(),
      embedding_rate: rate === undefined ? null : Math.round(rate * 10) / 10,
      embedding_eta_s: pending === 0 ? 0 : rate ? Math.ceil(pending / rate) : null,
    };
  }

  /** Which ONNX Runtime embeds: "native (...)", or "wasm" and why not native. */
  private backend(): string {
    const e = this.embedder;
    if (!e) return 'none';
    if (e.backend === 'native') return `native (onnxruntime-node, ${process.platform}-${process.arch})`;
    return `wasm (onnxruntime-web${e.fallback ? `; ${e.fallback}` : ''})`;
  }

  /** Whether vector search can run now. */
  get ready(): boolean {
    return this.embedder !== undefined;
  }

  /** The embedding model's id, once it is loaded. */
  get model(): string | undefined {
    return this.embedder?.id;
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    // Vectors are derived (rebuilt from the journal if lost), so they are flushed in batches, not per write.
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      for (const kind of KINDS) {
        try {
          this.indexes?.[kind].flush();
        } catch (err) {
          this.log(`vectors (${kind}): flush failed (${(err as Error).message}); they will be rebuilt`);
        }
      }
    }, 1000);
  }

  close(): void {
    clearTimeout(this.flushTimer);
    clearTimeout(this.upkeepTimer);
    this.queue?.stop();
    void this.embedder?.close();
    for (const kind of KINDS) {
      try {
        this.indexes?.[kind].close();
      } catch (err) {
        this.log(`vectors (${kind}): close failed (${(err as Error).message})`);
      }
    }
  }
}
