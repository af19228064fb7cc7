import { describe, expect, it } from "vitest";
import { orgPath, projectPath, projectRefOf, releasePath } from "./project-path.ts";

describe("projectPath", () => {
  const own = { owner: "alice", ownerKind: "user" as const, slug: "tool" };
  const org = { owner: "acme", ownerKind: "organization" as const, slug: "tool" };

  it("puts a person's project under /projects and an organization's under /orgs/{org}/projects", () => {
    expect(projectPath(own)).toBe("/projects/tool");
    expect(projectPath(own, "/settings")).toBe("/projects/tool/settings");
    expect(projectPath(org)).toBe("/orgs/acme/projects/tool");
    expect(projectPath(org, "/releases")).toBe("/orgs/acme/projects/tool/releases");
  });

  it("encodes a release's version and names projects as owner/slug", () => {
    expect(releasePath(org, "1.0.0+build/1")).toBe("/orgs/acme/projects/tool/releases/1.0.0%2Bbuild%2F1");
    expect(orgPath("acme", "/members")).toBe("/orgs/acme/members");
    expect(projectRefOf(org)).toBe("acme/tool");
  });
});
