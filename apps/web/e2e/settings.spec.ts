// /settings in the browser: deleting the account through the mailed link (its public pages and
// downloads then answer 404 and its bytes are gone from disk), signing out another browser with
// "Sign out of other sessions", and two-factor authentication from set-up to signing in with a
// code and with a backup code (the test is the authenticator app: it computes codes from the
// key the page shows).
import AxeBuilder from "@axe-core/playwright";
import type { Browser, BrowserContextOptions, Page } from "@playwright/test";
import * as OTPAuth from "otpauth";
import { readOutbox } from "../test/harness.ts";
import { appOrigin, expect, outboxDir, PASSWORD, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}`;

async function deletionLink(email: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const mail = readOutbox(outboxDir()).findLast((m) => m.to.includes(email) && /deletion/i.test(m.subject));
    const link = mail?.links.find((l) => l.includes("/api/auth/delete-user/callback?token="));
    if (link) return link;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no deletion mail for ${email}`);
}

async function signIn(page: Page, email: string) {
  await page.goto("/auth/signin");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/$/);
}

test("delete the account through the mailed link: its release page and downloads answer 404", async ({
  page,
  consoleErrors: _,
}) => {
  const email = uniqueEmail("leaver");
  const username = unique("leaver");
  await signUpAndOnboard(page, { email, name: "Lee Ver", username });
  const project = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: { slug: "farewell", name: "Farewell", visibility: "public" },
  });
  expect(project.status()).toBe(201);
  const upload = await page.request.put("/api/v1/projects/farewell/releases/1.0.0/files/farewell.tar.gz", {
    headers: appOrigin(),
    data: Buffer.from(`the last bytes of ${username}`),
  });
  expect(upload.status()).toBe(201);
  const releasePage = `/releases/${username}/farewell/1.0.0`;
  const download = `/dl/${username}/farewell/releases/1.0.0/farewell.tar.gz`;
  expect((await page.request.get(releasePage)).status()).toBe(200);
  expect((await page.request.get(download)).status()).toBe(200);

  await page.goto("/settings");
  const summary = page.getByTestId("deletion-summary");
  await expect(summary).toContainText("1 project with 1 release and 1 file");
  await expect(summary).toContainText("APT and YUM repositories");
  await expect(summary).toContainText("1 sign-in method");
  // A wrong password is refused in place.
  await page.getByLabel("Your password").fill("not my password");
  await page.getByRole("button", { name: "Email me the deletion link" }).click();
  await expect(page.getByText("The password is not correct")).toBeVisible();
  await page.getByLabel("Your password").fill(PASSWORD);
  await page.getByRole("button", { name: "Email me the deletion link" }).click();
  await expect(page.getByTestId("deletion-sent")).toContainText(`We sent a link to ${email}`);
  // Nothing is gone until the link is opened.
  expect((await page.request.get(releasePage)).status()).toBe(200);

  await page.goto(await deletionLink(email));
  await expect(page).toHaveURL(/\/auth\/signin\?deleted=1$/);
  await expect(page.getByTestId("account-deleted")).toContainText("Your account was deleted");
  expect((await page.request.get(releasePage)).status()).toBe(404);
  expect((await page.request.get(download)).status()).toBe(404);
  expect((await page.request.get(`/dl/${username}/farewell/releases/latest/SHA256SUMS`)).status()).toBe(404);
  // The bytes themselves go with the next garbage collection after its grace period (decision
  // 022; accounts/deletion.db.test.ts checks that the sweep removes them).
  // Signed out: the settings page sends the visitor to sign in.
  await page.goto("/settings");
  await expect(page).toHaveURL(/\/auth\/signin\?redirect=%2Fsettings$/);
  // Signing in again is refused: the account is gone.
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByText("Invalid email or password.")).toBeVisible();
});

test("a second browser is signed out by 'Sign out of other sessions'", async ({
  page,
  browser,
  consoleErrors: _,
}) => {
  const email = uniqueEmail("two-browsers");
  await signUpAndOnboard(page, { email, name: "Two Browsers", username: unique("twobrowsers") });

  const other = await browser.newContext({ baseURL: process.env.PACKYARD_E2E_URL });
  const otherPage = await other.newPage();
  await signIn(otherPage, email);
  await expect(otherPage).toHaveURL(/\/dashboard$/);

  await page.goto("/settings");
  const sessions = page.getByRole("list", { name: "Active sessions" }).getByRole("listitem");
  await expect(sessions).toHaveCount(2);
  await expect(sessions.first()).toContainText("This device");
  await expect(sessions.first()).toContainText(/Chrome \d+ on Linux/);
  await page.getByRole("button", { name: "Sign out of other sessions" }).click();
  await expect(page.getByText("Signed out of every other session")).toBeVisible();
  await expect(sessions).toHaveCount(1);

  await otherPage.goto("/settings");
  await expect(otherPage).toHaveURL(/\/auth\/signin\?redirect=%2Fsettings$/);
  // This browser stays signed in.
  await page.reload();
  await expect(page.getByRole("heading", { name: "Settings" })).toBeVisible();
  await other.close();
});

