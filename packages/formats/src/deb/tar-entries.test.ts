import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import { DebFormatError } from "./deb-format-error.ts";
import { readTarEntries } from "./tar-entries.ts";
import { tarArchive } from "./test-deb-builder.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof DebFormatError ? error.code : String(error);
  }
  return undefined;
}

describe("readTarEntries", () => {
  it("lists files and directories with normalized names", () => {
    const entries = readTarEntries(
      tarArchive([
        { name: "./", type: "directory" },
        { name: "./control", data: "Package: a\n" },
        { name: "./conffiles", data: "" },
      ]),
    );
    expect(entries.map(({ name, type, size }) => ({ name, type, size }))).toEqual([
      { name: "", type: "directory", size: 0 },
      { name: "control", type: "file", size: 11 },
      { name: "conffiles", type: "file", size: 0 },
    ]);
    expect(text(entries[1]!.data)).toBe("Package: a\n");
  });

  it("reads GNU long names", () => {
    const name = `./${"a".repeat(150)}`;
    expect(readTarEntries(tarArchive([{ name, data: "x" }])).map((entry) => entry.name)).toEqual([
      "a".repeat(150),
    ]);
  });

  it("tolerates a missing end-of-archive marker and accepts an empty archive", () => {
    const tar = tarArchive([{ name: "./control", data: "x" }]);
    expect(readTarEntries(tar.subarray(0, 1024))).toHaveLength(1);
    expect(readTarEntries(new Uint8Array())).toEqual([]);
  });

  it.each([
    [
      "a checksum mismatch",
      () => {
        const tar = tarArchive([{ name: "./control", data: "x" }]);
        tar[0] = 0x41;
        return tar;
      },
    ],
    ["data past the end", () => tarArchive([{ name: "./control", data: "x".repeat(600) }]).subarray(0, 1024)],
    ["less than one block", () => new Uint8Array(100).fill(1)],
    [
      "a non-octal size",
      () => {
        const tar = tarArchive([{ name: "./control", data: "x" }]);
        tar[124] = 0x39;
        // Recompute the checksum so only the size is wrong.
        tar.fill(0x20, 148, 156);
        const sum = tar.subarray(0, 512).reduce((total, byte) => total + byte, 0);
        tar.set(new TextEncoder().encode(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
        return tar;
      },
    ],
  ])("rejects %s with DEB_BAD_TAR", (_label, build) => {
    expect(codeOf(() => readTarEntries(build()))).toBe("DEB_BAD_TAR");
  });

  describe("archives written by GNU tar", () => {
    const hasTar = requireTools(["tar"]);
    const directory = mkdtempSync(join(tmpdir(), "tar-entries-"));
    afterAll(() => rmSync(directory, { recursive: true, force: true }));

    it.runIf(hasTar).each(["gnu", "posix", "ustar"])("reads --format=%s", (format) => {
      const root = join(directory, format);
      const deep = `${"d".repeat(60)}/${"e".repeat(60)}`;
      mkdirSync(join(root, deep), { recursive: true });
      writeFileSync(join(root, "control"), "Package: a\n");
      writeFileSync(join(root, deep, "file"), "deep");
      symlinkSync("control", join(root, "link"));
      const tar = execFileSync("tar", [
        `--format=${format}`,
        "-C",
        root,
        "-cf",
        "-",
        "./control",
        "./link",
        `./${deep}/file`,
      ]);
      const entries = readTarEntries(tar);
      expect(entries.map(({ name, type }) => [name, type])).toEqual([
        ["control", "file"],
        ["link", "symlink"],
        [`${deep}/file`, "file"],
      ]);
      expect(text(entries[2]!.data)).toBe("deep");
    });
  });
});
