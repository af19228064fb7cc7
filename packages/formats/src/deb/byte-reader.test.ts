import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ByteReader } from "./byte-reader.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

describe("ByteReader", () => {
  it("reads exact counts across chunk boundaries", async () => {
    const reader = new ByteReader([bytes(1, 2), bytes(), bytes(3, 4, 5), bytes(6)]);
    expect(await reader.read(3)).toEqual(bytes(1, 2, 3));
    expect(await reader.read(2)).toEqual(bytes(4, 5));
    expect(reader.position).toBe(5);
    expect(await reader.atEnd()).toBe(false);
    expect(await reader.read(4)).toEqual(bytes(6));
    expect(await reader.atEnd()).toBe(true);
    expect(await reader.read(1)).toEqual(bytes());
  });

  it("skips without copying and reports short skips at the end", async () => {
    const reader = new ByteReader(bytes(1, 2, 3, 4, 5));
    expect(await reader.skip(2)).toBe(2);
    expect(await reader.read(1)).toEqual(bytes(3));
    expect(await reader.skip(10)).toBe(2);
    expect(reader.position).toBe(5);
  });

  it("hands out copies, not views of the caller's chunk", async () => {
    const chunk = bytes(1, 2, 3, 4);
    const reader = new ByteReader([chunk]);
    const head = await reader.read(2);
    expect(head.buffer).not.toBe(chunk.buffer);
  });

  it("reads a Node Readable and an async generator", async () => {
    const fromNode = new ByteReader(Readable.from([Buffer.from("ab"), Buffer.from("cd")]));
    expect(new TextDecoder().decode(await fromNode.read(4))).toBe("abcd");
    async function* generate() {
      yield bytes(9);
      yield bytes(8);
    }
    const fromGenerator = new ByteReader(generate());
    expect(await fromGenerator.read(2)).toEqual(bytes(9, 8));
  });

  it("refuses string chunks", async () => {
    const reader = new ByteReader(Readable.from(["text"], { objectMode: true }) as AsyncIterable<Uint8Array>);
    await expect(reader.read(1)).rejects.toThrow(TypeError);
  });

  it("closes the source early", async () => {
    let finished = false;
    async function* generate() {
      try {
        yield bytes(1);
        yield bytes(2);
      } finally {
        finished = true;
      }
    }
    const reader = new ByteReader(generate());
    await reader.read(1);
    await reader.close();
    expect(finished).toBe(true);
  });
});
