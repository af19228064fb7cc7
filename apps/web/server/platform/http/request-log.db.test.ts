// Structured request logs (pino): one JSON line per request, written when its response is over,
// with the matched route pattern (never a page's raw path), status, duration, body bytes, the
// request id (echoed in X-Request-Id, carried by every line logged meanwhile) and the client
// address. Requests go through a real port, as in production; one download also in memory.
// SQLite, and PostgreSQL when configured.
import { request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type LogLine,
  type ObservedServer,
  publishingUser,
  startObservedServer,
} from "../../../test/observed-server.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FILE_BYTES = 1024 * 1024 + 17;
const DL_ROUTE = "/dl/:username/:slug/releases/:version/:filename";

let server: ObservedServer;
let api: Awaited<ReturnType<typeof publishingUser>>["api"];
const file = new Uint8Array(FILE_BYTES).map((_, i) => (i * 7) % 251);

beforeAll(async () => {
  server = await startObservedServer();
  ({ api } = await publishingUser(server, "alice", "widget"));
  const put = await api("/api/v1/projects/widget/releases/1.0.0/files/widget.bin", {
    method: "PUT",
    body: file,
  });
  expect(put.status).toBe(201);
});

afterAll(async () => {
  await server?.close();
});

/** The request line of the response `res` (found by its X-Request-Id). */
function lineOf(res: Response): Promise<LogLine> {
  const id = res.headers.get("x-request-id");
  expect(id).toBeTruthy();
  return server.waitForRequestLine((l) => l.reqId === id);
}

describe("request log lines", () => {
  it("a page: its route pattern, not its path; status, duration, bytes, request id, client", async () => {
    const res = await fetch(`${server.url}/releases/alice/widget/1.0.0`, {
      headers: { "accept-encoding": "identity" },
    });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    const line = await lineOf(res);
    expect(line).toMatchObject({
      level: "info",
      msg: "request",
      method: "GET",
      route: "/releases/:username/:projectSlug/:releaseVersion",
      status: 200,
      bytes: body.byteLength,
      client: "127.0.0.1",
    });
    expect(line.reqId).toMatch(UUID);
    expect(typeof line.durationMs).toBe("number");
    expect(line.durationMs as number).toBeGreaterThan(0);
    expect(new Date(line.time as string).toISOString()).toBe(line.time);
    // No raw path or username of the page in the line.
    expect(line).not.toHaveProperty("path");
    expect(JSON.stringify(line)).not.toContain("alice");
    expect(line).not.toHaveProperty("aborted");
  });

  it("a compressed page counts the bytes sent, not the page's size", async () => {
    const res = await rawGet("/pricing", { "accept-encoding": "gzip" });
    expect(res.headers["content-encoding"]).toBe("gzip");
    const line = await server.waitForRequestLine((l) => l.reqId === res.headers["x-request-id"]);
    expect(line).toMatchObject({ route: "/pricing", status: 200, bytes: res.body.byteLength });
  });

  it("JSON from the API is compressed for a client that accepts it; a download never is", async () => {
    const api = await rawGet("/api/openapi.json", { "accept-encoding": "gzip" });
    expect(api.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(api.body).toString()).openapi).toMatch(/^3\./);
    for (let i = 0; i < 2; i++) {
      // The second is answered by the fast path (downloads/fast-dl.ts).
      const file = await rawGet("/dl/alice/widget/releases/1.0.0/widget.bin", { "accept-encoding": "gzip" });
      expect(file.headers["content-encoding"]).toBeUndefined();
      expect(file.body.byteLength).toBe(Number(file.headers["content-length"]));
    }
  });

  it("an API error: the API route's pattern and the error's status", async () => {
    const res = await fetch(`${server.url}/api/p/alice/missing`);
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: "NOT_FOUND" } });
    const line = await lineOf(res);
    expect(line).toMatchObject({
      method: "GET",
      route: "/api/p/:username/:slug",
      status: 404,
      bytes: Buffer.byteLength(text),
    });
    expect(line).not.toHaveProperty("path");
  });

  it("an API write a guard refuses: the pattern of the route it was for", async () => {
    const res = await fetch(`${server.url}/api/v1/projects/widget/releases/2.0.0/files/x.bin`, {
      method: "PUT",
      headers: { origin: "https://elsewhere.example", cookie: "x=1" },
      body: "x",
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: "INVALID_ORIGIN" } });
    const line = await lineOf(res);
    expect(line).toMatchObject({
      method: "PUT",
      route: "/api/v1/projects/:slug/releases/:version/files/:filename",
      status: 403,
    });
  });

  it("an unauthenticated API write: 401", async () => {
    const res = await fetch(`${server.url}/api/v1/projects/widget/releases/2.0.0/files/x.bin`, {
      method: "PUT",
      headers: { origin: "http://127.0.0.1:3000" },
      body: "x",
    });
    await res.arrayBuffer();
    expect(res.status).toBe(401);
    const line = await lineOf(res);
    expect(line).toMatchObject({
      route: "/api/v1/projects/:slug/releases/:version/files/:filename",
      status: 401,
    });
  });

  it("a download: logged once delivered, with the route pattern, the path and every byte", async () => {
    const res = await fetch(`${server.url}/dl/alice/widget/releases/1.0.0/widget.bin`);
    expect(res.status).toBe(200);
    const body = new Uint8Array(await res.arrayBuffer());
    expect(body.byteLength).toBe(FILE_BYTES);
    const line = await lineOf(res);
    expect(line).toMatchObject({
      method: "GET",
      route: DL_ROUTE,
      path: "/dl/alice/widget/releases/1.0.0/widget.bin",
      status: 200,
      bytes: FILE_BYTES,
    });
    expect(line).not.toHaveProperty("aborted");
  });

  it("a download the client abandons: aborted, with the bytes handed over so far", async () => {
    const id = "abandoned-download-1";
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        `${server.url}/dl/alice/widget/releases/1.0.0/widget.bin`,
        { headers: { "x-request-id": id } },
        (res) => {
          res.once("data", () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on("error", () => {});
      req.once("error", reject);
      req.end();
    });
    // TRUST_PROXY is off: the client's X-Request-Id is not taken.
    const line = await server.waitForRequestLine((l) => l.route === DL_ROUTE && l.aborted === true);
    expect(line.reqId).not.toBe(id);
    expect(line.bytes as number).toBeGreaterThan(0);
    expect(line.bytes as number).toBeLessThan(FILE_BYTES);
  });

  it("a HEAD request sends no body bytes", async () => {
    const res = await fetch(`${server.url}/dl/alice/widget/releases/1.0.0/widget.bin`, { method: "HEAD" });
    expect(res.status).toBe(200);
    const line = await lineOf(res);
    expect(line).toMatchObject({ method: "HEAD", route: DL_ROUTE, status: 200, bytes: 0 });
  });

  it("a download called in memory (no connection) is logged when its body has been read", async () => {
    const before = server.requestLines().length;
    const res = await server.request("/dl/alice/widget/releases/1.0.0/widget.bin");
    expect(res.status).toBe(200);
    expect(server.requestLines()).toHaveLength(before);
    expect((await res.arrayBuffer()).byteLength).toBe(FILE_BYTES);
    const line = await lineOf(res);
    expect(line).toMatchObject({ route: DL_ROUTE, status: 200, bytes: FILE_BYTES });
  });

  it("static files and the not-found page have bounded route names", async () => {
    const robots = await fetch(`${server.url}/favicon.ico`);
    await robots.arrayBuffer();
    expect((await lineOf(robots)).route).toBe("static");
    const missing = await fetch(`${server.url}/no/such/page/for-anyone`);
    await missing.arrayBuffer();
    expect(missing.status).toBe(404);
    expect((await lineOf(missing)).route).toBe("/*");
    const data = await fetch(`${server.url}/releases/alice/widget/1.0.0.data`);
    await data.arrayBuffer();
    expect((await lineOf(data)).route).toBe("/releases/:username/:projectSlug/:releaseVersion");
  });

  it("/ok is logged at debug level only", async () => {
    const before = server.lines.length;
    const res = await fetch(`${server.url}/ok`);
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 50));
    expect(server.lines.slice(before).filter((l) => l.msg === "request")).toEqual([]);
  });
});

