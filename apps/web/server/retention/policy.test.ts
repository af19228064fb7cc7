import { describe, expect, it } from "vitest";
import { majorVersionOf, planRetention, type RetentionCandidate } from "./policy.ts";

const NOW = new Date("2026-06-30T12:00:00.000Z");
/** Release `version`, created `daysAgo` days before NOW. */
const r = (version: string, daysAgo: number, yanked = false): RetentionCandidate => ({
  id: version.replace(/\W/g, "x"),
  version,
  createdAt: new Date(NOW.getTime() - daysAgo * 86_400_000).toISOString(),
  yanked,
});
const rules = {
  keepReleases: 2,
  keepNewestPerMajor: false,
  minAgeDays: 0,
  countYanked: true,
  deleteLatest: false,
};
const versions = (decisions: { version: string }[]) => decisions.map((d) => d.version);

describe("planRetention", () => {
  it("keeps the newest N by creation time, whatever order they come in", () => {
    const plan = planRetention([r("1.0", 30), r("3.0", 10), r("2.0", 20), r("4.0", 5)], rules, NOW);
    expect(versions(plan.keep)).toEqual(["4.0", "3.0"]);
    expect(plan.keep.map((d) => d.reason)).toEqual(["newest", "newest"]);
    expect(versions(plan.remove)).toEqual(["2.0", "1.0"]);
    expect(plan.remove.every((d) => d.reason === "older")).toBe(true);
  });

  it("keeps everything when there are N or fewer", () => {
    expect(planRetention([r("1.0", 3), r("2.0", 2)], rules, NOW).remove).toEqual([]);
    expect(planRetention([], rules, NOW)).toEqual({
      keep: [],
      remove: [],
      latest: null,
      deletesLatest: false,
    });
  });

  it("yanked releases take places when counted", () => {
    const plan = planRetention([r("1.0", 30), r("2.0", 20), r("3.0", 10, true)], rules, NOW);
    expect(versions(plan.keep)).toEqual(["3.0", "2.0"]);
    expect(versions(plan.remove)).toEqual(["1.0"]);
  });

  it("yanked releases not counted take no place; they stay while newer than the oldest kept", () => {
    const plan = planRetention(
      [r("1.0", 40), r("1.1", 35, true), r("2.0", 30), r("2.1", 25, true), r("3.0", 20)],
      { ...rules, countYanked: false },
      NOW,
    );
    expect(versions(plan.keep)).toEqual(["3.0", "2.1", "2.0"]);
    expect(plan.keep.map((d) => d.reason)).toEqual(["newest", "yanked", "newest"]);
    expect(versions(plan.remove)).toEqual(["1.1", "1.0"]);
  });

  it("never deletes a release younger than the minimum age", () => {
    const plan = planRetention(
      [r("1.0", 9), r("2.0", 8), r("3.0", 2), r("4.0", 1)],
      { ...rules, minAgeDays: 8.5 },
      NOW,
    );
    expect(versions(plan.remove)).toEqual(["1.0"]);
    expect(plan.keep.find((d) => d.version === "2.0")?.reason).toBe("young");
  });

  it("keeps the newest release of each major version that is not yanked", () => {
    const plan = planRetention(
      [
        r("1.0.0", 50),
        r("1.2.0", 40),
        r("v2.0", 30, true),
        r("2.0.1", 29, true),
        r("v2.1", 28),
        r("3.0", 10),
        r("3.1", 5),
      ],
      { ...rules, keepNewestPerMajor: true },
      NOW,
    );
    expect(versions(plan.keep)).toEqual(["3.1", "3.0", "v2.1", "1.2.0"]);
    expect(plan.keep.slice(2).map((d) => d.reason)).toEqual(["major", "major"]);
    expect(versions(plan.remove)).toEqual(["2.0.1", "v2.0", "1.0.0"]);
  });

  it("never deletes the release latest resolves to unless the rules allow it, and says when they do", () => {
    const releases = [r("1.0", 30), r("1.1", 20), r("1.2-rc", 10, true)];
    const keepOne = { ...rules, keepReleases: 1 };
    // The defaults: a yanked release takes no place, so the latest is one of the newest.
    const safe = planRetention(releases, { ...keepOne, countYanked: false }, NOW);
    expect(safe.keep.map((d) => [d.version, d.reason])).toEqual([
      ["1.2-rc", "yanked"],
      ["1.1", "newest"],
    ]);
    expect(safe).toMatchObject({ latest: "1.1", deletesLatest: false });
    // Counted, the yanked 1.2-rc takes the one place; 1.1 stays as the latest.
    const counted = planRetention(releases, keepOne, NOW);
    expect(counted.keep.map((d) => [d.version, d.reason])).toEqual([
      ["1.2-rc", "newest"],
      ["1.1", "latest"],
    ]);
    expect(versions(counted.remove)).toEqual(["1.0"]);
    expect(counted).toMatchObject({ latest: "1.1", deletesLatest: false });
    // Only when allowed does it go, and the plan says so.
    const allowed = planRetention(releases, { ...keepOne, deleteLatest: true }, NOW);
    expect(versions(allowed.keep)).toEqual(["1.2-rc"]);
    expect(versions(allowed.remove)).toEqual(["1.1", "1.0"]);
    expect(allowed).toMatchObject({ latest: "1.1", deletesLatest: true });
    // Every release yanked: there is no latest to keep.
    const yanked = planRetention([r("1.0", 30, true), r("1.1", 20, true)], keepOne, NOW);
    expect(yanked).toMatchObject({ latest: null, deletesLatest: false });
    expect(versions(yanked.remove)).toEqual(["1.0"]);
  });

  it("orders releases created at the same moment by id, like the release list", () => {
    const same = "2026-06-01T00:00:00.000Z";
    const plan = planRetention(
      [
        { id: "aaaaaaaa", version: "a", createdAt: same, yanked: false },
        { id: "bbbbbbbb", version: "b", createdAt: same, yanked: false },
      ],
      { ...rules, keepReleases: 1 },
      NOW,
    );
    expect(versions(plan.keep)).toEqual(["b"]);
  });
});

describe("majorVersionOf", () => {
  it.each([
    ["1.2.3", "1"],
    ["v10.0", "10"],
    ["V2", "2"],
    ["007.1", "7"],
    ["2024.01.5", "2024"],
    ["nightly-2024", "nightly"],
    ["beta", "beta"],
  ])("%s is major %s", (version, major) => {
    expect(majorVersionOf(version)).toBe(major);
  });
});
