// Releases as the domain keeps them, on SQLite and PostgreSQL: unique versions, the "latest" rule
// of spec §4, and every change to what the repositories list recorded in the change log.
import { createProjectInput } from "@packyard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";
import type { Actor } from "../platform/core/authorization.ts";
import { DomainError } from "../platform/core/errors.ts";
import { createProject } from "../projects/storage.ts";
import { packageIndexChangesSince } from "../repositories/changes.ts";
import {
  createRelease,
  deleteRelease,
  ensureRelease,
  findRelease,
  listReleaseRows,
  setYanked,
} from "./storage.ts";

let app: TestApp;
let projectId: string;

beforeAll(async () => {
  app = await createTestApp();
  const { userId } = await onboardedUser(app, "releaser");
  const actor: Actor = { kind: "session", userId };
  const project = await createProject(
    app.services.database.db,
    actor,
    createProjectInput.parse({ slug: "kept", name: "Kept" }),
    app.services.config,
  );
  projectId = project.id;
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;
const codeOf = async (work: () => Promise<unknown>) => {
  try {
    await work();
    return "OK";
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
};

describe(`releases (${databaseKind})`, () => {
  it("keeps versions unique per project, and ensureRelease finds the existing one", async () => {
    const first = await createRelease(db(), projectId, { version: "1.0.0", title: "First" });
    expect(await codeOf(() => createRelease(db(), projectId, { version: "1.0.0" }))).toBe("VERSION_EXISTS");
    expect((await ensureRelease(db(), projectId, "1.0.0")).id).toBe(first.id);
  });

  it("makes latest the newest release that is not yanked", async () => {
    await new Promise((r) => setTimeout(r, 5));
    const second = await createRelease(db(), projectId, { version: "1.1.0" });
    expect((await findRelease(db(), projectId, "latest"))?.version).toBe("1.1.0");
    await setYanked(db(), second, { reason: "broken build" });
    expect((await findRelease(db(), projectId, "latest"))?.version).toBe("1.0.0");
    expect((await listReleaseRows(db(), projectId)).map((r) => r.version)).toEqual(["1.1.0", "1.0.0"]);
  });

  it("records a yank, an unyank and a delete in the change log, naming the release", async () => {
    const before = (await packageIndexChangesSince(db(), projectId, undefined)).revision;
    const release = (await findRelease(db(), projectId, "1.1.0"))!;
    await setYanked(db(), release, null);
    await deleteRelease(db(), release);
    const delta = await packageIndexChangesSince(db(), projectId, before);
    expect(delta).toEqual({ revision: before + 2, kind: "releases", releaseIds: [release.id] });
    expect(await packageIndexChangesSince(db(), projectId, before + 2)).toEqual({
      revision: before + 2,
      kind: "unchanged",
    });
    expect(await findRelease(db(), projectId, "1.1.0")).toBeUndefined();
  });
});
