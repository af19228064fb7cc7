// Prometheus metrics at /metrics: request counts and latency by route and status, download bytes
// after a real download, upload bytes and publish duration after a real upload, the publish
// queue, the default process metrics; METRICS_TOKEN when set, loopback only when not. Through a
// real port (the client address is the connection's). SQLite, and PostgreSQL when configured.
import { mkdtempSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ObservedServer, publishingUser, startObservedServer } from "../../../test/observed-server.ts";
import { ConfigError, loadConfig } from "../config/config.ts";

/** The value of one sample (`name{labels} value`), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = line.match(/^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? "").split(/,(?=[a-zA-Z_]\w*=")/).filter(Boolean);
    if (wanted.every((w) => have.includes(w))) return Number(match[3]);
  }
  return 0;
}

async function scrape(server: ObservedServer, init: RequestInit = {}): Promise<string> {
  const res = await fetch(`${server.url}/metrics`, init);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** Scrapes until `check` holds (a request's metrics are recorded once its response is over). */
async function scrapeUntil(server: ObservedServer, check: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const text = await scrape(server);
    if (check(text) || Date.now() > deadline) return text;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("/metrics", () => {
  let server: ObservedServer;
  let api: Awaited<ReturnType<typeof publishingUser>>["api"];

  beforeAll(async () => {
    server = await startObservedServer();
    ({ api } = await publishingUser(server, "metra", "gauges"));
  });
  afterAll(async () => {
    await server?.close();
  });

  it("counts requests by method, route pattern and status, with a latency histogram", async () => {
    for (let i = 0; i < 3; i++) await (await fetch(`${server.url}/pricing`)).arrayBuffer();
    await (await fetch(`${server.url}/api/p/metra/missing`)).arrayBuffer();
    const text = await scrapeUntil(
      server,
      (t) =>
        sample(t, "packyard_http_requests_total", { route: "/api/p/:username/:slug", status: "404" }) === 1,
    );
    expect(text).toContain("# TYPE packyard_http_requests_total counter");
    expect(text).toContain("# TYPE packyard_http_request_duration_seconds histogram");
    const pricing = { method: "GET", route: "/pricing", status: "200" };
    expect(sample(text, "packyard_http_requests_total", pricing)).toBe(3);
    expect(sample(text, "packyard_http_request_duration_seconds_count", pricing)).toBe(3);
    expect(sample(text, "packyard_http_request_duration_seconds_sum", pricing)).toBeGreaterThan(0);
    expect(sample(text, "packyard_http_request_duration_seconds_bucket", { ...pricing, le: "+Inf" })).toBe(3);
    expect(
      sample(text, "packyard_http_requests_total", { route: "/api/p/:username/:slug", status: "404" }),
    ).toBe(1);
    // Raw paths never become labels.
    expect(text).not.toContain("metra");
  });

  it("exposes the default process metrics and the publish queue", async () => {
    const text = await scrape(server);
    expect(text).toContain("# TYPE process_cpu_user_seconds_total counter");
    expect(text).toContain("process_resident_memory_bytes");
    expect(text).toContain("nodejs_eventloop_lag_seconds");
    expect(text).toContain("nodejs_heap_size_used_bytes");
    expect(text).toMatch(/^packyard_publish_queue\{state="running"\} 0$/m);
    expect(text).toMatch(/^packyard_publish_queue\{state="waiting"\} 0$/m);
  });

  it("upload bytes and the publish duration after a real .deb upload; download bytes after a real download", async () => {
    const before = await scrape(server);
    const deb = buildTestDeb({
      control: `Package: gauge\nVersion: 1.0.0\nArchitecture: amd64\nMaintainer: Tests <t@example.com>\nDescription: a gauge\n it measures.\n`,
      dataFiles: [{ name: "./usr/bin/gauge", data: `#!/bin/sh\necho ${"0123456789".repeat(20_000)}\n` }],
    });
    const put = await api("/api/v1/projects/gauges/releases/1.0.0/files/gauge_1.0.0_amd64.deb", {
      method: "PUT",
      body: Buffer.from(deb),
    });
    expect(put.status).toBe(201);
    // A browser upload (multipart) counts its body too.
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(5000).fill(7)]), "notes.bin");
    const post = await api("/api/v1/projects/gauges/releases/1.0.0/files", {
      method: "POST",
      headers: { origin: "http://127.0.0.1:3000" },
      body: form,
    });
    expect(post.status).toBe(201);

    const dl = await fetch(`${server.url}/dl/metra/gauges/releases/1.0.0/gauge_1.0.0_amd64.deb`);
    expect(dl.status).toBe(200);
    expect((await dl.arrayBuffer()).byteLength).toBe(deb.byteLength);
    const downloaded = sample(before, "packyard_download_bytes_total") + deb.byteLength;
    const after = await scrapeUntil(server, (t) => sample(t, "packyard_download_bytes_total") >= downloaded);

    expect(sample(after, "packyard_download_bytes_total")).toBe(downloaded);
    const uploaded =
      sample(after, "packyard_upload_bytes_total") - sample(before, "packyard_upload_bytes_total");
    // The .deb whole, and the multipart body: the file plus its part headers and boundaries.
    expect(uploaded).toBeGreaterThan(deb.byteLength + 5000);
    expect(uploaded).toBeLessThan(deb.byteLength + 5000 + 1000);
    expect(sample(after, "packyard_publish_duration_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(sample(after, "packyard_publish_duration_seconds_sum")).toBeGreaterThan(0);
    expect(sample(after, "packyard_publish_failures_total")).toBe(0);
    // The upload queued its project's publish check (platform/jobs/queue.ts), deferred: it waits.
    expect(after).toMatch(/^packyard_jobs\{name="publish-repositories",state="waiting"\} \d+$/m);
    expect(after).toMatch(/^packyard_jobs\{name="send-mail",state="running"\} 0$/m);
    if (server.services.jobs.engine === "in-process")
      expect(sample(after, "packyard_jobs", { name: "publish-repositories", state: "waiting" })).toBe(1);
    expect(
      sample(after, "packyard_http_requests_total", {
        method: "PUT",
        route: "/api/v1/projects/:slug/releases/:version/files/:filename",
        status: "201",
      }),
    ).toBe(1);
  });

  it("counts repository downloads as download bytes", async () => {
    const before = sample(await scrape(server), "packyard_download_bytes_total");
    const key = await fetch(`${server.url}/dl/metra/gauges/gpg.key`);
    expect(key.status).toBe(200);
    const size = (await key.arrayBuffer()).byteLength;
    const text = await scrapeUntil(
      server,
      (t) => sample(t, "packyard_download_bytes_total") >= before + size,
    );
    expect(sample(text, "packyard_download_bytes_total")).toBe(before + size);
  });

  it("without METRICS_TOKEN: only direct loopback connections, never a proxied request", async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
    const proxied = await fetch(`${server.url}/metrics`, { headers: { "x-forwarded-for": "198.51.100.4" } });
    expect(proxied.status).toBe(403);
    expect(await proxied.json()).toMatchObject({ error: { code: "FORBIDDEN" } });
    const forwarded = await fetch(`${server.url}/metrics`, { headers: { forwarded: "for=198.51.100.4" } });
    expect(forwarded.status).toBe(403);
    await forwarded.arrayBuffer();
  });

  // The server listens on every interface: a connection to this machine's own non-loopback
  // address does not come from the loopback interface.
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)?.address;
  it.skipIf(!external)(
    "without METRICS_TOKEN: refuses a connection from a non-loopback address",
    async () => {
      const res = await fetch(`http://${external}:${server.port}/metrics`);
      expect(res.status).toBe(403);
      await res.arrayBuffer();
      // The same server answers that address otherwise.
      expect((await fetch(`http://${external}:${server.port}/ok`)).status).toBe(200);
    },
  );
});

