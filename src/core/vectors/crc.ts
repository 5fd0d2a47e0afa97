/**
 * CRC-32 (IEEE, the zlib/PNG one) of the vector and HNSW files: zlib.crc32 where Node has it
 * (>= 20.15), a table otherwise. Both give the same value, so a file written by one loads with the
 * other.
 */
import * as zlib from 'node:zlib';

const nativeCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array) => number }).crc32;

let table: Uint32Array | undefined;

/** CRC-32 by table lookup: the fallback where Node lacks zlib.crc32. */
export function tableCrc32(data: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** CRC-32 of `data`, as an unsigned 32-bit integer. */
export const crc32: (data: Uint8Array) => number = nativeCrc32 ?? tableCrc32;
