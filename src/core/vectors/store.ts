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
 * In memory, vectors are int8 scalar-quantised: each is held as codes round(v_i * 127 / max |v|)
 * and one float32 scale (max |v| / 127), dim + 4 bytes instead of 4 * dim, because float32 would
 * take 154 MB at 100k x 384-d and the service must stay within its memory budget (int8: 39 MB).
 * The file keeps the float32 vectors: `add` and `load` quantise, and `compact()` copies records
 * from the old file rather than re-encoding codes. Queries stay float32 (asymmetric distance:
 * scale * sum of q_i * code_i), so a score is within ~0.002 of the true cosine at 384-d and exact
 * search keeps recall@10 ~0.99 against float64. The codes live in one region (a VectorArena) in
 * WebAssembly memory, where a hand-assembled 128-bit SIMD kernel widens 16 codes at a time to
 * float32; at 100k x 384-d a search scans in ~5 ms, against ~6 ms for the float32 kernel this
 * replaced (compute, not memory bandwidth, now bounds it) and ~50 ms for the plain JS fallback
 * (used where WebAssembly SIMD is missing, or with RECALL_VECTORS_SIMD=0).
 *
 * Slot numbers follow the order of `add` records in the file, so they are the same in every run
 * until `compact()`, which renumbers them and changes `instance` (the HNSW index keys on both). A
 * replaced or removed vector leaves a dead slot until `compact()`.
 *
 * Vectors are stored unit-normalised, so cosine similarity is a dot product.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { writeFileDurably } from '../store/durable.js';

