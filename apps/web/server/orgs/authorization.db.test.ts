// Who may do what with an organization and its private project (issue 19, decision 040): its
// owner, admin, publisher and viewer, a non-member, the organization's key, a member's personal
// key, the personal key of a member who was removed, and anonymous, over every /api/v1 route
// (taken from the OpenAPI document: a route without a row fails the test), the /api/v1/orgs
// routes included, the dashboard pages and /dl with HTTP Basic credentials as apt and dnf send
// them. Every cell is a status. A project the caller
// may not read is "not found"; one it reads but its role does not allow this on is FORBIDDEN.
import { readFileSync } from "node:fs";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildTestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  type TestApp,
} from "../../test/harness.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../test/webhook-receiver.ts";
import type { Actor } from "../platform/core/authorization.ts";
import { acceptInvitation, createInvitation, createOrganization, removeMember } from "./storage.ts";

const hasRpmbuild = requireTools(["rpmbuild"]);

const callers = [
  "owner",
  "admin",
  "publisher",
  "viewer",
  "nonMember",
  "orgKey",
  "memberKey",
  "formerKey",
  "anonymous",
] as const;
type Caller = (typeof callers)[number];
type Expect = Record<Caller, number>;

let app: TestApp;
let receiver: WebhookReceiver;
/** Headers per caller: a session cookie or a key (Bearer for the API, Basic for /dl). */
const cookies: Partial<Record<Caller, string>> = {};
const keys: Partial<Record<Caller, string>> = {};
/** Per-caller targets made in setup, for writes that remove something. */
const hookFor: Partial<Record<Caller, string>> = {};
/** Per-caller entitlement tokens to delete: the project's and the organization's. */
const entitlementFor: Partial<Record<Caller, string>> = {};
const orgEntitlementFor: Partial<Record<Caller, string>> = {};
let entitlement = "";
let orgEntitlement = "";
/** Per-caller trusted publishers to remove. */
const publisherFor: Partial<Record<Caller, string>> = {};
/** Per-caller organization invitations and keys to revoke, and members to remove. */
const invitationFor: Partial<Record<Caller, string>> = {};
const orgKeyFor: Partial<Record<Caller, string>> = {};
let acceptable = "";
let hook = "";
let delivery = "";
let anImport = "";

const ORG = "acme";
const P = "/api/v1/projects/secret";
const DL = `/dl/${ORG}/secret`;

