// Recording an action a request carried out: the caller (a session or an API key, as
// authorization.ts knows it) and the client's address travel together as an AuditSource, built
// once per request by the API routes (apiAuditSource) and the dashboard actions
// (lib/dashboard.server.ts), and the entry lands in the project owner's log or the caller's own.
import type { Project, RepositorySettings } from "@packyard/contract";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { KeySummary } from "../domain/api-keys.ts";
import type { Actor } from "../domain/authorization.ts";
import type { ProjectRow } from "../domain/projects.ts";
import { type AuditAction, type AuditActor, recordAudit } from "./record.ts";

export interface AuditSource {
  actor: Actor;
  /** The client's address (request-log.ts's clientAddress: TRUST_PROXY decides). */
  address: string | null;
}

export function auditActorOf(actor: Actor): AuditActor {
  return actor.kind === "key"
    ? { kind: "key", userId: actor.userId, keyId: actor.keyId }
    : { kind: "user", userId: actor.userId };
}

interface Entry {
  action: AuditAction;
  target?: string | null;
  details?: Record<string, unknown>;
}

/** An action on a project: in its owner's log and the project's. */
export function auditProjectAction(
  db: Kysely<Database>,
  source: AuditSource,
  project: Pick<ProjectRow, "id" | "owner_id"> & { slug?: string },
  entry: Entry,
): Promise<void> {
  return recordAudit(db, {
    ownerId: project.owner_id,
    projectId: project.id,
    projectSlug: project.slug,
    actor: auditActorOf(source.actor),
    address: source.address,
    ...entry,
  });
}

/** An action on the caller's own account (API keys): in their log. */
export function auditAccountAction(db: Kysely<Database>, source: AuditSource, entry: Entry): Promise<void> {
  return recordAudit(db, {
    ownerId: source.actor.userId,
    actor: auditActorOf(source.actor),
    address: source.address,
    ...entry,
  });
}

const PROJECT_FIELDS = ["name", "description", "visibility", "homepage", "sourceUrl", "license"] as const;

/** The project's fields an edit changed, by their API names. */
export function changedProjectFields(before: ProjectRow, after: Project): string[] {
  const old: Record<(typeof PROJECT_FIELDS)[number], string | null> = {
    name: before.name,
    description: before.description,
    visibility: before.visibility,
    homepage: before.homepage,
    sourceUrl: before.source_url,
    license: before.license,
  };
  return PROJECT_FIELDS.filter((field) => (old[field] ?? null) !== (after[field] ?? null));
}

/**
 * A project edit as one entry: visibility_changed when its visibility changed (with whatever else
 * changed in the same edit), updated otherwise; nothing when nothing changed.
 */
export async function auditProjectUpdate(
  db: Kysely<Database>,
  source: AuditSource,
  before: ProjectRow,
  after: Project,
): Promise<void> {
  const changed = changedProjectFields(before, after);
  if (changed.length === 0) return;
  const visibility = changed.includes("visibility");
  await auditProjectAction(db, source, before, {
    action: visibility ? "project.visibility_changed" : "project.updated",
    target: before.slug,
    details: visibility ? { from: before.visibility, to: after.visibility, changed } : { changed },
  });
}

/** What an API key entry keeps of the key: enough to recognise it after it is gone. */
export function apiKeyDetails(key: Pick<KeySummary, "id" | "start" | "scope" | "expiresAt">) {
  return {
    keyId: key.id,
    start: key.start,
    access: key.scope.access,
    projects: key.scope.projects,
    expiresAt: key.expiresAt,
  };
}

/** A change of a project's repository settings (decision 027) as one project.updated entry. */
export async function auditRepositorySettings(
  db: Kysely<Database>,
  source: AuditSource,
  project: Pick<ProjectRow, "id" | "owner_id" | "slug">,
  before: RepositorySettings,
  after: RepositorySettings,
): Promise<void> {
  const changed = (Object.keys(after) as (keyof RepositorySettings)[]).filter(
    (field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]),
  );
  if (changed.length === 0) return;
  await auditProjectAction(db, source, project, {
    action: "project.updated",
    target: project.slug,
    details: { changed, repositorySettings: true },
  });
}
