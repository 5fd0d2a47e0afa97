/**
 * The similarity kernel over int8 codes: a WebAssembly module with 128-bit SIMD, assembled here by
 * hand (no toolchain needed), and the plain JS functions used where WebAssembly SIMD is missing or
 * RECALL_VECTORS_SIMD=0.
 *
 * kernel.wat beside this file is the readable reference: the same three functions in WebAssembly
 * text, instruction for instruction. Change both together; test/vectors-kernel.test.ts
 * disassembles these bytes and compares them with it.
 *
 * A slot is int8 codes (a multiple of 16 bytes, zero-padded) followed by its f32 scale; the query
 * is f32, 16-byte aligned.
 *   qdot(q, p, end) -> f32   scale(end) * sum of q[i] * code[i], for codes at byte offsets p..end
 *   scan(q, p, count, codeBytes, out)   out[i] = qdot(q, slot i, ...), slots codeBytes + 4 apart
 *   pair(a, b, end) -> f32   scale(a) * scale(b) * sum of codeA[i] * codeB[i] (codes a..end)
 * qdot widens 16 codes at a time to f32 (i8 -> i16 -> i32 -> f32) into four f32x4 accumulators;
 * pair stays in integers (i32x4.dot_i16x8_s), exact since |sum| <= 127^2 * 65536 < 2^31.
 */

/** The module's bytes. */
export function kernelBytes(): Uint8Array {
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
    ...get(h),
    ...half,
    ...TO_F32X4,
    ...get(0),
    ...loadQ(at),
    ...F32X4_MUL,
    ...get(acc),
    ...F32X4_ADD,
    ...set(acc),
  ];
  // qdot: params q0 p1 end2; locals v128: codes 3, half 4, accumulators 5-8 (locals start at zero).
  const qdotBody = [
    1,
    6,
    0x7b,
    ...LOOP,
    ...get(1),
    ...loadC,
    ...tee(3),
    ...I16_LOW,
    ...set(4),
    ...mulAdd(4, I32_LOW, 0, 5),
    ...mulAdd(4, I32_HIGH, 16, 6),
    ...get(3),
    ...I16_HIGH,
    ...set(4),
    ...mulAdd(4, I32_LOW, 32, 7),
    ...mulAdd(4, I32_HIGH, 48, 8),
    ...get(0),
    ...I32(64),
    ...I32_ADD,
    ...set(0),
    ...get(1),
    ...I32(16),
    ...I32_ADD,
    ...tee(1),
    ...get(2),
    ...I32_LT_U,
    0x0d,
    0,
    ...END,
    ...get(5),
    ...get(6),
    ...F32X4_ADD,
    ...get(7),
    ...get(8),
    ...F32X4_ADD,
    ...F32X4_ADD,
    ...tee(5),
    ...f32Lane(0),
    ...get(5),
    ...f32Lane(1),
    ...F32_ADD,
    ...get(5),
    ...f32Lane(2),
    ...F32_ADD,
    ...get(5),
    ...f32Lane(3),
    ...F32_ADD,
    ...get(2),
    ...F32_LOAD,
    ...F32_MUL,
    ...END,
  ];
  // scan: params q0 p1 count2 codeBytes3 out4; p steps to each slot's scale, then past it.
  const scanBody = [
    0,
    0x02,
    0x40,
    ...get(2),
    ...I32_EQZ,
    0x0d,
    0,
    ...LOOP,
    ...get(4),
    ...get(0),
    ...get(1),
    ...get(1),
    ...get(3),
    ...I32_ADD,
    ...tee(1),
    ...CALL,
    0,
    ...F32_STORE,
    ...get(1),
    ...I32(4),
    ...I32_ADD,
    ...set(1),
    ...get(4),
    ...I32(4),
    ...I32_ADD,
    ...set(4),
    ...get(2),
    ...I32(1),
    ...I32_SUB,
    ...tee(2),
    0x0d,
    0,
    ...END,
    ...END,
    ...END,
  ];
  // pair: params a0 b1 end2; locals v128: codes of a 3, of b 4, accumulator 5.
  const dotHalf = (half: number[]) => [...get(3), ...half, ...get(4), ...half, ...I32X4_DOT, ...get(5), ...I32X4_ADD, ...set(5)];
  const pairBody = [
    1,
    3,
    0x7b,
    ...LOOP,
    ...get(0),
    ...loadC,
    ...set(3),
    ...get(1),
    ...loadC,
    ...set(4),
    ...dotHalf(I16_LOW),
    ...dotHalf(I16_HIGH),
    ...get(1),
    ...I32(16),
    ...I32_ADD,
    ...set(1),
    ...get(0),
    ...I32(16),
    ...I32_ADD,
    ...tee(0),
    ...get(2),
    ...I32_LT_U,
    0x0d,
    0,
    ...END,
    ...get(5),
    ...i32Lane(0),
    ...get(5),
    ...i32Lane(1),
    ...I32_ADD,
    ...get(5),
    ...i32Lane(2),
    ...I32_ADD,
    ...get(5),
    ...i32Lane(3),
    ...I32_ADD,
    ...F32_FROM_I32,
    ...get(2),
    ...F32_LOAD,
    ...F32_MUL,
    ...get(1),
    ...F32_LOAD,
    ...F32_MUL,
    ...END,
  ];
  const body = (b: number[]) => [...leb(b.length), ...b];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    ...section(1, [
      [0x60, 3, 0x7f, 0x7f, 0x7f, 1, 0x7d],
      [0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0],
    ]),
    ...section(2, [[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]]),
    ...section(3, [[0], [1], [0]]),
    ...section(7, [
      [...name('qdot'), 0x00, 0],
      [...name('scan'), 0x00, 1],
      [...name('pair'), 0x00, 2],
    ]),
    ...section(10, [body(qdotBody), body(scanBody), body(pairBody)]),
  ]);
}

/** The slice of the WebAssembly JS API used here (this project's lib settings do not declare it). */
export interface WasmMemory {
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

/** The kernel's functions, over byte offsets in its memory. */
export interface SimdKernel {
  memory: WasmMemory;
  qdot(q: number, p: number, end: number): number;
  scan(q: number, p: number, count: number, codeBytes: number, out: number): void;
  pair(a: number, b: number, end: number): number;
}

let kernelModule: object | null | undefined;

/** A kernel instance over a fresh one-page memory, or null without WebAssembly SIMD (or with RECALL_VECTORS_SIMD=0). */
export function instantiateSimdKernel(): SimdKernel | null {
  if (kernelModule === undefined) {
    try {
      const bytes = kernelBytes();
      kernelModule = wasmApi && process.env.RECALL_VECTORS_SIMD !== '0' && wasmApi.validate(bytes) ? new wasmApi.Module(bytes) : null;
    } catch {
      kernelModule = null;
    }
  }
  if (!kernelModule || !wasmApi) return null;
  const memory = new wasmApi.Memory({ initial: 1 });
  const exports = new wasmApi.Instance(kernelModule, { env: { memory } }).exports as Omit<SimdKernel, 'memory'>;
  return { memory, qdot: exports.qdot, scan: exports.scan, pair: exports.pair };
}

/** The plain JS fallback of the kernel's qdot: the query (at 0) . the codes at byte `at`, scaled. */
export function queryDotJs(f32: Float32Array, i8: Int8Array, at: number, codes: number): number {
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
export function slotDotJs(f32: Float32Array, i8: Int8Array, a: number, b: number, codes: number): number {
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
