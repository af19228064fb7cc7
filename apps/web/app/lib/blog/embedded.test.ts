// The embedded content source: the posts shipped in content/blog (real articles: at least 10,
// exactly 4 featured, at least 3 categories), front matter checked, Markdown turned into the
// block array of spec §3; and the source's limits over a test source of 20 posts.
import { describe, expect, it } from "vitest";
import {
  BlogContentError,
  createEmbeddedSource,
  loadShippedContent,
  parsePostDocument,
  shippedSource,
} from "./embedded.server.ts";
import { readingTimeMinutes } from "./reading-time.ts";
import { featuredValue, makeTestPosts, testCategories } from "./test-support/posts.ts";
import type { PortableTextTextBlock } from "./types.ts";

const slugs = (posts: { slug: { current: string } }[]) => posts.map((p) => p.slug.current);

describe("a test source of 20 posts", () => {
  const posts = makeTestPosts(20);
  const source = createEmbeddedSource(posts, testCategories);
  const newestFirst = [...posts].reverse();

  it("lists at most 4 featured posts, newest first", async () => {
    const featured = await source.listFeaturedPosts();
    expect(posts.filter((p) => p.featured === true)).toHaveLength(7);
    expect(featured).toHaveLength(4);
    expect(slugs(featured)).toEqual(slugs(newestFirst.filter((p) => p.featured === true).slice(0, 4)));
  });

  it("lists at most 12 non-featured posts, counting posts with no featured value as not featured", async () => {
    const regular = await source.listNonFeaturedPosts();
    expect(regular).toHaveLength(12);
    expect(regular.every((p) => p.featured !== true)).toBe(true);
    expect(regular.some((p) => p.featured === undefined)).toBe(true);
    expect(regular.some((p) => p.featured === false)).toBe(true);
    expect(slugs(regular)).toEqual(slugs(newestFirst.filter((p) => p.featured !== true).slice(0, 12)));
    // 13 are not featured: the 13th is on the next page.
    const rest = await source.listNonFeaturedPosts({ limit: 12, offset: 12 });
    expect(rest).toHaveLength(1);
    expect(featuredValue(Number(rest[0]?.slug.current.slice(-2)) - 1)).not.toBe(true);
  });

  it("lists posts newest first, 10 by default, with limit and offset", async () => {
    expect(slugs(await source.listPosts())).toEqual(slugs(newestFirst.slice(0, 10)));
    expect(slugs(await source.listPosts({ limit: 3, offset: 18 }))).toEqual(slugs(newestFirst.slice(18, 20)));
  });

  it("orders categories by title and lists a category's posts (10 by default)", async () => {
    expect((await source.listCategories()).map((c) => c.title)).toEqual(["Alpha notes", "Zeta notes"]);
    const zeta = await source.listPostsByCategory("zeta");
    expect(zeta).toHaveLength(10);
    expect(zeta.every((p) => p.categories[0]?.slug.current === "zeta")).toBe(true);
    expect(await source.listPostsByCategory("nope")).toEqual([]);
  });

  it("finds one post by slug, and null for a missing one", async () => {
    expect((await source.getPost("test-post-07"))?.title).toBe("Test post 07");
    expect(await source.getPost("missing")).toBeNull();
  });
});

describe("the shipped posts", () => {
  const { posts, categories } = loadShippedContent();

  it("are at least 10 real posts in at least 3 categories, exactly 4 of them featured", () => {
    expect(posts.length).toBeGreaterThanOrEqual(10);
    expect(posts.filter((p) => p.featured === true)).toHaveLength(4);
    const used = new Set(posts.flatMap((p) => p.categories.map((c) => c.slug.current)));
    expect(used.size).toBeGreaterThanOrEqual(3);
    expect(categories.length).toBe(used.size);
  });

  it.each(posts.map((p) => [p.slug.current, p] as const))("%s is a full article", (_, post) => {
    expect(post.title.length).toBeGreaterThan(10);
    expect(post.excerpt?.length ?? 0).toBeGreaterThan(60);
    expect(Array.isArray(post.content)).toBe(true);
    // Several hundred words: at least 3 minutes of reading.
    expect(readingTimeMinutes(post.content)).toBeGreaterThanOrEqual(3);
    expect(post.author?.name).toBeTruthy();
    expect(post.tags.length).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(post.publishedAt))).toBe(false);
    const text = JSON.stringify(post.content).toLowerCase();
    expect(text).not.toMatch(/lorem|ipsum|coming soon|todo/);
  });

  it("are served by the default source", async () => {
    const source = shippedSource();
    expect(source.kind).toBe("embedded");
    expect(await source.listFeaturedPosts()).toHaveLength(4);
    expect((await source.listAllPostSlugs()).length).toBe(posts.length);
  });
});

