// The simple repository API's pages (docs/pypi.md): the list of a project's Python
// distributions and each one's files, in PEP 503 HTML and PEP 691 JSON, chosen by the client's
// Accept header. API version 1.1: PEP 700's `versions`, `size` and `upload-time`; hashes in the
// links, `data-requires-python`, PEP 658/714 metadata hashes, PEP 592 yanked files. Pure.

export const SIMPLE_API_VERSION = "1.1";

export const SIMPLE_JSON = "application/vnd.pypi.simple.v1+json";
export const SIMPLE_HTML = "application/vnd.pypi.simple.v1+html";

/** What a page is written as: the JSON form, or HTML under the media type asked for. */
export type SimpleFormat = { kind: "json"; type: string } | { kind: "html"; type: string };

/** The media types served, best first when the client likes several as much. */
const OFFERS: { type: string; format: SimpleFormat }[] = [
  { type: SIMPLE_JSON, format: { kind: "json", type: SIMPLE_JSON } },
  { type: "application/vnd.pypi.simple.latest+json", format: { kind: "json", type: SIMPLE_JSON } },
  { type: SIMPLE_HTML, format: { kind: "html", type: SIMPLE_HTML } },
  { type: "application/vnd.pypi.simple.latest+html", format: { kind: "html", type: SIMPLE_HTML } },
  { type: "text/html", format: { kind: "html", type: "text/html" } },
];

const TEXT_HTML: SimpleFormat = { kind: "html", type: "text/html" };

/**
 * PEP 691's content negotiation: the offer with the highest q-value in `accept` (ties go to
 * JSON, then the versioned HTML, then text/html); `*` wildcards match text/html (or any offer
 * of their type); no header is text/html. `format` (the `?format=` query some clients send)
 * wins over the header. undefined: nothing acceptable (406).
 */
export function negotiateSimpleFormat(accept: string | undefined, format?: string): SimpleFormat | undefined {
  if (format) return OFFERS.find((offer) => offer.type === format.trim().toLowerCase())?.format;
  if (!accept?.trim()) return TEXT_HTML;
  let best: { q: number; rank: number; format: SimpleFormat } | undefined;
  for (const range of accept.split(",")) {
    const [typePart = "", ...params] = range.split(";");
    const type = typePart.trim().toLowerCase();
    if (!type) continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split("=").map((s) => s.trim());
      if (key?.toLowerCase() === "q") q = Number(value);
    }
    if (!Number.isFinite(q) || q <= 0) continue;
    const candidates =
      type === "*/*"
        ? [OFFERS.length - 1]
        : type.endsWith("/*")
          ? OFFERS.map((o, i) => (o.type.startsWith(type.slice(0, -1)) ? i : -1)).filter((i) => i >= 0)
          : [OFFERS.findIndex((o) => o.type === type)].filter((i) => i >= 0);
    if (candidates.length === 0) continue;
    // A wildcard's own choice: text/html for */*, the best offer of its type otherwise.
    const rank = Math.min(...candidates);
    if (!best || q > best.q || (q === best.q && rank < best.rank))
      best = { q, rank, format: OFFERS[rank]!.format };
  }
  return best?.format;
}

/** What HTML needs escaped in text and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!,
  );
}

/** A file of a distribution as the pages list it. */
export interface SimpleFile {
  filename: string;
  /** Where it is downloaded from, without a fragment. */
  url: string;
  sha256: string;
  size: number;
  /** ISO 8601, UTC. */
  uploadTime: string;
  requiresPython: string | null;
  /** A wheel's METADATA (served at `{url}.metadata`), by its sha256; null: none. */
  metadataSha256: string | null;
  /** PEP 592: false, or the reason (its release was yanked). */
  yanked: false | string;
}

/** One page: the body and its media type. */
export interface SimplePage {
  body: string;
  contentType: string;
}

function htmlDocument(title: string, links: string[]): string {
  return [
    "<!DOCTYPE html>",
    "<html>",
    "  <head>",
    `    <meta name="pypi:repository-version" content="${SIMPLE_API_VERSION}">`,
    `    <title>${escapeHtml(title)}</title>`,
    "  </head>",
    "  <body>",
    `    <h1>${escapeHtml(title)}</h1>`,
    ...links.map((link) => `    ${link}<br />`),
    "  </body>",
    "</html>",
    "",
  ].join("\n");
}

const meta = { "api-version": SIMPLE_API_VERSION };

function contentTypeOf(format: SimpleFormat): string {
  return format.kind === "json" ? format.type : `${format.type}; charset=utf-8`;
}

/** The index's root: every distribution name, linked by its normalised name. */
export function renderProjectList(
  format: SimpleFormat,
  projects: { name: string; displayName: string }[],
): SimplePage {
  const body =
    format.kind === "json"
      ? JSON.stringify({ meta, projects: projects.map((p) => ({ name: p.displayName })) })
      : htmlDocument(
          "Simple index",
          projects.map((p) => `<a href="${escapeHtml(p.name)}/">${escapeHtml(p.displayName)}</a>`),
        );
  return { body, contentType: contentTypeOf(format) };
}

/** A distribution's page: its files (and, in JSON, its versions). */
export function renderProjectPage(
  format: SimpleFormat,
  page: { name: string; versions: string[]; files: SimpleFile[] },
): SimplePage {
  if (format.kind === "json") {
    const files = page.files.map((file) => {
      const metadata = file.metadataSha256 ? { sha256: file.metadataSha256 } : false;
      return {
        filename: file.filename,
        url: file.url,
        hashes: { sha256: file.sha256 },
        ...(file.requiresPython ? { "requires-python": file.requiresPython } : {}),
        // PEP 714's key only: pips from 22.3 until the rename (Debian 12's 23.0.1 among them)
        // fail hard on PEP 658's `dist-info-metadata` in JSON; HTML keeps both attributes.
        "core-metadata": metadata,
        yanked: file.yanked === false ? false : file.yanked || true,
        size: file.size,
        "upload-time": file.uploadTime,
      };
    });
    return {
      body: JSON.stringify({ meta, name: page.name, versions: page.versions, files }),
      contentType: contentTypeOf(format),
    };
  }
  const links = page.files.map((file) => {
    const attributes = [`href="${escapeHtml(`${file.url}#sha256=${file.sha256}`)}"`];
    if (file.requiresPython) attributes.push(`data-requires-python="${escapeHtml(file.requiresPython)}"`);
    if (file.metadataSha256)
      attributes.push(
        `data-dist-info-metadata="sha256=${file.metadataSha256}"`,
        `data-core-metadata="sha256=${file.metadataSha256}"`,
      );
    if (file.yanked !== false) attributes.push(`data-yanked="${escapeHtml(file.yanked)}"`);
    return `<a ${attributes.join(" ")}>${escapeHtml(file.filename)}</a>`;
  });
  return { body: htmlDocument(`Links for ${page.name}`, links), contentType: contentTypeOf(format) };
}
