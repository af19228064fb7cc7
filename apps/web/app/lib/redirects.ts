// The same-site check is shared with the authentication API (server/auth/redirect-targets.ts).
export { safeRedirectPath } from "@packyard/contract/redirects.ts";

/** /auth/signin?redirect=… for the page the visitor tried to open. */
export function signInUrl(url: URL): string {
  const target = `${url.pathname}${url.search}`;
  return `/auth/signin?${new URLSearchParams({ redirect: target })}`;
}
