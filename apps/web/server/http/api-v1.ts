// /api/v1: the product REST API. Authenticated by session cookie or API key; bodies parsed
// with the shared contract; every failure mapped by api-errors.ts.
import {
  createApiKeyInput,
  createProjectInput,
  createReleaseInput,
  rotateKeyInput,
  updateProjectInput,
  updateReleaseInput,
  yankInput,
} from "@packyard/contract";
import { type Context, Hono } from "hono";
import { createUserApiKey, deleteUserApiKey, type KeySummary, listUserApiKeys } from "../domain/api-keys.ts";
import { assertAccountAccess } from "../domain/authorization.ts";
import { collectUnreferencedBlobs } from "../domain/blobs.ts";
import { DomainError } from "../domain/errors.ts";
import { deleteFile, uploadFile } from "../domain/files.ts";
import {
  createProject,
  deleteProject,
  describeProjects,
  listProjects,
  requireOwnProject,
  updateProject,
  usernameOf,
} from "../domain/projects.ts";
import {
  createRelease,
  deleteRelease,
  describeRelease,
  listReleaseSummaries,
  releaseUrls,
  requireRelease,
  setYanked,
  updateRelease,
} from "../domain/releases.ts";
import { accountUsage } from "../domain/usage.ts";
import { parseAptTarget } from "../publishing/apt/ingest.ts";
import { parseYumGroup } from "../publishing/yum/ingest.ts";
import type { Services } from "../services.ts";
import { requireActor } from "./actor.ts";
import { toApiErrorResponse } from "./api-errors.ts";
import { receiveMultipart } from "./multipart-upload.ts";

