// Usernames in the domain (decision 014): names are one whatever their case; a changed name is
// held for its owner and redirects to them for USERNAME_HOLD_DAYS (another user refused, the
// owner allowed, free afterwards: the clock is injected); chains end at the current name; the
// unique index on lower(username) decides races. SQLite, and PostgreSQL when configured.
import { USERNAME_HOLD_DAYS } from "@packyard/contract/profile.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completeOnboarding } from "../../app/lib/onboarding.server.ts";
import {
  createTestApp,
  databaseKind,
  onboardedUser,
  signUpVerified,
  type TestApp,
} from "../../test/harness.ts";
import { findVisibleProject } from "../projects/storage.ts";
import {
  assertUsernameAvailable,
  heldUsernames,
  holdNamesOfDeletedUser,
  resolveUsername,
  setUsername,
  UsernameMovedError,
  UsernameTakenError,
} from "./usernames.ts";

let app: TestApp;
const DAY = 24 * 60 * 60 * 1000;
const T0 = new Date("2026-01-01T00:00:00.000Z");
const at = (ms: number) => () => new Date(T0.getTime() + ms);
const db = () => app.services.database.db;

/** A fresh onboarded user; returns their id. */
async function user(username: string): Promise<string> {
  return (await onboardedUser(app, username)).userId;
}