test("two-factor authentication: set up with the QR code's key, then sign in with a code and with a backup code; a wrong code is refused", async ({
  page,
  consoleErrors: _,
}) => {
  const email = uniqueEmail("totp");
  await signUpAndOnboard(page, { email, name: "Toto Pea", username: unique("totp") });
  await page.goto("/settings");
  await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByTestId("totp-qr")).toBeVisible();
  const secret = ((await page.getByTestId("totp-secret").textContent()) ?? "").replace(/\s+/g, "");
  expect(secret).toMatch(/^[A-Z2-7]+$/);
  const app = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 });
  const wrong = () => String((Number(app.generate()) + 500_000) % 1_000_000).padStart(6, "0");

  await page.getByLabel("Code").fill(wrong());
  await page.getByRole("button", { name: "Turn on" }).click();
  await expect(page.getByText("That code is not right")).toBeVisible();
  await page.getByLabel("Code").fill(app.generate());
  await page.getByRole("button", { name: "Turn on" }).click();
  const codes = page.getByRole("list", { name: "Backup codes" }).getByRole("listitem");
  await expect(codes).toHaveCount(10);
  const backupCodes = await codes.allTextContents();
  await page.getByRole("button", { name: "I saved my codes" }).click();
  await expect(page.getByTestId("backup-codes")).toHaveCount(0);
  await expect(page.getByText("On", { exact: true })).toBeVisible();

  // Password, then a code from the app.
  await signOut(page);
  await signIn(page, email);
  await expect(page).toHaveURL(/\/auth\/two-factor$/);
  await page.getByLabel("Authentication code").fill(wrong());
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByText("That code is not right")).toBeVisible();
  await page.getByLabel("Authentication code").fill(app.generate());
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  // Password, then a backup code: it works once.
  await signOut(page);
  await signIn(page, email);
  await expect(page).toHaveURL(/\/auth\/two-factor$/);
  await page.getByRole("button", { name: "Use a backup code instead" }).click();
  await page.getByLabel("Backup code").fill(backupCodes[0]!);
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  await signOut(page);
  await page.goto("/auth/signin?redirect=%2Fsettings");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/auth\/two-factor\?redirect=%2Fsettings$/);
  await page.getByRole("button", { name: "Use a backup code instead" }).click();
  await page.getByLabel("Backup code").fill(backupCodes[0]!);
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByText("That backup code is not valid, or it was already used.")).toBeVisible();
  await page.getByLabel("Backup code").fill(backupCodes[1]!);
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByRole("heading", { name: "Two-factor authentication" })).toBeVisible();
});

const VIEWS = [
  { width: 1280, height: 900, colorScheme: "light" },
  { width: 1280, height: 900, colorScheme: "dark" },
  { width: 375, height: 800, colorScheme: "light" },
  { width: 375, height: 800, colorScheme: "dark" },
] as const;

async function axeFailures(page: Page, label: string): Promise<string[]> {
  await page.waitForLoadState("networkidle");
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.map(
    (v) => `${label}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3)}`,
  );
}

async function inView(browser: Browser, options: BrowserContextOptions, view: (typeof VIEWS)[number]) {
  return browser.newContext({
    ...options,
    baseURL: process.env.PACKYARD_E2E_URL,
    viewport: { width: view.width, height: view.height },
    colorScheme: view.colorScheme,
  });
}

test("no axe violations on /settings (and its two-factor set-up), /auth/two-factor and /auth/delete-account, light and dark, 1280 and 375 px", async ({
  page,
  browser,
}) => {
  // Twenty axe runs on a shared machine.
  test.setTimeout(240_000);
  await signUpAndOnboard(page, {
    email: uniqueEmail("axe-settings"),
    name: "Axe Settings",
    username: unique("axeset"),
  });
  const storageState = await page.context().storageState();
  const failures: string[] = [];
  for (const view of VIEWS) {
    const label = `${view.width}px ${view.colorScheme}`;
    const signedIn = await inView(browser, { storageState }, view);
    const settings = await signedIn.newPage();
    await settings.goto("/settings");
    failures.push(...(await axeFailures(settings, `/settings ${label}`)));
    await settings.getByRole("button", { name: "Set up two-factor authentication" }).click();
    await settings.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await settings.getByRole("button", { name: "Continue" }).click();
    await expect(settings.getByTestId("totp-qr")).toBeVisible();
    failures.push(...(await axeFailures(settings, `/settings two-factor set-up ${label}`)));
    await signedIn.close();

    const visitor = await inView(browser, {}, view);
    const anonymous = await visitor.newPage();
    for (const path of [
      "/auth/two-factor",
      "/auth/delete-account?error=INVALID_TOKEN",
      "/auth/signin?deleted=1",
    ]) {
      await anonymous.goto(path);
      failures.push(...(await axeFailures(anonymous, `${path} ${label}`)));
    }
    await visitor.close();
  }
  expect(failures, failures.join("\n")).toEqual([]);
});
