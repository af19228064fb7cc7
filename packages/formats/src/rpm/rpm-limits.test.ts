// Issue 10, item 5: counts no real package has are refused from the header index, before a value
// is decoded or the data store buffered, so a crafted .rpm can no longer block the server.

import { describe, expect, it } from "vitest";
import { memoryInUse } from "../test-support/fuzzing.ts";
import { parseRpmPackage, readRpmPackage } from "./read-rpm.ts";
import { RpmFormatError } from "./rpm-format-error.ts";
import { MAX_ENTRY_COUNT, parseRpmHeader } from "./rpm-header.ts";
import {
  binaryEntry,
  encodeRpmHeader,
  type NewHeaderEntry,
  stringArrayEntry,
  stringEntry,
} from "./rpm-header-writer.ts";
import { MAX_CHANGELOG_ENTRIES, MAX_DEPENDENCIES } from "./rpm-package-metadata.ts";
import { REGION_IMMUTABLE, RpmType, Tag } from "./rpm-tags.ts";
import { basicHeaderEntries, syntheticRpm } from "./testing/synthetic-rpm.ts";

const MiB = 1024 * 1024;

/** `count` values of `type`, all zero: for strings, `count` empty strings (one NUL each). */
function zeros(tag: number, count: number, type: number = RpmType.STRING_ARRAY): NewHeaderEntry {
  const size = { [RpmType.INT16]: 2, [RpmType.INT32]: 4, [RpmType.INT64]: 8 }[type] ?? 1;
  return { tag, type, count, data: new Uint8Array(count * size) };
}

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof RpmFormatError) return error.code;
    throw error;
  }
  return "OK";
}

/**
 * Runs `action` and reports how much memory it left in use. No collection runs in between, so
 * whatever it allocated (60M strings would be gigabytes) is still counted, garbage or not.
 */
async function measured(action: () => unknown) {
  const before = memoryInUse();
  const started = performance.now();
  let error: unknown;
  try {
    await action();
  } catch (caught) {
    error = caught;
  }
  return { error, elapsed: performance.now() - started, growth: memoryInUse() - before };
}

const describeError = (error: unknown) =>
  error instanceof RpmFormatError ? { code: error.code, part: error.part } : error;

describe("a header holding 60 million empty file names (issue 10)", () => {
  it("is refused with RPM_TOO_MANY_ENTRIES before any name is decoded, in memory and streamed", async () => {
    const names = 60_000_000;
    // What the issue measured: BASENAMES with 60M empty names (60 MB of NULs), a directory, and
    // OLDFILENAMES the same way (which used to run out of a 4 GB heap building file entries).
    for (const files of [
      [stringArrayEntry(Tag.DIRNAMES, ["/"]), zeros(Tag.BASENAMES, names)],
      [zeros(Tag.OLDFILENAMES, names)],
    ]) {
      const rpm = syntheticRpm({ header: [...basicHeaderEntries(), ...files] });
      expect(rpm.length).toBeGreaterThan(names);

      const inMemory = await measured(() => parseRpmPackage(rpm));
      expect(describeError(inMemory.error)).toEqual({ code: "RPM_TOO_MANY_ENTRIES", part: "header" });
      expect(inMemory.growth).toBeLessThan(100 * MiB);

      // As the server reads uploads: a stream of 64 KiB chunks. The index is at the start, so the
      // refusal comes before the 60 MB store is pulled, let alone buffered.
      let pulled = 0;
      function* chunks() {
        for (let at = 0; at < rpm.length; at += 65536) {
          const chunk = rpm.subarray(at, at + 65536);
          pulled += chunk.length;
          yield chunk;
        }
      }
      const streamed = await measured(() => readRpmPackage(chunks()));
      expect(describeError(streamed.error)).toEqual({ code: "RPM_TOO_MANY_ENTRIES", part: "header" });
      expect(pulled).toBeLessThanOrEqual(65536);
      expect(streamed.growth).toBeLessThan(100 * MiB);
      console.info(
        `${files.length === 2 ? "BASENAMES" : "OLDFILENAMES"} × ${names}: refused in ${inMemory.elapsed.toFixed(1)} ms (memory +${(inMemory.growth / MiB).toFixed(1)} MiB); streamed in ${streamed.elapsed.toFixed(1)} ms after ${pulled} of ${rpm.length} bytes (+${(streamed.growth / MiB).toFixed(1)} MiB)`,
      );
    }
  });
});

