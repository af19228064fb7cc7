// Rows of trusted publishing (migration 0034): a project's trusted publishers, the ID tokens
// already exchanged, and the publish tokens granted. use-cases.ts decides; this reads and writes.
import { createHash } from "node:crypto";
import { PUBLISH_TOKEN_PREFIX, type TrustedPublisherSummary } from "@packyard/contract/trusted-publishing.ts";
import type { Kysely, Selectable, Transaction } from "kysely";
import { randomId } from "../platform/core/ids.ts";
import type { Database, TrustedPublisherTable } from "../platform/db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export type TrustedPublisherRow = Selectable<TrustedPublisherTable>;

export function summaryOf(row: TrustedPublisherRow): TrustedPublisherSummary {
  return {
    id: row.id,
    provider: row.provider,
    issuer: row.issuer,
    repository: row.repository,
    workflow: row.workflow,
    environment: row.environment,
    ref: row.ref,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

export async function listTrustedPublishers(db: Db, projectId: string): Promise<TrustedPublisherSummary[]> {
  const rows = await db
    .selectFrom("trusted_publisher")
    .selectAll()
    .where("project_id", "=", projectId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(summaryOf);
}

/** A publisher with the project it belongs to, as an exchange finds it. */
export interface Candidate extends TrustedPublisherRow {
  project_slug: string;
  owner_id: string;
  owner_username: string | null;
}

/** The publishers trusting this issuer and repository (lowercased), with their projects. */
export function candidatesFor(db: Db, issuer: string, repository: string): Promise<Candidate[]> {
  return db
    .selectFrom("trusted_publisher")
    .innerJoin("project", "project.id", "trusted_publisher.project_id")
    .leftJoin("user as owner", "owner.id", "project.owner_id")
    .selectAll("trusted_publisher")
    .select(["project.slug as project_slug", "project.owner_id", "owner.username as owner_username"])
    .where("trusted_publisher.issuer", "=", issuer)
    .where("trusted_publisher.repository", "=", repository.toLowerCase())
    .orderBy("trusted_publisher.created_at")
    .execute();
}

/** Whether any project trusts tokens of this issuer: only such an issuer's keys are fetched. */
export async function issuerTrusted(db: Db, issuer: string): Promise<boolean> {
  const row = await db
    .selectFrom("trusted_publisher")
    .select("id")
    .where("issuer", "=", issuer)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Marks the ID token as exchanged; false when it already was (a replay). The row is kept until
 * the token expires, when it could not be exchanged anyway.
 */
export async function markTokenSeen(
  db: Db,
  issuer: string,
  jti: string,
  expiresAt: string,
): Promise<boolean> {
  const rows = await db
    .insertInto("oidc_token_seen")
    .values({ issuer, jti, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(["issuer", "jti"]).doNothing())
    .returning("jti")
    .execute();
  return rows.length === 1;
}

export function newPublishToken(): string {
  return `${PUBLISH_TOKEN_PREFIX}${randomId(40)}`;
}

export function hashPublishToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function isPublishToken(credential: string): boolean {
  return credential.startsWith(PUBLISH_TOKEN_PREFIX);
}

/** A publish token found by its secret (expired or not). */
export function findPublishToken(db: Db, token: string) {
  return db
    .selectFrom("publish_token")
    .leftJoin("organization", "organization.id", "publish_token.owner_id")
    .select([
      "publish_token.id",
      "publish_token.owner_id",
      "publish_token.projects",
      "publish_token.publisher",
      "publish_token.token_start",
      "publish_token.expires_at",
      "organization.id as org_id",
    ])
    .where("publish_token.token_hash", "=", hashPublishToken(token))
    .executeTakeFirst();
}

/** Forgets exchanged ID tokens and publish tokens past their expiry (the maintenance job). */
export async function deleteExpiredTrustedPublishing(db: Db, now: Date): Promise<number> {
  const at = now.toISOString();
  const seen = await db.deleteFrom("oidc_token_seen").where("expires_at", "<", at).executeTakeFirst();
  const tokens = await db.deleteFrom("publish_token").where("expires_at", "<", at).executeTakeFirst();
  return Number(seen.numDeletedRows) + Number(tokens.numDeletedRows);
}
