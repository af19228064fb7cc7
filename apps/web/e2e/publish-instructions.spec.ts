// The app tells a publisher how to publish from a terminal (issue 38): an empty project shows the
// CLI and curl commands with the server's URL and the project's owner/slug, and those commands,
// copied with their buttons and run in a shell, install the served CLI and push a release. The
// release and API-key pages show the PACKYARD_TOKEN examples; the integration guides show the
// real CI files and commands.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

const baseUrl = () => process.env.PACKYARD_E2E_URL!;

/** Clicks the copy button of the terminal line showing `command` and returns what it copied. */
async function copyLine(page: Page, command: string): Promise<string> {
  const line = page
    .locator("div.group")
    .filter({ has: page.locator("code").getByText(command, { exact: true }) })
    .first();
  await line.getByRole("button", { name: "Copy command" }).click();
  await expect(page.getByText("Copied to clipboard!").first()).toBeVisible();
  return page.evaluate(() => navigator.clipboard.readText());
}

test("an empty project shows how to publish, and the copied commands install the CLI and push a release", async ({
  page,
  context,
  consoleErrors: _,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const username = `pi-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("instructions"), name: "Ina Structions", username });
  const created = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: { slug: "widget", name: "Widget" },
  });
  expect(created.status()).toBe(201);

  await page.goto("/projects/widget");
  const card = page.getByTestId("publish-instructions");
  await expect(card.getByRole("heading", { name: "Your project is empty: publish like this" })).toBeVisible();
  const install = `curl -fsSL ${baseUrl()}/cli/install.sh | sh`;
  const push = `packyard push ${username}/widget 1.0.0 dist/*`;
  await expect(card.getByText(install, { exact: true })).toBeVisible();
  await expect(card.getByText(`packyard login --server ${baseUrl()}`, { exact: true })).toBeVisible();
  await expect(card.getByText(push, { exact: true })).toBeVisible();
  await expect(card.getByText("export PACKYARD_TOKEN=pky_…", { exact: true })).toBeVisible();
  await expect(
    card.getByText(
      `curl -fsS -T dist/widget_1.0.0_amd64.deb -H "Authorization: Bearer $PACKYARD_TOKEN" ${baseUrl()}/api/v1/projects/${username}/widget/releases/1.0.0/files/widget_1.0.0_amd64.deb`,
      { exact: true },
    ),
  ).toBeVisible();

  // What the buttons copy is what works: run it, as CI would (a key in PACKYARD_TOKEN, no login).
  const copiedInstall = await copyLine(page, install);
  expect(copiedInstall).toBe(install);
  const copiedPush = await copyLine(page, push);
  expect(copiedPush).toBe(push);
  const key = await page.request.post("/api/v1/keys", {
    headers: appOrigin(),
    data: { name: "instructions test", access: "publish", projects: ["widget"] },
  });
  expect(key.status()).toBe(201);
  const home = mkdtempSync(join(tmpdir(), "packyard-instructions-"));
  try {
    mkdirSync(join(home, "dist"));
    writeFileSync(join(home, "dist", "widget-1.0.0.tar.gz"), "widget archive");
    const env = {
      ...process.env,
      HOME: home,
      PATH: `${join(home, ".local", "bin")}:${process.env.PATH}`,
      PACKYARD_SERVER: baseUrl(),
      PACKYARD_TOKEN: (await key.json()).key.key,
      PACKYARD_NO_UPDATE_NOTICE: "1",
    };
    execFileSync("sh", ["-c", copiedInstall], { cwd: home, env, stdio: "pipe" });
    const output = execFileSync("sh", ["-c", copiedPush], { cwd: home, env, encoding: "utf8" });
    expect(output).toContain(`Created release ${username}/widget 1.0.0`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }

  // No longer empty: the release is there, and the instructions stay for the next version.
  await page.reload();
  await expect(page.getByTestId("latest-release")).toContainText("1.0.0");
  await expect(page.getByRole("heading", { name: "Publish a new version" })).toBeVisible();
  await expect(
    page.getByText(`packyard push ${username}/widget VERSION dist/*`, { exact: true }),
  ).toBeVisible();

  // The release page: adding files to this version, with the key in PACKYARD_TOKEN.
  await page.goto("/projects/widget/releases/1.0.0");
  await expect(page.getByText("widget-1.0.0.tar.gz").first()).toBeVisible();
  const release = page.getByTestId("publish-instructions");
  await expect(release.getByRole("heading", { name: "Add files from a terminal" })).toBeVisible();
  await expect(release.getByText(push, { exact: true })).toBeVisible();
  await expect(release.getByText("export PACKYARD_TOKEN=pky_…", { exact: true })).toBeVisible();
  await expect(page.getByText(/PACKYARD_KEY/)).toHaveCount(0);

  // API keys: how a key is used, and the new key's own example names PACKYARD_TOKEN.
  await page.goto("/api-keys");
  const use = page.getByTestId("use-a-key");
  await expect(use.getByText(`export PACKYARD_SERVER=${baseUrl()}`, { exact: true })).toBeVisible();
  await expect(use.getByText("export PACKYARD_TOKEN=pky_…", { exact: true })).toBeVisible();
  await expect(use.getByText(push, { exact: true })).toBeVisible();
  await page.getByLabel("Name").fill("Laptop");
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = await page.getByTestId("secret-value").textContent();
  const fresh = page.getByTestId("new-secret");
  await expect(fresh.getByText(`export PACKYARD_TOKEN=${secret}`, { exact: true })).toBeVisible();
  await expect(
    fresh.getByText(`curl -fsS -H "Authorization: Bearer $PACKYARD_TOKEN" ${baseUrl()}/api/v1/projects`, {
      exact: true,
    }),
  ).toBeVisible();
  await expect(page.getByText(/PACKYARD_KEY/)).toHaveCount(0);
});

test("the integration guides show the real CI files and commands for the user's project", async ({
  page,
  context,
  consoleErrors: _,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const username = `pg-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("guides"), name: "Gil Guide", username });
  const created = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: { slug: "tool", name: "Tool" },
  });
  expect(created.status()).toBe(201);

  await page.goto("/integrations/gitlab");
  await expect(page.getByRole("heading", { level: 1, name: "Publishing from GitLab CI" })).toBeVisible();
  await expect(page.getByTestId("ci-variables")).toContainText(`PACKYARD_SERVER${baseUrl()}`);
  const gitlab = page.getByTestId("ci-config-gitlab-ci");
  await expect(gitlab).toContainText(".gitlab-ci.yml");
  await expect(gitlab).toContainText('curl -fsSL "$PACKYARD_SERVER/cli/install.sh" | sh');
  await expect(gitlab).toContainText(`packyard push ${username}/tool "\${CI_COMMIT_TAG#v}" dist/*`);
  await gitlab.getByRole("button", { name: "Copy .gitlab-ci.yml" }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toContain("publish:packyard:");
  expect(copied).toContain(`packyard push ${username}/tool`);

  await page.goto("/integrations/github-releases");
  const github = page.getByTestId("ci-config-github-actions");
  await expect(github).toContainText(".github/workflows/packyard.yml");
  await expect(github).toContainText("id-token: write");
  await expect(github).toContainText(`~/.local/bin/packyard push ${username}/tool "\${TAG#v}" dist/*`);

  await page.goto("/integrations/nexus");
  await expect(page.getByText(`curl -fsSL ${baseUrl()}/cli/install.sh | sh`, { exact: true })).toBeVisible();
  await expect(page.getByText(`packyard push ${username}/tool 1.0.0 dist/*`, { exact: true })).toBeVisible();
});
