// The public site in a real browser against the production build: /compare/ redirects on the
// server and in the browser with its history entry replaced; the header's menu at 375 px; the
// not-found page with one <title>; the home page's copy buttons, and its islands (decision 054):
// hydrated without React Router, within 100 KB of JavaScript; /favicon.ico.
import type { Page } from "@playwright/test";
import { expect, test } from "./support.ts";

/** Waits until the page is interactive: React Router hydrated it, or every island of it. */
const hydrated = (page: Page) =>
  page.waitForFunction(
    () =>
      Boolean((window as { __reactRouterDataRouter?: unknown }).__reactRouterDataRouter) ||
      document.documentElement.hasAttribute("data-islands-hydrated"),
  );

test("/compare/ redirects on the server to /compare/github-releases", async ({ request }) => {
  for (const path of ["/compare/", "/compare"]) {
    const response = await request.get(path, { maxRedirects: 0 });
    expect(response.status()).toBe(302);
    expect(response.headers().location).toBe("/compare/github-releases");
  }
});

test("a browser opening /compare/ lands on the GitHub Releases comparison", async ({
  page,
  consoleErrors: _,
}) => {
  await page.goto("/compare/");
  await expect(page).toHaveURL(/\/compare\/github-releases$/);
  await expect(page.getByRole("heading", { level: 1, name: "Packyard and GitHub Releases" })).toBeVisible();
});

test("navigating to /compare/ in the app replaces it with the comparison: Back returns to the page before", async ({
  page,
  consoleErrors: _,
}) => {
  await page.goto("/features");
  await hydrated(page);
  const before = await page.evaluate(() => history.length);
  await page.evaluate(() =>
    (
      window as unknown as { __reactRouterDataRouter: { navigate(to: string): Promise<void> } }
    ).__reactRouterDataRouter.navigate("/compare/"),
  );
  await expect(page).toHaveURL(/\/compare\/github-releases$/);
  await expect(page.getByRole("heading", { level: 1, name: "Packyard and GitHub Releases" })).toBeVisible();
  // One new entry — the comparison — and none for /compare/ itself.
  expect(await page.evaluate(() => history.length)).toBe(before + 1);
  await page.goBack();
  await expect(page).toHaveURL(/\/features$/);
  await expect(page.getByRole("heading", { level: 1, name: "Everything Packyard does today" })).toBeVisible();
});

