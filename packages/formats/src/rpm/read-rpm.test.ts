import { createReadStream, readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import { parseRpmPackage, readRpmPackage } from "./read-rpm.ts";
import type { RpmDependency } from "./rpm-dependency.ts";
import { RpmFormatError } from "./rpm-format-error.ts";
import { buildTestRpms, type TestRpms } from "./testing/build-test-rpms.ts";
import { rpmQuery, rpmQueryLines } from "./testing/rpm-query.ts";

const hasTools = requireTools(["rpmbuild", "rpm"]);

function expectRpmError(action: () => unknown, code: string, part?: string) {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(RpmFormatError);
    expect((error as RpmFormatError).code).toBe(code);
    if (part) expect((error as RpmFormatError).part).toBe(part);
    return;
  }
  throw new Error(`expected ${code}, nothing was thrown`);
}

async function expectRpmRejection(promise: Promise<unknown>, code: string, part?: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpmFormatError);
  expect((error as RpmFormatError).code).toBe(code);
  if (part) expect((error as RpmFormatError).part).toBe(part);
}

async function* chunked(bytes: Uint8Array, size: number, pulled: { bytes: number; closed: boolean }) {
  try {
    for (let i = 0; i < bytes.length; i += size) {
      const chunk = bytes.subarray(i, i + size);
      pulled.bytes += chunk.length;
      yield chunk;
    }
  } finally {
    pulled.closed = true;
  }
}

const OPERATORS: Record<string, string> = { EQ: "=", LT: "<", GT: ">", LE: "<=", GE: ">=" };
const formatDependency = (d: RpmDependency) =>
  d.comparison ? `${d.name} ${OPERATORS[d.comparison]} ${d.evr}` : d.name;

