/**
 * A background queue that embeds texts in batches without ever blocking or crashing its callers
 * (the memory service's writes enqueue; the vectors are stored as batches come back).
 */
import type { Embedder } from './embedder.js';

export interface EmbeddingQueueOptions<T extends { text: string }> {
  embedder: Embedder;
  /** Texts per model call. Default 8: a batch holds the event loop while the model runs, and bigger batches barely raise throughput. */
  batchSize?: number;
  /** Receives each batch's items and vectors (same order). May be async; errors are logged and counted. */
  store: (items: T[], vectors: Float32Array[]) => void | Promise<void>;
  /** With a key, enqueuing an item whose key is still pending replaces that pending item. */
  key?: (item: T) => string | number;
  /** Pause between batches in ms, letting requests through. Default 0 (one event-loop turn). */
  pauseMs?: number;
  log?: (msg: string) => void;
}

export interface EmbeddingQueueStats {
  embedded: number;
  failed: number;
  batches: number;
  storeErrors: number;
  lastError?: string;
}

/** Texts stored by one batch, and when the batch ran. */
interface Done {
  start: number;
  end: number;
  count: number;
}

/** The window the embedding rate is measured over. */
const RATE_WINDOW_MS = 60_000;

interface Slot<T> {
  item: T;
  key?: string | number;
}

/**
 * Embeds texts in the background, in batches, in the order given. `enqueue` returns at once;
 * `drain()` waits until everything enqueued so far is embedded and stored. A failing batch is
 * retried one text at a time, so one bad text costs only itself; nothing it does throws.
 */
export class EmbeddingQueue<T extends { text: string }> {
  private queue: Slot<T>[] = [];
  private head = 0;
  private readonly byKey = new Map<string | number, Slot<T>>();
  private running = false;
  private inFlight = 0;
  private stopped = false;
  private waiters: (() => void)[] = [];
  private readonly counts: EmbeddingQueueStats = { embedded: 0, failed: 0, batches: 0, storeErrors: 0 };
  private readonly batchSize: number;
  private done: Done[] = [];
  private readonly log: (msg: string) => void;

  constructor(private readonly options: EmbeddingQueueOptions<T>) {
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? 8));
    this.log = options.log ?? (() => {});
  }

  /** Items waiting or being embedded. */
  get pending(): number {
    return this.queue.length - this.head + this.inFlight;
  }

  get stats(): EmbeddingQueueStats {
    return { ...this.counts };
  }

  /**
   * Texts embedded and stored a second by the last minute's batches, over the time they ran (not
   * the idle time between bursts: this is the pace a backlog goes down at), or undefined when
   * none ran in that minute.
   */
  rate(now = Date.now()): number | undefined {
    this.done = this.done.filter((d) => d.end >= now - RATE_WINDOW_MS);
    if (this.done.length === 0) return undefined;
    const count = this.done.reduce((n, d) => n + d.count, 0);
    const seconds = this.done.reduce((n, d) => n + (d.end - d.start), 0) / 1000;
    return count / Math.max(seconds, 0.001);
  }

  enqueue(items: Iterable<T>): void {
    if (this.stopped) return;
    for (const item of items) {
      const key = this.options.key?.(item);
      if (key !== undefined) {
        const waiting = this.byKey.get(key);
        if (waiting) {
          waiting.item = item;
          continue;
        }
      }
      const slot: Slot<T> = { item, key };
      if (key !== undefined) this.byKey.set(key, slot);
      this.queue.push(slot);
    }
    this.schedule();
  }

  /** Resolves when everything enqueued so far has been embedded and stored (or failed). */
  drain(): Promise<void> {
    if (!this.running && this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Drops pending items and stops; the batch in flight finishes. */
  stop(): Promise<void> {
    this.stopped = true;
    this.queue = [];
    this.head = 0;
    this.byKey.clear();
    return this.drain();
  }

  private schedule(): void {
    if (this.running || this.pending === 0) return;
    this.running = true;
    setImmediate(() => {
      this.run().catch((e) => this.log(`embedding queue: ${String(e)}`));
    });
  }

  private take(): T[] {
    const end = Math.min(this.queue.length, this.head + this.batchSize);
    const batch: T[] = [];
    for (let i = this.head; i < end; i++) {
      const slot = this.queue[i];
      if (slot.key !== undefined) this.byKey.delete(slot.key);
      batch.push(slot.item);
    }
    this.head = end;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return batch;
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped && this.queue.length > this.head) {
        const batch = this.take();
        this.inFlight = batch.length;
        const start = Date.now();
        const before = this.counts.embedded;
        try {
          await this.process(batch);
        } finally {
          this.inFlight = 0;
        }
        const count = this.counts.embedded - before;
        if (count > 0) {
          const end = Date.now();
          this.done.push({ start, end, count });
          if (this.done.length > 512) this.done = this.done.filter((d) => d.end >= end - RATE_WINDOW_MS);
        }
        const pause = this.options.pauseMs ?? 0;
        await new Promise<void>((resolve) => (pause > 0 ? setTimeout(resolve, pause) : setImmediate(resolve)));
      }
    } finally {
      this.running = false;
      if (this.pending > 0 && !this.stopped) this.schedule();
      else {
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w();
      }
    }
  }

  private async process(batch: T[]): Promise<void> {
    let items = batch;
    let vectors: Float32Array[] | undefined;
    try {
      vectors = await this.options.embedder.embed(batch.map((b) => b.text));
      this.counts.batches++;
    } catch (e) {
      this.note(`embedding a batch of ${batch.length} failed (${errorText(e)}); retrying one by one`);
      items = [];
      vectors = [];
      for (const item of batch) {
        try {
          const [v] = await this.options.embedder.embed([item.text]);
          items.push(item);
          vectors.push(v);
          this.counts.batches++;
        } catch (err) {
          this.counts.failed++;
          this.note(`embedding failed: ${errorText(err)}`);
        }
      }
    }
    if (items.length === 0) return;
    try {
      await this.options.store(items, vectors);
      this.counts.embedded += items.length;
    } catch (e) {
      this.counts.storeErrors++;
      this.counts.failed += items.length;
      this.note(`storing ${items.length} vectors failed: ${errorText(e)}`);
    }
  }

  private note(msg: string): void {
    this.counts.lastError = msg;
    try {
      this.log(`embedding queue: ${msg}`);
    } catch {
      // a broken logger must not stop the queue
    }
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
