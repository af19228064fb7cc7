import AxeBuilder from "@axe-core/playwright";
import { expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

test("the home page is server-rendered with the tagline in its title", async ({ page, consoleErrors: _ }) => {
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  await expect(page).toHaveTitle(/package management made simple/);
  await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", /\/$/);
});

test("an unknown URL shows 'Page Not Found' with a link home", async ({ page }) => {
  const response = await page.goto("/this/does/not/exist");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page Not Found" })).toBeVisible();
  await expect(page.getByText("Check the URL for typos")).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to Home page" })).toHaveAttribute("href", "/");
});

test("the progress bar shows during a slow navigation and hides at the end", async ({
  page,
  consoleErrors: _,
}) => {
  await signUpAndOnboard(page, {
    email: uniqueEmail("progress"),
    name: "Pro Gress",
    username: `progress-${Date.now().toString(36)}`,
  });
  // Hold the route data for a second so the navigation is slow.
  await page.route("**/profile.data*", async (route) => {
    await new Promise((r) => setTimeout(r, 2500));
    await route.continue();
  });
  const bar = page.getByTestId("navigation-progress");
  await expect(bar).toHaveCount(0);
  await page.getByRole("link", { name: "Profile" }).first().click();
  await expect(bar).toBeVisible();
  const first = Number(await bar.getAttribute("aria-valuenow"));
  expect(first).toBeGreaterThanOrEqual(10);
  await expect
    .poll(async () => Number(await bar.getAttribute("aria-valuenow")), { timeout: 1500 })
    .toBeGreaterThan(first);
  // While it shows, the page has no content outside its landmarks (axe's "region").
  const axe = await new AxeBuilder({ page }).withRules(["region"]).analyze();
  expect(axe.violations.map((v) => v.nodes.map((n) => n.target.join(" ")).join(", "))).toEqual([]);
  await expect(bar).toBeVisible();
  await expect(page.getByRole("heading", { name: "Profile", exact: true })).toBeVisible();
  await expect(bar).toHaveCount(0);
});

test("a toast appears at the top centre", async ({ page, consoleErrors: _ }) => {
  await signUpAndOnboard(page, {
    email: uniqueEmail("toast"),
    name: "Toast Test",
    username: `toast-${Date.now().toString(36)}`,
  });
  const toast = page.locator("[data-sonner-toast]").filter({ hasText: "Welcome to Packyard, Toast Test!" });
  await expect(toast).toBeVisible();
  const toaster = page.locator("[data-sonner-toaster]");
  await expect(toaster).toHaveAttribute("data-y-position", "top");
  await expect(toaster).toHaveAttribute("data-x-position", "center");
  const box = (await toast.boundingBox())!;
  const viewport = page.viewportSize()!;
  expect(Math.abs(box.x + box.width / 2 - viewport.width / 2)).toBeLessThan(4);
  expect(box.y).toBeLessThan(viewport.height / 4);
});

test("the dashboard works at 375 px wide with a menu", async ({ page, consoleErrors: _ }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await signUpAndOnboard(page, {
    email: uniqueEmail("mobile"),
    name: "Mo Bile",
    username: `mobile-${Date.now().toString(36)}`,
  });
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth).toBeLessThanOrEqual(375);
  await page.getByRole("button", { name: "Open menu" }).click();
  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page).toHaveURL(/\/api-keys$/);
  await expect(page.getByRole("heading", { name: "API keys", exact: true })).toBeVisible();
});
