// The not-found and error views keep the site's look in every path — rendered by the server,
// reached by a client-side navigation, and after an action that throws — and show a signed-in
// user the signed-in variant: the header's Dashboard link and "Go to Dashboard" (spec §2).
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Page } from "@playwright/test";
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

type Cookies = Parameters<ReturnType<Page["context"]>["addCookies"]>[0];
let cookies: Cookies = [];

test.beforeAll(async ({ browser }) => {
  if (process.env.PACKYARD_E2E_SKIP) return;
  const context = await browser.newContext({ baseURL: process.env.PACKYARD_E2E_URL });
  const page = await context.newPage();
  const username = `status-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("status"), name: "Stella Status", username });
  cookies = await context.cookies();
  await context.close();
});

test.beforeEach(async ({ page }) => {
  await page.context().addCookies(cookies);
});

async function createProject(page: Page, slug: string) {
  const res = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: { slug, name: slug, visibility: "public" },
  });
  expect(res.status()).toBe(201);
}

/** The view is in the site's frame with its styles. */
async function expectStyled(page: Page) {
  // Unstyled, the logo's SVG is as wide as the page and the footer's lists have bullets.
  const logo = await page.getByRole("banner").locator("svg").first().boundingBox();
  expect(logo?.height).toBeLessThanOrEqual(32);
  await expect(page.getByRole("contentinfo").locator("ul").first()).toHaveCSS("list-style-type", "none");
  await expect(page.getByRole("main").getByRole("link", { name: /^Go to / })).toHaveCSS(
    "padding-left",
    "16px",
  );
}

/** ... in the signed-in variant: the header's Dashboard link and "Go to Dashboard". */
async function expectStyledSignedIn(page: Page) {
  await expectStyled(page);
  await expect(page.getByRole("link", { name: "Go to Dashboard" })).toBeVisible();
  await expect(page.getByRole("banner").getByRole("link", { name: "Dashboard", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "Get started" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Go to Home page" })).toHaveCount(0);
}

/** Marks the document, so that a test can tell a client-side navigation from a page load. */
async function markDocument(page: Page) {
  await page.evaluate(() => {
    (window as unknown as { sameDocument: boolean }).sameDocument = true;
  });
}
const sameDocument = (page: Page) =>
  page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true);

test("a not-found project reached client-side keeps the site's styles and the signed-in variant", async ({
  page,
}) => {
  await createProject(page, "ghost");
  await page.goto("/projects");
  const link = page.getByRole("link", { name: "ghost", exact: true });
  await expect(link).toBeVisible();
  await markDocument(page);
  // Deleted elsewhere (another tab, the CLI) while this list was open.
  const deleted = await page.request.delete("/api/v1/projects/ghost", {
    headers: { ...appOrigin(), "content-type": "application/json" },
  });
  expect(deleted.status()).toBe(204);
  await link.click();

  await expect(page).toHaveURL(/\/projects\/ghost$/);
  await expect(page.getByRole("heading", { name: "Page Not Found" })).toBeVisible();
  expect(await sameDocument(page)).toBe(true);
  await expectStyledSignedIn(page);

  // Back in history and forward again: still the site's look.
  await page.goBack();
  await expect(page.getByRole("heading", { name: "Projects", exact: true })).toBeVisible();
  await page.goForward();
  await expect(page.getByRole("heading", { name: "Page Not Found" })).toBeVisible();
  expect(await sameDocument(page)).toBe(true);
  await expectStyledSignedIn(page);
});

test("the server-rendered not-found page shows a signed-in user the signed-in variant", async ({ page }) => {
  const res = await page.goto("/projects/does-not-exist");
  expect(res?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page Not Found" })).toBeVisible();
  await expectStyledSignedIn(page);
});

test("an action that throws shows the error view with the site's styles", async ({ page, consoleErrors }) => {
  await createProject(page, "brittle");
  await page.goto("/projects/brittle");
  await page.getByRole("button", { name: "Edit project" }).click();
  await markDocument(page);
  // The database fails under the action: its project table is gone until the test puts it back.
  const database = new DatabaseSync(join(process.env.PACKYARD_E2E_DATA_DIR!, "packyard.sqlite"));
  database.exec("ALTER TABLE project RENAME TO project_unavailable");
  try {
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByRole("heading", { name: "Oops!" })).toBeVisible();
  } finally {
    database.exec("ALTER TABLE project_unavailable RENAME TO project");
    database.close();
  }
  await expect(page.getByText("Something went wrong. Please try again later.")).toBeVisible();
  expect(await sameDocument(page)).toBe(true);
  await expectStyledSignedIn(page);
  // The failed request and the error the view logs are the console's only errors; a request the
  // error view made obsolete may be cancelled first ("signal is aborted"), depending on timing.
  expect(
    consoleErrors.filter((text) => !/status of 500|Unexpected Server Error|signal is aborted/.test(text)),
  ).toEqual([]);
  consoleErrors.length = 0;
});

test("root's own error view keeps the site's styles after a client-side navigation", async ({
  page,
  consoleErrors,
}) => {
  await page.goto("/releases");
  await markDocument(page);
  // The session cannot be read: root's loader fails as the search navigates (new search
  // parameters run every loader again), so root's error boundary replaces the whole document.
  const database = new DatabaseSync(join(process.env.PACKYARD_E2E_DATA_DIR!, "packyard.sqlite"));
  database.exec("ALTER TABLE session RENAME TO session_unavailable");
  try {
    await page.getByRole("searchbox", { name: "Search public projects" }).fill("anything");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Oops!" })).toBeVisible();
  } finally {
    database.exec("ALTER TABLE session_unavailable RENAME TO session");
    database.close();
  }
  expect(await sameDocument(page)).toBe(true);
  // Who is signed in is what root's loader could not read: the view is the signed-out one.
  await expectStyled(page);
  expect(consoleErrors.every((text) => /status of 500|Unexpected Server Error/.test(text))).toBe(true);
  consoleErrors.length = 0;
});
