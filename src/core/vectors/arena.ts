/**
 * Where the vectors live in memory: int8 scalar-quantised, each as codes round(v_i * 127 / max |v|)
 * and one float32 scale (max |v| / 127), dim + 4 bytes instead of 4 * dim, so that a large store
 * fits the service's memory budget. Queries stay float32 (asymmetric distance: scale * sum of
 * q_i * code_i), which keeps the scores close to the true cosine. The codes sit in one region in
 * WebAssembly memory, where the SIMD kernel (kernel.ts) reads them in place.
 */
import { instantiateSimdKernel, queryDotJs, slotDotJs, type SimdKernel, type WasmMemory } from './kernel.js';

/** Slots scored per `scan` call: the arena keeps room for this many scores. */
export const SCAN_CHUNK = 1024;

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
  private readonly wasmScan: SimdKernel['scan'] | undefined;

  constructor(
    readonly dim: number,
    capacity: number,
    useSimd = true,
  ) {
    const codes = (this.codes = Math.ceil(dim / 16) * 16);
    const stride = (this.stride = codes + 4);
    const base = (this.base = 4 * (codes + SCAN_CHUNK));
    const kernel = useSimd ? instantiateSimdKernel() : null;
    this.f32 = new Float32Array(0);
    this.i8 = new Int8Array(0);
    if (kernel) {
      this.memory = kernel.memory;
      const { qdot, pair } = kernel;
      this.queryDot = (slot) => {
        const at = base + slot * stride;
        return qdot(0, at, at + codes);
      };
      this.slotDot = (a, b) => {
        const at = base + a * stride;
        return pair(at, base + b * stride, at + codes);
      };
      this.wasmScan = kernel.scan;
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
