// Two-factor authentication end to end through the HTTP API, in memory, on SQLite and
// PostgreSQL: turning it on (the password, then a code an authenticator app computes from the
// totpURI — here otpauth, a standard implementation), the sign-in that then asks for a code, the
// /auth/two-factor page, backup codes (each once), wrong codes, trusted devices, turning it off
// (the password), and the notices mailed on and off.
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestApp,
  databaseKind,
  postJson,
  signUpVerified,
  TEST_PASSWORD,
  type TestApp,
} from "../../../test/harness.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

/** The current code of an authenticator app set up from the totpURI. */
function codeFor(totpURI: string): string {
  return OTPAuth.URI.parse(totpURI).generate();
}

/** A 6-digit code that is not the current one (nor, in practice, a neighbouring one). */
function wrongCode(totpURI: string): string {
  return String((Number(codeFor(totpURI)) + 500_000) % 1_000_000).padStart(6, "0");
}

/** Cookie header value after a response's Set-Cookie: names replaced, expired ones dropped. */
function merge(cookie: string, response: Response): string {
  const jar = new Map(
    cookie
      .split(/;\s*/)
      .filter(Boolean)
      .map((pair) => [pair.split("=")[0]!, pair] as const),
  );
  for (const header of response.headers.getSetCookie()) {
    const pair = header.split(";")[0]!;
    const name = pair.split("=")[0]!;
    if (/max-age=0/i.test(header) || pair.endsWith("=")) jar.delete(name);
    else jar.set(name, pair);
  }
  return [...jar.values()].join("; ");
}

async function signIn(email: string, cookie = "") {
  const res = await postJson(
    app,
    "/api/auth/sign-in/email",
    { email, password: TEST_PASSWORD },
    cookie || undefined,
  );
  return { res, body: await res.json(), cookie: merge(cookie, res) };
}

async function enable(email: string): Promise<{ cookie: string; totpURI: string; backupCodes: string[] }> {
  let cookie = await signUpVerified(app, { email });
  const started = await postJson(app, "/api/auth/two-factor/enable", { password: TEST_PASSWORD }, cookie);
  expect(started.status).toBe(200);
  const { totpURI, backupCodes } = await started.json();
  const verified = await postJson(
    app,
    "/api/auth/two-factor/verify-totp",
    { code: codeFor(totpURI) },
    cookie,
  );
  expect(verified.status).toBe(200);
  cookie = merge(cookie, verified);
  return { cookie, totpURI, backupCodes };
}

async function twoFactorEnabled(email: string): Promise<boolean> {
  const context = await app.services.auth.$context;
  const found = await context.internalAdapter.findUserByEmail(email);
  return (found?.user as { twoFactorEnabled?: boolean | null } | undefined)?.twoFactorEnabled === true;
}

const mailsTo = (email: string) => app.outbox().filter((m) => m.to.includes(email));

describe(`turning two-factor authentication on (${databaseKind})`, () => {
  it("asks for the password, gives a Packyard TOTP URI and 10 backup codes, and turns on only with a correct code", async () => {
    const email = "enabler@example.com";
    const cookie = await signUpVerified(app, { email });
    const wrong = await postJson(app, "/api/auth/two-factor/enable", { password: "not my password" }, cookie);
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).code).toBe("INVALID_PASSWORD");

    const started = await postJson(app, "/api/auth/two-factor/enable", { password: TEST_PASSWORD }, cookie);
    const { totpURI, backupCodes } = await started.json();
    const uri = OTPAuth.URI.parse(totpURI) as OTPAuth.TOTP;
    expect(uri.issuer).toBe("Packyard");
    expect(uri.label).toBe(email);
    expect(uri.digits).toBe(6);
    expect(uri.period).toBe(30);
    expect(backupCodes).toHaveLength(10);
    // Not on until a code from the app confirms it.
    expect(await twoFactorEnabled(email)).toBe(false);
    const refused = await postJson(
      app,
      "/api/auth/two-factor/verify-totp",
      { code: wrongCode(totpURI) },
      cookie,
    );
    expect(refused.status).toBe(401);
    expect((await refused.json()).code).toBe("INVALID_CODE");
    expect(await twoFactorEnabled(email)).toBe(false);

    const verified = await postJson(
      app,
      "/api/auth/two-factor/verify-totp",
      { code: codeFor(totpURI) },
      cookie,
    );
    expect(verified.status).toBe(200);
    expect(await twoFactorEnabled(email)).toBe(true);
    expect(mailsTo(email).at(-1)!.subject).toBe("Two-factor authentication is on for your Packyard account");
  });
});

