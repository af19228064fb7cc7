import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { compressionOfName, decompressStream } from "../compress/decompress-stream.ts";
import { readPrimaryPackages, readRepomd, YumReadError } from "./read-repodata.ts";
import { renderRepomd } from "./repomd-xml.ts";

const sha = "cd".repeat(32);

async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const primary = `<?xml version="1.0" encoding="UTF-8"?>
<metadata xmlns="http://linux.duke.edu/metadata/common" xmlns:rpm="http://linux.duke.edu/metadata/rpm" packages="2">
<package type="rpm">
  <name>alpha</name>
  <arch>noarch</arch>
  <version epoch="2" ver="1.2.3" rel="4"/>
  <checksum type="sha256" pkgid="YES">${sha}</checksum>
  <summary>Alpha &amp; friends</summary>
  <size package="1234" installed="30" archive="816"/>
  <location href="Packages/alpha-1.2.3-4.noarch.rpm"/>
  <format>
    <rpm:license>MIT</rpm:license>
    <rpm:provides><rpm:entry name="alpha" flags="EQ" epoch="2" ver="1.2.3" rel="4"/></rpm:provides>
    <file>/usr/bin/alpha</file>
  </format>
</package>
<package type="rpm">
  <name><![CDATA[beta]]></name>
  <arch>x86_64</arch>
  <version epoch="0" ver="0.9" rel="1"/>
  <checksum type="sha">${"ef".repeat(20)}</checksum>
  <size package="99"/>
  <location xml:base="http://mirror.example.com/other/" href="beta-0.9-1.x86_64.rpm"/>
</package>
</metadata>
`;

describe("readPrimaryPackages", () => {
  it.each([1, 7, 100_000])("reads every package whatever the chunking (%i bytes)", async (size) => {
    expect(await collect(readPrimaryPackages(chunks(primary, size)))).toEqual([
      {
        name: "alpha",
        arch: "noarch",
        epoch: "2",
        version: "1.2.3",
        release: "4",
        checksum: { type: "sha256", value: sha },
        href: "Packages/alpha-1.2.3-4.noarch.rpm",
        size: 1234,
      },
      {
        name: "beta",
        arch: "x86_64",
        epoch: "0",
        version: "0.9",
        release: "1",
        checksum: { type: "sha", value: "ef".repeat(20) },
        href: "beta-0.9-1.x86_64.rpm",
        base: "http://mirror.example.com/other/",
        size: 99,
      },
    ]);
  });

  it("reads gzip-compressed primary through decompressStream", async () => {
    const gz = gzipSync(primary);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(gz);
        controller.close();
      },
    });
    expect(compressionOfName("repodata/x-primary.xml.gz")).toBe("gzip");
    expect(compressionOfName("repodata/x-primary.xml.bz2")).toBeUndefined();
    expect(await collect(readPrimaryPackages(decompressStream(stream, "gzip")))).toHaveLength(2);
  });

  it.each([
    ["malformed XML", primary.replace("</name>", "</nam>")],
    ["a truncated document", primary.slice(0, primary.length / 2)],
    ["another document", "<html><body/></html>"],
    ["an unknown checksum type", primary.replace('type="sha256"', 'type="crc32"')],
    ["a location outside the repository", primary.replace("Packages/alpha", "../alpha")],
    ["a bad size", primary.replace('package="1234"', 'package="-1"')],
  ])("refuses %s", async (_label, text) => {
    await expect(collect(readPrimaryPackages(chunks(text, 64)))).rejects.toThrow(YumReadError);
  });
});

describe("readRepomd", () => {
  it("reads what Packyard's own renderer writes", () => {
    const xml = renderRepomd({
      revision: 42,
      entries: [
        {
          type: "primary",
          checksum: sha,
          openChecksum: "ab".repeat(32),
          location: `repodata/${sha}-primary.xml.gz`,
          timestamp: 1,
          size: 100,
          openSize: 300,
        },
      ],
    });
    expect(readRepomd(xml)).toEqual({
      revision: "42",
      data: [
        {
          type: "primary",
          href: `repodata/${sha}-primary.xml.gz`,
          checksum: { type: "sha256", value: sha },
          openChecksum: { type: "sha256", value: "ab".repeat(32) },
          size: 100,
          openSize: 300,
        },
      ],
    });
  });

  it.each([
    ["HTML", "<html><body>Welcome</body></html>", "the root element is <html>, not <repomd>"],
    ["text", "not xml", ""],
    [
      "a data entry without a location",
      `<repomd><data type="primary"><checksum type="sha256">${sha}</checksum></data></repomd>`,
      "location",
    ],
  ])("refuses %s", (_label, xml, message) => {
    expect(() => readRepomd(xml)).toThrow(YumReadError);
    if (message) expect(() => readRepomd(xml)).toThrow(message);
  });
});
