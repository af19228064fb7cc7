import { describe, expect, it } from "vitest";
import { AptReadError } from "./apt-read-error.ts";
import { readDeb822Paragraphs, readPackagesIndex } from "./read-packages-index.ts";

const sha = "ab".repeat(32);

async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const index = `Package: hello
Version: 2:1.0-1
Architecture: amd64
Description: héllo
 a second line
Filename: pool/main/h/hello/hello_1.0-1_amd64.deb
Size: 1234
SHA256: ${sha.toUpperCase()}

Package: data
Version: 0.1
Architecture: all
Filename: pool/main/d/data/data_0.1_all.deb
Size: 5
SHA256: ${sha}
`;

describe("readPackagesIndex", () => {
  it.each([1, 3, 64, 100_000])("reads every stanza whatever the chunking (%i bytes)", async (size) => {
    expect(await collect(readPackagesIndex(chunks(index, size)))).toEqual([
      {
        name: "hello",
        version: "2:1.0-1",
        architecture: "amd64",
        filename: "pool/main/h/hello/hello_1.0-1_amd64.deb",
        size: 1234,
        sha256: sha,
      },
      {
        name: "data",
        version: "0.1",
        architecture: "all",
        filename: "pool/main/d/data/data_0.1_all.deb",
        size: 5,
        sha256: sha,
      },
    ]);
  });

  it("reads CRLF text, blank lines at the ends, and an empty index", async () => {
    expect(
      await collect(readPackagesIndex(chunks(`\n\n${index.replace(/\n/g, "\r\n")}\n\n`, 7))),
    ).toHaveLength(2);
    expect(await collect(readPackagesIndex(chunks("", 7)))).toEqual([]);
  });

  it.each([
    ["no SHA256", index.replace(`SHA256: ${sha}\n`, ""), "package data 0.1: no SHA256 field"],
    [
      "a path outside the repository",
      index.replace("pool/main/d/data/data_0.1_all.deb", "../x.deb"),
      "not a clean relative path",
    ],
    ["a bad size", index.replace("Size: 5", "Size: five"), 'Size "five" is not a size'],
    [
      "no Filename",
      index.replace("Filename: pool/main/d/data/data_0.1_all.deb\n", ""),
      "package data: no Filename field",
    ],
    ["garbage", "<html>\n", "stanza at line 1"],
  ])("refuses %s", async (_label, text, message) => {
    const run = collect(readPackagesIndex(chunks(text, 16)));
    await expect(run).rejects.toThrow(AptReadError);
    await expect(collect(readPackagesIndex(chunks(text, 16)))).rejects.toThrow(message);
  });

  it("refuses a stanza too long to be a package", async () => {
    const long = `Package: x\nDescription: ${"y".repeat(200)}\n`;
    await expect(collect(readDeb822Paragraphs(chunks(long, 50), 100))).rejects.toThrow(
      "longer than 100 bytes",
    );
  });
});