function deb(version: string) {
  return buildTestDeb({
    control: `Package: secret-tool\nVersion: ${version}\nArchitecture: amd64\nMaintainer: Tests <t@example.com>\nDescription: matrix\n a tool\n`,
    dataFiles: [{ name: "./usr/bin/secret-tool", data: "#!/bin/sh\n" }],
  });
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  app = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: "true", PLAN_LIMITS: "off" });
  const db = app.services.database.db;
  const users = Object.fromEntries(
    await Promise.all(
      (["owner", "admin", "publisher", "viewer", "nonMember", "former", "extraOne", "extraTwo"] as const).map(
        async (name) => [name, await onboardedUser(app, name.toLowerCase())] as const,
      ),
    ),
  );
  const session = (name: keyof typeof users): Actor => ({ kind: "session", userId: users[name]!.userId });
  const org = await createOrganization(db, session("owner"), { slug: ORG, name: "Acme" });
  for (const [name, role] of [
    ["admin", "admin"],
    ["publisher", "publisher"],
    ["viewer", "viewer"],
    ["former", "publisher"],
    ["extraOne", "viewer"],
    ["extraTwo", "viewer"],
  ] as const) {
    const invitation = await createInvitation(
      db,
      session("owner"),
      ORG,
      { email: `${name.toLowerCase()}@example.com`, role },
      app.services.config.baseUrl,
    );
    await acceptInvitation(db, session(name), invitation.id);
  }
  for (const name of ["owner", "admin", "publisher", "viewer", "nonMember"] as const)
    cookies[name] = users[name]!.cookie;
  keys.orgKey = await createApiKey(app, org.id, { projects: "*", access: "publish" });
  keys.memberKey = await createApiKey(app, users.publisher!.userId, { projects: "*", access: "publish" });
  keys.formerKey = await createApiKey(app, users.former!.userId, { projects: "*", access: "publish" });
  await removeMember(db, session("owner"), ORG, "former");

  const owner = { cookie: users.owner!.cookie };
  const api = async (path: string, init: RequestInit, status: number) => {
    const headers = new Headers(init.headers);
    if (typeof init.body === "string") headers.set("content-type", "application/json");
    const res = await app.request(path, { ...init, headers, ...owner });
    expect(res.status, `${init.method} ${path}: ${await res.clone().text()}`).toBe(status);
    return res.status === 204 ? {} : await res.json();
  };
  const post = (path: string, body: unknown, status = 201) =>
    api(path, { method: "POST", body: JSON.stringify(body) }, status);
  const put = (path: string, body: BodyInit, status = 201) => api(path, { method: "PUT", body }, status);

  await post("/api/v1/projects", { slug: "secret", name: "Secret", visibility: "private", owner: ORG });
  await put(`${P}/releases/1.0.0/files/tool.tar.gz`, "archive bytes");
  await put(`${P}/releases/1.0.0/files/secret-tool_1.0.0_amd64.deb`, Buffer.from(deb("1.0.0")));
  if (hasRpmbuild) {
    const rpms = buildTestRpms();
    await put(`${P}/releases/1.0.0/files/${rpms.alpha.split("/").pop()}`, readFileSync(rpms.alpha));
    rpms.cleanup();
  }
  for (const caller of callers) {
    await put(`${P}/releases/9.0.0/files/${caller}.bin`, "bytes");
    await post(`${P}/releases`, { version: `8.0.0-${caller.toLowerCase()}` });
    await post("/api/v1/projects", {
      slug: `gone-${caller.toLowerCase()}`,
      name: "Gone",
      keyAlgorithm: "ed25519",
      visibility: "private",
      owner: ORG,
    });
    const created = await post(`${P}/webhooks`, { url: receiver.url, events: ["release.created"] });
    hookFor[caller] = created.webhook.id;
    entitlementFor[caller] = (await post(`${P}/entitlements`, { name: `gone-${caller}` })).entitlement.id;
    orgEntitlementFor[caller] = (
      await post(`/api/v1/orgs/${ORG}/entitlements`, { name: `gone-${caller}`, projects: ["secret"] })
    ).entitlement.id;
    publisherFor[caller] = (
      await post(`${P}/trusted-publishers`, { provider: "github", repository: `acme/gone-${caller}` })
    ).trustedPublisher.id;
  }
  entitlement = (await post(`${P}/entitlements`, { name: "A customer" })).entitlement.id;
  orgEntitlement = (
    await post(`/api/v1/orgs/${ORG}/entitlements`, { name: "A customer", projects: ["secret"] })
  ).entitlement.id;
  for (const caller of callers) {
    await post("/api/v1/projects", {
      slug: `move-${caller.toLowerCase()}`,
      name: "Moving",
      visibility: "private",
      keyAlgorithm: "ed25519",
      owner: ORG,
    });
    invitationFor[caller] = (
      await post(`/api/v1/orgs/${ORG}/invitations`, {
        email: `revoke-${caller.toLowerCase()}@example.com`,
        role: "viewer",
      })
    ).invitation.id;
    orgKeyFor[caller] = (
      await post(`/api/v1/orgs/${ORG}/keys`, { name: `k-${caller}`, access: "read" })
    ).key.id;
  }
  acceptable = (
    await post(`/api/v1/orgs/${ORG}/invitations`, { email: "nonmember@example.com", role: "viewer" })
  ).invitation.id;
  hook = (await post(`${P}/webhooks`, { url: receiver.url, events: ["release.created"] })).webhook.id;
  delivery = (await post(`${P}/webhooks/${hook}/test`, {}, 200)).delivery.id;
  anImport = (
    await post(`${P}/imports`, { source: { kind: "yum-repository", url: "http://127.0.0.1:9/repo" } }, 202)
  ).import.id;
}, 60_000);

afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

// What each kind of route allows (authorization.ts): the org's members by role, the org's key
// as its publish scope allows, a member's personal key by its user's role (a publisher), and
// nobody else.
const read = (ok = 200): Expect => ({
  owner: ok,
  admin: ok,
  publisher: ok,
  viewer: ok,
  nonMember: 404,
  orgKey: ok,
  memberKey: ok,
  formerKey: 404,
  anonymous: 401,
});
const publish = (ok: number): Expect => ({ ...read(ok), viewer: 403 });
const manage = (ok: number): Expect => ({ ...read(ok), publisher: 403, viewer: 403, memberKey: 403 });
/** Seen by those who manage the project (webhooks, the audit log); keys that read it too. */
const oversee = (ok = 200): Expect => ({ ...manage(ok) });
/** The organization itself: its members see it; keys act only as a person's (assertOrgAction). */
const signInInstead = { orgKey: 302, memberKey: 302, formerKey: 302, anonymous: 302 } as const;
const orgView = (ok = 200): Expect => ({ ...read(ok), orgKey: 404 });
const orgAdmin = (ok: number): Expect => ({ ...orgView(ok), publisher: 403, viewer: 403, memberKey: 403 });

