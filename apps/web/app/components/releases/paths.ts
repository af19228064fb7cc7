// URLs of the public release pages.
export function releasePath(owner: string, slug: string, version = "latest"): string {
  return `/releases/${encodeURIComponent(owner)}/${encodeURIComponent(slug)}/${encodeURIComponent(version)}`;
}
