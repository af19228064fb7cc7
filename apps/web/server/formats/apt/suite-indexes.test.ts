// A suite's indexes kept between publishes and changed by the rows added and removed list what
// indexes made from scratch list, through uploads, removals, a newer copy replacing an older one
// and back, Architecture: all, new components and architectures.
import { describe, expect, it } from "vitest";
import { type IndexedPackage, SuiteIndexes } from "./suite-indexes.ts";

interface Row extends IndexedPackage {
  /** Set order: lower first (wins). */
  rank: number;
  /** Upload order: lower first (listed first). */
  serial: number;
}

let serial = 0;
function row(
  name: string,
  version: string,
  options: { arch?: string; component?: string; rank?: number } = {},
): Row {
  serial++;
  const architecture = options.arch ?? "amd64";
  const component = options.component ?? "main";
  return {
    id: `file-${serial}`,
    component,
    name,
    version,
    architecture,
    stanza: `Package: ${name}\nVersion: ${version}\nArchitecture: ${architecture}\nX-Serial: ${serial}\n`,
    rank: options.rank ?? -serial,
    serial,
  };
}

const byRank = (a: Row, b: Row) => a.rank - b.rank;
const bySerial = (a: Row, b: Row) => a.serial - b.serial;
const keptIndexes = () => new SuiteIndexes<Row>(byRank, bySerial);

/** Every index, as ids in order. */
function listing(indexes: SuiteIndexes<Row>) {
  const out: Record<string, string[]> = {};
  for (const component of indexes.components)
    for (const architecture of indexes.architectures)
      out[`${component}/${architecture}`] = indexes.index(component, architecture).map((p) => p.id!);
  return out;
}

/** The same rows grouped from scratch (rows in set order). */
function fromScratch(rows: readonly Row[]) {
  const indexes = keptIndexes();
  indexes.load([...rows].sort(byRank));
  return listing(indexes);
}

