// The account use cases called directly, on SQLite and PostgreSQL: a username someone else has
// is refused, changing nothing and recording nothing; a new username is one
// `account.username_changed` entry in the person's own log; a change of name alone records
// nothing; a sign-in is one `session.signed_in` entry with its method and address.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";
import { changeProfile, recordSignIn } from "./use-cases.ts";
import { UsernameTakenError } from "./usernames.ts";

let app: TestApp;
let userId: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ userId } = await onboardedUser(app, "renamer"));
  await onboardedUser(app, "taken");
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;
const caller = () => ({ actor: { kind: "session" as const, userId }, address: "192.0.2.77" });
const entries = (action: string) =>
  db()
    .selectFrom("audit_event")
    .selectAll()
    .where("owner_id", "=", userId)
    .where("action", "=", action as "account.username_changed")
    .orderBy("id")
    .execute();
const username = async () =>
  (await db().selectFrom("user").select("username").where("id", "=", userId).executeTakeFirstOrThrow())
    .username;

describe(`account use cases (${databaseKind})`, () => {
  it("refuses a username someone else has: nothing changes, nothing is recorded", async () => {
    await expect(changeProfile({ db: db() }, caller(), { username: "taken" })).rejects.toBeInstanceOf(
      UsernameTakenError,
    );
    expect(await username()).toBe("renamer");
    expect(await entries("account.username_changed")).toHaveLength(0);
  });

  it("records a new username once, by the person, and a change of name alone not at all", async () => {
    await changeProfile({ db: db() }, caller(), { username: "renamer", name: "Only The Name" });
    expect(await entries("account.username_changed")).toHaveLength(0);
    const result = await changeProfile({ db: db() }, caller(), { username: "renamed" });
    expect(result).toEqual({ previous: "renamer", username: "renamed" });
    const found = await entries("account.username_changed");
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      actor_kind: "user",
      actor_user_id: userId,
      actor_username: "renamed",
      address: "192.0.2.77",
      project_id: null,
      target: "renamed",
    });
    expect(JSON.parse(found[0]!.details)).toEqual({ from: "renamer", to: "renamed" });
  });

  it("records a sign-in with its method, client and address", async () => {
    const before = (await entries("session.signed_in")).length;
    await recordSignIn(
      { db: db() },
      { userId, method: "password", userAgent: "curl/8", address: "192.0.2.78" },
    );
    const found = await entries("session.signed_in");
    expect(found).toHaveLength(before + 1);
    expect(found.at(-1)).toMatchObject({ actor_kind: "user", actor_user_id: userId, address: "192.0.2.78" });
    expect(JSON.parse(found.at(-1)!.details)).toEqual({ method: "password", userAgent: "curl/8" });
  });
});
