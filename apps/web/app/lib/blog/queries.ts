// The GROQ queries of spec §7, sent to the content service. Every list is newest first by
// publishedAt and sliced with $offset and $end (= offset + limit); the shapes they project are
// the BlogPost and BlogCategory of types.ts, with image assets resolved to URLs.
//
// The dataset is expected to hold `post` documents (title, slug, excerpt, publishedAt, featured,
// categories and author as references, tags, featuredImage with alt, content as Portable Text
// with `image`, `code` and `table` blocks, seo { metaTitle, metaDescription, keywords }),
// `category` documents (title, slug, description) and `author` documents (name, image).

const POST_FIELDS = `{
  _id, _createdAt, _updatedAt, title, featured, slug, excerpt,
  content[]{..., _type == "image" => {"url": asset->url}},
  "featuredImage": featuredImage{"url": asset->url, alt},
  author->{_id, name, "image": image.asset->url},
  publishedAt,
  categories[]->{_id, title, slug},
  tags, seo
}`;

const POSTS = `_type == "post" && defined(slug.current)`;

export const blogQueries = {
  /** Posts newest first; $offset, $end (defaults 0 and 10). */
  posts: `*[${POSTS}] | order(publishedAt desc) [$offset...$end] ${POST_FIELDS}`,
  /** One post by $slug. */
  postBySlug: `*[${POSTS} && slug.current == $slug][0] ${POST_FIELDS}`,
  /** Every category, ordered by title. */
  categories: `*[_type == "category"] | order(title asc) {_id, title, slug, description}`,
  /** Posts in the category $category (a slug); $offset, $end (defaults 0 and 10). */
  postsByCategory: `*[${POSTS} && $category in categories[]->slug.current] | order(publishedAt desc) [$offset...$end] ${POST_FIELDS}`,
  /** Featured posts; $limit (default 4). */
  featuredPosts: `*[${POSTS} && featured == true] | order(publishedAt desc) [0...$limit] ${POST_FIELDS}`,
  /** Posts not featured, including those with no featured value; $offset, $end (defaults 0 and 12). */
  nonFeaturedPosts: `*[${POSTS} && (featured == false || !defined(featured))] | order(publishedAt desc) [$offset...$end] ${POST_FIELDS}`,
  /** Every post's slug and dates (sitemap, feed). */
  postSlugs: `*[${POSTS}] | order(publishedAt desc) {"slug": slug.current, publishedAt, "updatedAt": _updatedAt}`,
} as const;
