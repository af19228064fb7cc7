// Spec §5: every redirect target the authentication API takes (callbackURL, redirectTo,
// errorCallbackURL, newUserCallbackURL; in the query or the body, on every endpoint) must be on a
// trusted origin or a safe relative path, else 403 'Invalid {field}'. better-auth's own check
// takes `/..//host` and `/%2e%2e//host` for relative paths, then redirects to them once resolved
// (`//host`), so Packyard checks first, with the pages' same-site check (contract/redirects.ts).

import { sameSitePath } from "@packyard/contract/redirects.ts";
import { APIError, type createAuthMiddleware } from "better-auth/api";

type HookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

/** Each field, with the code better-auth gives its refusal and spec §5's message. */
const REDIRECT_FIELDS = [
  { field: "callbackURL", code: "INVALID_CALLBACK_URL" },
  { field: "redirectTo", code: "INVALID_REDIRECT_URL" },
  { field: "errorCallbackURL", code: "INVALID_ERROR_CALLBACK_URL" },
  { field: "newUserCallbackURL", code: "INVALID_NEW_USER_CALLBACK_URL" },
] as const;

/** Throws 403 'Invalid {field}' for the first redirect target that could leave the site. */
export function refuseUnsafeRedirectTargets(ctx: HookContext): void {
  for (const source of [ctx.query, ctx.body] as unknown[]) {
    if (!source || typeof source !== "object") continue;
    for (const { field, code } of REDIRECT_FIELDS) {
      const value = (source as Record<string, unknown>)[field];
      // Absent or empty: better-auth uses its default target.
      if (value === undefined || value === null || value === "") continue;
      const values = Array.isArray(value) ? value : [value];
      if (!values.every((v) => typeof v === "string" && isAllowedTarget(ctx, v)))
        throw APIError.from("FORBIDDEN", { message: `Invalid ${field}`, code });
    }
  }
}

function isAllowedTarget(ctx: HookContext, target: string): boolean {
  // Whatever starts with "/" is a path here: judged after dot segments and percent-escapes.
  if (target.startsWith("/") || target.startsWith("\\")) return sameSitePath(target) !== null;
  // Browsers drop or rewrite control characters and whitespace; an absolute URL needs none.
  if ([...target].some((ch) => ch <= " " || (ch >= "\u007f" && ch <= "\u009f") || ch === "\\")) return false;
  return ctx.context.isTrustedOrigin(target);
}
