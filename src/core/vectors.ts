/**
 * Embedding vectors, kept outside sql.js in a typed-array file in the memory folder (derived data:
 * a missing, corrupt or mismatched file is rebuilt by re-embedding).
 *
 * File: a header (magic, version, dim, model id, a random instance id), then fixed-size records,
 * one per `add` or `remove`, each with its own CRC-32:
 *
 *   header  "RCLVECS1" u32 version, u32 dim, u32 recordBytes, u32 modelIdBytes, u8[8] instance,
 *           u32 headerCrc, u32 0, model id (UTF-8, zero-padded to 8 bytes)
 *   record  u8 op (1 add, 2 remove), u8 kind, u16 0, u32 crc (of the record, this field as 0),
 *           f64 id, f32[dim] vector
 *
 * Writes are append-only: `add`/`remove` queue records in memory and `flush()` appends them with
 * one write and an fsync. At 100k x 384-d the file is ~155 MB, so rewriting it per flush is out of
 * the question, while an append costs only what changed. A crash mid-append leaves a torn tail
 * (a partial record, or trailing records whose CRC fails); `load` cuts it off and carries on:
 * those vectors were never acknowledged and the caller re-embeds whatever is missing. A bad record
 * followed by good ones is corruption, not a torn write: `load` says the file must be rebuilt.
 * `compact()` drops dead records with an atomic rewrite (temp file, fsync, rename, fsync folder).
 *
 * In memory, vectors live in one contiguous float32 region (a VectorArena) inside WebAssembly
 * memory, where a 128-bit SIMD kernel of ~150 bytes computes dot products about 3x faster than
 * plain JS (4-way unrolled JS is the fallback where WebAssembly SIMD is missing, or with
 * RECALL_VECTORS_SIMD=0). Slot numbers follow the order of `add` records in the file, so they are
 * the same in every run until `compact()`, which renumbers them and changes `instance` (the HNSW
 * index keys on both). A replaced or removed vector leaves a dead slot until `compact()`.
 *
 * Vectors are stored unit-normalised, so cosine similarity is a dot product.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { writeFileDurably } from './durable.js';

export interface VectorHit {
  id: number;
  kind: number;
  /** Cosine similarity, in [-1, 1]. */
  score: number;
}

/** Keeps a candidate when it returns true. Called only for candidates that would enter the top k. */
export type VectorFilter = (id: number, kind: number) => boolean;

export type VectorLoadResult =
  | { ok: true; store: VectorStore; /** Bytes of a torn tail cut off (an interrupted append). */ tornBytes: number }
  | { ok: false; code: 'missing' | 'corrupt' | 'dim-mismatch' | 'model-mismatch'; reason: string };

const MAGIC = 'RCLVECS1';
const VERSION = 1;
const FIXED_HEADER = 40;
const OP_ADD = 1;
const OP_REMOVE = 2;
const MAX_ID = 2 ** 45;
const MAX_MODEL_ID_BYTES = 1024;
const SCAN_CHUNK = 1024;
const READ_CHUNK = 4 << 20;

// ---------------------------------------------------------------------------------------------
// CRC-32 (zlib.crc32 where Node has it, >= 20.15; a table otherwise).

