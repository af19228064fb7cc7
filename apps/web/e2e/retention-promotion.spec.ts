// Retention and promotion in a real browser (decisions 034 and 035): the retention section of a
// project's settings previews what its rules would delete (a table), then saves them; the
// Promote dialog moves a release's .deb from testing to stable. By default the rules neither count
// yanked releases nor delete the latest release, and the preview warns when they would (decision
// 064). The views pass axe at 1280 px
// dark and 375 px light. With PACKYARD_SHOTS_DIR set, screenshots of both at 1280 and 375 px,
// light and dark, are written there.
import AxeBuilder from "@axe-core/playwright";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import type { Browser, Page } from "@playwright/test";
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

const SHOTS = process.env.PACKYARD_SHOTS_DIR;
const VIEWS = [
  { width: 1280, height: 900, colorScheme: "dark", axe: true },
  { width: 375, height: 800, colorScheme: "light", axe: true },
  { width: 1280, height: 900, colorScheme: "light", axe: false },
  { width: 375, height: 800, colorScheme: "dark", axe: false },
] as const;

const deb = buildTestDeb({
  control:
    "Package: lantern\nVersion: 1.0.0\nArchitecture: all\nMaintainer: Packyard Tests <tests@example.com>\nDescription: lantern\n A lamp.\n",
});

/** Opens the view at each size and scheme, checks it with axe, and saves a screenshot when asked. */
async function checkViews(
  browser: Browser,
  storage: string,
  name: string,
  open: (page: Page) => Promise<void>,
) {
  const failures: string[] = [];
  for (const view of VIEWS) {
    if (!view.axe && !SHOTS) continue;
    const context = await browser.newContext({
      baseURL: process.env.PACKYARD_E2E_URL,
      viewport: { width: view.width, height: view.height },
      colorScheme: view.colorScheme,
      storageState: JSON.parse(storage),
    });
    const page = await context.newPage();
    await open(page);
    const results = view.axe ? await new AxeBuilder({ page }).analyze() : { violations: [] };
    for (const v of results.violations)
      failures.push(
        `${name} ${view.width}px ${view.colorScheme}: ${v.id} ${v.help} ${v.nodes[0]?.target.join(" ")}`,
      );
    if (SHOTS)
      await page.screenshot({
        path: `${SHOTS}/${name}-${view.width}-${view.colorScheme}.png`,
        fullPage: true,
      });
    await context.close();
  }
  expect(failures, "axe violations").toEqual([]);
}

