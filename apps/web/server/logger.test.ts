// The log's destination: lines gathered in memory and written whole, in order, in batches; a
// warning or an error written at once with what waited before it (decision 041).
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BATCH_BYTES, BatchedWriter, createLogger, withLogContext } from "./logger.ts";

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

describe("the request line", () => {
  /** What a logger writes, line by line, as the strings written. */
  function capture(level: "info" | "debug") {
    const written: string[] = [];
    const log = createLogger(level, { write: (line: string) => written.push(line) } as never);
    return { log, written };
  }
  const line = {
    reqId: "2f1b6c1e-8d1a-4a57-9d0e-3f6f2d9b7c10",
    method: "GET",
    route: "/dl/:username/:slug/deb/*",
    path: '/dl/alice/"odd"\\name/\u2028é\u0001',
    status: 200,
    durationMs: 0.4,
    bytes: 3364,
    client: "203.0.113.7",
  };

  it("is the line pino writes for the same fields, key for key and in the same order", () => {
    const made = capture("info");
    made.log.request?.(line, false);
    made.log.request?.({ ...line, path: undefined, reqId: 'proxy "id"', aborted: true }, false);
    const general = capture("info");
    general.log.info("request", { ...line });
    general.log.info("request", { ...line, path: undefined, reqId: 'proxy "id"', aborted: true });
    expect(made.written).toHaveLength(2);
    const withoutTime = (text: string) => {
      const { time, ...rest } = JSON.parse(text) as Record<string, unknown>;
      expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      return rest;
    };
    for (let i = 0; i < 2; i++) {
      const mine = withoutTime(made.written[i]!);
      const pinos = withoutTime(general.written[i]!);
      expect(mine).toEqual(pinos);
      expect(Object.keys(mine)).toEqual(Object.keys(pinos));
      expect(made.written[i]!.endsWith("\n")).toBe(true);
    }
    expect(withoutTime(made.written[0]!)).toMatchObject({ level: "info", path: line.path, msg: "request" });
  });

  it("is debug on a quiet route, and carries the fields of a log context", () => {
    const info = capture("info");
    info.log.request?.(line, true);
    expect(info.written).toEqual([]);
    const debug = capture("debug");
    debug.log.request?.(line, true);
    expect(JSON.parse(debug.written[0]!)).toMatchObject({ level: "debug", reqId: line.reqId });
    withLogContext({ job: "publish" }, () => debug.log.request?.(line, false));
    expect(JSON.parse(debug.written[1]!)).toMatchObject({ level: "info", job: "publish", reqId: line.reqId });
  });
});
