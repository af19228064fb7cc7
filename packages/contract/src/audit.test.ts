import { describe, expect, it } from "vitest";
import { AUDIT_ACTION_GROUPS, AUDIT_ACTIONS, auditActionLabels, auditQuery } from "./audit.ts";

describe("the audit log's filters", () => {
  it("reads a day as the whole day, a time as that instant, and empty fields as absent", () => {
    expect(auditQuery.parse({ from: "2026-03-01", to: "2026-03-02", action: "", actor: "" })).toEqual({
      action: undefined,
      actor: undefined,
      project: undefined,
      cursor: undefined,
      limit: 50,
      from: "2026-03-01T00:00:00.000Z",
      before: "2026-03-03T00:00:00.000Z",
    });
    expect(auditQuery.parse({ to: "2026-03-02T10:00:00Z", limit: "200" })).toMatchObject({
      before: "2026-03-02T10:00:00.001Z",
      limit: 200,
    });
  });

  it("takes an action or a group, and an actor by kind or key", () => {
    expect(auditQuery.parse({ action: "release", actor: "key:AbC_12" })).toMatchObject({
      action: "release",
      actor: "key:AbC_12",
    });
    expect(auditQuery.parse({ action: "signing_key.rotated", actor: "system" }).action).toBe(
      "signing_key.rotated",
    );
  });

  it("names what it refuses", () => {
    const result = auditQuery.safeParse({
      action: "release.exploded",
      actor: "bob",
      from: "yesterday",
      limit: "0",
    });
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toEqual([
      "action",
      "actor",
      "from",
      "limit",
    ]);
  });

  it("has a label for every action and a group for each prefix", () => {
    expect(Object.keys(auditActionLabels).sort()).toEqual([...AUDIT_ACTIONS].sort());
    expect(AUDIT_ACTION_GROUPS).toEqual([
      "file",
      "release",
      "project",
      "signing_key",
      "api_key",
      "webhook",
      "retention",
      "session",
      "account",
      "import",
      "organization",
      "entitlement",
      "trusted_publishing",
      "image",
      "npm",
    ]);
  });
});
