import { describe, expect, it } from "vitest";
import { makeDependency } from "../rpm/rpm-dependency.ts";
import { RpmSense } from "../rpm/rpm-tags.ts";
import { primaryDependencies, splitEvr } from "./primary-dependencies.ts";
import { samplePackage } from "./testing/sample-package.ts";

const names = (list: { name: string; pre: boolean }[]) =>
  list.map((d) => (d.pre ? `${d.name} (pre)` : d.name));

describe("splitEvr", () => {
  it("splits like createrepo_c", () => {
    expect(splitEvr("")).toEqual({ epoch: null, version: null, release: null });
    expect(splitEvr("1.0")).toEqual({ epoch: "0", version: "1.0", release: null });
    expect(splitEvr("2:1.2.3-4")).toEqual({ epoch: "2", version: "1.2.3", release: "4" });
    expect(splitEvr("1.0-1-2")).toEqual({ epoch: "0", version: "1.0", release: "1-2" });
    expect(splitEvr(":1.0")).toEqual({ epoch: "0", version: "1.0", release: null });
    expect(splitEvr("1.0-")).toEqual({ epoch: "0", version: "1.0", release: null });
    expect(splitEvr("x:1.0")).toBeNull();
  });
});

describe("primaryDependencies", () => {
  it("filters requires: rpmlib, own primary files, own exact provides, repeats", () => {
    const pkg = samplePackage({
      provides: [makeDependency("cap", 8, "1.0"), makeDependency("bare", 0, "")],
      requires: [
        makeDependency("rpmlib(PayloadIsZstd)", RpmSense.RPMLIB | 10, "5.4.18-1"),
        makeDependency("/usr/bin/alpha", 0, ""),
        makeDependency("/usr/share/alpha/data.txt", 0, ""),
        makeDependency("cap", 8, "1.0"),
        makeDependency("cap", 12, "1.0"),
        makeDependency("bare", 0, ""),
        makeDependency("dup", 0, ""),
        makeDependency("dup", 0, ""),
        makeDependency("dup", RpmSense.SCRIPT_PRE, ""),
        makeDependency("dup", 0, ""),
        makeDependency("trans", RpmSense.PRETRANS | RpmSense.POSTTRANS, ""),
        makeDependency("post", RpmSense.SCRIPT_POST, ""),
        makeDependency("bad-epoch", 8, "abc:1"),
      ],
    });
    expect(names(primaryDependencies(pkg).requires)).toEqual([
      "/usr/share/alpha/data.txt",
      "cap",
      "dup",
      "dup (pre)",
      "dup",
      "trans",
      "post (pre)",
    ]);
  });

  it("keeps only the highest libc.so.6 requirement, last", () => {
    const pkg = samplePackage({
      requires: [
        makeDependency("libc.so.6(GLIBC_2.2.5)(64bit)", 0, ""),
        makeDependency("zlib", 0, ""),
        makeDependency("libc.so.6(GLIBC_2.34)(64bit)", 0, ""),
        makeDependency("libc.so.6(GLIBC_2.4)(64bit)", 0, ""),
        makeDependency("libc.so.6()(64bit)", 0, ""),
      ],
    });
    expect(names(primaryDependencies(pkg).requires)).toEqual(["zlib", "libc.so.6(GLIBC_2.34)(64bit)"]);
  });

  it("moves MISSINGOK requires to recommends, ahead of real ones", () => {
    const pkg = samplePackage({
      requires: [makeDependency("old-style", RpmSense.MISSINGOK | RpmSense.SCRIPT_PRE, "")],
      recommends: [makeDependency("new-style", 0, "")],
    });
    const result = primaryDependencies(pkg);
    expect(result.requires).toEqual([]);
    expect(names(result.recommends)).toEqual(["old-style", "new-style"]);
  });

  it("converts every list with flags and the split version", () => {
    const result = primaryDependencies(samplePackage());
    expect(result.provides[1]).toEqual({
      name: "config(packyard-alpha)",
      flags: "EQ",
      epoch: "2",
      version: "1.2.3",
      release: "4",
      pre: false,
    });
    expect(result.suggests).toEqual([
      { name: "delta", flags: "GE", epoch: "0", version: "2", release: null, pre: false },
    ]);
  });
});
