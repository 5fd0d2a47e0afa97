/**
 * Embedding vectors, kept outside sql.js in a typed-array file in the memory folder (derived data:
 * a missing, corrupt or mismatched file is rebuilt by re-embedding). The file format and its
 * torn-tail rule are in file-format.ts; the in-memory int8 codes in arena.ts.
 *
 * Writes are append-only: `add`/`remove` queue records in memory and `flush()` appends them with
 * one write and an fsync, because rewriting a file of every vector per flush would cost far more
 * than what changed. `load` cuts off a torn tail and carries on; the caller re-embeds whatever is
 * missing. `compact()` drops dead records with an atomic rewrite (temp file, fsync, rename, fsync
 * folder).
 *
 * The file keeps the float32 vectors; memory holds only their int8 codes: `add` and `load`
 * quantise, and `compact()` copies records from the old file rather than re-encoding codes.
 *
 * Slot numbers follow the order of `add` records in the file, so they are the same in every run
 * until `compact()`, which renumbers them and changes `instance` (the HNSW index keys on both). A
 * replaced or removed vector leaves a dead slot until `compact()`.
 *
 * Vectors are stored unit-normalised, so cosine similarity is a dot product.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { writeFileDurably } from '../store/durable.js';
import { normalized, SCAN_CHUNK, VectorArena } from './arena.js';
import {
  copyLiveRecords,
  decodeHeader,
  encodeHeader,
  encodeRecord,
  MAX_ID,
  OP_ADD,
  OP_REMOVE,
  recordBytesOf,
  replayRecords,
} from './file-format.js';
import { TopK } from './top-k.js';

export interface VectorHit {
  id: number;
  kind: number;
  /** Cosine similarity, in [-1, 1] up to quantisation (each component within half a quantisation step). */
  score: number;
}

/** Keeps a candidate when it returns true. Called only for candidates that would enter the top k. */
export type VectorFilter = (id: number, kind: number) => boolean;

export type VectorLoadResult =
  | { ok: true; store: VectorStore; /** Bytes of a torn tail cut off (an interrupted append). */ tornBytes: number }
  | { ok: false; code: 'missing' | 'corrupt' | 'dim-mismatch' | 'model-mismatch'; reason: string };

function keyOf(id: number, kind: number): number {
  if (!Number.isSafeInteger(id) || id < 0 || id >= MAX_ID) throw new RangeError(`vector id must be an integer in [0, 2^45), got ${id}`);
  if (!Number.isInteger(kind) || kind < 0 || kind > 255) throw new RangeError(`vector kind must be an integer in [0, 255], got ${kind}`);
  return id * 256 + kind;
}

export interface VectorStoreOptions {
  /** Use the WebAssembly SIMD kernel when available. Default true. */
  simd?: boolean;
  /** Slots to reserve up front. */
  capacity?: number;
}

export class VectorStore {
  private vecs: VectorArena;
  private ids: Float64Array;
  private kinds: Uint8Array;
  private liveFlags: Uint8Array;
  private slotCount = 0;
  private liveCount = 0;
  private readonly slotByKey = new Map<number, number>();
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private fd: number | undefined;
  private instanceHex: string;
  private readonly recordBytes: number;

  private constructor(
    readonly path: string,
    readonly dim: number,
    readonly modelId: string,
    fd: number,
    instance: string,
    private readonly options: VectorStoreOptions,
  ) {
    this.fd = fd;
    this.instanceHex = instance;
    this.recordBytes = recordBytesOf(dim);
    const cap = Math.max(1024, options.capacity ?? 0);
    this.vecs = new VectorArena(dim, cap, options.simd ?? true);
    this.ids = new Float64Array(cap);
    this.kinds = new Uint8Array(cap);
    this.liveFlags = new Uint8Array(cap);
  }

