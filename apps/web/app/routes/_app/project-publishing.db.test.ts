// The trusted publishing page as its server renders it: the owner adds a GitHub Actions and a
// GitLab CI publisher through the form (a repository the contract refuses is a message on its
// field, the same publisher twice the form's alert), the page lists them with their conditions,
// when they were last used and the CI configuration to paste, and removes one; a viewer of the
// organization owning a project neither sees the page nor adds or removes through its action;
// another account gets 404. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
let owner: { cookie: string; userId: string; username: string };
let viewer: { cookie: string };
let stranger: { cookie: string };

beforeAll(async () => {
  app = await createTestApp();
  owner = await onboardedUser(app, "shipper");
  viewer = await onboardedUser(app, "vera");
  stranger = await onboardedUser(app, "outsider");
  const res = await post("/projects", {
    intent: "create",
    visibility: "public",
    slug: "widget",
    name: "Widget",
  });
  expect(res.status).toBe(302);
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

/**
 * The page's HTML with React's escaping of text, its text-node markers and the line breaks in
 * repository paths (<wbr/>) undone, to find a message in it.
 */
async function text(res: Response) {
  return (await res.text())
    .replaceAll("<!-- -->", "")
    .replaceAll("<wbr/>", "")
    .replaceAll("&#x27;", "'")
    .replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">");
}

const github = (values: Record<string, string>) => ({
  intent: "add",
  provider: "github",
  repository: "",
  workflow: "",
  environment: "",
  ref: "",
  issuer: "",
  ...values,
});

const publishers = () =>
  app.services.database.db
    .selectFrom("trusted_publisher")
    .select(["id", "provider", "repository", "workflow", "environment", "ref", "issuer"])
    .orderBy("created_at")
    .orderBy("id")
    .execute();

describe(`the trusted publishing page (${databaseKind})`, () => {
  it("adds publishers through the form, refusing what the contract refuses next to its field", async () => {
    const empty = await app.request("/projects/widget/publishing", { cookie: owner.cookie });
    expect(empty.status).toBe(200);
    expect(empty.headers.get("cache-control")).toBe("no-store");
    const emptyHtml = await text(empty);
    expect(emptyHtml).toContain("Trusted publishing");
    expect(emptyHtml).toContain("No trusted publishers yet");
    expect(emptyHtml).toContain("Add a trusted publisher");
    expect(emptyHtml).toContain('href="/projects/widget/publishing"');

    const bad = await post(
      "/projects/widget/publishing",
      github({ repository: "octo", ref: "refs/tags/v *" }),
    );
    expect(bad.status).toBe(400);
    const badHtml = await text(bad);
    // The form posts through a fetcher: the contract's messages are in the answer's data (the
    // browser test sees them under their fields).
    expect(badHtml).toContain("repository must be the GitHub repository as owner/name");
    expect(badHtml).toContain("ref may not contain spaces");
    const badPath = await post("/projects/widget/publishing", {
      intent: "add",
      provider: "gitlab",
      projectPath: "no-group",
      environment: "",
      ref: "",
      issuer: "",
    });
    expect(badPath.status).toBe(400);
    expect(await text(badPath)).toContain(
      "projectPath must be the GitLab project's path, such as group/project",
    );
    expect(await publishers()).toEqual([]);

    const added = await post(
      "/projects/widget/publishing",
      github({
        repository: "Octo-Org/Widget",
        workflow: "release.yml",
        environment: "release",
        ref: "refs/tags/v*",
      }),
    );
    expect(added.status).toBe(200);
    expect(await text(added)).toContain(
      "GitHub Actions octo-org/widget (release.yml, environment release, ref refs/tags/v*) may publish",
    );
    const again = await post(
      "/projects/widget/publishing",
      github({
        repository: "octo-org/widget",
        workflow: "release.yml",
        environment: "release",
        ref: "refs/tags/v*",
      }),
    );
    expect(again.status).toBe(400);
    expect(await text(again)).toContain("The project already trusts this publisher");

    const gitlab = await post("/projects/widget/publishing", {
      intent: "add",
      provider: "gitlab",
      projectPath: "acme/tools/widget",
      environment: "",
      ref: "main",
      issuer: "https://gitlab.example.com/",
      // A field of the other provider is not the GitLab publisher's.
      workflow: "release.yml",
    });
    expect(gitlab.status).toBe(200);

    expect(await publishers()).toEqual([
      expect.objectContaining({
        provider: "github",
        repository: "octo-org/widget",
        workflow: "release.yml",
        environment: "release",
        ref: "refs/tags/v*",
        issuer: "https://token.actions.githubusercontent.com",
      }),
      expect.objectContaining({
        provider: "gitlab",
        repository: "acme/tools/widget",
        workflow: null,
        environment: null,
        ref: "main",
        issuer: "https://gitlab.example.com",
      }),
    ]);
  });

  it("lists them with their conditions, last use and CI configuration, and removes one", async () => {
    const [first, second] = await publishers();
    await app.services.database.db
      .updateTable("trusted_publisher")
      .set({ last_used_at: "2030-01-02T03:04:05.000Z" })
      .where("id", "=", second!.id)
      .execute();

    const html = await text(await app.request("/projects/widget/publishing", { cookie: owner.cookie }));
    expect(html).not.toContain("No trusted publishers yet");
    expect(html.match(/data-testid="trusted-publisher"/g)).toHaveLength(2);
    expect(html).toContain(">octo-org/widget</h3>");
    expect(html).toContain(">acme/tools/widget</h3>");
    expect(html).toContain("refs/tags/v*");
    expect(html).toContain("Never used");
    expect(html).toContain("Jan 2, 2030");
    // A self-managed GitLab's issuer is named; github.com's goes without saying.
    expect(html).toContain("https://gitlab.example.com");
    // The CI configuration: GitHub's job may ask for its ID token, GitLab's gets one for this server.
    expect(html).toContain("id-token: write");
    expect(html).toContain(".github/workflows/release.yml");
    expect(html).toContain("PACKYARD_ID_TOKEN: # traded for a publish token");
    expect(html).toMatch(/aud: http:\/\/[^\s]+\n/);
    expect(html).toContain('curl -fsSL "$PACKYARD_SERVER/cli/install.sh" | sh');
    expect(html).toContain("packyard push shipper/widget");

    expect((await app.request("/projects/widget/publishing", { cookie: stranger.cookie })).status).toBe(404);
    expect(
      (await post("/projects/widget/publishing", github({ repository: "x/y" }), stranger.cookie)).status,
    ).toBe(404);

    const removed = await post("/projects/widget/publishing", { intent: "remove", publisherId: first!.id });
    expect(removed.status).toBe(200);
    expect(await text(removed)).toContain("Trusted publisher removed");
    expect((await publishers()).map((p) => p.id)).toEqual([second!.id]);
    // Removed already: the 404 page.
    expect(
      (await post("/projects/widget/publishing", { intent: "remove", publisherId: first!.id })).status,
    ).toBe(404);
    const after = await text(await app.request("/projects/widget/publishing", { cookie: owner.cookie }));
    expect(after.match(/data-testid="trusted-publisher"/g)).toHaveLength(1);
    expect(after).not.toContain(">octo-org/widget</h3>");
    expect(after).toContain(">acme/tools/widget</h3>");
  });

  it("is not a viewer's: no page, and the action refuses to add or remove", async () => {
    expect((await post("/orgs/new", { name: "Ship Org", slug: "shiporg" })).status).toBe(302);
    const project = await post("/projects", {
      intent: "create",
      owner: "shiporg",
      slug: "rocket",
      name: "Rocket",
      visibility: "private",
    });
    expect(project.status).toBe(302);
    const invited = await post("/orgs/shiporg/members", {
      intent: "invite",
      email: "vera@example.com",
      role: "viewer",
    });
    expect(invited.status).toBe(200);
    const link = app
      .outbox()
      .findLast((m) => m.to.includes("vera@example.com"))
      ?.links.find((l) => l.includes("/invitations/"));
    const path = new URL(link!).pathname;
    const accepted = await post(path, { invitationId: path.split("/").at(-1)! }, viewer.cookie);
    expect(accepted.headers.get("location")).toBe("/orgs/shiporg?joined=1");

    const page = "/orgs/shiporg/projects/rocket/publishing";
    expect((await post(page, github({ repository: "ship/rocket" }))).status).toBe(200);
    const [publisher] = (await publishers()).filter((p) => p.repository === "ship/rocket");
    expect(publisher).toBeDefined();
    const ownerHtml = await text(await app.request(page, { cookie: owner.cookie }));
    expect(ownerHtml).toContain(">ship/rocket</h3>");
    expect(ownerHtml).toContain("packyard push shiporg/rocket");

    // The viewer's project page has no Publishing tab, and the page itself is refused.
    const overview = await text(
      await app.request("/orgs/shiporg/projects/rocket", { cookie: viewer.cookie }),
    );
    expect(overview).not.toContain(`href="${page}"`);
    expect((await app.request(page, { cookie: viewer.cookie })).status).toBe(403);

    const add = await post(page, github({ repository: "vera/evil" }), viewer.cookie);
    expect(add.status).toBe(403);
    expect(await text(add)).toContain("Your role in this organization (viewer) does not allow this");
    const remove = await post(page, { intent: "remove", publisherId: publisher!.id }, viewer.cookie);
    expect(remove.status).toBe(403);
    expect(await text(remove)).toContain("Your role in this organization (viewer) does not allow this");
    expect(
      (await publishers()).filter((p) => p.repository.startsWith("ship/") || p.repository === "vera/evil"),
    ).toEqual([expect.objectContaining({ id: publisher!.id })]);
  });
});