interface Row {
  /** "METHOD /api/v1/path/{param}" as in the OpenAPI document; absent for pages and /dl. */
  route?: string;
  method: string;
  path: string | ((caller: Caller) => string);
  body?: unknown | ((caller: Caller) => unknown);
  raw?: string;
  /** A multipart/form-data body. */
  form?: (caller: Caller) => FormData;
  expect: Expect;
}

const lower = (caller: Caller) => caller.toLowerCase();

// In order: the rows that remove what others read come last.
const rows: Row[] = [
  // The account: each caller's own.
  {
    route: "GET /api/v1/projects",
    method: "GET",
    path: "/api/v1/projects",
    expect: { ...read(), nonMember: 200, formerKey: 200 },
  },
  {
    route: "POST /api/v1/projects",
    method: "POST",
    path: "/api/v1/projects",
    body: (c: Caller) => ({ slug: `own-${lower(c)}`, name: "Own", keyAlgorithm: "ed25519" }),
    expect: { ...read(201), nonMember: 201, formerKey: 201 },
  },
  {
    route: "POST /api/v1/projects",
    method: "POST",
    path: "/api/v1/projects",
    body: (c: Caller) => ({
      slug: `org-${lower(c)}`,
      name: "In the org",
      owner: ORG,
      keyAlgorithm: "ed25519",
    }),
    expect: { ...manage(201), orgKey: 201 },
  },
  {
    route: "GET /api/v1/keys",
    method: "GET",
    path: "/api/v1/keys",
    // An organization's key manages no keys here, as on the organization's own keys route.
    expect: { ...read(), nonMember: 200, formerKey: 200, orgKey: 404 },
  },
  {
    route: "POST /api/v1/keys",
    method: "POST",
    path: "/api/v1/keys",
    body: { name: "made", access: "read" },
    expect: { ...read(201), nonMember: 201, formerKey: 201, orgKey: 404 },
  },
  {
    route: "DELETE /api/v1/keys/{id}",
    method: "DELETE",
    path: "/api/v1/keys/nonexistent",
    expect: { ...read(404), anonymous: 401 },
  },
  {
    route: "GET /api/v1/usage",
    method: "GET",
    path: "/api/v1/usage",
    expect: { ...read(), nonMember: 200, formerKey: 200 },
  },
  {
    route: "GET /api/v1/audit",
    method: "GET",
    path: "/api/v1/audit",
    expect: { ...read(), nonMember: 200, formerKey: 200 },
  },
  {
    route: "GET /api/v1/me",
    method: "GET",
    path: "/api/v1/me",
    expect: { ...read(), nonMember: 200, formerKey: 200 },
  },

  // The organization: members by role, the organization's key and non-members are told it is
  // not found, a role that falls short is FORBIDDEN (authorization.ts assertOrgAction).
  {
    route: "GET /api/v1/orgs",
    method: "GET",
    path: "/api/v1/orgs",
    expect: { ...read(), nonMember: 200, formerKey: 200 },
  },
  {
    route: "POST /api/v1/orgs",
    method: "POST",
    path: "/api/v1/orgs",
    body: (c: Caller) => ({ slug: `new-${lower(c)}`, name: "New" }),
    expect: { ...read(201), nonMember: 201, formerKey: 201, orgKey: 403 },
  },
  { route: "GET /api/v1/orgs/{slug}", method: "GET", path: `/api/v1/orgs/${ORG}`, expect: orgView() },
  {
    route: "PATCH /api/v1/orgs/{slug}",
    method: "PATCH",
    path: `/api/v1/orgs/${ORG}`,
    body: { name: "Acme" },
    expect: orgAdmin(200),
  },
  {
    route: "GET /api/v1/orgs/{slug}/members",
    method: "GET",
    path: `/api/v1/orgs/${ORG}/members`,
    expect: orgView(),
  },
  {
    route: "PATCH /api/v1/orgs/{slug}/members/{username}",
    method: "PATCH",
    path: `/api/v1/orgs/${ORG}/members/viewer`,
    body: { role: "viewer" },
    expect: orgAdmin(200),
  },
  {
    route: "DELETE /api/v1/orgs/{slug}/members/{username}",
    method: "DELETE",
    path: (c) =>
      `/api/v1/orgs/${ORG}/members/${c === "owner" ? "extraone" : c === "admin" ? "extratwo" : "admin"}`,
    expect: orgAdmin(204),
  },
  {
    route: "POST /api/v1/orgs/{slug}/invitations",
    method: "POST",
    path: `/api/v1/orgs/${ORG}/invitations`,
    body: (c: Caller) => ({ email: `invited-${lower(c)}@example.com`, role: "viewer" }),
    expect: orgAdmin(201),
  },
  {
    route: "GET /api/v1/orgs/{slug}/invitations",
    method: "GET",
    path: `/api/v1/orgs/${ORG}/invitations`,
    expect: orgAdmin(200),
  },
  {
    route: "DELETE /api/v1/orgs/{slug}/invitations/{id}",
    method: "DELETE",
    path: (c) => `/api/v1/orgs/${ORG}/invitations/${invitationFor[c]}`,
    expect: orgAdmin(204),
  },
  {
    route: "GET /api/v1/orgs/{slug}/keys",
    method: "GET",
    path: `/api/v1/orgs/${ORG}/keys`,
    expect: orgAdmin(200),
  },
  {
    route: "POST /api/v1/orgs/{slug}/keys",
    method: "POST",
    path: `/api/v1/orgs/${ORG}/keys`,
    body: (c: Caller) => ({ name: `made-${lower(c)}`, access: "read" }),
    expect: orgAdmin(201),
  },
  {
    route: "DELETE /api/v1/orgs/{slug}/keys/{id}",
    method: "DELETE",
    path: (c) => `/api/v1/orgs/${ORG}/keys/${orgKeyFor[c]}`,
    expect: orgAdmin(204),
  },
  {
    route: "GET /api/v1/orgs/{slug}/audit",
    method: "GET",
    path: `/api/v1/orgs/${ORG}/audit`,
    expect: orgAdmin(200),
  },
  // Verified domains (docs/sso.md): admins see them, owners change them.
  {
    route: "GET /api/v1/orgs/{slug}/domains",
    method: "GET",
    path: `/api/v1/orgs/${ORG}/domains`,
    expect: orgAdmin(200),
  },
  {
    route: "POST /api/v1/orgs/{slug}/domains",
    method: "POST",
    path: `/api/v1/orgs/${ORG}/domains`,
    body: (c: Caller) => ({ domain: `${lower(c)}.example` }),
    expect: { ...orgAdmin(201), admin: 403 },
  },
  {
    // A domain the organization never claimed: past the role check, an owner learns it is not there
    // (no DNS question is asked).
    route: "POST /api/v1/orgs/{slug}/domains/{domain}/verify",
    method: "POST",
    path: `/api/v1/orgs/${ORG}/domains/unclaimed.example/verify`,
    expect: { ...orgAdmin(404), admin: 403 },
  },
  {
    route: "DELETE /api/v1/orgs/{slug}/domains/{domain}",
    method: "DELETE",
    path: (c) => `/api/v1/orgs/${ORG}/domains/${lower(c)}.example`,
    expect: { ...orgAdmin(204), admin: 403 },
  },
  // Identity providers and SCIM tokens (docs/sso.md): admins see the providers, owners change
  // them; tokens are the owners'. Past the role check, an owner adding a provider for a domain the
  // organization never verified is told so (409), and one changing a provider it lacks 404.
  {
    route: "GET /api/v1/orgs/{slug}/sso",
    method: "GET",
    path: `/api/v1/orgs/${ORG}/sso`,
    expect: orgAdmin(200),
  },
  {
    route: "POST /api/v1/orgs/{slug}/sso",
    method: "POST",
    path: `/api/v1/orgs/${ORG}/sso`,
    body: {
      type: "oidc",
      domain: "acme.example",
      issuer: "https://idp.example",
      clientId: "c",
      clientSecret: "s",
    },
    expect: { ...orgAdmin(409), admin: 403 },
  },
  {
    route: "PATCH /api/v1/orgs/{slug}/sso/{id}",
    method: "PATCH",
    path: `/api/v1/orgs/${ORG}/sso/no-such-provider`,
    body: { domain: "acme.example" },
    expect: { ...orgAdmin(404), admin: 403 },
  },
  {
    route: "DELETE /api/v1/orgs/{slug}/sso/{id}",
    method: "DELETE",
    path: `/api/v1/orgs/${ORG}/sso/no-such-provider`,
    expect: { ...orgAdmin(404), admin: 403 },
  },
  {
    route: "POST /api/v1/orgs/{slug}/scim-tokens",
    method: "POST",
    path: `/api/v1/orgs/${ORG}/scim-tokens`,
    expect: { ...orgAdmin(201), admin: 403 },
  },
  {
    route: "GET /api/v1/orgs/{slug}/scim-tokens",
    method: "GET",
    path: `/api/v1/orgs/${ORG}/scim-tokens`,
    expect: { ...orgAdmin(200), admin: 403 },
  },
  {
    route: "DELETE /api/v1/orgs/{slug}/scim-tokens/{id}",
    method: "DELETE",
    path: `/api/v1/orgs/${ORG}/scim-tokens/no-such-token`,
    expect: { ...orgAdmin(404), admin: 403 },
  },
  {
    // Not empty (it has projects): only an owner gets that far.
    route: "DELETE /api/v1/orgs/{slug}",
    method: "DELETE",
    path: `/api/v1/orgs/${ORG}`,
    expect: { ...orgAdmin(409), admin: 403 },
  },

  // The project: read.
  { route: "GET /api/v1/projects/{slug}", method: "GET", path: P, expect: read() },
  // Addressed as owner/slug, the same answers.
  { method: "GET", path: `/api/v1/projects/${ORG}/secret/releases/1.0.0`, expect: read() },
  { route: "GET /api/v1/projects/{slug}/releases", method: "GET", path: `${P}/releases`, expect: read() },
  {
    route: "GET /api/v1/projects/{slug}/releases/{version}",
    method: "GET",
    path: `${P}/releases/1.0.0`,
    expect: read(),
  },
  {
    route: "GET /api/v1/projects/{slug}/releases/{version}/files",
    method: "GET",
    path: `${P}/releases/1.0.0/files`,
    expect: read(),
  },
  { route: "GET /api/v1/projects/{slug}/stats", method: "GET", path: `${P}/stats`, expect: read() },
  { route: "GET /api/v1/projects/{slug}/keys", method: "GET", path: `${P}/keys`, expect: read() },
  {
    route: "GET /api/v1/projects/{slug}/repository-settings",
    method: "GET",
    path: `${P}/repository-settings`,
    expect: read(),
  },
  { route: "GET /api/v1/projects/{slug}/retention", method: "GET", path: `${P}/retention`, expect: read() },
  {
    route: "POST /api/v1/projects/{slug}/retention/dry-run",
    method: "POST",
    path: `${P}/retention/dry-run`,
    body: {},
    expect: read(),
  },
  { route: "GET /api/v1/projects/{slug}/imports", method: "GET", path: `${P}/imports`, expect: read() },
  {
    route: "GET /api/v1/projects/{slug}/imports/{id}",
    method: "GET",
    path: () => `${P}/imports/${anImport}`,
    expect: read(),
  },

  // Oversee: webhooks and the audit log.
  { route: "GET /api/v1/projects/{slug}/webhooks", method: "GET", path: `${P}/webhooks`, expect: oversee() },
  {
    route: "GET /api/v1/projects/{slug}/webhooks/{id}",
    method: "GET",
    path: () => `${P}/webhooks/${hook}`,
    expect: oversee(),
  },
  {
    route: "GET /api/v1/projects/{slug}/webhooks/{id}/deliveries",
    method: "GET",
    path: () => `${P}/webhooks/${hook}/deliveries`,
    expect: oversee(),
  },
  { route: "GET /api/v1/projects/{slug}/audit", method: "GET", path: `${P}/audit`, expect: oversee() },

  // Publish: releases and files.
  {
    route: "POST /api/v1/projects/{slug}/releases",
    method: "POST",
    path: `${P}/releases`,
    body: (c: Caller) => ({ version: `2.0.0-${lower(c)}` }),
    expect: publish(201),
  },
  {
    route: "PATCH /api/v1/projects/{slug}/releases/{version}",
    method: "PATCH",
    path: `${P}/releases/1.0.0`,
    body: { title: "One" },
    expect: publish(200),
  },
  {
    route: "PUT /api/v1/projects/{slug}/releases/{version}/files/{filename}",
    method: "PUT",
    path: (c) => `${P}/releases/3.0.0/files/${c}.bin`,
    raw: "bytes",
    expect: publish(201),
  },
  {
    route: "POST /api/v1/projects/{slug}/releases/{version}/files",
    method: "POST",
    path: `${P}/releases/3.0.0/files`,
    form: (c) => {
      const form = new FormData();
      form.append("file", new Blob(["bytes"]), `${c}-form.bin`);
      return form;
    },
    expect: publish(201),
  },
  {
    route: "POST /api/v1/projects/{slug}/releases/{version}/promote",
    method: "POST",
    path: `${P}/releases/1.0.0/promote`,
    body: (c: Caller) => ({ distribution: `suite-${lower(c)}` }),
    expect: publish(200),
  },
  {
    route: "POST /api/v1/projects/{slug}/releases/{version}/yank",
    method: "POST",
    path: `${P}/releases/1.0.0/yank`,
    body: { reason: "matrix" },
    expect: publish(200),
  },
  {
    route: "POST /api/v1/projects/{slug}/releases/{version}/unyank",
    method: "POST",
    path: `${P}/releases/1.0.0/unyank`,
    expect: publish(200),
  },
  {
    route: "DELETE /api/v1/projects/{slug}/releases/{version}/files/{filename}",
    method: "DELETE",
    path: (c) => `${P}/releases/9.0.0/files/${c}.bin`,
    expect: publish(204),
  },
  {
    route: "DELETE /api/v1/projects/{slug}/releases/{version}",
    method: "DELETE",
    path: (c) => `${P}/releases/8.0.0-${lower(c)}`,
    expect: publish(204),
  },

  // Manage: the project itself.
  {
    route: "PATCH /api/v1/projects/{slug}",
    method: "PATCH",
    path: P,
    body: { description: "changed" },
    expect: manage(200),
  },
  {
    route: "PATCH /api/v1/projects/{slug}/repository-settings",
    method: "PATCH",
    path: `${P}/repository-settings`,
    body: { aptOrigin: "Acme" },
    expect: manage(200),
  },
  {
    route: "POST /api/v1/projects/{slug}/keys/rotate",
    method: "POST",
    path: `${P}/keys/rotate`,
    body: { algorithm: "ed25519", overlapDays: 7 },
    expect: manage(201),
  },
  {
    route: "PUT /api/v1/projects/{slug}/retention",
    method: "PUT",
    path: `${P}/retention`,
    body: { enabled: false },
    expect: manage(200),
  },
  {
    route: "POST /api/v1/projects/{slug}/imports",
    method: "POST",
    path: `${P}/imports`,
    body: { source: { kind: "yum-repository", url: "http://127.0.0.1:9/repo" } },
    expect: manage(202),
  },
  // Entitlement tokens: a project's are managed and seen by those who manage it; an
  // organization's by its admins and owners (people only).
  {
    route: "GET /api/v1/projects/{slug}/entitlements",
    method: "GET",
    path: `${P}/entitlements`,
    expect: oversee(),
  },
  {
    route: "GET /api/v1/projects/{slug}/entitlements/{id}",
    method: "GET",
    path: () => `${P}/entitlements/${entitlement}`,
    expect: oversee(),
  },
  {
    route: "GET /api/v1/projects/{slug}/entitlements/{id}/usage",
    method: "GET",
    path: () => `${P}/entitlements/${entitlement}/usage`,
    expect: oversee(),
  },
  {
    route: "POST /api/v1/projects/{slug}/entitlements",
    method: "POST",
    path: `${P}/entitlements`,
    body: (c: Caller) => ({ name: `made by ${c}` }),
    expect: manage(201),
  },
  {
    route: "PATCH /api/v1/projects/{slug}/entitlements/{id}",
    method: "PATCH",
    path: () => `${P}/entitlements/${entitlement}`,
    body: { note: "changed" },
    expect: manage(200),
  },
  {
    route: "POST /api/v1/projects/{slug}/entitlements/{id}/rotate",
    method: "POST",
    path: () => `${P}/entitlements/${entitlement}/rotate`,
    body: { overlapHours: 0 },
    expect: manage(200),
  },
  {
    route: "DELETE /api/v1/projects/{slug}/entitlements/{id}",
    method: "DELETE",
    path: (c) => `${P}/entitlements/${entitlementFor[c]}`,
    expect: manage(204),
  },
  {
    route: "GET /api/v1/orgs/{org}/entitlements",
    method: "GET",
    path: `/api/v1/orgs/${ORG}/entitlements`,
    expect: orgAdmin(200),
  },
  {
    route: "GET /api/v1/orgs/{org}/entitlements/{id}",
    method: "GET",
    path: () => `/api/v1/orgs/${ORG}/entitlements/${orgEntitlement}`,
    expect: orgAdmin(200),
  },
  {
    route: "GET /api/v1/orgs/{org}/entitlements/{id}/usage",
    method: "GET",
    path: () => `/api/v1/orgs/${ORG}/entitlements/${orgEntitlement}/usage`,
    expect: orgAdmin(200),
  },
  {
    route: "POST /api/v1/orgs/{org}/entitlements",
    method: "POST",
    path: `/api/v1/orgs/${ORG}/entitlements`,
    body: (c: Caller) => ({ name: `made by ${c}`, projects: ["secret"] }),
    expect: orgAdmin(201),
  },
  {
    route: "PATCH /api/v1/orgs/{org}/entitlements/{id}",
    method: "PATCH",
    path: () => `/api/v1/orgs/${ORG}/entitlements/${orgEntitlement}`,
    body: { enabled: true },
    expect: orgAdmin(200),
  },
  {
    route: "POST /api/v1/orgs/{org}/entitlements/{id}/rotate",
    method: "POST",
    path: () => `/api/v1/orgs/${ORG}/entitlements/${orgEntitlement}/rotate`,
    body: { overlapHours: 0 },
    expect: orgAdmin(200),
  },
  {
    route: "DELETE /api/v1/orgs/{org}/entitlements/{id}",
    method: "DELETE",
    path: (c) => `/api/v1/orgs/${ORG}/entitlements/${orgEntitlementFor[c]}`,
    expect: orgAdmin(204),
  },
  // Trusted publishing: a project's publishers are managed and seen by those who manage it; the
  // exchange takes no credential but the ID token, so every caller is refused alike.
  {
    route: "GET /api/v1/projects/{slug}/trusted-publishers",
    method: "GET",
    path: `${P}/trusted-publishers`,
    expect: oversee(),
  },
  {
    route: "POST /api/v1/projects/{slug}/trusted-publishers",
    method: "POST",
    path: `${P}/trusted-publishers`,
    body: (c: Caller) => ({ provider: "gitlab", projectPath: `acme/made-by-${c.toLowerCase()}` }),
    expect: manage(201),
  },
  {
    route: "DELETE /api/v1/projects/{slug}/trusted-publishers/{id}",
    method: "DELETE",
    path: (c) => `${P}/trusted-publishers/${publisherFor[c]}`,
    expect: manage(204),
  },
  {
    route: "POST /api/v1/trusted-publishing/token",
    method: "POST",
    path: "/api/v1/trusted-publishing/token",
    body: { token: "not-an-id-token" },
    expect: {
      owner: 401,
      admin: 401,
      publisher: 401,
      viewer: 401,
      nonMember: 401,
      orgKey: 401,
      memberKey: 401,
      formerKey: 401,
      anonymous: 401,
    },
  },
  {
    route: "POST /api/v1/projects/{slug}/webhooks",
    method: "POST",
    path: `${P}/webhooks`,
    body: () => ({ url: receiver.url, events: ["release.created"] }),
    expect: manage(201),
  },
  {
    route: "PATCH /api/v1/projects/{slug}/webhooks/{id}",
    method: "PATCH",
    path: () => `${P}/webhooks/${hook}`,
    body: { description: "changed" },
    expect: manage(200),
  },
  {
    route: "POST /api/v1/projects/{slug}/webhooks/{id}/rotate-secret",
    method: "POST",
    path: () => `${P}/webhooks/${hook}/rotate-secret`,
    expect: manage(200),
  },
  {
    route: "POST /api/v1/projects/{slug}/webhooks/{id}/test",
    method: "POST",
    path: () => `${P}/webhooks/${hook}/test`,
    expect: manage(200),
  },
  {
    route: "POST /api/v1/projects/{slug}/webhooks/{id}/deliveries/{deliveryId}/redeliver",
    method: "POST",
    path: () => `${P}/webhooks/${hook}/deliveries/${delivery}/redeliver`,
    expect: manage(200),
  },
  {
    route: "DELETE /api/v1/projects/{slug}/webhooks/{id}",
    method: "DELETE",
    path: (c) => `${P}/webhooks/${hookFor[c]}`,
    expect: manage(204),
  },
  {
    // To the caller's own account; an organization's key moves no project.
    route: "POST /api/v1/projects/{slug}/transfer",
    method: "POST",
    path: (c) => `/api/v1/projects/move-${lower(c)}/transfer`,
    body: (c: Caller) => ({ owner: lower(c) }),
    expect: { ...manage(200), orgKey: 403 },
  },
  {
    route: "DELETE /api/v1/projects/{slug}",
    method: "DELETE",
    path: (c) => `/api/v1/projects/gone-${lower(c)}`,
    expect: manage(204),
  },

  // The dashboard: pages for people signed in; keys do not sign in (the sign-in page).
  ...["", "/members", "/settings", "/audit"].map(
    (page): Row => ({
      method: "GET",
      path: `/orgs/${ORG}${page}`,
      expect: {
        ...(page === "/audit" ? { ...read(), publisher: 403, viewer: 403 } : read()),
        ...signInInstead,
      },
    }),
  ),
  ...["", "/releases", "/releases/1.0.0", "/downloads", "/settings", "/webhooks", "/audit"].map(
    (page): Row => ({
      method: "GET",
      path: `/orgs/${ORG}/projects/secret${page}`,
      expect: { ...(page === "/webhooks" || page === "/audit" ? oversee() : read()), ...signInInstead },
    }),
  ),
  // A personal URL of it (a mail's link, a bookmark from before a transfer): to its /orgs/ page.
  {
    method: "GET",
    path: "/projects/secret/settings",
    expect: { ...read(302), nonMember: 404, ...signInInstead },
  },
  // The public release page: people signed in (pages do not take keys).
  {
    method: "GET",
    path: `/releases/${ORG}/secret/1.0.0`,
    expect: { ...read(), orgKey: 404, memberKey: 404, anonymous: 404 },
  },

  // /dl: files and repositories, with the key as apt and dnf send it.
  {
    method: "GET",
    path: `${DL}/releases/1.0.0/tool.tar.gz`,
    expect: { ...read(), anonymous: 404 },
  },
  {
    method: "GET",
    path: `${DL}/deb/dists/stable/InRelease`,
    expect: { ...read(), anonymous: 404 },
  },
  ...(hasRpmbuild
    ? [{ method: "GET", path: `${DL}/rpm/repodata/repomd.xml`, expect: { ...read(), anonymous: 404 } }]
    : []),
  { method: "GET", path: `/api/p/${ORG}/secret`, expect: { ...read(), anonymous: 404 } },

  // Last: the non-member joins. Only the invited address, signed in, accepts.
  {
    route: "POST /api/v1/invitations/{id}/accept",
    method: "POST",
    path: () => `/api/v1/invitations/${acceptable}/accept`,
    expect: { ...read(403), nonMember: 200, formerKey: 403, anonymous: 401 },
  },
];

