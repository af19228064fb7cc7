// Entitlement tokens in a real browser: on a Starter plan (set with the operator's command), create
// a customer's token with limits, see its secret once with the commands that set a machine up,
// download with it, find it in the list with its use, open its usage page (chart), disable it and
// rotate it; no axe violations, light and dark. SCREENSHOT_DIR: the pages are also saved there at
// 1280 and 375 px, light and dark, for people to look at.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail, useColorScheme } from "./support.ts";

/** Saves the page at both widths and both schemes when SCREENSHOT_DIR is set. */
async function shots(page: Page, name: string) {
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

async function noAxeViolations(page: Page) {
  for (const scheme of ["light", "dark"] as const) {
    await useColorScheme(page, scheme);
    const results = await new AxeBuilder({ page }).analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
  }
  await useColorScheme(page, "light");
}

test("create a customer's token, see its secret and setup commands once, download with it, watch its use, disable and rotate it", async ({
  page,
  consoleErrors: _,
}) => {
  const username = `seller-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("seller"), name: "Seller", username });
  const project = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: { slug: "agent", name: "Agent", visibility: "private" },
  });
  expect(project.status()).toBe(201);
  const put = await page.request.put("/api/v1/projects/agent/releases/2.1.0/files/agent-2.1.0.tar.gz", {
    headers: appOrigin(),
    data: Buffer.from("agent bytes"),
  });
  expect(put.status()).toBe(201);

  // Basic: the page says the plan has none, and where to get them.
  await page.goto("/projects/agent");
  await page.getByRole("link", { name: "Entitlements" }).click();
  await expect(page.getByRole("heading", { name: "Entitlement tokens", level: 1 })).toBeVisible();
  await expect(page.getByTestId("plan-note")).toContainText(
    "Your Basic plan does not include entitlement tokens.",
  );
  await shots(page, "entitlements-basic");

  // The operator moves the account to Starter (the same command an installation's operator runs).
  execFileSync(
    process.execPath,
    ["server/cli.ts", "users", "set-plan", "--username", username, "--plan", "starter"],
    { env: { ...process.env, DATA_DIR: process.env.PACKYARD_E2E_DATA_DIR! }, stdio: "pipe" },
  );
  await page.reload();
  await expect(page.getByText("No entitlement tokens yet")).toBeVisible();
  await noAxeViolations(page);
  await shots(page, "entitlements-empty");

  // The form checks before posting.
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByText("Name is required: the customer the token is for")).toBeVisible();
  await page.getByLabel("Customer").fill("Initech");
  await page.getByLabel("Note (optional)").fill("order 4711");
  await page.getByLabel("Version range (optional)").fill(">=2.0 <3.0");
  await page.getByLabel("Downloads (optional)").fill("100");
  await page.getByLabel("GB a month (optional)").fill("5");
  await page.getByLabel("APT suites (optional)").fill("stable");
  await page.getByRole("button", { name: "Create token" }).click();

  const secret = page.getByTestId("secret-value");
  await expect(secret).toHaveText(/^pke_[A-Za-z0-9]{40}$/);
  const token = (await secret.textContent())!;
  const origin = new URL(process.env.PACKYARD_E2E_URL!).origin;
  await expect(
    page.getByText(`curl -fsSL -u ${token}: ${origin}/dl/${username}/agent/setup.deb.sh | sudo bash`),
  ).toBeVisible();
  await noAxeViolations(page);
  await shots(page, "entitlements-created");

  // The customer downloads with it (as curl -u TOKEN: does).
  const download = await page.request.get(`/dl/${username}/agent/releases/2.1.0/agent-2.1.0.tar.gz`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${token}:`).toString("base64")}`,
      "user-agent": "curl/8.5.0",
    },
  });
  expect(download.status()).toBe(200);
  expect(await download.text()).toBe("agent bytes");

  await page.getByRole("button", { name: "Done" }).click();
  await page.reload();
  const card = page.getByTestId("entitlement");
  await expect(card).toContainText("Initech");
  await expect(card).toContainText("1 of 100");
  await expect(card).toContainText(">=2.0 <3.0");
  await shots(page, "entitlements-list");

  await card.getByRole("link", { name: "Usage" }).click();
  await expect(page.getByRole("heading", { name: "Initech", level: 1 })).toBeVisible();
  await expect(page.getByTestId("downloads-chart").locator("svg").first()).toBeVisible();
  await expect(page.getByTestId("entitlement-usage")).toContainText("11 B");
  await noAxeViolations(page);
  await shots(page, "entitlement-usage");

  await page.goBack();
  await card.getByRole("button", { name: "Disable" }).click();
  await expect(page.getByText("Token disabled")).toBeVisible();
  await expect(card).toContainText("Disabled");
  const refused = await page.request.get(`/dl/${username}/agent/releases/2.1.0/agent-2.1.0.tar.gz`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(refused.status()).toBe(401);
  await card.getByRole("button", { name: "Enable" }).click();
  await expect(card).toContainText("Active");

  await card.getByRole("button", { name: "Rotate" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Rotate secret" }).click();
  await expect(page.getByRole("heading", { name: "Initech's new secret" })).toBeVisible();
  await expect(secret).not.toHaveText(token);
  await expect(page.getByText(/The old secret keeps working until/)).toBeVisible();
  await shots(page, "entitlements-rotated");
});

test("an organization's token across chosen projects: created on its Entitlements tab, read with it, its usage page", async ({
  page,
  consoleErrors: _,
}) => {
  const username = `orgadmin-${Date.now().toString(36)}`;
  const slug = `acme-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("orgadmin"), name: "Org Admin", username });
  const org = await page.request.post("/api/v1/orgs", { headers: appOrigin(), data: { slug, name: "Acme" } });
  expect(org.status()).toBe(201);
  // Pro: an organization with two private projects and tokens for them.
  execFileSync(
    process.execPath,
    ["server/cli.ts", "users", "set-plan", "--username", slug, "--plan", "pro"],
    {
      env: { ...process.env, DATA_DIR: process.env.PACKYARD_E2E_DATA_DIR! },
      stdio: "pipe",
    },
  );
  for (const project of ["cli", "agent"]) {
    const created = await page.request.post("/api/v1/projects", {
      headers: appOrigin(),
      data: { slug: project, name: project, visibility: "private", owner: slug },
    });
    expect(created.status(), await created.text()).toBe(201);
    const put = await page.request.put(
      `/api/v1/projects/${slug}/${project}/releases/1.0.0/files/${project}.tar.gz`,
      {
        headers: appOrigin(),
        data: Buffer.from(`${project} bytes`),
      },
    );
    expect(put.status()).toBe(201);
  }

  await page.goto(`/orgs/${slug}`);
  await page.getByRole("link", { name: "Entitlements" }).click();
  await expect(page.getByText("No entitlement tokens yet")).toBeVisible();
  // A project must be chosen.
  await page.getByLabel("Customer").fill("Globex");
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByText("Choose at least one project")).toBeVisible();
  await page.getByRole("checkbox", { name: "cli" }).check();
  await page.getByRole("button", { name: "Create token" }).click();
  const secret = page.getByTestId("secret-value");
  await expect(secret).toHaveText(/^pke_[A-Za-z0-9]{40}$/);
  const token = (await secret.textContent())!;
  const origin = new URL(process.env.PACKYARD_E2E_URL!).origin;
  await expect(
    page.getByText(`curl -fsSL -u ${token}: ${origin}/dl/${slug}/cli/setup.deb.sh | sudo bash`),
  ).toBeVisible();
  await noAxeViolations(page);
  await shots(page, "org-entitlements-created");

  const basic = { authorization: `Basic ${Buffer.from(`${token}:`).toString("base64")}` };
  const cli = await page.request.get(`/dl/${slug}/cli/releases/1.0.0/cli.tar.gz`, { headers: basic });
  expect(await cli.text()).toBe("cli bytes");
  expect(
    (await page.request.get(`/dl/${slug}/agent/releases/1.0.0/agent.tar.gz`, { headers: basic })).status(),
  ).toBe(404);

  await page.getByRole("button", { name: "Done" }).click();
  await page.reload();
  const card = page.getByTestId("entitlement");
  await expect(card).toContainText("Globex");
  await expect(card).toContainText("1 (no limit)");
  await card.getByRole("link", { name: "Usage" }).click();
  await expect(page.getByRole("heading", { name: "Globex", level: 1 })).toBeVisible();
  await expect(page.getByTestId("entitlement-usage")).toContainText("9 B");
  await noAxeViolations(page);
  await shots(page, "org-entitlement-usage");
});
