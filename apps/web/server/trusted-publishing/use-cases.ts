// Trusted publishing as use cases (docs/ci/, decision 082). A project's managers add and remove
// the CI workflows it trusts; a CI job trades its OpenID Connect ID token for a publish token of
// 15 minutes for the projects whose publishers its claims match. Every exchange, granted or
// refused, is in the audit log of each project it concerns, with the token's claims; the actor
// is the trusted publisher the token came as.
import {
  type CiClaims,
  type CreateTrustedPublisherInput,
  claimedRepository,
  describeTrustedPublisher,
  type ExchangeIdTokenAnswer,
  type ExchangeIdTokenInput,
  issuerOf,
  MAX_TRUSTED_PUBLISHERS,
  mismatch,
  PUBLISH_TOKEN_TTL_SECONDS,
  type TrustedPublisherProvider,
  type TrustedPublisherSummary,
} from "@packyard/contract/trusted-publishing.ts";
import { decodeJwt, type JWTPayload } from "jose";
import { usernameKey } from "../accounts/usernames.ts";
import type { AuditActor } from "../audit/record.ts";
import {
  TRUSTED_PUBLISHER_MANAGE_ACCESS,
  TRUSTED_PUBLISHER_READ_ACCESS,
} from "../platform/core/authorization.ts";
import { DomainError, notFound } from "../platform/core/errors.ts";
import { newRowId } from "../platform/core/ids.ts";
import { type Caller, change, type Db, type PersonCaller } from "../platform/core/use-case.ts";
import { requireOwnProject } from "../projects/storage.ts";
import { type IssuerKeys, invalidToken } from "./issuer-keys.ts";
import {
  type Candidate,
  candidatesFor,
  hashPublishToken,
  issuerTrusted,
  listTrustedPublishers,
  markTokenSeen,
  newPublishToken,
  summaryOf,
} from "./storage.ts";

export interface TrustedPublishingDeps {
  db: Db;
  clock: () => Date;
  /** BASE_URL: the audience an ID token must be for. */
  audience: string;
  keys: IssuerKeys;
}

/** The publishers a project trusts (oversee access). */
export async function listProjectTrustedPublishers(
  deps: Pick<TrustedPublishingDeps, "db">,
  caller: PersonCaller,
  projectRef: string,
): Promise<TrustedPublisherSummary[]> {
  const project = await requireOwnProject(deps.db, caller.actor, projectRef, TRUSTED_PUBLISHER_READ_ACCESS);
  return listTrustedPublishers(deps.db, project.id);
}

/** Trusts a CI workflow to publish to the project (manage access). */
export async function addTrustedPublisher(
  deps: Pick<TrustedPublishingDeps, "db" | "clock">,
  caller: PersonCaller,
  input: { project: string; publisher: CreateTrustedPublisherInput },
): Promise<TrustedPublisherSummary> {
  const { db } = deps;
  const project = await requireOwnProject(db, caller.actor, input.project, TRUSTED_PUBLISHER_MANAGE_ACCESS);
  const p = input.publisher;
  const row = {
    id: newRowId(),
    project_id: project.id,
    provider: p.provider,
    issuer: issuerOf(p),
    repository: (p.provider === "github" ? p.repository : p.projectPath).toLowerCase(),
    workflow: p.provider === "github" ? (p.workflow ?? null) : null,
    environment: p.environment ?? null,
    ref: p.ref ?? null,
    created_at: deps.clock().toISOString(),
    last_used_at: null,
  };
  return change(db, caller, async (tx, record) => {
    const existing = await listTrustedPublishers(tx, project.id);
    if (existing.length >= MAX_TRUSTED_PUBLISHERS)
      throw new DomainError(
        "VALIDATION_FAILED",
        `A project trusts at most ${MAX_TRUSTED_PUBLISHERS} publishers: remove one first`,
      );
    const same = existing.find(
      (e) =>
        e.provider === row.provider &&
        e.issuer === row.issuer &&
        e.repository === row.repository &&
        e.workflow === row.workflow &&
        e.environment === row.environment &&
        e.ref === row.ref,
    );
    if (same)
      throw new DomainError("VALIDATION_FAILED", "The project already trusts this publisher", {
        repository: "already trusted with these conditions",
      });
    await tx.insertInto("trusted_publisher").values(row).execute();
    const summary = summaryOf(row);
    record.audit({
      ownerId: project.owner_id,
      projectId: project.id,
      projectSlug: project.slug,
      action: "trusted_publishing.publisher_added",
      target: describeTrustedPublisher(summary),
      details: publisherDetails(summary),
    });
    return summary;
  });
}