const nativeCrc = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
let crcTable: Uint32Array | undefined;
function crc32(data: Uint8Array, value = 0): number {
  if (nativeCrc) return nativeCrc(data, value);
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = ~value >>> 0;
  for (let i = 0; i < data.length; i++) c = crcTable[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** CRC of a record with its own crc field (bytes 4..8) zeroed; zeroes that field in `buf`. */
function recordCrc(buf: Buffer, offset: number, recordBytes: number): number {
  buf.writeUInt32LE(0, offset + 4);
  return crc32(buf.subarray(offset, offset + recordBytes));
}

// ---------------------------------------------------------------------------------------------
// Dot product and normalisation.

/** Dot product of a[ao..ao+dim) and b[bo..bo+dim), 4-way unrolled. */
export function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  const end4 = dim - (dim & 3);
  for (; i < end4; i += 4) {
    s0 += a[ao + i] * b[bo + i];
    s1 += a[ao + i + 1] * b[bo + i + 1];
    s2 += a[ao + i + 2] * b[bo + i + 2];
    s3 += a[ao + i + 3] * b[bo + i + 3];
  }
  for (; i < dim; i++) s0 += a[ao + i] * b[bo + i];
  return s0 + s1 + s2 + s3;
}

/** A unit-length float32 copy of `vec` (a zero vector stays zero). Throws on a wrong length or NaN. */
export function normalized(vec: ArrayLike<number>, dim: number): Float32Array {
  if (vec.length !== dim) throw new RangeError(`vector has ${vec.length} dimensions, the store holds ${dim}`);
  const out = Float32Array.from(vec as ArrayLike<number>);
  let sum = 0;
  for (let i = 0; i < dim; i++) sum += out[i] * out[i];
  if (!Number.isFinite(sum)) throw new RangeError('vector contains NaN or Infinity');
  if (sum > 0 && Math.abs(sum - 1) > 1e-6) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < dim; i++) out[i] *= inv;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// SIMD kernel and arena.

/**
 * A WebAssembly module (hand-assembled; no toolchain needed) over an imported memory:
 *   dot(a, b, end) -> f32    sum of a[i]*b[i] for byte offsets a..end (a multiple of 32 bytes)
 *   scan(q, p, count, strideBytes, out)   out[i] = dot(q, p + i*strideBytes), i < count
 * Two f32x4 accumulators, 8 floats per iteration; vectors are 32-byte aligned and zero-padded.
 */
function kernelBytes(): Uint8Array {
  const leb = (n: number): number[] => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return out;
  };
  const name = (s: string): number[] => [...leb(s.length), ...Buffer.from(s, 'latin1')];
  const section = (id: number, items: number[][]): number[] => {
    const body = [...leb(items.length), ...items.flat()];
    return [id, ...leb(body.length), ...body];
  };
  const simd = (op: number): number[] => [0xfd, ...leb(op)];
  const get = (i: number) => [0x20, i];
  const set = (i: number) => [0x21, i];
  const tee = (i: number) => [0x22, i];
  const load = (offset: number) => [...simd(0x00), 4, ...leb(offset)];
  const [ADD, MUL, ZERO] = [simd(0xe4), simd(0xe6), [...simd(0x0c), ...new Array(16).fill(0)]];
  const lane = (l: number) => [...simd(0x1f), l];
  const I32 = (n: number) => [0x41, n]; // n < 64
  const [I32_ADD, I32_SUB, I32_LT_U, I32_EQZ, F32_ADD, F32_STORE] = [[0x6a], [0x6b], [0x49], [0x45], [0x92], [0x38, 2, 0]];
  /** acc(x) += v[p..p+32) * q[r..r+32), then p += 32, r += 32, loop while p < end. */
  const inner = (p: number, r: number, end: number, acc0: number, acc1: number) => [
    0x03, 0x40,
    ...get(acc0), ...get(p), ...load(0), ...get(r), ...load(0), ...MUL, ...ADD, ...set(acc0),
    ...get(acc1), ...get(p), ...load(16), ...get(r), ...load(16), ...MUL, ...ADD, ...set(acc1),
    ...get(p), ...I32(32), ...I32_ADD, ...set(p),
    ...get(r), ...I32(32), ...I32_ADD, ...set(r),
    ...get(p), ...get(end), ...I32_LT_U, 0x0d, 0,
    0x0b,
  ];
  const hsum = (acc0: number, acc1: number) => [
    ...get(acc0), ...get(acc1), ...ADD, ...tee(acc0), ...lane(0),
    ...get(acc0), ...lane(1), ...F32_ADD, ...get(acc0), ...lane(2), ...F32_ADD, ...get(acc0), ...lane(3), ...F32_ADD,
  ];
  // dot: params a0 b1 end2; locals v128 3, 4.
  const dotBody = [1, 2, 0x7b, ...inner(0, 1, 2, 3, 4), ...hsum(3, 4), 0x0b];
  // scan: params q0 p1 count2 stride3 out4; locals i32 end5, r6; v128 7, 8.
  const scanBody = [
    2, 2, 0x7f, 2, 0x7b,
    0x02, 0x40,
    ...get(2), ...I32_EQZ, 0x0d, 0,
    0x03, 0x40,
    ...ZERO, ...set(7), ...ZERO, ...set(8),
    ...get(0), ...set(6),
    ...get(1), ...get(3), ...I32_ADD, ...set(5),
    ...inner(1, 6, 5, 7, 8),
    ...get(4), ...hsum(7, 8), ...F32_STORE,
    ...get(4), ...I32(4), ...I32_ADD, ...set(4),
    ...get(2), ...I32(1), ...I32_SUB, ...tee(2), 0x0d, 0,
    0x0b,
    0x0b,
    0x0b,
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [[0x60, 3, 0x7f, 0x7f, 0x7f, 1, 0x7d], [0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]]),
    ...section(2, [[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]]),
    ...section(3, [[0], [1]]),
    ...section(7, [[...name('dot'), 0x00, 0], [...name('scan'), 0x00, 1]]),
    ...section(10, [[...leb(dotBody.length), ...dotBody], [...leb(scanBody.length), ...scanBody]]),
  ]);
}

