// The home page's speed figures are the newest ones docs/benchmarks.md reports, so a new run
// written into the docs cannot leave the home page behind.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { aptSpeed, yumSpeed } from "./speed-figures.ts";

const docs = readFileSync(resolve(import.meta.dirname, "../../../../../docs/benchmarks.md"), "utf8");
const lines = docs.split("\n");
const number = (text: string) => Number(text.replace(/,/g, ""));

/** The only line starting with `prefix`. */
function line(prefix: string): string {
  const found = lines.filter((l) => l.startsWith(prefix));
  expect(found, `one line of docs/benchmarks.md starting with ${prefix}`).toHaveLength(1);
  return found[0]!;
}

/** The text from the last `###` heading before `row` down to it: the run the row belongs to. */
function sectionOf(row: string): string {
  const at = lines.indexOf(row);
  let start = at;
  while (start > 0 && !lines[start]!.startsWith("### ")) start--;
  return lines.slice(start, at + 1).join("\n");
}

describe("the home page's speed figures", () => {
  it("APT: the newest (b) at 10,000 against reprepro, as issue 16's table states it", () => {
    const target = line("| 6. APT (b) ≥ 5 × faster than reprepro |");
    const [, ours, peer] = target.match(/([\d.,]+) vs ([\d.,]+) ms at 10,000/) ?? [];
    const [packyard, reprepro] = aptSpeed.rows;
    expect(packyard!.ms).toBe(number(ours!));
    expect(reprepro!.ms).toBe(number(peer!));
    // The run's own table gives the ranges, and its section the commit and sample count.
    const row = line(`| (b) one more \`.deb\` → new \`InRelease\` served | 10,000 | **${packyard!.ms}** (`);
    expect(row).toContain(`**${packyard!.ms}** (${packyard!.range})`);
    expect(row).toContain(`reprepro \`includedeb\` ${reprepro!.ms} (${reprepro!.range})`);
    const section = sectionOf(row);
    expect(section).toContain(`Commit \`${aptSpeed.commit}\``);
    expect(section).toContain(`${aptSpeed.samples} interleaved samples per cell`);
    expect(aptSpeed.rows).toHaveLength(2);
  });

  it("YUM: (b) at 10,000 against createrepo_c, as the YUM section's table states it", () => {
    const [packyard, update, rpmsign] = yumSpeed.rows;
    const ours = line("| **Packyard** | HTTP PUT of the unsigned `.rpm` starts");
    expect(ours.endsWith(`| **${packyard!.ms}** (${packyard!.range}) |`)).toBe(true);
    expect(
      line("| createrepo_c | `cp` + `createrepo_c --update` + `gpg").endsWith(
        `| ${update!.ms} (${update!.range}) |`,
      ),
    ).toBe(true);
    expect(
      line("| createrepo_c | the same + `rpmsign --addsign`").endsWith(
        `| ${rpmsign!.ms} (${rpmsign!.range}) |`,
      ),
    ).toBe(true);
    expect(docs).toContain(`at the **same commit, \`${yumSpeed.commit}\`**`);
    expect(docs).toContain(`bench/yum/run-at-commit.sh ${yumSpeed.commit} `);
  });
});