/** Stops trusting a publisher; publish tokens it already got expire on their own. */
export async function removeTrustedPublisher(
  deps: Pick<TrustedPublishingDeps, "db">,
  caller: PersonCaller,
  input: { project: string; id: string },
): Promise<void> {
  const { db } = deps;
  const project = await requireOwnProject(db, caller.actor, input.project, TRUSTED_PUBLISHER_MANAGE_ACCESS);
  await change(db, caller, async (tx, record) => {
    const row = await tx
      .selectFrom("trusted_publisher")
      .selectAll()
      .where("id", "=", input.id)
      .where("project_id", "=", project.id)
      .executeTakeFirst();
    if (!row) throw notFound("No such trusted publisher");
    await tx.deleteFrom("trusted_publisher").where("id", "=", row.id).execute();
    const summary = summaryOf(row);
    record.audit({
      ownerId: project.owner_id,
      projectId: project.id,
      projectSlug: project.slug,
      action: "trusted_publishing.publisher_removed",
      target: describeTrustedPublisher(summary),
      details: publisherDetails(summary),
    });
  });
}

function publisherDetails(p: TrustedPublisherSummary) {
  return {
    publisherId: p.id,
    provider: p.provider,
    issuer: p.issuer,
    repository: p.repository,
    workflow: p.workflow,
    environment: p.environment,
    ref: p.ref,
  };
}

// ---------------------------------------------------------------------------------------------
// The exchange.

/** The claims an audit entry keeps: what says where a token came from, never anything secret. */
const KEPT_CLAIMS = [
  "iss",
  "aud",
  "sub",
  "jti",
  "iat",
  "exp",
  "repository",
  "repository_id",
  "repository_owner",
  "repository_owner_id",
  "workflow_ref",
  "job_workflow_ref",
  "ref",
  "ref_type",
  "sha",
  "environment",
  "event_name",
  "run_id",
  "run_attempt",
  "actor",
  "project_path",
  "project_id",
  "namespace_path",
  "pipeline_id",
  "ci_config_ref_uri",
  "pipeline_source",
  "user_login",
] as const;

function keptClaims(payload: JWTPayload): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const name of KEPT_CLAIMS) {
    const value = payload[name];
    if (typeof value === "string") kept[name] = value.slice(0, 300);
    else if (typeof value === "number" || typeof value === "boolean") kept[name] = value;
    else if (Array.isArray(value)) kept[name] = value.slice(0, 5).map((v) => String(v).slice(0, 300));
  }
  return kept;
}

function ciClaims(payload: JWTPayload, iss: string): CiClaims {
  const text = (name: string) => (typeof payload[name] === "string" ? (payload[name] as string) : undefined);
  return {
    iss,
    repository: text("repository"),
    workflow_ref: text("workflow_ref"),
    ref: text("ref"),
    ref_type: text("ref_type"),
    project_path: text("project_path"),
    environment: text("environment"),
  };
}

/** The trusted publisher as the actor of the entries its exchange writes. */
function publisherActor(candidate: Candidate, tokenStart?: string): AuditActor {
  return {
    kind: "key",
    userId: candidate.owner_id,
    keyId: candidate.id,
    keyName: describeTrustedPublisher(summaryOf(candidate)),
    keyStart: tokenStart ?? null,
  };
}

/**
 * Trades a CI's ID token for a publish token: verifies it with its issuer's keys, matches its
 * claims against the trusted publishers, refuses a token id seen before, and grants a token of
 * 15 minutes for the matching projects of one account.
 */
