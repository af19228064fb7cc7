// Request ids (a proxy's id only when trusted and well-formed, otherwise a new random UUID) and
// the request's log line, as pino writes it.
import { describe, expect, it } from "vitest";
import { createLogger, type LogLevel } from "../observability/logger.ts";
import { type RequestRecord, recordRequest, requestIdOf } from "./request-log.ts";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request ids", () => {
  it("are version 4 UUIDs, all different", () => {
    const ids = Array.from({ length: 2000 }, () => requestIdOf(undefined, false));
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("take the proxy's id only when the proxy is trusted and the id looks like one", () => {
    expect(requestIdOf("edge-7f3a.1", true)).toBe("edge-7f3a.1");
    expect(requestIdOf("edge-7f3a.1", false)).toMatch(UUID_V4);
    expect(requestIdOf('bad "id"\n', true)).toMatch(UUID_V4);
    expect(requestIdOf("x".repeat(129), true)).toMatch(UUID_V4);
    expect(requestIdOf(undefined, true)).toMatch(UUID_V4);
  });
});

describe("the request line", () => {
  /** The lines recordRequest writes through a logger at `level`, parsed. */
  function logged(level: LogLevel, record: Partial<RequestRecord>) {
    const written: string[] = [];
    const logger = createLogger(level, { write: (line: string) => written.push(line) });
    recordRequest(
      { logger: () => logger, metrics: () => undefined },
      {
        started: performance.now(),
        reqId: "2f1b6c1e-8d1a-4a57-9d0e-3f6f2d9b7c10",
        method: "GET",
        route: "/dl/:username/:slug/deb/*",
        path: '/dl/alice/"odd"\\name/\u2028é\u0001',
        status: 200,
        client: "203.0.113.7",
        bytes: 3364,
        complete: true,
        ...record,
      },
    );
    for (const line of written) expect(line.endsWith("\n")).toBe(true);
    return written.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it("is one JSON object with the documented fields, in order; only /dl lines have a path", () => {
    const [dl] = logged("info", {});
    expect(Object.keys(dl!)).toEqual([
      "level",
      "time",
      "pid",
      "hostname",
      "reqId",
      "method",
      "route",
      "path",
      "status",
      "durationMs",
      "bytes",
      "client",
      "msg",
    ]);
    expect(dl).toMatchObject({
      level: "info",
      pid: process.pid,
      reqId: "2f1b6c1e-8d1a-4a57-9d0e-3f6f2d9b7c10",
      method: "GET",
      route: "/dl/:username/:slug/deb/*",
      path: '/dl/alice/"odd"\\name/\u2028é\u0001',
      status: 200,
      bytes: 3364,
      client: "203.0.113.7",
      msg: "request",
    });
    expect(dl!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(typeof dl!.durationMs).toBe("number");

    const [api] = logged("info", { route: "/api/v1/projects", path: "/api/v1/projects", complete: false });
    expect(api).not.toHaveProperty("path");
    expect(api).toMatchObject({ route: "/api/v1/projects", aborted: true, msg: "request" });
  });

  it("is debug on the routes machines poll, and honours the logger's level", () => {
    expect(logged("info", { route: "/readyz" })).toEqual([]);
    expect(logged("debug", { route: "/readyz" })).toMatchObject([{ level: "debug", route: "/readyz" }]);
    expect(logged("warn", {})).toEqual([]);
  });
});
