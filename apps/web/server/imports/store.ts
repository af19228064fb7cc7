// Import rows (table `import`, migration 0018): what an import reads (its settings without
// secrets), its secrets sealed with the server secret the way signing keys' private keys are,
// its status, progress, per-release errors and summary, and how many times its job started
// (migration 0029). Only the job reads the secrets back.
import {
  type ImportFailure,
  type ImportInfo,
  type ImportKind,
  type ImportProgress,
  type ImportSourceInput,
  type ImportSourceSummary,
  type ImportStatus,
  importEnded,
} from "@packyard/contract";
import { decryptPrivateKey, encryptPrivateKey } from "@packyard/formats/openpgp/index.ts";
import type { Kysely, Selectable } from "kysely";
import { notFound } from "../platform/core/errors.ts";
import { newRowId, nowIso } from "../platform/core/ids.ts";
import type { Database, ImportTable } from "../platform/db/schema.ts";

export type ImportRow = Selectable<ImportTable>;
type Db = Kysely<Database>;

/** The secrets of a source: the ones its kind has. */
interface Credentials {
  token?: string;
  password?: string;
}

const context = (id: string) => ({ context: `packyard import credentials ${id}` });

export const emptyProgress = (): ImportProgress => ({
  releasesTotal: null,
  releasesDone: 0,
  releasesSkipped: 0,
  releasesFailed: 0,
  filesDone: 0,
  bytesDone: 0,
  current: null,
});

/** The settings without secrets, and the secrets. */
export function splitSecrets(source: ImportSourceInput): {
  settings: ImportSourceSummary;
  credentials: Credentials;
} {
  switch (source.kind) {
    case "github-releases":
      return {
        settings: {
          kind: source.kind,
          repository: source.repository,
          includePrereleases: source.includePrereleases,
          includeDrafts: source.includeDrafts,
          authenticated: source.token !== undefined,
        },
        credentials: source.token === undefined ? {} : { token: source.token },
      };
    case "apt-repository":
      return {
        settings: {
          kind: source.kind,
          url: source.url,
          distribution: source.distribution,
          components: source.components ?? null,
          release: source.release ?? null,
          authenticated: source.username !== undefined || source.password !== undefined,
          ...(source.username === undefined ? {} : { username: source.username }),
        } as ImportSourceSummary,
        credentials: source.password === undefined ? {} : { password: source.password },
      };
    case "yum-repository":
      return {
        settings: {
          kind: source.kind,
          url: source.url,
          release: source.release ?? null,
          authenticated: source.username !== undefined || source.password !== undefined,
          ...(source.username === undefined ? {} : { username: source.username }),
        } as ImportSourceSummary,
        credentials: source.password === undefined ? {} : { password: source.password },
      };
  }
}

/** The source as it was asked for, secrets included: for the job only. */
export function sourceOf(row: ImportRow, serverSecret: string): ImportSourceInput {
  const settings = JSON.parse(row.source) as ImportSourceSummary & { username?: string };
  const credentials: Credentials = row.credentials
    ? JSON.parse(decryptPrivateKey(row.credentials, serverSecret, context(row.id)))
    : {};
  switch (settings.kind) {
    case "github-releases":
      return {
        kind: settings.kind,
        repository: settings.repository,
        includePrereleases: settings.includePrereleases,
        includeDrafts: settings.includeDrafts,
        token: credentials.token,
      };
    case "apt-repository":
      return {
        kind: settings.kind,
        url: settings.url,
        distribution: settings.distribution,
        components: settings.components ?? undefined,
        release: settings.release ?? undefined,
        username: settings.username,
        password: credentials.password,
      };
    case "yum-repository":
      return {
        kind: settings.kind,
        url: settings.url,
        release: settings.release ?? undefined,
        username: settings.username,
        password: credentials.password,
      };
  }
}

