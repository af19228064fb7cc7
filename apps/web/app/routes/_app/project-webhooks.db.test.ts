// Domain refusals answered by the pages' actions as form errors, never as a 500: a webhook URL
// the server refuses (a private or loopback address, a host that does not resolve) is a message
// on the Payload URL field, and an import a viewer may not start is the form's alert. SQLite,
// and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
let owner: { cookie: string };
let viewer: { cookie: string };
beforeAll(async () => {
  app = await createTestApp();
  owner = await onboardedUser(app, "hooker");
  viewer = await onboardedUser(app, "viola");
  const res = await post("/projects", { intent: "create", visibility: "public", slug: "tool", name: "Tool" });
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

/** The page's HTML with React's escaping of text undone, to find a message in it. */
async function text(res: Response) {
  return (await res.text()).replaceAll("&#x27;", "'").replaceAll("&quot;", '"');
}

describe(`webhook and import forms refused by the server (${databaseKind})`, () => {
  it.each([
    [
      "http://localhost:8080/hook",
      /Webhooks cannot be sent to localhost: localhost resolves to [\w.:]+, a loopback, link-local or private address\. Use a public address\./,
    ],
    [
      "http://10.1.2.3/hook",
      /Webhooks cannot be sent to 10\.1\.2\.3: 10\.1\.2\.3 is a loopback, link-local or private address\. Use a public address\./,
    ],
    [
      "http://127.0.0.1:9/hook",
      /Webhooks cannot be sent to 127\.0\.0\.1: 127\.0\.0\.1 is a loopback, link-local or private address\. Use a public address\./,
    ],
    ["http://no-such-host.invalid/hook", /no-such-host\.invalid could not be resolved/],
  ])("answers %s with a message on the Payload URL field", async (url, message) => {
    const res = await post("/projects/tool/webhooks", {
      intent: "create",
      url,
      description: "",
      events: "release.created",
    });
    expect(res.status).toBe(400);
    const html = await text(res);
    // The form posts through a fetcher: its answer is in the page's data (the browser test sees
    // it under the field).
    expect(html).toMatch(message);
    expect(await app.services.database.db.selectFrom("webhook").select("id").execute()).toEqual([]);
  });

  it("answers an import a viewer of the organization may not start in the form, not with a 500", async () => {
    expect((await post("/orgs/new", { name: "Hook Org", slug: "hookorg" })).status).toBe(302);
    const project = await post("/projects", {
      intent: "create",
      owner: "hookorg",
      slug: "rocket",
      name: "Rocket",
      visibility: "private",
    });
    expect(project.status).toBe(302);
    const invited = await post("/orgs/hookorg/members", {
      intent: "invite",
      email: "viola@example.com",
      role: "viewer",
    });
    expect(invited.status).toBe(200);
    const link = app
      .outbox()
      .findLast((m) => m.to.includes("viola@example.com"))
      ?.links.find((l) => l.includes("/invitations/"));
    const path = new URL(link!).pathname;
    const accepted = await post(path, { invitationId: path.split("/").at(-1)! }, viewer.cookie);
    expect(accepted.headers.get("location")).toBe("/orgs/hookorg?joined=1");

    const res = await post(
      "/integrations/github-releases",
      { project: "hookorg/rocket", kind: "github-releases", repository: "acme/hello", token: "ghp_secret" },
      viewer.cookie,
    );
    expect(res.status).toBe(403);
    const html = await text(res);
    expect(html).toContain("Your role in this organization (viewer) does not allow this");
    // The token typed into the form is not sent back.
    expect(html).not.toContain("ghp_secret");
    const imports = await app.services.database.db.selectFrom("import").select("id").execute();
    expect(imports).toEqual([]);
  });
});
