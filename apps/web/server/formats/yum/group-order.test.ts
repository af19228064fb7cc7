import { describe, expect, it } from "vitest";
import { type GroupOrder, type OrderedRow, orderGroup } from "./group-order.ts";

interface Row extends OrderedRow {
  label: string;
}

let sequence = 0;
function row(
  release: { id: string; createdAt: string },
  name: string,
  version: string,
  arch = "noarch",
): Row {
  sequence++;
  return {
    release_id: release.id,
    release_created_at: release.createdAt,
    id: `file-${String(sequence).padStart(6, "0")}`,
    file_created_at: `2026-01-01T00:00:${String(sequence % 60).padStart(2, "0")}.000Z`,
    identity: `\u0000${name}\u00000\u0000${version}\u00001\u0000${arch}`,
    order: `${name}\u0000${arch}`,
    label: `${name}-${version}.${arch}@${release.id}`,
  };
}

const newerFirst = (a: string, aId: string, b: string, bId: string) =>
  a !== b ? (a < b ? 1 : -1) : aId < bId ? 1 : aId > bId ? -1 : 0;

/** The package set's order (package-sets.ts): newest release first, then newest file. */
const setOrder = (rows: Row[]) =>
  [...rows].sort(
    (a, b) =>
      newerFirst(a.release_created_at, a.release_id, b.release_created_at, b.release_id) ||
      newerFirst(a.file_created_at, a.id, b.file_created_at, b.id),
  );

/** What a build listed before the order was kept: first of each identity, then a stable sort by order. */
function reference(rows: Row[]): string[] {
  const seen = new Set<string>();
  const kept = rows.filter((r) => !seen.has(r.identity) && seen.add(r.identity));
  return kept.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0)).map((r) => r.label);
}

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state % n;
  };
}

describe("orderGroup", () => {
  it("lists the newest of each identity in name order, as de-duplicating and sorting everything did", () => {
    const old = { id: "r1", createdAt: "2026-01-01T00:00:00.000Z" };
    const now = { id: "r2", createdAt: "2026-02-01T00:00:00.000Z" };
    const rows = setOrder([
      row(old, "b", "1"),
      row(old, "a", "1"),
      row(now, "a", "1"),
      row(now, "a", "2"),
      row(old, "a", "1", "x86_64"),
    ]);
    const { packages } = orderGroup(rows);
    expect(packages.map((p) => p.label)).toEqual([
      "a-2.noarch@r2",
      "a-1.noarch@r2",
      "a-1.x86_64@r1",
      "b-1.noarch@r1",
    ]);
    expect(packages.map((p) => p.label)).toEqual(reference(rows));
  });

  it("gives, build after build, from the previous order, what a build from nothing gives", () => {
    const next = random(16);
    const releases: { id: string; createdAt: string; rows: Row[] }[] = [];
    const names = Array.from({ length: 60 }, (_, i) => `pkg-${String(i).padStart(3, "0")}`);
    const newRelease = () => {
      const n = releases.length;
      const release = {
        id: `rel-${String(n).padStart(4, "0")}`,
        // Some releases share a creation time: the id decides.
        createdAt: `2026-01-01T00:${String(Math.floor(n / 2)).padStart(2, "0")}:00.000Z`,
        rows: [] as Row[],
      };
      releases.push(release);
      return release;
    };
    const addRows = (release: (typeof releases)[number], count: number) => {
      for (let i = 0; i < count; i++) {
        // Few versions and two arches: the same identity recurs across releases.
        const version = String(1 + next(3));
        release.rows.push(
          row(release, names[next(names.length)]!, version, next(4) === 0 ? "x86_64" : "noarch"),
        );
      }
    };
    addRows(newRelease(), 200);
    let previous: GroupOrder<Row> | undefined;
    for (let build = 0; build < 60; build++) {
      const step = next(5);
      if (step === 0 && releases.length > 1) releases.splice(next(releases.length), 1);
      else if (step === 1) addRows(releases[next(releases.length)]!, 1 + next(3));
      else if (step === 2) {
        const release = releases[next(releases.length)]!;
        release.rows.splice(next(release.rows.length), 1);
      } else addRows(newRelease(), 1 + next(2));
      const rows = setOrder(releases.flatMap((r) => r.rows));
      const built = orderGroup(rows, previous);
      expect(built.packages.map((p) => p.label)).toEqual(reference(rows));
      expect(built.packages.map((p) => p.label)).toEqual(orderGroup(rows).packages.map((p) => p.label));
      previous = built.order;
    }
  });
});
