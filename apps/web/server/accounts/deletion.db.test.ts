// Account deletion through the mailed link (spec §4, §5, §9; decision 015), in memory, on SQLite
// and PostgreSQL: the request and its refusals, the 32-character token, the link's refusals
// (wrong, expired, another user's), the readable pages a browser gets instead of JSON,
// everything the completed deletion removes, down to the blob files, and an organization's two
// owners deleting their accounts at once.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cookiesFrom,
  createTestApp,
  databaseKind,
  postJson,
  publishingProject,
  signUpVerified,
  TEST_PASSWORD,
  type TestApp,
} from "../../test/harness.ts";
import { collectLeftovers } from "../maintenance.ts";
import { acceptInvitation, createOrganization, inviteMember } from "../orgs/storage.ts";
import type { Actor } from "../platform/core/authorization.ts";
import { DomainError } from "../platform/core/errors.ts";
import { deleteAccount } from "./use-cases.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const CALLBACK = "/auth/signin?deleted=1";
const LINK = /\/api\/auth\/delete-user\/callback\?token=([0-9a-z]+)&callbackURL=([^\s]+)/;

function requestDeletion(cookie: string, body: Record<string, unknown> = { password: TEST_PASSWORD }) {
  return postJson(app, "/api/auth/delete-user", { callbackURL: CALLBACK, ...body }, cookie);
}

/** The newest deletion link mailed to an address: its path and token. */
function deletionLink(email: string): { path: string; token: string } {
  const mail = app.outbox().findLast((m) => m.to.includes(email) && /deletion/i.test(m.subject));
  const link = mail?.links.find((l) => LINK.test(l));
  if (!link) throw new Error(`no deletion link mailed to ${email}`);
  const url = new URL(link);
  return { path: `${url.pathname}${url.search}`, token: url.searchParams.get("token")! };
}

async function userExists(email: string) {
  return Boolean(
    await app.services.database.db
      .selectFrom("user")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirst(),
  );
}

