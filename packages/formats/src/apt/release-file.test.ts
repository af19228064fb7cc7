import { describe, expect, it } from "vitest";
import { AptIndexError } from "./apt-index-error.ts";
import { describeIndexFile, formatReleaseDate, type ReleaseInput, renderRelease } from "./release-file.ts";

const packages = describeIndexFile("main/binary-amd64/Packages", "Package: hello\n");
const input: ReleaseInput = {
  origin: "Packyard",
  label: "Packyard acme/tools",
  suite: "stable",
  codename: "stable",
  date: new Date("2025-02-01T12:34:56.789Z"),
  validUntil: new Date("2025-02-08T12:34:56Z"),
  architectures: ["amd64", "arm64", "all", "amd64"],
  components: ["main"],
  description: "Packages of acme/tools",
  files: [
    { path: "main/binary-amd64/Packages.gz", size: 10, sha256: "b".repeat(64), sha512: "c".repeat(128) },
    packages,
    { path: "InRelease", size: 1, sha256: "d".repeat(64), sha512: "d".repeat(128) },
    { path: "Release", size: 1, sha256: "d".repeat(64), sha512: "d".repeat(128) },
  ],
};

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof AptIndexError ? error.code : String(error);
  }
  return undefined;
}

describe("renderRelease", () => {
  it("renders the golden Release", () => {
    expect(renderRelease(input)).toBe(`Origin: Packyard
Label: Packyard acme/tools
Suite: stable
Codename: stable
Date: Sat, 01 Feb 2025 12:34:56 UTC
Valid-Until: Sat, 08 Feb 2025 12:34:56 UTC
Acquire-By-Hash: yes
Architectures: amd64 arm64 all
Components: main
Description: Packages of acme/tools
SHA256:
 ${packages.sha256} 15 main/binary-amd64/Packages
 ${"b".repeat(64)} 10 main/binary-amd64/Packages.gz
SHA512:
 ${packages.sha512} 15 main/binary-amd64/Packages
 ${"c".repeat(128)} 10 main/binary-amd64/Packages.gz
`);
  });

  it("omits optional fields and adds Version when given", () => {
    const text = renderRelease({
      ...input,
      validUntil: undefined,
      description: undefined,
      version: "12.5",
      files: [],
    });
    expect(text).not.toMatch(/Valid-Until|Description/);
    expect(text).toContain("Suite: stable\nVersion: 12.5\nCodename: stable\n");
    expect(text.endsWith("SHA256:\nSHA512:\n")).toBe(true);
  });

  it.each([
    ["a multi-line Origin", { origin: "a\nb" }, "APT_BAD_FIELD"],
    ["a suite with a space", { suite: "my suite" }, "APT_BAD_FIELD"],
    ["an uppercase architecture", { architectures: ["AMD64"] }, "APT_BAD_FIELD"],
    ["no components", { components: [] }, "APT_BAD_FIELD"],
    ["Valid-Until before Date", { validUntil: new Date("2025-01-01T00:00:00Z") }, "APT_BAD_DATE"],
    ["an invalid date", { date: new Date(Number.NaN), validUntil: undefined }, "APT_BAD_DATE"],
    ["a path escaping the suite", { files: [{ ...packages, path: "../x" }] }, "APT_BAD_PATH"],
    ["a duplicate path", { files: [packages, packages] }, "APT_BAD_PATH"],
    ["a bad hash", { files: [{ ...packages, sha512: "x" }] }, "APT_BAD_HASH"],
  ] as const)("rejects %s", (_label, change, code) => {
    expect(codeOf(() => renderRelease({ ...input, ...change } as ReleaseInput))).toBe(code);
  });
});

describe("formatReleaseDate", () => {
  it("writes RFC 1123 in UTC", () => {
    expect(formatReleaseDate(new Date("2024-12-31T23:59:59+02:00"))).toBe("Tue, 31 Dec 2024 21:59:59 UTC");
  });
});

describe("describeIndexFile", () => {
  it("hashes text as UTF-8 and bytes as given", () => {
    expect(describeIndexFile("x", "")).toMatchObject({
      size: 0,
      sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    });
    expect(describeIndexFile("x", "é").size).toBe(2);
    expect(describeIndexFile("x", new Uint8Array([1, 2, 3])).size).toBe(3);
  });
});
