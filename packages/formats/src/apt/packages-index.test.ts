import { describe, expect, it } from "vitest";
import { AptIndexError } from "./apt-index-error.ts";
import {
  comparePackagesIndexEntries,
  type PackagesIndexEntry,
  packagesIndexBlocks,
  renderPackagesIndex,
  renderPackagesIndexBlocks,
  sortPackagesIndexEntries,
  splitPackagesIndex,
} from "./packages-index.ts";

function entry(name: string, version: string, architecture: string): PackagesIndexEntry {
  return {
    name,
    version,
    architecture,
    stanza: `Package: ${name}\nVersion: ${version}\nArchitecture: ${architecture}\n`,
  };
}

describe("renderPackagesIndex", () => {
  it("orders by name, newest version first, then architecture, one blank line apart", () => {
    const index = renderPackagesIndex([
      entry("zlib1g", "1:1.2.13-1", "amd64"),
      entry("hello", "2.10-2", "amd64"),
      entry("hello", "2.10-10", "arm64"),
      entry("hello", "2.10-10", "amd64"),
      entry("hello", "2.10~rc1-1", "amd64"),
      entry("hello-doc", "2.10-10", "all"),
    ]);
    expect(index).toBe(`Package: hello
Version: 2.10-10
Architecture: amd64

Package: hello
Version: 2.10-10
Architecture: arm64

Package: hello
Version: 2.10-2
Architecture: amd64

Package: hello
Version: 2.10~rc1-1
Architecture: amd64

Package: hello-doc
Version: 2.10-10
Architecture: all

Package: zlib1g
Version: 1:1.2.13-1
Architecture: amd64
`);
  });

  it("does not depend on input order", () => {
    const entries = [
      entry("b", "1.0", "amd64"),
      entry("a", "1.0", "amd64"),
      entry("a", "2.0", "amd64"),
      entry("a", "1.0-0.1", "amd64"),
    ];
    expect(renderPackagesIndex(entries)).toBe(renderPackagesIndex([...entries].reverse()));
  });

  it("normalizes stanza endings and renders an empty index as an empty file", () => {
    expect(
      renderPackagesIndex([
        { ...entry("a1", "1", "all"), stanza: "Package: a1\n\n\n" },
        entry("b1", "1", "all"),
      ]),
    ).toBe("Package: a1\n\nPackage: b1\nVersion: 1\nArchitecture: all\n");
    expect(renderPackagesIndex([])).toBe("");
  });

  it("refuses the same package, version and architecture twice (dpkg-equal versions included)", () => {
    expect(() => renderPackagesIndex([entry("a1", "1.0", "amd64"), entry("a1", "1.0-0", "amd64")])).toThrow(
      AptIndexError,
    );
    expect(renderPackagesIndex([entry("a1", "1.0", "amd64"), entry("a1", "1.0", "arm64")])).toContain(
      "arm64",
    );
  });
});

