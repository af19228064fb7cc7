// The small things a new user trips over (issue 38, defect 7), in a real browser against the
// production build: the organization slug's own messages and autofill, "1 download", the verify
// block's copy button at 375 px, the yanked version's contrast, the password's minimum length,
// the project tabs at 375 px, the New project dialog's footer in a 1280×800 window and the
// overview's apt-get install line.
import AxeBuilder from "@axe-core/playwright";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail, useColorScheme } from "./support.ts";

const username = `newbie-${Date.now().toString(36)}`;
let storageState: Awaited<ReturnType<BrowserContext["storageState"]>>;

function deb(version: string): Buffer {
  return Buffer.from(
    buildTestDeb({
      control: `Package: gizmo\nVersion: ${version}\nArchitecture: amd64\nMaintainer: T <t@example.com>\nDescription: gizmo\n A gizmo.\n`,
    }),
  );
}

test.beforeAll(async ({ browser }) => {
  if (process.env.PACKYARD_E2E_SKIP) return;
  const context = await browser.newContext({ baseURL: process.env.PACKYARD_E2E_URL });
  const page = await context.newPage();
  await signUpAndOnboard(page, { email: uniqueEmail("newbie"), name: "Nia Newbie", username });
  const headers = appOrigin();
  const created = await page.request.post("/api/v1/projects", {
    headers,
    data: { slug: "gizmo", name: "Gizmo", visibility: "public" },
  });
  expect(created.status()).toBe(201);
  for (const version of ["1.0.0", "1.1.0", "1.2.0"]) {
    const release = await page.request.post("/api/v1/projects/gizmo/releases", {
      headers,
      data: { version },
    });
    expect(release.status()).toBe(201);
    const put = await page.request.put(
      `/api/v1/projects/gizmo/releases/${version}/files/gizmo_${version}_amd64.deb`,
      { headers, data: deb(version) },
    );
    expect(put.status()).toBe(201);
  }
  const yank = await page.request.post("/api/v1/projects/gizmo/releases/1.1.0/yank", {
    headers,
    data: { reason: "Broken build" },
  });
  expect(yank.status()).toBe(200);
  // One download of the latest file.
  expect(
    (await page.request.get(`/dl/${username}/gizmo/releases/1.2.0/gizmo_1.2.0_amd64.deb`)).status(),
  ).toBe(200);
  storageState = await context.storageState();
  await context.close();
});

async function signedIn(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ baseURL: process.env.PACKYARD_E2E_URL, storageState, viewport });
  return context.newPage();
}

test("the organization slug has its own messages and follows the name until edited", async ({ browser }) => {
  const page = await signedIn(browser, { width: 1280, height: 800 });
  await page.goto("/orgs/new");
  const name = page.getByLabel("Name");
  const slug = page.getByLabel("Slug");
  await name.fill("Acme Corp");
  await expect(slug).toHaveValue("acme-corp");
  await slug.fill("ab");
  await name.fill("Acme Corporation");
  await expect(slug).toHaveValue("ab");
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page.getByText("Slug must be at least 3 characters")).toBeVisible();
  await expect(page.getByText("Username must be at least 3 characters")).toHaveCount(0);
  await slug.fill("acme corp");
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(
    page.getByText("Slug can only contain letters, numbers, underscores, and hyphens"),
  ).toBeVisible();
  await page.context().close();
});

test("the release's file list says 1 download, not 1 downloads, at 375 px", async ({ browser }) => {
  const page = await signedIn(browser, { width: 375, height: 740 });
  // Downloads are counted in batches: the page shows the count once the batch is written.
  await expect(async () => {
    await page.goto("/projects/gizmo/releases/1.2.0");
    await expect(page.getByTestId("file-row").getByText(/^1 downloads?$/)).toBeVisible({ timeout: 1000 });
  }).toPass();
  await expect(page.getByTestId("file-row").getByText(/^1 downloads?$/)).toHaveText("1 download");
  await page.goto(`/releases/${username}/gizmo/1.2.0`);
  const publicRow = page.getByTestId("release-file").filter({ hasText: "gizmo_1.2.0_amd64.deb" });
  await expect(publicRow.getByText(/^1 downloads?$/)).toHaveText("1 download");
  await page.context().close();
});

