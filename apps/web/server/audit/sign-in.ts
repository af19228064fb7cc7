// Sign-ins for the audit log: a better-auth plugin whose after-hook sees every auth request once
// the others have run. A request that ends with a new session (ctx.context.newSession) for a
// caller who had none signed someone in: a password, a provider's callback, a verified email's
// automatic sign-in, a two-factor code. It runs after the two-factor plugin and account-rules,
// which drop the session of a sign-in still waiting for its code, so that sign-in is counted
// once, when the code is accepted. A new session for a caller already signed in (a password
// change replaces it) is not a sign-in.
import type { BetterAuthPlugin } from "better-auth";
import { createAuthMiddleware } from "better-auth/api";

export interface SignIn {
  userId: string;
  /** The client's address as better-auth saw it (CLIENT_IP_HEADER, set by the HTTP layer). */
  address: string | null;
  /** How: "password", "two-factor", "email-verification", or the provider's id. */
  method: string;
  userAgent: string | null;
}

function methodOf(path: string, params: Record<string, string> | undefined): string {
  if (path.startsWith("/sign-in/")) return path === "/sign-in/email" ? "password" : path.slice(9);
  if (path.startsWith("/two-factor/")) return "two-factor";
  if (path === "/verify-email") return "email-verification";
  if (path.includes("/callback/")) return params?.id ?? params?.providerId ?? "provider";
  return path.replace(/^\//, "");
}

export function signInAudit(record: (signIn: SignIn) => Promise<void>) {
  return {
    id: "packyard-sign-in-audit",
    hooks: {
      after: [
        {
          matcher: () => true,
          handler: createAuthMiddleware(async (ctx) => {
            const created = ctx.context.newSession;
            if (!created || ctx.context.session) return;
            await record({
              userId: created.user.id,
              address: created.session.ipAddress ?? null,
              method: methodOf(ctx.path ?? "", ctx.params as Record<string, string> | undefined),
              userAgent: created.session.userAgent ?? null,
            });
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
