// An organization's verified domains through the API (issue 43, docs/sso.md), against a DNS server
// the test starts (DNS_RESOLVER): claimed by an owner with the TXT record to publish, verified only
// once the record is there with the right token, one organization per domain (the first to
// verify), given up again; admins see them, members below cannot, owners alone change them; each
// change in the organization's audit log. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsServer, type TestDnsServer } from "../../test/dns-server.ts";
import { bearer, createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";

type User = Awaited<ReturnType<typeof onboardedUser>>;
let app: TestApp;
let dns: TestDnsServer;
let owner: User; // owns acme
let admin: User; // acme's admin
let rival: User; // owns rival, which claims acme.com too

const send = (method: string, path: string, who: User, body?: unknown) =>
  app.request(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    cookie: who.cookie,
  });

async function expectError(res: Response, status: number, code: string): Promise<string> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const { error } = JSON.parse(text) as { error: { code: string; message: string } };
  expect(error.code).toBe(code);
  return error.message;
}

beforeAll(async () => {
  dns = await startDnsServer();
  app = await createTestApp({ DNS_RESOLVER: dns.address });
  owner = await onboardedUser(app, "dora");
  admin = await onboardedUser(app, "adam");
  rival = await onboardedUser(app, "rita");
  expect((await send("POST", "/api/v1/orgs", owner, { slug: "acme", name: "Acme" })).status).toBe(201);
  expect((await send("POST", "/api/v1/orgs", rival, { slug: "rival", name: "Rival" })).status).toBe(201);
  const invited = await send("POST", "/api/v1/orgs/acme/invitations", owner, {
    email: `${admin.username}@example.com`,
    role: "admin",
  });
  const { invitation } = (await invited.json()) as { invitation: { url: string } };
  const id = new URL(invitation.url).pathname.split("/").pop()!;
  expect((await send("POST", `/api/v1/invitations/${id}/accept`, admin)).status).toBe(200);
});
afterAll(async () => {
  await app?.close();
  await dns?.close();
});

describe(`an organization's verified domains (${databaseKind})`, () => {
  let record: { type: string; name: string; value: string };

  it("claims a domain for an owner and answers with the TXT record to publish", async () => {
    const res = await send("POST", "/api/v1/orgs/acme/domains", owner, { domain: "  Acme.COM " });
    expect(res.status, await res.clone().text()).toBe(201);
    const { domain } = (await res.json()) as {
      domain: { domain: string; verified: boolean; record: typeof record };
    };
    expect(domain).toMatchObject({ domain: "acme.com", verified: false, verifiedAt: null });
    expect(domain.record.type).toBe("TXT");
    expect(domain.record.name).toBe("_packyard-verification.acme.com");
    expect(domain.record.value).toMatch(/^packyard-verification=[0-9a-f]{32}$/);
    record = domain.record;
    await expectError(
      await send("POST", "/api/v1/orgs/acme/domains", owner, { domain: "acme.com" }),
      409,
      "DOMAIN_TAKEN",
    );
    for (const bad of ["https://acme.com", "acme", "acme.com/path", "-acme.com", "a..com"])
      await expectError(
        await send("POST", "/api/v1/orgs/acme/domains", owner, { domain: bad }),
        400,
        "VALIDATION_FAILED",
      );
  });

  it("lets admins see the domains but only owners change them", async () => {
    const listed = await send("GET", "/api/v1/orgs/acme/domains", admin);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { domains: { domain: string }[] }).domains.map((d) => d.domain)).toEqual(
      ["acme.com"],
    );
    await expectError(
      await send("POST", "/api/v1/orgs/acme/domains", admin, { domain: "acme.dev" }),
      403,
      "FORBIDDEN",
    );
    await expectError(
      await send("POST", "/api/v1/orgs/acme/domains/acme.com/verify", admin),
      403,
      "FORBIDDEN",
    );
    await expectError(await send("DELETE", "/api/v1/orgs/acme/domains/acme.com", admin), 403, "FORBIDDEN");
    // Another organization's owner: not found, as for anything of an organization one is not in.
    await expectError(await send("GET", "/api/v1/orgs/acme/domains", rival), 404, "NOT_FOUND");
    // An API key for the account acts as its user: an owner's all-projects publish key may.
    expect((await app.request("/api/v1/orgs/acme/domains", { headers: bearer("pk_not_a_key") })).status).toBe(
      401,
    );
  });

  it("verifies only once the DNS has the record with the organization's token", async () => {
    const verify = () => send("POST", "/api/v1/orgs/acme/domains/acme.com/verify", owner);
    expect(await expectError(await verify(), 409, "DOMAIN_NOT_VERIFIED")).toMatch(
      /No TXT record .* at _packyard-verification\.acme\.com/,
    );
    dns.setTxt(record.name, ["packyard-verification=0123456789abcdef0123456789abcdef", "v=spf1 -all"]);
    expect(await expectError(await verify(), 409, "DOMAIN_NOT_VERIFIED")).toMatch(
      /says packyard-verification=0123/,
    );
    dns.setTxt(record.name, ["v=spf1 -all", record.value]);
    const res = await verify();
    expect(res.status, await res.clone().text()).toBe(200);
    const { domain } = (await res.json()) as { domain: { verified: boolean; verifiedAt: string } };
    expect(domain.verified).toBe(true);
    expect(Date.parse(domain.verifiedAt)).not.toBeNaN();
    // Again: nothing changes, however the DNS has changed since.
    dns.setTxt(record.name, []);
    expect((await verify()).status).toBe(200);
  });

  it("keeps a domain to the organization that verified it first", async () => {
    const claimed = await send("POST", "/api/v1/orgs/rival/domains", rival, { domain: "acme.com" });
    expect(await expectError(claimed, 409, "DOMAIN_TAKEN")).toMatch(/verified by another organization/);
    // A domain both claim before either verifies: the first verification holds it.
    const mine = await send("POST", "/api/v1/orgs/acme/domains", owner, { domain: "shared.example" });
    const theirs = await send("POST", "/api/v1/orgs/rival/domains", rival, { domain: "shared.example" });
    const rivalRecord = ((await theirs.json()) as { domain: { record: typeof record } }).domain.record;
    const acmeRecord = ((await mine.json()) as { domain: { record: typeof record } }).domain.record;
    dns.setTxt(rivalRecord.name, [rivalRecord.value, acmeRecord.value]);
    expect((await send("POST", "/api/v1/orgs/rival/domains/shared.example/verify", rival)).status).toBe(200);
    await expectError(
      await send("POST", "/api/v1/orgs/acme/domains/shared.example/verify", owner),
      409,
      "DOMAIN_TAKEN",
    );
  });

  it("gives a domain up, and records each change in the organization's audit log", async () => {
    expect((await send("DELETE", "/api/v1/orgs/acme/domains/shared.example", owner)).status).toBe(204);
    await expectError(
      await send("DELETE", "/api/v1/orgs/acme/domains/shared.example", owner),
      404,
      "NOT_FOUND",
    );
    const res = await send("GET", "/api/v1/orgs/acme/audit?limit=100", owner);
    const entries = (
      (await res.json()) as { entries: { action: string; target: string; actor: { username: string } }[] }
    ).entries;
    const seen = entries.map((e) => `${e.action} ${e.target} by ${e.actor.username}`).reverse();
    expect(seen.filter((line) => line.startsWith("organization.domain_"))).toEqual([
      "organization.domain_added acme.com by dora",
      "organization.domain_verified acme.com by dora",
      "organization.domain_added shared.example by dora",
      "organization.domain_removed shared.example by dora",
    ]);
  });
});