/** The slice of the WebAssembly JS API used here (this project's lib settings do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const wasmApi = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let kernelModule: object | null | undefined;
function simdKernel(): object | null {
  if (kernelModule === undefined) {
    try {
      const bytes = kernelBytes();
      kernelModule = wasmApi && process.env.RECALL_VECTORS_SIMD !== '0' && wasmApi.validate(bytes) ? new wasmApi.Module(bytes) : null;
    } catch {
      kernelModule = null;
    }
  }
  return kernelModule;
}

/**
 * Float32 slots of `stride` floats (dim rounded up to 8, zero-padded) in one region: a query slot
 * at 0, SCAN_CHUNK scores, then slot s at `base + s * stride`. In WebAssembly memory when SIMD is
 * available; `f32` is replaced when the region grows (never keep it across an `ensure`).
 */
export class VectorArena {
  readonly stride: number;
  readonly base: number;
  readonly simd: boolean;
  f32: Float32Array;
  capacity = 0;
  /** Dot product of the slots at float offsets a and b (stride floats). */
  readonly dot: (a: number, b: number) => number;
  private readonly memory: WasmMemory | undefined;
  private readonly wasmScan: ((q: number, p: number, count: number, strideBytes: number, out: number) => void) | undefined;

  constructor(readonly dim: number, capacity: number, useSimd = true) {
    this.stride = Math.ceil(dim / 8) * 8;
    this.base = this.stride + SCAN_CHUNK;
    const mod = useSimd ? simdKernel() : null;
    const stride = this.stride;
    if (mod && wasmApi) {
      this.memory = new wasmApi.Memory({ initial: 1 });
      const exports = new wasmApi.Instance(mod, { env: { memory: this.memory } }).exports as {
        dot: (a: number, b: number, end: number) => number;
        scan: (q: number, p: number, count: number, strideBytes: number, out: number) => void;
      };
      const wdot = exports.dot;
      this.dot = (a, b) => wdot(a << 2, b << 2, (a + stride) << 2);
      this.wasmScan = exports.scan;
      this.simd = true;
      this.f32 = new Float32Array(this.memory.buffer);
    } else {
      this.simd = false;
      this.f32 = new Float32Array(0);
      this.dot = (a, b) => dot(this.f32, a, this.f32, b, stride);
    }
    this.ensure(Math.max(capacity, 1));
  }

  /** Room for at least `slots` slots (grows by 25% at a time). */
  ensure(slots: number): void {
    if (slots <= this.capacity) return;
    const cap = Math.max(slots, Math.ceil(this.capacity * 1.25), this.capacity + 1024);
    const floats = this.base + cap * this.stride;
    if (this.memory) {
      const pages = Math.ceil((floats * 4) / 65536) - this.memory.buffer.byteLength / 65536;
      if (pages > 0) this.memory.grow(pages);
      this.f32 = new Float32Array(this.memory.buffer);
    } else {
      const f32 = new Float32Array(floats);
      f32.set(this.f32.subarray(0, Math.min(this.f32.length, floats)));
      this.f32 = f32;
    }
    this.capacity = cap;
  }

  offset(slot: number): number {
    return this.base + slot * this.stride;
  }

  /** Writes a normalised vector into the query slot (offset 0). */
  setQuery(q: Float32Array): void {
    this.f32.set(q, 0);
  }

  /** scores[i] = dot(query slot, slot first+i) for i < count (count <= SCAN_CHUNK); returns the scores view. */
  scan(first: number, count: number): Float32Array {
    const out = this.stride;
    if (this.wasmScan) this.wasmScan(0, this.offset(first) << 2, count, this.stride << 2, out << 2);
    else {
      const f = this.f32;
      for (let i = 0, at = this.offset(first); i < count; i++, at += this.stride) f[out + i] = dot(f, 0, f, at, this.stride);
    }
    return this.f32.subarray(out, out + count);
  }
}

/** Top-k by score: parallel arrays kept sorted descending (k is small). */
export class TopK {
  readonly scores: Float64Array;
  readonly items: Int32Array;
  size = 0;
  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.items = new Int32Array(k);
  }
  /** The score a candidate must beat to enter. */
  get floor(): number {
    return this.size < this.k ? -Infinity : this.scores[this.k - 1];
  }
  push(score: number, item: number): void {
    let i = this.size < this.k ? this.size++ : this.k - 1;
    while (i > 0 && (this.scores[i - 1] < score || (this.scores[i - 1] === score && this.items[i - 1] > item))) {
      this.scores[i] = this.scores[i - 1];
      this.items[i] = this.items[i - 1];
      i--;
    }
    this.scores[i] = score;
    this.items[i] = item;
  }
}


