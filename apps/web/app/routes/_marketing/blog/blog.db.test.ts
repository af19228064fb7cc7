// The blog, server-rendered in memory: on the embedded source (the posts shipped in
// content/blog), the index with its 4 featured posts, the others and the categories, a category
// filter, a post with 3 recent posts, the not-found view with 404 and the Atom feed; on the
// content service (a fake of its query API on 127.0.0.1) with 20 test posts, the limits of 4 and
// 12, posts with no featured value, retries after 429/502/503 and a failure that becomes the
// not-found view, logged.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, type TestApp } from "../../../../test/harness.ts";
import { loadShippedContent } from "../../../lib/blog/embedded.server.ts";
import { blogQueries } from "../../../lib/blog/queries.ts";
import { type FakeContentApi, startFakeContentApi } from "../../../lib/blog/test-support/fake-content-api.ts";
import { makeTestPosts, testCategories } from "../../../lib/blog/test-support/posts.ts";

/** The part of a page inside the element carrying data-testid, up to the end of its section. */
function region(html: string, testId: string): string {
  const start = html.indexOf(`data-testid="${testId}"`);
  if (start < 0) return "";
  const end = html.indexOf("</section>", start);
  return html.slice(start, end < 0 ? undefined : end);
}

/** Slugs of the posts linked from the cards in a piece of a page, in order. */
function cardSlugs(html: string): string[] {
  return html
    .split('data-testid="post-card"')
    .slice(1)
    .map((card) => /href="\/blog\/([^"?#]+)"/.exec(card)?.[1] ?? "?");
}

const count = (html: string, text: string) => html.split(text).length - 1;

describe("the blog on the embedded source", () => {
  let app: TestApp;
  const { posts, categories } = loadShippedContent();
  const newestFirst = [...posts].sort((a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt));

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it("/blog/ shows the 4 featured posts, the others (at most 12) and every category", async () => {
    const res = await app.request("/blog/");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Notes on shipping packages</h1>");
    const featured = cardSlugs(region(html, "featured-posts"));
    expect(featured).toEqual(newestFirst.filter((p) => p.featured === true).map((p) => p.slug.current));
    const listed = cardSlugs(region(html, "post-list"));
    const others = newestFirst.filter((p) => p.featured !== true).map((p) => p.slug.current);
    expect(listed).toEqual(others.slice(0, 12));
    expect(listed.length).toBeLessThanOrEqual(12);
    for (const category of categories) expect(html).toContain(`>${category.title.replace("&", "&amp;")}</a>`);
    expect(html).toContain('<link rel="canonical" href="http://localhost:3000/blog/"/>');
    expect(html).toContain('href="/blog/feed.xml"');
  });

  it("answers /blog without the trailing slash too", async () => {
    const res = await app.request("/blog");
    expect(res.status).toBe(200);
    expect(cardSlugs(region(await res.text(), "featured-posts"))).toHaveLength(4);
  });

  it("filters by category with ?category=slug", async () => {
    const res = await app.request("/blog/?category=security");
    expect(res.status).toBe(200);
    const html = await res.text();
    const expected = newestFirst
      .filter((p) => p.categories.some((c) => c.slug.current === "security"))
      .map((p) => p.slug.current);
    expect(expected.length).toBeGreaterThan(0);
    expect(cardSlugs(region(html, "post-list"))).toEqual(expected);
    expect(html).not.toContain('data-testid="featured-posts"');
    expect(html).toMatch(/aria-current="page"[^>]*>Signing and access<\/a>/);
    expect(html).toContain('<link rel="canonical" href="http://localhost:3000/blog/?category=security"/>');
  });

  it("answers an unknown category with the not-found view and 404", async () => {
    const res = await app.request("/blog/?category=no-such-category");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("Category not found</h1>");
    expect(html).toContain('data-testid="not-found"');
  });

  it("shows a post with its text, reading time, metadata and the 3 most recent other posts", async () => {
    const post = posts.find((p) => p.slug.current === "no-hash-sum-mismatch")!;
    const res = await app.request("/blog/no-hash-sum-mismatch");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(">Never a “Hash Sum mismatch”: how Packyard publishes an APT repository</h1>");
    expect(html).toContain("Acquire-By-Hash: yes");
    expect(html).toMatch(/\d+ min read/);
    const recent = cardSlugs(region(html, "recent-posts"));
    expect(recent).toEqual(
      newestFirst
        .filter((p) => p.slug.current !== "no-hash-sum-mismatch")
        .slice(0, 3)
        .map((p) => p.slug.current),
    );
    expect(count(html, "<title>")).toBe(1);
    expect(post.seo?.metaTitle).toBe('How Packyard avoids apt\'s "Hash Sum mismatch"');
    expect(html).toContain(
      "<title>How Packyard avoids apt&#x27;s &quot;Hash Sum mismatch&quot; · Packyard</title>",
    );
    expect(html).toContain('<meta property="og:type" content="article"/>');
    expect(html).toContain('<link rel="canonical" href="http://localhost:3000/blog/no-hash-sum-mismatch"/>');
    expect(html).toContain('"@type":"BlogPosting"');
    expect(html).toContain(`"datePublished":"${post.publishedAt}"`);
  });

  it("answers a missing post with the not-found view and 404, server-rendered", async () => {
    const res = await app.request("/blog/there-is-no-such-post");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("Post not found</h1>");
    expect(html).toContain('data-testid="not-found"');
    expect(html).toContain("there-is-no-such-post");
    expect(count(html, "<title>")).toBe(1);
    expect(html).toContain('<meta name="robots" content="noindex"/>');
  });

  it("serves an Atom feed of the posts at /blog/feed.xml", async () => {
    const res = await app.request("/blog/feed.xml");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    const xml = await res.text();
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/,
    );
    expect(count(xml, "<entry>")).toBe(posts.length);
    expect(xml).toContain(
      '<link rel="self" type="application/atom+xml" href="http://localhost:3000/blog/feed.xml"/>',
    );
    expect(xml).toContain("<id>http://localhost:3000/blog/no-hash-sum-mismatch</id>");
    // The first entry is the newest post, with its text as escaped HTML.
    const first = xml.slice(xml.indexOf("<entry>"));
    expect(first).toContain(`<title>${newestFirst[0]?.title}</title>`);
    expect(first).toContain('<content type="html">&lt;p&gt;');
  });
});

