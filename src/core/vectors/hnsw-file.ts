/**
 * The HNSW graph file, written atomically beside the vector file so a restart loads the graph
 * rather than rebuilding it. All integers little-endian:
 *
 *   header (64 bytes)  "RCLHNSW1" u32 version, u32 dim, u32 M, u32 efConstruction, u32 seed,
 *                      u32 covered (slots seen), i32 entry, i32 maxLevel, u32 PRNG state,
 *                      u8[8] store instance, u32 CRC-32 of the slots' id * 256 + kind (f64 each),
 *                      u32 CRC-32 of the body, u32 nodes
 *   body               i8 levels[covered] (zero-padded to 4 bytes), i32 level-0 links
 *                      [covered * (2M + 1)], then each node's upper links (i32 [level * (M + 1)])
 *                      in slot order
 *
 * A graph loads only into the store it was built over: same instance (a compaction changes it),
 * same slot ids, and no fewer slots than it covers.
 */
import * as fs from 'node:fs';
import { writeFileDurably } from '../store/durable.js';
import { crc32 } from './crc.js';
import { HnswGraph, type HnswParams } from './hnsw-graph.js';
import type { VectorStore } from './store.js';

const MAGIC = 'RCLHNSW1';
const VERSION = 1;
const HEADER = 64;

/** Writes `graph`, covering store slots below `covered`, to `file` atomically (temp file, fsync, rename). */
export function saveGraph(file: string, graph: HnswGraph, store: VectorStore, covered: number): void {
  const upperInts = graph.upper.slice(0, covered).reduce((n, u) => n + (u ? u.length : 0), 0);
  const levelsBytes = Math.ceil(covered / 4) * 4;
  const body = Buffer.alloc(levelsBytes + covered * graph.stride0 * 4 + upperInts * 4);
  Buffer.from(graph.levels.buffer, graph.levels.byteOffset, covered).copy(body, 0);
  let off = levelsBytes;
  const l0 = Buffer.from(graph.links0.buffer, graph.links0.byteOffset, covered * graph.stride0 * 4);
  l0.copy(body, off);
  off += l0.length;
  for (let s = 0; s < covered; s++) {
    const u = graph.upper[s];
    if (!u) continue;
    Buffer.from(u.buffer, u.byteOffset, u.byteLength).copy(body, off);
    off += u.byteLength;
  }
  const header = Buffer.alloc(HEADER);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(VERSION, 8);
  header.writeUInt32LE(store.dim, 12);
  header.writeUInt32LE(graph.M, 16);
  header.writeUInt32LE(graph.efConstruction, 20);
  header.writeUInt32LE(graph.seed >>> 0, 24);
  header.writeUInt32LE(covered, 28);
  header.writeInt32LE(graph.entry, 32);
  header.writeInt32LE(graph.maxLevel, 36);
  header.writeUInt32LE(graph.rng >>> 0, 40);
  header.write(graph.instance, 44, 'hex');
  header.writeUInt32LE(slotIdsChecksum(store, covered), 52);
  header.writeUInt32LE(crc32(body), 56);
  header.writeUInt32LE(graph.nodes, 60);
  writeFileDurably(file, [header, body]);
}

/**
 * The graph saved in `file` for `store`, with the slots it covers; or why it cannot be used
 * (missing, damaged, made for another store or numbering, or with parameters other than those
 * given in `expected`).
 */
export function loadGraph(file: string, store: VectorStore, expected: Partial<HnswParams>): { graph: HnswGraph; covered: number } | string {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? `no index at ${file}` : `cannot read ${file}: ${(e as Error).message}`;
  }
  if (buf.length < HEADER || buf.toString('latin1', 0, 8) !== MAGIC || buf.readUInt32LE(8) !== VERSION) return 'not an HNSW index file';
  const dim = buf.readUInt32LE(12);
  const M = buf.readUInt32LE(16);
  const efConstruction = buf.readUInt32LE(20);
  const seed = buf.readUInt32LE(24);
  const covered = buf.readUInt32LE(28);
  if (dim !== store.dim) return `index has ${dim} dimensions, store ${store.dim}`;
  if (
    (expected.M !== undefined && expected.M !== M) ||
    (expected.efConstruction !== undefined && expected.efConstruction !== efConstruction) ||
    (expected.seed !== undefined && expected.seed >>> 0 !== seed)
  ) {
    return 'index was built with other parameters';
  }
  if (buf.toString('hex', 44, 52) !== store.instance) return 'index belongs to another vector file (rebuilt or compacted)';
  if (covered > store.slots) return `index covers ${covered} slots, the store has ${store.slots} (vectors lost in a crash)`;
  const body = buf.subarray(HEADER);
  if (crc32(body) !== buf.readUInt32LE(56)) return 'index checksum mismatch';
  const graph = new HnswGraph(store, { M, efConstruction, seed });
  if (slotIdsChecksum(store, covered) !== buf.readUInt32LE(52)) return 'index nodes do not match the stored vectors';
  const levelsBytes = Math.ceil(covered / 4) * 4;
  const l0Bytes = covered * graph.stride0 * 4;
  if (body.length < levelsBytes + l0Bytes) return 'index file truncated';
  graph.ensureCapacity(covered);
  graph.levels.set(new Int8Array(body.buffer, body.byteOffset, covered));
  const l0 = new Int32Array(l0Bytes / 4);
  Buffer.from(l0.buffer).set(body.subarray(levelsBytes, levelsBytes + l0Bytes));
  graph.links0.set(l0);
  let off = levelsBytes + l0Bytes;
  for (let s = 0; s < covered; s++) {
    const level = graph.levels[s];
    if (level > 0) {
      const bytes = level * graph.strideU * 4;
      if (off + bytes > body.length) return 'index file truncated';
      const u = new Int32Array(level * graph.strideU);
      Buffer.from(u.buffer).set(body.subarray(off, off + bytes));
      graph.upper[s] = u;
      off += bytes;
    }
  }
  graph.entry = buf.readInt32LE(32);
  graph.maxLevel = buf.readInt32LE(36);
  graph.rng = buf.readUInt32LE(40);
  graph.nodes = buf.readUInt32LE(60);
  return { graph, covered };
}

/** CRC-32 of id * 256 + kind (f64) of store slots below `covered`: ties a graph to the slots it was built over. */
function slotIdsChecksum(store: VectorStore, covered: number): number {
  const ids = new Float64Array(covered);
  for (let s = 0; s < covered; s++) ids[s] = store.idOf(s) * 256 + store.kindOf(s);
  return crc32(new Uint8Array(ids.buffer));
}
