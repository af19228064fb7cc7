// docs/benchmarks.md is the reference of each benchmark's newest figures, not a record of every
// run (issue 39): it stays short, the links into it name headings it has, and the raw runs the
// benches write to bench/<name>/results/ stay out of git (history is `git log -p`).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const doc = readFileSync(join(root, "docs/benchmarks.md"), "utf8");

/** GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, "")
    .replaceAll(" ", "-");

/** Every Markdown file under `dir`, skipping dependencies and build output. */
function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ["node_modules", "build", "results"].includes(entry.name) ? [] : markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

describe("docs/benchmarks.md", () => {
  it("is a reference of at most 300 lines", () => {
    expect(doc.trimEnd().split("\n").length).toBeLessThanOrEqual(300);
  });

  it("has every heading that a link into it names, from the docs, the README and the benches", () => {
    const headings = new Set(
      doc
        .split("\n")
        .filter((line) => /^#{1,6} /.test(line))
        .map((line) => anchor(line.replace(/^#+ /, ""))),
    );
    const sources = [
      ...markdownFiles(join(root, "docs")),
      ...markdownFiles(join(root, "bench")),
      join(root, "README.md"),
    ];
    const links = sources.flatMap((file) => {
      const text = readFileSync(file, "utf8");
      const own = file.endsWith(join("docs", "benchmarks.md"));
      const pattern = own ? /\]\(#([^)\s]+)\)/g : /benchmarks\.md#([^)\s]+)/g;
      return [...text.matchAll(pattern)].map((m) => `${relative(root, file)} → #${m[1]}`);
    });
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((link) => !headings.has(link.split("#").at(-1)!))).toEqual([]);
  });
});

describe("raw benchmark runs", () => {
  it("are not tracked by git, and git ignores the folder the benches write them to", () => {
    const git = (...args: string[]) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8" });
    expect(git("ls-files", "--", "bench/*/results/*")).toBe("");
    expect(git("check-ignore", "bench/apt/results/latest.json").trim()).toBe("bench/apt/results/latest.json");
  });
});
