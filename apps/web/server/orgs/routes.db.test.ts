// /api/v1/orgs, /api/v1/invitations, organization keys, projects created under and transferred
// to an organization and addressed as /api/v1/projects/{owner}/{slug} (decision 040), on SQLite
// and PostgreSQL. The tests build on each other, as one organization's life.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  signUpVerified,
  TEST_ORIGIN,
  type TestApp,
} from "../../test/harness.ts";

type User = Awaited<ReturnType<typeof onboardedUser>>;
let app: TestApp;
let alice: User; // creates acme: its owner
let bob: User; // invited as a publisher, made an admin, then removed
let carol: User; // invited, but opens others' links too
let dave: User; // no member of anything

const send = (method: string, path: string, who: User | string | null, body?: unknown) =>
  app.request(path, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(typeof who === "string" ? bearer(who) : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    cookie: who && typeof who !== "string" ? who.cookie : undefined,
  });
const get = (path: string, who: User | string | null) => send("GET", path, who);

async function expectError(res: Response, status: number, code: string) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(JSON.parse(text).error.code).toBe(code);
}

beforeAll(async () => {
  app = await createTestApp();
  alice = await onboardedUser(app, "alice");
  bob = await onboardedUser(app, "bob");
  carol = await onboardedUser(app, "carol");
  dave = await onboardedUser(app, "dave");
});
afterAll(async () => {
  await app?.close();
});

