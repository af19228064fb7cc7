// The fast path (fast-dl.ts) answers as the app does: after a first request fills the serving
// cache, a release file's Range, If-None-Match, HEAD and counting, a missing file and an
// escaped URL (both left to the app) — each answer marked by the fast path's own CSP. Small
// files are answered from memory after their first fast answer, larger ones streamed from disk.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { flushDownloadCounts } from "../billing/usage.ts";
import { HOT_FILE_BYTES } from "./serve-cache.ts";

const FAST_CSP = "default-src 'none'; frame-ancestors 'none'";
let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
const path = "/dl/quick/tools/releases/1.0.0/tool.txt";

beforeAll(async () => {
  server = await startLiveServer();
  pub = await publisher(server, "quick");
  const created = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "tools", name: "tools", visibility: "public" }),
  });
  expect(created.status).toBe(201);
  const put = await pub.api("/api/v1/projects/tools/releases/1.0.0/files/tool.txt", {
    method: "PUT",
    body: "0123456789",
  });
  expect(put.status).toBe(201);
  // The first request goes through the app and fills the cache.
  const first = await fetch(`${server.url}${path}`);
  expect(first.headers.get("content-security-policy")).not.toBe(FAST_CSP);
  await first.arrayBuffer();
  // Counted when the server's response is over, which may come just after the client's last byte.
  await settled(1);
  // On PostgreSQL the upload's notifications come back to this server too and drop its cache;
  // one may arrive after the first request filled it. A HEAD (never counted) then refills it:
  // the tests start once the fast path answers.
  for (let i = 0; i < 100; i++) {
    const head = await fetch(`${server.url}${path}`, { method: "HEAD" });
    if (head.headers.get("content-security-policy") === FAST_CSP) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});
afterAll(async () => {
  await server?.close();
});

async function downloads(): Promise<number> {
  await flushDownloadCounts(server.services.database.db);
  const res = await pub.api("/api/v1/projects/tools/stats");
  return ((await res.json()) as { stats: { total: { downloads: number } } }).stats.total.downloads;
}

/** The downloads once they reach `count`: a response is counted when it is over on the server. */
async function settled(count: number) {
  for (let i = 0; i < 200 && (await downloads()) !== count; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(await downloads()).toBe(count);
}

describe(`the /dl fast path (${databaseKind})`, () => {
  it("serves the file whole with the app's headers, and counts it", async () => {
    const before = await downloads();
    const res = await fetch(`${server.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(FAST_CSP);
    expect(await res.text()).toBe("0123456789");
    expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''tool.txt");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    await settled(before + 1);
  });

  it("answers a range with 206, and counts a download only when it reaches the last byte", async () => {
    const before = await downloads();
    const middle = await fetch(`${server.url}${path}`, { headers: { range: "bytes=2-5" } });
    expect(middle.status).toBe(206);
    expect(middle.headers.get("content-security-policy")).toBe(FAST_CSP);
    expect(middle.headers.get("content-range")).toBe("bytes 2-5/10");
    expect(await middle.text()).toBe("2345");
    expect(await downloads()).toBe(before);
    const tail = await fetch(`${server.url}${path}`, { headers: { range: "bytes=-3" } });
    expect(await tail.text()).toBe("789");
    await settled(before + 1);
    // Unsatisfiable: the app's 416 error answer.
    const beyond = await fetch(`${server.url}${path}`, { headers: { range: "bytes=20-" } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe("bytes */10");
  });

  it("answers If-None-Match with 304 and HEAD without a body, counting neither", async () => {
    const before = await downloads();
    const etag = (await fetch(`${server.url}${path}`, { method: "HEAD" })).headers.get("etag")!;
    const head = await fetch(`${server.url}${path}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("10");
    expect(head.headers.get("content-security-policy")).toBe(FAST_CSP);
    const notModified = await fetch(`${server.url}${path}`, { headers: { "if-none-match": etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("content-security-policy")).toBe(FAST_CSP);
    expect(await downloads()).toBe(before);
  });

  it("streams a file too large to keep in memory from the disk, whole or a range", async () => {
    const big = Buffer.alloc(HOT_FILE_BYTES + 4096);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32BE(i, i);
    const put = await pub.api("/api/v1/projects/tools/releases/1.0.0/files/big.bin", {
      method: "PUT",
      body: big,
    });
    expect(put.status).toBe(201);
    const bigPath = "/dl/quick/tools/releases/1.0.0/big.bin";
    const warm = (await downloads()) + 1;
    await (await fetch(`${server.url}${bigPath}`)).arrayBuffer();
    await settled(warm);
    const before = warm;
    for (let i = 0; i < 2; i++) {
      const whole = await fetch(`${server.url}${bigPath}`);
      expect(whole.headers.get("content-security-policy")).toBe(FAST_CSP);
      expect(Buffer.from(await whole.arrayBuffer()).equals(big)).toBe(true);
    }
    const tail = await fetch(`${server.url}${bigPath}`, { headers: { range: `bytes=${HOT_FILE_BYTES}-` } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(big.subarray(HOT_FILE_BYTES))).toBe(true);
    await settled(before + 3);
  });

  it("leaves a missing file and an escaped URL to the app", async () => {
    const missing = await fetch(`${server.url}/dl/quick/tools/releases/1.0.0/nothing.txt`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-security-policy")).not.toBe(FAST_CSP);
    const escaped = await fetch(`${server.url}/dl/quick/tools/releases/1.0.0/tool%2Etxt`);
    expect(escaped.status).toBe(200);
    expect(await escaped.text()).toBe("0123456789");
  });
});
