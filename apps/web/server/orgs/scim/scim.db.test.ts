// SCIM 2.0 provisioning through the real server (issue 43, docs/sso.md): an owner's token, the
// discovery documents, Users created (a new account, or the existing account at a verified domain
// — never at an unverified one), found by filter, patched in Okta's and Entra's shapes,
// deactivated (the membership and only the organization's SSO sessions go), reactivated and
// deleted; Groups whose names the organization's group roles map to roles; the last owner kept;
// every change in the organization's audit log under the token. SQLite, and PostgreSQL when
// configured.
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
} from "../../../test/harness.ts";

type User = Awaited<ReturnType<typeof onboardedUser>>;
let app: TestApp;
let owner: User; // dora@example.com, owns acme
let admin: User; // adam@example.com, acme's admin
let erin: User; // erin@example.com, an account before any provisioning
let orgId: string;
let token: string;

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

const send = (method: string, path: string, who: User, body?: unknown) =>
  app.request(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    cookie: who.cookie,
  });

/** A SCIM request with the organization's token (or another). */
const scim = (method: string, path: string, body?: unknown, key = token) =>
  app.request(`/scim/v2${path}`, {
    method,
    headers: {
      ...bearer(key),
      ...(body === undefined ? {} : { "content-type": "application/scim+json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function scimJson<T = Record<string, unknown>>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/scim\+json/);
  return JSON.parse(text) as T;
}

async function scimError(res: Response, status: number, scimType?: string): Promise<string> {
  const body = await scimJson<{ schemas: string[]; status: string; scimType?: string; detail: string }>(
    res,
    status,
  );
  expect(body.schemas).toEqual([ERROR]);
  expect(body.status).toBe(String(status));
  expect(body.scimType).toBe(scimType);
  return body.detail;
}

const patch = (...operations: unknown[]) => ({ schemas: [PATCH], Operations: operations });

async function roleOf(userId: string): Promise<string | null> {
  const row = await app.services.database.db
    .selectFrom("org_member")
    .select("role")
    .where("org_id", "=", orgId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row?.role ?? null;
}

async function userIdOf(email: string): Promise<string | undefined> {
  const row = await app.services.database.db
    .selectFrom("user")
    .select("id")
    .where("email", "=", email)
    .executeTakeFirst();
  return row?.id;
}

async function createScimUser(userName: string, extra: Record<string, unknown> = {}) {
  const res = await scim("POST", "/Users", { schemas: [USER], userName, active: true, ...extra });
  return scimJson<{ id: string; userName: string; active: boolean }>(res, 201);
}

beforeAll(async () => {
  // SCIM is a Pro feature (PLAN_LIMIT below it: orgs/sso.db.test.ts checks the refusal).
  app = await createTestApp({ PLAN_LIMITS: "off" });
  owner = await onboardedUser(app, "dora");
  admin = await onboardedUser(app, "adam");
  erin = await onboardedUser(app, "erin");
  expect((await send("POST", "/api/v1/orgs", owner, { slug: "acme", name: "Acme" })).status).toBe(201);
  const invited = await send("POST", "/api/v1/orgs/acme/invitations", owner, {
    email: "adam@example.com",
    role: "admin",
  });
  const { invitation } = (await invited.json()) as { invitation: { url: string } };
  const id = new URL(invitation.url).pathname.split("/").pop()!;
  expect((await send("POST", `/api/v1/invitations/${id}/accept`, admin)).status).toBe(200);
  const db = app.services.database.db;
  orgId = (
    await db.selectFrom("organization").select("id").where("slug", "=", "acme").executeTakeFirstOrThrow()
  ).id;
  // example.com is acme's verified domain (domains.db.test.ts drives the DNS check itself);
  // pending.test is claimed but not verified.
  const now = new Date().toISOString();
  await db
    .insertInto("org_domain")
    .values([
      {
        id: "dom-example",
        org_id: orgId,
        domain: "example.com",
        token: "0".repeat(32),
        created_at: now,
        verified_at: now,
        verified_domain: "example.com",
      },
      {
        id: "dom-pending",
        org_id: orgId,
        domain: "pending.test",
        token: "1".repeat(32),
        created_at: now,
        verified_at: null,
        verified_domain: null,
      },
    ])
    .execute();
});
afterAll(async () => {
  await app?.close();
});

describe(`SCIM provisioning (${databaseKind})`, () => {
  it("gives owners a token and the base URL, lists tokens without secrets, and refuses admins", async () => {
    const refused = await send("POST", "/api/v1/orgs/acme/scim-tokens", admin);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("FORBIDDEN");
    expect((await send("GET", "/api/v1/orgs/acme/scim-tokens", admin)).status).toBe(403);

    const res = await send("POST", "/api/v1/orgs/acme/scim-tokens", owner);
    expect(res.status, await res.clone().text()).toBe(201);
    const created = (await res.json()) as { token: string; baseUrl: string };
    expect(Object.keys(created).sort()).toEqual(["baseUrl", "token"]);
    expect(created.token).toMatch(/^pks_[A-Za-z0-9_-]{43}$/);
    expect(created.baseUrl).toBe(`${TEST_ORIGIN}/scim/v2`);
    token = created.token;

    const listed = await send("GET", "/api/v1/orgs/acme/scim-tokens", owner);
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(text).not.toContain(token);
    const { tokens } = JSON.parse(text) as { tokens: { id: string; start: string; lastUsedAt: null }[] };
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ start: token.slice(0, 8), lastUsedAt: null });
    const stored = await app.services.database.db.selectFrom("scim_token").selectAll().execute();
    expect(stored.map((row) => row.token_hash)).not.toContain(token);
  });

  it("refuses a missing, wrong or revoked token with a SCIM 401", async () => {
    const missing = await app.request("/scim/v2/Users");
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    await scimError(missing, 401);
    await scimError(await scim("GET", "/Users", undefined, "pks_not-a-token"), 401);
    await scimError(await scim("GET", "/Users", undefined, "pky_an-api-key"), 401);

    const second = (await (await send("POST", "/api/v1/orgs/acme/scim-tokens", owner)).json()) as {
      token: string;
    };
    expect((await scim("GET", "/Users", undefined, second.token)).status).toBe(200);
    const { tokens } = (await (await send("GET", "/api/v1/orgs/acme/scim-tokens", owner)).json()) as {
      tokens: { id: string; start: string; lastUsedAt: string | null }[];
    };
    const used = tokens.find((t) => t.start === second.token.slice(0, 8))!;
    expect(used.lastUsedAt).not.toBeNull();
    expect((await send("DELETE", `/api/v1/orgs/acme/scim-tokens/${used.id}`, admin)).status).toBe(403);
    expect((await send("DELETE", `/api/v1/orgs/acme/scim-tokens/${used.id}`, owner)).status).toBe(204);
    expect((await send("DELETE", `/api/v1/orgs/acme/scim-tokens/${used.id}`, owner)).status).toBe(404);
    await scimError(await scim("GET", "/Users", undefined, second.token), 401);
  });

  it("describes what it supports", async () => {
    const config = await scimJson<Record<string, { supported: boolean; maxResults?: number }>>(
      await scim("GET", "/ServiceProviderConfig"),
      200,
    );
    expect(config.patch!.supported).toBe(true);
    expect(config.filter).toMatchObject({ supported: true, maxResults: 200 });
    for (const feature of ["bulk", "sort", "etag", "changePassword"])
      expect(config[feature]!.supported, feature).toBe(false);
    expect((config.authenticationSchemes as unknown as { type: string }[])[0]!.type).toBe("oauthbearertoken");
    const types = await scimJson<{ totalResults: number; Resources: { id: string }[] }>(
      await scim("GET", "/ResourceTypes"),
      200,
    );
    expect(types.Resources.map((t) => t.id)).toEqual(["User", "Group"]);
    const schemas = await scimJson<{ Resources: { id: string }[] }>(await scim("GET", "/Schemas"), 200);
    expect(schemas.Resources.map((s) => s.id)).toEqual([USER, GROUP]);
    await scimError(await scim("GET", "/Bulk"), 404);
  });

  let nina: string; // SCIM id of a new account
  let erinScim: string; // SCIM id linked to erin's existing account

  it("creates a new account for an address at a verified domain, a viewer by default", async () => {
    const created = await scimJson<Record<string, unknown> & { id: string }>(
      await scim("POST", "/Users", {
        schemas: [USER],
        userName: "Nina.Novak@Example.com",
        externalId: "00u-nina",
        name: { givenName: "Nina", familyName: "Novak" },
        emails: [{ value: "Nina.Novak@Example.com", primary: true, type: "work" }],
        active: true,
      }),
      201,
    );
    nina = created.id;
    expect(created).toMatchObject({
      schemas: [USER],
      userName: "Nina.Novak@Example.com",
      externalId: "00u-nina",
      name: { givenName: "Nina", familyName: "Novak" },
      active: true,
      meta: { resourceType: "User", location: `${TEST_ORIGIN}/scim/v2/Users/${nina}` },
    });
    const account = await app.services.database.db
      .selectFrom("user")
      .selectAll()
      .where("email", "=", "nina.novak@example.com")
      .executeTakeFirstOrThrow();
    expect(account).toMatchObject({ name: "Nina Novak", username: null });
    expect(Boolean(account.emailVerified)).toBe(true);
    expect(await roleOf(account.id)).toBe("viewer");
    // The same userName again, in any case: 409 uniqueness.
    await scimError(
      await scim("POST", "/Users", { schemas: [USER], userName: "nina.novak@example.com" }),
      409,
      "uniqueness",
    );
  });

  it("links the existing account of an address at a verified domain", async () => {
    const linked = await createScimUser("erin@example.com", { displayName: "Erin E." });
    erinScim = linked.id;
    const row = await app.services.database.db
      .selectFrom("scim_user")
      .select("user_id")
      .where("id", "=", erinScim)
      .executeTakeFirstOrThrow();
    expect(row.user_id).toBe(erin.userId);
    expect(await roleOf(erin.userId)).toBe("viewer");
  });

  it("refuses an address at a domain the organization has not verified, and links nothing", async () => {
    await signUpVerified(app, { email: "paul@pending.test", name: "Paul" });
    const paul = (await userIdOf("paul@pending.test"))!;
    expect(
      await scimError(
        await scim("POST", "/Users", { schemas: [USER], userName: "paul@pending.test" }),
        400,
        "invalidValue",
      ),
    ).toMatch(/pending\.test is not a verified domain of acme/);
    await scimError(
      await scim("POST", "/Users", { schemas: [USER], userName: "zed@nowhere.test" }),
      400,
      "invalidValue",
    );
    await scimError(
      await scim("POST", "/Users", { schemas: [USER], userName: "not-an-address" }),
      400,
      "invalidValue",
    );
    expect(await roleOf(paul)).toBeNull();
    expect(await userIdOf("zed@nowhere.test")).toBeUndefined();
    const count = await app.services.database.db
      .selectFrom("scim_user")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(2);
  });

  it("finds users by filter, and pages", async () => {
    type List = {
      totalResults: number;
      startIndex: number;
      itemsPerPage: number;
      Resources: { id: string }[];
    };
    const byName = await scimJson<List>(
      await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "NINA.novak@example.com"')}`),
      200,
    );
    expect(byName.totalResults).toBe(1);
    expect(byName.Resources[0]!.id).toBe(nina);
    const byExternal = await scimJson<List>(
      await scim("GET", `/Users?filter=${encodeURIComponent('externalId eq "00u-nina"')}`),
      200,
    );
    expect(byExternal.Resources.map((r) => r.id)).toEqual([nina]);
    const none = await scimJson<List>(
      await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "ghost@example.com"')}`),
      200,
    );
    expect(none).toMatchObject({ totalResults: 0, Resources: [] });
    const page = await scimJson<List>(await scim("GET", "/Users?startIndex=2&count=1"), 200);
    expect(page).toMatchObject({ totalResults: 2, startIndex: 2, itemsPerPage: 1 });
    expect(page.Resources.map((r) => r.id)).toEqual([erinScim]);
    await scimError(
      await scim("GET", `/Users?filter=${encodeURIComponent('userName co "nina"')}`),
      400,
      "invalidFilter",
    );
    await scimError(await scim("GET", "/Users/nobody"), 404);
  });

  it("replaces a user's attributes (PUT) and patches them in Okta's and Entra's shapes", async () => {
    const put = await scimJson<Record<string, unknown>>(
      await scim("PUT", `/Users/${nina}`, {
        schemas: [USER],
        userName: "Nina.Novak@Example.com",
        name: { givenName: "Nina", familyName: "Nowak" },
        externalId: "00u-nina",
      }),
      200,
    );
    expect(put).toMatchObject({ name: { familyName: "Nowak" }, active: true });
    const entra = await scimJson<Record<string, unknown>>(
      await scim(
        "PATCH",
        `/Users/${nina}`,
        patch(
          { op: "Replace", path: "displayName", value: "Nina N." },
          { op: "Add", path: "name.givenName", value: "Nina-Marie" },
          { op: "Replace", path: 'emails[type eq "work"].value', value: "nina.novak@example.com" },
          {
            op: "Add",
            path: `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department`,
            value: "R&D",
          },
        ),
      ),
      200,
    );
    expect(entra).toMatchObject({
      displayName: "Nina N.",
      name: { givenName: "Nina-Marie", familyName: "Nowak" },
    });
    const okta = await scimJson<Record<string, unknown>>(
      await scim(
        "PATCH",
        `/Users/${nina}`,
        patch({ op: "replace", value: { displayName: "Nina", externalId: "00u-n" } }),
      ),
      200,
    );
    expect(okta).toMatchObject({ displayName: "Nina", externalId: "00u-n", active: true });
    await scimError(
      await scim(
        "PATCH",
        `/Users/${nina}`,
        patch({ op: "replace", path: "userName", value: "nina@pending.test" }),
      ),
      400,
      "invalidValue",
    );
    await scimError(
      await scim("PATCH", `/Users/${nina}`, patch({ op: "remove", path: "userName" })),
      400,
      "mutability",
    );
    await scimError(await scim("PATCH", `/Users/${nina}`, { schemas: [PATCH] }), 400, "invalidSyntax");
  });

  it("deactivates in Okta's shape: the membership goes", async () => {
    const ninaId = (await userIdOf("nina.novak@example.com"))!;
    const res = await scimJson<{ active: boolean }>(
      await scim("PATCH", `/Users/${nina}`, patch({ op: "replace", value: { active: false } })),
      200,
    );
    expect(res.active).toBe(false);
    expect(await roleOf(ninaId)).toBeNull();
    // Deactivating again changes nothing.
    expect(
      (await scim("PATCH", `/Users/${nina}`, patch({ op: "replace", value: { active: false } }))).status,
    ).toBe(200);
  });

  it("deactivates in Entra's shape: the membership and only the organization's SSO sessions go", async () => {
    const db = app.services.database.db;
    const key = await createApiKey(app, erin.userId, { projects: "*", access: "read" });
    // Erin's password session (from signing up), one the organization's provider made, and one
    // another organization's provider made.
    const before = await db.selectFrom("session").selectAll().where("userId", "=", erin.userId).execute();
    const template = before[0];
    const copy = (id: string, ssoOrganizationId: string | null) =>
      ({ ...template!, id, token: `${id}-token`, ssoOrganizationId }) as never;
    await db.insertInto("session").values(copy("sso-acme", orgId)).execute();
    await db.insertInto("session").values(copy("sso-other", "another-org")).execute();

    const res = await scimJson<{ active: boolean }>(
      await scim("PATCH", `/Users/${erinScim}`, patch({ op: "Replace", path: "active", value: "False" })),
      200,
    );
    expect(res.active).toBe(false);
    expect(await roleOf(erin.userId)).toBeNull();
    const sessions = await db
      .selectFrom("session")
      .select(["id", "ssoOrganizationId"])
      .where("userId", "=", erin.userId)
      .execute();
    expect(sessions.map((s) => s.id)).toContain("sso-other");
    expect(sessions.map((s) => s.id)).not.toContain("sso-acme");
    expect(sessions.filter((s) => s.ssoOrganizationId === null)).toHaveLength(before.length);
    // Everything else of erin's stays: the account, the password session, the API key.
    expect(await userIdOf("erin@example.com")).toBe(erin.userId);
    expect((await app.request("/api/v1/me", { cookie: erin.cookie })).status).toBe(200);
    expect((await app.request("/api/v1/me", { headers: bearer(key) })).status).toBe(200);
  });

  it("reactivates: the membership comes back", async () => {
    await scimJson(
      await scim("PATCH", `/Users/${erinScim}`, patch({ op: "replace", path: "active", value: true })),
      200,
    );
    expect(await roleOf(erin.userId)).toBe("viewer");
  });

  it("gives members the role their groups map to, and takes it back when they leave", async () => {
    await app.services.database.db
      .updateTable("organization")
      .set({
        sso_group_roles: JSON.stringify({ "Packyard Admins": "admin", "Packyard Owners": "owner" }),
        sso_default_role: "publisher",
      })
      .where("id", "=", orgId)
      .execute();
    const group = await scimJson<{ id: string; displayName: string; members: { value: string }[] }>(
      await scim("POST", "/Groups", {
        schemas: [GROUP],
        displayName: "Packyard Admins",
        members: [{ value: erinScim }],
      }),
      201,
    );
    expect(group.members.map((m) => m.value)).toEqual([erinScim]);
    expect(await roleOf(erin.userId)).toBe("admin");
    await scimError(
      await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Packyard Admins" }),
      409,
      "uniqueness",
    );
    await scimError(
      await scim("POST", "/Groups", {
        schemas: [GROUP],
        displayName: "Ghosts",
        members: [{ value: "nobody" }],
      }),
      400,
      "invalidValue",
    );

    const found = await scimJson<{ totalResults: number; Resources: { id: string; members?: unknown }[] }>(
      await scim(
        "GET",
        `/Groups?filter=${encodeURIComponent('displayName eq "Packyard Admins"')}&excludedAttributes=members`,
      ),
      200,
    );
    expect(found.totalResults).toBe(1);
    expect(found.Resources[0]!.id).toBe(group.id);
    expect(found.Resources[0]!.members).toBeUndefined();
    const user = await scimJson<{ groups: { value: string; display: string }[] }>(
      await scim("GET", `/Users/${erinScim}`),
      200,
    );
    expect(user.groups).toMatchObject([{ value: group.id, display: "Packyard Admins" }]);

    // Okta removes a member by path; leaving the last mapped group: the default role.
    await scimJson(
      await scim(
        "PATCH",
        `/Groups/${group.id}`,
        patch({ op: "remove", path: `members[value eq "${erinScim}"]` }),
      ),
      200,
    );
    expect(await roleOf(erin.userId)).toBe("publisher");
    // Entra adds and removes with a members value.
    await scimJson(
      await scim(
        "PATCH",
        `/Groups/${group.id}`,
        patch({ op: "Add", path: "members", value: [{ value: erinScim }] }),
      ),
      200,
    );
    expect(await roleOf(erin.userId)).toBe("admin");
    await scimJson(
      await scim(
        "PATCH",
        `/Groups/${group.id}`,
        patch({ op: "Remove", path: "members", value: [{ value: erinScim }] }),
      ),
      200,
    );
    expect(await roleOf(erin.userId)).toBe("publisher");
    await scimJson(
      await scim(
        "PATCH",
        `/Groups/${group.id}`,
        patch({ op: "add", path: "members", value: [{ value: erinScim }] }),
      ),
      200,
    );
    // A rename the mapping does not know: the role falls back too.
    const renamed = await scimJson<{ displayName: string }>(
      await scim(
        "PATCH",
        `/Groups/${group.id}`,
        patch({ op: "replace", value: { id: group.id, displayName: "Engineering" } }),
      ),
      200,
    );
    expect(renamed.displayName).toBe("Engineering");
    expect(await roleOf(erin.userId)).toBe("publisher");
    // PUT replaces the whole group.
    await scimJson(
      await scim("PUT", `/Groups/${group.id}`, {
        schemas: [GROUP],
        displayName: "Packyard Admins",
        members: [{ value: erinScim }],
      }),
      200,
    );
    expect(await roleOf(erin.userId)).toBe("admin");
    expect((await scim("DELETE", `/Groups/${group.id}`)).status).toBe(204);
    expect(await roleOf(erin.userId)).toBe("publisher");
    await scimError(await scim("GET", `/Groups/${group.id}`), 404);
  });

  it("never removes or demotes the organization's last owner", async () => {
    // dora owns acme and is not demoted by being provisioned (no group of hers maps).
    const dora = await createScimUser("dora@example.com");
    expect(await roleOf(owner.userId)).toBe("owner");
    const detail = await scimError(
      await scim("PATCH", `/Users/${dora.id}`, patch({ op: "Replace", path: "active", value: "False" })),
      409,
    );
    expect(detail).toMatch(/last owner of acme/);
    expect(await roleOf(owner.userId)).toBe("owner");
    await scimError(await scim("DELETE", `/Users/${dora.id}`), 409);
    await scimError(
      await scim("POST", "/Groups", {
        schemas: [GROUP],
        displayName: "Packyard Admins",
        members: [{ value: dora.id }],
      }),
      409,
    );
    expect(await roleOf(owner.userId)).toBe("owner");
    const groups = await scimJson<{ totalResults: number }>(await scim("GET", "/Groups"), 200);
    expect(groups.totalResults).toBe(0);

    // Once the identity provider makes adam an owner, dora may go.
    const adam = await createScimUser("adam@example.com");
    expect(await roleOf(admin.userId)).toBe("admin");
    await scimJson(
      await scim("POST", "/Groups", {
        schemas: [GROUP],
        displayName: "Packyard Owners",
        members: [{ value: adam.id }],
      }),
      201,
    );
    expect(await roleOf(admin.userId)).toBe("owner");
    await scimJson(
      await scim("PATCH", `/Users/${dora.id}`, patch({ op: "replace", value: { active: false } })),
      200,
    );
    expect(await roleOf(owner.userId)).toBeNull();
  });

  it("deletes a user: the membership goes, the account stays", async () => {
    await scimJson(
      await scim("PATCH", `/Users/${nina}`, patch({ op: "replace", path: "active", value: true })),
      200,
    );
    const ninaId = (await userIdOf("nina.novak@example.com"))!;
    expect(await roleOf(ninaId)).toBe("publisher");
    expect((await scim("DELETE", `/Users/${nina}`)).status).toBe(204);
    expect(await roleOf(ninaId)).toBeNull();
    expect(await userIdOf("nina.novak@example.com")).toBe(ninaId);
    await scimError(await scim("GET", `/Users/${nina}`), 404);
    await scimError(await scim("DELETE", `/Users/${nina}`), 404);
  });

  it("records each change in the organization's audit log, under the SCIM token", async () => {
    const res = await send("GET", "/api/v1/orgs/acme/audit?limit=200", admin);
    expect(res.status).toBe(200);
    type Entry = {
      action: string;
      target: string;
      details: Record<string, unknown>;
      actor: {
        kind: string;
        username: string | null;
        key: { name: string | null; start: string | null } | null;
      };
    };
    const entries = ((await res.json()) as { entries: Entry[] }).entries.reverse();
    const tokenEntries = entries.filter((e) => e.action.startsWith("organization.scim_token"));
    expect(tokenEntries.map((e) => `${e.action} by ${e.actor.username}`)).toEqual([
      "organization.scim_token_created by dora",
      "organization.scim_token_created by dora",
      "organization.scim_token_revoked by dora",
    ]);
    const provisioning = entries.filter((e) =>
      /member_(provisioned|deprovisioned|role_synced)/.test(e.action),
    );
    for (const entry of provisioning) {
      expect(entry.actor.kind).toBe("key");
      expect(entry.actor.username).toBe("acme");
      expect(entry.actor.key).toMatchObject({ name: "SCIM token", start: token.slice(0, 8) });
    }
    const seen = provisioning.map((e) => `${e.action.replace("organization.member_", "")} ${e.target}`);
    expect(seen).toEqual([
      "provisioned Nina.Novak@Example.com",
      "provisioned erin@example.com",
      "deprovisioned Nina.Novak@Example.com",
      "deprovisioned erin@example.com",
      "provisioned erin@example.com",
      "role_synced erin@example.com",
      "role_synced erin@example.com",
      "role_synced erin@example.com",
      "role_synced erin@example.com",
      "role_synced erin@example.com",
      "role_synced erin@example.com",
      "role_synced erin@example.com",
      "role_synced erin@example.com",
      "role_synced adam@example.com",
      "deprovisioned dora@example.com",
      "provisioned Nina.Novak@Example.com",
      "deprovisioned Nina.Novak@Example.com",
    ]);
    const erinGone = provisioning.find(
      (e) => e.action.endsWith("deprovisioned") && e.target === "erin@example.com",
    )!;
    expect(erinGone.details).toMatchObject({ role: "viewer", sessionsEnded: 1 });
    const promoted = provisioning.find((e) => e.target === "adam@example.com")!;
    expect(promoted.details).toMatchObject({ from: "admin", to: "owner" });
  });
});