export interface VectorHit {
  id: number;
  kind: number;
  /** Cosine similarity, in [-1, 1] up to quantisation (within ~0.002 at 384-d, a little more in fewer dimensions). */
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
// Normalisation, quantisation, SIMD kernel and arena.

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

/**
 * A WebAssembly module (hand-assembled; no toolchain needed) over an imported memory. A slot is
 * int8 codes (a multiple of 16 bytes, zero-padded) followed by its f32 scale; the query is f32.
 *   qdot(q, p, end) -> f32   scale(end) * sum of q[i] * code[i], for codes at byte offsets p..end
 *   scan(q, p, count, codeBytes, out)   out[i] = qdot(q, slot i, ...), slots codeBytes + 4 apart
 *   pair(a, b, end) -> f32   scale(a) * scale(b) * sum of codeA[i] * codeB[i] (codes a..end)
 * qdot widens 16 codes at a time to f32 (i8 -> i16 -> i32 -> f32) into four f32x4 accumulators;
 * pair stays in integers (i32x4.dot_i16x8_s), exact since |sum| <= 127^2 * 65536 < 2^31.
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
  // v128.load: query floats are 16-byte aligned (align 2^4), codes only 4-byte (2^2).
  const loadQ = (offset: number) => [...simd(0x00), 4, ...leb(offset)];
  const loadC = [...simd(0x00), 2, 0];
  const [F32X4_ADD, F32X4_MUL, TO_F32X4] = [simd(0xe4), simd(0xe6), simd(0xfa)];
  const [I16_LOW, I16_HIGH, I32_LOW, I32_HIGH] = [simd(0x87), simd(0x88), simd(0xa7), simd(0xa8)]; // signed widenings
  const [I32X4_ADD, I32X4_DOT] = [simd(0xae), simd(0xba)];
  const f32Lane = (l: number) => [...simd(0x1f), l];
  const i32Lane = (l: number) => [...simd(0x1b), l];
  const I32 = (n: number) => [0x41, ...(n < 64 ? [n] : [(n & 0x7f) | 0x80, n >> 7])]; // signed LEB, n < 8192
  const [I32_ADD, I32_SUB, I32_LT_U, I32_EQZ, CALL] = [[0x6a], [0x6b], [0x49], [0x45], [0x10]];
  const [F32_ADD, F32_MUL, F32_FROM_I32, F32_LOAD, F32_STORE] = [[0x92], [0x94], [0xb2], [0x2a, 2, 0], [0x38, 2, 0]];
  const LOOP = [0x03, 0x40];
  const END = [0x0b];
  /** acc += f32(widened codes) * q[at..at+16), for a widened i16x8 local h: its low or high half. */
  const mulAdd = (h: number, half: number[], at: number, acc: number) => [
    ...get(h), ...half, ...TO_F32X4, ...get(0), ...loadQ(at), ...F32X4_MUL, ...get(acc), ...F32X4_ADD, ...set(acc),
  ];
  // qdot: params q0 p1 end2; locals v128: codes 3, half 4, accumulators 5-8 (locals start at zero).
  const qdotBody = [
    1, 6, 0x7b,
    ...LOOP,
    ...get(1), ...loadC, ...tee(3), ...I16_LOW, ...set(4),
    ...mulAdd(4, I32_LOW, 0, 5), ...mulAdd(4, I32_HIGH, 16, 6),
    ...get(3), ...I16_HIGH, ...set(4),
    ...mulAdd(4, I32_LOW, 32, 7), ...mulAdd(4, I32_HIGH, 48, 8),
    ...get(0), ...I32(64), ...I32_ADD, ...set(0),
    ...get(1), ...I32(16), ...I32_ADD, ...tee(1), ...get(2), ...I32_LT_U, 0x0d, 0,
    ...END,
    ...get(5), ...get(6), ...F32X4_ADD, ...get(7), ...get(8), ...F32X4_ADD, ...F32X4_ADD, ...tee(5), ...f32Lane(0),
    ...get(5), ...f32Lane(1), ...F32_ADD, ...get(5), ...f32Lane(2), ...F32_ADD, ...get(5), ...f32Lane(3), ...F32_ADD,
    ...get(2), ...F32_LOAD, ...F32_MUL,
    ...END,
  ];
  // scan: params q0 p1 count2 codeBytes3 out4; p steps to each slot's scale, then past it.
  const scanBody = [
    0,
    0x02, 0x40,
    ...get(2), ...I32_EQZ, 0x0d, 0,
    ...LOOP,
    ...get(4), ...get(0), ...get(1), ...get(1), ...get(3), ...I32_ADD, ...tee(1), ...CALL, 0, ...F32_STORE,
    ...get(1), ...I32(4), ...I32_ADD, ...set(1),
    ...get(4), ...I32(4), ...I32_ADD, ...set(4),
    ...get(2), ...I32(1), ...I32_SUB, ...tee(2), 0x0d, 0,
    ...END,
    ...END,
    ...END,
  ];
  // pair: params a0 b1 end2; locals v128: codes of a 3, of b 4, accumulator 5.
  const dotHalf = (half: number[]) => [...get(3), ...half, ...get(4), ...half, ...I32X4_DOT, ...get(5), ...I32X4_ADD, ...set(5)];
  const pairBody = [
    1, 3, 0x7b,
    ...LOOP,
    ...get(0), ...loadC, ...set(3), ...get(1), ...loadC, ...set(4),
    ...dotHalf(I16_LOW), ...dotHalf(I16_HIGH),
    ...get(1), ...I32(16), ...I32_ADD, ...set(1),
    ...get(0), ...I32(16), ...I32_ADD, ...tee(0), ...get(2), ...I32_LT_U, 0x0d, 0,
    ...END,
    ...get(5), ...i32Lane(0), ...get(5), ...i32Lane(1), ...I32_ADD, ...get(5), ...i32Lane(2), ...I32_ADD, ...get(5), ...i32Lane(3), ...I32_ADD,
    ...F32_FROM_I32, ...get(2), ...F32_LOAD, ...F32_MUL, ...get(1), ...F32_LOAD, ...F32_MUL,
    ...END,
  ];
  const body = (b: number[]) => [...leb(b.length), ...b];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [[0x60, 3, 0x7f, 0x7f, 0x7f, 1, 0x7d], [0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]]),
    ...section(2, [[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]]),
    ...section(3, [[0], [1], [0]]),
    ...section(7, [[...name('qdot'), 0x00, 0], [...name('scan'), 0x00, 1], [...name('pair'), 0x00, 2]]),
    ...section(10, [body(qdotBody), body(scanBody), body(pairBody)]),
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
 * Slots of int8 codes in one region: a float32 query at byte 0 (`codes` floats), SCAN_CHUNK float32
 * scores, then slot s at byte `base + s * stride`: `codes` int8 codes (dim rounded up to 16,
 * zero-padded, so the kernel needs no tail loop) and the float32 scale (max |v_i| / 127), so that
 * v_i ~ code_i * scale. In WebAssembly memory when SIMD is available, an ArrayBuffer otherwise.
 * Slots are written once (`write`, `copySlot`) into zeroed memory, so their padding stays zero (a
 * replaced vector gets a new slot).
 */