export async function exchangeIdToken(
  deps: TrustedPublishingDeps,
  address: string | null,
  input: ExchangeIdTokenInput,
): Promise<ExchangeIdTokenAnswer> {
  const { db } = deps;
  const caller: Caller = { actor: { kind: "system" }, address };
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(input.token);
  } catch {
    throw invalidToken("The token is not a JSON Web Token: send the CI's OpenID Connect ID token");
  }
  const iss = typeof unverified.iss === "string" ? unverified.iss.replace(/\/+$/, "") : "";
  if (!iss) throw invalidToken("The ID token names no issuer (iss)");
  // Only an issuer some project trusts is ever asked for its keys.
  if (!(await issuerTrusted(db, iss)))
    throw new DomainError("OIDC_NO_TRUSTED_PUBLISHER", `No project trusts ID tokens from ${iss}`);
  const provider: TrustedPublisherProvider =
    typeof unverified.project_path === "string" ? "gitlab" : "github";
  const repositoryOf = (payload: JWTPayload) => claimedRepository(provider, ciClaims(payload, iss)) ?? "";
  const candidates = repositoryOf(unverified) ? await candidatesFor(db, iss, repositoryOf(unverified)) : [];

  /** Writes a refused exchange in the log of each project concerned, then throws. */
  const refuse = async (error: DomainError, payload: JWTPayload, verified: boolean, to: Candidate[]) => {
    if (to.length > 0)
      await change(db, caller, async (_tx, record) => {
        for (const candidate of to)
          record.audit({
            ownerId: candidate.owner_id,
            projectId: candidate.project_id,
            projectSlug: candidate.project_slug,
            actor: publisherActor(candidate),
            action: "trusted_publishing.refused",
            target: describeTrustedPublisher(summaryOf(candidate)),
            details: { code: error.code, reason: error.message, verified, claims: keptClaims(payload) },
          });
      });
    throw error;
  };

  let payload: JWTPayload;
  try {
    payload = await deps.keys.verify(input.token, iss, deps.audience);
  } catch (error) {
    if (error instanceof DomainError && error.code === "OIDC_TOKEN_INVALID")
      return refuse(error, unverified, false, candidates);
    throw error;
  }
  // Verified: the claims are the issuer's own.
  const claims = ciClaims(payload, iss);
  const reasons = candidates.map((c) => mismatch(summaryOf(c), claims));
  let matched = candidates.filter((_, i) => reasons[i] === null);
  if (matched.length === 0) {
    const reason = reasons.find((r) => r !== null);
    const repository = repositoryOf(payload);
    const message = reason
      ? `${repository} is trusted, but not this token's ${reason === "ref" ? `ref (${claims.ref})` : reason === "workflow" ? "workflow" : reason === "environment" ? `environment (${claims.environment ?? "none"})` : reason}`
      : `No project trusts ${repository ? `${provider === "github" ? "the repository" : "the project"} ${repository}` : "this token"} from ${iss}`;
    return refuse(new DomainError("OIDC_NO_TRUSTED_PUBLISHER", message), payload, true, candidates);
  }
  if (input.owner !== undefined) {
    const owner = usernameKey(input.owner);
    matched = matched.filter((c) => usernameKey(c.owner_username ?? "") === owner);
    if (matched.length === 0)
      return refuse(
        new DomainError("OIDC_NO_TRUSTED_PUBLISHER", `No project of ${input.owner} trusts this token`),
        payload,
        true,
        candidates,
      );
  }
  const owners = [...new Set(matched.map((c) => c.owner_id))];
  if (owners.length > 1)
    throw new DomainError(
      "OIDC_AMBIGUOUS_OWNER",
      `Projects of several accounts trust this token (${[...new Set(matched.map((c) => c.owner_username))].join(", ")}): send "owner" with the account to publish to`,
    );
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + PUBLISH_TOKEN_TTL_SECONDS * 1000).toISOString();
  const token = newPublishToken();
  const start = token.slice(0, 8);
  const projectIds = [...new Set(matched.map((c) => c.project_id))];
  const granted = await change(db, caller, async (tx, record) => {
    const exp = typeof payload.exp === "number" ? new Date(payload.exp * 1000).toISOString() : expiresAt;
    if (!(await markTokenSeen(tx, iss, String(payload.jti), exp))) return false;
    const publisher = matched[0]!;
    await tx
      .insertInto("publish_token")
      .values({
        id: newRowId(),
        token_hash: hashPublishToken(token),
        token_start: start,
        owner_id: publisher.owner_id,
        projects: JSON.stringify(projectIds),
        publisher: describeTrustedPublisher(summaryOf(publisher)),
        // What a package published with it records as its provenance (npm, PyPI).
        claims: JSON.stringify(keptClaims(payload)),
        expires_at: expiresAt,
        created_at: now.toISOString(),
      })
      .execute();
    await tx
      .updateTable("trusted_publisher")
      .set({ last_used_at: now.toISOString() })
      .where(
        "id",
        "in",
        matched.map((c) => c.id),
      )
      .execute();
    const logged = new Set<string>();
    for (const candidate of matched) {
      if (logged.has(candidate.project_id)) continue;
      logged.add(candidate.project_id);
      record.audit({
        ownerId: candidate.owner_id,
        projectId: candidate.project_id,
        projectSlug: candidate.project_slug,
        actor: publisherActor(candidate, start),
        action: "trusted_publishing.granted",
        target: describeTrustedPublisher(summaryOf(candidate)),
        details: { expiresAt, tokenStart: start, claims: keptClaims(payload) },
      });
    }
    return true;
  });
  if (!granted)
    return refuse(
      new DomainError(
        "OIDC_TOKEN_REPLAYED",
        "This ID token was already exchanged: request a new one from the CI for each exchange",
      ),
      payload,
      true,
      matched,
    );
  const names = new Map(matched.map((c) => [c.project_id, `${c.owner_username ?? ""}/${c.project_slug}`]));
  return { token, expiresAt, projects: projectIds.map((id) => names.get(id)!) };
}
