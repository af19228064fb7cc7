// Stored xz blocks' framing; xz(1) reading them back, beside blocks it compressed, is tested
// where streams are assembled (apps/web/server/formats/apt/xz-blocks.test.ts).
import { describe, expect, it } from "vitest";
import { crc64, isStoredXzBlock, storedXzBlock } from "./xz-stored.ts";

describe("CRC64", () => {
  it("is xz's check (ECMA-182, reflected): the standard check value of 123456789", () => {
    expect(crc64(Buffer.from("123456789")).readBigUInt64LE()).toBe(0x995dc9bbdf1939fan);
    expect(crc64(Buffer.alloc(0)).readBigUInt64LE()).toBe(0n);
  });
});

describe("storedXzBlock", () => {
  it("frames the text in LZMA2 uncompressed chunks of at most 64 KiB, padded, with its CRC64", () => {
    const text = Buffer.from("x".repeat(70_000));
    const { block, unpadded, uncompressed } = storedXzBlock(text);
    expect(uncompressed).toBe(70_000);
    // Header 12, two chunks of 3 + data, end marker 1, CRC64 8.
    expect(unpadded).toBe(12 + 3 + 65_536 + 3 + 4_464 + 1 + 8);
    expect(block.length % 4).toBe(0);
    expect(block.length - unpadded).toBe((4 - ((unpadded - 8) % 4)) % 4);
    expect([block[12], block.readUInt16BE(13)]).toEqual([0x01, 65_535]);
    expect([block[12 + 3 + 65_536], block.readUInt16BE(12 + 3 + 65_536 + 1)]).toEqual([0x02, 4_463]);
    expect(block.subarray(-8).equals(crc64(text))).toBe(true);
    expect(isStoredXzBlock(block)).toBe(true);
  });

  it("refuses an empty text, which has no block", () => {
    expect(() => storedXzBlock(Buffer.alloc(0))).toThrow(/empty/);
  });
});
