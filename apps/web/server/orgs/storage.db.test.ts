// Organizations as the domain keeps them (decision 040), on SQLite and PostgreSQL: one namespace
// with usernames, roles and the last owner, invitations, an organization's account never
// signing in, projects found by owner/slug, a transferred project's old URLs, and the last owner
// kept when two owners step down, leave or remove each other at once.
import { createProjectInput } from "@packyard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, postJson, type TestApp } from "../../test/harness.ts";
import { setUsername, UsernameMovedError } from "../accounts/usernames.ts";
import type { Actor } from "../platform/core/authorization.ts";
import { DomainError } from "../platform/core/errors.ts";
import {
  createProject,
  findVisibleProject,
  requireOwnProject,
  transferProject,
} from "../projects/storage.ts";
import {
  acceptInvitation,
  createOrganization,
  deleteOrganization,
  inviteMember,
  listMembers,
  listOrganizations,
  removeMember,
  updateMemberRole,
  viewInvitation,
} from "./storage.ts";

let app: TestApp;
let ada: Actor;
let bob: Actor;
let cy: Actor;
let adaCookie: string;
const db = () => app.services.database.db;
const limits = { planLimits: true };
const BASE = "http://localhost:3000";

const codeOf = async (work: () => Promise<unknown>) => {
  try {
    await work();
    return "OK";
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
};

beforeAll(async () => {
  app = await createTestApp();
  const adaUser = await onboardedUser(app, "ada");
  ada = { kind: "session", userId: adaUser.userId };
  adaCookie = adaUser.cookie;
  bob = { kind: "session", userId: (await onboardedUser(app, "bob")).userId };
  cy = { kind: "session", userId: (await onboardedUser(app, "cyd")).userId };
});
afterAll(async () => {
  await app?.close();
});

/** Invites the user's address with a role, and accepts as them. */
async function join(org: string, who: Actor, role: "owner" | "admin" | "publisher" | "viewer", by = ada) {
  const user = await db()
    .selectFrom("user")
    .select("email")
    .where("id", "=", who.userId)
    .executeTakeFirstOrThrow();
  const invitation = await inviteMember(
    db(),
    app.services.mailer,
    by,
    org,
    { email: user.email, role },
    BASE,
  );
  await acceptInvitation(db(), who, invitation.id);
  return invitation;
}

describe(`organizations (${databaseKind})`, () => {
  it("shares one namespace with usernames, whatever the case, both ways", async () => {
    expect(await codeOf(() => createOrganization(db(), ada, { slug: "BOB", name: "Bob Inc" }))).toBe(
      "NAME_TAKEN",
    );
    await createOrganization(db(), ada, { slug: "acme", name: "Acme" });
    expect(await codeOf(() => createOrganization(db(), bob, { slug: "Acme", name: "Other" }))).toBe(
      "NAME_TAKEN",
    );
    await expect(setUsername(db(), cy.userId, { username: "ACME" })).rejects.toThrow(
      "This username is already taken",
    );
    const [org] = await listOrganizations(db(), ada.userId);
    expect(org).toMatchObject({ slug: "acme", role: "owner", memberCount: 1, projectCount: 0 });
  });

  it("refuses the organization's own account a session", async () => {
    const row = await db()
      .selectFrom("user")
      .select("email")
      .where("username", "=", "acme")
      .executeTakeFirstOrThrow();
    const res = await postJson(app, "/api/auth/sign-in/email", {
      email: row.email,
      password: "whatever-it-is",
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.get("set-cookie") ?? "").not.toContain("session_token");
  });

  it("invites through the outbox, once, for the invited address only, for 7 days", async () => {
    const invitation = await join("acme", bob, "publisher");
    const mail = app.outbox().find((m) => m.text.includes(`/invitations/${invitation.id}`));
    expect(mail?.subject).toBe("Join Acme on Packyard");
    expect((await viewInvitation(db(), invitation.id)).state).toBe("accepted");
    expect(await codeOf(() => acceptInvitation(db(), bob, invitation.id))).toBe("ALREADY_MEMBER");
    // Another account holding the link cannot take it.
    const cyEmail = "someone-else@example.test";
    const forOther = await inviteMember(
      db(),
      app.services.mailer,
      ada,
      "acme",
      { email: cyEmail, role: "viewer" },
      BASE,
    );
    expect(await codeOf(() => acceptInvitation(db(), cy, forOther.id))).toBe("INVITATION_EMAIL_MISMATCH");
    // Past its 7 days.
    const later = () => new Date(Date.now() + 8 * 24 * 60 * 60 * 1000);
    expect(await codeOf(() => acceptInvitation(db(), cy, forOther.id, later))).toBe("INVITATION_EXPIRED");
    expect((await viewInvitation(db(), forOther.id, later)).state).toBe("expired");
  });

  it("lets admins manage members, only owners make owners, and keeps one owner", async () => {
    await join("acme", cy, "admin");
    expect(await codeOf(() => updateMemberRole(db(), bob, "acme", "cyd", "viewer"))).toBe("FORBIDDEN");
    expect(await codeOf(() => updateMemberRole(db(), cy, "acme", "bob", "owner"))).toBe("FORBIDDEN");
    expect(await codeOf(() => updateMemberRole(db(), cy, "acme", "bob", "viewer"))).toBe("OK");
    expect(await codeOf(() => updateMemberRole(db(), ada, "acme", "ada", "admin"))).toBe("ORG_LAST_OWNER");
    expect(await codeOf(() => removeMember(db(), ada, "acme", "ada"))).toBe("ORG_LAST_OWNER");
    // Ownership moves: a second owner, then the first steps down.
    await updateMemberRole(db(), ada, "acme", "cyd", "owner");
    await updateMemberRole(db(), ada, "acme", "ada", "admin");
    await updateMemberRole(db(), cy, "acme", "ada", "owner");
    await updateMemberRole(db(), ada, "acme", "cyd", "admin");
    const roles = Object.fromEntries((await listMembers(db(), bob, "acme")).map((m) => [m.username, m.role]));
    expect(roles).toEqual({ ada: "owner", bob: "viewer", cyd: "admin" });
    // A non-member is told nothing.
    const outsider: Actor = { kind: "session", userId: (await onboardedUser(app, "dee")).userId };
    expect(await codeOf(() => listMembers(db(), outsider, "acme"))).toBe("NOT_FOUND");
  });

  it("finds an organization's projects by role, by owner/slug, and refuses what the role does not allow", async () => {
    await createProject(
      db(),
      ada,
      createProjectInput.parse({ slug: "vault", name: "Vault", visibility: "private", owner: "acme" }),
      { planLimits: false },
    );
    // bob is a viewer: reads, may not publish.
    expect((await requireOwnProject(db(), bob, "vault", "read")).slug).toBe("vault");
    expect(await codeOf(() => requireOwnProject(db(), bob, "acme/vault", "publish"))).toBe("FORBIDDEN");
    await updateMemberRole(db(), ada, "acme", "bob", "publisher");
    expect(await codeOf(() => requireOwnProject(db(), bob, "acme/vault", "publish"))).toBe("OK");
    expect(await codeOf(() => requireOwnProject(db(), bob, "acme/vault", "manage"))).toBe("FORBIDDEN");
    // A project of his own with the same slug: the bare slug is ambiguous, owner/slug is not.
    await createProject(
      db(),
      bob,
      createProjectInput.parse({ slug: "vault", name: "Mine", visibility: "public" }),
      limits,
    );
    expect(await codeOf(() => requireOwnProject(db(), bob, "vault", "read"))).toBe("AMBIGUOUS_PROJECT");
    expect((await requireOwnProject(db(), bob, "bob/vault", "read")).name).toBe("Mine");
    // The public page of a private org project: members only.
    expect((await findVisibleProject(db(), "acme", "vault", bob)).name).toBe("Vault");
    await removeMember(db(), bob, "acme", "bob");
    expect(await codeOf(() => findVisibleProject(db(), "acme", "vault", bob))).toBe("NOT_FOUND");
    expect(await codeOf(() => requireOwnProject(db(), bob, "acme/vault", "read"))).toBe("NOT_FOUND");
    // Not deleted while it owns a project.
    expect(await codeOf(() => deleteOrganization(db(), ada, "acme"))).toBe("ORG_NOT_EMPTY");
  });

  it("keeps the only owner from deleting their account", async () => {
    const res = await postJson(app, "/api/auth/delete-user", {}, adaCookie);
    expect(res.status).toBe(400);
    expect((await res.json()).message).toBe(
      "You are the only owner of acme: make another member an owner, or delete the organization, before deleting your account",
    );
    expect(app.outbox().some((m) => m.subject.includes("delete"))).toBe(false);
  });

  it("moves a project to an organization, and its old URLs follow it", async () => {
    await createProject(
      db(),
      cy,
      createProjectInput.parse({ slug: "tool", name: "Tool", visibility: "public" }),
      limits,
    );
    expect(await codeOf(() => transferProject(db(), cy, "tool", "acme", limits))).toBe("OK");
    const moved = await codeOf(() => findVisibleProject(db(), "cyd", "tool", null));
    expect(moved).toBe("NOT_FOUND");
    await expect(findVisibleProject(db(), "cyd", "tool", null)).rejects.toBeInstanceOf(UsernameMovedError);
    await expect(findVisibleProject(db(), "cyd", "tool", null)).rejects.toMatchObject({ username: "acme" });
    expect((await findVisibleProject(db(), "acme", "tool", null)).slug).toBe("tool");
    // The Label apt has seen stays.
    const row = await db()
      .selectFrom("project")
      .select("apt_label")
      .where("slug", "=", "tool")
      .executeTakeFirstOrThrow();
    expect(row.apt_label).toBe("cyd/tool");
    // Only to an organization the actor administers.
    const outsider: Actor = { kind: "session", userId: (await onboardedUser(app, "eve")).userId };
    await createProject(
      db(),
      outsider,
      createProjectInput.parse({ slug: "eve-tool", name: "E", visibility: "public" }),
      limits,
    );
    expect(await codeOf(() => transferProject(db(), outsider, "eve-tool", "acme", limits))).toBe("NOT_FOUND");
  });
});

describe(`two owners at once (${databaseKind})`, () => {
  // Many organizations, so that on PostgreSQL (a pool of connections) the two calls of some of
  // them interleave between counting the owners and changing a membership.
  const ORGS_PER_RACE = 10;
  let pat: Actor;
  let quin: Actor;

  beforeAll(async () => {
    pat = { kind: "session", userId: (await onboardedUser(app, "pat")).userId };
    quin = { kind: "session", userId: (await onboardedUser(app, "quin")).userId };
  });

  /** Organizations created by pat, with quin made a second owner. */
  async function twoOwnerOrgs(prefix: string): Promise<string[]> {
    const slugs: string[] = [];
    for (let i = 0; i < ORGS_PER_RACE; i++) {
      const slug = `${prefix}-${i}`;
      await createOrganization(db(), pat, { slug, name: slug });
      await join(slug, quin, "owner", pat);
      slugs.push(slug);
    }
    return slugs;
  }

  async function ownerCount(slug: string): Promise<number> {
    const rows = await db()
      .selectFrom("org_member")
      .innerJoin("organization", "organization.id", "org_member.org_id")
      .select("org_member.user_id")
      .where("organization.slug", "=", slug)
      .where("org_member.role", "=", "owner")
      .execute();
    return rows.length;
  }

  // What the losing call answers: ORG_LAST_OWNER, or, where the winner took away the loser's
  // own right to act before the loser's request was authorized, the refusal of that.
  const races: [string, string, RegExp, (slug: string) => [Promise<unknown>, Promise<unknown>]][] = [
    [
      "demote each other",
      "demote",
      // Already made an admin: only owners unmake owners.
      /^(ORG_LAST_OWNER|FORBIDDEN)$/,
      (slug) => [
        updateMemberRole(db(), pat, slug, "quin", "admin"),
        updateMemberRole(db(), quin, slug, "pat", "admin"),
      ],
    ],
    [
      "remove each other",
      "remove",
      // Already removed: the organization is not found.
      /^(ORG_LAST_OWNER|NOT_FOUND)$/,
      (slug) => [removeMember(db(), pat, slug, "quin"), removeMember(db(), quin, slug, "pat")],
    ],
    [
      "both leave",
      "leave",
      /^ORG_LAST_OWNER$/,
      (slug) => [removeMember(db(), pat, slug, "pat"), removeMember(db(), quin, slug, "quin")],
    ],
    [
      "both step down",
      "step-down",
      /^ORG_LAST_OWNER$/,
      (slug) => [
        updateMemberRole(db(), pat, slug, "pat", "viewer"),
        updateMemberRole(db(), quin, slug, "quin", "publisher"),
      ],
    ],
    [
      "one steps down as the other leaves",
      "mixed",
      /^ORG_LAST_OWNER$/,
      (slug) => [updateMemberRole(db(), pat, slug, "pat", "admin"), removeMember(db(), quin, slug, "quin")],
    ],
  ];

  for (const [name, prefix, refusal, race] of races)
    it(`${name}: one call wins, the other is refused, and one owner stays`, async () => {
      const slugs = await twoOwnerOrgs(`race-${prefix}`);
      const codes = await Promise.all(
        slugs.map(async (slug) => {
          const [first, second] = race(slug);
          return Promise.all([codeOf(() => first), codeOf(() => second)]);
        }),
      );
      const outcomes = await Promise.all(
        slugs.map(async (slug, i) => ({
          slug,
          succeeded: codes[i]!.filter((code) => code === "OK").length,
          refused: codes[i]!.filter((code) => code !== "OK"),
          owners: await ownerCount(slug),
        })),
      );
      expect(outcomes).toEqual(
        slugs.map((slug) => ({ slug, succeeded: 1, refused: [expect.stringMatching(refusal)], owners: 1 })),
      );
    });
});
