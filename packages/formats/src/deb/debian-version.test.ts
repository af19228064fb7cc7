import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import {
  compareDebianVersions,
  debianVersionKey,
  debianVersionProblem,
  isValidDebianVersion,
  parseDebianVersion,
} from "./debian-version.ts";

describe("parseDebianVersion", () => {
  it("splits epoch, upstream and revision", () => {
    expect(parseDebianVersion("1:2.10-3~bpo12+1")).toEqual({
      epoch: 1,
      upstream: "2.10",
      revision: "3~bpo12+1",
    });
    expect(parseDebianVersion("2.0-rc1-4")).toEqual({ epoch: 0, upstream: "2.0-rc1", revision: "4" });
    expect(parseDebianVersion("7")).toEqual({ epoch: 0, upstream: "7", revision: "" });
  });
});

describe("debianVersionProblem", () => {
  it.each(["1.0", "1:1.0-1", "0.9~rc1+dfsg-2ubuntu0.1", "20240101", "1.0-1.1", "2.4.1+ds-3~bpo12+1", "1.0a"])(
    "accepts %s",
    (version) => {
      expect(debianVersionProblem(version)).toBeUndefined();
      expect(isValidDebianVersion(version)).toBe(true);
    },
  );

  it.each([
    ["", "empty"],
    ["1.0 beta", "whitespace"],
    ["a1.0", "start with a digit"],
    ["x:1.0", "epoch"],
    ["99999999999:1.0", "epoch is too large"],
    ["1.0-", "revision"],
    ["1.0-a_b", "revision may contain"],
    ["1.0_1", "upstream version may contain"],
    [":1.0", "epoch"],
    ["1:", "upstream version is empty"],
    ["-1", "upstream version is empty"],
  ])("rejects %j (%s)", (version, reason) => {
    expect(debianVersionProblem(version)).toContain(reason);
  });
});

describe("compareDebianVersions", () => {
  // Pairs from dpkg's own test suite (t-version.c) and Debian policy examples.
  it.each([
    ["1.0", "1.0", 0],
    ["1.0", "1.0-0", 0],
    ["0:1.0", "1.0", 0],
    ["1.0-1", "1.0-01", 0],
    ["1.0", "1.0-1", -1],
    ["1.0~rc1", "1.0", -1],
    ["1.0~rc1", "1.0~rc2", -1],
    ["1.0~~", "1.0~~a", -1],
    ["1.0~~a", "1.0~", -1],
    ["1.0~", "1.0", -1],
    ["1.0", "1.0a", -1],
    ["1.0", "1.0+", -1],
    ["1.0a", "1.0+", -1],
    ["1.0+", "1.0.", -1],
    ["1.2", "1.10", -1],
    ["1.09", "1.10", -1],
    ["2.0", "1:0.1", -1],
    ["1:1.0", "2:0.1", -1],
    ["1.0-1", "1.0-2", -1],
    ["1.0-9", "1.0-10", -1],
    ["1.0-1~bpo1", "1.0-1", -1],
    ["1.0-1ubuntu1", "1.0-1ubuntu2", -1],
    ["2.30-1", "2.4-1", 1],
    ["1:2.10-3", "2.10-3", 1],
    ["9.9", "10", -1],
    ["1.0.0", "1.0", 1],
    ["a", "b", -1],
  ])("%s vs %s is %i", (left, right, expected) => {
    expect(compareDebianVersions(left, right)).toBe(expected);
    expect(compareDebianVersions(right, left)).toBe(expected === 0 ? 0 : -expected);
  });

  it("sorts a list like dpkg", () => {
    const versions = ["1.0", "1:0.5", "1.0~rc1", "1.0-1", "0.9", "1.0+b1", "1.0.1~beta", "1.0.1"];
    expect([...versions].sort(compareDebianVersions)).toEqual([
      "0.9",
      "1.0~rc1",
      "1.0",
      "1.0-1",
      "1.0+b1",
      "1.0.1~beta",
      "1.0.1",
      "1:0.5",
    ]);
  });
});

describe("debianVersionKey", () => {
  const versions = (
    "1.0 1.0-0 1.00 1.0-00 0:1.0 1. 1.0.0 1.0a 1.0a0 1.01 1.1 1.0~ 1.0-1 1:1.0 01:1.0 2.0-rc1-4 " +
    "2.0-rc01-4 2.0-rc1-04 1..1 1.0.1 1.00.1 7 007 1.0+b1 1.0+b01 1.0~rc1 1.0~rc1-0 a a0 1a 1a0"
  ).split(" ");

  it("is the same for two versions exactly when dpkg calls them equal", () => {
    for (const left of versions) {
      for (const right of versions) {
        const equal = compareDebianVersions(left, right) === 0;
        expect([left, right, debianVersionKey(left) === debianVersionKey(right)]).toEqual([
          left,
          right,
          equal,
        ]);
      }
    }
    expect(debianVersionKey("1.0")).toBe(debianVersionKey("1.0-0"));
    expect(debianVersionKey("1.0")).not.toBe(debianVersionKey("1.0-1"));
  });
});

describe("compareDebianVersions against dpkg --compare-versions", () => {
  const hasDpkg = requireTools(["dpkg"]);
  const versions = [
    "1.0",
    "1.0-1",
    "1.0~rc1",
    "1.0+b1",
    "1:0.1",
    "1.0a",
    "1.0.0",
    "1.0-1~bpo1",
    "2.0~~",
    "0.9-10",
    "1.00-1",
    "1.0~",
  ];

  it.runIf(hasDpkg)("agrees on every pair", () => {
    for (const [index, left] of versions.entries()) {
      for (const right of versions.slice(index + 1)) {
        const dpkgSaysLess = spawnSync("dpkg", ["--compare-versions", left, "lt", right]).status === 0;
        const dpkgSaysEqual = spawnSync("dpkg", ["--compare-versions", left, "eq", right]).status === 0;
        const expected = dpkgSaysLess ? -1 : dpkgSaysEqual ? 0 : 1;
        expect([left, right, compareDebianVersions(left, right)]).toEqual([left, right, expected]);
      }
    }
  });
});
