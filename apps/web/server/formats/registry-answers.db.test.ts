// The registries' metadata from memory (downloads/fast-dl.ts, decision 086): once the app has
// answered an anonymous request for a public project's packument or simple page, the next one
// with the same Accept and Accept-Encoding is answered by the fast path (its own CSP marks it)
// with the same bytes and headers, a 304 to its ETag; a change drops it, so the next answer shows
// the new version; a request with a key, and a private project's pages, always go to the app.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { npmPublishRequest } from "./npm/test-publish.ts";
import { buildWheel, digestsOf, uploadForm } from "./pypi/test-distributions.ts";

const FAST_CSP = "default-src 'none'; frame-ancestors 'none'";
let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;

async function createProject(slug: string, visibility: "public" | "private") {
  const res = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug, name: slug, visibility }),
  });
  expect(res.status).toBe(201);
}

async function npmPublish(slug: string, version: string) {
  const request = npmPublishRequest(`${server.url}/npm/fast/${slug}/`, "@fast/sdk", version);
  const res = await fetch(request.url, {
    method: "PUT",
    headers: { authorization: `Bearer ${pub.token}`, "content-type": "application/json" },
    body: request.body,
  });
  expect(res.status, await res.text()).toBeLessThan(300);
}

async function pypiUpload(slug: string, version: string) {
  const spec = { name: "fast-sdk", version };
  const wheel = buildWheel(spec);
  const res = await fetch(`${server.url}/pypi/fast/${slug}/`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`__token__:${pub.token}`).toString("base64")}` },
    body: uploadForm(wheel, {
      name: spec.name,
      version,
      filetype: "bdist_wheel",
      pyversion: "py3",
      ...digestsOf(wheel.bytes),
    }),
  });
  expect(res.status, await res.text()).toBe(200);
}

/** GETs until the fast path answers (on PostgreSQL a change's notification may drop the cache just after). */
async function fromMemory(url: string, headers: Record<string, string>): Promise<Response> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(url, { headers });
    if (res.headers.get("content-security-policy") === FAST_CSP) return res;
    await res.arrayBuffer();
  }
  throw new Error(`${url} was never answered from memory`);
}

beforeAll(async () => {
  server = await startLiveServer();
  pub = await publisher(server, "fast");
  await createProject("sdk", "public");
  await createProject("hidden", "private");
  await npmPublish("sdk", "1.0.0");
  // Enough files for a page gzip is worth it for (1 KiB and more).
  for (const version of ["1.0.0", "1.0.1", "1.0.2", "1.0.3"]) await pypiUpload("sdk", version);
  await pypiUpload("hidden", "1.0.0");
});

afterAll(async () => {
  await server?.close();
});

describe(`registry metadata from memory (${databaseKind})`, () => {
  const abbreviated = { accept: "application/vnd.npm.install-v1+json", "accept-encoding": "gzip" };
  const html = { accept: "text/html", "accept-encoding": "gzip" };

  it("answers an anonymous packument again from memory, the same bytes and headers, and a 304 to its ETag", async () => {
    const url = `${server.url}/npm/fast/sdk/@fast%2fsdk`;
    const first = await fetch(url, { headers: abbreviated });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-security-policy")).not.toBe(FAST_CSP);
    const firstBody = Buffer.from(await first.arrayBuffer());
    const again = await fromMemory(url, abbreviated);
    expect(again.status).toBe(200);
    for (const name of ["content-type", "etag", "vary", "cache-control"])
      expect(again.headers.get(name), name).toBe(first.headers.get(name));
    const body = Buffer.from(await again.arrayBuffer());
    expect(body.equals(firstBody)).toBe(true);
    // fetch takes any gzip off.
    const packument = JSON.parse(body.toString()) as { versions: Record<string, unknown> };
    expect(Object.keys(packument.versions)).toEqual(["1.0.0"]);
    const revalidated = await fetch(url, {
      headers: { ...abbreviated, "if-none-match": again.headers.get("etag")! },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("content-security-policy")).toBe(FAST_CSP);
    // Another variant (the full packument) is its own answer, made by the app first.
    const full = await fetch(url, { headers: { accept: "application/json" } });
    expect(full.headers.get("content-security-policy")).not.toBe(FAST_CSP);
    expect(full.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("drops it with the next change: a new version is in the next answer", async () => {
    const url = `${server.url}/npm/fast/sdk/@fast%2fsdk`;
    await (await fromMemory(url, abbreviated)).arrayBuffer();
    await npmPublish("sdk", "1.1.0");
    const next = await fetch(url, { headers: { accept: "application/vnd.npm.install-v1+json" } });
    const packument = (await next.json()) as { versions: Record<string, unknown> };
    expect(Object.keys(packument.versions).sort()).toEqual(["1.0.0", "1.1.0"]);
  });

  it("answers a public simple page from memory, gzipped as pip asks, and leaves keys and private projects to the app", async () => {
    const url = `${server.url}/pypi/fast/sdk/simple/fast-sdk/`;
    const page = await fromMemory(url, html);
    expect(page.headers.get("content-encoding")).toBe("gzip");
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    // fetch takes the gzip off.
    expect(await page.text()).toContain("fast_sdk-1.0.0-py3-none-any.whl#sha256=");
    // With a key: the app's answer (who asks decides), whatever is in memory.
    const keyed = await fetch(url, { headers: { ...html, authorization: `Bearer ${pub.token}` } });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get("content-security-policy")).not.toBe(FAST_CSP);
    await keyed.arrayBuffer();
    // A private project's page is never remembered: anonymous finds nothing each time.
    const hidden = `${server.url}/pypi/fast/hidden/simple/fast-sdk/`;
    for (let i = 0; i < 3; i++) {
      const withKey = await fetch(hidden, { headers: { ...html, authorization: `Bearer ${pub.token}` } });
      expect(withKey.status).toBe(200);
      await withKey.arrayBuffer();
      const anonymous = await fetch(hidden, { headers: html });
      expect(anonymous.status).toBe(404);
      await anonymous.arrayBuffer();
    }
  });
});
