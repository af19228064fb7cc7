// Where sign-in may send a user afterwards: only paths on this site. Absolute URLs,
// protocol-relative (`//host`) and backslash tricks (`/\host`) fall back to the default.
export function safeRedirectPath(target: string | null | undefined, fallback = "/dashboard"): string {
  if (!target) return fallback;
  if (!target.startsWith("/")) return fallback;
  if (target.startsWith("//") || target.startsWith("/\\")) return fallback;
  // Control characters and whitespace can be normalized away by browsers into a host.
  if ([...target].some((ch) => ch.charCodeAt(0) <= 0x20 || ch.charCodeAt(0) === 0x7f)) return fallback;
  try {
    const resolved = new URL(target, "http://packyard.invalid");
    if (resolved.origin !== "http://packyard.invalid") return fallback;
    return `${resolved.pathname}${resolved.search}${resolved.hash}`;
  } catch {
    return fallback;
  }
}

/** /auth/signin?redirect=… for the page the visitor tried to open. */
export function signInUrl(url: URL): string {
  const target = `${url.pathname}${url.search}`;
  return `/auth/signin?${new URLSearchParams({ redirect: target })}`;
}