function keyOf(id: number, kind: number): number {
  if (!Number.isSafeInteger(id) || id < 0 || id >= MAX_ID) throw new RangeError(`vector id must be an integer in [0, 2^45), got ${id}`);
  if (!Number.isInteger(kind) || kind < 0 || kind > 255) throw new RangeError(`vector kind must be an integer in [0, 255], got ${kind}`);
  return id * 256 + kind;
}

interface Header {
  dim: number;
  recordBytes: number;
  modelId: string;
  instance: string;
  length: number;
}

function encodeHeader(dim: number, modelId: string, instance: Buffer): Buffer {
  const idBytes = Buffer.from(modelId, 'utf8');
  if (idBytes.length > MAX_MODEL_ID_BYTES) throw new RangeError('model id too long');
  const length = FIXED_HEADER + Math.ceil(idBytes.length / 8) * 8;
  const buf = Buffer.alloc(length);
  buf.write(MAGIC, 0, 'latin1');
  buf.writeUInt32LE(VERSION, 8);
  buf.writeUInt32LE(dim, 12);
  buf.writeUInt32LE(16 + 4 * dim, 16);
  buf.writeUInt32LE(idBytes.length, 20);
  instance.copy(buf, 24);
  idBytes.copy(buf, FIXED_HEADER);
  buf.writeUInt32LE(crc32(buf), 32);
  return buf;
}