test("the header's links lead to every section, and the footer to every public page", async ({
  page,
  consoleErrors: _,
}) => {
  await page.goto("/");
  await hydrated(page);
  const main = page.getByRole("navigation", { name: "Main", exact: true });
  await main.getByRole("link", { name: "Compare" }).click();
  await expect(page).toHaveURL(/\/compare\/github-releases$/);
  await expect(main.getByRole("link", { name: "Compare" })).toHaveAttribute("aria-current", "page");
  await page
    .getByRole("navigation", { name: "Comparisons" })
    .getByRole("link", { name: "vs GitLab" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Packyard and GitLab" })).toBeVisible();
  await page
    .getByRole("navigation", { name: "Company" })
    .getByRole("link", { name: "Privacy Policy" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Privacy Policy" })).toBeVisible();
  await expect(page.getByText("Last updated: December 7, 2026")).toBeVisible();
});

test("at 375 px the header opens a menu, and no public page scrolls sideways", async ({
  page,
  consoleErrors: _,
}) => {
  await page.setViewportSize({ width: 375, height: 800 });
  for (const path of ["/", "/features", "/contact", "/compare/jfrog-artifactory", "/legal/terms", "/nope"]) {
    await page.goto(path);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(375);
  }
  await page.goto("/");
  await hydrated(page);
  await expect(page.getByRole("navigation", { name: "Main menu" })).toBeHidden();
  await page.getByRole("button", { name: "Open menu" }).click();
  const menu = page.getByRole("navigation", { name: "Main menu" });
  await expect(menu).toBeVisible();
  await expect(menu.getByRole("link", { name: "Sign in" })).toBeVisible();
  await menu.getByRole("link", { name: "Features" }).click();
  await expect(page).toHaveURL(/\/features$/);
  await expect(page.getByRole("heading", { level: 1, name: "Everything Packyard does today" })).toBeVisible();
  // The menu closes once the page changed.
  await expect(page.getByRole("navigation", { name: "Main menu" })).toBeHidden();
  await expect(page.getByRole("button", { name: "Open menu" })).toHaveAttribute("aria-expanded", "false");
});

test("an unknown URL shows the not-found page in the site's frame, with exactly one <title>", async ({
  page,
}) => {
  const response = await page.goto("/this/page/does/not/exist");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Page Not Found" })).toBeVisible();
  await hydrated(page);
  expect(await page.locator("title").count()).toBe(1);
  await expect(page).toHaveTitle("Page Not Found · Packyard");
  await expect(page.getByRole("navigation", { name: "Main", exact: true })).toBeVisible();
  await expect(page.getByRole("contentinfo")).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to Home page" })).toHaveAttribute("href", "/");
});

test("the home page's install lines copy to the clipboard with the spec's toast", async ({
  page,
  context,
  consoleErrors: _,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/");
  await hydrated(page);
  await page.getByRole("button", { name: "Copy the APT setup command" }).click();
  await expect(page.getByText("Copied to clipboard!")).toBeVisible();
  const origin = new URL(page.url()).origin;
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
    `curl -fsSL ${origin}/dl/you/widget/setup.deb.sh | sudo bash`,
  );
  await page.getByRole("tab", { name: "Fedora, RHEL, Rocky" }).click();
  await page.getByRole("button", { name: "Copy the dnf install command" }).click();
  await expect
    .poll(() => page.evaluate(() => navigator.clipboard.readText()))
    .toBe("sudo dnf install widget");
});

test("/favicon.ico answers 200 with an icon", async ({ request }) => {
  const response = await request.get("/favicon.ico");
  expect(response.status()).toBe(200);
  expect([...(await response.body()).subarray(0, 4)]).toEqual([0, 0, 1, 0]);
});

test("the home page hydrates its islands without React Router, within 100 KB of JavaScript", async ({
  page,
  consoleErrors: _,
}) => {
  const scripts: Promise<{ url: string; bytes: number }>[] = [];
  page.on("requestfinished", (request) => {
    if (request.resourceType() !== "script") return;
    scripts.push(
      request.sizes().then((sizes) => ({
        url: request.url(),
        bytes: sizes.responseBodySize + sizes.responseHeadersSize,
      })),
    );
  });
  await page.goto("/");
  await hydrated(page);
  await page.waitForLoadState("networkidle");
  const loaded = await Promise.all(scripts);
  // React, the islands' shared chunk, the islands entry and Rolldown's runtime: the islands are
  // one chunk (islandsChunkGroup in islands-plugin.ts), not twenty small ones.
  expect(loaded.length).toBeGreaterThan(0);
  expect(loaded.length).toBeLessThanOrEqual(5);
  // React Router's runtime stays on the server: no router chunk, no data router.
  expect(loaded.map((script) => new URL(script.url).pathname)).not.toContainEqual(
    expect.stringMatching(/\/router-[\w-]+\.js$/),
  );
  expect(await page.evaluate(() => "__reactRouterDataRouter" in window)).toBe(false);
  // Issue 16, target 5: what / loads, as sent (Brotli, with each answer's headers), at most 100 KB.
  const total = loaded.reduce((sum, script) => sum + script.bytes, 0);
  expect(total).toBeLessThanOrEqual(100 * 1024);

  // The islands work: the tabs switch, the menu opens at 375 px.
  await page.getByRole("tab", { name: "Fedora, RHEL, Rocky" }).click();
  await expect(page.getByRole("button", { name: "Copy the DNF setup command" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Copy the APT setup command" })).toBeHidden();
  await page.setViewportSize({ width: 375, height: 800 });
  await page.getByRole("button", { name: "Open menu" }).click();
  await expect(page.getByRole("navigation", { name: "Main menu" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Close menu" })).toHaveAttribute("aria-expanded", "true");
});

test("a client-side navigation to / renders the home page as any other page, tabs and all", async ({
  page,
  consoleErrors: _,
}) => {
  await page.goto("/pricing");
  await hydrated(page);
  await page.getByRole("link", { name: "Packyard home" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: /Ship \.deb and \.rpm packages/ })).toBeVisible();
  // Still the app React Router hydrated on /pricing: no islands document was loaded.
  expect(await page.evaluate(() => document.documentElement.hasAttribute("data-islands-hydrated"))).toBe(
    false,
  );
  expect(await page.locator("[data-island]").count()).toBe(0);
  await page.getByRole("tab", { name: "Fedora, RHEL, Rocky" }).click();
  await expect(page.getByRole("button", { name: "Copy the dnf install command" })).toBeVisible();
  await page.getByRole("link", { name: "Features" }).first().click();
  await expect(page).toHaveURL(/\/features$/);
});
