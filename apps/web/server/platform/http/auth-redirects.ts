// Redirects from /api/auth with spec §8's error codes. better-auth 1.7 names some failures its
// own way: a verification link's TOKEN_EXPIRED, INVALID_TOKEN, USER_NOT_FOUND and INVALID_USER
// (spec: token_expired, invalid_token, user_not_found, unauthorized), a lost or reused sign-in
// state_mismatch (spec: please_restart_the_process), email_does_not_match (spec:
// email_doesn't_match); and it answers a malformed provider callback with a 400 JSON body where
// the spec redirects with invalid_callback_request. A failed verification link also lands on
// the sign-in page, which explains the code, rather than on its callback (a signed-in page that
// would only send the signed-out user to sign in, without a word).
import type { Context, MiddlewareHandler } from "hono";

/** better-auth's redirect error codes that spec §8 names differently, wherever they come from. */
export const SPEC_REDIRECT_CODES: Readonly<Record<string, string>> = {
  state_mismatch: "please_restart_the_process",
  state_invalid: "please_restart_the_process",
  state_security_mismatch: "please_restart_the_process",
  email_does_not_match: "email_doesn't_match",
};

// GET /verify-email only: /reset-password/{token} keeps INVALID_TOKEN, as spec §7 and §8 say.
const VERIFY_EMAIL_CODES: Readonly<Record<string, string>> = {
  TOKEN_EXPIRED: "token_expired",
  INVALID_TOKEN: "invalid_token",
  USER_NOT_FOUND: "user_not_found",
  INVALID_USER: "unauthorized",
};

const SIGN_IN_PATH = "/auth/signin";
const EXPLAINING_PAGES = new Set([SIGN_IN_PATH, "/error"]);

/** For /api/auth/*: rewrites the error code of a redirect to this site (see the top). */
export function specAuthRedirects(baseUrl: string): MiddlewareHandler {
  const own = new URL(baseUrl).origin;
  return async (c, next) => {
    await next();
    const path = c.req.path;
    if (path.startsWith("/api/auth/callback/") && c.res.status === 400) {
      replace(c, redirect(c.res, `${own}/error?error=invalid_callback_request`));
      return;
    }
    if (c.res.status < 300 || c.res.status > 399) return;
    const location = c.res.headers.get("location");
    const target = location ? URL.parse(location, own) : null;
    const code = target?.searchParams.get("error");
    if (!target || target.origin !== own || !code) return;
    if (path === "/api/auth/verify-email") {
      const spec = VERIFY_EMAIL_CODES[code] ?? code;
      target.searchParams.delete("error");
      const back = `${target.pathname}${target.search}`;
      const next = EXPLAINING_PAGES.has(target.pathname)
        ? withError(back, spec)
        : `${SIGN_IN_PATH}?${new URLSearchParams({ redirect: back, error: spec })}`;
      replace(c, redirect(c.res, next));
      return;
    }
    const spec = SPEC_REDIRECT_CODES[code];
    if (!spec) return;
    target.searchParams.set("error", spec);
    replace(
      c,
      redirect(c.res, location?.startsWith("/") ? `${target.pathname}${target.search}` : target.href),
    );
  };
}

function withError(path: string, code: string): string {
  const url = new URL(path, "http://x");
  url.searchParams.set("error", code);
  return `${url.pathname}${url.search}`;
}

/** Replaces the response outright: assigning c.res alone would merge the old headers back in. */
function replace(c: Context, response: Response): void {
  c.res = undefined;
  c.res = response;
}

/** The same response (cookies and all) sent to another place. */
function redirect(response: Response, location: string): Response {
  const headers = new Headers(response.headers);
  headers.set("location", location);
  headers.delete("content-type");
  headers.delete("content-length");
  return new Response(null, { status: 302, headers });
}
