import { describe, expect, it } from "vitest";
import { RpmFormatError } from "./rpm-format-error.ts";
import { parseRpmHeader, readHeaderIntro } from "./rpm-header.ts";
import {
  binaryEntry,
  encodeRpmHeader,
  int16Entry,
  int32Entry,
  type NewHeaderEntry,
  stringArrayEntry,
  stringEntry,
} from "./rpm-header-writer.ts";
import { REGION_IMMUTABLE, REGION_SIGNATURES, RpmType } from "./rpm-tags.ts";

const sample = (): NewHeaderEntry[] => [
  stringEntry(1000, "name"),
  stringArrayEntry(1004, ["Summary", "Zusammenfassung"], RpmType.I18NSTRING),
  int16Entry(1030, [0o100755, 0o40755]),
  int32Entry(1006, [1700000000]),
  stringArrayEntry(1117, ["a", "bb", ""]),
  binaryEntry(1146, Uint8Array.of(1, 2, 3)),
  { tag: 5009, type: RpmType.INT64, count: 1, data: Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 2) },
];

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof RpmFormatError) return error.code;
    throw error;
  }
  return "OK";
}

/** Edits index entry `index` (0 = region) of an encoded header. */
function withEntry(
  bytes: Uint8Array,
  index: number,
  field: "tag" | "type" | "offset" | "count",
  value: number,
) {
  const copy = Uint8Array.from(bytes);
  const at = 16 + index * 16 + { tag: 0, type: 4, offset: 8, count: 12 }[field];
  new DataView(copy.buffer).setUint32(at, value >>> 0);
  return copy;
}

