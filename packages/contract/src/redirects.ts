// Where Packyard may send a browser after sign-in, verification, a reset or a deletion: only paths
// on this site. One check for the pages (app/lib/redirects.ts) and the authentication API
// (server/auth/redirect-targets.ts), so a target the one refuses the other refuses too.

const ORIGIN = "http://packyard.invalid";

/**
 * The target as a path on this site, or the fallback. Absolute URLs, protocol-relative (`//host`)
 * and backslash tricks (`/\host`) fall back, including those that only appear once the target is
 * resolved (`/..//host` resolves to `//host`) or percent-decoded (`/%2e%2e//host`, `/%2F%2Fhost`,
 * `/%5Chost`).
 */
export function safeRedirectPath(target: string | null | undefined, fallback = "/dashboard"): string {
  return sameSitePath(target) ?? fallback;
}

/** The target resolved to a path on this site (dot segments gone), or null if it is not one. */
export function sameSitePath(target: string | null | undefined): string | null {
  if (!target) return null;
  if (!isPathOnly(target)) return null;
  // Control characters and whitespace can be normalized away by browsers into a host.
  if ([...target].some((ch) => ch.charCodeAt(0) <= 0x20 || ch.charCodeAt(0) === 0x7f)) return null;
  let resolved: URL;
  try {
    resolved = new URL(target, ORIGIN);
  } catch {
    return null;
  }
  if (resolved.origin !== ORIGIN) return null;
  // Dot segments are resolved only now: check what the browser would be sent, not the input.
  if (!isPathOnly(resolved.pathname)) return null;
  // And what a server or browser that decodes once more (or twice) would make of it.
  let decoded = resolved.pathname;
  for (let round = 0; round < 3; round++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return null;
    }
    if (next === decoded) break;
    decoded = next;
    // Browsers drop tabs and newlines from URLs before parsing them.
    const stripped = decoded.replace(/[\t\n\r]/g, "");
    if (!isPathOnly(stripped)) return null;
    try {
      const again = new URL(stripped, ORIGIN);
      if (again.origin !== ORIGIN || !isPathOnly(again.pathname)) return null;
    } catch {
      return null;
    }
  }
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

/** A path on this site: one `/`, not followed by another `/` or a `\` (which browsers read as `/`). */
function isPathOnly(path: string): boolean {
  return path.startsWith("/") && !path.startsWith("//") && !path.startsWith("/\\");
}
