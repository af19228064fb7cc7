// Posts and categories made up for tests (never shown on the site): `count` posts, one a day
// from 2026-01-01, featured true, false and absent in turn (i % 3 = 0, 1, 2).
import type { BlogCategory, BlogPost } from "../types.ts";

export const testCategories: BlogCategory[] = [
  { _id: "category.zeta", title: "Zeta notes", slug: { current: "zeta" }, description: "The last by title." },
  {
    _id: "category.alpha",
    title: "Alpha notes",
    slug: { current: "alpha" },
    description: "The first by title.",
  },
];

export function featuredValue(i: number): boolean | undefined {
  return i % 3 === 0 ? true : i % 3 === 1 ? false : undefined;
}

export function makeTestPosts(count: number): BlogPost[] {
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(2, "0");
    const day = new Date(Date.UTC(2026, 0, 1 + i, 9)).toISOString();
    const featured = featuredValue(i);
    const category = testCategories[i % 2] as BlogCategory;
    return {
      _id: `post.test-${n}`,
      _createdAt: day,
      _updatedAt: day,
      title: `Test post ${n}`,
      ...(featured === undefined ? {} : { featured }),
      slug: { current: `test-post-${n}` },
      excerpt: `The excerpt of test post ${n}.`,
      content: [
        {
          _type: "block",
          _key: "p",
          style: "normal",
          markDefs: [],
          children: [{ _type: "span", _key: "s", text: `Body of test post ${n}. `.repeat(60), marks: [] }],
        },
      ],
      author: { _id: "author.tester", name: "Tester" },
      publishedAt: day,
      categories: [{ _id: category._id, title: category.title, slug: category.slug }],
      tags: ["test"],
    };
  });
}
