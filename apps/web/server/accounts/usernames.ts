// Usernames: finding a user by the name in a URL, and changing one's name without breaking the
// URLs that carry the old one (docs/decisions/014-username-changes.md).
//
// - Names are compared whatever their case: `Ada` and `ada` are one name (a unique index on
//   lower(username) keeps two users from differing only by case).
// - When a user changes their name, the old one is recorded in username_history. For
//   USERNAME_HOLD_DAYS it redirects to the user's current name (chains a → b → c end at c,
//   since a row names the user, not the next name) and nobody else may take it; its owner may.
//   After that it is free, and its redirects stop.
import { USERNAME_HOLD_DAYS } from "@packyard/contract/profile.ts";
import type { Kysely } from "kysely";
import { sql } from "kysely";
import { DomainError, isUniqueViolation } from "../platform/core/errors.ts";
import { inTransaction } from "../platform/core/use-case.ts";
import type { Database } from "../platform/db/schema.ts";

type Db = Kysely<Database>;

/** What time it is: injected by tests that move through the hold. */
export type Clock = () => Date;
const systemClock: Clock = () => new Date();

const HOLD_MS = USERNAME_HOLD_DAYS * 24 * 60 * 60 * 1000;

/** The form names are compared in. Usernames are ASCII, so JavaScript's and SQL's lower() agree. */
export function usernameKey(name: string): string {
  return name.toLowerCase();
}

/** Someone else has the name, or held it until less than USERNAME_HOLD_DAYS ago. */
export class UsernameTakenError extends Error {
  readonly code = "USERNAME_TAKEN";
  constructor() {
    super("This username is already taken");
    this.name = "UsernameTakenError";
  }
}

/**
 * The name in a URL is a held old name: the URL lives on at `username`, the owner's current
 * name. A NOT_FOUND for callers that do not redirect; those that do (release pages, /dl, /api/p)
 * answer 301 to the same URL with `username` in its place.
 */
export class UsernameMovedError extends DomainError {
  readonly username: string;
  readonly userId: string;
  constructor(owner: { userId: string; username: string }) {
    super("NOT_FOUND", "Project not found");
    this.name = "UsernameMovedError";
    this.username = owner.username;
    this.userId = owner.userId;
  }
}

export interface ResolvedUsername {
  userId: string;
  /** The user's current name, as they wrote it. */
  username: string;
  /** The name asked for is an old name of this user, still held. */
  moved: boolean;
}

const lowerUsername = sql<string>`lower(username)`;

/** Old names released after this moment are still held. */
function holdCutoff(now: Date): string {
  return new Date(now.getTime() - HOLD_MS).toISOString();
}

/**
 * Whose name this is: the user whose current name it is (any case), else the user holding it
 * as an old name; null when nobody has it.
 */
export async function resolveUsername(
  db: Db,
  name: string,
  clock: Clock = systemClock,
): Promise<ResolvedUsername | null> {
  const key = usernameKey(name);
  const current = await db
    .selectFrom("user")
    .select(["id", "username"])
    .where(lowerUsername, "=", key)
    .executeTakeFirst();
  if (current?.username) return { userId: current.id, username: current.username, moved: false };
  const held = await db
    .selectFrom("username_history")
    .innerJoin("user", "user.id", "username_history.user_id")
    .select(["user.id", "user.username"])
    .where("username_history.name_key", "=", key)
    .where("username_history.released_at", ">", holdCutoff(clock()))
    .executeTakeFirst();
  if (held?.username) return { userId: held.id, username: held.username, moved: true };
  return null;
}

/** Throws UsernameTakenError unless `userId` may have the name: nobody else has it or holds it. */
export async function assertUsernameAvailable(
  db: Db,
  userId: string,
  name: string,
  clock: Clock = systemClock,
): Promise<void> {
  const key = usernameKey(name);
  const taken = await db
    .selectFrom("user")
    .select("id")
    .where(lowerUsername, "=", key)
    .where("id", "!=", userId)
    .executeTakeFirst();
  if (taken || (await heldByAnother(db, userId, key, clock()))) throw new UsernameTakenError();
}

async function heldByAnother(db: Db, userId: string, key: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom("username_history")
    .select("user_id")
    .where("name_key", "=", key)
    .where("user_id", "!=", userId)
    .where("released_at", ">", holdCutoff(now))
    .executeTakeFirst();
  if (row) return true;
  // A deleted account's name is held for nobody.
  const released = await db
    .selectFrom("released_username")
    .select("name_key")
    .where("name_key", "=", key)
    .where("released_at", ">", holdCutoff(now))
    .executeTakeFirst();
  return released !== undefined;
}