describe("limits on counts", () => {
  it("checks every entry's count against MAX_ENTRY_COUNT and the store, whatever its type", () => {
    const header = (entry: NewHeaderEntry) =>
      encodeRpmHeader(REGION_IMMUTABLE, [stringEntry(1000, "n"), entry]);
    const parse = (entry: NewHeaderEntry) => codeOf(() => parseRpmHeader(header(entry), 0, "header"));
    for (const type of [RpmType.CHAR, RpmType.INT8, RpmType.INT16, RpmType.INT32, RpmType.STRING_ARRAY]) {
      expect(parse(zeros(5000, MAX_ENTRY_COUNT, type))).toBe("OK");
      expect(parse(zeros(5000, MAX_ENTRY_COUNT + 1, type))).toBe("RPM_TOO_MANY_ENTRIES");
    }
    expect(parse(zeros(5000, MAX_ENTRY_COUNT + 1, RpmType.I18NSTRING))).toBe("RPM_TOO_MANY_ENTRIES");
    // A STRING holds one value however long; BIN counts bytes, bounded by the data length.
    expect(parse(binaryEntry(5000, new Uint8Array(2 * MAX_ENTRY_COUNT)))).toBe("OK");
    expect(parse(stringEntry(5000, "x".repeat(2 * MAX_ENTRY_COUNT)))).toBe("OK");
    // A count the store cannot hold (each string needs its NUL) stays out of bounds, however small.
    expect(parse({ ...zeros(5000, 1000), count: 2000 })).toBe("RPM_INDEX_OUT_OF_BOUNDS");
    expect(parse({ ...zeros(5000, 10, RpmType.INT32), count: 20 })).toBe("RPM_INDEX_OUT_OF_BOUNDS");
  });

  it(`refuses more than ${MAX_DEPENDENCIES} dependencies, all kinds together, before decoding them`, async () => {
    const oneKind = syntheticRpm({
      header: [...basicHeaderEntries(), zeros(Tag.PROVIDENAME, MAX_DEPENDENCIES + 1)],
    });
    const split = syntheticRpm({
      header: [
        ...basicHeaderEntries(),
        zeros(Tag.PROVIDENAME, MAX_DEPENDENCIES / 2),
        zeros(Tag.REQUIRENAME, MAX_DEPENDENCIES / 2),
        zeros(Tag.OLDSUGGESTSNAME, 1),
      ],
    });
    for (const rpm of [oneKind, split]) {
      const { error, growth } = await measured(() => parseRpmPackage(rpm));
      expect(describeError(error)).toEqual({ code: "RPM_TOO_MANY_ENTRIES", part: "header" });
      expect(growth).toBeLessThan(20 * MiB);
    }
  });

  it(`refuses more than ${MAX_CHANGELOG_ENTRIES} changelog entries and reads that many`, async () => {
    const changelog = (count: number) =>
      syntheticRpm({
        header: [
          ...basicHeaderEntries(),
          zeros(Tag.CHANGELOGTIME, count, RpmType.INT32),
          zeros(Tag.CHANGELOGNAME, count),
          zeros(Tag.CHANGELOGTEXT, count),
        ],
      });
    expect(parseRpmPackage(changelog(MAX_CHANGELOG_ENTRIES)).metadata.changelog).toHaveLength(
      MAX_CHANGELOG_ENTRIES,
    );
    const tooLong = changelog(MAX_CHANGELOG_ENTRIES + 1);
    const { error, growth } = await measured(() => parseRpmPackage(tooLong));
    expect(describeError(error)).toEqual({ code: "RPM_TOO_MANY_ENTRIES", part: "header" });
    expect(growth).toBeLessThan(20 * MiB);
  });

  it("reads a header at every limit with bounded memory", async () => {
    const files = MAX_ENTRY_COUNT;
    const rpm = syntheticRpm({
      header: [
        ...basicHeaderEntries(),
        stringArrayEntry(Tag.DIRNAMES, ["/"]),
        zeros(Tag.DIRINDEXES, files, RpmType.INT32),
        zeros(Tag.BASENAMES, files),
        zeros(Tag.PROVIDENAME, MAX_DEPENDENCIES),
        zeros(Tag.CHANGELOGTIME, MAX_CHANGELOG_ENTRIES, RpmType.INT32),
        zeros(Tag.CHANGELOGNAME, MAX_CHANGELOG_ENTRIES),
        zeros(Tag.CHANGELOGTEXT, MAX_CHANGELOG_ENTRIES),
      ],
    });
    let metadata: ReturnType<typeof parseRpmPackage>["metadata"] | undefined;
    const { error, elapsed, growth } = await measured(() => {
      metadata = parseRpmPackage(rpm).metadata;
    });
    expect(error).toBeUndefined();
    expect(metadata?.files).toHaveLength(files);
    expect(metadata?.provides).toHaveLength(MAX_DEPENDENCIES);
    expect(metadata?.changelog).toHaveLength(MAX_CHANGELOG_ENTRIES);
    expect(growth).toBeLessThan(400 * MiB);
    console.info(
      `at the limits (${files} files, ${MAX_DEPENDENCIES} dependencies, ${MAX_CHANGELOG_ENTRIES} changelog entries, ${rpm.length} bytes): read in ${elapsed.toFixed(0)} ms, memory +${(growth / MiB).toFixed(0)} MiB`,
    );
  });
});
