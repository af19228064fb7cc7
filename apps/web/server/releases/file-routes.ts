// /api/v1/projects/{slug}/releases/{version}/files: a release's files, uploaded by streaming the
// body (PUT, `curl -T`) or as multipart/form-data (POST, the browser). Upload bodies are declared
// for the document with plain schemas, never zod ones, so nothing buffers or parses them: the
// handlers read them as streams.
import { createRoute, z } from "@hono/zod-openapi";
import { type ApiErrorCode, apiErrorCodes, releaseFile } from "@packyard/contract";
import type { Context } from "hono";
import { flushDownloadCounts } from "../billing/usage.ts";
import { formats, parseUploadTargets } from "../formats/registry.ts";
import { DomainError } from "../platform/core/errors.ts";
import { requireActor } from "../platform/http/actor.ts";
import {
  callerAndProject,
  createApiApp,
  empty,
  errors,
  filePath,
  json,
  ownProject,
  projectAccessErrors,
  releasePath,
  requestCaller,
  serve,
} from "../platform/http/api-route.ts";
import { receiveMultipart } from "../platform/http/multipart-upload.ts";
import { isSocketBody, uploadBody } from "../platform/http/upload-body.ts";
import type { Services } from "../services.ts";
import { describeProjectRelease, requireRelease } from "./storage.ts";
import { deleteReleaseFile, uploadReleaseFile, uploadReleaseFiles } from "./use-cases.ts";

/** The fields that say where a package goes, each format's (the APT suite and component, the YUM group). */
const targetFields = formats.flatMap((format) => Object.entries(format.targetFields));

const packageTarget = z.object(
  Object.fromEntries(
    targetFields.map(([name, description]) => [name, z.string().optional().describe(description)]),
  ),
);

/** A .deb or .rpm that cannot be read or signed: 400 with a code saying why (docs/rpm.md, docs/apt.md). */
const packageErrors = apiErrorCodes.filter((code) => /^(DEB|RPM)_/.test(code)) as Extract<
  ApiErrorCode,
  `DEB_${string}` | `RPM_${string}`
>[];

const uploadErrors = [
  "INVALID_FILENAME",
  "INVALID_DISTRIBUTION",
  "INVALID_GROUP",
  ...packageErrors,
  ...projectAccessErrors,
  "FILE_EXISTS",
  "PAYLOAD_TOO_LARGE",
  "INSUFFICIENT_STORAGE",
  "PLAN_LIMIT",
] as const;

const listFilesRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/releases/{version}/files",
  summary: "List a release's files",
  request: { params: releasePath },
  responses: {
    200: json("Files", z.object({ files: z.array(releaseFile) })),
    ...errors(...projectAccessErrors),
  },
});

const uploadFileRoute = createRoute({
  method: "put",
  path: "/projects/{slug}/releases/{version}/files/{filename}",
  summary:
    "Upload one file by streaming the body (`curl -T`); creates the release if needed. A .deb goes to the APT suite `?distribution=` (default stable) and `?component=` (default main); an .rpm is signed with the project key and goes to the YUM group `?group=` (default: the repository root)",
  request: {
    params: filePath,
    query: packageTarget,
    body: {
      required: true,
      description: "The file's bytes, streamed; any Content-Type",
      content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
    },
  },
  responses: {
    201: json("Uploaded", z.object({ file: releaseFile })),
    ...errors("VALIDATION_FAILED", "INVALID_VERSION", ...uploadErrors),
  },
});

const uploadFilesRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/releases/{version}/files",
  summary:
    "Upload files (multipart/form-data, one or more `file` parts); stored whole or not at all. Fields `distribution`, `component` and `group` sent before a file part choose where it goes (else the query's)",
  request: {
    params: releasePath,
    query: packageTarget,
    body: {
      required: true,
      content: {
        "multipart/form-data": {
          schema: {
            type: "object",
            properties: {
              file: { type: "array", items: { type: "string", format: "binary" } },
              ...Object.fromEntries(targetFields.map(([name]) => [name, { type: "string" }])),
            },
          },
        },
      },
    },
  },
  responses: {
    201: json("Uploaded", z.object({ files: z.array(releaseFile) })),
    ...errors("VALIDATION_FAILED", ...uploadErrors),
  },
});

const deleteFileRoute = createRoute({
  method: "delete",
  path: "/projects/{slug}/releases/{version}/files/{filename}",
  summary: "Delete a file",
  request: { params: filePath },
  responses: { 204: empty("Deleted"), ...errors(...projectAccessErrors) },
});

export function fileRoutes(services: Services) {
  const { database, blobs, config, logger, keys } = services;
  const db = database.db;
  const api = createApiApp(services);
  const deps = { db, blobs, keys, config, logger };
  /** The caller of a use case: who asks (401 when nobody), and from where. */
  const callerOf = async (c: Context) =>
    requestCaller(services, c, await requireActor(services, c.req.raw.headers));

  serve(api, listFilesRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    const project = await ownProject(services, c, slug, "read");
    const release = await requireRelease(db, project.id, version);
    // This server's downloads still in memory first: the numbers include them.
    await flushDownloadCounts(db);
    const dto = await describeProjectRelease(db, config.baseUrl, project, release);
    return c.json({ files: dto.files }, 200);
  });

  // Streaming upload: `curl -T file -H "Authorization: Bearer …" …/files/NAME`. Creates the
  // release when the version has none yet.
  serve(api, uploadFileRoute, async (c) => {
    const { slug, version, filename } = c.req.valid("param");
    // Authorized before the body is looked at (the use case authorizes again).
    const { actor } = await callerAndProject(services, c, slug, "publish");
    const body = uploadBody(c.req.raw, c.env);
    if (!body) throw new DomainError("VALIDATION_FAILED", "The request has no body");
    const length = c.req.header("content-length");
    const { project, release, file } = await uploadReleaseFile(deps, requestCaller(services, c, actor), {
      project: slug,
      version,
      filename,
      body,
      declaredSize: length === undefined ? undefined : Number(length),
      createRelease: true,
      targets: parseUploadTargets((name) => c.req.query(name)),
      releaseChunks: isSocketBody(body),
    });
    const dto = await describeProjectRelease(db, config.baseUrl, project, release);
    return c.json({ file: dto.files.find((f) => f.filename === file.filename)! }, 201);
  });

  // Browser upload: multipart/form-data with one or more `file` parts, streamed part by part;
  // stored whole or not at all.
  serve(api, uploadFilesRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    const options = { maxBytes: config.maxUploadBytes, maxFiles: 100, body: uploadBody(c.req.raw, c.env) };
    const { project, release, files } = await uploadReleaseFiles(deps, await callerOf(c), {
      project: slug,
      version,
      receive: (store) =>
        receiveMultipart(c.req.raw, options, async (part) => {
          // Form fields before the file parts may choose where packages go.
          await store({
            filename: part.filename,
            body: part.body,
            targets: parseUploadTargets((name) => part.fields[name] ?? c.req.query(name)),
          });
        }),
    });
    const uploaded = files.map((file) => file.filename);
    const dto = await describeProjectRelease(db, config.baseUrl, project, release);
    return c.json({ files: dto.files.filter((f) => uploaded.includes(f.filename)) }, 201);
  });

  serve(api, deleteFileRoute, async (c) => {
    const { slug, version, filename } = c.req.valid("param");
    await deleteReleaseFile(deps, await callerOf(c), { project: slug, version, filename });
    return c.body(null, 204);
  });

  return api;
}