async function rowsOf(table: string, column: string, value: string): Promise<number> {
  const { rows } = await sql<{
    n: number | string;
  }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} = ${value}`.execute(
    app.services.database.db,
  );
  return Number(rows[0]?.n ?? 0);
}

async function upload(
  auth: Record<string, string>,
  project: string,
  version: string,
  name: string,
  body: string,
) {
  const res = await app.request(`/api/v1/projects/${project}/releases/${version}/files/${name}`, {
    method: "PUT",
    body,
    headers: auth,
  });
  expect(res.status).toBe(201);
  return (await res.json()).file as { sha256: string };
}

function blobPath(sha256: string) {
  // The local blob store's layout (platform/storage/blob-store.ts).
  return join(app.services.config.blobDir, "sha256", sha256.slice(0, 2), sha256.slice(2, 4), sha256);
}

async function blobOnDisk(sha256: string): Promise<boolean> {
  for await (const key of app.services.blobs.list()) if (key === sha256) return true;
  return false;
}

describe(`requesting deletion (${databaseKind})`, () => {
  it("mails a link with a 32-character token from 0-9 and a-z, valid 24 hours, and deletes nothing yet", async () => {
    const email = "asker@example.com";
    const cookie = await signUpVerified(app, { email });
    const res = await requestDeletion(cookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, message: "Verification email sent" });
    const { path, token } = deletionLink(email);
    expect(token).toMatch(/^[0-9a-z]{32}$/);
    expect(new URL(path, "http://x").searchParams.get("callbackURL")).toBe(CALLBACK);
    const row = await sql<{
      expiresAt: string | Date;
    }>`select "expiresAt" from verification where identifier = ${`delete-account-${token}`}`.execute(
      app.services.database.db,
    );
    const hours = (new Date(row.rows[0]!.expiresAt).getTime() - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    expect(await userExists(email)).toBe(true);
  });

  it("refuses a wrong password with INVALID_PASSWORD and mails nothing", async () => {
    const email = "wrong-password@example.com";
    const cookie = await signUpVerified(app, { email });
    const before = app.outbox().length;
    const res = await requestDeletion(cookie, { password: "not the password" });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("INVALID_PASSWORD");
    expect(app.outbox()).toHaveLength(before);
  });

  it("without a password, needs a session from the last day: SESSION_EXPIRED otherwise", async () => {
    const email = "stale@example.com";
    const cookie = await signUpVerified(app, { email });
    // Fresh: the link is mailed without a password.
    const fresh = await requestDeletion(cookie, {});
    expect(fresh.status).toBe(200);
    // Two days old.
    const context = await app.services.auth.$context;
    const user = await context.internalAdapter.findUserByEmail(email);
    const [session] = await context.internalAdapter.listSessions(user!.user.id);
    await context.internalAdapter.updateSession(session!.token, {
      createdAt: new Date(Date.now() - 2 * 24 * 60 * 60 * 1000),
    });
    const stale = await requestDeletion(cookie, {});
    expect(stale.status).toBe(400);
    expect(await stale.json()).toMatchObject({
      code: "SESSION_EXPIRED",
      message: "Session expired. Re-authenticate to perform this action.",
    });
    // With the password, the session's age does not matter.
    expect((await requestDeletion(cookie)).status).toBe(200);
  });

  it("the settings page lists what would be deleted, with the user's counts", async () => {
    const { auth } = await publishingProject(app, "counted", "gadget");
    await upload(auth, "gadget", "1.0.0", "gadget-a.bin", "gadget a");
    await upload(auth, "gadget", "1.0.0", "gadget-b.bin", "gadget b");
    await upload(auth, "gadget", "1.1.0", "gadget-c.bin", "gadget c");
    const signIn = await postJson(app, "/api/auth/sign-in/email", {
      email: "counted@example.com",
      password: TEST_PASSWORD,
    });
    const page = await app.request("/settings", { cookie: cookiesFrom(signIn) });
    expect(page.status).toBe(200);
    const html = (await page.text()).replace(/<!-- -->/g, "");
    expect(html).toContain("1 project with 2 releases and 3 files (24 B)");
    expect(html).toContain("1 API key");
    expect(html).toContain("Email me the deletion link");
  });
});

describe(`the mailed link (${databaseKind})`, () => {
  it("answers INVALID_TOKEN for a wrong token, and deletes nothing", async () => {
    const email = "wrong-token@example.com";
    const cookie = await signUpVerified(app, { email });
    await requestDeletion(cookie);
    const res = await app.request(
      `/api/auth/delete-user/callback?token=${"0".repeat(32)}&callbackURL=${encodeURIComponent(CALLBACK)}`,
      { cookie },
    );
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe("INVALID_TOKEN");
    expect(await userExists(email)).toBe(true);
  });

  it("answers INVALID_TOKEN for an expired token", async () => {
    const email = "expired@example.com";
    const cookie = await signUpVerified(app, { email });
    await requestDeletion(cookie);
    const { path, token } = deletionLink(email);
    const context = await app.services.auth.$context;
    const row = await context.internalAdapter.findVerificationValue(`delete-account-${token}`);
    await context.internalAdapter.updateVerificationByIdentifier(`delete-account-${token}`, {
      expiresAt: new Date(Date.now() - 1000),
    });
    expect(row).toBeTruthy();
    const res = await app.request(path, { cookie });
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe("INVALID_TOKEN");
    expect(await userExists(email)).toBe(true);
  });

  it("answers INVALID_TOKEN for another user's token, and both accounts stay", async () => {
    const owner = await signUpVerified(app, { email: "token-owner@example.com" });
    const other = await signUpVerified(app, { email: "token-thief@example.com" });
    await requestDeletion(owner);
    const { path } = deletionLink("token-owner@example.com");
    const res = await app.request(path, { cookie: other });
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe("INVALID_TOKEN");
    expect(await userExists("token-owner@example.com")).toBe(true);
    expect(await userExists("token-thief@example.com")).toBe(true);
  });

  it("sends a browser to a page that says the link is not valid, instead of JSON", async () => {
    const cookie = await signUpVerified(app, { email: "browser-bad@example.com" });
    const res = await app.request(`/api/auth/delete-user/callback?token=${"1".repeat(32)}`, {
      cookie,
      headers: { accept: "text/html,application/xhtml+xml" },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/auth/delete-account?error=INVALID_TOKEN");
    const page = await app.request("/auth/delete-account?error=INVALID_TOKEN", { cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("This deletion link doesn&#x27;t work");
    expect(html).toContain("Invalid token: nothing was deleted.");
  });

  it("a browser that is not signed in is asked to sign in, then can delete from the same link", async () => {
    const email = "elsewhere@example.com";
    const cookie = await signUpVerified(app, { email });
    await requestDeletion(cookie);
    const { path, token } = deletionLink(email);
    const signedOut = await app.request(path, { headers: { accept: "text/html" } });
    expect(signedOut.status).toBe(302);
    const landing = signedOut.headers.get("location")!;
    expect(landing).toBe(`/auth/delete-account?token=${token}`);
    const ask = await (await app.request(landing)).text();
    expect(ask).toContain("Sign in to delete your account");
    expect(ask).toContain(
      `/auth/signin?redirect=${encodeURIComponent(`/auth/delete-account?token=${token}`)}`,
    );
    // Signed in: a confirmation whose button is the link itself.
    const confirm = await (await app.request(landing, { cookie })).text();
    expect(confirm).toContain("Delete your account?");
    expect(confirm).toContain(
      `/api/auth/delete-user/callback?token=${token}&amp;callbackURL=${encodeURIComponent(CALLBACK)}`,
    );
    expect(await userExists(email)).toBe(true);
  });
});

describe(`a completed deletion (${databaseKind})`, () => {
  it("removes the user, sessions, accounts, API keys, projects, releases, files and their blobs; public URLs answer 404; the cookie is cleared", async () => {
    const email = "doomed@example.com";
    const { auth, userId } = await publishingProject(app, "doomed", "widget");
    const own = await upload(auth, "widget", "1.0.0", "widget.bin", "bytes only the doomed user has");
    const shared = await upload(auth, "widget", "1.0.0", "shared.bin", "bytes two users uploaded");
    const keeper = await publishingProject(app, "keeper", "kept");
    await upload(keeper.auth, "kept", "2.0.0", "kept.bin", "bytes two users uploaded");
    expect(await blobOnDisk(own.sha256)).toBe(true);
    expect(existsSync(blobPath(own.sha256))).toBe(true);

    const signIn = await postJson(app, "/api/auth/sign-in/email", { email, password: TEST_PASSWORD });
    const cookie = cookiesFrom(signIn);
    expect((await app.request("/releases/doomed/widget/1.0.0")).status).toBe(200);
    expect((await app.request("/dl/doomed/widget/releases/1.0.0/widget.bin")).status).toBe(200);
    expect(await rowsOf("session", "userId", userId)).toBeGreaterThan(0);
    expect(await rowsOf("account", "userId", userId)).toBe(1);
    expect(await rowsOf("apikey", "referenceId", userId)).toBe(1);
    // A two-factor secret (set up, not yet confirmed) goes too.
    expect(
      (await postJson(app, "/api/auth/two-factor/enable", { password: TEST_PASSWORD }, cookie)).status,
    ).toBe(200);
    expect(await rowsOf("twoFactor", "userId", userId)).toBe(1);

    await requestDeletion(cookie);
    const { path } = deletionLink(email);
    const res = await app.request(path, { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(CALLBACK);
    const cleared = res.headers.getSetCookie().find((c) => c.includes("session_token="));
    expect(cleared).toMatch(/Max-Age=0/i);

    expect(await userExists(email)).toBe(false);
    for (const [table, column] of [
      ["session", "userId"],
      ["account", "userId"],
      ["apikey", "referenceId"],
      ["twoFactor", "userId"],
      ["project", "owner_id"],
      ["verification", "value"],
    ] as const)
      expect(await rowsOf(table, column, userId), table).toBe(0);
    const db = app.services.database.db;
    const releases = await db
      .selectFrom("release")
      .innerJoin("project", "project.id", "release.project_id")
      .select("release.id")
      .where("project.slug", "=", "widget")
      .execute();
    expect(releases).toEqual([]);
    const files = await db
      .selectFrom("release_file")
      .select("sha256")
      .where("sha256", "=", own.sha256)
      .execute();
    expect(files).toEqual([]);
    // Deleting removed the rows; the bytes go with the sweep after the grace (decision 022).
    expect(await blobOnDisk(own.sha256)).toBe(true);
    await collectLeftovers(app.services, 0);
    // Bytes no one else has are gone from DATA_DIR/blobs; bytes another user also uploaded stay.
    expect(await blobOnDisk(own.sha256)).toBe(false);
    expect(existsSync(blobPath(own.sha256))).toBe(false);
    expect(await blobOnDisk(shared.sha256)).toBe(true);
    expect((await app.request("/dl/keeper/kept/releases/2.0.0/kept.bin")).status).toBe(200);

    // Public URLs, the old session and the old API key.
    expect((await app.request("/releases/doomed/widget/1.0.0")).status).toBe(404);
    expect((await app.request("/releases/doomed/widget/latest")).status).toBe(404);
    expect((await app.request("/dl/doomed/widget/releases/1.0.0/widget.bin")).status).toBe(404);
    expect((await app.request("/dl/doomed/widget/releases/latest/SHA256SUMS")).status).toBe(404);
    expect(await (await app.request("/api/auth/get-session", { cookie })).json()).toBeNull();
    expect((await app.request("/api/v1/projects", { headers: auth })).status).toBe(401);

    // The link is spent.
    const again = await app.request(path, { cookie });
    expect(again.status).toBe(404);
  });

  it("shows 'Your account was deleted' on the sign-in page the link ends on", async () => {
    const html = await (await app.request(CALLBACK)).text();
    expect(html).toContain("Your account was deleted");
  });
});

describe(`two owners deleting their accounts at once (${databaseKind})`, () => {
  // Several organizations, so that on PostgreSQL (a pool of connections) the two deletions of
  // some of them interleave between checking for another owner and leaving the organization.
  const PAIRS = 6;
  const db = () => app.services.database.db;

  interface Owner {
    email: string;
    cookie: string;
    userId: string;
  }

  async function signedUp(email: string): Promise<Owner> {
    const cookie = await signUpVerified(app, { email });
    const user = await db()
      .selectFrom("user")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    return { email, cookie, userId: user.id };
  }

  /** Organizations with two owners each: the first created it, the second accepted an invitation. */
  async function twoOwnerOrgs(prefix: string): Promise<{ slug: string; owners: [Owner, Owner] }[]> {
    const orgs: { slug: string; owners: [Owner, Owner] }[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const slug = `${prefix}-${i}`;
      const first = await signedUp(`${prefix}-first-${i}@example.com`);
      const second = await signedUp(`${prefix}-second-${i}@example.com`);
      const founder: Actor = { kind: "session", userId: first.userId };
      await createOrganization(db(), founder, { slug, name: slug });
      const invitation = await inviteMember(
        db(),
        app.services.mailer,
        founder,
        slug,
        { email: second.email, role: "owner" },
        "http://localhost:3000",
      );
      await acceptInvitation(db(), { kind: "session", userId: second.userId }, invitation.id);
      orgs.push({ slug, owners: [first, second] });
    }
    return orgs;
  }

  async function ownersOf(slug: string): Promise<string[]> {
    const rows = await db()
      .selectFrom("org_member")
      .innerJoin("organization", "organization.id", "org_member.org_id")
      .innerJoin("user", "user.id", "org_member.user_id")
      .select("user.email")
      .where("organization.slug", "=", slug)
      .where("org_member.role", "=", "owner")
      .execute();
    return rows.map((r) => r.email);
  }

  it("deleting the accounts' data: one goes, the other is refused with ORG_LAST_OWNER and stays the owner", async () => {
    const orgs = await twoOwnerOrgs("data-race");
    const outcomes = await Promise.all(
      orgs.map(async ({ slug, owners }) => {
        const results = await Promise.all(
          owners.map((owner) =>
            deleteAccount({ db: db() }, owner.userId).then(
              () => ({ email: owner.email, code: "OK" }),
              (error: unknown) => {
                if (error instanceof DomainError) return { email: owner.email, code: error.code as string };
                throw error;
              },
            ),
          ),
        );
        const refused = results.filter((r) => r.code !== "OK").map((r) => r.email);
        return {
          slug,
          codes: results.map((r) => r.code).sort(),
          refusedStayOwners: (await ownersOf(slug)).join() === refused.join(),
        };
      }),
    );
    expect(outcomes).toEqual(
      orgs.map(({ slug }) => ({ slug, codes: ["OK", "ORG_LAST_OWNER"], refusedStayOwners: true })),
    );
  });

  it("through the mailed links: one account goes, the other stays and is still the owner", async () => {
    const orgs = await twoOwnerOrgs("link-race");
    // Neither is the only owner yet: both links are mailed.
    const links = orgs.flatMap(({ slug, owners }) => owners.map((owner) => ({ slug, ...owner })));
    for (const link of links) expect((await requestDeletion(link.cookie)).status).toBe(200);
    const opened = await Promise.all(
      links.map(async (link) => {
        const res = await app.request(deletionLink(link.email).path, { cookie: link.cookie });
        // The refused one is told why (400 ORG_LAST_OWNER), not answered with a bare 500.
        if (res.status !== 302)
          expect([res.status, (await res.json()).code]).toEqual([400, "ORG_LAST_OWNER"]);
        return { ...link, deleted: res.status === 302 };
      }),
    );
    const outcomes = [];
    for (const { slug } of orgs) {
      const pair = opened.filter((link) => link.slug === slug);
      const stayed = [];
      for (const link of pair) if (await userExists(link.email)) stayed.push(link.email);
      outcomes.push({
        slug,
        deleted: pair.filter((link) => link.deleted).length,
        stayed: stayed.length,
        stayedOwns: (await ownersOf(slug)).join() === stayed.join(),
      });
    }
    expect(outcomes).toEqual(orgs.map(({ slug }) => ({ slug, deleted: 1, stayed: 1, stayedOwns: true })));
  });
});