describe(`organizations through the API (${databaseKind})`, () => {
  it("are created, listed, read, renamed, and not deleted while they own projects", async () => {
    const created = await send("POST", "/api/v1/orgs", alice, { slug: "acme", name: "Acme" });
    expect(created.status).toBe(201);
    expect((await created.json()).organization).toMatchObject({
      slug: "acme",
      name: "Acme",
      role: "owner",
      memberCount: 1,
      projectCount: 0,
    });
    const list = await (await get("/api/v1/orgs", alice)).json();
    expect(list.organizations.map((o: { slug: string }) => o.slug)).toEqual(["acme"]);
    expect((await (await get("/api/v1/orgs", dave)).json()).organizations).toEqual([]);
    // Any case finds it; to a non-member it does not exist.
    expect((await get("/api/v1/orgs/ACME", alice)).status).toBe(200);
    await expectError(await get("/api/v1/orgs/acme", dave), 404, "NOT_FOUND");
    await expectError(await send("PATCH", "/api/v1/orgs/acme", dave, { name: "Mine" }), 404, "NOT_FOUND");

    const renamed = await send("PATCH", "/api/v1/orgs/acme", alice, { name: "Acme Corp" });
    expect((await renamed.json()).organization.name).toBe("Acme Corp");

    const project = await send("POST", "/api/v1/projects", alice, {
      slug: "widget",
      name: "Widget",
      owner: "acme",
      visibility: "private",
    });
    expect(project.status).toBe(201);
    expect((await project.json()).project).toMatchObject({
      owner: "acme",
      ownerKind: "organization",
      slug: "widget",
    });
    // Only its admins and owners create projects in it.
    await expectError(
      await send("POST", "/api/v1/projects", dave, { slug: "intruder", name: "I", owner: "acme" }),
      404,
      "NOT_FOUND",
    );
    await expectError(await send("DELETE", "/api/v1/orgs/acme", alice), 409, "ORG_NOT_EMPTY");

    // An empty one goes; its name stays held, like a deleted account's.
    expect((await send("POST", "/api/v1/orgs", alice, { slug: "short-lived", name: "S" })).status).toBe(201);
    expect((await send("DELETE", "/api/v1/orgs/short-lived", alice)).status).toBe(204);
    await expectError(await get("/api/v1/orgs/short-lived", alice), 404, "NOT_FOUND");
    await expectError(
      await send("POST", "/api/v1/orgs", dave, { slug: "short-lived", name: "S" }),
      409,
      "NAME_TAKEN",
    );
  });

  it("share one namespace with usernames, in any case, both ways", async () => {
    // An organization cannot take a user's name…
    const taken = await send("POST", "/api/v1/orgs", dave, { slug: "Bob", name: "Not Bob" });
    await expectError(taken, 409, "NAME_TAKEN");
    await expectError(
      await send("POST", "/api/v1/orgs", dave, { slug: "ACME", name: "Another" }),
      409,
      "NAME_TAKEN",
    );
    // …and a user cannot take an organization's, on the profile page.
    const profile = await app.request("/profile", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username: "Acme", name: "dave" }).toString(),
      cookie: dave.cookie,
    });
    expect(profile.status).toBe(409);
    // …nor at onboarding.
    const erin = await signUpVerified(app, { email: "erin@example.com", name: "Erin" });
    const onboarding = await app.request("/onboarding", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username: "acme", name: "Erin" }).toString(),
      cookie: erin,
    });
    expect(onboarding.status).toBe(409);
    expect(await get("/api/v1/me", dave).then((r) => r.json())).toMatchObject({ user: { username: "dave" } });
    // A slug follows the username rules.
    await expectError(
      await send("POST", "/api/v1/orgs", alice, { slug: "a", name: "Too short" }),
      400,
      "VALIDATION_FAILED",
    );
  });

  let bobInvitation: string;

  it("invite by email through the outbox; the link is accepted by the invited address only", async () => {
    const invited = await send("POST", "/api/v1/orgs/acme/invitations", alice, {
      email: "Bob@Example.com",
      role: "publisher",
    });
    expect(invited.status).toBe(201);
    const { invitation } = await invited.json();
    expect(invitation).toMatchObject({ email: "bob@example.com", role: "publisher", invitedBy: "alice" });
    const mail = app.outbox().findLast((m) => m.to.includes("bob@example.com"))!;
    expect(mail.subject).toBe("Join Acme Corp on Packyard");
    const link = mail.links.find((l) => l.includes("/invitations/"))!;
    expect(link).toBe(invitation.url);
    bobInvitation = new URL(link).pathname.split("/").pop()!;

    const listed = await (await get("/api/v1/orgs/acme/invitations", alice)).json();
    expect(listed.invitations.map((i: { id: string }) => i.id)).toEqual([bobInvitation]);

    // Someone else's account, a key, nobody: refused.
    await expectError(
      await send("POST", `/api/v1/invitations/${bobInvitation}/accept`, carol),
      403,
      "INVITATION_EMAIL_MISMATCH",
    );
    const bobKey = await createApiKey(app, bob.userId, { projects: "*", access: "publish" });
    await expectError(
      await send("POST", `/api/v1/invitations/${bobInvitation}/accept`, bobKey),
      403,
      "FORBIDDEN",
    );
    await expectError(
      await send("POST", `/api/v1/invitations/${bobInvitation}/accept`, null),
      401,
      "UNAUTHENTICATED",
    );

    const accepted = await send("POST", `/api/v1/invitations/${bobInvitation}/accept`, bob);
    expect(accepted.status).toBe(200);
    expect((await accepted.json()).organization).toMatchObject({ slug: "acme", role: "publisher" });
    await expectError(
      await send("POST", `/api/v1/invitations/${bobInvitation}/accept`, bob),
      409,
      "ALREADY_MEMBER",
    );
    await expectError(
      await send("POST", "/api/v1/orgs/acme/invitations", alice, {
        email: "bob@example.com",
        role: "viewer",
      }),
      409,
      "ALREADY_MEMBER",
    );
    // A publisher does not invite.
    await expectError(
      await send("POST", "/api/v1/orgs/acme/invitations", bob, { email: "x@example.com", role: "viewer" }),
      403,
      "FORBIDDEN",
    );

    // An expired invitation and a revoked one: 410.
    const forCarol = await (
      await send("POST", "/api/v1/orgs/acme/invitations", alice, {
        email: "carol@example.com",
        role: "viewer",
      })
    ).json();
    await app.services.database.db
      .updateTable("org_invitation")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", forCarol.invitation.id)
      .execute();
    await expectError(
      await send("POST", `/api/v1/invitations/${forCarol.invitation.id}/accept`, carol),
      410,
      "INVITATION_EXPIRED",
    );
    const again = await (
      await send("POST", "/api/v1/orgs/acme/invitations", alice, {
        email: "carol@example.com",
        role: "viewer",
      })
    ).json();
    expect((await send("DELETE", `/api/v1/orgs/acme/invitations/${again.invitation.id}`, alice)).status).toBe(
      204,
    );
    await expectError(
      await send("POST", `/api/v1/invitations/${again.invitation.id}/accept`, carol),
      410,
      "INVITATION_EXPIRED",
    );
    const members = await (await get("/api/v1/orgs/acme/members", bob)).json();
    expect(members.members.map((m: { username: string; role: string }) => [m.username, m.role])).toEqual([
      ["alice", "owner"],
      ["bob", "publisher"],
    ]);
  });

  it("roles: admins manage members, only owners make owners, the last owner stays", async () => {
    await expectError(
      await send("PATCH", "/api/v1/orgs/acme/members/alice", bob, { role: "viewer" }),
      403,
      "FORBIDDEN",
    );
    const promoted = await send("PATCH", "/api/v1/orgs/acme/members/BOB", alice, { role: "admin" });
    expect((await promoted.json()).member).toMatchObject({ username: "bob", role: "admin" });
    // An admin may not make an owner, nor demote one.
    await expectError(
      await send("PATCH", "/api/v1/orgs/acme/members/bob", bob, { role: "owner" }),
      403,
      "FORBIDDEN",
    );
    await expectError(await send("DELETE", "/api/v1/orgs/acme/members/alice", bob), 403, "FORBIDDEN");
    await expectError(
      await send("PATCH", "/api/v1/orgs/acme/members/alice", alice, { role: "admin" }),
      409,
      "ORG_LAST_OWNER",
    );
    await expectError(await send("DELETE", "/api/v1/orgs/acme/members/alice", alice), 409, "ORG_LAST_OWNER");
    await expectError(
      await send("PATCH", "/api/v1/orgs/acme/members/bob", alice, { role: "boss" }),
      400,
      "VALIDATION_FAILED",
    );
    await expectError(
      await send("PATCH", "/api/v1/orgs/acme/members/dave", alice, { role: "viewer" }),
      404,
      "NOT_FOUND",
    );
  });

  let orgKey: string;
  let bobPersonalKey: string;

  it("organization keys outlive their creator; a former member's personal key reaches nothing", async () => {
    // An admin (bob) makes the organization's key; it belongs to the organization.
    const created = await send("POST", "/api/v1/orgs/acme/keys", bob, {
      name: "ci",
      access: "publish",
      projects: ["widget"],
      expiresInDays: null,
    });
    expect(created.status).toBe(201);
    const { key } = await created.json();
    expect(key.scope).toEqual({ projects: ["widget"], access: "publish" });
    orgKey = key.key;
    const stored = await app.services.database.db
      .selectFrom("apikey")
      .select("referenceId")
      .where("id", "=", key.id)
      .executeTakeFirstOrThrow();
    const org = await app.services.database.db
      .selectFrom("organization")
      .select("id")
      .where("slug", "=", "acme")
      .executeTakeFirstOrThrow();
    expect(stored.referenceId).toBe(org.id);
    // Only the organization's projects; and only admins and owners manage its keys.
    await expectError(
      await send("POST", "/api/v1/orgs/acme/keys", bob, { name: "x", access: "read", projects: ["mine"] }),
      404,
      "NOT_FOUND",
    );
    const keys = await (await get("/api/v1/orgs/acme/keys", alice)).json();
    expect(keys.keys.map((k: { name: string }) => k.name)).toEqual(["ci"]);
    await expectError(await get("/api/v1/orgs/acme/keys", dave), 404, "NOT_FOUND");

    const me = await (await get("/api/v1/me", orgKey)).json();
    expect(me).toMatchObject({
      user: { username: "acme", email: "" },
      auth: { kind: "key", organization: "acme", scope: { projects: ["widget"], access: "publish" } },
    });

    // bob's personal key, scoped to the organization's project by owner/slug.
    const personal = await send("POST", "/api/v1/keys", bob, {
      name: "bob's",
      access: "publish",
      projects: ["acme/widget"],
    });
    expect(personal.status).toBe(201);
    const personalKey = (await personal.json()).key;
    expect(personalKey.scope.projects).toEqual(["acme/widget"]);
    bobPersonalKey = personalKey.key;
    expect((await get("/api/v1/projects/acme/widget", bobPersonalKey)).status).toBe(200);

    // bob leaves the company.
    expect((await send("DELETE", "/api/v1/orgs/acme/members/bob", alice)).status).toBe(204);
    await expectError(await get("/api/v1/projects/acme/widget", bobPersonalKey), 404, "NOT_FOUND");
    await expectError(await get("/api/v1/projects/acme/widget", bob), 404, "NOT_FOUND");
    await expectError(await get("/api/v1/orgs/acme", bob), 404, "NOT_FOUND");
    // The organization's key still publishes.
    const upload = await app.request("/api/v1/projects/acme/widget/releases/1.0.0/files/widget-linux", {
      method: "PUT",
      body: "#!/bin/sh\necho widget\n",
      headers: bearer(orgKey),
    });
    expect(upload.status, await upload.clone().text()).toBe(201);
    const releases = await (await get("/api/v1/projects/widget/releases", orgKey)).json();
    expect(releases.releases.map((r: { version: string }) => r.version)).toEqual(["1.0.0"]);
    // It is no person: it does not transfer projects; organizations are account data.
    await expectError(
      await send("POST", "/api/v1/projects/widget/transfer", orgKey, { owner: "alice" }),
      403,
      "FORBIDDEN",
    );
    await expectError(await get("/api/v1/orgs", orgKey), 403, "KEY_SCOPE");
  });

  it("a project is transferred to the organization, addressed as owner/slug, and ambiguous by slug alone", async () => {
    // alice's own "widget" next to acme's.
    expect((await send("POST", "/api/v1/projects", alice, { slug: "widget", name: "Mine" })).status).toBe(
      201,
    );
    await expectError(await get("/api/v1/projects/widget", alice), 409, "AMBIGUOUS_PROJECT");
    expect((await (await get("/api/v1/projects/alice/widget", alice)).json()).project.name).toBe("Mine");
    expect((await (await get("/api/v1/projects/acme%2Fwidget", alice)).json()).project.owner).toBe("acme");
    const acmeReleases = await (await get("/api/v1/projects/acme/widget/releases", alice)).json();
    expect(acmeReleases.releases).toHaveLength(1);
    await expectError(await get("/api/v1/projects/dave/widget", alice), 404, "NOT_FOUND");

    // A public project of alice's moves to acme; its old URLs redirect.
    expect((await send("POST", "/api/v1/projects", alice, { slug: "gadget", name: "Gadget" })).status).toBe(
      201,
    );
    await expectError(
      await send("POST", "/api/v1/projects/gadget/transfer", dave, { owner: "acme" }),
      404,
      "NOT_FOUND",
    );
    await expectError(
      await send("POST", "/api/v1/projects/gadget/transfer", alice, { owner: "bob" }),
      404,
      "NOT_FOUND",
    );
    const moved = await send("POST", "/api/v1/projects/alice/gadget/transfer", alice, { owner: "acme" });
    expect(moved.status).toBe(200);
    expect((await moved.json()).project).toMatchObject({ owner: "acme", ownerKind: "organization" });
    const old = await app.request("/api/p/alice/gadget");
    expect([old.status, old.headers.get("location")]).toEqual([301, `${TEST_ORIGIN}/api/p/acme/gadget`]);
    expect((await get("/api/v1/projects/gadget", alice)).status).toBe(200);
    // A project by owner/slug takes its settings too, and is deleted as one.
    const patched = await send("PATCH", "/api/v1/projects/acme/gadget", alice, { description: "Moved" });
    expect((await patched.json()).project.description).toBe("Moved");
  });

  it("the organization's audit log names the member who acted", async () => {
    const res = await get("/api/v1/orgs/acme/audit?limit=200", alice);
    expect(res.status).toBe(200);
    const entries: { action: string; actor: { username: string | null }; target: string | null }[] = (
      await res.json()
    ).entries;
    const seen = entries.map((e) => `${e.action} ${e.target} by ${e.actor.username}`).reverse();
    expect(seen).toEqual(
      expect.arrayContaining([
        "organization.created acme by alice",
        "organization.renamed acme by alice",
        "project.created widget by alice",
        "organization.invitation_created bob@example.com by alice",
        "organization.invitation_accepted acme by bob",
        "organization.invitation_revoked carol@example.com by alice",
        "organization.member_role_changed bob by alice",
        "api_key.created ci by bob",
        "organization.member_removed bob by alice",
        "file.uploaded widget-linux by acme",
        "project.transferred gadget by alice",
      ]),
    );
    // alice's own log says where gadget went.
    const own = await (await get("/api/v1/audit?action=project.transferred", alice)).json();
    expect(own.entries).toHaveLength(1);
    await expectError(await get("/api/v1/orgs/acme/audit", bob), 404, "NOT_FOUND");
    await expectError(await get("/api/v1/orgs/acme/audit?action=nonsense", alice), 400, "VALIDATION_FAILED");
  });
});