describe("renderPackagesIndexBlocks", () => {
  const entry = (i: number) => ({
    name: `pkg-${String(i).padStart(4, "0")}`,
    version: "1.0",
    architecture: "amd64",
    stanza: `Package: pkg-${String(i).padStart(4, "0")}\nVersion: 1.0\nArchitecture: amd64\n`,
  });
  const entries = Array.from({ length: 500 }, (_, i) => entry(i));

  it("joins to exactly the text renderPackagesIndex makes, in several blocks", () => {
    const blocks = renderPackagesIndexBlocks(entries);
    expect(blocks.length).toBeGreaterThan(3);
    expect(blocks.join("")).toBe(renderPackagesIndex(entries));
    expect(renderPackagesIndexBlocks([])).toEqual([]);
  });

  it("changes one block when one package is added", () => {
    const before = renderPackagesIndexBlocks(entries);
    const after = renderPackagesIndexBlocks([
      ...entries,
      entry(9999),
      { ...entry(250), name: "pkg-0250a", stanza: "Package: pkg-0250a\nVersion: 1.0\nArchitecture: amd64\n" },
    ]);
    const changed = after.filter((block) => !before.includes(block));
    expect(changed.length).toBeLessThanOrEqual(2);
    expect(after.join("")).toContain("Package: pkg-0250a\n");
  });

  it("keys blocks by their entries' ids, so only the changed block's key is new", () => {
    const withIds = entries.map((e) => ({ ...e, id: `file-${e.name}` }));
    const before = packagesIndexBlocks(withIds);
    const after = packagesIndexBlocks([...withIds, { ...entry(9999), id: "file-new" }]);
    const known = new Set(before.map((block) => block.key));
    const fresh = after.filter((block) => !known.has(block.key));
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.text()).toContain("Package: pkg-9999\n");
    expect(after.map((block) => block.text()).join("")).toBe(renderPackagesIndex([...entries, entry(9999)]));
    // Without ids the text is the key.
    expect(packagesIndexBlocks(entries).map((block) => block.key)).toEqual(
      renderPackagesIndexBlocks(entries),
    );
  });

  it("re-splits from the first changed position, keeping the blocks before it and reusing those after", () => {
    const withIds = entries.map((e) => ({ ...e, id: `file-${e.name}` }));
    const full = (list: readonly PackagesIndexEntry[]) => splitPackagesIndex(list, 32);
    const first = full(withIds);
    // One more at the end, as an upload in list order lands: every block but the last is kept.
    const added = [...withIds, { ...entry(9999), id: "file-new" }];
    const second = splitPackagesIndex(added, 32, { split: first, changedFrom: withIds.length });
    expect(second.blocks.slice(0, -1)).toEqual(first.blocks.slice(0, -1));
    expect(second.blocks.filter((block) => first.blocks.includes(block))).toHaveLength(
      first.blocks.length - 1,
    );
    expect(second.blocks.map((block) => block.key)).toEqual(full(added).blocks.map((block) => block.key));
    expect(second.starts).toEqual(full(added).starts);
    // Nothing changed: the same split.
    expect(splitPackagesIndex(added, 32, { split: second, changedFrom: Number.POSITIVE_INFINITY })).toBe(
      second,
    );
    // The first block removed: the block now first is split anew (it has no separator now).
    const firstLength = second.blocks[0]!.entries.length;
    const third = splitPackagesIndex(added.slice(firstLength), 32, { split: second, changedFrom: 0 });
    expect(third.blocks[0]).not.toBe(second.blocks[1]);
    expect(third.blocks[0]!.text().startsWith("Package:")).toBe(true);
    expect(third.blocks[1]).toBe(second.blocks[2]);
    expect(third.blocks.map((block) => block.text()).join("")).toBe(
      full(added.slice(firstLength))
        .blocks.map((block) => block.text())
        .join(""),
    );
  });

  it("re-splits to what a split from scratch makes, through a long random series of changes", () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let serial = 0;
    const fresh = (): PackagesIndexEntry => {
      serial++;
      const name = `p${random(400)}`;
      // Now and then a version dpkg calls equal to a neighbour's: de-duplicated on either side.
      const version = ["1.0", "1.0-0", "2.0"][random(3)]!;
      return {
        id: `f${serial}`,
        name,
        version,
        architecture: "amd64",
        stanza: `Package: ${name}\nX: ${serial}\n`,
      };
    };
    let list: PackagesIndexEntry[] = Array.from({ length: 300 }, fresh);
    let split = splitPackagesIndex(list, 8);
    for (let step = 0; step < 300; step++) {
      let changedFrom = Number.POSITIVE_INFINITY;
      for (let edits = random(4); edits > 0; edits--) {
        const at = random(4) === 0 ? random(list.length + 1) : list.length - random(3);
        const position = Math.max(0, Math.min(at, list.length));
        if (random(3) === 0 && position < list.length) list.splice(position, 1);
        else list.splice(position, 0, fresh());
        changedFrom = Math.min(changedFrom, position);
      }
      list = [...list];
      split = splitPackagesIndex(list, 8, { split, changedFrom });
      const scratch = splitPackagesIndex(list, 8);
      expect(split.starts).toEqual(scratch.starts);
      expect(split.blocks.map((block) => block.key)).toEqual(scratch.blocks.map((block) => block.key));
      expect(split.blocks.map((block) => block.text()).join("")).toBe(
        scratch.blocks.map((block) => block.text()).join(""),
      );
    }
  });

  it("keeps one of two entries dpkg considers the same version instead of failing", () => {
    const twins = [
      entry(1),
      { ...entry(1), version: "1.0-0", stanza: "Package: pkg-0001\nVersion: 1.0-0\nArchitecture: amd64\n" },
    ];
    expect(
      renderPackagesIndexBlocks(twins)
        .join("")
        .match(/Package:/g),
    ).toHaveLength(1);
  });
});

describe("sortPackagesIndexEntries", () => {
  const full = (entries: readonly PackagesIndexEntry[]) => [...entries].sort(comparePackagesIndexEntries);

  it("sorts from the previous order what was added, without what was removed, as a full sort would", () => {
    const base = Array.from({ length: 40 }, (_, i) =>
      entry(`pkg-${String((i * 7) % 40).padStart(2, "0")}`, `1.${i % 3}-1`, i % 5 ? "amd64" : "all"),
    );
    let order = sortPackagesIndexEntries(base);
    expect(order.sorted).toEqual(full(base));
    const steps: PackagesIndexEntry[][] = [
      [entry("aaa", "1", "amd64"), ...base],
      [...base, entry("zzz", "1", "amd64")],
      [entry("pkg-10", "1.0~rc1-1", "amd64"), entry("pkg-10", "2.0-1", "amd64"), ...base.slice(5)],
      base.slice(10),
      base.slice(10),
    ];
    for (const entries of steps) {
      const next = sortPackagesIndexEntries(entries, order);
      expect(next.sorted).toEqual(full(entries));
      // The same objects, so the next build can start from this one.
      expect(next.sorted.every((e) => next.members.has(e))).toBe(true);
      order = next;
    }
  });
});
