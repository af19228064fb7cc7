// The organization pages through their loaders and actions, in memory (decision 040): creating
// one (its slug refused when a user has it), a project under it, an invitation accepted from its
// link, a viewer's read-only project pages (their writes answered FORBIDDEN in the form), the last
// owner kept, and a transfer back to a person moving the pages. The browser journey is
// e2e/organizations.spec.ts. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
let owner: { cookie: string; username: string };
let viewer: { cookie: string; username: string };
beforeAll(async () => {
  app = await createTestApp();
  owner = await onboardedUser(app, "olive");
  viewer = await onboardedUser(app, "victor");
});
afterAll(async () => {
  await app?.close();
});

function post(path: string, values: Record<string, string>, cookie = owner.cookie) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values).toString(),
    cookie,
  });
}

describe(`organization pages (${databaseKind})`, () => {
  it("creates an organization, a project in it, and lets an invited viewer in read-only", async () => {
    const taken = await post("/orgs/new", { name: "Olive", slug: "olive" });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain("This name is already taken by a user or an organization");

    const created = await post("/orgs/new", { name: "Acme Corp", slug: "acme" });
    expect(created.status).toBe(302);
    expect(created.headers.get("location")).toBe("/orgs/acme?created=1");

    const project = await post("/projects", {
      intent: "create",
      owner: "acme",
      slug: "rocket",
      name: "Rocket",
      visibility: "private",
    });
    expect(project.headers.get("location")).toBe("/orgs/acme/projects/rocket?created=1");
    const page = await (await app.request("/orgs/acme", { cookie: owner.cookie })).text();
    expect(page).toContain('href="/orgs/acme/projects/rocket"');

    const invited = await post("/orgs/acme/members", {
      intent: "invite",
      email: "victor@example.com",
      role: "viewer",
    });
    expect(invited.status).toBe(200);
    const link = app
      .outbox()
      .findLast((m) => m.to.includes("victor@example.com"))
      ?.links.find((l) => l.includes("/invitations/"));
    const path = new URL(link!).pathname;
    const signedOut = await (await app.request(path)).text();
    expect(signedOut).toContain("Acme Corp");
    expect(signedOut).toContain("Create an account");
    const accepted = await post(path, { invitationId: path.split("/").at(-1)! }, viewer.cookie);
    expect(accepted.headers.get("location")).toBe("/orgs/acme?joined=1");

    const home = await app.request("/orgs/acme/projects/rocket", { cookie: viewer.cookie });
    expect(home.status).toBe(200);
    const html = await home.text();
    expect(html).toContain("(read only)");
    expect(html).not.toContain("Edit project");
    expect(html).toContain('href="/orgs/acme/projects/rocket/settings"');

    const release = await post(
      "/orgs/acme/projects/rocket/releases",
      { intent: "create", version: "1.0.0" },
      viewer.cookie,
    );
    expect(release.status).toBe(403);
    expect(await release.text()).toContain("Your role in this organization (viewer) does not allow this");
    const settings = await post(
      "/orgs/acme/projects/rocket/settings",
      { intent: "transfer", owner: viewer.username },
      viewer.cookie,
    );
    expect(settings.status).toBe(403);
    // Its public page offers to publish only to those who may: the owner, not a viewer.
    const publicPage = async (cookie: string) =>
      (await app.request("/releases/acme/rocket/latest", { cookie })).text();
    expect(await publicPage(owner.cookie)).toContain("Publish a release");
    expect(await publicPage(viewer.cookie)).not.toContain("Publish a release");
    // A personal URL of it (a mail's link, a bookmark from before a transfer) leads to its page.
    const personal = await app.request("/projects/rocket/webhooks?x=1", { cookie: viewer.cookie });
    expect(personal.status).toBe(302);
    expect(personal.headers.get("location")).toBe("/orgs/acme/projects/rocket/webhooks?x=1");
  });

  it("makes an organization's key on its settings page, which reaches its private project", async () => {
    expect((await post("/orgs/acme/settings", { intent: "create" }, viewer.cookie)).status).toBe(403);
    const res = await post("/orgs/acme/settings", {
      intent: "create",
      name: "ci",
      expiry: "never",
      scope: "all",
      access: "read",
    });
    expect(res.status).toBe(200);
    // The secret, shown once on the page.
    const key = /pky_[A-Za-z0-9_-]+/.exec(await res.text())?.[0];
    expect(key).toBeTruthy();
    const api = await app.request("/api/v1/projects/acme/rocket", {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(api.status).toBe(200);
    expect(await (await app.request("/orgs/acme/settings", { cookie: owner.cookie })).text()).toContain("ci");
  });

  it("offers the organization's keys that acted in its project's and its own audit log's Who filter", async () => {
    const res = await post("/orgs/acme/settings", {
      intent: "create",
      name: "release bot",
      expiry: "never",
      scope: "all",
      access: "publish",
    });
    expect(res.status).toBe(200);
    const key = /pky_[A-Za-z0-9_-]+/.exec(await res.text())?.[0];
    const put = await app.request("/api/v1/projects/acme/rocket/releases/1.0.0/files/rocket.tar.gz", {
      method: "PUT",
      headers: { authorization: `Bearer ${key}` },
      body: "rocket bytes",
    });
    expect(put.status).toBe(201);
    for (const path of ["/orgs/acme/projects/rocket/audit", "/orgs/acme/audit"]) {
      const html = await (await app.request(path, { cookie: owner.cookie })).text();
      // React separates the option's text and the name with a comment.
      expect(html, path).toMatch(/Key: (<!-- -->)?release bot</);
      // The read key made above never acted: it is not offered.
      expect(html, path).not.toMatch(/Key: (<!-- -->)?ci</);
    }
  });

  it("keeps the last owner, and a transfer moves the project's pages", async () => {
    const leave = await post("/orgs/acme/members", { intent: "leave", username: owner.username });
    expect(leave.status).toBe(409);
    expect(await leave.text()).toContain("An organization needs at least one owner");

    const moved = await post("/orgs/acme/projects/rocket/settings", {
      intent: "transfer",
      owner: owner.username,
    });
    expect(moved.headers.get("location")).toBe("/projects/rocket?transferred=1");
    expect((await app.request("/projects/rocket", { cookie: owner.cookie })).status).toBe(200);
    expect((await app.request("/orgs/acme/projects/rocket", { cookie: viewer.cookie })).status).toBe(404);

    // The organization's log names the member who acted, as the API's does.
    const org = await app.services.database.db
      .selectFrom("organization")
      .select("id")
      .where("slug", "=", "acme")
      .executeTakeFirstOrThrow();
    const entries = await app.services.database.db
      .selectFrom("audit_event")
      .select(["action", "actor_username", "target"])
      .where("owner_id", "=", org.id)
      .orderBy("created_at")
      .execute();
    expect(entries.map((e) => e.action)).toEqual(
      expect.arrayContaining([
        "organization.created",
        "project.created",
        "organization.invitation_created",
        "organization.invitation_accepted",
        "project.transferred",
      ]),
    );
    expect(entries.find((e) => e.action === "organization.invitation_accepted")?.actor_username).toBe(
      viewer.username,
    );
    // Its audit log page: admins and owners.
    const log = await app.request("/orgs/acme/audit", { cookie: owner.cookie });
    expect(log.status).toBe(200);
    expect(await log.text()).toContain("Project transferred");
    expect((await app.request("/orgs/acme/audit", { cookie: viewer.cookie })).status).toBe(403);

    const deleted = await post("/orgs/acme/settings", { intent: "delete-organization", confirm: "acme" });
    expect(deleted.headers.get("location")).toBe("/dashboard?orgDeleted=acme");
  });
});
