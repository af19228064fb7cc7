const ORIGIN = "http://packyard.invalid";

// Where sign-in may send a user afterwards: only paths on this site. Absolute URLs,
// protocol-relative (`//host`) and backslash tricks (`/\host`) fall back to the default,
// including those that only appear once the target is resolved (`/..//host` resolves to
// `//host`) or percent-decoded (`/%2e%2e//host`, `/%2F%2Fhost`, `/%5Chost`).
export function safeRedirectPath(target: string | null | undefined, fallback = "/dashboard"): string {
  if (!target) return fallback;
  if (!isPathOnly(target)) return fallback;
  // Control characters and whitespace can be normalized away by browsers into a host.
  if ([...target].some((ch) => ch.charCodeAt(0) <= 0x20 || ch.charCodeAt(0) === 0x7f)) return fallback;
  let resolved: URL;
  try {
    resolved = new URL(target, ORIGIN);
  } catch {
    return fallback;
  }
  if (resolved.origin !== ORIGIN) return fallback;
  // Dot segments are resolved only now: check what the browser would be sent, not the input.
  if (!isPathOnly(resolved.pathname)) return fallback;
  // And what a server or browser that decodes once more (or twice) would make of it.
  let decoded = resolved.pathname;
  for (let round = 0; round < 3; round++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return fallback;
    }
    if (next === decoded) break;
    decoded = next;
    // Browsers drop tabs and newlines from URLs before parsing them.
    const stripped = decoded.replace(/[\t\n\r]/g, "");
    if (!isPathOnly(stripped)) return fallback;
    try {
      const again = new URL(stripped, ORIGIN);
      if (again.origin !== ORIGIN || !isPathOnly(again.pathname)) return fallback;
    } catch {
      return fallback;
    }
  }
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

/** A path on this site: one `/`, not followed by another `/` or a `\` (which browsers read as `/`). */
function isPathOnly(path: string): boolean {
  return path.startsWith("/") && !path.startsWith("//") && !path.startsWith("/\\");
}

/** /auth/signin?redirect=… for the page the visitor tried to open. */
export function signInUrl(url: URL): string {
  const target = `${url.pathname}${url.search}`;
  return `/auth/signin?${new URLSearchParams({ redirect: target })}`;
}
