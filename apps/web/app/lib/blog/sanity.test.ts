// The content service source against a fake of the service's query API at its HTTP boundary
// (a local node:http server): the queries of spec §7 with their parameters and the API
// version, retries after 429, 502 and 503, and failures that are not retried.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { blogQueries } from "./queries.ts";
import { createSanitySource, SANITY_MAX_RETRIES, SANITY_TIMEOUT_MS } from "./sanity.server.ts";
import { type FakeContentApi, startFakeContentApi } from "./test-support/fake-content-api.ts";
import { makeTestPosts, testCategories } from "./test-support/posts.ts";

let api: FakeContentApi;
const options = () => ({
  projectId: "testproject",
  dataset: "production",
  apiVersion: "2025-02-19",
  apiHost: api.url,
  // The real backoff is 100 ms · 2^n: keep the tests quick.
  retryDelay: () => 5,
});

beforeAll(async () => {
  api = await startFakeContentApi({ posts: makeTestPosts(20), categories: testCategories });
});
afterAll(() => api.close());
beforeEach(() => {
  api.received.length = 0;
  api.failAlways(null);
});

const slugs = (posts: { slug: { current: string } }[]) => posts.map((p) => p.slug.current);

describe("the content service source", () => {
  it("sends each query of spec §7 as GET /v2025-02-19/data/query/production with its parameters", async () => {
    const source = createSanitySource(options());
    await source.listPosts();
    await source.listPosts({ limit: 5, offset: 10 });
    await source.getPost("test-post-03");
    await source.listCategories();
    await source.listPostsByCategory("alpha");
    await source.listFeaturedPosts();
    await source.listNonFeaturedPosts();
    await source.listNonFeaturedPosts({ limit: 12, offset: 12 });
    expect(
      api.received.every((r) => r.method === "GET" && r.path === "/v2025-02-19/data/query/production"),
    ).toBe(true);
    expect(api.received.map((r) => [r.query, r.params])).toEqual([
      [blogQueries.posts, { offset: 0, end: 10 }],
      [blogQueries.posts, { offset: 10, end: 15 }],
      [blogQueries.postBySlug, { slug: "test-post-03" }],
      [blogQueries.categories, {}],
      [blogQueries.postsByCategory, { category: "alpha", offset: 0, end: 10 }],
      [blogQueries.featuredPosts, { limit: 4 }],
      [blogQueries.nonFeaturedPosts, { offset: 0, end: 12 }],
      [blogQueries.nonFeaturedPosts, { offset: 12, end: 24 }],
    ]);
    expect(api.received[0]?.authorization).toBeUndefined();
  });

  it("asks for posts newest first, featured ones and the others (including those with no featured value)", () => {
    expect(blogQueries.posts).toContain("| order(publishedAt desc) [$offset...$end]");
    expect(blogQueries.featuredPosts).toContain("featured == true");
    expect(blogQueries.featuredPosts).toContain("[0...$limit]");
    expect(blogQueries.nonFeaturedPosts).toContain("(featured == false || !defined(featured))");
    expect(blogQueries.categories).toContain("| order(title asc)");
    expect(blogQueries.postsByCategory).toContain("$category in categories[]->slug.current");
    expect(blogQueries.postBySlug).toContain("slug.current == $slug][0]");
  });

  it("returns the service's posts and categories in the shape of spec §3", async () => {
    const source = createSanitySource(options());
    const featured = await source.listFeaturedPosts();
    expect(featured).toHaveLength(4);
    expect(featured.every((p) => p.featured === true)).toBe(true);
    const regular = await source.listNonFeaturedPosts();
    expect(regular).toHaveLength(12);
    expect(regular.some((p) => p.featured === undefined)).toBe(true);
    expect(slugs(await source.listPosts({ limit: 3 }))).toEqual([
      "test-post-20",
      "test-post-19",
      "test-post-18",
    ]);
    expect((await source.listCategories()).map((c) => c.title)).toEqual(["Alpha notes", "Zeta notes"]);
    const post = await source.getPost("test-post-03");
    expect(post).toMatchObject({
      title: "Test post 03",
      publishedAt: "2026-01-03T09:00:00.000Z",
      tags: ["test"],
    });
    expect(Array.isArray(post?.content)).toBe(true);
    expect(await source.getPost("missing")).toBeNull();
    expect((await source.listAllPostSlugs())[0]).toEqual({
      slug: "test-post-20",
      publishedAt: "2026-01-20T09:00:00.000Z",
      updatedAt: "2026-01-20T09:00:00.000Z",
    });
  });

  it("sends the token when one is configured", async () => {
    await createSanitySource({ ...options(), token: "sk-test" }).listCategories();
    expect(api.received[0]?.authorization).toBe("Bearer sk-test");
  });

  it("uses another API version when configured", async () => {
    const other = await startFakeContentApi({ apiVersion: "2026-01-01", categories: testCategories });
    try {
      await createSanitySource({
        ...options(),
        apiHost: other.url,
        apiVersion: "2026-01-01",
      }).listCategories();
      expect(other.received[0]?.path).toBe("/v2026-01-01/data/query/production");
    } finally {
      await other.close();
    }
  });

  it.each([429, 502, 503])("retries after %i, then succeeds", async (status) => {
    api.failNext(status, status, status);
    const categories = await createSanitySource(options()).listCategories();
    expect(categories).toHaveLength(2);
    expect(api.received).toHaveLength(4);
  });

  it(`gives up after ${SANITY_MAX_RETRIES} retries`, async () => {
    api.failAlways(503);
    await expect(createSanitySource(options()).getPost("test-post-01")).rejects.toThrow();
    expect(api.received).toHaveLength(1 + SANITY_MAX_RETRIES);
  });

  it("does not retry other failures", async () => {
    api.failNext(500);
    await expect(createSanitySource(options()).getPost("test-post-01")).rejects.toThrow();
    expect(api.received).toHaveLength(1);
  });

  it("allows 120 s for an answer and 5 retries (the client backs off exponentially between them)", () => {
    expect(SANITY_TIMEOUT_MS).toBe(120_000);
    expect(SANITY_MAX_RETRIES).toBe(5);
  });

  it("leaves malformed posts out of lists, and fails on a malformed post asked for alone", async () => {
    const broken = { ...makeTestPosts(1)[0], _id: "post.broken", title: 42, slug: { current: "broken" } };
    const other = await startFakeContentApi({ posts: [broken as never, ...makeTestPosts(2)] });
    try {
      const source = createSanitySource({ ...options(), apiHost: other.url });
      expect(slugs(await source.listPosts())).toEqual(["test-post-02", "test-post-01"]);
      await expect(source.getPost("broken")).rejects.toThrow();
    } finally {
      await other.close();
    }
  });
});
