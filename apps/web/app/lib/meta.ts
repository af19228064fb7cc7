// Page metadata: title, description, keywords and a canonical link on every page.
import type { MetaDescriptor } from "react-router";

export const TAGLINE = "package management made simple";
export const DEFAULT_TITLE = `Packyard — ${TAGLINE}`;
export const DEFAULT_DESCRIPTION =
  "Packyard hosts your .deb, .rpm and release files: signed APT and YUM repositories, release pages and stable download URLs, pushed from your laptop or CI.";
const KEYWORDS =
  "apt repository, yum repository, dnf, deb hosting, rpm hosting, package hosting, release management, signed packages";

export function pageMeta(options: {
  baseUrl: string | undefined;
  path: string;
  title?: string;
  description?: string;
  noindex?: boolean;
}): MetaDescriptor[] {
  const title = options.title ? `${options.title} · Packyard` : DEFAULT_TITLE;
  const description = options.description ?? DEFAULT_DESCRIPTION;
  const canonical = `${options.baseUrl ?? ""}${options.path}`;
  return [
    { title },
    { name: "description", content: description },
    { name: "keywords", content: KEYWORDS },
    { tagName: "link", rel: "canonical", href: canonical },
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { property: "og:url", content: canonical },
    { property: "og:site_name", content: "Packyard" },
    ...(options.noindex ? [{ name: "robots", content: "noindex" }] : []),
  ];
}
