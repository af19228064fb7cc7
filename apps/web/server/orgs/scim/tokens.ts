// An organization's SCIM bearer tokens (issue 43, docs/sso.md): what its identity provider
// provisions with. Owners create them (the secret is shown once), list them (without it) and
// revoke them; each change is in the organization's log. A token alone names its organization:
// only its SHA-256 and its first characters are kept, and a request's token is found by that
// hash. A token's use is remembered (last_used_at) at most once a minute.
import { createHash, randomBytes } from "node:crypto";
import type { Actor } from "../../platform/core/authorization.ts";
import { DomainError, notFound } from "../../platform/core/errors.ts";
import { newRowId } from "../../platform/core/ids.ts";
import { type Caller, change, type Db } from "../../platform/core/use-case.ts";
import { assertSsoPlan } from "../sso.ts";
import { personOf, requireOrganization } from "../storage.ts";

/** The prefix of every SCIM token: `pks_` and 32 random bytes, base64url. */
export const SCIM_TOKEN_PREFIX = "pks_";
/** How many of a token's first characters are kept to name it (the prefix and 4 more). */
const TOKEN_START_LENGTH = 8;
/** A token's use is written down at most this often. */
const LAST_USED_EVERY_MS = 60_000;
/** How the audit log names the credential an identity provider provisions with. */
export const SCIM_TOKEN_NAME = "SCIM token";

export interface ScimTokenSummary {
  id: string;
  start: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export const isScimToken = (token: string) => token.startsWith(SCIM_TOKEN_PREFIX);
const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** Creates a token (owners): answered with the secret, which is kept nowhere. */
export async function createScimToken(
  deps: { db: Db; planLimits: boolean; clock?: () => Date },
  caller: Caller,
  input: { organization: string },
): Promise<{ token: string; summary: ScimTokenSummary }> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "own");
  // SCIM is part of single sign-on, a Pro feature: PLAN_LIMIT below it (orgs/sso.ts).
  await assertSsoPlan(deps, org);
  const token = `${SCIM_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = {
    id: newRowId(),
    org_id: org.id,
    token_hash: hashOf(token),
    token_start: token.slice(0, TOKEN_START_LENGTH),
    created_by: actor.userId,
    created_at: (deps.clock?.() ?? new Date()).toISOString(),
    last_used_at: null,
  };
  await change(deps.db, caller, async (tx, record) => {
    await tx.insertInto("scim_token").values(row).execute();
    record.audit({
      ownerId: org.id,
      action: "organization.scim_token_created",
      target: `${row.token_start}…`,
      details: { id: row.id },
    });
  });
  return {
    token,
    summary: { id: row.id, start: row.token_start, createdAt: row.created_at, lastUsedAt: null },
  };
}

/** The organization's tokens, newest first, without their secrets (owners). */
export async function listScimTokens(
  db: Db,
  actor: Actor,
  organization: string,
): Promise<ScimTokenSummary[]> {
  const { org } = await requireOrganization(db, actor, organization, "own");
  const rows = await db
    .selectFrom("scim_token")
    .select(["id", "token_start", "created_at", "last_used_at"])
    .where("org_id", "=", org.id)
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
  return rows.map((r) => ({
    id: r.id,
    start: r.token_start,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
  }));
}

/** Revokes a token (owners): the identity provider's next request with it is refused. */
export async function revokeScimToken(
  deps: { db: Db },
  caller: Caller,
  input: { organization: string; id: string },
): Promise<void> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "own");
  await change(deps.db, caller, async (tx, record) => {
    const row = await tx
      .selectFrom("scim_token")
      .select(["id", "token_start"])
      .where("id", "=", input.id)
      .where("org_id", "=", org.id)
      .executeTakeFirst();
    if (!row) throw notFound("SCIM token not found");
    await tx.deleteFrom("scim_token").where("id", "=", row.id).execute();
    record.audit({
      ownerId: org.id,
      action: "organization.scim_token_revoked",
      target: `${row.token_start}…`,
      details: { id: row.id },
    });
  });
}

/** The organization a SCIM request acts for, and the caller its changes are recorded under. */
export interface ScimClient {
  org: { id: string; slug: string };
  tokenId: string;
  caller: Caller;
}

/**
 * The organization a bearer token belongs to, or UNAUTHENTICATED. The caller it acts as is the
 * organization's own account through a key named after the token (the way trusted publishing
 * names its publish tokens, authorization.ts's keyName): the audit log then shows "SCIM token
 * pks_abcd…" as the actor of every provisioning change, under the organization's name, and the
 * key can reach no project (its scope names none) should it ever be handed to anything else.
 */
export async function authenticateScimToken(
  db: Db,
  token: string | undefined,
  address: string | null,
  now: Date,
): Promise<ScimClient> {
  if (!token || !isScimToken(token))
    throw new DomainError(
      "UNAUTHENTICATED",
      "Send the organization's SCIM token: Authorization: Bearer pks_…",
    );
  const row = await db
    .selectFrom("scim_token")
    .innerJoin("organization", "organization.id", "scim_token.org_id")
    .select([
      "scim_token.id",
      "scim_token.token_start",
      "scim_token.last_used_at",
      "organization.id as org_id",
      "organization.slug",
    ])
    .where("scim_token.token_hash", "=", hashOf(token))
    .executeTakeFirst();
  if (!row) throw new DomainError("UNAUTHENTICATED", "This SCIM token is not valid (revoked, or never was)");
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_EVERY_MS)
    await db
      .updateTable("scim_token")
      .set({ last_used_at: now.toISOString() })
      .where("id", "=", row.id)
      .execute();
  const actor: Actor = {
    kind: "key",
    userId: row.org_id,
    keyId: row.id,
    scope: { projects: [], access: "read" },
    org: true,
    keyName: SCIM_TOKEN_NAME,
    keyStart: row.token_start,
  };
  return { org: { id: row.org_id, slug: row.slug }, tokenId: row.id, caller: { actor, address } };
}
