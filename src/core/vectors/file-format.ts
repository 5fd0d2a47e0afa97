/**
 * The vector file: a header (magic, version, dim, model id, a random instance id), then fixed-size
 * records, one per `add` or `remove`, each with its own CRC-32:
 *
 *   header  "RCLVECS1" u32 version, u32 dim, u32 recordBytes, u32 modelIdBytes, u8[8] instance,
 *           u32 headerCrc, u32 0, model id (UTF-8, zero-padded to 8 bytes)
 *   record  u8 op (1 add, 2 remove), u8 kind, u16 0, u32 crc (of the record, this field as 0),
 *           f64 id, f32[dim] vector
 *
 * The file is only ever appended to, so a crash mid-append leaves a torn tail (a partial record,
 * or trailing records whose CRC fails): `replayRecords` reports the good prefix and the caller cuts
 * the rest off (those vectors were never acknowledged). A bad record followed by good ones is
 * corruption, not a torn write, and the file must be rebuilt.
 */
import * as fs from 'node:fs';
import { crc32 } from './crc.js';

const MAGIC = 'RCLVECS1';
const VERSION = 1;
const FIXED_HEADER = 40;
export const OP_ADD = 1;
export const OP_REMOVE = 2;
/** Ids are below 2^45 so that id * 256 + kind stays a safe integer. */
export const MAX_ID = 2 ** 45;
const MAX_MODEL_ID_BYTES = 1024;
/** Bytes read from the file at a time. */
const READ_CHUNK = 4 << 20;

/** Bytes of one record for vectors of `dim` dimensions. */
export function recordBytesOf(dim: number): number {
  return 16 + 4 * dim;
}

export interface Header {
  dim: number;
  recordBytes: number;
  modelId: string;
  instance: string;
  length: number;
}

export function encodeHeader(dim: number, modelId: string, instance: Buffer): Buffer {
  const idBytes = Buffer.from(modelId, 'utf8');
  if (idBytes.length > MAX_MODEL_ID_BYTES) throw new RangeError('model id too long');
  const length = FIXED_HEADER + Math.ceil(idBytes.length / 8) * 8;
  const buf = Buffer.alloc(length);
  buf.write(MAGIC, 0, 'latin1');
  buf.writeUInt32LE(VERSION, 8);
  buf.writeUInt32LE(dim, 12);
  buf.writeUInt32LE(recordBytesOf(dim), 16);
  buf.writeUInt32LE(idBytes.length, 20);
  instance.copy(buf, 24);
  idBytes.copy(buf, FIXED_HEADER);
  buf.writeUInt32LE(crc32(buf), 32);
  return buf;
}

/** The header of the file open at `fd`, or why it is not a readable one. */
export function decodeHeader(fd: number, fileSize: number): Header | string {
  if (fileSize < FIXED_HEADER) return `file too short for a header (${fileSize} bytes)`;
  const fixed = Buffer.alloc(FIXED_HEADER);
  fs.readSync(fd, fixed, 0, FIXED_HEADER, 0);
  if (fixed.toString('latin1', 0, 8) !== MAGIC) return 'not a Recall vector file (bad magic)';
  const version = fixed.readUInt32LE(8);
  if (version !== VERSION) return `unknown vector file version ${version}`;
  const dim = fixed.readUInt32LE(12);
  const recordBytes = fixed.readUInt32LE(16);
  const idLength = fixed.readUInt32LE(20);
  if (dim < 1 || dim > 65536 || recordBytes !== recordBytesOf(dim) || idLength > MAX_MODEL_ID_BYTES) return 'header fields out of range';
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

/** One record, for an add (`vec` given) or a remove (no vector: zeroes). */
export function encodeRecord(op: number, id: number, kind: number, vec: Float32Array | undefined, rb: number): Buffer {
  const buf = Buffer.alloc(rb);
  buf[0] = op;
  buf[1] = kind;
  buf.writeDoubleLE(id, 8);
  if (vec) Buffer.from(vec.buffer, vec.byteOffset, vec.byteLength).copy(buf, 16);
  buf.writeUInt32LE(recordCrc(buf, 0, rb), 4);
  return buf;
}

/** CRC of a record with its own crc field (bytes 4..8) zeroed; zeroes that field in `buf`. */
function recordCrc(buf: Buffer, offset: number, recordBytes: number): number {
  buf.writeUInt32LE(0, offset + 4);
  return crc32(buf.subarray(offset, offset + recordBytes));
}

/** What `replayRecords` does with each good record. */
export interface RecordVisitor {
  /** `vec` is reused for the next record: copy what you keep. */
  add(id: number, kind: number, vec: Float32Array): void;
  remove(id: number, kind: number): void;
}

/**
 * Reads the records of the file open at `fd` from byte `start` to `size`, in order; returns the
 * byte length of the good prefix (a torn tail may follow it), or why the file is corrupt.
 */
export function replayRecords(fd: number, start: number, size: number, dim: number, visitor: RecordVisitor): number | string {
  const rb = recordBytesOf(dim);
  const perChunk = Math.max(1, Math.floor(READ_CHUNK / rb));
  const buf = Buffer.alloc(perChunk * rb);
  const vec = new Float32Array(dim);
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
        visitor.add(id, kind, vec);
      } else {
        visitor.remove(id, kind);
      }
      goodEnd = pos + off + rb;
    }
    pos += want;
  }
  return badAt >= 0 ? badAt : goodEnd;
}

/**
 * Appends to `chunks` the add records of `file` (from byte `start`: past a header as long as the
 * new one) whose slots are live, as they are. Slot s is the s-th add record and must carry ids[s]
 * and kinds[s], or the file is not the store's. Calls `onKeep(slot)` for each record kept; returns
 * the add records seen.
 */
export function copyLiveRecords(
  file: string,
  start: number,
  dim: number,
  slots: { ids: Float64Array; kinds: Uint8Array; live: Uint8Array },
  chunks: Buffer[],
  onKeep: (slot: number) => void,
): number {
  const rb = recordBytesOf(dim);
  const buf = Buffer.alloc(Math.max(1, Math.floor(READ_CHUNK / rb)) * rb);
  const src = fs.openSync(file, 'r');
  let slot = 0;
  try {
    const size = fs.fstatSync(src).size;
    for (let pos = start; pos + rb <= size;) {
      const want = Math.min(buf.length, Math.floor((size - pos) / rb) * rb);
      if (fs.readSync(src, buf, 0, want, pos) !== want) throw new Error(`short read at ${pos}`);
      let used = 0;
      for (let off = 0; off < want; off += rb) {
        const op = buf[off];
        if (op === OP_REMOVE) continue;
        const s = slot++;
        if (op !== OP_ADD || buf.readDoubleLE(off + 8) !== slots.ids[s] || buf[off + 1] !== slots.kinds[s]) {
          throw new Error(`vector file does not match the store at byte ${pos + off}`);
        }
        if (!slots.live[s]) continue;
        buf.copy(buf, used, off, off + rb);
        used += rb;
        onKeep(s);
      }
      chunks.push(Buffer.from(buf.subarray(0, used)));
      pos += want;
    }
  } finally {
    fs.closeSync(src);
  }
  return slot;
}
