import { describe, expect, it } from "vitest";
import { ByteReader, concat } from "./byte-source.ts";

const bytes = (length: number) => Uint8Array.from({ length }, (_, i) => i % 251);

describe("ByteReader", () => {
  it("returns exact lengths across chunk boundaries and then null at the end", async () => {
    const data = bytes(100);
    const reader = new ByteReader([
      data.subarray(0, 7),
      new Uint8Array(0),
      data.subarray(7, 60),
      data.subarray(60),
    ]);
    expect(await reader.readExactly(3)).toEqual(data.subarray(0, 3));
    expect(await reader.readExactly(50)).toEqual(data.subarray(3, 53));
    expect(reader.position).toBe(53);
    expect(reader.consumedBytes()).toEqual(data.subarray(0, 53));
    expect(await reader.readExactly(48)).toBeNull();
    expect(await reader.readExactly(47)).toEqual(data.subarray(53));
  });

  it("accepts a whole Uint8Array", async () => {
    const reader = new ByteReader(bytes(10));
    expect(await reader.readExactly(10)).toEqual(bytes(10));
    expect(await reader.readExactly(1)).toBeNull();
  });

  it("closes the source when asked, and only pulls what it needs", async () => {
    let pulled = 0;
    let closed = false;
    async function* source() {
      try {
        for (let i = 0; i < 100; i++) {
          pulled++;
          yield bytes(10);
        }
      } finally {
        closed = true;
      }
    }
    const reader = new ByteReader(source());
    await reader.readExactly(25);
    expect(pulled).toBe(3);
    await reader.close();
    expect(closed).toBe(true);
  });

  it("gives the rest of the source, leftover bytes first", async () => {
    const data = bytes(95);
    const reader = new ByteReader([data.subarray(0, 40), data.subarray(40, 80), data.subarray(80)]);
    await reader.readExactly(50);
    const rest: Uint8Array[] = [];
    for await (const chunk of reader.rest()) rest.push(chunk);
    expect(concat(rest)).toEqual(data.subarray(50));
  });

  it("refuses chunks that are not bytes", async () => {
    const reader = new ByteReader(["text" as unknown as Uint8Array]);
    await expect(reader.readExactly(1)).rejects.toThrow(TypeError);
  });
});
