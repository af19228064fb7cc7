// The integration pages' imports: starting one for the signed-in user's project, and listing a
// project's imports with their progress. The same rules and rows as the API
// (server/http/api/imports.ts): who may import is decided in domain/authorization.ts.
import type { ImportInfo, ImportSourceInput } from "@packyard/contract";
import { type Actor, IMPORT_ACCESS } from "../../server/domain/authorization.ts";
import { requireOwnProject } from "../../server/domain/projects.ts";
import { queueImport } from "../../server/imports/run.ts";
import { createImportRow, describeImports, listProjectImports } from "../../server/imports/store.ts";
import type { Services } from "../../server/services.ts";

export async function startImport(
  services: Services,
  actor: Actor,
  projectSlug: string,
  source: ImportSourceInput,
): Promise<string> {
  const db = services.database.db;
  const project = await requireOwnProject(db, actor, projectSlug, IMPORT_ACCESS);
  const row = await createImportRow(db, {
    projectId: project.id,
    startedBy: actor.userId,
    source,
    serverSecret: services.config.secret,
  });
  await queueImport(services.jobs, row.id);
  return row.id;
}

/** The project's latest imports, newest first. */
export async function projectImports(
  services: Services,
  projectId: string,
  limit = 20,
): Promise<ImportInfo[]> {
  const db = services.database.db;
  return describeImports(db, await listProjectImports(db, projectId, limit));
}