export function createApiV1(services: Services) {
  const { database, blobs, config, logger } = services;
  const db = database.db;
  const api = new Hono();
  const actorOf = (c: Context) => requireActor(services, c.req.raw.headers);
  const json = async (c: Context) =>
    c.req.json().catch(() => {
      throw new DomainError("VALIDATION_FAILED", "The request body is not valid JSON");
    });
  const urlsFor = async (ownerId: string, slug: string) =>
    releaseUrls(config.baseUrl, await usernameOf(db, ownerId), slug);

  api.onError((error) => toApiErrorResponse(error, logger));

  api.get("/projects", async (c) => c.json({ projects: await listProjects(db, await actorOf(c)) }));

  api.post("/projects", async (c) => {
    const actor = await actorOf(c);
    const input = createProjectInput.parse(await json(c));
    return c.json({ project: await createProject(db, actor, input) }, 201);
  });

  api.get("/projects/:slug", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "read");
    const [dto] = await describeProjects(db, [project]);
    return c.json({ project: dto });
  });

  api.patch("/projects/:slug", async (c) => {
    const actor = await actorOf(c);
    const input = updateProjectInput.parse(await json(c));
    return c.json({ project: await updateProject(db, actor, c.req.param("slug"), input) });
  });

  api.delete("/projects/:slug", async (c) => {
    await deleteProject(db, await actorOf(c), c.req.param("slug"));
    await collectUnreferencedBlobs(db, blobs);
    return c.body(null, 204);
  });

  api.get("/projects/:slug/releases", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "read");
    return c.json({ releases: await listReleaseSummaries(db, project.id) });
  });

  api.post("/projects/:slug/releases", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "publish");
    const input = createReleaseInput.parse(await json(c));
    const release = await createRelease(db, project.id, input);
    return c.json(
      { release: await describeRelease(db, release, await urlsFor(project.owner_id, project.slug)) },
      201,
    );
  });

  api.get("/projects/:slug/releases/:version", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "read");
    const release = await requireRelease(db, project.id, c.req.param("version"));
    return c.json({
      release: await describeRelease(db, release, await urlsFor(project.owner_id, project.slug)),
    });
  });

  api.patch("/projects/:slug/releases/:version", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "publish");
    const input = updateReleaseInput.parse(await json(c));
    const release = await updateRelease(
      db,
      await requireRelease(db, project.id, c.req.param("version")),
      input,
    );
    return c.json({
      release: await describeRelease(db, release, await urlsFor(project.owner_id, project.slug)),
    });
  });

  api.delete("/projects/:slug/releases/:version", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "publish");
    await deleteRelease(db, await requireRelease(db, project.id, c.req.param("version")));
    await collectUnreferencedBlobs(db, blobs);
    return c.body(null, 204);
  });

  for (const action of ["yank", "unyank"] as const) {
    api.post(`/projects/:slug/releases/:version/${action}`, async (c) => {
      const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "publish");
      const release = await requireRelease(db, project.id, c.req.param("version"));
      const updated = await setYanked(db, release, action === "yank" ? yankInput.parse(await json(c)) : null);
      return c.json({
        release: await describeRelease(db, updated, await urlsFor(project.owner_id, project.slug)),
      });
    });
  }

  api.get("/projects/:slug/releases/:version/files", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "read");
    const release = await requireRelease(db, project.id, c.req.param("version"));
    const dto = await describeRelease(db, release, await urlsFor(project.owner_id, project.slug));
    return c.json({ files: dto.files });
  });

  // Streaming upload: `curl -T file -H "Authorization: Bearer …" …/files/NAME`. Creates the
  // release when the version has none yet.
  api.put("/projects/:slug/releases/:version/files/:filename", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "publish");
    const body = c.req.raw.body;
    if (!body) throw new DomainError("VALIDATION_FAILED", "The request has no body");
    const length = c.req.header("content-length");
    const { release, file } = await uploadFile(db, blobs, {
      project,
      version: c.req.param("version"),
      filename: c.req.param("filename"),
      body: body as unknown as AsyncIterable<Uint8Array>,
      declaredSize: length === undefined ? undefined : Number(length),
      maxBytes: config.maxUploadBytes,
      createRelease: true,
      apt: parseAptTarget(c.req.query("distribution"), c.req.query("component")),
      yumGroup: parseYumGroup(c.req.query("group")),
      rpmSigningKey: () => services.keys.newest(project),
    });
    const dto = await describeRelease(db, release, await urlsFor(project.owner_id, project.slug));
    return c.json({ file: dto.files.find((f) => f.filename === file.filename) }, 201);
  });

  // Browser upload: multipart/form-data with one or more `file` parts, streamed part by part;
  // stored whole or not at all.
  api.post("/projects/:slug/releases/:version/files", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "publish");
    const version = c.req.param("version");
    const release = await requireRelease(db, project.id, version);
    const uploaded: string[] = [];
    try {
      await receiveMultipart(c.req.raw, { maxBytes: config.maxUploadBytes, maxFiles: 100 }, async (part) => {
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
        });
        uploaded.push(file.filename);
      });
    } catch (error) {
      for (const filename of uploaded) {
        await deleteFile(db, blobs, release, filename).catch((cause) =>
          logger.error(`undoing the upload of ${filename} failed`, cause),
        );
      }
      throw error;
    }
    const dto = await describeRelease(db, release, await urlsFor(project.owner_id, project.slug));
    return c.json({ files: dto.files.filter((f) => uploaded.includes(f.filename)) }, 201);
  });

  api.delete("/projects/:slug/releases/:version/files/:filename", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "publish");
    const release = await requireRelease(db, project.id, c.req.param("version"));
    await deleteFile(db, blobs, release, c.req.param("filename"));
    return c.body(null, 204);
  });

  const keyInfo = (row: {
    fingerprint: string;
    algorithm: string;
    created_at: string;
    retire_at: string | null;
  }) => ({
    fingerprint: row.fingerprint,
    algorithm: row.algorithm as "rsa3072" | "ed25519",
    createdAt: row.created_at,
    retireAt: row.retire_at,
  });

  api.get("/projects/:slug/keys", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "read");
    const { rows } = await services.keys.active(project);
    return c.json({ keys: rows.map(keyInfo) });
  });

  // Rotation: a new key signs from now on; the current ones keep signing through the overlap,
  // so machines that trust only the old key keep working until they fetch the new keyring.
  api.post("/projects/:slug/keys/rotate", async (c) => {
    const project = await requireOwnProject(db, await actorOf(c), c.req.param("slug"), "publish");
    const input = rotateKeyInput.parse(await c.req.json().catch(() => ({})));
    await services.keys.rotate(project, {
      algorithm: input.algorithm,
      overlapMs: input.overlapDays * 24 * 60 * 60 * 1000,
    });
    await services.repos.publish(project.id);
    const { rows } = await services.keys.active(project);
    return c.json({ keys: rows.map(keyInfo) }, 201);
  });

  api.get("/me", async (c) => {
    const actor = await actorOf(c);
    const user = await db
      .selectFrom("user")
      .select(["id", "username", "name", "email"])
      .where("id", "=", actor.userId)
      .executeTakeFirstOrThrow();
    if (actor.kind === "session") return c.json({ user, auth: { kind: "session" } });
    const slugs =
      actor.scope.projects === "*"
        ? ("*" as const)
        : (
            await db
              .selectFrom("project")
              .select("slug")
              .where("id", "in", actor.scope.projects.length ? actor.scope.projects : [""])
              .execute()
          ).map((p) => p.slug);
    return c.json({ user, auth: { kind: "key", scope: { projects: slugs, access: actor.scope.access } } });
  });

  // API keys: managing them is account-wide, so a session or an all-projects publish key.
  const keySlugs = async (ownerId: string, ids: "*" | string[]) => {
    if (ids === "*") return "*" as const;
    const rows = ids.length
      ? await db
          .selectFrom("project")
          .select(["id", "slug"])
          .where("owner_id", "=", ownerId)
          .where("id", "in", ids)
          .execute()
      : [];
    return ids.map((id) => rows.find((r) => r.id === id)?.slug ?? id);
  };
  const keyDto = async (ownerId: string, k: KeySummary) => ({
    id: k.id,
    name: k.name,
    start: k.start,
    scope: { projects: await keySlugs(ownerId, k.scope.projects), access: k.scope.access },
    lastRequest: k.lastRequest,
    expiresAt: k.expiresAt,
    createdAt: k.createdAt,
    expired: k.expired,
  });

  api.get("/keys", async (c) => {
    const actor = await actorOf(c);
    assertAccountAccess(actor, "publish");
    const keys = await listUserApiKeys(db, actor.userId);
    return c.json({ keys: await Promise.all(keys.map((k) => keyDto(actor.userId, k))) });
  });

  api.post("/keys", async (c) => {
    const actor = await actorOf(c);
    assertAccountAccess(actor, "publish");
    const input = createApiKeyInput.parse(await json(c));
    let projectIds: "*" | string[] = "*";
    if (input.projects !== "*") {
      const rows = await db
        .selectFrom("project")
        .select(["id", "slug"])
        .where("owner_id", "=", actor.userId)
        .where("slug", "in", input.projects)
        .execute();
      const missing = input.projects.filter((slug) => !rows.some((r) => r.slug === slug));
      if (missing.length) throw new DomainError("NOT_FOUND", `Project not found: ${missing.join(", ")}`);
      projectIds = rows.map((r) => r.id);
    }
    const created = await createUserApiKey(services.auth, db, actor.userId, {
      name: input.name,
      expiresIn: input.expiresInDays === null ? null : input.expiresInDays * 24 * 60 * 60,
      scope: { projects: projectIds, access: input.access },
    });
    const summary = (await listUserApiKeys(db, actor.userId)).find((k) => k.id === created.id)!;
    return c.json({ key: { ...(await keyDto(actor.userId, summary)), key: created.key } }, 201);
  });

  api.delete("/keys/:id", async (c) => {
    const actor = await actorOf(c);
    assertAccountAccess(actor, "publish");
    if (!(await deleteUserApiKey(db, actor.userId, c.req.param("id"))))
      throw new DomainError("NOT_FOUND", "API key not found");
    return c.body(null, 204);
  });

  api.get("/usage", async (c) => {
    const actor = await actorOf(c);
    assertAccountAccess(actor, "read");
    return c.json({ usage: await accountUsage(db, actor.userId) });
  });

  return api;
}
