// Issue 37 item 8 (spec §4, §5): an account-deletion link opened by another signed-in account is
// refused without being used up, so its owner can still delete their account with it afterwards.
// SQLite, and PostgreSQL in CI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestApp,
  databaseKind,
  postJson,
  signUpVerified,
  TEST_PASSWORD,
  type TestApp,
} from "../../test/harness.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const CALLBACK = "/auth/signin?deleted=1";

async function userExists(email: string) {
  const row = await app.services.database.db
    .selectFrom("user")
    .select("id")
    .where("email", "=", email)
    .executeTakeFirst();
  return row !== undefined;
}

/** Asks for the account's deletion and returns the path of the link mailed for it. */
async function mailedDeletionLink(email: string, cookie: string): Promise<{ path: string; token: string }> {
  const asked = await postJson(
    app,
    "/api/auth/delete-user",
    { password: TEST_PASSWORD, callbackURL: CALLBACK },
    cookie,
  );
  expect(await asked.json()).toEqual({ success: true, message: "Verification email sent" });
  const mail = app.outbox().findLast((m) => m.to.includes(email) && /deletion/i.test(m.subject));
  const link = mail?.links.find((l) => l.includes("/api/auth/delete-user/callback?"));
  if (!link) throw new Error(`no deletion link mailed to ${email}`);
  const url = new URL(link);
  return { path: `${url.pathname}${url.search}`, token: url.searchParams.get("token")! };
}

describe(`a deletion link opened by another account (${databaseKind})`, () => {
  it("is refused with INVALID_TOKEN and stays usable: its owner then deletes the account with it", async () => {
    const owner = await signUpVerified(app, { email: "link-owner@example.com" });
    const other = await signUpVerified(app, { email: "link-opener@example.com" });
    const { path, token } = await mailedDeletionLink("link-owner@example.com", owner);

    // The other account, by the link (JSON and a browser) and by POST /delete-user with the token.
    const opened = await app.request(path, { cookie: other });
    expect(opened.status).toBe(404);
    expect(((await opened.json()) as { code?: string }).code).toBe("INVALID_TOKEN");
    const inBrowser = await app.request(path, { cookie: other, headers: { accept: "text/html" } });
    expect(inBrowser.status).toBe(302);
    expect(inBrowser.headers.get("location")).toBe("/auth/delete-account?error=INVALID_TOKEN");
    const posted = await postJson(app, "/api/auth/delete-user", { token }, other);
    expect(posted.status).toBe(404);
    expect(((await posted.json()) as { code?: string }).code).toBe("INVALID_TOKEN");
    expect(await userExists("link-owner@example.com")).toBe(true);
    expect(await userExists("link-opener@example.com")).toBe(true);

    // The owner's link still works.
    const deleted = await app.request(path, { cookie: owner });
    expect(deleted.status).toBe(302);
    expect(deleted.headers.get("location")).toBe(CALLBACK);
    expect(await userExists("link-owner@example.com")).toBe(false);
    expect(await userExists("link-opener@example.com")).toBe(true);
  });

  it("the owner's token used once cannot be used again", async () => {
    const owner = await signUpVerified(app, { email: "used-once@example.com" });
    const { path } = await mailedDeletionLink("used-once@example.com", owner);
    expect((await app.request(path, { cookie: owner })).status).toBe(302);
    const again = await signUpVerified(app, { email: "used-once@example.com" });
    const reused = await app.request(path, { cookie: again });
    expect(reused.status).toBe(404);
    expect(await userExists("used-once@example.com")).toBe(true);
  });
});
