// /api/v1/projects/{slug}/releases/{version}/files: a release's files, uploaded by streaming the
// body (PUT, `curl -T`) or as multipart/form-data (POST, the browser). Upload bodies are declared
// for the document with plain schemas, never zod ones, so nothing buffers or parses them: the
// handlers read them as streams.
import { createRoute, z } from "@hono/zod-openapi";
import { type ApiErrorCode, apiErrorCodes, releaseFile } from "@packyard/contract";
import { type AuditSource, auditProjectAction } from "../../audit/request.ts";
import { DomainError } from "../../domain/errors.ts";
import { deleteFile, uploadFile } from "../../domain/files.ts";
import type { ProjectRow } from "../../domain/projects.ts";
import { describeProjectRelease, type ReleaseFileRow, requireRelease } from "../../domain/releases.ts";
import { flushDownloadCounts } from "../../domain/usage.ts";
import { parseAptTarget } from "../../publishing/apt/ingest.ts";
import { parseYumGroup } from "../../publishing/yum/ingest.ts";
import type { Services } from "../../services.ts";
import { receiveMultipart } from "../multipart-upload.ts";
import { isSocketBody, uploadBody } from "../upload-body.ts";
import {
  auditSource,
  callerAndProject,
  createApiApp,
  empty,
  errors,
  filePath,
  json,
  ownProject,
  projectAccessErrors,
  releasePath,
  serve,
} from "./route.ts";

/** Where a package goes: the APT suite and component of a .deb, the YUM group of an .rpm. */
const packageTarget = z.object({
  distribution: z.string().optional().describe("APT suite of a .deb (default `stable`)"),
  component: z.string().optional().describe("APT component of a .deb (default `main`)"),
  group: z.string().optional().describe("YUM group of an .rpm (default: the repository root)"),
});

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
              distribution: { type: "string" },
              component: { type: "string" },
              group: { type: "string" },
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
  const { database, blobs, config, logger } = services;
  const db = database.db;
  const api = createApiApp(services);

  /** The audit entries of stored uploads: the release first when the upload created it. */
  const auditUploads = async (
    source: AuditSource,
    project: ProjectRow,
    version: string,
    files: { filename: string; size: number | string | bigint; sha256: string }[],
    releaseCreated = false,
  ) => {
    if (releaseCreated)
      await auditProjectAction(db, source, project, { action: "release.created", target: version });
    for (const file of files)
      await auditProjectAction(db, source, project, {
        action: "file.uploaded",
        target: file.filename,
        details: { version, size: Number(file.size), sha256: file.sha256 },
      });
  };

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
    const { actor, project } = await callerAndProject(services, c, slug, "publish");
    const body = uploadBody(c.req.raw, c.env);
    if (!body) throw new DomainError("VALIDATION_FAILED", "The request has no body");
    const length = c.req.header("content-length");
    const { release, file, releaseCreated } = await uploadFile(db, blobs, {
      project,
      version,
      filename,
      body,
      declaredSize: length === undefined ? undefined : Number(length),
      maxBytes: config.maxUploadBytes,
      createRelease: true,
      apt: parseAptTarget(c.req.query("distribution"), c.req.query("component")),
      yumGroup: parseYumGroup(c.req.query("group")),
      rpmSigningKey: () => services.keys.newest(project),
      limits: config,
      releaseChunks: isSocketBody(body),
    });
    await auditUploads(auditSource(services, c, actor), project, release.version, [file], releaseCreated);
    const dto = await describeProjectRelease(db, config.baseUrl, project, release);
    return c.json({ file: dto.files.find((f) => f.filename === file.filename)! }, 201);
  });

  // Browser upload: multipart/form-data with one or more `file` parts, streamed part by part;
  // stored whole or not at all.
  serve(api, uploadFilesRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    const { actor, project } = await callerAndProject(services, c, slug, "publish");
    const release = await requireRelease(db, project.id, version);
    const uploaded: string[] = [];
    const stored: ReleaseFileRow[] = [];
    try {
      const options = { maxBytes: config.maxUploadBytes, maxFiles: 100, body: uploadBody(c.req.raw, c.env) };
      await receiveMultipart(c.req.raw, options, async (part) => {
        // Form fields before the file parts may choose where packages go.
        const { file } = await uploadFile(db, blobs, {
          project,
          version,
          filename: part.filename,
          body: part.body,
          maxBytes: config.maxUploadBytes,
          createRelease: false,
          apt: parseAptTarget(
            part.fields.distribution ?? c.req.query("distribution"),
            part.fields.component ?? c.req.query("component"),
          ),
          yumGroup: parseYumGroup(part.fields.group ?? c.req.query("group")),
          rpmSigningKey: () => services.keys.newest(project),
          limits: config,
        });
        uploaded.push(file.filename);
        stored.push(file);
      });
    } catch (error) {
      for (const filename of uploaded) {
        await deleteFile(db, release, filename).catch((cause) =>
          logger.error(`undoing the upload of ${filename} failed`, cause),
        );
      }
      throw error;
    }
    await auditUploads(auditSource(services, c, actor), project, release.version, stored);
    const dto = await describeProjectRelease(db, config.baseUrl, project, release);
    return c.json({ files: dto.files.filter((f) => uploaded.includes(f.filename)) }, 201);
  });

  serve(api, deleteFileRoute, async (c) => {
    const { slug, version, filename } = c.req.valid("param");
    const { actor, project } = await callerAndProject(services, c, slug, "publish");
    const release = await requireRelease(db, project.id, version);
    await deleteFile(db, release, filename);
    await auditProjectAction(db, auditSource(services, c, actor), project, {
      action: "file.deleted",
      target: filename,
      details: { version: release.version },
    });
    return c.body(null, 204);
  });

  return api;
}