/**
 * Before an account is deleted: its current name and the old names it still holds stay taken for
 * USERNAME_HOLD_DAYS (from now for the current one, from their release for the old ones), so
 * nobody else can publish at the URLs its machines and scripts still use.
 */
export async function holdNamesOfDeletedUser(
  db: Db,
  userId: string,
  clock: Clock = systemClock,
): Promise<void> {
  const now = clock();
  const user = await db.selectFrom("user").select("username").where("id", "=", userId).executeTakeFirst();
  const held = await db
    .selectFrom("username_history")
    .select(["name_key", "username", "released_at"])
    .where("user_id", "=", userId)
    .where("released_at", ">", holdCutoff(now))
    .execute();
  const rows = [
    ...held,
    ...(user?.username
      ? [{ name_key: usernameKey(user.username), username: user.username, released_at: now.toISOString() }]
      : []),
  ];
  for (const row of rows) {
    await db
      .insertInto("released_username")
      .values(row)
      .onConflict((oc) =>
        oc.column("name_key").doUpdateSet({ username: row.username, released_at: row.released_at }),
      )
      .execute();
  }
}

/**
 * Sets the user's username (and name, when given): at onboarding, and on the profile page. The
 * name given up is held for the user and redirects to them; a name of theirs that was held is
 * theirs again. A change of case only is no change of name: nothing is held.
 * Throws UsernameTakenError when someone else has or holds the name.
 */
export async function setUsername(
  db: Db,
  userId: string,
  input: { username: string; name?: string },
  clock: Clock = systemClock,
): Promise<{ previous: string | null; username: string }> {
  const now = clock();
  const key = usernameKey(input.username);
  // Friendly first: the common refusal without writing anything.
  await assertUsernameAvailable(db, userId, input.username, () => now);
  try {
    return await inTransaction(db, async (tx) => {
      const user = await tx
        .selectFrom("user")
        .select("username")
        .where("id", "=", userId)
        .executeTakeFirstOrThrow();
      const previous = user.username;
      if (previous !== null && previous !== input.username) {
        // apt refuses a repository whose Release Label changed, and the Label names the owner:
        // the projects published so far keep the one they have (also for a change of case).
        await tx
          .updateTable("project")
          .set({ apt_label: sql<string>`cast(${previous} as text) || '/' || slug` })
          .where("owner_id", "=", userId)
          .where("apt_label", "is", null)
          .where(({ exists, selectFrom }) =>
            exists(
              selectFrom("repo_generation")
                .select("repo_generation.id")
                .whereRef("repo_generation.project_id", "=", "project.id")
                .where("repo_generation.format", "=", "apt"),
            ),
          )
          .execute();
      }
      if (previous !== null && usernameKey(previous) !== key) {
        // One row per name: an expired hold of someone else's is replaced.
        await tx.deleteFrom("username_history").where("name_key", "=", usernameKey(previous)).execute();
        await tx
          .insertInto("username_history")
          .values({
            name_key: usernameKey(previous),
            username: previous,
            user_id: userId,
            released_at: now.toISOString(),
          })
          .execute();
      }
      await tx
        .updateTable("user")
        .set({
          username: input.username,
          ...(input.name === undefined ? {} : { name: input.name }),
          updatedAt: now.toISOString(),
        })
        .where("id", "=", userId)
        .execute();
      // Checked again after the write: a user giving the name up right now has recorded its hold
      // before their own update, and the unique index made this update wait for it (PostgreSQL).
      if (await heldByAnother(tx, userId, key, now)) throw new UsernameTakenError();
      // The name is this user's now: their own hold of it, or an expired one, is gone.
      await tx.deleteFrom("username_history").where("name_key", "=", key).execute();
      return { previous, username: input.username };
    });
  } catch (error) {
    // Two people racing for one name: the unique index on lower(username) decides.
    if (isUniqueViolation(error)) throw new UsernameTakenError();
    throw error;
  }
}

/** The user's old names still held, newest first: what the profile page lists. */
export async function heldUsernames(
  db: Db,
  userId: string,
  clock: Clock = systemClock,
): Promise<{ username: string; releasedAt: string; heldUntil: string }[]> {
  const rows = await db
    .selectFrom("username_history")
    .select(["username", "released_at"])
    .where("user_id", "=", userId)
    .where("released_at", ">", holdCutoff(clock()))
    .orderBy("released_at", "desc")
    .execute();
  return rows.map((row) => ({
    username: row.username,
    releasedAt: row.released_at,
    heldUntil: new Date(new Date(row.released_at).getTime() + HOLD_MS).toISOString(),
  }));
}