describe("request ids", () => {
  it("a new id per request, echoed in X-Request-Id; the client's own id is not taken without TRUST_PROXY", async () => {
    const a = await fetch(`${server.url}/api/p/alice/widget`, {
      headers: { "x-request-id": "from-the-client" },
    });
    const b = await fetch(`${server.url}/api/p/alice/widget`);
    await a.arrayBuffer();
    await b.arrayBuffer();
    const idA = a.headers.get("x-request-id");
    const idB = b.headers.get("x-request-id");
    expect(idA).toMatch(UUID);
    expect(idB).toMatch(UUID);
    expect(idA).not.toBe(idB);
    expect((await lineOf(a)).reqId).toBe(idA);
  });

  it("every line logged while a request is handled carries its id", async () => {
    const { db } = server.services.database;
    await sql`ALTER TABLE project RENAME TO project_unavailable`.execute(db);
    let res: Response;
    try {
      // A project nobody asked for yet: the serving cache cannot answer it, the database must.
      res = await fetch(`${server.url}/api/p/alice/not-asked-for-yet`);
      await res.arrayBuffer();
    } finally {
      await sql`ALTER TABLE project_unavailable RENAME TO project`.execute(db);
    }
    expect(res.status).toBe(500);
    const id = res.headers.get("x-request-id");
    const failure = server.lines.find((l) => l.level === "error" && l.reqId === id);
    expect(failure).toBeDefined();
    expect(failure?.err).toMatchObject({
      type: expect.any(String),
      stack: expect.stringContaining("project"),
    });
    expect((await lineOf(res)).status).toBe(500);
  });
});

describe("behind a trusted proxy (TRUST_PROXY=true)", () => {
  let proxied: ObservedServer;
  beforeAll(async () => {
    proxied = await startObservedServer({ TRUST_PROXY: "true" });
  });
  afterAll(async () => {
    await proxied?.close();
  });

  it("takes the proxy's X-Request-Id and the client the proxy saw (X-Forwarded-For's last address), and echoes the id", async () => {
    const res = await fetch(`${proxied.url}/api/p/nobody/nothing`, {
      headers: { "x-request-id": "lb-7f3a9c", "x-forwarded-for": "203.0.113.7, 10.0.0.2" },
    });
    await res.arrayBuffer();
    expect(res.headers.get("x-request-id")).toBe("lb-7f3a9c");
    const line = await proxied.waitForRequestLine((l) => l.reqId === "lb-7f3a9c");
    // 203.0.113.7 came from the client itself (spoofable); the proxy appended 10.0.0.2.
    expect(line).toMatchObject({ client: "10.0.0.2", status: 404, route: "/api/p/:username/:slug" });
  });

  it("replaces an id that does not look like one", async () => {
    const res = await fetch(`${proxied.url}/ok`, {
      headers: { "x-request-id": `bad id ${"x".repeat(300)}` },
    });
    await res.arrayBuffer();
    expect(res.headers.get("x-request-id")).toMatch(UUID);
  });
});

/** A GET whose body is read raw (not decompressed), as it went over the wire. */
function rawGet(
  path: string,
  headers: Record<string, string>,
): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}