describe("the blog on the content service", () => {
  let app: TestApp;
  let api: FakeContentApi;
  const testPosts = makeTestPosts(20);

  beforeAll(async () => {
    api = await startFakeContentApi({ posts: testPosts, categories: testCategories, dataset: "blog" });
    app = await createTestApp({
      SANITY_PROJECT_ID: "packyardtest",
      SANITY_DATASET: "blog",
      SANITY_API_HOST: api.url,
    });
  });
  afterAll(async () => {
    await app.close();
    await api.close();
  });

  it("loads 4 featured posts, 12 others (those with no featured value included) and the categories", async () => {
    api.received.length = 0;
    const res = await app.request("/blog/");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(api.received.map((r) => [r.path, r.query, r.params])).toEqual(
      expect.arrayContaining([
        ["/v2025-02-19/data/query/blog", blogQueries.featuredPosts, { limit: 4 }],
        ["/v2025-02-19/data/query/blog", blogQueries.nonFeaturedPosts, { offset: 0, end: 12 }],
        ["/v2025-02-19/data/query/blog", blogQueries.categories, {}],
      ]),
    );
    expect(api.received).toHaveLength(3);
    const newestFirst = [...testPosts].reverse();
    expect(cardSlugs(region(html, "featured-posts"))).toEqual(
      newestFirst
        .filter((p) => p.featured === true)
        .slice(0, 4)
        .map((p) => p.slug.current),
    );
    const listed = cardSlugs(region(html, "post-list"));
    expect(listed).toEqual(
      newestFirst
        .filter((p) => p.featured !== true)
        .slice(0, 12)
        .map((p) => p.slug.current),
    );
    const bySlug = new Map(testPosts.map((p) => [p.slug.current, p]));
    expect(listed.some((slug) => bySlug.get(slug)?.featured === undefined)).toBe(true);
    expect(html).toContain(">Alpha notes</a>");
    expect(html.indexOf(">Alpha notes</a>")).toBeLessThan(html.indexOf(">Zeta notes</a>"));
    // A full page of 12: the next page is offered.
    expect(html).toContain('href="/blog/?page=2"');
  });

  it("shows a post with the 3 most recent posts", async () => {
    api.received.length = 0;
    const res = await app.request("/blog/test-post-05");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(">Test post 05</h1>");
    expect(cardSlugs(region(html, "recent-posts"))).toEqual(["test-post-20", "test-post-19", "test-post-18"]);
    expect(api.received.map((r) => [r.query, r.params])).toEqual(
      expect.arrayContaining([
        [blogQueries.postBySlug, { slug: "test-post-05" }],
        [blogQueries.posts, { offset: 0, end: 4 }],
      ]),
    );
  });

  it("retries after 429, 502 and 503, then shows the post", async () => {
    api.received.length = 0;
    api.failNext(429, 502, 503);
    const res = await app.request("/blog/test-post-06");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(">Test post 06</h1>");
    expect(api.received.length).toBe(2 + 3);
  });

  it("turns a failure to load the post into the not-found view with 404, and logs it", async () => {
    const logged = vi.spyOn(app.services.logger, "error").mockImplementation(() => {});
    api.failAlways(500);
    try {
      const res = await app.request("/blog/test-post-07");
      expect(res.status).toBe(404);
      const html = await res.text();
      expect(html).toContain("Post not found</h1>");
      expect(html).toContain('data-testid="not-found"');
      expect(logged).toHaveBeenCalledWith('blog post "test-post-07" could not be loaded', expect.any(Error));
    } finally {
      api.failAlways(null);
      logged.mockRestore();
    }
  });

  it("answers a post the service does not have with the not-found view and 404", async () => {
    const res = await app.request("/blog/not-in-the-dataset");
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Post not found</h1>");
  });

  it("serves the feed from the service's posts", async () => {
    const xml = await (await app.request("/blog/feed.xml")).text();
    expect(count(xml, "<entry>")).toBe(20);
    expect(xml).toContain("<title>Test post 20</title>");
  });
});
