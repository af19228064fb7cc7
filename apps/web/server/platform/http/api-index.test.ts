// /api/v1/projects/{owner}/{slug}/… routed as the routes' {owner}%2F{slug} (index.ts).
import { describe, expect, it } from "vitest";
import { ownerSlugPath, projectSubresources } from "./api-index.ts";

const names = projectSubresources([
  { path: "/api/v1/projects" },
  { path: "/api/v1/projects/:slug" },
  { path: "/api/v1/projects/:slug/releases/:version" },
  { path: "/api/v1/projects/:slug/audit" },
  { path: "/api/v1/projects/:slug/transfer" },
  { path: "/api/v1/orgs/:slug/keys" },
]);

describe("owner/slug project paths", () => {
  it("reads the names after /projects/{slug}/ from the routes", () => {
    expect([...names].sort()).toEqual(["audit", "releases", "transfer"]);
  });

  it("routes owner/slug as one slug parameter, and leaves every other path alone", () => {
    expect(ownerSlugPath("/api/v1/projects/acme/widget", names)).toBe("/api/v1/projects/acme%2Fwidget");
    expect(ownerSlugPath("/api/v1/projects/acme/widget/releases/1.0/files/a.deb", names)).toBe(
      "/api/v1/projects/acme%2Fwidget/releases/1.0/files/a.deb",
    );
    for (const path of [
      "/api/v1/projects",
      "/api/v1/projects/widget",
      "/api/v1/projects/widget/releases",
      "/api/v1/projects/widget/audit",
      "/api/v1/projects/acme%2Fwidget/releases",
      "/api/v1/orgs/acme/keys",
      "/dl/acme/widget/deb",
    ])
      expect(ownerSlugPath(path, names), path).toBeUndefined();
  });
});
