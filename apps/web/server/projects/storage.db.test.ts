// Projects as the domain keeps them: slugs unique per owner, the private-project limit of the
// plan, and who finds which project (owner, key scope, visibility), on SQLite and PostgreSQL.
import { createProjectInput } from "@packyard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";
import type { Actor } from "../platform/core/authorization.ts";
import { DomainError } from "../platform/core/errors.ts";
import {
  createProject,
  findVisibleProject,
  listProjects,
  requireOwnProject,
  updateProject,
} from "./storage.ts";

let app: TestApp;
let owner: Actor;
let other: Actor;
const input = (slug: string, visibility: "public" | "private" = "public") =>
  createProjectInput.parse({ slug, name: slug, visibility });

beforeAll(async () => {
  app = await createTestApp();
  owner = { kind: "session", userId: (await onboardedUser(app, "holder")).userId };
  other = { kind: "session", userId: (await onboardedUser(app, "neighbour")).userId };
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;
const limits = { planLimits: true };
const codeOf = async (work: () => Promise<unknown>) => {
  try {
    await work();
    return "OK";
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
};

describe(`projects (${databaseKind})`, () => {
  it("keeps slugs unique per owner, not across owners", async () => {
    await createProject(db(), owner, input("tool"), limits);
    expect(await codeOf(() => createProject(db(), owner, input("tool"), limits))).toBe("PROJECT_EXISTS");
    expect(await codeOf(() => createProject(db(), other, input("tool"), limits))).toBe("OK");
  });

  it("holds Basic to one private project, on create and on update", async () => {
    await createProject(db(), owner, input("secret", "private"), limits);
    expect(await codeOf(() => createProject(db(), owner, input("second-secret", "private"), limits))).toBe(
      "PLAN_LIMIT",
    );
    expect(await codeOf(() => updateProject(db(), owner, "tool", { visibility: "private" }, limits))).toBe(
      "PLAN_LIMIT",
    );
    // Changing the private project itself is no new private project.
    expect(await codeOf(() => updateProject(db(), owner, "secret", { visibility: "private" }, limits))).toBe(
      "OK",
    );
  });

  it("finds the actor's own project; another user's is not found; an impossible slug is INVALID_SLUG", async () => {
    expect((await requireOwnProject(db(), owner, "secret", "read")).slug).toBe("secret");
    expect(await codeOf(() => requireOwnProject(db(), other, "secret", "read"))).toBe("NOT_FOUND");
    expect(await codeOf(() => requireOwnProject(db(), owner, "Not_A_Slug", "read"))).toBe("INVALID_SLUG");
  });

  it("lists what a key is scoped to", async () => {
    const secret = await requireOwnProject(db(), owner, "secret", "read");
    const scoped: Actor = {
      kind: "key",
      userId: owner.userId,
      keyId: "k",
      scope: { projects: [secret.id], access: "read" },
    };
    expect((await listProjects(db(), scoped)).map((p) => p.slug)).toEqual(["secret"]);
    expect((await listProjects(db(), owner)).map((p) => p.slug).sort()).toEqual(["secret", "tool"]);
  });

  it("shows a private project only to its owner by username and slug", async () => {
    expect((await findVisibleProject(db(), "holder", "tool", null)).slug).toBe("tool");
    expect(await codeOf(() => findVisibleProject(db(), "holder", "secret", null))).toBe("NOT_FOUND");
    expect(await codeOf(() => findVisibleProject(db(), "holder", "secret", other))).toBe("NOT_FOUND");
    expect((await findVisibleProject(db(), "holder", "secret", owner)).slug).toBe("secret");
  });
});
