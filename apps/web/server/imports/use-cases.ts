// Starting an import of releases (decision 028): the import row and its `import.started` entry
// are one change (use-case.ts); the job is queued once it has committed, so it never runs for a
// row that is not there. What the job then creates is run.ts's (through the releases' use cases).
import type { ImportSourceInput } from "@packyard/contract";
import { type Actor, IMPORT_ACCESS } from "../platform/core/authorization.ts";
import { type Caller, change, type Db } from "../platform/core/use-case.ts";
import type { JobQueue } from "../platform/jobs/queue.ts";
import { requireOwnProject } from "../projects/storage.ts";
import { queueImport } from "./run.ts";
import { createImportRow, type ImportRow } from "./store.ts";

export interface ImportUseCaseDeps {
  db: Db;
  jobs: Pick<JobQueue, "send">;
  /** SERVER_SECRET: the source's credentials are kept sealed with it. */
  serverSecret: string;
}

export async function startImport(
  deps: ImportUseCaseDeps,
  caller: Caller & { actor: Actor },
  input: { project: string; source: ImportSourceInput },
): Promise<ImportRow> {
  const { db } = deps;
  const project = await requireOwnProject(db, caller.actor, input.project, IMPORT_ACCESS);
  const row = await change(db, caller, async (tx, record) => {
    const row = await createImportRow(tx, {
      projectId: project.id,
      startedBy: caller.actor.userId,
      source: input.source,
      serverSecret: deps.serverSecret,
    });
    const source = input.source;
    record.audit({
      ownerId: project.owner_id,
      projectId: project.id,
      projectSlug: project.slug,
      action: "import.started",
      target: source.kind === "github-releases" ? source.repository : source.url,
      // The settings as the import shows them: never its token or password.
      details: { importId: row.id, source: JSON.parse(row.source) as unknown },
    });
    return row;
  });
  await queueImport(deps.jobs, row.id);
  return row;
}