describe.skipIf(!hasTools)("reading packages built by rpmbuild", () => {
  let rpms: TestRpms;
  beforeAll(() => {
    rpms = buildTestRpms();
  });
  afterAll(() => rpms?.cleanup());

  const packages = ["alpha", "alphaSource", "beta", "weird"] as const;

  it.each(packages)("%s: every extracted field matches rpm -qp", (which) => {
    const path = rpms[which];
    const { metadata } = parseRpmPackage(readFileSync(path));
    // Stored as JSON by the service: nothing may be lost on the way.
    expect(JSON.parse(JSON.stringify(metadata))).toEqual(metadata);
    const SEP = "@@";
    const scalars = rpmQuery(
      path,
      [
        "NAME",
        "EPOCH",
        "VERSION",
        "RELEASE",
        "ARCH",
        "SUMMARY",
        "DESCRIPTION",
        "PACKAGER",
        "URL",
        "BUILDTIME",
        "LONGSIZE",
        "LONGARCHIVESIZE",
        "LICENSE",
        "VENDOR",
        "GROUP",
        "BUILDHOST",
        "SOURCERPM",
        "SOURCEPACKAGE",
      ]
        .map((tag) => `%{${tag}}`)
        .join(SEP),
    ).split(SEP);
    const none = (value: string | number | null) =>
      value === "" || value === null ? "(none)" : String(value);
    expect([
      metadata.name,
      none(metadata.epoch),
      metadata.version,
      metadata.release,
      metadata.arch,
      metadata.summary,
      metadata.description,
      none(metadata.packager),
      none(metadata.url),
      String(metadata.buildTime),
      String(metadata.installedSize),
      String(metadata.archiveSize),
      metadata.license,
      none(metadata.vendor),
      metadata.group,
      metadata.buildHost,
      none(metadata.sourceRpm),
      metadata.isSource ? "1" : "(none)",
    ]).toEqual(scalars);

    const kinds = [
      ["provides", "PROVIDE"],
      ["requires", "REQUIRE"],
      ["conflicts", "CONFLICT"],
      ["obsoletes", "OBSOLETE"],
      ["suggests", "SUGGEST"],
      ["enhances", "ENHANCE"],
      ["recommends", "RECOMMEND"],
      ["supplements", "SUPPLEMENT"],
    ] as const;
    for (const [kind, tag] of kinds) {
      const raw = rpmQuery(path, `[%{${tag}NAME}${SEP}%{${tag}FLAGS}${SEP}%{${tag}VERSION}\n]`);
      const ours = metadata[kind].map((d) => `${d.name}${SEP}${d.flags}${SEP}${d.evr}\n`).join("");
      expect(ours, kind).toBe(raw);
      // rpm's own rendering of the comparison checks our reading of the sense bits.
      expect(metadata[kind].map(formatDependency), kind).toEqual(rpmQueryLines(path, `--${kind}`));
    }

    const files = rpmQuery(path, `[%{FILENAMES}${SEP}%{FILEMODES}${SEP}%{FILEFLAGS}\n]`);
    expect(metadata.files.map((f) => `${f.path}${SEP}${f.mode}${SEP}${f.flags}\n`).join("")).toBe(files);
    expect(metadata.files.map((f) => f.path)).toEqual(
      which === "alphaSource" ? ["alpha.spec"] : rpmQueryLines(path, "-l"),
    );

    const changelog = rpmQuery(
      path,
      `[%{CHANGELOGTIME}${SEP}%{CHANGELOGNAME}${SEP}%{CHANGELOGTEXT}${SEP}\n]`,
    );
    expect(metadata.changelog.map((c) => `${c.time}${SEP}${c.author}${SEP}${c.text}${SEP}\n`).join("")).toBe(
      changelog,
    );
  });

  it("reads the structure rpmbuild writes: types of files, source flag, header range", () => {
    const alpha = parseRpmPackage(readFileSync(rpms.alpha));
    const types = Object.fromEntries(alpha.metadata.files.map((f) => [f.path, f.type]));
    expect(types).toEqual({
      "/etc/alpha": "dir",
      "/etc/alpha/alpha.conf": "file",
      "/usr/bin/alpha": "file",
      "/usr/share/alpha": "dir",
      "/usr/share/alpha/data.txt": "file",
      "/var/log/alpha.log": "ghost",
    });
    expect(alpha.metadata.isSource).toBe(false);
    expect(parseRpmPackage(readFileSync(rpms.alphaSource)).metadata.isSource).toBe(true);
    expect(alpha.metadata.headerStart).toBe(alpha.file.headerStart);
    expect(alpha.metadata.headerStart % 8).toBe(0);
    expect(alpha.file.prefix.length).toBe(alpha.metadata.headerEnd);
    const pre = Object.fromEntries(
      parseRpmPackage(readFileSync(rpms.beta)).metadata.requires.map((d) => [`${d.name} ${d.evr}`, d.pre]),
    );
    expect(pre).toMatchObject({
      "packyard-alpha ": true,
      "alpha-virtual ": false,
      "packyard-alpha 2:1.2": false,
    });
  });

  it("stops pulling from a stream once the main header is read, and closes it", async () => {
    const bytes = readFileSync(rpms.beta);
    const pulled = { bytes: 0, closed: false };
    const result = await readRpmPackage(chunked(bytes, 100, pulled));
    expect(result.metadata.name).toBe("packyard-beta");
    expect(result.file.headerEnd).toBeLessThan(bytes.length);
    expect(pulled.bytes).toBeLessThan(result.file.headerEnd + 100);
    expect(pulled.closed).toBe(true);
    expect(result.metadata).toEqual(parseRpmPackage(bytes).metadata);
  });

  it("reads Node and web streams; a Node stream is destroyed afterwards", async () => {
    const stream = createReadStream(rpms.alpha, { highWaterMark: 64 });
    const fromNode = await readRpmPackage(stream);
    expect(fromNode.metadata.name).toBe("packyard-alpha");
    expect(stream.destroyed).toBe(true);
    const web = Readable.toWeb(createReadStream(rpms.alpha)) as unknown as AsyncIterable<Uint8Array>;
    expect((await readRpmPackage(web)).metadata).toEqual(fromNode.metadata);
  });

  it("hands back the payload with keepSourceOpen", async () => {
    const bytes = readFileSync(rpms.alpha);
    const pulled = { bytes: 0, closed: false };
    const result = await readRpmPackage(chunked(bytes, 333, pulled), { keepSourceOpen: true });
    expect(pulled.closed).toBe(false);
    const rest: Uint8Array[] = [];
    for await (const chunk of result.rest!) rest.push(chunk);
    expect(Buffer.concat(rest)).toEqual(bytes.subarray(result.file.headerEnd));
  });

  describe("bad input", () => {
    let bytes: Buffer;
    let headerStart: number;
    let headerEnd: number;
    beforeAll(() => {
      bytes = readFileSync(rpms.alpha);
      ({ headerStart, headerEnd } = parseRpmPackage(bytes).file);
    });
    const mutated = (edit: (copy: Buffer) => void) => {
      const copy = Buffer.from(bytes);
      edit(copy);
      return copy;
    };

    it("reports truncation, with the part it happened in", async () => {
      const cuts: [number, string][] = [
        [0, "lead"],
        [50, "lead"],
        [96, "signature"],
        [96 + 16 + 20, "signature"],
        [headerStart - 1, "signature"],
        [headerStart, "header"],
        [headerStart + 12, "header"],
        [headerStart + 200, "header"],
        [headerEnd - 1, "header"],
      ];
      for (const [length, part] of cuts) {
        expectRpmError(() => parseRpmPackage(bytes.subarray(0, length)), "RPM_TRUNCATED", part);
        await expectRpmRejection(
          readRpmPackage(chunked(bytes.subarray(0, length), 50, { bytes: 0, closed: false })),
          "RPM_TRUNCATED",
          part,
        );
      }
      expect(parseRpmPackage(bytes.subarray(0, headerEnd)).metadata.name).toBe("packyard-alpha");
    });

    it("rejects a wrong lead magic, version or signature type", () => {
      expectRpmError(() => parseRpmPackage(mutated((b) => b.writeUInt8(0xee, 0))), "RPM_BAD_MAGIC", "lead");
      expectRpmError(() => parseRpmPackage(mutated((b) => b.writeUInt8(2, 4))), "RPM_UNSUPPORTED", "lead");
      expectRpmError(
        () => parseRpmPackage(mutated((b) => b.writeUInt16BE(1, 78))),
        "RPM_UNSUPPORTED",
        "lead",
      );
    });

    it("rejects a wrong header magic in either header", () => {
      expectRpmError(
        () => parseRpmPackage(mutated((b) => b.writeUInt8(0x8f, 96))),
        "RPM_BAD_MAGIC",
        "signature",
      );
      expectRpmError(
        () => parseRpmPackage(mutated((b) => b.writeUInt8(1, headerStart + 5))),
        "RPM_BAD_MAGIC",
        "header",
      );
    });

    it("rejects an index entry pointing outside the store", () => {
      // Entry 1 of the main header (after the region entry): offset field at +8.
      const dataLength = bytes.readUInt32BE(headerStart + 12);
      expectRpmError(
        () => parseRpmPackage(mutated((b) => b.writeUInt32BE(dataLength + 64, headerStart + 16 + 16 + 8))),
        "RPM_INDEX_OUT_OF_BOUNDS",
        "header",
      );
      expectRpmError(
        () => parseRpmPackage(mutated((b) => b.writeUInt32BE(dataLength - 4, headerStart + 16 + 8))),
        "RPM_INDEX_OUT_OF_BOUNDS",
        "header",
      );
    });

    it("rejects absurd counts and lengths before reading them", async () => {
      expectRpmError(
        () => parseRpmPackage(mutated((b) => b.writeUInt32BE(0x7fffffff, 96 + 8))),
        "RPM_TOO_LARGE",
      );
      expectRpmError(() => parseRpmPackage(mutated((b) => b.writeUInt32BE(33, 96 + 8))), "RPM_TOO_LARGE");
      expectRpmError(
        () => parseRpmPackage(mutated((b) => b.writeUInt32BE(0xffffffff, headerStart + 12))),
        "RPM_TOO_LARGE",
        "header",
      );
      expectRpmError(
        () => parseRpmPackage(mutated((b) => b.writeUInt32BE(0x10000, headerStart + 8))),
        "RPM_TOO_LARGE",
        "header",
      );
      // A stream that would hang after the first bytes: the caps must fail before waiting for more.
      const hostile = mutated((b) => b.writeUInt32BE(0xfffffff0, headerStart + 12)).subarray(
        0,
        headerStart + 16,
      );
      const neverEnding: AsyncIterable<Uint8Array> = {
        [Symbol.asyncIterator]() {
          let sent = false;
          return {
            next: () => {
              if (sent) return new Promise<IteratorResult<Uint8Array>>(() => {});
              sent = true;
              return Promise.resolve({ value: hostile, done: false });
            },
            return: () => Promise.resolve({ value: undefined, done: true }),
          };
        },
      };
      await expectRpmRejection(readRpmPackage(neverEnding), "RPM_TOO_LARGE", "header");
    });

    it("rejects a string array count larger than the store", () => {
      // BASENAMES is a STRING_ARRAY: give it four billion strings.
      const header = parseRpmPackage(bytes).file.header;
      const index = header.entries.findIndex((e) => e.tag === 1117);
      expectRpmError(
        () =>
          parseRpmPackage(mutated((b) => b.writeUInt32BE(0xfffffff0, headerStart + 16 + index * 16 + 12))),
        "RPM_INDEX_OUT_OF_BOUNDS",
        "header",
      );
    });
  });
});
