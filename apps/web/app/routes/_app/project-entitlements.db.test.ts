// The entitlement tokens pages as their server renders them: a Basic account is told its plan has
// none (with the way to the plans); on a plan with them, the form creates a token whose secret and
// setup commands are in the answer and which reads the project; a bad version range is a message
// on its field; the list shows it; the token's page shows its use; disable, rotate and delete
// through the page's action; another account gets 404. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setOperatorPlan } from "../../../server/billing/plan.ts";
import { flushDownloadCounts } from "../../../server/billing/usage.ts";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
let owner: { cookie: string; userId: string; username: string };
let stranger: { cookie: string };

beforeAll(async () => {
  app = await createTestApp();
  owner = await onboardedUser(app, "seller");
  stranger = await onboardedUser(app, "stranger");
  const res = await post("/projects", {
    intent: "create",
    visibility: "private",
    slug: "agent",
    name: "Agent",
  });
  expect(res.status).toBe(302);
  const put = await app.request("/api/v1/projects/agent/releases/2.0.0/files/agent.tar.gz", {
    method: "PUT",
    body: "agent bytes",
    cookie: owner.cookie,
  });
  expect(put.status).toBe(201);
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

/** The page's HTML with React's escaping of text and its text-node markers undone, to find a message in it. */
async function text(res: Response) {
  return (await res.text())
    .replaceAll("<!-- -->", "")
    .replaceAll("&#x27;", "'")
    .replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&");
}

const form = (values: Record<string, string>) => ({
  intent: "create",
  name: "",
  note: "",
  validUntil: "",
  versionRange: "",
  maxDownloads: "",
  maxGigabytesPerMonth: "",
  suites: "",
  groups: "",
  ...values,
});

describe(`the entitlement tokens pages (${databaseKind})`, () => {
  it("tell a Basic account its plan has none, and refuse a token made anyway with PLAN_LIMIT", async () => {
    const page = await app.request("/projects/agent/entitlements", { cookie: owner.cookie });
    expect(page.status).toBe(200);
    const html = await text(page);
    expect(html).toContain("Your Basic plan does not include entitlement tokens.");
    expect(html).toContain('href="/pricing"');
    const refused = await post("/projects/agent/entitlements", form({ name: "Initech" }));
    expect(refused.status).toBe(403);
    expect(await text(refused)).toContain("does not include entitlement tokens");
  });

  it("create a token whose secret and setup commands are shown once, list it, and show its use", async () => {
    await setOperatorPlan(app.services.database.db, owner.userId, "starter");
    const bad = await post("/projects/agent/entitlements", form({ name: "Initech", versionRange: ">=2 <" }));
    expect(bad.status).toBe(400);
    expect(await text(bad)).toContain("is not a comparator such as");

    const created = await post(
      "/projects/agent/entitlements",
      form({
        name: "Initech",
        note: "order 4711",
        maxDownloads: "10",
        maxGigabytesPerMonth: "5",
        suites: "stable",
      }),
    );
    expect(created.status).toBe(200);
    const answer = await text(created);
    const token = /pke_[A-Za-z0-9]{40}/.exec(answer)?.[0];
    expect(token).toBeDefined();
    // The form posts through a fetcher: the secret is in the answer's data, and the page shows it
    // once with the setup commands (the browser screenshots show that panel).

    const download = await app.request("/dl/seller/agent/releases/2.0.0/agent.tar.gz", {
      headers: { authorization: `Bearer ${token}`, "user-agent": "curl/8.5.0" },
    });
    expect(await download.text()).toBe("agent bytes");
    await flushDownloadCounts(app.services.database.db);

    const list = await text(await app.request("/projects/agent/entitlements", { cookie: owner.cookie }));
    expect(list).toContain("Initech");
    expect(list).toContain("order 4711");
    expect(list).toContain("1 of 10");
    expect(list).toContain("11 B of 5 GB");
    expect(list).not.toContain(token);
    const id = /\/projects\/agent\/entitlements\/([A-Za-z0-9]{24})/.exec(list)?.[1];
    expect(id).toBeDefined();

    const usage = await app.request(`/projects/agent/entitlements/${id}`, { cookie: owner.cookie });
    expect(usage.status).toBe(200);
    const usageHtml = await text(usage);
    expect(usageHtml).toContain("Installs and downloads per day");
    expect(usageHtml).toMatch(/data-testid="entitlement-usage"[\s\S]*11 B/);
    expect(
      (await app.request(`/projects/agent/entitlements/${"x".repeat(24)}`, { cookie: owner.cookie })).status,
    ).toBe(404);
    expect((await app.request("/projects/agent/entitlements", { cookie: stranger.cookie })).status).toBe(404);

    expect(
      (await post("/projects/agent/entitlements", { intent: "toggle", entitlementId: id!, enabled: "false" }))
        .status,
    ).toBe(200);
    const disabled = await app.request("/dl/seller/agent/releases/2.0.0/agent.tar.gz", {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(disabled.status).toBe(401);
    const rotated = await post("/projects/agent/entitlements", {
      intent: "rotate",
      entitlementId: id!,
      overlapHours: "0",
    });
    expect(rotated.status).toBe(200);
    const fresh = /pke_[A-Za-z0-9]{40}/.exec(await text(rotated))?.[0];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(token);
    expect(
      (await post("/projects/agent/entitlements", { intent: "delete", entitlementId: id! })).status,
    ).toBe(200);
    expect(await text(await app.request("/projects/agent/entitlements", { cookie: owner.cookie }))).toContain(
      "No entitlement tokens yet",
    );
  });
});
