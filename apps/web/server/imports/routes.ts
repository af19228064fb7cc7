// /api/v1/projects/{slug}/imports: importing releases into a project from GitHub Releases, an
// APT or a YUM repository (docs/imports.md). Starting one answers 202 at once; the import runs
// as a job and its progress is read back here. Secrets sent to start one are never answered with.
import { createRoute, z } from "@hono/zod-openapi";
import { importInfo, startImportInput } from "@packyard/contract";
import { IMPORT_ACCESS } from "../platform/core/authorization.ts";
import {
  callerAndProject,
  createApiApp,
  errors,
  json,
  jsonBody,
  ownProject,
  projectAccessErrors,
  projectPath,
  readJson,
  serve,
} from "../platform/http/api-route.ts";
import { clientAddress } from "../platform/http/request-log.ts";
import type { Services } from "../services.ts";
import { describeImport, describeImports, listProjectImports, requireProjectImport } from "./store.ts";
import { startImport } from "./use-cases.ts";

const importPath = projectPath.extend({ id: z.string().describe("The import's id") });

const startImportRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/imports",
  summary:
    "Start an import into the project: GitHub Releases (`github-releases`), an APT repository (`apt-repository`) or a YUM repository (`yum-repository`). Answers 202 with the queued import; follow its progress with GET …/imports/{id}",
  request: { params: projectPath, body: jsonBody(startImportInput) },
  responses: {
    202: json("Queued", z.object({ import: importInfo })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors),
  },
});

const listImportsRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/imports",
  summary: "List the project's imports, newest first (the last 50)",
  request: { params: projectPath },
  responses: {
    200: json("Imports", z.object({ imports: z.array(importInfo) })),
    ...errors(...projectAccessErrors),
  },
});

const getImportRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/imports/{id}",
  summary: "Get an import with its progress, per-release errors and summary",
  request: { params: importPath },
  responses: {
    200: json("Import", z.object({ import: importInfo })),
    ...errors(...projectAccessErrors),
  },
});

export function importRoutes(services: Services) {
  const { database, config, jobs } = services;
  const db = database.db;
  const api = createApiApp(services);

  serve(api, startImportRoute, async (c) => {
    const { slug } = c.req.valid("param");
    // Refused before the body is read, as ever (the use case checks again).
    const { actor } = await callerAndProject(services, c, slug, IMPORT_ACCESS);
    const { source } = await readJson(c, startImportRoute);
    const caller = { actor, address: clientAddress(c, services.config.trustProxy) };
    const row = await startImport({ db, jobs, serverSecret: config.secret }, caller, {
      project: slug,
      source,
    });
    return c.json({ import: await describeImport(db, row) }, 202);
  });

  serve(api, listImportsRoute, async (c) => {
    const project = await ownProject(services, c, c.req.valid("param").slug, "read");
    return c.json({ imports: await describeImports(db, await listProjectImports(db, project.id)) }, 200);
  });

  serve(api, getImportRoute, async (c) => {
    const { slug, id } = c.req.valid("param");
    const project = await ownProject(services, c, slug, "read");
    return c.json({ import: await describeImport(db, await requireProjectImport(db, project.id, id)) }, 200);
  });

  return api;
}