export class VectorArena {
  /** Bytes a slot takes: its codes, then its scale. */
  readonly stride: number;
  readonly simd: boolean;
  capacity = 0;
  /** Similarity of the query (`setQuery`) and a slot. */
  readonly queryDot: (slot: number) => number;
  /** Similarity of two slots (int8 . int8, used while building the HNSW graph). */
  readonly slotDot: (a: number, b: number) => number;
  private readonly codes: number;
  private readonly base: number;
  // Views over the region, replaced when it grows.
  private f32: Float32Array;
  private i8: Int8Array;
  private readonly memory: WasmMemory | undefined;
  private readonly wasmScan: ((q: number, p: number, count: number, codeBytes: number, out: number) => void) | undefined;

  constructor(readonly dim: number, capacity: number, useSimd = true) {
    const codes = (this.codes = Math.ceil(dim / 16) * 16);
    const stride = (this.stride = codes + 4);
    const base = (this.base = 4 * (codes + SCAN_CHUNK));
    const mod = useSimd ? simdKernel() : null;
    this.f32 = new Float32Array(0);
    this.i8 = new Int8Array(0);
    if (mod && wasmApi) {
      this.memory = new wasmApi.Memory({ initial: 1 });
      const exports = new wasmApi.Instance(mod, { env: { memory: this.memory } }).exports as {
        qdot: (q: number, p: number, end: number) => number;
        scan: (q: number, p: number, count: number, codeBytes: number, out: number) => void;
        pair: (a: number, b: number, end: number) => number;
      };
      const { qdot, pair } = exports;
      this.queryDot = (slot) => {
        const at = base + slot * stride;
        return qdot(0, at, at + codes);
      };
      this.slotDot = (a, b) => {
        const at = base + a * stride;
        return pair(at, base + b * stride, at + codes);
      };
      this.wasmScan = exports.scan;
      this.simd = true;
    } else {
      this.simd = false;
      this.queryDot = (slot) => queryDotJs(this.f32, this.i8, base + slot * stride, codes);
      this.slotDot = (a, b) => slotDotJs(this.f32, this.i8, base + a * stride, base + b * stride, codes);
    }
    this.ensure(Math.max(capacity, 1));
  }

  /** Bytes the region holds (query, scores and every slot, free ones included). */
  get byteLength(): number {
    return this.i8.byteLength;
  }

  /** Room for at least `slots` slots (grows by 25% at a time). */
  ensure(slots: number): void {
    if (slots <= this.capacity) return;
    const cap = Math.max(slots, Math.ceil(this.capacity * 1.25), this.capacity + 1024);
    const bytes = this.base + cap * this.stride;
    let buffer: ArrayBuffer;
    if (this.memory) {
      const pages = Math.ceil(bytes / 65536) - this.memory.buffer.byteLength / 65536;
      if (pages > 0) this.memory.grow(pages);
      buffer = this.memory.buffer;
    } else {
      buffer = new ArrayBuffer(bytes);
      new Int8Array(buffer).set(this.i8.subarray(0, Math.min(this.i8.length, bytes)));
    }
    this.f32 = new Float32Array(buffer);
    this.i8 = new Int8Array(buffer);
    this.capacity = cap;
  }

  /** Quantises a normalised vector into `slot`: code_i = round(v_i * 127 / max |v|). */
  write(slot: number, v: Float32Array): void {
    const at = this.base + slot * this.stride;
    let max = 0;
    for (let i = 0; i < this.dim; i++) max = Math.max(max, Math.abs(v[i]));
    const k = max > 0 ? 127 / max : 0;
    const i8 = this.i8;
    for (let i = 0; i < this.dim; i++) i8[at + i] = Math.round(v[i] * k);
    this.f32[(at + this.codes) >> 2] = max / 127;
  }

  /** The vector in `slot`, dequantised (code_i * scale). */
  read(slot: number): Float32Array {
    const at = this.base + slot * this.stride;
    const scale = this.f32[(at + this.codes) >> 2];
    const out = new Float32Array(this.dim);
    for (let i = 0; i < this.dim; i++) out[i] = this.i8[at + i] * scale;
    return out;
  }