async function currentName(userId: string) {
  return (await db().selectFrom("user").select("username").where("id", "=", userId).executeTakeFirstOrThrow())
    .username;
}

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe(`usernames (${databaseKind})`, () => {
  it("finds a user by their name in any case, and refuses a name that differs only by case", async () => {
    const alice = await user("alice");
    const bob = await user("bobby");
    expect(await resolveUsername(db(), "ALICE")).toEqual({ userId: alice, username: "alice", moved: false });
    expect(await resolveUsername(db(), "nobody-here")).toBeNull();
    await expect(setUsername(db(), bob, { username: "Alice" })).rejects.toBeInstanceOf(UsernameTakenError);
    await expect(assertUsernameAvailable(db(), bob, "aLiCe")).rejects.toThrow(
      "This username is already taken",
    );
    // The database says so too, whatever the code does.
    await expect(
      db().updateTable("user").set({ username: "ALICE" }).where("id", "=", bob).execute(),
    ).rejects.toThrow();
    expect(await currentName(bob)).toBe("bobby");
  });

  it("a change of case only keeps the name: nothing is held", async () => {
    const carol = await user("carol");
    expect(await setUsername(db(), carol, { username: "Carol" }, at(0))).toEqual({
      previous: "carol",
      username: "Carol",
    });
    expect(await heldUsernames(db(), carol, at(0))).toEqual([]);
    expect(await resolveUsername(db(), "carol")).toEqual({ userId: carol, username: "Carol", moved: false });
  });

  it("holds the old name for its owner for the hold: others refused, the owner allowed, free after", async () => {
    const dave = await user("dave");
    const erin = await user("erin");
    await setUsername(db(), dave, { username: "david", name: "David" }, at(0));
    const row = await db()
      .selectFrom("user")
      .select(["username", "name"])
      .where("id", "=", dave)
      .executeTakeFirst();
    expect(row).toEqual({ username: "david", name: "David" });
    expect(await heldUsernames(db(), dave, at(DAY))).toEqual([
      {
        username: "dave",
        releasedAt: T0.toISOString(),
        heldUntil: new Date(T0.getTime() + USERNAME_HOLD_DAYS * DAY).toISOString(),
      },
    ]);

    // The old name (any case) leads to the new one.
    expect(await resolveUsername(db(), "Dave", at(DAY))).toEqual({
      userId: dave,
      username: "david",
      moved: true,
    });
    // Nobody else may take it, in any case, until the hold ends.
    const almostOver = at(USERNAME_HOLD_DAYS * DAY - 1);
    await expect(setUsername(db(), erin, { username: "dave" }, almostOver)).rejects.toBeInstanceOf(
      UsernameTakenError,
    );
    await expect(setUsername(db(), erin, { username: "DAVE" }, almostOver)).rejects.toBeInstanceOf(
      UsernameTakenError,
    );
    expect(await currentName(erin)).toBe("erin");
    // Neither at onboarding.
    const newcomer = await signUpVerified(app, { email: "newcomer@example.com" });
    expect(newcomer).toContain("session_token");
    const newcomerId = (
      await db()
        .selectFrom("user")
        .select("id")
        .where("email", "=", "newcomer@example.com")
        .executeTakeFirstOrThrow()
    ).id;
    await expect(
      completeOnboarding(db(), newcomerId, { name: "New Comer", username: "dave" }, almostOver),
    ).rejects.toBeInstanceOf(UsernameTakenError);

    // After the hold, the redirect stops and the name is anyone's.
    const over = at(USERNAME_HOLD_DAYS * DAY + 1);
    expect(await resolveUsername(db(), "dave", over)).toBeNull();
    expect(await heldUsernames(db(), dave, over)).toEqual([]);
    await completeOnboarding(db(), newcomerId, { name: "New Comer", username: "dave" }, over);
    expect(await currentName(newcomerId)).toBe("dave");
    expect(await resolveUsername(db(), "dave", over)).toEqual({
      userId: newcomerId,
      username: "dave",
      moved: false,
    });
    // The expired row is gone: the name's history starts again with its new owner.
    const rows = await db()
      .selectFrom("username_history")
      .selectAll()
      .where("name_key", "=", "dave")
      .execute();
    expect(rows).toEqual([]);
  });

  it("lets the owner take a held name back, in another case too", async () => {
    const frank = await user("frank");
    await setUsername(db(), frank, { username: "franklin" }, at(0));
    await setUsername(db(), frank, { username: "Frank" }, at(DAY));
    expect(await currentName(frank)).toBe("Frank");
    // "frank" is current again, not held; "franklin" is held now.
    expect((await heldUsernames(db(), frank, at(DAY))).map((h) => h.username)).toEqual(["franklin"]);
    expect(await resolveUsername(db(), "franklin", at(DAY))).toEqual({
      userId: frank,
      username: "Frank",
      moved: true,
    });
  });

  it("resolves a chain of names to the current one", async () => {
    const gina = await user("gina-a");
    await setUsername(db(), gina, { username: "gina-b" }, at(0));
    await setUsername(db(), gina, { username: "gina-c" }, at(DAY));
    for (const old of ["gina-a", "gina-b"])
      expect(await resolveUsername(db(), old, at(2 * DAY))).toEqual({
        userId: gina,
        username: "gina-c",
        moved: true,
      });
    // Each old name is held from when it was given up.
    expect(await resolveUsername(db(), "gina-a", at(USERNAME_HOLD_DAYS * DAY + 1))).toBeNull();
    expect(await resolveUsername(db(), "gina-b", at(USERNAME_HOLD_DAYS * DAY + 1))).toMatchObject({
      username: "gina-c",
    });
  });

  it("findVisibleProject: any case finds the project; an old name throws UsernameMovedError (a NOT_FOUND)", async () => {
    const { userId } = await onboardedUser(app, "hank");
    const now = new Date().toISOString();
    await db()
      .insertInto("project")
      .values({
        id: "hankproject0000000000001",
        owner_id: userId,
        slug: "tool",
        name: "Tool",
        description: null,
        visibility: "public",
        homepage: null,
        source_url: null,
        license: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    expect((await findVisibleProject(db(), "HANK", "tool", null)).id).toBe("hankproject0000000000001");
    await setUsername(db(), userId, { username: "Henry" });
    const moved = await findVisibleProject(db(), "hank", "tool", null).catch((e: unknown) => e);
    expect(moved).toBeInstanceOf(UsernameMovedError);
    expect(moved).toMatchObject({ code: "NOT_FOUND", username: "Henry" });
    expect((await findVisibleProject(db(), "henry", "tool", null)).id).toBe("hankproject0000000000001");
    // A project that does not exist under the new name is simply not found.
    await expect(findVisibleProject(db(), "henry", "nothing", null)).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("two users racing for one name: exactly one gets it", async () => {
    const ids = [await user("racer-one"), await user("racer-two"), await user("racer-three")];
    const results = await Promise.allSettled(ids.map((id) => setUsername(db(), id, { username: "Prize" })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(UsernameTakenError);
  });

  it("a user giving a name up while another claims it: the claim never lands in the hold", async () => {
    for (let round = 0; round < 5; round++) {
      const giver = await user(`giver-${round}`);
      const taker = await user(`taker-${round}`);
      const [gave, took] = await Promise.allSettled([
        setUsername(db(), giver, { username: `gone-${round}` }),
        setUsername(db(), taker, { username: `giver-${round}` }),
      ]);
      expect(gave.status).toBe("fulfilled");
      // The taker was refused (held, or still in use): never the name's owner during the hold.
      expect(took.status).toBe("rejected");
      expect(await currentName(taker)).toBe(`taker-${round}`);
    }
  });

  it("holds a deleted account's current and held names for everyone, then frees them", async () => {
    const leaver = await user("gone-old");
    await setUsername(db(), leaver, { username: "gone" }, at(0));
    const other = await user("arrival");
    // The account is deleted 10 days after giving up "gone-old": deletion records the holds.
    await holdNamesOfDeletedUser(db(), leaver, at(10 * DAY));
    await db().deleteFrom("user").where("id", "=", leaver).execute();
    for (const name of ["gone", "Gone-Old"]) {
      await expect(assertUsernameAvailable(db(), other, name, at(11 * DAY))).rejects.toBeInstanceOf(
        UsernameTakenError,
      );
      // Held for nobody: the URLs answer 404, they redirect nowhere.
      expect(await resolveUsername(db(), name, at(11 * DAY))).toBeNull();
    }
    // The old name's hold runs from its release, the current name's from the deletion.
    await expect(
      assertUsernameAvailable(db(), other, "gone-old", at((USERNAME_HOLD_DAYS + 1) * DAY)),
    ).resolves.toBeUndefined();
    await expect(
      assertUsernameAvailable(db(), other, "gone", at((USERNAME_HOLD_DAYS + 1) * DAY)),
    ).rejects.toBeInstanceOf(UsernameTakenError);
    await expect(
      assertUsernameAvailable(db(), other, "gone", at((USERNAME_HOLD_DAYS + 11) * DAY)),
    ).resolves.toBeUndefined();
  });
});
