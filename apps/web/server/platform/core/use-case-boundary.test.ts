// Issue 39 item 1: no audit entry and no domain event is written outside the use-case core.
// Adapters (REST handlers, React Router actions, the CLI, jobs) call use cases; a use case
// records entries and events through change() (use-case.ts), which alone writes and emits them.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const web = join(import.meta.dirname, "../../..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const files = [...sources(join(web, "server")), ...sources(join(web, "app"))].map((path) => ({
  name: relative(web, path),
  text: readFileSync(path, "utf8"),
}));

/** What writes an entry or an event, and the only files allowed to use it. */
const RULES: { what: string; pattern: RegExp; allowed: string[] }[] = [
  {
    what: "recordAudit",
    pattern: /\brecordAudit\s*\(/,
    allowed: ["server/platform/core/use-case.ts", "server/audit/record.ts"],
  },
  {
    what: "an insert into audit_event",
    pattern: /insertInto\(\s*["']audit_event["']/,
    allowed: ["server/audit/record.ts"],
  },
  {
    what: "emitDomainEvent / emitActivity / emitProjectEvent",
    pattern: /\bemit(DomainEvent|Activity|ProjectEvent)\s*\(/,
    allowed: ["server/platform/core/use-case.ts", "server/platform/core/changes.ts"],
  },
];

describe("the use-case boundary", () => {
  it("finds the sources it checks", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((file) => file.name === "server/platform/core/use-case.ts")).toBe(true);
  });

  for (const rule of RULES) {
    it(`only ${rule.allowed.join(", ")} use ${rule.what}`, () => {
      const offenders = files
        .filter((file) => rule.pattern.test(file.text) && !rule.allowed.includes(file.name))
        .map((file) => file.name);
      expect(offenders).toEqual([]);
    });
  }
});
