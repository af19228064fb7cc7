// An .xz block that stores its text instead of compressing it: LZMA2's uncompressed chunks
// (xz-file-format 1.1.0 §3.1 and the LZMA2 chunk format), with the CRC64 check xz(1) writes by
// default. Made in microseconds where compressing takes milliseconds, and valid wherever a
// compressed block is: a stream may mix them, every xz decoder (liblzma's, so apt's) reads both.
// Written by hand: no library writes a single block, and the format is a few bytes of framing.
import { crc32 } from "node:zlib";

/** One xz block with its padding, and the sizes a stream's index records for it. */
export interface XzBlockBytes {
  block: Buffer;
  unpadded: number;
  uncompressed: number;
}

/** LZMA2's largest uncompressed chunk. */
const CHUNK = 0x10000;

/**
 * The block header: its size, flags (one filter, no sizes), the LZMA2 filter (0x21) with its one
 * property byte, the dictionary size (12: 256 KiB, as XZ_FILTER asks of xz(1) — a decoder sizes
 * its dictionary from it), padding, then CRC32 of all that.
 */
const HEADER = (() => {
  const fields = Buffer.from([0x02, 0x00, 0x21, 0x01, 0x0c, 0x00, 0x00, 0x00]);
  const header = Buffer.alloc(12);
  fields.copy(header);
  header.writeUInt32LE(crc32(fields), 8);
  return header;
})();

/** CRC64 as xz computes it (ECMA-182 polynomial, reflected), one table of 256 entries. */
const CRC64_TABLE = (() => {
  const table = new BigUint64Array(256);
  const poly = 0xc96c5795d7870f42n;
  for (let i = 0; i < 256; i++) {
    let crc = BigInt(i);
    for (let k = 0; k < 8; k++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n;
    table[i] = crc;
  }
  // Split into halves: 32-bit arithmetic in the loop, no BigInt per byte.
  const lo = new Uint32Array(256);
  const hi = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    lo[i] = Number(table[i]! & 0xffffffffn);
    hi[i] = Number(table[i]! >> 32n);
  }
  return { lo, hi };
})();

/** CRC64 (xz's check) of `bytes`, little-endian as xz writes it. */
export function crc64(bytes: Uint8Array): Buffer {
  const { lo, hi } = CRC64_TABLE;
  let crcLo = 0xffffffff;
  let crcHi = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) {
    const index = (crcLo ^ bytes[i]!) & 0xff;
    // crc = table[index] ^ (crc >> 8), on two 32-bit halves.
    const shiftedLo = (crcLo >>> 8) | ((crcHi & 0xff) << 24);
    const shiftedHi = crcHi >>> 8;
    crcLo = (lo[index]! ^ shiftedLo) >>> 0;
    crcHi = (hi[index]! ^ shiftedHi) >>> 0;
  }
  const out = Buffer.alloc(8);
  out.writeUInt32LE((crcLo ^ 0xffffffff) >>> 0, 0);
  out.writeUInt32LE((crcHi ^ 0xffffffff) >>> 0, 4);
  return out;
}

/** `text` as one xz block of LZMA2 uncompressed chunks (the first resets the dictionary). */
export function storedXzBlock(text: Uint8Array): XzBlockBytes {
  if (text.length === 0) throw new Error("xz: an empty text has no block");
  const chunks = Math.ceil(text.length / CHUNK);
  // Header, per chunk a control byte and a 16-bit size, the text, the end marker.
  const data = HEADER.length + chunks * 3 + text.length + 1;
  const padding = (4 - (data % 4)) % 4;
  const block = Buffer.alloc(data + padding + 8);
  HEADER.copy(block, 0);
  let at = HEADER.length;
  for (let offset = 0; offset < text.length; offset += CHUNK) {
    const end = Math.min(offset + CHUNK, text.length);
    block[at] = offset === 0 ? 0x01 : 0x02;
    block.writeUInt16BE(end - offset - 1, at + 1);
    block.set(text.subarray(offset, end), at + 3);
    at += 3 + end - offset;
  }
  block[at] = 0x00;
  crc64(text).copy(block, data + padding);
  return { block, unpadded: data + 8, uncompressed: text.length };
}

/** Whether an xz block stores its text (LZMA2 uncompressed chunks), as storedXzBlock writes. */
export function isStoredXzBlock(block: Uint8Array): boolean {
  const headerSize = ((block[0] ?? 0) + 1) * 4;
  return block[headerSize] === 0x01;
}
