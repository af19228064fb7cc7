import { describe, expect, it } from "vitest";
import { parseRpmHeader } from "./rpm-header.ts";
import {
  binaryEntry,
  encodeRpmHeader,
  int16Entry,
  int32Entry,
  stringArrayEntry,
  stringEntry,
} from "./rpm-header-writer.ts";
import { REGION_SIGNATURES, RpmType } from "./rpm-tags.ts";

describe("encodeRpmHeader", () => {
  it("sorts by tag, aligns data and closes the store with the (unaligned) region trailer", () => {
    const bytes = encodeRpmHeader(REGION_SIGNATURES, [
      int32Entry(1000, [7]),
      stringEntry(273, "abc"),
      int16Entry(1030, [1]),
      binaryEntry(268, Uint8Array.of(9)),
    ]);
    const view = new DataView(bytes.buffer);
    expect(view.getUint32(8)).toBe(5);
    const header = parseRpmHeader(bytes, 0, "signature");
    expect(header.entries.map((e) => e.tag)).toEqual([62, 268, 273, 1000, 1030]);
    expect(header.entries.map((e) => e.offset)).toEqual([14, 0, 1, 8, 12]);
    // Trailer: region tag, BIN, minus the index size, 16.
    const trailer = 16 + 5 * 16 + 14;
    expect([view.getUint32(trailer), view.getUint32(trailer + 4), view.getInt32(trailer + 8)]).toEqual([
      62,
      RpmType.BIN,
      -80,
    ]);
    expect(bytes.length).toBe(trailer + 16);
  });

  it("encodes string arrays with their terminators", () => {
    expect(Array.from(stringArrayEntry(1117, ["a", "", "bc"]).data)).toEqual([0x61, 0, 0, 0x62, 0x63, 0]);
  });
});
