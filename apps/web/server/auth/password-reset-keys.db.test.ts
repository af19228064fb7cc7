// Issue 37 item 13 (part): API keys outlive a password reset unless the reset revokes them. The
// reset mail says so; POST /api/auth/reset-password with revokeApiKeys revokes every key of the
// account (each recorded once in its audit log), without it they keep working; the reset page
// offers the choice. SQLite, and PostgreSQL in CI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  postJson,
  publishingProject,
  TEST_ORIGIN,
  type TestApp,
} from "../../test/harness.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

/** Asks for a reset of the account's password; returns the mail and the token in its link. */
async function resetMail(email: string) {
  const asked = await postJson(app, "/api/auth/request-password-reset", {
    email,
    redirectTo: "/auth/reset-password",
  });
  expect(asked.status).toBe(200);
  const mail = app
    .outbox()
    .findLast((m) => m.to.includes(email) && m.subject === "Reset your Packyard password");
  const link = mail?.links.find((l) => l.includes("/api/auth/reset-password/"));
  if (!mail || !link) throw new Error(`no reset link mailed to ${email}`);
  const token = new URL(link).pathname.split("/reset-password/")[1]!;
  return { mail, token };
}

async function keyDeletions(userId: string) {
  return app.services.database.db
    .selectFrom("audit_event")
    .select(["target", "details"])
    .where("owner_id", "=", userId)
    .where("action", "=", "api_key.deleted")
    .execute();
}

describe(`API keys and a password reset (${databaseKind})`, () => {
  it("the reset mail says API keys keep working unless revoked, and where to revoke them", async () => {
    await publishingProject(app, "mailread", "mailread-tool");
    const { mail } = await resetMail("mailread@example.com");
    expect(mail.text).toContain("Your API keys keep working after a password reset unless you revoke them.");
    expect(mail.links).toContain(`${TEST_ORIGIN}/api-keys`);
  });

  it("a reset with revokeApiKeys revokes every key: they answer 401, each deletion logged once", async () => {
    const { auth, userId } = await publishingProject(app, "revoker", "revoker-tool");
    const readKey = bearer(await createApiKey(app, userId, { projects: "*", access: "read" }));
    expect((await app.request("/api/v1/projects", { headers: auth })).status).toBe(200);
    expect((await app.request("/api/v1/projects", { headers: readKey })).status).toBe(200);

    const { token } = await resetMail("revoker@example.com");
    const reset = await postJson(app, "/api/auth/reset-password", {
      token,
      newPassword: "a brand new password",
      revokeApiKeys: true,
    });
    expect(reset.status).toBe(200);

    for (const headers of [auth, readKey]) {
      const res = await app.request("/api/v1/projects", { headers });
      expect(res.status).toBe(401);
    }
    const logged = await keyDeletions(userId);
    expect(logged.map((e) => e.target).sort()).toEqual(["test publish", "test read"]);
    expect(logged.every((e) => JSON.parse(e.details).reason === "password_reset")).toBe(true);
  });

  it("a reset without it leaves the keys working", async () => {
    const { auth, userId } = await publishingProject(app, "keeper", "keeper-tool");
    for (const revokeApiKeys of [undefined, false]) {
      const { token } = await resetMail("keeper@example.com");
      const reset = await postJson(app, "/api/auth/reset-password", {
        token,
        newPassword: "a brand new password",
        ...(revokeApiKeys === undefined ? {} : { revokeApiKeys }),
      });
      expect(reset.status).toBe(200);
      expect((await app.request("/api/v1/projects", { headers: auth })).status).toBe(200);
    }
    expect(await keyDeletions(userId)).toEqual([]);
  });

  it("a failed reset (a wrong token) revokes nothing", async () => {
    const { auth } = await publishingProject(app, "wrongtoken", "wrongtoken-tool");
    const reset = await postJson(app, "/api/auth/reset-password", {
      token: "not-a-token",
      newPassword: "a brand new password",
      revokeApiKeys: true,
    });
    expect(reset.status).toBe(400);
    expect((await app.request("/api/v1/projects", { headers: auth })).status).toBe(200);
  });

  it("the reset page offers to revoke the keys, checked by default", async () => {
    const page = await app.request("/auth/reset-password?token=abc");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Also revoke my API keys");
    const checkbox = html.match(/<input[^>]*name="revokeApiKeys"[^>]*>/)?.[0] ?? "";
    expect(checkbox).toContain('type="checkbox"');
    expect(checkbox).toContain('checked=""');
  });
});
