// The organizations' use cases called directly, on SQLite and PostgreSQL: each change is recorded
// once, naming who acted and from where, and a refused caller changes nothing and leaves no entry
// (the routes' own tests cover the answers: api/orgs.db.test.ts, routes/_app/orgs.db.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";
import { type DomainEvent, onDomainEvent } from "../platform/core/changes.ts";
import { DomainError } from "../platform/core/errors.ts";
import { type Caller, SYSTEM } from "../platform/core/use-case.ts";
import { listMembers } from "./storage.ts";
import {
  acceptInvitation,
  changeMemberRole,
  createOrganization,
  deleteOrganization,
  inviteMember,
  removeMember,
  renameOrganization,
  revokeInvitation,
} from "./use-cases.ts";

let app: TestApp;
let ada: Caller;
let bob: Caller;
const db = () => app.services.database.db;
const deps = () => ({
  db: db(),
  mailer: app.services.mailer,
  baseUrl: "http://localhost:3000",
  clock: app.services.clock,
});

beforeAll(async () => {
  app = await createTestApp();
  ada = {
    actor: { kind: "session", userId: (await onboardedUser(app, "ucada")).userId },
    address: "203.0.113.1",
  };
  bob = {
    actor: { kind: "session", userId: (await onboardedUser(app, "ucbob")).userId },
    address: "203.0.113.2",
  };
});
afterAll(async () => {
  await app?.close();
});

const userIdOf = (caller: Caller) => (caller.actor.kind === "system" ? null : caller.actor.userId);

