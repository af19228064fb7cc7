// Serializes header entries into an RPM header blob with a region, laid out the way rpm 4.18 lays it out.
import { HEADER_MAGIC, INDEX_ENTRY_SIZE } from "./rpm-header.ts";
import { RpmType } from "./rpm-tags.ts";

export interface NewHeaderEntry {
  tag: number;
  type: number;
  count: number;
  /** The value's bytes as stored (strings with their NUL terminators, integers big-endian). */
  data: Uint8Array;
}

const TYPE_ALIGN: Record<number, number> = { [RpmType.INT16]: 2, [RpmType.INT32]: 4, [RpmType.INT64]: 8 };
const TRAILER_SIZE = 16;

/**
 * Entries go in tag order with the region entry first; data follows in the same order, each
 * value aligned for its type, and the region trailer closes the store. rpm 4.18 checks exactly
 * this: data in index order, no overlaps, trailer in the last 16 bytes.
 */
export function encodeRpmHeader(regionTag: number, entries: NewHeaderEntry[]): Uint8Array {
  const sorted = [...entries].sort((a, b) => a.tag - b.tag);
  const indexCount = sorted.length + 1;
  const offsets: number[] = [];
  let dataLength = 0;
  for (const entry of sorted) {
    const align = TYPE_ALIGN[entry.type] ?? 1;
    dataLength = Math.ceil(dataLength / align) * align;
    offsets.push(dataLength);
    dataLength += entry.data.length;
  }
  const trailerOffset = dataLength;
  dataLength += TRAILER_SIZE;

  const storeStart = 16 + indexCount * INDEX_ENTRY_SIZE;
  const out = new Uint8Array(storeStart + dataLength);
  const view = new DataView(out.buffer);
  out.set(HEADER_MAGIC, 0);
  view.setUint32(8, indexCount);
  view.setUint32(12, dataLength);
  const writeEntry = (slot: number, tag: number, type: number, offset: number, count: number) => {
    const at = 16 + slot * INDEX_ENTRY_SIZE;
    view.setUint32(at, tag);
    view.setUint32(at + 4, type);
    view.setInt32(at + 8, offset);
    view.setUint32(at + 12, count);
  };
  writeEntry(0, regionTag, RpmType.BIN, trailerOffset, TRAILER_SIZE);
  sorted.forEach((entry, i) => {
    writeEntry(i + 1, entry.tag, entry.type, offsets[i]!, entry.count);
    out.set(entry.data, storeStart + offsets[i]!);
  });
  // The trailer is an index entry in the store whose negative offset gives the region's index size.
  const trailer = storeStart + trailerOffset;
  view.setUint32(trailer, regionTag);
  view.setUint32(trailer + 4, RpmType.BIN);
  view.setInt32(trailer + 8, -indexCount * INDEX_ENTRY_SIZE);
  view.setUint32(trailer + 12, TRAILER_SIZE);
  return out;
}

export function stringEntry(tag: number, value: string): NewHeaderEntry {
  const bytes = new TextEncoder().encode(value);
  const data = new Uint8Array(bytes.length + 1);
  data.set(bytes);
  return { tag, type: RpmType.STRING, count: 1, data };
}

export function binaryEntry(tag: number, data: Uint8Array): NewHeaderEntry {
  return { tag, type: RpmType.BIN, count: data.length, data };
}

export function stringArrayEntry(
  tag: number,
  values: string[],
  type: number = RpmType.STRING_ARRAY,
): NewHeaderEntry {
  const encoded = values.map((value) => new TextEncoder().encode(value));
  const data = new Uint8Array(encoded.reduce((sum, bytes) => sum + bytes.length + 1, 0));
  let offset = 0;
  for (const bytes of encoded) {
    data.set(bytes, offset);
    offset += bytes.length + 1;
  }
  return { tag, type, count: values.length, data };
}

export function int32Entry(tag: number, values: number[]): NewHeaderEntry {
  const data = new Uint8Array(values.length * 4);
  const view = new DataView(data.buffer);
  for (const [i, value] of values.entries()) view.setUint32(i * 4, value);
  return { tag, type: RpmType.INT32, count: values.length, data };
}

export function int16Entry(tag: number, values: number[]): NewHeaderEntry {
  const data = new Uint8Array(values.length * 2);
  const view = new DataView(data.buffer);
  for (const [i, value] of values.entries()) view.setUint16(i * 2, value);
  return { tag, type: RpmType.INT16, count: values.length, data };
}