export async function createImportRow(
  db: Db,
  input: { projectId: string; startedBy: string; source: ImportSourceInput; serverSecret: string },
): Promise<ImportRow> {
  const id = newRowId();
  const { settings, credentials } = splitSecrets(input.source);
  const row: ImportRow = {
    id,
    project_id: input.projectId,
    started_by: input.startedBy,
    kind: input.source.kind,
    source: JSON.stringify(settings),
    credentials:
      Object.keys(credentials).length === 0
        ? null
        : encryptPrivateKey(JSON.stringify(credentials), input.serverSecret, context(id)),
    status: "queued",
    progress: JSON.stringify(emptyProgress()),
    errors: "[]",
    summary: null,
    created_at: nowIso(),
    started_at: null,
    finished_at: null,
    attempts: 0,
  };
  await db.insertInto("import").values(row).execute();
  return row;
}

export async function findImportRow(db: Db, id: string): Promise<ImportRow | undefined> {
  return db.selectFrom("import").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function requireProjectImport(db: Db, projectId: string, id: string): Promise<ImportRow> {
  const row = await db
    .selectFrom("import")
    .selectAll()
    .where("id", "=", id)
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  if (!row) throw notFound("Import not found");
  return row;
}

export async function listProjectImports(db: Db, projectId: string, limit = 50): Promise<ImportRow[]> {
  return db
    .selectFrom("import")
    .selectAll()
    .where("project_id", "=", projectId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/** Imports that have not ended: on SQLite (no stored jobs) they are queued again at start-up. */
export async function unfinishedImports(db: Db): Promise<{ id: string; attempts: number }[]> {
  return db
    .selectFrom("import")
    .select(["id", "attempts"])
    .where("status", "in", ["queued", "running"])
    .orderBy("created_at")
    .execute();
}

/** Counts a start of the import's job; how many there have been, this one included. */
export async function countImportAttempt(db: Db, id: string): Promise<number> {
  await db
    .updateTable("import")
    .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
    .where("id", "=", id)
    .execute();
  const row = await db.selectFrom("import").select("attempts").where("id", "=", id).executeTakeFirst();
  return Number(row?.attempts ?? 0);
}

export interface ImportUpdate {
  status?: ImportStatus;
  progress?: ImportProgress;
  errors?: ImportFailure[];
  summary?: string | null;
  startedAt?: string;
  finishedAt?: string;
}

export async function updateImportRow(db: Db, id: string, update: ImportUpdate): Promise<void> {
  const set: Partial<ImportRow> = {};
  if (update.status) set.status = update.status;
  if (update.progress) set.progress = JSON.stringify(update.progress);
  if (update.errors) set.errors = JSON.stringify(update.errors);
  if (update.summary !== undefined) set.summary = update.summary;
  if (update.startedAt) set.started_at = update.startedAt;
  if (update.finishedAt) set.finished_at = update.finishedAt;
  // Once an import ended, its credentials are no longer kept.
  if (update.status && importEnded(update.status)) set.credentials = null;
  if (Object.keys(set).length === 0) return;
  await db.updateTable("import").set(set).where("id", "=", id).execute();
}

export async function describeImport(db: Db, row: ImportRow): Promise<ImportInfo> {
  const user = row.started_by
    ? await db.selectFrom("user").select("username").where("id", "=", row.started_by).executeTakeFirst()
    : undefined;
  return toImportDto(row, user?.username ?? null);
}

export async function describeImports(db: Db, rows: ImportRow[]): Promise<ImportInfo[]> {
  const ids = [...new Set(rows.map((r) => r.started_by).filter((id): id is string => id !== null))];
  const users =
    ids.length === 0
      ? []
      : await db.selectFrom("user").select(["id", "username"]).where("id", "in", ids).execute();
  const names = new Map(users.map((u) => [u.id, u.username ?? null]));
  return rows.map((row) => toImportDto(row, row.started_by ? (names.get(row.started_by) ?? null) : null));
}

export function toImportDto(row: ImportRow, startedBy: string | null): ImportInfo {
  // The stored settings hold no secret; a username is not answered with either.
  const { username: _username, ...source } = JSON.parse(row.source) as ImportSourceSummary & {
    username?: string;
  };
  return {
    id: row.id,
    kind: row.kind as ImportKind,
    source,
    status: row.status as ImportStatus,
    progress: { ...emptyProgress(), ...(JSON.parse(row.progress) as Partial<ImportProgress>) },
    errors: JSON.parse(row.errors) as ImportFailure[],
    summary: row.summary,
    startedBy,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
