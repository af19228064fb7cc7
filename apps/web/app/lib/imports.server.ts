// The integration pages' imports: starting one for the signed-in user's project, and listing a
// project's imports with their progress. The same use case as the API
// (server/imports/routes.ts): who may import is decided in platform/core/authorization.ts.
import type { ImportInfo, ImportSourceInput } from "@packyard/contract";
import { describeImports, listProjectImports } from "../../server/imports/store.ts";
import { startImport as startImportUseCase } from "../../server/imports/use-cases.ts";
import type { Actor } from "../../server/platform/core/authorization.ts";
import type { Services } from "../../server/services.ts";

export async function startImport(
  services: Services,
  caller: { actor: Actor; address: string | null },
  projectSlug: string,
  source: ImportSourceInput,
): Promise<string> {
  const deps = { db: services.database.db, jobs: services.jobs, serverSecret: services.config.secret };
  return (await startImportUseCase(deps, caller, { project: projectSlug, source })).id;
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
