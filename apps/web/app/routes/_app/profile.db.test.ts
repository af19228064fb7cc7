// /profile on the server (spec §5): the page with the signed-in user's values; the action's own
// validation with each message of the profile rules (a post without JavaScript gets them too);
// a username taken in any case; a held old name refused to others and given back to its owner;
// and the answers of better-auth's change-email that the page shows. SQLite, and PostgreSQL
// when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, postJson, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
let ada: { cookie: string; userId: string };
let bob: { cookie: string; userId: string };

function saveProfile(cookie: string, fields: Record<string, string>) {
  return app.request("/profile", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
    cookie,
  });
}

async function userRow(id: string) {
  return app.services.database.db
    .selectFrom("user")
    .select(["username", "name", "email"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

/** React escapes apostrophes and quotes in text. */
const html = (text: string) => text.replaceAll("'", "&#x27;").replaceAll('"', "&quot;");

beforeAll(async () => {
  app = await createTestApp();
  ada = await onboardedUser(app, "ada");
  bob = await onboardedUser(app, "bob");
});
afterAll(async () => {
  await app?.close();
});

describe(`/profile (${databaseKind})`, () => {
  it("shows the form with the user's username, name and email", async () => {
    const res = await app.request("/profile", { cookie: ada.cookie });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('value="ada"');
    expect(page).toContain('value="ada user"');
    expect(page).toContain('value="ada@example.com"');
    expect(page).toContain("Save profile");
    expect(page).toContain("Change email");
  });

  it("sends anonymous visitors to sign-in", async () => {
    const res = await app.request("/profile");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toContain("/auth/signin");
  });

  it.each([
    [{ username: "ab", name: "Ada" }, "Username must be at least 3 characters"],
    [{ username: "a".repeat(31), name: "Ada" }, "Username must be at most 30 characters"],
    [
      { username: "ada lovelace", name: "Ada" },
      "Username can only contain letters, numbers, underscores, and hyphens",
    ],
    [
      { username: "ada.l", name: "Ada" },
      "Username can only contain letters, numbers, underscores, and hyphens",
    ],
    [{ username: "ada", name: "" }, "Name is required"],
    [{ username: "ada", name: "x".repeat(101) }, "Name must be at most 100 characters"],
    [{ name: "Ada" }, "Username must be at least 3 characters"],
  ])("refuses %j with 400: %s", async (fields, message) => {
    const res = await saveProfile(ada.cookie, fields);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(html(message));
    expect(await userRow(ada.userId)).toMatchObject({ username: "ada", name: "ada user" });
  });

  it("saves the name alone, and a username with capitals and underscores", async () => {
    expect((await saveProfile(ada.cookie, { username: "ada", name: "Ada Lovelace" })).status).toBe(200);
    expect(await userRow(ada.userId)).toMatchObject({ username: "ada", name: "Ada Lovelace" });
    const res = await saveProfile(ada.cookie, { username: "  Ada_L-1 ", name: " Ada L. " });
    expect(res.status).toBe(200);
    expect(await userRow(ada.userId)).toMatchObject({ username: "Ada_L-1", name: "Ada L." });
    // The page now lists the name given up, held for Ada.
    const page = await (await app.request("/profile", { cookie: ada.cookie })).text();
    expect(page).toContain("Previous usernames");
    expect(page).toContain("@ada");
  });

  it("refuses a username someone has, whatever its case, and one held for someone else", async () => {
    // Ada's name now (any case), and her old one, held for her.
    for (const username of ["Ada_L-1", "ADA_L-1", "ada_l-1", "ada", "ADA"]) {
      const res = await saveProfile(bob.cookie, { username, name: "Bob" });
      expect(res.status, username).toBe(409);
      expect(await res.text()).toContain("This username is already taken");
    }
    // "bob" itself is Bob's: saving it again (in another case, even) is fine.
    expect((await saveProfile(bob.cookie, { username: "Bob", name: "Bob" })).status).toBe(200);
    expect(await userRow(bob.userId)).toMatchObject({ username: "Bob" });
  });

  it("gives a held name back to its owner", async () => {
    const res = await saveProfile(ada.cookie, { username: "ada", name: "Ada" });
    expect(res.status).toBe(200);
    expect(await userRow(ada.userId)).toMatchObject({ username: "ada" });
    const page = await (await app.request("/profile", { cookie: ada.cookie })).text();
    expect(page).toContain("@Ada_L-1");
  });

  it("change-email answers what the email form shows", async () => {
    const same = await postJson(app, "/api/auth/change-email", { newEmail: "ADA@example.com" }, ada.cookie);
    expect(same.status).toBe(400);
    expect((await same.json()).message).toBe("Email is the same");
    const used = await postJson(app, "/api/auth/change-email", { newEmail: "bob@example.com" }, ada.cookie);
    expect(used.status).toBe(400);
    expect((await used.json()).message).toBe("Couldn't update your email");
    const invalid = await postJson(app, "/api/auth/change-email", { newEmail: "not-an-email" }, ada.cookie);
    expect(invalid.status).toBe(400);
    // A verified address: nothing changes until the current address confirms.
    const ok = await postJson(
      app,
      "/api/auth/change-email",
      { newEmail: "lovelace@example.com", callbackURL: "/profile" },
      ada.cookie,
    );
    expect(ok.status).toBe(200);
    expect(await userRow(ada.userId)).toMatchObject({ email: "ada@example.com" });
    const mail = app.outbox().findLast((m) => m.to.includes("ada@example.com"));
    expect(mail?.text).toContain("lovelace@example.com");
  });
});