describe(`signing in with two-factor authentication on (${databaseKind})`, () => {
  let account: { cookie: string; totpURI: string; backupCodes: string[] };
  const email = "second-factor@example.com";
  beforeAll(async () => {
    account = await enable(email);
  });

  it("a correct password gives no session but a challenge, and the page asks for the code", async () => {
    const { res, body, cookie } = await signIn(email);
    expect(res.status).toBe(200);
    expect(body).toEqual({ twoFactorRedirect: true, twoFactorMethods: ["totp"] });
    expect(cookie).not.toContain("session_token=");
    expect(cookie).toContain("two_factor=");
    const page = await app.request("/auth/two-factor?redirect=%2Fprojects", { cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Authentication code");
    expect(html).toContain("Trust this device for 30 days");
    // Without the challenge there is nothing to answer.
    const expired = await (await app.request("/auth/two-factor")).text();
    expect(expired).toContain("Your sign-in has expired");
  });

  it("refuses a wrong code, then signs in with the right one; the page then sends the user on", async () => {
    const { cookie } = await signIn(email);
    const wrong = await postJson(
      app,
      "/api/auth/two-factor/verify-totp",
      { code: wrongCode(account.totpURI) },
      cookie,
    );
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe("INVALID_CODE");
    const right = await postJson(
      app,
      "/api/auth/two-factor/verify-totp",
      { code: codeFor(account.totpURI) },
      cookie,
    );
    expect(right.status).toBe(200);
    const session = merge(cookie, right);
    expect(session).toContain("session_token=");
    expect((await (await app.request("/api/auth/get-session", { cookie: session })).json()).user.email).toBe(
      email,
    );
    const page = await app.request("/auth/two-factor?redirect=%2Fprojects", { cookie: session });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/projects");
    const unsafe = await app.request("/auth/two-factor?redirect=%2F%2Fevil.example", { cookie: session });
    expect(unsafe.headers.get("location")).toBe("/dashboard");
  });

  it("takes each backup code once", async () => {
    const code = account.backupCodes[0]!;
    const first = await signIn(email);
    const used = await postJson(app, "/api/auth/two-factor/verify-backup-code", { code }, first.cookie);
    expect(used.status).toBe(200);
    expect(merge(first.cookie, used)).toContain("session_token=");

    const second = await signIn(email);
    const again = await postJson(app, "/api/auth/two-factor/verify-backup-code", { code }, second.cookie);
    expect(again.status).toBe(401);
    expect((await again.json()).code).toBe("INVALID_BACKUP_CODE");
    const next = await postJson(
      app,
      "/api/auth/two-factor/verify-backup-code",
      { code: account.backupCodes[1]! },
      second.cookie,
    );
    expect(next.status).toBe(200);
  });

  it("ends the challenge after five wrong codes: TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE", async () => {
    const { cookie } = await signIn(email);
    for (let i = 0; i < 5; i++) {
      const wrong = await postJson(
        app,
        "/api/auth/two-factor/verify-totp",
        { code: wrongCode(account.totpURI) },
        cookie,
      );
      expect(wrong.status).toBe(401);
    }
    const locked = await postJson(
      app,
      "/api/auth/two-factor/verify-totp",
      { code: codeFor(account.totpURI) },
      cookie,
    );
    expect(locked.status).toBe(400);
    expect((await locked.json()).code).toBe("TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE");
    // A new sign-in starts a new challenge.
    const fresh = await signIn(email);
    const ok = await postJson(
      app,
      "/api/auth/two-factor/verify-totp",
      { code: codeFor(account.totpURI) },
      fresh.cookie,
    );
    expect(ok.status).toBe(200);
  });

  it("a device trusted at the prompt skips it for its next sign-in", async () => {
    const { cookie } = await signIn(email);
    const trusted = await postJson(
      app,
      "/api/auth/two-factor/verify-totp",
      { code: codeFor(account.totpURI), trustDevice: true },
      cookie,
    );
    expect(trusted.status).toBe(200);
    const device = merge(cookie, trusted)
      .split("; ")
      .filter((pair) => pair.includes("trust_device="))
      .join("; ");
    expect(device).toContain("trust_device=");
    const again = await signIn(email, device);
    expect(again.body.twoFactorRedirect).toBeUndefined();
    expect(again.cookie).toContain("session_token=");
  });
});

describe(`turning two-factor authentication off (${databaseKind})`, () => {
  it("needs the password, mails a notice, and sign-in no longer asks for a code", async () => {
    const email = "disabler@example.com";
    const { cookie } = await enable(email);
    const wrong = await postJson(
      app,
      "/api/auth/two-factor/disable",
      { password: "not my password" },
      cookie,
    );
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).code).toBe("INVALID_PASSWORD");
    expect(await twoFactorEnabled(email)).toBe(true);
    const missing = await postJson(app, "/api/auth/two-factor/disable", {}, cookie);
    expect(missing.status).toBe(400);
    expect(await twoFactorEnabled(email)).toBe(true);

    const off = await postJson(app, "/api/auth/two-factor/disable", { password: TEST_PASSWORD }, cookie);
    expect(off.status).toBe(200);
    expect(await twoFactorEnabled(email)).toBe(false);
    expect(mailsTo(email).at(-1)!.subject).toBe("Two-factor authentication is off for your Packyard account");
    const { body, cookie: session } = await signIn(email);
    expect(body.twoFactorRedirect).toBeUndefined();
    expect(session).toContain("session_token=");
  });

  it("new backup codes need the password and replace the old ones", async () => {
    const email = "regenerate@example.com";
    const { cookie, backupCodes } = await enable(email);
    const wrong = await postJson(
      app,
      "/api/auth/two-factor/generate-backup-codes",
      { password: "not my password" },
      cookie,
    );
    expect(wrong.status).toBe(400);
    const fresh = await postJson(
      app,
      "/api/auth/two-factor/generate-backup-codes",
      { password: TEST_PASSWORD },
      cookie,
    );
    expect(fresh.status).toBe(200);
    const { backupCodes: renewed } = await fresh.json();
    expect(renewed).toHaveLength(10);
    const challenge = await signIn(email);
    const old = await postJson(
      app,
      "/api/auth/two-factor/verify-backup-code",
      { code: backupCodes[0]! },
      challenge.cookie,
    );
    expect(old.status).toBe(401);
    const current = await postJson(
      app,
      "/api/auth/two-factor/verify-backup-code",
      { code: renewed[0] },
      challenge.cookie,
    );
    expect(current.status).toBe(200);
  });
});

describe(`the /auth/two-factor page (${databaseKind})`, () => {
  it("sends a signed-in visitor on to the redirect target", async () => {
    const cookie = await signUpVerified(app, { email: "already-in@example.com" });
    const res = await app.request("/auth/two-factor", { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/dashboard");
  });
});