test("retention preview in settings, and promoting a release from testing to stable", async ({
  page,
  browser,
  consoleErrors: _,
}) => {
  test.setTimeout(120_000);
  const username = `cur-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("curator"), name: "Cora Curator", username });
  const created = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: { slug: "lantern", name: "Lantern" },
  });
  expect(created.status()).toBe(201);
  const upload = await page.request.put(
    "/api/v1/projects/lantern/releases/1.0.0/files/lantern_1.0.0_all.deb?distribution=testing",
    { headers: appOrigin(), data: Buffer.from(deb) },
  );
  expect(upload.status()).toBe(201);
  for (const version of ["1.1.0", "2.0.0", "2.1.0"]) {
    const release = await page.request.post("/api/v1/projects/lantern/releases", {
      headers: appOrigin(),
      data: { version },
    });
    expect(release.status()).toBe(201);
  }
  const storage = JSON.stringify(await page.context().storageState());

  // Retention: a preview of the rules as typed; nothing is deleted.
  const preview = async (p: Page) => {
    await p.goto("/projects/lantern/settings");
    const rules = p.getByRole("form", { name: "Retention rules" });
    await rules.getByLabel("Keep the newest releases").fill("2");
    await rules.getByLabel("Also keep the newest release of each major version").check();
    await rules.getByRole("button", { name: "Preview" }).click();
    await expect(p.getByRole("heading", { name: "1 of 4 releases would be deleted." })).toBeVisible();
  };
  await preview(page);
  const table = page.getByRole("table", { name: "Releases, newest first, and what the rules do with each" });
  await expect(table.getByRole("row", { name: /1\.1\.0.*Kept: newest of its major version/ })).toBeVisible();
  await expect(table.getByRole("row", { name: /1\.0\.0.*Deleted/ })).toBeVisible();
  // Container image tags: a number or nothing; a word is refused under the field.
  const tagsField = page
    .getByRole("form", { name: "Retention rules" })
    .getByLabel("Keep the newest tags of each container image");
  await tagsField.fill("a few");
  await page.getByRole("button", { name: "Save retention rules" }).click();
  await expect(page.getByText("Keep must be a whole number of tags from 1 to 10000, or none")).toBeVisible();
  await tagsField.fill("20");
  await page.getByRole("button", { name: "Save retention rules" }).click();
  await expect(page.getByText("Retention rules saved (off: nothing is deleted)")).toBeVisible();
  await page.reload();
  await expect(
    page
      .getByRole("form", { name: "Retention rules" })
      .getByLabel("Keep the newest tags of each container image"),
  ).toHaveValue("20");
  await checkViews(browser, storage, "retention-settings", preview);

  // Promote 1.0.0 from testing to stable.
  const openDialog = async (p: Page) => {
    await p.goto("/projects/lantern/releases/1.0.0");
    await p.getByRole("button", { name: "Promote" }).click();
    await expect(p.getByRole("dialog", { name: "Promote 1.0.0" })).toBeVisible();
  };
  await openDialog(page);
  const dialog = page.getByRole("dialog", { name: "Promote 1.0.0" });
  await expect(dialog.getByText("APT testing/main")).toBeVisible();
  await checkViews(browser, storage, "promote-dialog", openDialog);
  await dialog.getByLabel("APT distribution").fill("stable");
  await dialog.getByRole("button", { name: "Promote" }).click();
  await expect(page.getByText("Promoted 1.0.0: now in stable/main")).toBeVisible();
  await expect(dialog).toBeHidden();
  const packages = await page.request.get(
    `/dl/${username}/lantern/deb/dists/stable/main/binary-amd64/Packages`,
  );
  expect(await packages.text()).toContain("Package: lantern");
});

test("retention keeps the latest release by default, and the preview warns when the rules would delete it", async ({
  page,
  browser,
  consoleErrors: _,
}) => {
  test.setTimeout(120_000);
  await signUpAndOnboard(page, {
    email: uniqueEmail("keeper"),
    name: "Kit Keeper",
    username: `kee-${Date.now().toString(36)}`,
  });
  expect(
    (
      await page.request.post("/api/v1/projects", {
        headers: appOrigin(),
        data: { slug: "beacon", name: "Beacon" },
      })
    ).status(),
  ).toBe(201);
  for (const version of ["1.0", "1.1", "1.2-rc"]) {
    const release = await page.request.post("/api/v1/projects/beacon/releases", {
      headers: appOrigin(),
      data: { version },
    });
    expect(release.status()).toBe(201);
  }
  const yank = await page.request.post("/api/v1/projects/beacon/releases/1.2-rc/yank", {
    headers: appOrigin(),
    data: { reason: "broken" },
  });
  expect(yank.status()).toBe(200);
  const storage = JSON.stringify(await page.context().storageState());

  await page.goto("/projects/beacon/settings");
  const rules = page.getByRole("form", { name: "Retention rules" });
  await expect(rules.getByLabel("Yanked releases count toward the number kept")).not.toBeChecked();
  await expect(rules.getByLabel("May delete the latest release")).not.toBeChecked();
  const table = page.getByRole("table", { name: "Releases, newest first, and what the rules do with each" });

  // Keep 1 with the defaults: the yanked 1.2-rc takes no place, so 1.1 (the latest) is the one kept.
  await rules.getByLabel("Keep the newest releases").fill("1");
  await rules.getByRole("button", { name: "Preview" }).click();
  await expect(page.getByRole("heading", { name: "1 of 3 releases would be deleted." })).toBeVisible();
  await expect(table.getByRole("row", { name: /1\.1.*Kept: one of the newest 1/ })).toBeVisible();

  // Counting yanked releases, 1.2-rc takes the place; 1.1 still stays, as the latest.
  await rules.getByLabel("Yanked releases count toward the number kept").check();
  await rules.getByRole("button", { name: "Preview" }).click();
  await expect(table.getByRole("row", { name: /1\.1.*Kept: the latest release/ })).toBeVisible();
  await expect(page.getByRole("alert")).toHaveCount(0);

  // Allowed to delete it, the preview says what `latest` becomes.
  const warned = async (p: Page) => {
    const form = p.getByRole("form", { name: "Retention rules" });
    await form.getByLabel("Keep the newest releases").fill("1");
    await form.getByLabel("Yanked releases count toward the number kept").check();
    await form.getByLabel("May delete the latest release").check();
    await form.getByRole("button", { name: "Preview" }).click();
    await expect(p.getByRole("heading", { name: "2 of 3 releases would be deleted." })).toBeVisible();
    await expect(p.getByRole("alert")).toHaveText(
      "These rules delete 1.1, the latest release; no release would then be latest.",
    );
  };
  await warned(page);
  await expect(table.getByRole("row", { name: /1\.1.*Deleted/ })).toBeVisible();
  await checkViews(browser, storage, "retention-latest-warning", async (p) => {
    await p.goto("/projects/beacon/settings");
    await warned(p);
  });
});
