import { describe, expect, it } from "vitest";
import { parseRpmPackage } from "./read-rpm.ts";
import { RpmFormatError } from "./rpm-format-error.ts";
import {
  int16Entry,
  int32Entry,
  type NewHeaderEntry,
  stringArrayEntry,
  stringEntry,
} from "./rpm-header-writer.ts";
import { RpmFileFlag, RpmSense, RpmType, SigTag, Tag } from "./rpm-tags.ts";
import { basicHeaderEntries, syntheticRpm } from "./testing/synthetic-rpm.ts";

const parse = (header: NewHeaderEntry[], signature?: NewHeaderEntry[]) =>
  parseRpmPackage(syntheticRpm({ header: [...basicHeaderEntries(), ...header], signature })).metadata;

const codeOf = (action: () => unknown) => {
  try {
    action();
    return "OK";
  } catch (error) {
    if (!(error instanceof RpmFormatError)) throw error;
    return error.code;
  }
};

describe("extractRpmMetadata", () => {
  it("defaults what a package may leave out", () => {
    expect(parse([])).toMatchObject({
      name: "synthetic",
      epoch: null,
      summary: "",
      vendor: "",
      installedSize: 0,
      archiveSize: 0,
      isSource: false,
      files: [],
      changelog: [],
      requires: [],
    });
  });

  it("insists on name, version, release and arch", () => {
    const entries = basicHeaderEntries().filter((entry) => entry.tag !== Tag.RELEASE);
    expect(codeOf(() => parseRpmPackage(syntheticRpm({ header: entries })))).toBe("RPM_MISSING_TAG");
  });

  it("takes the untranslated value of i18n strings and 64-bit sizes first", () => {
    const metadata = parse([
      stringArrayEntry(Tag.SUMMARY, ["English", "Deutsch"], RpmType.I18NSTRING),
      int32Entry(Tag.SIZE, [10]),
      { tag: Tag.LONGSIZE, type: RpmType.INT64, count: 1, data: Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 0) },
      int32Entry(Tag.SOURCEPACKAGE, [1]),
    ]);
    expect(metadata.summary).toBe("English");
    expect(metadata.installedSize).toBe(2 ** 32);
    expect(metadata.isSource).toBe(true);
  });

  it("prefers main-header archive sizes, then the signature header's", () => {
    expect(parse([], [int32Entry(SigTag.PAYLOADSIZE, [77])]).archiveSize).toBe(77);
    expect(
      parse([int32Entry(Tag.ARCHIVESIZE, [55])], [int32Entry(SigTag.PAYLOADSIZE, [77])]).archiveSize,
    ).toBe(55);
  });

  it("joins dirnames and basenames, and tells dirs, ghosts and files apart", () => {
    const metadata = parse([
      stringArrayEntry(Tag.DIRNAMES, ["/etc/", "/usr/bin/"]),
      stringArrayEntry(Tag.BASENAMES, ["conf", "tool", "gone", "dir"]),
      int32Entry(Tag.DIRINDEXES, [0, 1, 1, 0]),
      int16Entry(Tag.FILEMODES, [0o100644, 0o100755, 0o100644, 0o40755]),
      int32Entry(Tag.FILEFLAGS, [RpmFileFlag.CONFIG, 0, RpmFileFlag.GHOST, RpmFileFlag.GHOST]),
    ]);
    expect(metadata.files.map((f) => [f.path, f.type])).toEqual([
      ["/etc/conf", "file"],
      ["/usr/bin/tool", "file"],
      ["/usr/bin/gone", "ghost"],
      ["/etc/dir", "dir"],
    ]);
  });

  it("reads pre-4.0 OLDFILENAMES", () => {
    expect(parse([stringArrayEntry(Tag.OLDFILENAMES, ["/a", "/b"])]).files.map((f) => f.path)).toEqual([
      "/a",
      "/b",
    ]);
  });

  it("refuses file and dependency arrays that disagree", () => {
    expect(
      codeOf(() =>
        parse([
          stringArrayEntry(Tag.DIRNAMES, ["/"]),
          stringArrayEntry(Tag.BASENAMES, ["a", "b"]),
          int32Entry(Tag.DIRINDEXES, [0]),
        ]),
      ),
    ).toBe("RPM_BAD_HEADER");
    expect(
      codeOf(() =>
        parse([
          stringArrayEntry(Tag.DIRNAMES, ["/"]),
          stringArrayEntry(Tag.BASENAMES, ["a"]),
          int32Entry(Tag.DIRINDEXES, [3]),
        ]),
      ),
    ).toBe("RPM_INDEX_OUT_OF_BOUNDS");
    expect(
      codeOf(() => parse([stringArrayEntry(Tag.REQUIRENAME, ["a", "b"]), int32Entry(Tag.REQUIREFLAGS, [0])])),
    ).toBe("RPM_BAD_HEADER");
    expect(
      codeOf(() =>
        parse([
          stringArrayEntry(Tag.BASENAMES, ["a"]),
          stringArrayEntry(Tag.DIRNAMES, ["/"]),
          int32Entry(Tag.DIRINDEXES, [0]),
          int16Entry(Tag.FILEMODES, [1, 2]),
        ]),
      ),
    ).toBe("RPM_BAD_HEADER");
  });

  it("maps pre-4.12 weak dependencies by their STRONG bit", () => {
    const metadata = parse([
      stringArrayEntry(Tag.OLDSUGGESTSNAME, ["weak", "strong"]),
      int32Entry(Tag.OLDSUGGESTSFLAGS, [0, RpmSense.STRONG]),
      stringArrayEntry(Tag.OLDSUGGESTSVERSION, ["", ""]),
      stringArrayEntry(Tag.OLDENHANCESNAME, ["e", "s"]),
      int32Entry(Tag.OLDENHANCESFLAGS, [0, RpmSense.STRONG]),
      stringArrayEntry(Tag.OLDENHANCESVERSION, ["", ""]),
    ]);
    expect(metadata.suggests.map((d) => d.name)).toEqual(["weak"]);
    expect(metadata.recommends.map((d) => d.name)).toEqual(["strong"]);
    expect(metadata.enhances.map((d) => d.name)).toEqual(["e"]);
    expect(metadata.supplements.map((d) => d.name)).toEqual(["s"]);
  });

  it("keeps the changelog in header order and tolerates uneven arrays", () => {
    const metadata = parse([
      int32Entry(Tag.CHANGELOGTIME, [20, 10, 5]),
      stringArrayEntry(Tag.CHANGELOGNAME, ["new", "old"]),
      stringArrayEntry(Tag.CHANGELOGTEXT, ["- b", "- a", "- z"]),
    ]);
    expect(metadata.changelog).toEqual([
      { time: 20, author: "new", text: "- b" },
      { time: 10, author: "old", text: "- a" },
    ]);
  });

  it("refuses an integer where a string is expected", () => {
    const header = basicHeaderEntries().map((entry) =>
      entry.tag === Tag.NAME ? int32Entry(Tag.NAME, [1]) : entry,
    );
    expect(codeOf(() => parseRpmPackage(syntheticRpm({ header })))).toBe("RPM_BAD_HEADER");
    expect(codeOf(() => parse([stringEntry(Tag.EPOCH, "1")]))).toBe("RPM_BAD_HEADER");
  });
});