function decodeHeader(fd: number, fileSize: number): Header | string {
  if (fileSize < FIXED_HEADER) return `file too short for a header (${fileSize} bytes)`;
  const fixed = Buffer.alloc(FIXED_HEADER);
  fs.readSync(fd, fixed, 0, FIXED_HEADER, 0);
  if (fixed.toString('latin1', 0, 8) !== MAGIC) return 'not a Recall vector file (bad magic)';
  const version = fixed.readUInt32LE(8);
  if (version !== VERSION) return `unknown vector file version ${version}`;
  const dim = fixed.readUInt32LE(12);
  const recordBytes = fixed.readUInt32LE(16);
  const idLength = fixed.readUInt32LE(20);
  if (dim < 1 || dim > 65536 || recordBytes !== 16 + 4 * dim || idLength > MAX_MODEL_ID_BYTES) return 'header fields out of range';
  const length = FIXED_HEADER + Math.ceil(idLength / 8) * 8;
  if (fileSize < length) return 'file too short for its header';
  const full = Buffer.alloc(length);
  fs.readSync(fd, full, 0, length, 0);
  const stored = full.readUInt32LE(32);
  full.writeUInt32LE(0, 32);
  if (crc32(full) !== stored) return 'header checksum mismatch';
  return {
    dim,
    recordBytes,
    modelId: full.toString('utf8', FIXED_HEADER, FIXED_HEADER + idLength),
    instance: full.toString('hex', 24, 32),
    length,
  };
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
    this.recordBytes = 16 + 4 * dim;
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
      const store = new VectorStore(file, dim, modelId, fd, header.instance, { ...options, capacity: Math.max(options.capacity ?? 0, records) });
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
  static open(file: string, dim: number, modelId: string, options: VectorStoreOptions = {}): { store: VectorStore; rebuilt: string | null; tornBytes: number } {
    const r = VectorStore.load(file, dim, modelId, options);
    if (r.ok) return { store: r.store, rebuilt: null, tornBytes: r.tornBytes };
    return { store: VectorStore.create(file, dim, modelId, options), rebuilt: r.reason, tornBytes: 0 };
  }

  /** Reads all records; returns the byte length of the good prefix, or why the file is corrupt. */
  private replay(fd: number, start: number, size: number): number | string {
    const rb = this.recordBytes;
    const perChunk = Math.max(1, Math.floor(READ_CHUNK / rb));
    const buf = Buffer.alloc(perChunk * rb);
    const aligned = buf.byteOffset % 4 === 0;
    const f32 = aligned ? new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4) : undefined;
    let pos = start;
    let goodEnd = start;
    let badAt = -1;
    while (pos + rb <= size) {
      const want = Math.min(perChunk, Math.floor((size - pos) / rb)) * rb;
      const got = fs.readSync(fd, buf, 0, want, pos);
      if (got !== want) return `short read at ${pos}`;
      for (let off = 0; off < want; off += rb) {
        const stored = buf.readUInt32LE(off + 4);
        const op = buf[off];
        const ok = stored === recordCrc(buf, off, rb) && (op === OP_ADD || op === OP_REMOVE) && buf[off + 2] === 0 && buf[off + 3] === 0;
        if (!ok) {
          if (badAt < 0) badAt = pos + off;
          continue;
        }
        if (badAt >= 0) return `damaged record at byte ${badAt} followed by good ones (corruption, not an interrupted write)`;
        const id = buf.readDoubleLE(off + 8);
        const kind = buf[off + 1];
        if (!Number.isSafeInteger(id) || id < 0 || id >= MAX_ID) return `bad id at byte ${pos + off}`;
        if (op === OP_ADD) {
          const slot = this.place(id, kind);
          const at = this.vecs.offset(slot);
          const dst = this.vecs.f32;
          if (f32) dst.set(f32.subarray((off + 16) / 4, (off + 16) / 4 + this.dim), at);
          else for (let i = 0; i < this.dim; i++) dst[at + i] = buf.readFloatLE(off + 16 + 4 * i);
        } else {
          this.kill(id, kind);
        }
        goodEnd = pos + off + rb;
      }
      pos += want;
    }
    return badAt >= 0 ? badAt : goodEnd;
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

  /** A copy of the stored (normalised) vector. */
  get(id: number, kind = 0): Float32Array | undefined {
    const slot = this.slotByKey.get(keyOf(id, kind));
    if (slot === undefined) return undefined;
    const at = this.vecs.offset(slot);
    return this.vecs.f32.slice(at, at + this.dim);
  }

  /** Adds or replaces the vector for (id, kind). Stored normalised; durable after `flush()`. */
  add(id: number, vec: ArrayLike<number>, kind = 0): void {
    keyOf(id, kind);
    const v = normalized(vec, this.dim);
    const slot = this.place(id, kind);
    this.vecs.f32.set(v, this.vecs.offset(slot));
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

  /** Exact top-k by cosine similarity over live vectors (brute force). */
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
   * slots; `instance` changes, so an HNSW index over the old numbering must be rebuilt.
   */
  compact(): void {
    if (this.fd === undefined) throw new Error('vector store is closed');
    const instance = crypto.randomBytes(8);
    const rb = this.recordBytes;
    const arena = new VectorArena(this.dim, this.liveCount, this.options.simd ?? true);
    const old = this.vecs.f32;
    const ids = new Float64Array(Math.max(1024, this.liveCount));
    const kinds = new Uint8Array(ids.length);
    const chunks: Buffer[] = [encodeHeader(this.dim, this.modelId, instance)];
    let chunk = Buffer.alloc(Math.max(1, Math.floor(READ_CHUNK / rb)) * rb);
    let used = 0;
    let n = 0;
    for (let s = 0; s < this.slotCount; s++) {
      if (!this.liveFlags[s]) continue;
      const at = this.vecs.offset(s);
      const vec = old.subarray(at, at + this.dim);
      arena.f32.set(vec, arena.offset(n));
      ids[n] = this.ids[s];
      kinds[n] = this.kinds[s];
      if (used === chunk.length) {
        chunks.push(chunk);
        chunk = Buffer.alloc(chunk.length);
        used = 0;
      }
      encodeRecord(chunk, used, OP_ADD, this.ids[s], this.kinds[s], vec, rb);
      used += rb;
      n++;
    }
    chunks.push(chunk.subarray(0, used));
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
    this.pending = [];
    this.pendingBytes = 0;
    this.instanceHex = instance.toString('hex');
  }

  /** Flushes and closes the file. */
  close(): void {
    if (this.fd === undefined) return;
    this.flush();
    fs.closeSync(this.fd);
    this.fd = undefined;
  }

  // --- Slot access for the HNSW index (src/core/hnsw.ts). -------------------------------------

  /** The float32 region holding the vectors (replaced by `compact`; its `f32` by growth). */
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
    const buf = Buffer.alloc(this.recordBytes);
    encodeRecord(buf, 0, op, id, kind, vec, this.recordBytes);
    this.pending.push(buf);
    this.pendingBytes += buf.length;
  }
}

function encodeRecord(buf: Buffer, off: number, op: number, id: number, kind: number, vec: Float32Array | undefined, rb: number): void {
  buf[off] = op;
  buf[off + 1] = kind;
  buf[off + 2] = 0;
  buf[off + 3] = 0;
  buf.writeDoubleLE(id, off + 8);
  if (vec) Buffer.from(vec.buffer, vec.byteOffset, vec.byteLength).copy(buf, off + 16);
  else buf.fill(0, off + 16, off + rb);
  buf.writeUInt32LE(recordCrc(buf, off, rb), off + 4);
}