test("the verify block's copy button sits beside the commands at 375 px, not over them", async ({
  browser,
}) => {
  const page = await signedIn(browser, { width: 375, height: 740 });
  await page.goto(`/releases/${username}/gizmo/1.2.0`);
  const block = page.getByTestId("verify-downloads");
  const listing = block.locator("pre");
  const copy = block.getByRole("button", { name: "Copy the verify commands" });
  await listing.scrollIntoViewIfNeeded();
  const pre = (await listing.boundingBox())!;
  const button = (await copy.boundingBox())!;
  expect(button.x).toBeGreaterThanOrEqual(pre.x + pre.width - 0.5);
  await page.context().close();
});

test("a yanked version in the versions list has a contrast of at least 4.5:1, light and dark", async ({
  browser,
}) => {
  const page = await signedIn(browser, { width: 1280, height: 800 });
  await page.goto(`/releases/${username}/gizmo/1.2.0`);
  const versions = page.getByRole("navigation", { name: "Versions" });
  await expect(versions.getByText("1.1.0", { exact: true })).toBeVisible();
  for (const scheme of ["light", "dark"] as const) {
    await useColorScheme(page, scheme);
    const results = await new AxeBuilder({ page })
      .include('nav[aria-labelledby="versions-heading"]')
      .withRules(["color-contrast"])
      .analyze();
    const failures = results.violations.flatMap((v) => v.nodes.map((n) => `${scheme}: ${n.failureSummary}`));
    expect(failures).toEqual([]);
  }
  await page.context().close();
});

test("sign-up states the minimum password length", async ({ page }) => {
  await page.goto("/auth/signin?mode=signup");
  await expect(page.getByText("At least 10 characters.")).toBeVisible();
  await page.getByLabel("Name").fill("Shorty");
  await page.getByLabel("Email").fill(uniqueEmail("shorty"));
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Password must be at least 10 characters")).toBeVisible();
});

test("the project tabs at 375 px show that more follow, and Settings can be reached", async ({ browser }) => {
  const page = await signedIn(browser, { width: 375, height: 740 });
  await page.goto("/projects/gizmo");
  const tabs = page.getByRole("navigation", { name: "Project" });
  const settings = tabs.getByRole("link", { name: "Settings" });
  await expect(settings).not.toBeInViewport();
  const more = page.getByTestId("tabs-more-right");
  await expect(more).toBeVisible();
  // The arrow scrolls the row until the last tab is in view, then goes away.
  await expect(async () => {
    if (await more.isVisible()) await more.click({ timeout: 1000 });
    // The row clips the tab's last pixel row (its underline overlaps the row's border).
    await expect(settings).toBeInViewport({ ratio: 0.9, timeout: 1000 });
  }).toPass();
  await expect(more).toBeHidden();
  await expect(page.getByTestId("tabs-more-left")).toBeVisible();
  await settings.click();
  await expect(page).toHaveURL(/\/projects\/gizmo\/settings$/);
  await page.context().close();
});

test("the New project dialog keeps its buttons in view in a 1280×800 window", async ({ browser }) => {
  const page = await signedIn(browser, { width: 1280, height: 800 });
  await page.goto("/projects");
  await page.getByRole("button", { name: "New project" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New project" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Create project" })).toBeInViewport({ ratio: 1 });
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeInViewport({ ratio: 1 });
  // The fields scroll between the header and the footer; the last one is reachable.
  await dialog.getByLabel("License").scrollIntoViewIfNeeded();
  await expect(dialog.getByLabel("License")).toBeInViewport();
  await expect(dialog.getByRole("button", { name: "Create project" })).toBeInViewport({ ratio: 1 });
  await page.context().close();
});

test("the project overview's apt tab has the apt-get install line of the public page", async ({
  browser,
}) => {
  const page = await signedIn(browser, { width: 1280, height: 800 });
  await page.goto(`/releases/${username}/gizmo/1.2.0`);
  await expect(page.getByTestId("repository-setup")).toContainText("sudo apt-get install gizmo");
  await page.goto("/projects/gizmo");
  const setup = page.getByTestId("repository-setup");
  await expect(setup).toContainText(`setup.deb.sh | sudo bash`);
  await expect(setup).toContainText("sudo apt-get install gizmo");
  await page.context().close();
});
