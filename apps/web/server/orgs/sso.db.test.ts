// Single sign-on per organization (issue 43, docs/sso.md) through the API, with a real SAML
// identity provider (test/saml-idp.ts: samlify, its own keys, metadata served over HTTP), a real
// OpenID provider (oidc-provider) and a DNS server for the verified domains. Providers added by
// owners on the Pro plan for verified domains only; sign-in by email domain with just-in-time
// membership and the role mapped from the IdP's groups; a returning user linked by the verified
// domain; assertions with a bad signature, another audience, an expired NotOnOrAfter or a replayed
// ID refused; required SSO (a password session and a personal key refused on the organization's
// projects, accepted on the member's own; owners' break-glass); the audit log and the owners'
// mail. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsServer, type TestDnsServer } from "../../test/dns-server.ts";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  postJson,
  signUpVerified,
  TEST_ORIGIN,
  type TestApp,
} from "../../test/harness.ts";
import { FlowBrowser } from "../../test/oidc-flow.ts";
import { startOidcProvider, type TestOidcProvider } from "../../test/oidc-provider.ts";
import { type SamlUser, startSamlIdp, type TestSamlIdp } from "../../test/saml-idp.ts";
import { setOperatorPlan } from "../billing/plan.ts";

type User = Awaited<ReturnType<typeof onboardedUser>>;
let app: TestApp;
let dns: TestDnsServer;
let idp: TestSamlIdp;
let oidc: TestOidcProvider;
let owner: User; // owns acme
let admin: User; // acme's admin
let orgId: string;
let samlId: string;

const send = (method: string, path: string, cookie: string, body?: unknown) =>
  app.request(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    cookie,
  });

async function expectError(res: Response, status: number, code: string): Promise<string> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const { error } = JSON.parse(text) as { error: { code: string; message: string } };
  expect(error.code).toBe(code);
  return error.message;
}

/** Claims and verifies a domain for an organization through the API and the test DNS. */
async function verifiedDomain(org: string, cookie: string, domain: string) {
  const claimed = await send("POST", `/api/v1/orgs/${org}/domains`, cookie, { domain });
  const { record } = ((await claimed.json()) as { domain: { record: { name: string; value: string } } })
    .domain;
  dns.setTxt(record.name, [record.value]);
  expect((await send("POST", `/api/v1/orgs/${org}/domains/${domain}/verify`, cookie)).status).toBe(200);
}

/** Starts an SSO sign-in for an email: the IdP URL Packyard sends the browser to. */
async function startSignIn(email: string): Promise<string> {
  const res = await postJson(app, "/api/auth/sign-in/sso", { email, callbackURL: "/dashboard" });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { url: string }).url;
}

/** Posts a SAMLResponse to the ACS URL as the IdP's page would. */
function postToAcs(acsUrl: string, samlResponse: string, relayState: string) {
  const path = acsUrl.slice(TEST_ORIGIN.length);
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "null" },
    body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: relayState }).toString(),
  });
}

