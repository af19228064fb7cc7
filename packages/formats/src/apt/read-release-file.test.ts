import { describe, expect, it } from "vitest";
import { AptReadError } from "./apt-read-error.ts";
import { packagesIndexes, readReleaseFile, splitClearsigned } from "./read-release-file.ts";
import { describeIndexFile, renderRelease } from "./release-file.ts";

const release = renderRelease({
  origin: "Acme",
  label: "Acme",
  suite: "stable",
  codename: "bookworm",
  date: new Date("2025-02-01T12:00:00Z"),
  architectures: ["amd64", "all"],
  components: ["main", "contrib"],
  files: [
    describeIndexFile("main/binary-amd64/Packages", "Package: a\n"),
    describeIndexFile("main/binary-amd64/Packages.gz", "gz"),
    describeIndexFile("main/binary-amd64/Packages.xz", "xz"),
    describeIndexFile("main/binary-all/Packages.xz", "xz2"),
    describeIndexFile("main/debian-installer/binary-amd64/Packages", "di"),
    describeIndexFile("main/source/Sources.gz", "src"),
    describeIndexFile("contrib/binary-amd64/Packages", ""),
  ],
});

const signature = "-----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEE\n=abcd\n-----END PGP SIGNATURE-----\n";

describe("readReleaseFile", () => {
  it("reads a Release file written by Packyard's own renderer", () => {
    const read = readReleaseFile(release);
    expect(read.signed).toBe(false);
    expect(read.suite).toBe("stable");
    expect(read.codename).toBe("bookworm");
    expect(read.components).toEqual(["main", "contrib"]);
    expect(read.architectures).toEqual(["amd64", "all"]);
    expect(read.files.get("main/binary-amd64/Packages")).toEqual({
      path: "main/binary-amd64/Packages",
      size: 11,
      sha256: describeIndexFile("main/binary-amd64/Packages", "Package: a\n").sha256,
    });
  });

  it("takes apart a cleartext-signed InRelease, undoing dash-escaping", () => {
    const text = `-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n${release}${signature}`;
    const read = readReleaseFile(text);
    expect(read.signed).toBe(true);
    expect(read.signature).toBe(signature);
    expect(read.components).toEqual(["main", "contrib"]);
    const escaped = splitClearsigned(
      `-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nA: b\n- -dash\n${signature}`,
    );
    expect(escaped.text).toBe("A: b\n-dash\n");
  });

  it.each([
    ["no SHA256 block", "Origin: x\nMD5Sum:\n 0123 1 main/binary-amd64/Packages\n", "no SHA256 field"],
    ["a bad hash", "SHA256:\n xyz 1 main/binary-amd64/Packages\n", "is not a SHA256"],
    [
      "a path outside the suite",
      `SHA256:\n ${"a".repeat(64)} 1 ../../etc/passwd\n`,
      "not a clean relative path",
    ],
    ["HTML", "<html><body>Welcome to nginx!</body></html>\n", 'expected "Field: value"'],
    [
      "a signature never closed",
      `-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nA: b\n-----BEGIN PGP SIGNATURE-----\n`,
      "not closed",
    ],
  ])("refuses %s", (_label, text, message) => {
    expect(() => readReleaseFile(text)).toThrow(AptReadError);
    expect(() => readReleaseFile(text)).toThrow(message);
  });

  it("does not quote what it could not read (an importer shows the message)", () => {
    for (const text of [
      "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI\n",
      "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n-AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI\n",
    ]) {
      expect(() => readReleaseFile(text)).toThrow(AptReadError);
      expect(() => readReleaseFile(text)).not.toThrow(/AWS_SECRET|wJalrXUtnFEMI/);
    }
  });
});

describe("packagesIndexes", () => {
  it("lists each component's binary indexes, preferred compression first, without installer indexes", () => {
    const indexes = packagesIndexes(readReleaseFile(release), ["main", "contrib"]);
    expect([...indexes.keys()]).toEqual(["contrib/binary-amd64", "main/binary-all", "main/binary-amd64"]);
    expect(indexes.get("main/binary-amd64")!.map((index) => index.compression)).toEqual([
      "gzip",
      "xz",
      "none",
    ]);
    expect(
      packagesIndexes(readReleaseFile(release), ["main"], ["xz", "gzip", "none"]).get(
        "main/binary-amd64",
      )![0]!.path,
    ).toBe("main/binary-amd64/Packages.xz");
  });
});
