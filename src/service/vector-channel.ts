/**
 * The memory service's dense retrieval channel: an embedding model (loaded in the background
 * after the service is up), episode vectors in a typed-array file beside the journal, and a
 * queue that embeds new episodes without ever blocking a write. Everything here is best effort:
 * without a model, queries use keyword + graph and `status` says why.
 */
import * as path from 'node:path';
import type { Hit } from '../core/search.js';
import { VectorStore } from '../core/vectors.js';
import { EmbeddingQueue, loadEmbedder, type Embedder } from './embedder.js';

export interface EmbeddingSettings {
  /** Off unless set: a model costs memory and, the first time, a download. */
  enabled?: boolean;
  /** A local model folder (transformers.js layout). */
  modelPath?: string;
  /** Hub model id, fetched once into <memory>/models when downloads are allowed. */
  model?: string;
  allowDownload?: boolean;
}

interface Pending {
  rowid: number;
  text: string;
}

export const VECTORS_FILE = 'vectors.bin';

export class VectorChannel {
  private embedder?: Embedder;
  private store?: VectorStore;
  private queue?: EmbeddingQueue<Pending>;
  private flushTimer?: NodeJS.Timeout;
  private state = 'disabled (set "embeddings": {"enabled": true} in config.json)';

  /**
   * `rowids` lists the episodes the memory holds; `texts` reads the texts of some. Texts are
   * read only when there is a model to embed them, and at start only for episodes without a vector.
   */
  constructor(
    private readonly folder: string,
    private readonly settings: EmbeddingSettings,
    private readonly episodes: { rowids: () => number[]; texts: (rowids: number[]) => Pending[] },
    private readonly log: (msg: string) => void,
  ) {}

  /** Loads the model and the vector file, then queues every episode that has no vector yet. */
  async start(): Promise<void> {
    if (!this.settings.enabled) return;
    this.state = 'loading the embedding model';
    const loaded = await loadEmbedder({
      memoryFolder: this.folder,
      modelPath: this.settings.modelPath,
      model: this.settings.model,
      allowDownload: this.settings.allowDownload === true || process.env.RECALL_ALLOW_MODEL_DOWNLOAD === '1',
      log: this.log,
      onProgress: (p) => {
        if (p.status === 'download' && p.total) this.state = `downloading ${p.file ?? p.model}: ${Math.round(((p.loaded ?? 0) / p.total) * 100)}%`;
      },
    });
    if ('unavailable' in loaded) {
      this.state = `unavailable: ${loaded.unavailable}`;
      this.log(`embeddings ${this.state}; search uses keyword + graph`);
      return;
    }
    const embedder = loaded.embedder;
    const { store, rebuilt } = VectorStore.open(path.join(this.folder, VECTORS_FILE), embedder.dim, embedder.id);
    if (rebuilt) this.log(`vectors: ${rebuilt}; re-embedding every episode in the background`);
    this.embedder = embedder;
    this.store = store;
    this.queue = new EmbeddingQueue<Pending>({
      embedder,
      key: (p) => p.rowid,
      log: this.log,
      store: (items, vectors) => {
        items.forEach((item, i) => store.add(item.rowid, vectors[i]!));
        this.scheduleFlush();
      },
    });
    const present = new Set(this.episodes.rowids());
    for (const { id } of [...store.entries()]) if (!present.has(id)) store.remove(id); // forgotten while we were away
    const missing = [...present].filter((id) => !store.has(id));
    for (let i = 0; i < missing.length; i += 1000) this.add(missing.slice(i, i + 1000));
    this.state = 'ready';
    this.log(`embeddings ready: ${embedder.id}, ${store.size} vector(s), ${this.queue.pending} to embed`);
  }

  /** New episodes to embed (nothing is read while there is no model). */
  add(rowids: number[]): void {
    if (this.queue && rowids.length) this.queue.enqueue(this.episodes.texts(rowids));
  }

  remove(rowids: number[]): void {
    if (!this.store) return;
    for (const id of rowids) this.store.remove(id);
    this.scheduleFlush();
  }

  /** The nearest episodes to a question, or undefined (with the reason in `status`) when there is no model. */
  async search(text: string, k: number): Promise<Hit[] | undefined> {
    if (!this.embedder || !this.store) return undefined;
    const [query] = await this.embedder.embed([text]);
    return this.store.search(query!, k).map((h) => ({ rowid: h.id, score: h.score }));
  }

  status(): { embedder: string; vectors: number; embedding_pending: number } {
    const ready = this.embedder ? `ready: ${this.embedder.id}` : this.state;
    return { embedder: ready, vectors: this.store?.size ?? 0, embedding_pending: this.queue?.pending ?? 0 };
  }

  /** Whether vector search can run now. */
  get ready(): boolean {
    return this.embedder !== undefined;
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    // Vectors are derived (rebuilt from the journal if lost), so they are flushed in batches, not per write.
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      try {
        this.store?.flush();
      } catch (err) {
        this.log(`vectors: flush failed (${(err as Error).message}); they will be rebuilt`);
      }
    }, 1000);
  }

  close(): void {
    clearTimeout(this.flushTimer);
    this.queue?.stop();
    try {
      this.store?.flush();
      this.store?.close();
    } catch (err) {
      this.log(`vectors: close failed (${(err as Error).message})`);
    }
  }
}