  /** Copies a slot of another arena of the same dimension (codes and scale, as they are). */
  copySlot(from: VectorArena, fromSlot: number, toSlot: number): void {
    const at = from.base + fromSlot * from.stride;
    this.i8.set(from.i8.subarray(at, at + from.stride), this.base + toSlot * this.stride);
  }

  /** Sets the query (float32, not quantised) that `queryDot` and `scan` compare slots with. */
  setQuery(q: Float32Array): void {
    this.f32.set(q, 0);
  }

  /** scores[i] = queryDot(first + i) for i < count (1 <= count <= SCAN_CHUNK); returns the scores view. */
  scan(first: number, count: number): Float32Array {
    const out = this.codes;
    if (this.wasmScan) this.wasmScan(0, this.base + first * this.stride, count, this.codes, out << 2);
    else for (let i = 0; i < count; i++) this.f32[out + i] = this.queryDot(first + i);
    return this.f32.subarray(out, out + count);
  }
}

/** The plain JS fallback of the kernel's qdot: the query (at 0) . the codes at byte `at`, scaled. */
function queryDotJs(f32: Float32Array, i8: Int8Array, at: number, codes: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let i = 0; i < codes; i += 4) {
    s0 += f32[i] * i8[at + i];
    s1 += f32[i + 1] * i8[at + i + 1];
    s2 += f32[i + 2] * i8[at + i + 2];
    s3 += f32[i + 3] * i8[at + i + 3];
  }
  return (s0 + s1 + s2 + s3) * f32[(at + codes) >> 2];
}

/** The plain JS fallback of the kernel's pair: codes at byte a . codes at byte b, scaled. */
function slotDotJs(f32: Float32Array, i8: Int8Array, a: number, b: number, codes: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let i = 0; i < codes; i += 4) {
    s0 += i8[a + i] * i8[b + i];
    s1 += i8[a + i + 1] * i8[b + i + 1];
    s2 += i8[a + i + 2] * i8[b + i + 2];
    s3 += i8[a + i + 3] * i8[b + i + 3];
  }
  return (s0 + s1 + s2 + s3) * f32[(a + codes) >> 2] * f32[(b + codes) >> 2];
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
    const vec = new Float32Array(this.dim);
    const vecBytes = new Uint8Array(vec.buffer);
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
          vecBytes.set(buf.subarray(off + 16, off + rb));
          this.vecs.write(this.place(id, kind), vec);
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
    const rb = this.recordBytes;
    const instance = crypto.randomBytes(8);
    const header = encodeHeader(this.dim, this.modelId, instance);
    const arena = new VectorArena(this.dim, this.liveCount, this.options.simd ?? true);
    const ids = new Float64Array(Math.max(1024, this.liveCount));
    const kinds = new Uint8Array(ids.length);
    const chunks: Buffer[] = [header];
    const buf = Buffer.alloc(Math.max(1, Math.floor(READ_CHUNK / rb)) * rb);
    const src = fs.openSync(this.path, 'r');
    let slot = 0;
    let n = 0;
    try {
      const size = fs.fstatSync(src).size;
      // Slot s is the s-th add record: the header is as long as the new one (same model id).
      for (let pos = header.length; pos + rb <= size; ) {
        const want = Math.min(buf.length, Math.floor((size - pos) / rb) * rb);
        if (fs.readSync(src, buf, 0, want, pos) !== want) throw new Error(`short read at ${pos}`);
        let used = 0;
        for (let off = 0; off < want; off += rb) {
          const op = buf[off];
          if (op === OP_REMOVE) continue;
          const s = slot++;
          if (op !== OP_ADD || buf.readDoubleLE(off + 8) !== this.ids[s] || buf[off + 1] !== this.kinds[s]) {
            throw new Error(`vector file does not match the store at byte ${pos + off}`);
          }
          if (!this.liveFlags[s]) continue;
          buf.copy(buf, used, off, off + rb);
          used += rb;
          arena.copySlot(this.vecs, s, n);
          ids[n] = this.ids[s];
          kinds[n] = this.kinds[s];
          n++;
        }
        chunks.push(Buffer.from(buf.subarray(0, used)));
        pos += want;
      }
    } finally {
      fs.closeSync(src);
    }
    if (slot !== this.slotCount) throw new Error(`vector file holds ${slot} vectors, the store ${this.slotCount}`);
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

  // --- Slot access for the HNSW index (src/core/hnsw.ts). -------------------------------------

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