describe("SuiteIndexes", () => {
  it("follows adds and removes exactly as a grouping from scratch would", () => {
    const kept = keptIndexes();
    let rows: Row[] = [];
    const change = (removed: Row[], added: Row[]) => {
      kept.apply(removed, added);
      rows = rows.filter((r) => !removed.includes(r)).concat(added);
      expect(listing(kept)).toEqual(fromScratch(rows));
    };
    const base = Array.from({ length: 200 }, (_, i) => row(`pkg-${String(i).padStart(3, "0")}`, "1.0"));
    change([], base);
    // One more, sorting first, last and in the middle.
    change([], [row("aaa", "1.0")]);
    change([], [row("zzz", "1.0")]);
    change([], [row("pkg-100", "2.0")]);
    // The same name/version/architecture uploaded again in a newer release: it replaces the old.
    const newer = row("pkg-050", "1.0");
    change([], [newer]);
    expect(kept.index("main", "amd64").filter((p) => p.name === "pkg-050")).toEqual([newer]);
    // ...and yanked again: the older copy comes back.
    change([newer], []);
    expect(kept.index("main", "amd64").find((p) => p.name === "pkg-050")).toBe(base[50]);
    // An older copy added later does not win.
    change([], [row("pkg-060", "1.0", { rank: 1_000_000 })]);
    expect(kept.index("main", "amd64").find((p) => p.name === "pkg-060")).toBe(base[60]);
    // A release re-read: its rows removed and added again as new objects.
    const again = { ...base[10]!, stanza: base[10]!.stanza };
    change([base[10]!], [again]);
    expect(kept.index("main", "amd64").find((p) => p.name === "pkg-010")).toBe(again);
    // Architecture: all goes into every architecture's index.
    const all = row("shared", "1.0", { arch: "all" });
    change([], [all]);
    expect(kept.index("main", "arm64")).toEqual([all]);
    // A new architecture: its index lists the `all` packages too.
    change([], [row("riscy", "1.0", { arch: "riscv64" })]);
    expect(kept.architectures).toEqual(["amd64", "arm64", "riscv64", "all"]);
    expect(kept.index("main", "riscv64").map((p) => p.name)).toEqual(["shared", "riscy"]);
    // Another component, then gone again.
    const contrib = row("extra", "1.0", { component: "contrib" });
    change([], [contrib]);
    expect(kept.components).toEqual(["contrib", "main"]);
    change([contrib], []);
    expect(kept.components).toEqual(["main"]);
    // Removals and additions in one change.
    change(base.slice(0, 5), [row("pkg-001", "1.1"), row("bbb", "0.1")]);
    // Everything removed: one empty index per base architecture.
    change(rows, []);
    expect(listing(kept)).toEqual({ "main/amd64": [], "main/arm64": [], "main/all": [] });
  });

  it("lists packages in upload order: a new one goes last, whatever its name", () => {
    const kept = keptIndexes();
    const base = ["mmm", "ccc", "xxx"].map((name) => row(name, "1.0"));
    kept.apply([], base);
    const first = row("aaa", "1.0");
    kept.apply([], [first]);
    expect(kept.index("main", "amd64").map((p) => p.name)).toEqual(["mmm", "ccc", "xxx", "aaa"]);
    // A newer copy of a listed package replaces it, listed where the newer upload goes.
    const again = row("ccc", "1.0");
    kept.apply([], [again]);
    expect(kept.index("main", "amd64")).toEqual([base[0], base[2], first, again]);
    // Yanked again: the older copy is back in its place.
    kept.apply([again], []);
    expect(kept.index("main", "amd64")).toEqual([...base, first]);
  });

  it("lists one of two versions dpkg calls equal (1.0 and 1.0-0): the one first in set order", () => {
    const kept = keptIndexes();
    const older = row("tool", "1.0-0");
    const newer = row("tool", "1.0");
    kept.apply([], [older]);
    kept.apply([], [newer]);
    expect(kept.index("main", "amd64")).toEqual([newer]);
    expect(listing(kept)).toEqual(fromScratch([older, newer]));
    kept.apply([newer], []);
    expect(kept.index("main", "amd64")).toEqual([older]);
  });

  it("changes an index's version only when its entries change", () => {
    const kept = keptIndexes();
    kept.apply([], [row("one", "1.0"), row("two", "1.0", { arch: "arm64" })]);
    const amd64 = kept.version("main", "amd64");
    const arm64 = kept.version("main", "arm64");
    kept.apply([], [row("three", "1.0")]);
    expect(kept.version("main", "amd64")).not.toBe(amd64);
    expect(kept.version("main", "arm64")).toBe(arm64);
  });

  it("follows a long random series of changes", () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const kept = keptIndexes();
    let rows: Row[] = [];
    for (let step = 0; step < 300; step++) {
      const removed = rows.filter(() => random(40) === 0);
      const added = Array.from({ length: random(4) }, () =>
        row(`p${random(30)}`, ["1.0", "1.00", "1.0-0", "1.1", "2.0"][random(5)]!, {
          arch: ["amd64", "arm64", "all", "i386"][random(4)]!,
          component: random(10) === 0 ? "contrib" : "main",
          rank: random(1000) * 100_000 + serial,
        }),
      );
      const before = listing(kept);
      const versions = Object.fromEntries(
        Object.keys(before).map((key) => [key, kept.version(...(key.split("/") as [string, string]))]),
      );
      kept.apply(removed, added);
      rows = rows.filter((r) => !removed.includes(r)).concat(added);
      const after = listing(kept);
      expect(after).toEqual(fromScratch(rows));
      // changedFrom never claims more of an index unchanged than is.
      for (const [key, ids] of Object.entries(after)) {
        const [component, architecture] = key.split("/") as [string, string];
        const old = before[key];
        const from = kept.changedFrom(component, architecture, versions[key] ?? -1);
        if (!old) {
          expect(from).toBe(0);
          continue;
        }
        let same = 0;
        while (same < old.length && same < ids.length && old[same] === ids[same]) same++;
        if (same === old.length && same === ids.length) continue;
        expect(from).toBeLessThanOrEqual(same);
      }
    }
  });

  it("tells how much of an index is unchanged since a version: all but the end after one more upload", () => {
    const kept = keptIndexes();
    kept.apply(
      [],
      ["c", "a", "b", "f", "e", "d", "h", "g"].map((name) => row(name, "1.0")),
    );
    const version = kept.version("main", "amd64");
    expect(kept.changedFrom("main", "amd64", version)).toBe(Number.POSITIVE_INFINITY);
    kept.apply([], [row("aaa", "1.0")]);
    expect(kept.changedFrom("main", "amd64", version)).toBe(8);
    const middle = kept.index("main", "amd64")[1]!;
    kept.apply([middle], []);
    expect(kept.changedFrom("main", "amd64", version)).toBe(1);
    // An index's versions from long ago are forgotten: everything may have changed.
    for (let i = 0; i < 70; i++) kept.apply([], [row(`n${i}`, "1.0")]);
    expect(kept.changedFrom("main", "amd64", version)).toBe(0);
  });
});
