// The API keys' use cases called directly, on SQLite and PostgreSQL: each key created or deleted
// is recorded once in its owner's log (a person's own, or the organization's), naming who acted;
// a refused caller creates or deletes nothing and leaves no entry.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";
import { acceptInvitation, createOrganization, inviteMember } from "../orgs/use-cases.ts";
import { DomainError } from "../platform/core/errors.ts";
import type { Caller } from "../platform/core/use-case.ts";
import { createApiKey, deleteApiKey, deleteApiKeys } from "./use-cases.ts";

let app: TestApp;
let ada: Caller;
let bob: Caller;
let orgId: string;
const db = () => app.services.database.db;
const deps = () => ({ db: db(), auth: app.services.auth });
const userIdOf = (caller: Caller) => (caller.actor.kind === "system" ? "" : caller.actor.userId);
const DAY = 24 * 60 * 60;

beforeAll(async () => {
  app = await createTestApp();
  ada = {
    actor: { kind: "session", userId: (await onboardedUser(app, "keyada")).userId },
    address: "198.51.100.1",
  };
  bob = {
    actor: { kind: "session", userId: (await onboardedUser(app, "keybob")).userId },
    address: "198.51.100.2",
  };
  // Bob is a publisher of Ada's organization: he may not manage its keys.
  orgId = (await createOrganization({ db: db() }, ada, { slug: "key-org", name: "Key Org" })).id;
  const bobEmail = (
    await db().selectFrom("user").select("email").where("id", "=", userIdOf(bob)).executeTakeFirstOrThrow()
  ).email;
  const invitation = await inviteMember(
    { db: db(), mailer: app.services.mailer, baseUrl: "http://localhost:3000" },
    ada,
    { organization: "key-org", email: bobEmail, role: "publisher" },
  );
  await acceptInvitation({ db: db() }, bob, { invitationId: invitation.id });
});
afterAll(async () => {
  await app?.close();
});

async function entries(ownerId: string) {
  return db()
    .selectFrom("audit_event")
    .selectAll()
    .where("owner_id", "=", ownerId)
    .where("action", "like", "api_key.%")
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

async function keyIds(ownerId: string) {
  const rows = await db().selectFrom("apikey").select("id").where("referenceId", "=", ownerId).execute();
  return rows.map((r) => r.id).sort();
}

async function codeOf(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
    return "OK";
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

describe(`API key use cases (${databaseKind})`, () => {
  it("record a person's key created and deleted once each, in their own log", async () => {
    const { created, ownerId } = await createApiKey(deps(), ada, {
      name: "laptop",
      expiresIn: null,
      access: "publish",
      projects: "*",
    });
    expect(ownerId).toBe(userIdOf(ada));
    expect(await keyIds(ownerId)).toContain(created.id);
    await deleteApiKey(deps(), ada, { keyId: created.id });
    expect(await keyIds(ownerId)).not.toContain(created.id);
    const log = (await entries(ownerId)).filter((e) => JSON.parse(e.details).keyId === created.id);
    expect(log.map((e) => [e.action, e.target, e.actor_kind, e.actor_user_id, e.address])).toEqual([
      ["api_key.created", "laptop", "user", userIdOf(ada), "198.51.100.1"],
      ["api_key.deleted", "laptop", "user", userIdOf(ada), "198.51.100.1"],
    ]);
  });

  it("record an organization's key in the organization's log, naming the member who made it", async () => {
    const { created, ownerId } = await createApiKey(deps(), ada, {
      organization: "key-org",
      name: "ci",
      expiresIn: DAY,
      access: "read",
      projects: "*",
    });
    expect(ownerId).toBe(orgId);
    expect(await keyIds(orgId)).toEqual([created.id]);
    expect(await entries(orgId)).toMatchObject([
      { action: "api_key.created", target: "ci", actor_user_id: userIdOf(ada), address: "198.51.100.1" },
    ]);
    // Only the expired keys go, each recorded as when deleted one by one.
    await createApiKey(deps(), ada, {
      organization: "key-org",
      name: "forever",
      expiresIn: null,
      access: "read",
      projects: "*",
    });
    const later = new Date(Date.now() + 2 * DAY * 1000);
    expect(
      await deleteApiKeys({ db: db(), now: later }, ada, { organization: "key-org", which: "expired" }),
    ).toBe(1);
    expect((await entries(orgId)).map((e) => [e.action, e.target])).toEqual([
      ["api_key.created", "ci"],
      ["api_key.created", "forever"],
      ["api_key.deleted", "ci"],
    ]);
  });

  it("create or delete nothing, and record nothing, for a refused caller", async () => {
    const { created: adas } = await createApiKey(deps(), ada, {
      name: "ada's",
      expiresIn: null,
      access: "read",
      projects: "*",
    });
    const before = {
      adaKeys: await keyIds(userIdOf(ada)),
      orgKeys: await keyIds(orgId),
      adaLog: await entries(userIdOf(ada)),
      orgLog: await entries(orgId),
      bobLog: await entries(userIdOf(bob)),
    };
    const orgKey = (await keyIds(orgId))[0]!;
    const input = { name: "nope", expiresIn: null, access: "read" as const, projects: "*" as const };

    // A publisher may not manage the organization's keys.
    expect(await codeOf(() => createApiKey(deps(), bob, { ...input, organization: "key-org" }))).toBe(
      "FORBIDDEN",
    );
    expect(await codeOf(() => deleteApiKey(deps(), bob, { organization: "key-org", keyId: orgKey }))).toBe(
      "FORBIDDEN",
    );
    // Another person's key is not found among one's own.
    expect(await codeOf(() => deleteApiKey(deps(), bob, { keyId: adas.id }))).toBe("NOT_FOUND");
    // An organization's key manages no keys; a read key manages none either.
    const orgActor: Caller = {
      actor: {
        kind: "key",
        userId: orgId,
        keyId: orgKey,
        scope: { projects: "*", access: "publish" },
        org: true,
      },
      address: null,
    };
    expect(await codeOf(() => createApiKey(deps(), orgActor, input))).toBe("NOT_FOUND");
    const readKey: Caller = {
      actor: { kind: "key", userId: userIdOf(ada), keyId: adas.id, scope: { projects: "*", access: "read" } },
      address: null,
    };
    expect(await codeOf(() => deleteApiKey(deps(), readKey, { keyId: adas.id }))).toBe("KEY_SCOPE");
    // A scope naming a project the owner cannot reach.
    expect(await codeOf(() => createApiKey(deps(), ada, { ...input, projects: { refs: ["no-such"] } }))).toBe(
      "NOT_FOUND",
    );

    expect({
      adaKeys: await keyIds(userIdOf(ada)),
      orgKeys: await keyIds(orgId),
      adaLog: await entries(userIdOf(ada)),
      orgLog: await entries(orgId),
      bobLog: await entries(userIdOf(bob)),
    }).toEqual(before);
  });
});
