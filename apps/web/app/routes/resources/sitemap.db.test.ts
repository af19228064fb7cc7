// sitemap.xml and robots.txt as a crawler reads them: every public page and every public
// release page, never a private project's (nor a yanked release, nor one whose project turned
// private); robots.txt names the sitemap by its absolute URL. SQLite, and PostgreSQL when
// configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestApp,
  databaseKind,
  onboardedUser,
  TEST_ORIGIN,
  type TestApp,
} from "../../../test/harness.ts";
import { listAllPostSlugs } from "../../lib/blog/blog.server.ts";
import { PUBLIC_PAGES } from "../../lib/sitemap.server.ts";

let app: TestApp;
let ada: string;
let bob: string;

async function api(cookie: string, method: string, path: string, body?: unknown) {
  const res = await app.request(`/api/v1${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    cookie,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
}

async function sitemapLocations(): Promise<string[]> {
  const res = await app.request("/sitemap.xml");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/xml/);
  const xml = await res.text();
  expect(xml).toMatch(
    /^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/,
  );
  return [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1] ?? "");
}

beforeAll(async () => {
  app = await createTestApp();
  ada = (await onboardedUser(app, "ada")).cookie;
  bob = (await onboardedUser(app, "bob")).cookie;
  await api(ada, "POST", "/projects", { slug: "widget", name: "Widget", visibility: "public" });
  await api(ada, "POST", "/projects/widget/releases", { version: "1.0.0" });
  await api(ada, "POST", "/projects/widget/releases", { version: "1.1.0+build.7" });
  await api(ada, "POST", "/projects/widget/releases", { version: "2.0.0" });
  await api(ada, "POST", "/projects/widget/releases/2.0.0/yank", { reason: "Broken build" });
  await api(ada, "POST", "/projects", { slug: "gadget", name: "Gadget", visibility: "public" });
  await api(ada, "POST", "/projects/gadget/releases", { version: "0.3.0" });
  await api(bob, "POST", "/projects", { slug: "secret", name: "Secret", visibility: "private" });
  await api(bob, "POST", "/projects/secret/releases", { version: "9.9.9" });
});
afterAll(async () => {
  await app?.close();
});

describe(`sitemap.xml (${databaseKind})`, () => {
  it("lists every public page by absolute URL", async () => {
    const locations = await sitemapLocations();
    for (const path of PUBLIC_PAGES) expect(locations).toContain(`${TEST_ORIGIN}${path}`);
    for (const path of ["/", "/pricing", "/features", "/contact", "/blog/", "/releases", "/legal/terms"]) {
      expect(locations).toContain(`${TEST_ORIGIN}${path}`);
    }
  });

  it("lists every blog post", async () => {
    const posts = await listAllPostSlugs(app.services.config);
    expect(posts.length).toBeGreaterThanOrEqual(10);
    const locations = await sitemapLocations();
    for (const post of posts) expect(locations).toContain(`${TEST_ORIGIN}/blog/${post.slug}`);
    const res = await app.request(`/blog/${posts[0]?.slug}`);
    expect(res.status).toBe(200);
  });

  it("lists the release pages of public projects and none of a private one", async () => {
    const locations = await sitemapLocations();
    expect(locations).toContain(`${TEST_ORIGIN}/releases/ada/widget/1.0.0`);
    expect(locations).toContain(`${TEST_ORIGIN}/releases/ada/widget/1.1.0%2Bbuild.7`);
    expect(locations).toContain(`${TEST_ORIGIN}/releases/ada/gadget/0.3.0`);
    expect(locations.filter((l) => l.includes("/secret"))).toEqual([]);
    // A yanked release is withdrawn: its page stays, but is not advertised.
    expect(locations).not.toContain(`${TEST_ORIGIN}/releases/ada/widget/2.0.0`);
    // Each listed release page really is public.
    const res = await app.request("/releases/ada/widget/1.1.0%2Bbuild.7");
    expect(res.status).toBe(200);
  });

  it("drops a project's releases once it is made private", async () => {
    await api(ada, "PATCH", "/projects/gadget", { visibility: "private" });
    const locations = await sitemapLocations();
    expect(locations.filter((l) => l.includes("/gadget"))).toEqual([]);
    expect(locations).toContain(`${TEST_ORIGIN}/releases/ada/widget/1.0.0`);
  });
});

describe("robots.txt", () => {
  it("points to the sitemap by its absolute URL and keeps crawlers out of the signed-in area", async () => {
    const res = await app.request("/robots.txt");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toContain(`Sitemap: ${TEST_ORIGIN}/sitemap.xml`);
    expect(text).toMatch(/^User-agent: \*$/m);
    for (const path of ["/api/", "/dl/", "/dashboard", "/projects"]) {
      expect(text).toContain(`Disallow: ${path}\n`);
    }
    expect(text).not.toMatch(/^Disallow: \/$/m);
  });
});
