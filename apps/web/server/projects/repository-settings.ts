// A project's repository settings (decision 027): the expiry of its new signing keys, and what
// its APT Release files say — Valid-Until (off by default), Origin, Label and Codename. Changing
// what Release says re-publishes the project's repositories through the change log: the revision
// goes up (with no release named, so publishers reload the package list once) and the event
// queues the publish, so a crash before it leaves the project to the publish job.
import type { RepositorySettings, UpdateRepositorySettingsInput } from "@packyard/contract";
import type { Kysely } from "kysely";
import { type Actor, REPOSITORY_SETTINGS_ACCESS } from "../platform/core/authorization.ts";
import { nowIso } from "../platform/core/ids.ts";
import type { Database } from "../platform/db/schema.ts";
import { type ProjectRow, requireOwnProject } from "./storage.ts";

type Db = Kysely<Database>;

export const DAY_MS = 24 * 60 * 60 * 1000;
/** The suite packages go to unless an upload names another (apt/ingest.ts). */
export const DEFAULT_SUITE = "stable";
export const DEFAULT_ORIGIN = "Packyard";

type SettingsColumns = Pick<
  ProjectRow,
  "slug" | "apt_label" | "apt_origin" | "apt_codename" | "apt_valid_until_days" | "key_expiry_days"
>;

/** What the APT builder writes into Release (the codename applies to the default suite). */
export interface AptReleaseSettings {
  origin: string;
  label: string;
  /** null: the suite's name. */
  codename: string | null;
  /** null: no Valid-Until. */
  validUntilDays: number | null;
}

export function aptReleaseSettings(project: SettingsColumns, username: string): AptReleaseSettings {
  return {
    origin: project.apt_origin ?? DEFAULT_ORIGIN,
    label: project.apt_label ?? `${username}/${project.slug}`,
    codename: project.apt_codename,
    validUntilDays: project.apt_valid_until_days === null ? null : Number(project.apt_valid_until_days),
  };
}

export function repositorySettingsOf(project: SettingsColumns, username: string): RepositorySettings {
  const apt = aptReleaseSettings(project, username);
  return {
    keyExpiryDays: project.key_expiry_days === null ? null : Number(project.key_expiry_days),
    aptValidUntilDays: apt.validUntilDays,
    aptOrigin: apt.origin,
    aptLabel: apt.label,
    aptCodename: apt.codename ?? DEFAULT_SUITE,
    defaults: {
      aptOrigin: DEFAULT_ORIGIN,
      aptLabel: `${username}/${project.slug}`,
      aptCodename: DEFAULT_SUITE,
    },
  };
}

async function ownerUsername(db: Db, ownerId: string): Promise<string> {
  const owner = await db.selectFrom("user").select("username").where("id", "=", ownerId).executeTakeFirst();
  return owner?.username ?? "";
}

export async function getRepositorySettings(db: Db, actor: Actor, slug: string): Promise<RepositorySettings> {
  const project = await requireOwnProject(db, actor, slug, "read");
  return repositorySettingsOf(project, await ownerUsername(db, project.owner_id));
}

/**
 * Changes the settings; `releaseChanged`: what Release says changed, so the caller announces
 * the project's packages changed (projects/use-cases.ts) and its repositories are re-published.
 */
export async function updateRepositorySettings(
  db: Db,
  actor: Actor,
  slug: string,
  input: UpdateRepositorySettingsInput,
): Promise<{ settings: RepositorySettings; releaseChanged: boolean }> {
  const project = await requireOwnProject(db, actor, slug, REPOSITORY_SETTINGS_ACCESS);
  const username = await ownerUsername(db, project.owner_id);
  const changes: Partial<SettingsColumns> = {};
  if (input.keyExpiryDays !== undefined) changes.key_expiry_days = input.keyExpiryDays;
  if (input.aptValidUntilDays !== undefined) changes.apt_valid_until_days = input.aptValidUntilDays;
  if (input.aptOrigin !== undefined) changes.apt_origin = input.aptOrigin;
  if (input.aptCodename !== undefined) changes.apt_codename = input.aptCodename;
  if (input.aptLabel !== undefined)
    // The default Label stored as null, so a later username change fixes it (usernames.ts).
    changes.apt_label = input.aptLabel === `${username}/${project.slug}` ? null : input.aptLabel;
  const updated = { ...project, ...changes };
  const before = aptReleaseSettings(project, username);
  const after = aptReleaseSettings(updated, username);
  const releaseChanged = (Object.keys(before) as (keyof AptReleaseSettings)[]).some(
    (field) => before[field] !== after[field],
  );
  if (Object.keys(changes).length === 0)
    return { settings: repositorySettingsOf(project, username), releaseChanged: false };
  await db
    .updateTable("project")
    .set((eb) => ({
      ...changes,
      updated_at: nowIso(),
      ...(releaseChanged ? { index_revision: eb("index_revision", "+", 1) } : {}),
    }))
    .where("id", "=", project.id)
    .execute();
  return { settings: repositorySettingsOf(updated, username), releaseChanged };
}
