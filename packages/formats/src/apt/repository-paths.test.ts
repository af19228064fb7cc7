import { describe, expect, it } from "vitest";
import { AptIndexError } from "./apt-index-error.ts";
import { byHashPath, debFileName, packagesIndexPath, poolPath, poolPrefix } from "./repository-paths.ts";

describe("repository paths", () => {
  it("buckets the pool like the Debian archive", () => {
    expect(poolPrefix("hello")).toBe("h");
    expect(poolPrefix("libc6")).toBe("libc");
    expect(poolPrefix("lib3ds")).toBe("lib3");
    expect(poolPrefix("lirc")).toBe("l");
    expect(poolPath({ component: "main", source: "glibc", filename: "libc6_2.36-9_amd64.deb" })).toBe(
      "pool/main/g/glibc/libc6_2.36-9_amd64.deb",
    );
    expect(poolPath({ component: "main", source: "libxml2", filename: "libxml2_2.9.14_amd64.deb" })).toBe(
      "pool/main/libx/libxml2/libxml2_2.9.14_amd64.deb",
    );
  });

  it("names .deb files without the epoch", () => {
    expect(debFileName("hello", "1:2.10-3~bpo12+1", "amd64")).toBe("hello_2.10-3~bpo12+1_amd64.deb");
    expect(debFileName("hello", "2.10", "all")).toBe("hello_2.10_all.deb");
  });

  it("builds index and by-hash paths", () => {
    expect(packagesIndexPath("main", "amd64")).toBe("main/binary-amd64/Packages");
    expect(byHashPath("main/binary-amd64/Packages.gz", "SHA256", "A".repeat(64))).toBe(
      `main/binary-amd64/by-hash/SHA256/${"a".repeat(64)}`,
    );
    expect(byHashPath("Contents-amd64", "SHA512", "b".repeat(128))).toBe(`by-hash/SHA512/${"b".repeat(128)}`);
  });

  it.each([
    () => poolPath({ component: "main", source: "../etc", filename: "x.deb" }),
    () => poolPath({ component: "main", source: "hello", filename: "a/b.deb" }),
    () => poolPath({ component: "../main", source: "hello", filename: "x.deb" }),
    () => debFileName("Hello", "1.0", "amd64"),
    () => byHashPath("main/Packages", "SHA256", "abc"),
  ])("refuses unsafe input %#", (build) => {
    expect(build).toThrow(AptIndexError);
  });
});
