// Shared pieces of the browser tests: the server's outbox, and a page that fails the test on
// console errors (CSP violations and hydration errors show up there).
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type Page } from "@playwright/test";
import { readOutbox } from "../test/harness.ts";

export const test = base.extend<{ consoleErrors: string[] }>({
  consoleErrors: async ({ page }, use) => {
    const errors: string[] = [];
    page.on("console", (message) => {
      // Deliberate 4xx answers (a refused sign-in, an invalid form) are logged by the browser
      // as failed loads; they are not faults of the page.
      if (message.type() === "error" && !/status of 4\d\d/.test(message.text())) errors.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(error.message));
    await use(errors);
    expect(errors, "console errors").toEqual([]);
  },
});

test.beforeEach(() => {
  test.skip(Boolean(process.env.PACKYARD_E2E_SKIP), process.env.PACKYARD_E2E_SKIP);
});

export { expect };

export const PASSWORD = "correct horse battery";

/**
 * Switches the page to a colour scheme and waits until its colour transitions (buttons, links,
 * badges: up to 200 ms) have finished, so axe or a screenshot reads the settled colours, not a
 * colour half-way between the schemes.
 */
export async function useColorScheme(page: Page, colorScheme: "light" | "dark"): Promise<void> {
  await page.emulateMedia({ colorScheme });
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"));
}

/**
 * The Origin header a page's own fetch sends: API writes made with the session cookie must name
 * the app's origin (page.request sends none by itself).
 */
export function appOrigin(): Record<string, string> {
  return { origin: new URL(process.env.PACKYARD_E2E_URL!).origin };
}

export function outboxDir() {
  return join(process.env.PACKYARD_E2E_DATA_DIR!, "outbox");
}

/** Waits for the verification mail to an address and returns its link. */
export async function verificationLink(email: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const message = readOutbox(outboxDir()).findLast(
      (m) => m.to.includes(email) && /verify/i.test(m.subject),
    );
    const link = message?.links.find((l) => l.includes("/verify-email"));
    if (link) return link;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no verification mail for ${email}`);
}

export function uniqueEmail(prefix: string) {
  return `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
}

/** Signs up through the form, verifies from the outbox, and completes onboarding. */
export async function signUpAndOnboard(page: Page, opts: { email: string; name: string; username: string }) {
  await page.goto("/auth/signin?mode=signup");
  await page.getByLabel("Name").fill(opts.name);
  await page.getByLabel("Email").fill(opts.email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Check your email")).toBeVisible();
  await page.goto(await verificationLink(opts.email));
  await expect(page).toHaveURL(/\/onboarding/);
  await page.getByLabel("Full name").fill(opts.name);
  await page.getByLabel("Username").fill(opts.username);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page).toHaveURL(/\/dashboard/);
}

/** Saves the page at 1280 and 375 px, light and dark, when SCREENSHOT_DIR is set. */
export async function shots(page: Page, name: string) {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  for (const width of [1280, 375])
    for (const scheme of ["light", "dark"] as const) {
      await page.setViewportSize({ width, height: 900 });
      await useColorScheme(page, scheme);
      await page.screenshot({ path: join(dir, `${name}-${width}-${scheme}.png`), fullPage: true });
    }
  await page.setViewportSize({ width: 1280, height: 900 });
  await useColorScheme(page, "light");
}

/** No axe violations on the page, light and dark (toasts come and go: the page itself is checked). */
export async function noAxeViolations(page: Page) {
  for (const scheme of ["light", "dark"] as const) {
    await useColorScheme(page, scheme);
    const results = await new AxeBuilder({ page }).exclude("[data-sonner-toaster]").analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
  }
  await useColorScheme(page, "light");
}

/** Whether the page is wider than the window (something overflows sideways). */
export const overflows = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