/** The entries of an owner's log, oldest first. */
async function entries(ownerId: string, action?: string) {
  let query = db().selectFrom("audit_event").selectAll().where("owner_id", "=", ownerId);
  if (action) query = query.where("action", "=", action);
  return query.orderBy("created_at").orderBy("id").execute();
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

async function emailOf(caller: Caller): Promise<string> {
  const row = await db()
    .selectFrom("user")
    .select("email")
    .where("id", "=", userIdOf(caller)!)
    .executeTakeFirstOrThrow();
  return row.email;
}

describe(`organization use cases (${databaseKind})`, () => {
  it("record each change once, in the organization's log, naming the member and the address", async () => {
    const heard: DomainEvent[] = [];
    const stop = onDomainEvent(db(), (event) => {
      heard.push(event);
    });
    let orgId: string;
    try {
      const org = await createOrganization(deps(), ada, { slug: "uc-acme", name: "Acme" });
      orgId = org.id;
      expect(await entries(orgId)).toMatchObject([
        {
          action: "organization.created",
          target: "uc-acme",
          actor_kind: "user",
          actor_user_id: userIdOf(ada),
          address: "203.0.113.1",
        },
      ]);
      // Announced once, after the commit.
      expect(heard).toEqual([
        { type: "changed", action: "organization.created", ownerId: orgId, projectId: null },
      ]);
    } finally {
      stop();
    }

    const invitation = await inviteMember(deps(), ada, {
      organization: "uc-acme",
      email: await emailOf(bob),
      role: "viewer",
    });
    await acceptInvitation(deps(), bob, { invitationId: invitation.id });
    await changeMemberRole(deps(), ada, { organization: "uc-acme", username: "ucbob", role: "publisher" });
    // The same role again changes nothing, so nothing is recorded.
    await changeMemberRole(deps(), ada, { organization: "uc-acme", username: "ucbob", role: "publisher" });
    await renameOrganization(deps(), ada, { organization: "uc-acme", name: "Acme Inc" });
    await renameOrganization(deps(), ada, { organization: "uc-acme", name: "Acme Inc" });
    await removeMember(deps(), bob, { organization: "uc-acme", username: "ucbob" });

    const log = await entries(orgId);
    expect(log.map((e) => [e.action, e.actor_user_id])).toEqual([
      ["organization.created", userIdOf(ada)],
      ["organization.invitation_created", userIdOf(ada)],
      ["organization.invitation_accepted", userIdOf(bob)],
      ["organization.member_role_changed", userIdOf(ada)],
      ["organization.renamed", userIdOf(ada)],
      ["organization.member_removed", userIdOf(bob)],
    ]);
    expect(JSON.parse(log[3]!.details)).toEqual({ from: "viewer", to: "publisher" });
    expect(JSON.parse(log[4]!.details)).toEqual({ from: "Acme", to: "Acme Inc" });
    expect(JSON.parse(log[5]!.details)).toEqual({ role: "publisher", left: true });

    // Deleted, its log goes with it: the deletion is in the deleting member's own.
    await deleteOrganization(deps(), ada, { organization: "uc-acme" });
    expect(await entries(orgId)).toEqual([]);
    expect(await entries(userIdOf(ada)!, "organization.deleted")).toMatchObject([
      { target: "uc-acme", actor_user_id: userIdOf(ada), details: JSON.stringify({ organizationId: orgId }) },
    ]);
  });

  it("change nothing and record nothing for a refused caller", async () => {
    const org = await createOrganization(deps(), ada, { slug: "uc-refused", name: "Refused" });
    const invitation = await inviteMember(deps(), ada, {
      organization: "uc-refused",
      email: await emailOf(bob),
      role: "viewer",
    });
    await acceptInvitation(deps(), bob, { invitationId: invitation.id });
    const open = await inviteMember(deps(), ada, {
      organization: "uc-refused",
      email: "someone@example.com",
      role: "viewer",
    });
    const before = await entries(org.id);
    const members = await listMembers(db(), { kind: "session", userId: userIdOf(ada)! }, "uc-refused");

    // A viewer may not manage; the last owner may not leave; a job is nobody's member.
    expect(
      await codeOf(() => renameOrganization(deps(), bob, { organization: "uc-refused", name: "Mine" })),
    ).toBe("FORBIDDEN");
    expect(
      await codeOf(() =>
        changeMemberRole(deps(), bob, { organization: "uc-refused", username: "ucbob", role: "owner" }),
      ),
    ).toBe("FORBIDDEN");
    expect(
      await codeOf(() => removeMember(deps(), bob, { organization: "uc-refused", username: "ucada" })),
    ).toBe("FORBIDDEN");
    expect(
      await codeOf(() =>
        revokeInvitation(deps(), bob, { organization: "uc-refused", invitationId: open.id }),
      ),
    ).toBe("FORBIDDEN");
    expect(await codeOf(() => deleteOrganization(deps(), bob, { organization: "uc-refused" }))).toBe(
      "FORBIDDEN",
    );
    expect(
      await codeOf(() => removeMember(deps(), ada, { organization: "uc-refused", username: "ucada" })),
    ).toBe("ORG_LAST_OWNER");
    expect(
      await codeOf(() =>
        changeMemberRole(deps(), ada, { organization: "uc-refused", username: "ucada", role: "admin" }),
      ),
    ).toBe("ORG_LAST_OWNER");
    expect(
      await codeOf(() => renameOrganization(deps(), SYSTEM, { organization: "uc-refused", name: "Job" })),
    ).toBe("FORBIDDEN");
    // An invitation accepted twice is refused the second time.
    expect(await codeOf(() => acceptInvitation(deps(), bob, { invitationId: invitation.id }))).toBe(
      "ALREADY_MEMBER",
    );

    expect(await entries(org.id)).toEqual(before);
    expect(await listMembers(db(), { kind: "session", userId: userIdOf(ada)! }, "uc-refused")).toEqual(
      members,
    );
    const row = await db()
      .selectFrom("organization")
      .select("name")
      .where("id", "=", org.id)
      .executeTakeFirstOrThrow();
    expect(row.name).toBe("Refused");
    const stillOpen = await db()
      .selectFrom("org_invitation")
      .select("revoked_at")
      .where("id", "=", open.id)
      .executeTakeFirstOrThrow();
    expect(stillOpen.revoked_at).toBeNull();
  });

  it("roll a change back with its entry when the domain refuses it half-way", async () => {
    await createOrganization(deps(), ada, { slug: "uc-taken", name: "Taken" });
    const before = await db().selectFrom("audit_event").select("id").execute();
    // The slug is checked inside the change: nothing of the second organization, no entry.
    expect(await codeOf(() => createOrganization(deps(), bob, { slug: "UC-TAKEN", name: "Again" }))).toBe(
      "NAME_TAKEN",
    );
    expect(await db().selectFrom("audit_event").select("id").execute()).toEqual(before);
  });
});