  /** Creates an empty store, atomically replacing any file at `path`. */
  static create(file: string, dim: number, modelId: string, options: VectorStoreOptions = {}): VectorStore {
    if (!Number.isInteger(dim) || dim < 1 || dim > 65536) throw new RangeError(`bad dimension ${dim}`);
    const instance = crypto.randomBytes(8);
    writeFileDurably(file, [encodeHeader(dim, modelId, instance)]);
    const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND);
    return new VectorStore(file, dim, modelId, fd, instance.toString('hex'), options);
  }

  /**
   * Opens the store at `path` for vectors of `dim` dimensions made by model `modelId`. Returns why
   * it must be rebuilt instead when the file is missing, unreadable, or made for another model or
   * dimension (the caller then calls `create` and re-embeds). A torn tail is cut off, not fatal.
   */
  static load(file: string, dim: number, modelId: string, options: VectorStoreOptions = {}): VectorLoadResult {
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_RDWR);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, code: 'missing', reason: `no vector file at ${file}` };
      return { ok: false, code: 'corrupt', reason: `cannot open ${file}: ${(e as Error).message}` };
    }
    let keepFd = false;
    try {
      const size = fs.fstatSync(fd).size;
      const header = decodeHeader(fd, size);
      if (typeof header === 'string') return { ok: false, code: 'corrupt', reason: `${file}: ${header}` };
      if (header.dim !== dim) {
        return { ok: false, code: 'dim-mismatch', reason: `vectors have ${header.dim} dimensions, the model makes ${dim}` };
      }
      if (header.modelId !== modelId) {
        return { ok: false, code: 'model-mismatch', reason: `vectors were made by "${header.modelId}", the model is now "${modelId}"` };
      }
      const records = Math.floor((size - header.length) / header.recordBytes);
      const store = new VectorStore(file, dim, modelId, fd, header.instance, {
        ...options,
        capacity: Math.max(options.capacity ?? 0, records),
      });
      const replay = store.replay(fd, header.length, size);
      if (typeof replay === 'string') return { ok: false, code: 'corrupt', reason: `${file}: ${replay}` };
      if (replay < size) {
        fs.ftruncateSync(fd, replay);
        fs.fsyncSync(fd);
      }
      // Appends go through a separate O_APPEND descriptor.
      fs.closeSync(fd);
      store.fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND);
      keepFd = true;
      return { ok: true, store, tornBytes: size - replay };
    } catch (e) {
      return { ok: false, code: 'corrupt', reason: `${file}: ${(e as Error).message}` };
    } finally {
      if (!keepFd) {
        try {
          fs.closeSync(fd);
        } catch {
          // already closed
        }
      }
    }
  }

  /** `load`, or `create` when the file must be rebuilt; `rebuilt` says why (null when loaded). */
  static open(
    file: string,
    dim: number,
    modelId: string,
    options: VectorStoreOptions = {},
  ): { store: VectorStore; rebuilt: string | null; tornBytes: number } {
    const r = VectorStore.load(file, dim, modelId, options);
    if (r.ok) return { store: r.store, rebuilt: null, tornBytes: r.tornBytes };
    return { store: VectorStore.create(file, dim, modelId, options), rebuilt: r.reason, tornBytes: 0 };
  }

  /** Replays the file's records into memory; returns the byte length of the good prefix, or why the file is corrupt. */
  private replay(fd: number, start: number, size: number): number | string {
    return replayRecords(fd, start, size, this.dim, {
      add: (id, kind, vec) => this.vecs.write(this.place(id, kind), vec),
      remove: (id, kind) => {
        this.kill(id, kind);
      },
    });
  }

  /** Live vectors. */
  get size(): number {
    return this.liveCount;
  }
  /** Slots in use, dead ones included (slot numbers run 0..slots-1). */
  get slots(): number {
    return this.slotCount;
  }
  /** Dead slots (replaced or removed vectors) that `compact()` would drop. */
  get deadSlots(): number {
    return this.slotCount - this.liveCount;
  }
  /** True when dead slots are over a quarter of the store (and over 1024): time to `compact()`. */
  get needsCompaction(): boolean {
    return this.deadSlots > 1024 && this.deadSlots * 4 > this.slotCount;
  }
  /** Random id of this file's slot numbering; changes on `create` and `compact`. */
  get instance(): string {
    return this.instanceHex;
  }
  /** Records not yet flushed. */
  get unflushed(): number {
    return this.pendingBytes / this.recordBytes;
  }

  has(id: number, kind = 0): boolean {
    return this.slotByKey.has(keyOf(id, kind));
  }

  /**
   * The stored vector as the store holds it in memory: normalised, then quantised to int8, so this
   * is its dequantised copy (each component within half a quantisation step, max |v_i| / 254).
   */
  get(id: number, kind = 0): Float32Array | undefined {
    const slot = this.slotByKey.get(keyOf(id, kind));
    return slot === undefined ? undefined : this.vecs.read(slot);
  }

  /** Adds or replaces the vector for (id, kind). Stored normalised; durable after `flush()`. */
  add(id: number, vec: ArrayLike<number>, kind = 0): void {
    keyOf(id, kind);
    const v = normalized(vec, this.dim);
    this.vecs.write(this.place(id, kind), v);
    this.queueRecord(OP_ADD, id, kind, v);
  }

  /** Removes the vector for (id, kind); false when there was none. Durable after `flush()`. */
  remove(id: number, kind = 0): boolean {
    if (!this.kill(id, kind)) return false;
    this.queueRecord(OP_REMOVE, id, kind, undefined);
    return true;
  }

  /** Every live (id, kind), in slot order. */
  *entries(): IterableIterator<{ id: number; kind: number }> {
    for (let s = 0; s < this.slotCount; s++) if (this.liveFlags[s]) yield { id: this.ids[s], kind: this.kinds[s] };
  }

  /** Top-k by cosine similarity over every live vector (brute force over the int8 codes). */
  search(query: ArrayLike<number>, k: number, filter?: VectorFilter): VectorHit[] {
    k = Math.floor(k);
    if (!(k > 0) || this.liveCount === 0) return [];
    const arena = this.vecs;
    arena.setQuery(normalized(query, this.dim));
    const top = new TopK(Math.min(k, this.liveCount));
    const live = this.liveFlags;
    for (let first = 0; first < this.slotCount; first += SCAN_CHUNK) {
      const n = Math.min(SCAN_CHUNK, this.slotCount - first);
      const scores = arena.scan(first, n);
      let floor = top.floor;
      for (let j = 0; j < n; j++) {
        const s = scores[j];
        if (s <= floor) continue;
        const slot = first + j;
        if (!live[slot]) continue;
        if (filter && !filter(this.ids[slot], this.kinds[slot])) continue;
        top.push(s, slot);
        floor = top.floor;
      }
    }
    return this.hits(top);
  }

  /** Turns slots in a TopK into hits. */
  hits(top: TopK): VectorHit[] {
    const out: VectorHit[] = [];
    for (let i = 0; i < top.size; i++) {
      const slot = top.items[i];
      out.push({ id: this.ids[slot], kind: this.kinds[slot], score: top.scores[i] });
    }
    return out;
  }

  /** Appends queued records and fsyncs; returns the records written. */
  flush(): number {
    if (this.pendingBytes === 0) return 0;
    if (this.fd === undefined) throw new Error('vector store is closed');
    const buf = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    let written = 0;
    while (written < buf.length) written += fs.writeSync(this.fd, buf, written, buf.length - written);
    fs.fsyncSync(this.fd);
    const records = this.pendingBytes / this.recordBytes;
    this.pending = [];
    this.pendingBytes = 0;
    return records;
  }

  /**
   * Rewrites the file with only live vectors (atomic: temp file, fsync, rename) and renumbers
   * slots; `instance` changes, so an HNSW index over the old numbering must be rebuilt. Flushes
   * first, then copies the live records from the file as they are: memory holds only int8 codes,
   * and the file keeps the full float32 vectors.
   */
  compact(): void {
    if (this.fd === undefined) throw new Error('vector store is closed');
    this.flush();
    const instance = crypto.randomBytes(8);
    const header = encodeHeader(this.dim, this.modelId, instance);
    const arena = new VectorArena(this.dim, this.liveCount, this.options.simd ?? true);
    const ids = new Float64Array(Math.max(1024, this.liveCount));
    const kinds = new Uint8Array(ids.length);
    const chunks: Buffer[] = [header];
    let n = 0;
    const slots = copyLiveRecords(
      this.path,
      header.length,
      this.dim,
      { ids: this.ids, kinds: this.kinds, live: this.liveFlags },
      chunks,
      (s) => {
        arena.copySlot(this.vecs, s, n);
        ids[n] = this.ids[s];
        kinds[n] = this.kinds[s];
        n++;
      },
    );
    if (slots !== this.slotCount) throw new Error(`vector file holds ${slots} vectors, the store ${this.slotCount}`);
    fs.closeSync(this.fd);
    this.fd = undefined;
    writeFileDurably(this.path, chunks);
    this.fd = fs.openSync(this.path, fs.constants.O_WRONLY | fs.constants.O_APPEND);
    this.vecs = arena;
    this.ids = ids;
    this.kinds = kinds;
    this.liveFlags = new Uint8Array(ids.length).fill(1, 0, n);
    this.slotCount = n;
    this.liveCount = n;
    this.slotByKey.clear();
    for (let s = 0; s < n; s++) this.slotByKey.set(this.ids[s] * 256 + this.kinds[s], s);
    this.instanceHex = instance.toString('hex');
  }

  /** Flushes and closes the file. */
  close(): void {
    if (this.fd === undefined) return;
    this.flush();
    fs.closeSync(this.fd);
    this.fd = undefined;
  }

  // --- Slot access for the HNSW index (hnsw.ts). ---------------------------------------------

  /** The region holding the vectors' int8 codes (replaced by `compact`). */
  get arena(): VectorArena {
    return this.vecs;
  }
  isLive(slot: number): boolean {
    return this.liveFlags[slot] === 1;
  }
  idOf(slot: number): number {
    return this.ids[slot];
  }
  kindOf(slot: number): number {
    return this.kinds[slot];
  }
  slotOf(id: number, kind = 0): number | undefined {
    return this.slotByKey.get(keyOf(id, kind));
  }

  // --- internals ------------------------------------------------------------------------------

  /** A fresh slot for (id, kind), killing the old one if any. */
  private place(id: number, kind: number): number {
    this.kill(id, kind);
    const slot = this.slotCount++;
    if (slot >= this.ids.length) {
      const grow = <T extends Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.ids = grow(this.ids, (n) => new Float64Array(n));
      this.kinds = grow(this.kinds, (n) => new Uint8Array(n));
      this.liveFlags = grow(this.liveFlags, (n) => new Uint8Array(n));
    }
    this.vecs.ensure(slot + 1);
    this.ids[slot] = id;
    this.kinds[slot] = kind;
    this.liveFlags[slot] = 1;
    this.liveCount++;
    this.slotByKey.set(id * 256 + kind, slot);
    return slot;
  }

  private kill(id: number, kind: number): boolean {
    const key = id * 256 + kind;
    const slot = this.slotByKey.get(key);
    if (slot === undefined) return false;
    this.slotByKey.delete(key);
    this.liveFlags[slot] = 0;
    this.liveCount--;
    return true;
  }

  private queueRecord(op: number, id: number, kind: number, vec: Float32Array | undefined): void {
    const buf = encodeRecord(op, id, kind, vec, this.recordBytes);
    this.pending.push(buf);
    this.pendingBytes += buf.length;
  }
}
