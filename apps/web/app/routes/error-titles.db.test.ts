// A page whose loader fails renders the error boundary with exactly one <title>: the not-found
// page's for a 404, the default one otherwise.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";

let app: TestApp;
let cookie: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ cookie } = await onboardedUser(app, "titled"));
});
afterAll(async () => {
  await app?.close();
});

describe(`error pages (${databaseKind})`, () => {
  it("answers a dashboard page for a missing project with 404 and one <title>", async () => {
    const res = await app.request("/projects/no-such-project", { cookie });
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html.match(/<title>/g)).toHaveLength(1);
    expect(html).toContain("<title>Page Not Found · Packyard</title>");
    expect(html).toContain("Page Not Found");
  });

  it("answers a missing public release page with its own view and one <title>", async () => {
    const res = await app.request("/releases/titled/nothing/1.0.0");
    const html = await res.text();
    expect(html.match(/<title>/g)).toHaveLength(1);
  });
});
