import { describe, expect, it } from "vitest";
import {
  type Actor,
  assertAccountAccess,
  assertPrivateProjectAllowed,
  assertProjectAccess,
  canViewProject,
  scopeFromPermissions,
  scopeToPermissions,
  visibleProjectIds,
} from "./authorization.ts";
import { DomainError } from "./errors.ts";

const owner = "user-1";
const publicProject = { id: "p-public", owner_id: owner, visibility: "public" as const };
const privateProject = { id: "p-private", owner_id: owner, visibility: "private" as const };
const session: Actor = { kind: "session", userId: owner };
const key = (projects: "*" | string[], access: "read" | "publish", userId = owner): Actor => ({
  kind: "key",
  userId,
  keyId: "k",
  scope: { projects, access },
});
const stranger: Actor = { kind: "session", userId: "user-2" };

function codeOf(check: () => void): string {
  try {
    check();
    return "OK";
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

describe("project access", () => {
  it.each([
    ["the owner's session, publishing", session, "publish", "OK"],
    ["an all-projects publish key", key("*", "publish"), "publish", "OK"],
    ["a key scoped to the project, reading", key(["p-private"], "read"), "read", "OK"],
    ["a read-only key, publishing", key(["p-private"], "read"), "publish", "KEY_SCOPE"],
    ["a key scoped to another project", key(["p-other"], "publish"), "read", "KEY_SCOPE"],
    ["another user's session", stranger, "read", "NOT_FOUND"],
    ["another user's all-projects key", key("*", "publish", "user-2"), "read", "NOT_FOUND"],
  ] as const)("%s: %s", (_label, actor, needed, expected) => {
    expect(codeOf(() => assertProjectAccess(actor, privateProject, needed))).toBe(expected);
  });

  it("account-wide actions need a session or an all-projects key", () => {
    expect(codeOf(() => assertAccountAccess(session, "publish"))).toBe("OK");
    expect(codeOf(() => assertAccountAccess(key("*", "read"), "read"))).toBe("OK");
    expect(codeOf(() => assertAccountAccess(key("*", "read"), "publish"))).toBe("KEY_SCOPE");
    expect(codeOf(() => assertAccountAccess(key(["p-public"], "publish"), "read"))).toBe("KEY_SCOPE");
  });

  it("lists what a key is scoped to, everything for a session", () => {
    expect(visibleProjectIds(session)).toBe("*");
    expect(visibleProjectIds(key(["a", "b"], "read"))).toEqual(["a", "b"]);
  });
});

describe("visibility", () => {
  it("shows a public project to everyone", () => {
    expect(canViewProject(publicProject, null)).toBe(true);
    expect(canViewProject(publicProject, stranger)).toBe(true);
  });

  it("shows a private project only to its owner's session and keys scoped to it", () => {
    expect(canViewProject(privateProject, null)).toBe(false);
    expect(canViewProject(privateProject, stranger)).toBe(false);
    expect(canViewProject(privateProject, key("*", "read", "user-2"))).toBe(false);
    expect(canViewProject(privateProject, session)).toBe(true);
    expect(canViewProject(privateProject, key("*", "read"))).toBe(true);
    expect(canViewProject(privateProject, key(["p-private"], "read"))).toBe(true);
    expect(canViewProject(privateProject, key(["p-public"], "publish"))).toBe(false);
  });
});

describe("plan limits", () => {
  it("lets Basic hold one private project", () => {
    expect(codeOf(() => assertPrivateProjectAllowed("basic", 0))).toBe("OK");
    expect(codeOf(() => assertPrivateProjectAllowed("basic", 1))).toBe("PLAN_LIMIT");
    expect(codeOf(() => assertPrivateProjectAllowed("starter", 9))).toBe("OK");
    expect(codeOf(() => assertPrivateProjectAllowed("starter", 10))).toBe("PLAN_LIMIT");
    expect(codeOf(() => assertPrivateProjectAllowed("pro", 10_000))).toBe("OK");
  });
});

describe("key scopes as better-auth stores them", () => {
  it("round-trips", () => {
    for (const scope of [
      { projects: "*" as const, access: "publish" as const },
      { projects: ["a", "b"], access: "read" as const },
    ]) {
      expect(scopeFromPermissions(scopeToPermissions(scope))).toEqual(scope);
    }
    expect(scopeFromPermissions(null)).toEqual({ projects: [], access: "read" });
  });
});
