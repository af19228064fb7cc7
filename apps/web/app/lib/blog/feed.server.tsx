// The blog's Atom feed (RFC 4287): the newest posts, each with its summary and its whole text
// as HTML, rendered from the same block array as the post page (plain markup, no classes).
import { PortableText, type PortableTextComponents } from "@portabletext/react";
import { renderToStaticMarkup } from "react-dom/server";
import type { BlogPost, PortableTextCode, PortableTextImage, PortableTextTable } from "./types.ts";
import { BLOG_FEED_PATH, BLOG_INDEX_PATH, blogPath } from "./view.ts";

export const FEED_LIMIT = 20;
export const FEED_TITLE = "The Packyard blog";
const FEED_SUBTITLE = "Signed APT and YUM repositories, atomic publishing, signing keys, CI and releases.";

const xml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c] ?? c,
  );

function absolute(baseUrl: string, url: string) {
  return /^https?:\/\//.test(url) ? url : `${baseUrl}${url.startsWith("/") ? "" : "/"}${url}`;
}

function feedComponents(baseUrl: string): PortableTextComponents {
  return {
    marks: {
      link: ({ children, value }) => {
        const href = typeof value?.href === "string" ? value.href : "";
        if (!/^(https?:|mailto:|\/)/i.test(href)) return <>{children}</>;
        return <a href={href.startsWith("/") ? absolute(baseUrl, href) : href}>{children}</a>;
      },
    },
    types: {
      code: ({ value }) => (
        <pre>
          <code>{(value as PortableTextCode).code}</code>
        </pre>
      ),
      image: ({ value }) => {
        const image = value as PortableTextImage;
        return image.url ? <img src={absolute(baseUrl, image.url)} alt={image.alt ?? ""} /> : null;
      },
      table: ({ value }) => {
        const rows = (value as PortableTextTable).rows ?? [];
        return (
          <table>
            <tbody>
              {rows.map((row) => (
                <tr key={row._key}>
                  {row.cells.map((cell, i) => (
                    <td key={i}>{cell}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        );
      },
    },
    unknownType: () => null,
  };
}

function contentHtml(post: BlogPost, baseUrl: string): string | null {
  if (!Array.isArray(post.content)) return null;
  return renderToStaticMarkup(
    <PortableText
      value={post.content as never}
      components={feedComponents(baseUrl)}
      onMissingComponent={false}
    />,
  );
}

export function renderAtomFeed(baseUrl: string, posts: BlogPost[]): string {
  const updated = posts.reduce(
    (latest, p) => (Date.parse(p._updatedAt) > Date.parse(latest) ? p._updatedAt : latest),
    posts[0]?._updatedAt ?? new Date(0).toISOString(),
  );
  const entries = posts.map((post) => {
    const url = absolute(baseUrl, blogPath(post.slug.current));
    const html = contentHtml(post, baseUrl);
    return [
      "  <entry>",
      `    <title>${xml(post.title)}</title>`,
      `    <link rel="alternate" type="text/html" href="${xml(url)}"/>`,
      `    <id>${xml(url)}</id>`,
      `    <published>${xml(new Date(post.publishedAt).toISOString())}</published>`,
      `    <updated>${xml(new Date(post._updatedAt).toISOString())}</updated>`,
      post.author ? `    <author><name>${xml(post.author.name)}</name></author>` : null,
      ...post.categories.map((c) => `    <category term="${xml(c.slug.current)}" label="${xml(c.title)}"/>`),
      post.excerpt ? `    <summary>${xml(post.excerpt)}</summary>` : null,
      html ? `    <content type="html">${xml(html)}</content>` : null,
      "  </entry>",
    ]
      .filter((line) => line !== null)
      .join("\n");
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <title>${xml(FEED_TITLE)}</title>`,
    `  <subtitle>${xml(FEED_SUBTITLE)}</subtitle>`,
    `  <link rel="self" type="application/atom+xml" href="${xml(absolute(baseUrl, BLOG_FEED_PATH))}"/>`,
    `  <link rel="alternate" type="text/html" href="${xml(absolute(baseUrl, BLOG_INDEX_PATH))}"/>`,
    `  <id>${xml(absolute(baseUrl, BLOG_INDEX_PATH))}</id>`,
    `  <updated>${xml(new Date(updated).toISOString())}</updated>`,
    "  <author><name>Packyard</name></author>",
    `  <icon>${xml(absolute(baseUrl, "/favicon.svg"))}</icon>`,
    ...entries,
    "</feed>",
    "",
  ].join("\n");
}