describe("parseRpmHeader", () => {
  it("reads back every type the writer lays out, aligned", () => {
    const bytes = encodeRpmHeader(REGION_IMMUTABLE, sample());
    const header = parseRpmHeader(bytes, 0, "header");
    expect(header.regionTag).toBe(REGION_IMMUTABLE);
    expect(header.bytes).toEqual(bytes);
    expect(header.getString(1000)).toBe("name");
    expect(header.getString(1004)).toBe("Summary");
    expect(header.getStrings(1004)).toEqual(["Summary", "Zusammenfassung"]);
    expect(header.getNumbers(1030)).toEqual([0o100755, 0o40755]);
    expect(header.getNumber(1006)).toBe(1700000000);
    expect(header.getStrings(1117)).toEqual(["a", "bb", ""]);
    expect(header.getBinary(1146)).toEqual(Uint8Array.of(1, 2, 3));
    expect(header.getNumber(5009)).toBe(2 ** 32 + 2);
    expect(header.getString(9999)).toBeUndefined();
    for (const entry of header.entries) {
      const align = { [RpmType.INT16]: 2, [RpmType.INT32]: 4, [RpmType.INT64]: 8 }[entry.type] ?? 1;
      expect(entry.offset % align).toBe(0);
    }
  });

  it("parses at an offset inside a larger buffer", () => {
    const bytes = encodeRpmHeader(REGION_SIGNATURES, [stringEntry(273, "abc")]);
    const buf = new Uint8Array(bytes.length + 40);
    buf.set(bytes, 24);
    expect(parseRpmHeader(buf, 24, "signature").getString(273)).toBe("abc");
  });

  it("decodes invalid UTF-8 as Latin-1, the way createrepo_c does", () => {
    const entry = {
      tag: 1000,
      type: RpmType.STRING,
      count: 1,
      data: Uint8Array.of(0x43, 0x61, 0x66, 0xe9, 0x85, 0),
    };
    expect(parseRpmHeader(encodeRpmHeader(REGION_IMMUTABLE, [entry]), 0, "header").getString(1000)).toBe(
      "Café",
    );
  });

  it("refuses a wrong type for a tag when asked for it", () => {
    const header = parseRpmHeader(encodeRpmHeader(REGION_IMMUTABLE, sample()), 0, "header");
    expect(codeOf(() => header.getString(1006))).toBe("RPM_BAD_HEADER");
    expect(codeOf(() => header.getNumbers(1000))).toBe("RPM_BAD_HEADER");
  });

  it("checks magic, sizes and caps from the intro alone", () => {
    const good = encodeRpmHeader(REGION_IMMUTABLE, sample());
    expect(codeOf(() => readHeaderIntro(good.subarray(0, 15), 0, "header"))).toBe("RPM_TRUNCATED");
    const badMagic = Uint8Array.from(good);
    badMagic[7] = 1;
    expect(codeOf(() => parseRpmHeader(badMagic, 0, "header"))).toBe("RPM_BAD_MAGIC");
    const view = (bytes: Uint8Array) => new DataView(bytes.buffer);
    const manyEntries = Uint8Array.from(good);
    view(manyEntries).setUint32(8, 0x10000);
    expect(codeOf(() => parseRpmHeader(manyEntries, 0, "header"))).toBe("RPM_TOO_LARGE");
    const noEntries = Uint8Array.from(good);
    view(noEntries).setUint32(8, 0);
    expect(codeOf(() => parseRpmHeader(noEntries, 0, "header"))).toBe("RPM_BAD_HEADER");
    const hugeStore = Uint8Array.from(good);
    view(hugeStore).setUint32(12, 64 * 1024 * 1024 + 1);
    expect(codeOf(() => parseRpmHeader(hugeStore, 0, "header"))).toBe("RPM_TOO_LARGE");
    expect(codeOf(() => parseRpmHeader(good.subarray(0, good.length - 1), 0, "header"))).toBe(
      "RPM_TRUNCATED",
    );
  });

  it("enforces rpm's region rules", () => {
    const good = encodeRpmHeader(REGION_IMMUTABLE, sample());
    expect(codeOf(() => parseRpmHeader(good, 0, "signature"))).toBe("RPM_BAD_HEADER");
    expect(codeOf(() => parseRpmHeader(withEntry(good, 0, "tag", 1000), 0, "header"))).toBe("RPM_BAD_HEADER");
    expect(codeOf(() => parseRpmHeader(withEntry(good, 0, "count", 8), 0, "header"))).toBe("RPM_BAD_HEADER");
    expect(codeOf(() => parseRpmHeader(withEntry(good, 0, "offset", 0xffff), 0, "header"))).toBe(
      "RPM_INDEX_OUT_OF_BOUNDS",
    );
    // Pointing the region at data that is not a trailer.
    expect(codeOf(() => parseRpmHeader(withEntry(good, 0, "offset", 0), 0, "header"))).toBe("RPM_BAD_HEADER");
    // A trailer claiming fewer entries than the header has: data outside every signature.
    const shortRegion = Uint8Array.from(good);
    const dataLength = new DataView(good.buffer).getUint32(12);
    const trailer = 16 + (sample().length + 1) * 16 + dataLength - 16;
    new DataView(shortRegion.buffer).setInt32(trailer + 8, -16 * 2);
    expect(codeOf(() => parseRpmHeader(shortRegion, 0, "header"))).toBe("RPM_BAD_HEADER");
  });

  it("accepts a legacy signature header without a region", () => {
    const withoutRegion = encodeRpmHeader(REGION_SIGNATURES, [int32Entry(1000, [5]), stringEntry(1001, "x")]);
    // Drop the region entry: shift the index up by one and shrink the count.
    const view = new DataView(withoutRegion.buffer);
    const count = view.getUint32(8);
    const copy = Uint8Array.from(withoutRegion);
    copy.copyWithin(16, 32, 16 + count * 16);
    copy.fill(0, 16 + (count - 1) * 16, 16 + count * 16);
    const fixed = new Uint8Array(copy.length - 16);
    fixed.set(copy.subarray(0, 16 + (count - 1) * 16), 0);
    fixed.set(copy.subarray(16 + count * 16), 16 + (count - 1) * 16);
    new DataView(fixed.buffer).setUint32(8, count - 1);
    const header = parseRpmHeader(fixed, 0, "signature");
    expect(header.regionTag).toBeNull();
    expect(header.getNumber(1000)).toBe(5);
  });

  it("checks every entry: tag, type, count, alignment, bounds, order, overlap", () => {
    const good = encodeRpmHeader(REGION_IMMUTABLE, sample());
    const header = parseRpmHeader(good, 0, "header");
    const indexOf = (tag: number) => header.entries.findIndex((e) => e.tag === tag);
    const int16 = indexOf(1030);
    const int32 = indexOf(1006);
    const strings = indexOf(1117);
    const single = indexOf(1000);
    const cases: [Uint8Array, string][] = [
      [withEntry(good, single, "tag", 99), "RPM_BAD_HEADER"],
      [withEntry(good, single, "tag", 1004), "RPM_BAD_HEADER"],
      [withEntry(good, single, "type", 10), "RPM_BAD_HEADER"],
      [withEntry(good, single, "type", RpmType.NULL), "RPM_BAD_HEADER"],
      [withEntry(good, single, "count", 0), "RPM_BAD_HEADER"],
      [withEntry(good, single, "count", 2), "RPM_BAD_HEADER"],
      [withEntry(good, int16, "offset", header.entries[int16]!.offset + 1), "RPM_BAD_HEADER"],
      [withEntry(good, int32, "offset", header.entries[int32]!.offset + 2), "RPM_BAD_HEADER"],
      [withEntry(good, int32, "count", 0xffffffff), "RPM_INDEX_OUT_OF_BOUNDS"],
      [withEntry(good, int32, "offset", 0xfffffff0), "RPM_INDEX_OUT_OF_BOUNDS"],
      [withEntry(good, strings, "count", 1_000_000), "RPM_INDEX_OUT_OF_BOUNDS"],
      [withEntry(good, strings, "offset", 0), "RPM_BAD_HEADER"],
    ];
    for (const [bytes, code] of cases) expect(codeOf(() => parseRpmHeader(bytes, 0, "header"))).toBe(code);
  });

  it("rejects a string running into the region trailer or past the store", () => {
    const unterminated = { tag: 1000, type: RpmType.BIN, count: 3, data: Uint8Array.of(0x61, 0x62, 0x63) };
    const bytes = encodeRpmHeader(REGION_IMMUTABLE, [unterminated]);
    expect(codeOf(() => parseRpmHeader(withEntry(bytes, 1, "type", RpmType.STRING), 0, "header"))).toBe(
      "RPM_BAD_HEADER",
    );
    const last = encodeRpmHeader(REGION_IMMUTABLE, [binaryEntry(1146, Uint8Array.of(1, 2, 3, 4))]);
    expect(codeOf(() => parseRpmHeader(withEntry(last, 1, "count", 12), 0, "header"))).toBe("RPM_BAD_HEADER");
    expect(codeOf(() => parseRpmHeader(withEntry(last, 1, "count", 21), 0, "header"))).toBe(
      "RPM_INDEX_OUT_OF_BOUNDS",
    );
  });
});
