// The log's destination: lines gathered in memory and written whole, in order, in batches; a
// warning or an error written at once with what waited before it (decision 041).
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BATCH_BYTES, BatchedWriter, createLogger } from "./logger.ts";

let dir: string;
let path: string;
let fd: number;
const written = () => readFileSync(path, "utf8");
const lines = () =>
  written()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { level: string; msg: string; i?: number; time: string });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "packyard-log-"));
  path = join(dir, "log");
  fd = openSync(path, "w");
});
afterEach(() => {
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

describe("the batched log destination", () => {
  it("writes info lines when a batch is full or on flush, whole and in order", () => {
    const writer = new BatchedWriter(fd);
    const log = createLogger("info", writer);
    log.info("request", { i: 0 });
    expect(written()).toBe("");
    // Enough lines to fill more than one batch.
    const n = Math.ceil((3 * BATCH_BYTES) / 80);
    for (let i = 1; i < n; i++) log.info("request", { i });
    const before = lines().length;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(n);
    writer.flush();
    const all = lines();
    expect(all.map((line) => line.i)).toEqual([...Array(n).keys()]);
    expect(all[0]).toMatchObject({ level: "info", msg: "request" });
    expect(all[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("writes a warning or an error at once, after the lines that waited", () => {
    const writer = new BatchedWriter(fd);
    const log = createLogger("info", writer);
    log.info("first");
    log.warn("careful");
    expect(lines().map((line) => [line.level, line.msg])).toEqual([
      ["info", "first"],
      ["warn", "careful"],
    ]);
    log.info("second");
    log.error("failed", new Error("boom"));
    expect(lines().map((line) => line.msg)).toEqual(["first", "careful", "second", "failed"]);
  });
});
