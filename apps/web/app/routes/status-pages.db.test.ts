// The not-found and error views as the server renders them (spec §2, §8): a signed-in user gets
// the signed-in variant (the header's Dashboard link, "Go to Dashboard") whether a loader or an
// action failed, and the project and release pages whose data cannot be read — here the
// database lost its release table — log 'Failed to fetch project data' / 'Failed to fetch
// release data' and show the generic error view; a missing project or release stays the
// not-found view. SQLite, and PostgreSQL when configured.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";

let app: TestApp;
let cookie: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ cookie } = await onboardedUser(app, "failing"));
  const created = await app.request("/projects", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      intent: "create",
      visibility: "public",
      slug: "widget",
      name: "Widget",
    }).toString(),
    cookie,
  });
  expect(created.status).toBe(302);
  const upload = await app.request("/api/v1/projects/widget/releases/1.0.0/files/widget.tar.gz", {
    method: "PUT",
    body: new TextEncoder().encode("widget 1.0.0"),
    cookie,
  });
  expect(upload.status).toBe(201);
});
afterAll(async () => {
  await app?.close();
});

/** Runs `request` while the release table is missing, with the error log captured. */
async function withReleaseTableMissing(request: () => Promise<Response>) {
  const { db } = app.services.database;
  const logged = vi.spyOn(app.services.logger, "error").mockImplementation(() => {});
  await sql`ALTER TABLE release RENAME TO release_unavailable`.execute(db);
  try {
    const res = await request();
    return {
      status: res.status,
      html: await res.text(),
      errors: logged.mock.calls.map(([, error]) => error),
    };
  } finally {
    await sql`ALTER TABLE release_unavailable RENAME TO release`.execute(db);
    logged.mockRestore();
  }
}

/** The header and the view's button are the signed-in ones. */
function expectSignedIn(html: string) {
  expect(html).toContain("Go to Dashboard");
  expect(html).not.toContain("Go to Home page");
  expect(html).toMatch(/<a[^>]*href="\/dashboard"[^>]*>Dashboard<\/a>/);
  expect(html).not.toContain("Get started");
}

describe(`status pages for a signed-in user (${databaseKind})`, () => {
  it("shows the not-found view's signed-in variant", async () => {
    const res = await app.request("/projects/does-not-exist", { cookie });
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("Page Not Found");
    expectSignedIn(html);
  });

  it("shows the error view's signed-in variant when an action throws", async () => {
    const { status, html } = await withReleaseTableMissing(() =>
      app.request("/projects/widget/releases/1.0.0", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "unyank" }).toString(),
        cookie,
      }),
    );
    expect(status).toBe(500);
    expect(html).toContain("Something went wrong. Please try again later.");
    expectSignedIn(html);
  });

  it("shows the signed-out variant to a visitor", async () => {
    const res = await app.request("/no/such/page");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("Go to Home page");
    expect(html).toContain("Get started");
  });
});

describe(`project and release data that cannot be read (${databaseKind})`, () => {
  const cases = [
    ["the project page", "/projects/widget", "Failed to fetch project data"],
    ["the release page", "/projects/widget/releases/1.0.0", "Failed to fetch release data"],
    ["the public release page", "/releases/failing/widget/1.0.0", "Failed to fetch release data"],
  ] as const;

  for (const [page, path, sentence] of cases) {
    it(`fails ${page} with '${sentence}', logged, and the generic error view`, async () => {
      const { status, html, errors } = await withReleaseTableMissing(() => app.request(path, { cookie }));
      expect(status).toBe(500);
      expect(html).toContain("Oops!");
      expect(html).toContain("Something went wrong. Please try again later.");
      expectSignedIn(html);
      expect(errors).toHaveLength(1);
      const error = errors[0] as Error;
      expect(error.message).toBe(sentence);
      // What failed underneath stays in the log.
      expect(String((error.cause as Error).message)).toMatch(/release/);
      // The sentence is for the log: the page does not show it.
      expect(html).not.toContain(sentence);
    });
  }

  it("keeps a missing project or release the not-found view", async () => {
    for (const path of ["/projects/nothing", "/projects/widget/releases/9.9.9"]) {
      const res = await app.request(path, { cookie });
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("Page Not Found");
    }
    const release = await app.request("/releases/failing/widget/9.9.9");
    expect(release.status).toBe(404);
    expect(await release.text()).toContain("Release not found");
  });
});