/** The whole SAML sign-in of `user` through the IdP: Packyard's answer at the ACS. */
async function samlSignIn(user: SamlUser): Promise<Response> {
  idp.addUser(user);
  const url = await startSignIn(user.email);
  const page = await fetch(`${url}&as=${encodeURIComponent(user.email)}`);
  const html = await page.text();
  const field = (name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`)
      .exec(html)?.[1]
      ?.replace(/&quot;/g, '"')
      .replace(/&amp;/g, "&") ?? "";
  const action = /action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&") ?? "";
  return postToAcs(action, field("SAMLResponse"), field("RelayState"));
}

const sessionCookie = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] ?? "")
    .filter((c) => c.includes("session_token"))
    .join("; ");

async function roleOf(email: string): Promise<string | undefined> {
  const row = await app.services.database.db
    .selectFrom("org_member")
    .innerJoin("user", "user.id", "org_member.user_id")
    .select("org_member.role")
    .where("org_member.org_id", "=", orgId)
    .where("user.email", "=", email)
    .executeTakeFirst();
  return row?.role;
}

async function auditActions(): Promise<string[]> {
  const rows = await app.services.database.db
    .selectFrom("audit_event")
    .select(["action", "target"])
    .where("owner_id", "=", orgId)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => `${row.action} ${row.target ?? ""}`.trim());
}

beforeAll(async () => {
  dns = await startDnsServer();
  idp = await startSamlIdp();
  oidc = await startOidcProvider({
    packyardBaseUrl: TEST_ORIGIN,
    ssoCallbacks: true,
    tokenEndpointAuthMethod: "client_secret_basic",
  });
  app = await createTestApp({ DNS_RESOLVER: dns.address, WEBHOOK_ALLOW_PRIVATE: "true" });
  owner = await onboardedUser(app, "olga");
  admin = await onboardedUser(app, "arne");
  expect((await send("POST", "/api/v1/orgs", owner.cookie, { slug: "acme", name: "Acme" })).status).toBe(201);
  const invited = await send("POST", "/api/v1/orgs/acme/invitations", owner.cookie, {
    email: "arne@example.com",
    role: "admin",
  });
  const { invitation } = (await invited.json()) as { invitation: { url: string } };
  const id = new URL(invitation.url).pathname.split("/").pop()!;
  expect((await send("POST", `/api/v1/invitations/${id}/accept`, admin.cookie)).status).toBe(200);
  const org = await app.services.database.db
    .selectFrom("organization")
    .select("id")
    .where("slug", "=", "acme")
    .executeTakeFirstOrThrow();
  orgId = org.id;
  await verifiedDomain("acme", owner.cookie, "acme.test");
});
afterAll(async () => {
  await app?.close();
  await dns?.close();
  await idp?.stop();
  await oidc?.stop();
});

describe(`an organization's SAML provider (${databaseKind})`, () => {
  it("is a Pro feature, for owners, on a verified domain, from metadata that can be used", async () => {
    const body = { type: "saml", domain: "acme.test", metadataUrl: idp.metadataUrl };
    expect(
      await expectError(await send("POST", "/api/v1/orgs/acme/sso", owner.cookie, body), 403, "PLAN_LIMIT"),
    ).toMatch(/Pro plan/);
    await expectError(await send("POST", "/api/v1/orgs/acme/scim-tokens", owner.cookie), 403, "PLAN_LIMIT");
    await setOperatorPlan(app.services.database.db, orgId, "pro");
    expect((await send("POST", "/api/v1/orgs/acme/scim-tokens", owner.cookie)).status).toBe(201);
    await expectError(await send("POST", "/api/v1/orgs/acme/sso", admin.cookie, body), 403, "FORBIDDEN");
    await expectError(
      await send("POST", "/api/v1/orgs/acme/sso", owner.cookie, { ...body, domain: "unverified.test" }),
      409,
      "DOMAIN_NOT_VERIFIED",
    );
    await expectError(
      await send("POST", "/api/v1/orgs/acme/sso", owner.cookie, {
        ...body,
        metadataUrl: undefined,
        metadataXml: "<x/>",
      }),
      400,
      "SSO_PROVIDER_INVALID",
    );
    const unsigned = idp.metadata.replace(/<KeyDescriptor[\s\S]*?<\/KeyDescriptor>/, "");
    expect(
      await expectError(
        await send("POST", "/api/v1/orgs/acme/sso", owner.cookie, {
          ...body,
          metadataUrl: undefined,
          metadataXml: unsigned,
        }),
        400,
        "SSO_PROVIDER_INVALID",
      ),
    ).toMatch(/signing certificate/);

    const res = await send("POST", "/api/v1/orgs/acme/sso", owner.cookie, body);
    expect(res.status, await res.clone().text()).toBe(201);
    const { provider } = (await res.json()) as {
      provider: {
        id: string;
        type: string;
        issuer: string;
        callbackUrl: string;
        entityId: string;
        metadataUrl: string;
      };
    };
    samlId = provider.id;
    expect(provider).toMatchObject({ type: "saml", domain: "acme.test", issuer: idp.entityId });
    expect(provider.callbackUrl).toBe(`${TEST_ORIGIN}/api/auth/sso/saml2/sp/acs/${samlId}`);
    // One domain, one provider.
    await expectError(await send("POST", "/api/v1/orgs/acme/sso", owner.cookie, body), 409, "DOMAIN_TAKEN");
    // Admins see it.
    const listed = await send("GET", "/api/v1/orgs/acme/sso", admin.cookie);
    expect(((await listed.json()) as { providers: { id: string }[] }).providers.map((p) => p.id)).toEqual([
      samlId,
    ]);

    // The SP metadata the IdP imports: the ACS URL, signed assertions wanted.
    const metadata = await app.request(
      new URL(provider.metadataUrl).pathname + new URL(provider.metadataUrl).search,
    );
    const xml = await metadata.text();
    expect(metadata.status, xml).toBe(200);
    expect(xml).toContain(`Location="${provider.callbackUrl}"`);
    expect(xml).toMatch(/WantAssertionsSigned="true"/);
    expect(xml).toContain(`entityID="${provider.entityId.replace(/&/g, "&amp;")}"`);

    // The owners were mailed.
    expect(
      app.outbox().some((m) => m.to.includes("olga@example.com") && /Single sign-on changed/.test(m.subject)),
    ).toBe(true);
    // Changed by owners: the metadata read again; another protocol's settings refused.
    const changed = await send("PATCH", `/api/v1/orgs/acme/sso/${samlId}`, owner.cookie, {
      metadataXml: idp.metadata,
      groupsAttribute: "groups",
    });
    expect(changed.status, await changed.clone().text()).toBe(200);
    await expectError(
      await send("PATCH", `/api/v1/orgs/acme/sso/${samlId}`, owner.cookie, { clientId: "x" }),
      400,
      "VALIDATION_FAILED",
    );
    await expectError(
      await send("PATCH", `/api/v1/orgs/acme/sso/${samlId}`, admin.cookie, { groupsAttribute: "g" }),
      403,
      "FORBIDDEN",
    );
    expect(await auditActions()).toContain(`organization.sso_provider_updated ${samlId}`);
    // The plugin's own provider management is not reachable.
    expect((await postJson(app, "/api/auth/sso/register", { providerId: "x" }, owner.cookie)).status).toBe(
      404,
    );
  });

  it("signs a new user in just in time, with the role their IdP groups map to", async () => {
    const patched = await send("PATCH", "/api/v1/orgs/acme", owner.cookie, {
      ssoDefaultRole: "viewer",
      ssoGroupRoles: { "packyard-publishers": "publisher", "packyard-admins": "admin" },
    });
    expect(patched.status, await patched.clone().text()).toBe(200);
    expect(((await patched.json()) as { sso: unknown }).sso).toEqual({
      enforced: false,
      defaultRole: "viewer",
      groupRoles: { "packyard-publishers": "publisher", "packyard-admins": "admin" },
    });
    // Members read them with the organization.
    const read = await send("GET", "/api/v1/orgs/acme", admin.cookie);
    expect(((await read.json()) as { sso: { defaultRole: string } }).sso.defaultRole).toBe("viewer");
    // The plugin's shared OIDC callback is off: each provider has its own.
    expect((await app.request("/api/auth/sso/callback?code=x&state=y")).status).toBe(404);

    const res = await samlSignIn({
      email: "sam@acme.test",
      name: "Sam Smith",
      groups: ["everyone", "packyard-publishers"],
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/dashboard");
    const cookie = sessionCookie(res);
    expect(cookie).toContain("session_token");
    expect(await roleOf("sam@acme.test")).toBe("publisher");
    const session = await app.services.database.db
      .selectFrom("session")
      .innerJoin("user", "user.id", "session.userId")
      .select("session.ssoOrganizationId")
      .where("user.email", "=", "sam@acme.test")
      .executeTakeFirstOrThrow();
    expect(session.ssoOrganizationId).toBe(orgId);
    // The session is a Packyard session: the API knows who it is.
    const me = await app.request("/api/v1/me", { cookie });
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe("sam@acme.test");

    // Without a mapped group: the default role.
    expect((await samlSignIn({ email: "vic@acme.test", name: "Vic", groups: ["everyone"] })).status).toBe(
      302,
    );
    expect(await roleOf("vic@acme.test")).toBe("viewer");
    // Groups change at the IdP: the role follows at the next sign-in.
    expect(
      (await samlSignIn({ email: "vic@acme.test", name: "Vic", groups: ["packyard-admins"] })).status,
    ).toBe(302);
    expect(await roleOf("vic@acme.test")).toBe("admin");

    const actions = await auditActions();
    expect(actions).toContain("organization.member_provisioned sam@acme.test");
    expect(actions).toContain("organization.sso_signed_in sam@acme.test");
    expect(actions).toContain("organization.member_role_synced vic@acme.test");
  });

  it("links a returning user with a password account by the verified domain", async () => {
    await signUpVerified(app, { email: "lee@acme.test", name: "Lee" });
    const before = await app.services.database.db
      .selectFrom("user")
      .select("id")
      .where("email", "=", "lee@acme.test")
      .executeTakeFirstOrThrow();
    const res = await samlSignIn({ email: "lee@acme.test", name: "Lee" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/dashboard");
    const users = await app.services.database.db
      .selectFrom("user")
      .select("id")
      .where("email", "=", "lee@acme.test")
      .execute();
    expect(users).toEqual([before]);
    expect(await roleOf("lee@acme.test")).toBe("viewer");
  });

  it("takes only addresses at the provider's domain, and keeps the domain while the provider uses it", async () => {
    // The IdP vouches for someone outside acme.test: no account, no membership, no session.
    const url = await startSignIn("sam@acme.test");
    const request = idp.readRequest(url);
    const foreign = await idp.assertion(
      { email: "eve@elsewhere.test", name: "Eve" },
      { inResponseTo: request.id, acsUrl: request.acsUrl, audience: request.audience },
    );
    const res = await postToAcs(request.acsUrl, foreign, new URL(url).searchParams.get("RelayState") ?? "");
    expect(res.status).toBe(302);
    expect(sessionCookie(res)).toBe("");
    expect(new URL(res.headers.get("location") ?? "", TEST_ORIGIN).searchParams.get("error")).toBe(
      "SSO_EMAIL_DOMAIN",
    );
    const eve = await app.services.database.db
      .selectFrom("user")
      .select("id")
      .where("email", "=", "eve@elsewhere.test")
      .executeTakeFirst();
    expect(eve).toBeUndefined();
    // A subdomain's address signs in through the domain's provider, and is offered it.
    expect((await samlSignIn({ email: "uma@eu.acme.test", name: "Uma" })).status).toBe(302);
    expect(await roleOf("uma@eu.acme.test")).toBe("viewer");
    const offer = await app.request("/auth/signin.data?sso=uma%40eu.acme.test");
    expect(await offer.text()).toContain("Acme");
    await expectError(
      await send("DELETE", "/api/v1/orgs/acme/domains/acme.test", owner.cookie),
      409,
      "DOMAIN_IN_USE",
    );
  });

  describe("refuses an assertion", () => {
    const acsUrl = () => `${TEST_ORIGIN}/api/auth/sso/saml2/sp/acs/${samlId}`;
    const user = { email: "mallory@acme.test", name: "Mallory", groups: ["packyard-admins"] };

    async function refused(
      make: (request: { id: string; acsUrl: string; audience: string }) => Promise<string>,
    ) {
      const url = await startSignIn(user.email);
      const request = idp.readRequest(url);
      const relayState = new URL(url).searchParams.get("RelayState") ?? "";
      const res = await postToAcs(acsUrl(), await make(request), relayState);
      expect(res.status).toBe(302);
      expect(sessionCookie(res)).toBe("");
      return new URL(res.headers.get("location") ?? "", TEST_ORIGIN).searchParams;
    }

    it("signed by another key", async () => {
      const answer = await refused((request) =>
        idp.assertion(user, {
          inResponseTo: request.id,
          acsUrl: request.acsUrl,
          audience: request.audience,
          wrongKey: true,
        }),
      );
      // samlify checks the signature against the metadata's certificate first.
      expect(answer.get("error")).toBe("saml_error");
      expect(await roleOf(user.email)).toBeUndefined();
    });

    it("for another audience", async () => {
      const answer = await refused((request) =>
        idp.assertion(user, {
          inResponseTo: request.id,
          acsUrl: request.acsUrl,
          audience: "https://other.example/sp",
        }),
      );
      expect(`${answer.get("error")} ${answer.get("error_description")}`).toMatch(/audience/i);
      expect(await roleOf(user.email)).toBeUndefined();
    });

    it("past its NotOnOrAfter", async () => {
      const answer = await refused((request) =>
        idp.assertion(user, {
          inResponseTo: request.id,
          acsUrl: request.acsUrl,
          audience: request.audience,
          validForSeconds: -3600,
        }),
      );
      // The same answer within its time signs in (the replay test below): only the date differs.
      expect(answer.get("error")).toBe("saml_error");
      expect(await roleOf(user.email)).toBeUndefined();
    });

    it("whose ID was used before (a replay)", async () => {
      const url = await startSignIn(user.email);
      const request = idp.readRequest(url);
      const relayState = new URL(url).searchParams.get("RelayState") ?? "";
      const response = await idp.assertion(
        { email: "rita@acme.test", name: "Rita" },
        {
          inResponseTo: request.id,
          acsUrl: request.acsUrl,
          audience: request.audience,
          assertionId: "_replayed-once",
        },
      );
      const first = await postToAcs(acsUrl(), response, relayState);
      expect(sessionCookie(first)).toContain("session_token");
      // The same answer posted again: its request was answered already.
      const again = await postToAcs(acsUrl(), response, relayState);
      expect(again.status).toBe(302);
      expect(sessionCookie(again)).toBe("");
      expect(new URL(again.headers.get("location") ?? "", TEST_ORIGIN).searchParams.get("error")).toBe(
        "invalid_saml_response",
      );
      // An answer to a new request that carries the used assertion ID: the replay itself.
      const answer = await refused((next) =>
        idp.assertion(
          { email: "rita@acme.test", name: "Rita" },
          {
            inResponseTo: next.id,
            acsUrl: next.acsUrl,
            audience: next.audience,
            assertionId: "_replayed-once",
          },
        ),
      );
      expect(answer.get("error")).toBe("replay_detected");
    });
  });
});

describe(`required single sign-on (${databaseKind})`, () => {
  it("takes members only through the organization's provider; owners keep break-glass", async () => {
    // A member who signs in with a password, with a project of their own.
    const pat = await onboardedUser(app, "pat");
    const invited = await send("POST", "/api/v1/orgs/acme/invitations", owner.cookie, {
      email: "pat@example.com",
      role: "publisher",
    });
    const { invitation } = (await invited.json()) as { invitation: { url: string } };
    expect(
      (
        await send(
          "POST",
          `/api/v1/invitations/${new URL(invitation.url).pathname.split("/").pop()}/accept`,
          pat.cookie,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await send("POST", "/api/v1/projects", owner.cookie, {
          slug: "vault",
          name: "Vault",
          owner: "acme",
          visibility: "private",
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await send("POST", "/api/v1/projects", pat.cookie, {
          slug: "mine",
          name: "Mine",
          visibility: "private",
        })
      ).status,
    ).toBe(201);
    const patKey = await createApiKey(app, pat.userId, { projects: "*", access: "read" });
    const orgKeyRes = await send("POST", "/api/v1/orgs/acme/keys", owner.cookie, {
      name: "ci",
      access: "read",
    });
    expect(orgKeyRes.status, await orgKeyRes.clone().text()).toBe(201);
    const orgKey = ((await orgKeyRes.json()) as { key: { key: string } }).key.key;
    const samCookie = sessionCookie(
      await samlSignIn({ email: "sam@acme.test", name: "Sam Smith", groups: ["packyard-publishers"] }),
    );

    // Before: all reach it.
    expect((await app.request("/api/v1/projects/acme/vault", { cookie: pat.cookie })).status).toBe(200);

    await expectError(
      await send("PATCH", "/api/v1/orgs/acme", admin.cookie, { enforced: true }),
      403,
      "FORBIDDEN",
    );
    const enforced = await send("PATCH", "/api/v1/orgs/acme", owner.cookie, { enforced: true });
    expect(enforced.status, await enforced.clone().text()).toBe(200);

    // A password session and a personal key: refused on the organization's project…
    expect(
      await expectError(
        await app.request("/api/v1/projects/acme/vault", { cookie: pat.cookie }),
        403,
        "SSO_REQUIRED",
      ),
    ).toMatch(/requires single sign-on/);
    await expectError(
      await app.request("/api/v1/projects/acme/vault", { headers: bearer(patKey) }),
      403,
      "SSO_REQUIRED",
    );
    await expectError(
      await app.request("/api/v1/orgs/acme/members", { cookie: pat.cookie }),
      403,
      "SSO_REQUIRED",
    );
    // …accepted on the member's own.
    expect((await app.request("/api/v1/projects/pat/mine", { cookie: pat.cookie })).status).toBe(200);
    expect((await app.request("/api/v1/projects/pat/mine", { headers: bearer(patKey) })).status).toBe(200);
    // The provider's session, the organization's key, and an owner's password session (break-glass).
    expect((await app.request("/api/v1/projects/acme/vault", { cookie: samCookie })).status).toBe(200);
    expect((await app.request("/api/v1/projects/acme/vault", { headers: bearer(orgKey) })).status).toBe(200);
    expect((await app.request("/api/v1/projects/acme/vault", { cookie: owner.cookie })).status).toBe(200);
    // A public project of the organization: its release page is open to all, the member included.
    expect(
      (
        await send("POST", "/api/v1/projects", owner.cookie, {
          slug: "open",
          name: "Open",
          owner: "acme",
          visibility: "public",
        })
      ).status,
    ).toBe(201);
    expect(
      (await send("PUT", "/api/v1/projects/acme/open/releases/1.0.0/files/a.txt", owner.cookie, "a")).status,
    ).toBe(201);
    expect((await app.request("/releases/acme/open/1.0.0", { cookie: pat.cookie })).status).toBe(200);
    // The dashboard's project page says why.
    const page = await app.request("/orgs/acme/projects/vault", { cookie: pat.cookie });
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("requires single sign-on");

    // The last provider stays while SSO is required.
    await expectError(
      await send("DELETE", `/api/v1/orgs/acme/sso/${samlId}`, owner.cookie),
      409,
      "SSO_NOT_CONFIGURED",
    );
    expect((await send("PATCH", "/api/v1/orgs/acme", owner.cookie, { enforced: false })).status).toBe(200);
    expect((await app.request("/api/v1/projects/acme/vault", { cookie: pat.cookie })).status).toBe(200);
    expect(await auditActions()).toContain("organization.sso_settings_changed acme");
  });

  it("cannot be required without a provider", async () => {
    expect((await send("POST", "/api/v1/orgs", owner.cookie, { slug: "bare", name: "Bare" })).status).toBe(
      201,
    );
    const bare = await app.services.database.db
      .selectFrom("organization")
      .select("id")
      .where("slug", "=", "bare")
      .executeTakeFirstOrThrow();
    await setOperatorPlan(app.services.database.db, bare.id, "pro");
    await expectError(
      await send("PATCH", "/api/v1/orgs/bare", owner.cookie, { enforced: true }),
      409,
      "SSO_NOT_CONFIGURED",
    );
  });
});

describe(`an organization's OpenID Connect provider (${databaseKind})`, () => {
  it("signs members in through their own issuer", async () => {
    expect(
      (await send("POST", "/api/v1/orgs", owner.cookie, { slug: "globex", name: "Globex" })).status,
    ).toBe(201);
    const globex = await app.services.database.db
      .selectFrom("organization")
      .select("id")
      .where("slug", "=", "globex")
      .executeTakeFirstOrThrow();
    await setOperatorPlan(app.services.database.db, globex.id, "pro");
    await verifiedDomain("globex", owner.cookie, "globex.test");
    await expectError(
      await send("POST", "/api/v1/orgs/globex/sso", owner.cookie, {
        type: "oidc",
        domain: "globex.test",
        issuer: "http://127.0.0.1:9/nothing",
        clientId: oidc.clientId,
        clientSecret: oidc.clientSecret,
      }),
      502,
      "SSO_PROVIDER_UNREACHABLE",
    );
    const res = await send("POST", "/api/v1/orgs/globex/sso", owner.cookie, {
      type: "oidc",
      domain: "globex.test",
      issuer: oidc.issuer,
      clientId: oidc.clientId,
      clientSecret: oidc.clientSecret,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { provider } = (await res.json()) as {
      provider: { id: string; callbackUrl: string; clientId: string };
    };
    expect(provider.callbackUrl).toBe(`${TEST_ORIGIN}/api/auth/sso/callback/${provider.id}`);
    expect(JSON.stringify(provider)).not.toContain(oidc.clientSecret);

    const browser = new FlowBrowser(app, oidc);
    const started = await browser.request("/api/auth/sign-in/sso", {
      json: { email: "gina@globex.test", callbackURL: "/dashboard" },
    });
    expect(started.status, await started.clone().text()).toBe(200);
    const reached = await browser.follow(((await started.json()) as { url: string }).url);
    expect(reached.url).toMatch(/\/interaction\//);
    const done = await browser.follow(`${reached.url}/login`, {
      form: { email: "gina@globex.test", name: "Gina", email_verified: "true" },
    });
    expect(done.location).toBe("/dashboard");
    const member = await app.services.database.db
      .selectFrom("org_member")
      .innerJoin("user", "user.id", "org_member.user_id")
      .select(["org_member.role"])
      .where("org_member.org_id", "=", globex.id)
      .where("user.email", "=", "gina@globex.test")
      .executeTakeFirst();
    expect(member?.role).toBe("viewer");
    const session = await app.services.database.db
      .selectFrom("session")
      .innerJoin("user", "user.id", "session.userId")
      .select("session.ssoOrganizationId")
      .where("user.email", "=", "gina@globex.test")
      .executeTakeFirstOrThrow();
    expect(session.ssoOrganizationId).toBe(globex.id);
  });
});