async function call(row: Row, caller: Caller): Promise<number> {
  const path = typeof row.path === "string" ? row.path : row.path(caller);
  const headers: Record<string, string> = {};
  const key = keys[caller];
  if (key)
    headers.authorization = path.startsWith("/dl/")
      ? `Basic ${Buffer.from(`token:${key}`).toString("base64")}`
      : `Bearer ${key}`;
  const body = typeof row.body === "function" ? row.body(caller) : row.body;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await app.request(path, {
    method: row.method,
    headers,
    body: body !== undefined ? JSON.stringify(body) : (row.form?.(caller) ?? row.raw),
    redirect: "manual",
    ...(cookies[caller] ? { cookie: cookies[caller] } : {}),
  });
  if (res.status >= 400 && path.startsWith("/api/")) {
    const json = await res.json();
    expect(json.error.code, `${caller}: ${JSON.stringify(json)}`).toMatch(/^[A-Z_]+$/);
  } else await res.arrayBuffer();
  return res.status;
}

describe(`authorization matrix for an organization's private project (${databaseKind})`, () => {
  it("has a row for every /api/v1 route in the OpenAPI document", async () => {
    const doc = (await (await app.request("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/api/v1/"))
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    const covered = new Set(rows.map((row) => row.route));
    expect(documented.filter((route) => !covered.has(route))).toEqual([]);
  });

  it("tells a viewer which role opens a page, and leaves its tab out", async () => {
    const page = await app.request(`/orgs/${ORG}/projects/secret/audit`, { cookie: cookies.viewer });
    expect(page.status).toBe(403);
    const html = await page.text();
    expect(html).toContain("Not for your role");
    expect(html).toContain(
      "Your role in this organization (viewer) does not allow this: an admin or owner may",
    );
    const tabs = (caller: Caller) =>
      app
        .request(`/orgs/${ORG}/projects/secret/releases`, { cookie: cookies[caller] })
        .then((res) => res.text());
    expect(await tabs("viewer")).not.toContain(`href="/orgs/${ORG}/projects/secret/webhooks"`);
    expect(await tabs("admin")).toContain(`href="/orgs/${ORG}/projects/secret/webhooks"`);
  });

  for (const row of rows) {
    it(row.route ?? `${row.method} ${row.path}`, async () => {
      const results: Partial<Expect> = {};
      if (row.method === "GET") {
        const statuses = await Promise.all(callers.map((caller) => call(row, caller)));
        callers.forEach((caller, i) => {
          results[caller] = statuses[i]!;
        });
      } else for (const caller of callers) results[caller] = await call(row, caller);
      expect(results).toEqual(row.expect);
    });
  }
});