describe("/metrics with METRICS_TOKEN", () => {
  const TOKEN = "m3tr1cs-t0ken-for-tests";
  let server: ObservedServer;
  beforeAll(async () => {
    server = await startObservedServer({ METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("refuses a missing or wrong token with 401, even from loopback", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong" },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` },
    ];
    for (const headers of attempts) {
      const res = await fetch(`${server.url}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(await res.json()).toMatchObject({ error: { code: "UNAUTHENTICATED" } });
    }
  });

  it("answers the right token, from anywhere (through a proxy too)", async () => {
    const text = await scrape(server, {
      headers: { authorization: `Bearer ${TOKEN}`, "x-forwarded-for": "198.51.100.4" },
    });
    expect(text).toContain("packyard_http_requests_total");
    expect(
      sample(text, "packyard_http_requests_total", { method: "GET", route: "/metrics", status: "401" }),
    ).toBeGreaterThanOrEqual(4);
  });
});

describe("METRICS_TOKEN in the configuration", () => {
  it("is optional, and refused when short or with spaces (naming the variable)", () => {
    const base = {
      DATA_DIR: mkdtempSync(join(tmpdir(), "packyard-metrics-config-")),
      SECRET: "x".repeat(32),
    };
    try {
      expect(loadConfig(base).metricsToken).toBeUndefined();
      expect(loadConfig({ ...base, METRICS_TOKEN: "a".repeat(16) }).metricsToken).toBe("a".repeat(16));
      for (const bad of ["short", "sixteen chars ok but spaces"]) {
        expect(() => loadConfig({ ...base, METRICS_TOKEN: bad })).toThrow(ConfigError);
        expect(() => loadConfig({ ...base, METRICS_TOKEN: bad })).toThrow(/METRICS_TOKEN/);
      }
    } finally {
      rmSync(base.DATA_DIR, { recursive: true, force: true });
    }
  });
});