describe("parsePostDocument", () => {
  const document = (front: string, body = "Hello.") => `---\n${front}\n---\n${body}`;
  const front = [
    "title: A post",
    "slug: a-post",
    "excerpt: What it says.",
    "publishedAt: 2026-10-01T09:00:00Z",
    "categories: [alpha]",
    "tags: [apt]",
    "author: The Packyard team",
  ].join("\n");

  it("turns Markdown into blocks: headings, marks, links, lists, quotes, code and tables", () => {
    const body = [
      "Intro with **bold**, *emphasis*, `code` and a [link](https://example.com/x).",
      "",
      "## A heading",
      "",
      "- one",
      "  - nested",
      "- two",
      "",
      "1. first",
      "",
      "> quoted",
      "",
      '```sh title="setup.sh"',
      "sudo apt-get install widget",
      "```",
      "",
      "| a | b |",
      "|---|---|",
      "| `1` | 2 |",
      "",
      "![A diagram](/diagram.svg)",
    ].join("\n");
    const post = parsePostDocument("a.md", document(front, body), testCategories);
    const content = post.content as Array<Record<string, unknown>>;
    const intro = content[0] as unknown as PortableTextTextBlock;
    expect(intro.children.map((s) => [s.text, s.marks])).toEqual([
      ["Intro with ", []],
      ["bold", ["strong"]],
      [", ", []],
      ["emphasis", ["em"]],
      [", ", []],
      ["code", ["code"]],
      [" and a ", []],
      ["link", [intro.markDefs?.[0]?._key]],
      [".", []],
    ]);
    expect(intro.markDefs?.[0]).toMatchObject({ _type: "link", href: "https://example.com/x" });
    expect(content.slice(1, 7).map((b) => [b.style, b.listItem, b.level])).toEqual([
      ["h2", undefined, undefined],
      ["normal", "bullet", 1],
      ["normal", "bullet", 2],
      ["normal", "bullet", 1],
      ["normal", "number", 1],
      ["blockquote", undefined, undefined],
    ]);
    expect(content[7]).toMatchObject({
      _type: "code",
      language: "sh",
      filename: "setup.sh",
      code: "sudo apt-get install widget",
    });
    expect(content[8]).toMatchObject({
      _type: "table",
      rows: [{ cells: ["a", "b"] }, { cells: ["1", "2"] }],
    });
    expect(content[9]).toMatchObject({ _type: "image", url: "/diagram.svg", alt: "A diagram" });
    expect(new Set(content.map((b) => b._key)).size).toBe(content.length);
  });

  it("keeps an absent featured value absent, and a false one false", () => {
    expect(parsePostDocument("a.md", document(front), testCategories)).not.toHaveProperty("featured");
    expect(parsePostDocument("a.md", document(`${front}\nfeatured: false`), testCategories).featured).toBe(
      false,
    );
  });

  it("names the file and the field of a bad front matter", () => {
    expect(() => parsePostDocument("bad.md", "no front matter", testCategories)).toThrow(BlogContentError);
    expect(() =>
      parsePostDocument("bad.md", document(front.replace("slug: a-post", "slug: A Post")), testCategories),
    ).toThrow(/bad\.md: .*slug/s);
    expect(() =>
      parsePostDocument("bad.md", document(front.replace("[alpha]", "[unknown]")), testCategories),
    ).toThrow('bad.md: unknown category "unknown"');
  });
});
