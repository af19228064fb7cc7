// Session lookups for loaders and actions. Guards throw a redirect Response.

import { planParams } from "@packyard/contract/plans.ts";
import { type RouterContextProvider, redirect } from "react-router";
import { requestContext } from "../../server/platform/http/request-context.ts";
import { signInUrl } from "./redirects.ts";

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  image: string | null;
  emailVerified: boolean;
  username: string | null;
  /** The organization whose identity provider made this session (docs/sso.md), if one did. */
  ssoOrganizationId: string | null;
}

type Context = Readonly<RouterContextProvider>;

export function services(context: Context) {
  return context.get(requestContext).services;
}

/** The client's address (TRUST_PROXY decides), for the audit log. */
export function clientAddress(context: Context): string {
  return context.get(requestContext).clientAddress;
}

export async function getSessionUser(request: Request, context: Context): Promise<SessionUser | null> {
  const session = await services(context).auth.api.getSession({ headers: request.headers });
  if (!session) return null;
  const u = session.user;
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    image: u.image ?? null,
    emailVerified: Boolean(u.emailVerified),
    username: (u.username as string | null | undefined) ?? null,
    ssoOrganizationId: (session.session as { ssoOrganizationId?: string | null }).ssoOrganizationId ?? null,
  };
}

/** Signed in, or a redirect to sign-in that brings the visitor back to this page. */
export async function requireUser(request: Request, context: Context, url: URL): Promise<SessionUser> {
  const user = await getSessionUser(request, context);
  if (!user) throw redirect(signInUrl(url));
  return user;
}

/** Signed in and onboarded (has a username). */
export async function requireOnboardedUser(
  request: Request,
  context: Context,
  url: URL,
): Promise<SessionUser & { username: string }> {
  const user = await requireUser(request, context, url);
  if (!user.username) {
    const params = planParams(url.searchParams);
    throw redirect(`/onboarding${params.size ? `?${params}` : ""}`);
  }
  return user as SessionUser & { username: string };
}
