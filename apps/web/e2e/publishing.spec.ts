// Publishing from the dashboard, in a real browser against the production build: create a
// project and a release, upload two files at once with a progress bar each, check sizes and
// checksums, download one, and yank the release.
import { createHash } from "node:crypto";
import { expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

function bytes(size: number, seed: number): Buffer {
  const buffer = Buffer.alloc(size);
  for (let i = 0; i < size; i++) buffer[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return buffer;
}

const sha256 = (buffer: Buffer) => createHash("sha256").update(buffer).digest("hex");

test("create a project and a release, upload two files at once, download one, and yank the release", async ({
  page,
  context,
  consoleErrors: _,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const username = `pub-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("publisher"), name: "Pat Publisher", username });

  // A new project, from the dialog on /projects. The slug follows the name.
  await page
    .getByRole("navigation", { name: "Dashboard" })
    .first()
    .getByRole("link", { name: "Projects" })
    .click();
  await expect(page.getByText("You have no projects yet")).toBeVisible();
  await page.getByRole("button", { name: "New project" }).first().click();
  const createDialog = page.getByRole("dialog", { name: "New project" });
  await expect(createDialog).toBeVisible();
  await createDialog.getByLabel("Name").fill("Widget Tool");
  await expect(createDialog.getByLabel("Slug")).toHaveValue("widget-tool");
  await createDialog.getByLabel("Description").fill("Makes widgets.");
  await createDialog.getByLabel("Homepage").fill("https://widget.example");
  await createDialog.getByLabel("License").fill("MIT");
  await createDialog.getByRole("button", { name: "Create project" }).click();

  await expect(page).toHaveURL(/\/projects\/widget-tool$/);
  await expect(page.getByRole("heading", { level: 1, name: "Widget Tool" })).toBeVisible();
  await expect(page.getByText("Project widget-tool created")).toBeVisible();
  await expect(page.getByText(`${username}/widget-tool`, { exact: true })).toBeVisible();

  // A release, from the New release dialog; the notes preview renders Markdown, not raw HTML.
  await page.getByRole("link", { name: "New release" }).click();
  const releaseDialog = page.getByRole("dialog", { name: "New release" });
  await expect(releaseDialog).toBeVisible();
  await releaseDialog.getByLabel("Version").fill("1.0.0");
  await releaseDialog.getByLabel("Title").fill("First light");
  await releaseDialog.getByLabel("Release notes", { exact: true }).fill("**Initial** release <b>raw</b>");
  await releaseDialog.getByRole("tab", { name: "Preview" }).click();
  const preview = releaseDialog.getByTestId("notes-preview");
  await expect(preview.locator("strong")).toHaveText("Initial");
  await expect(preview).toContainText("<b>raw</b>");
  await expect(preview.locator("b")).toHaveCount(0);
  await releaseDialog.getByRole("button", { name: "Create release" }).click();

  await expect(page).toHaveURL(/\/projects\/widget-tool\/releases\/1\.0\.0$/);
  await expect(page.getByRole("heading", { level: 1, name: "1.0.0" })).toBeVisible();
  await expect(page.getByText("No files yet")).toBeVisible();

  // Two files at once. Each upload is held back a moment so its progress bar can be seen.
  const files = [
    { name: "widget-1.0.0-linux-amd64.tar.gz", mimeType: "application/gzip", buffer: bytes(150 * 1024, 1) },
    { name: "widget-1.0.0-windows.zip", mimeType: "application/zip", buffer: bytes(3000, 2) },
  ];
  await page.route("**/api/v1/projects/widget-tool/releases/1.0.0/files", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await route.continue();
  });
  await page.getByTestId("file-input").setInputFiles(files);
  for (const file of files) {
    await expect(page.getByRole("progressbar", { name: `${file.name} upload progress` })).toBeVisible();
  }
  const uploads = page.getByTestId("upload-item");
  await expect(uploads).toHaveCount(2);
  await expect(uploads.filter({ hasText: "Uploaded" })).toHaveCount(2);
  await page.unroute("**/api/v1/projects/widget-tool/releases/1.0.0/files");

  // Both are listed with their size and sha256.
  const rows = page.getByTestId("file-row");
  await expect(rows).toHaveCount(2);
  const expectations = [
    { ...files[0]!, size: "150 KB" },
    { ...files[1]!, size: "2.93 KB" },
  ];
  for (const file of expectations) {
    const row = page.locator(`[data-testid="file-row"][data-filename="${file.name}"]`);
    await expect(row).toContainText(file.name);
    await expect(row).toContainText(file.size);
    await expect(row).toContainText(sha256(file.buffer).slice(0, 12));
  }

  // The sha256 copy button puts the whole checksum on the clipboard.
  const first = expectations[0]!;
  await page.getByRole("button", { name: `Copy the SHA-256 of ${first.name}` }).click();
  await expect(page.getByText("Copied to clipboard!")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(sha256(first.buffer));

  // The download link serves the exact bytes.
  const href = await page.getByRole("link", { name: `Download ${first.name}` }).getAttribute("href");
  expect(href).toContain(`/dl/${username}/widget-tool/releases/1.0.0/`);
  const download = await page.request.get(href!);
  expect(download.status()).toBe(200);
  expect(Buffer.compare(await download.body(), first.buffer)).toBe(0);

  // Uploading a file that is already there fails with the API's message, on that file only.
  await page.getByTestId("file-input").setInputFiles([files[1]!]);
  const duplicate = uploads.nth(2);
  await expect(duplicate).toHaveAttribute("data-phase", "failed");
  await expect(duplicate.getByTestId("upload-status")).toContainText("already exists");
  await expect(rows).toHaveCount(2);

  // Yank with a reason: the banner shows it.
  await page.getByRole("button", { name: "Yank release" }).click();
  const yankDialog = page.getByRole("dialog", { name: "Yank 1.0.0?" });
  await expect(yankDialog.getByRole("button", { name: "Yank release" })).toBeDisabled();
  await yankDialog.getByLabel("Reason").fill("Linked against the wrong libc; use 1.0.1");
  await yankDialog.getByRole("button", { name: "Yank release" }).click();
  await expect(yankDialog).toBeHidden();
  const banner = page.getByTestId("yanked-banner");
  await expect(banner).toBeVisible();
  await expect(banner).toContainText("This release was yanked");
  await expect(banner).toContainText("Linked against the wrong libc; use 1.0.1");
  await expect(page.getByText("Release 1.0.0 yanked")).toBeVisible();

  // The release list shows it as yanked.
  await page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: "Releases" }).click();
  const releaseRow = page.getByTestId("releases-table").getByRole("row", { name: /1\.0\.0/ });
  await expect(releaseRow).toContainText("Yanked");
  await expect(releaseRow).toContainText("First light");
});

test("the project pages fit a 375 px screen", async ({ page, consoleErrors: _ }) => {
  await page.setViewportSize({ width: 375, height: 812 });
  const username = `narrow-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("narrow"), name: "Narrow Screen", username });
  await page.goto("/projects");
  await page.getByRole("button", { name: "New project" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New project" });
  await dialog.getByLabel("Name").fill("A project with a rather long name indeed");
  await dialog.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(/\/projects\/a-project-with-a-rather-long-name-indeed$/);
  await page.goto("/projects/a-project-with-a-rather-long-name-indeed/releases?new=1");
  await page
    .getByRole("dialog", { name: "New release" })
    .getByLabel("Version")
    .fill("2024.10.1-beta+build.7");
  await page.getByRole("button", { name: "Create release" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "2024.10.1-beta+build.7" })).toBeVisible();
  await page.getByTestId("file-input").setInputFiles([
    {
      name: "a-very-long-file-name-for-a-narrow-screen_2024.10.1_arm64.tar.gz",
      mimeType: "application/gzip",
      buffer: bytes(512, 3),
    },
  ]);
  await expect(page.getByTestId("file-row")).toHaveCount(1);
  await expect(page.getByTestId("upload-item")).toContainText("Uploaded");
  const overflowWithUploads = await page.evaluate(
    () => document.documentElement.scrollWidth - window.innerWidth,
  );
  expect(overflowWithUploads, "horizontal overflow with the uploads list").toBeLessThanOrEqual(0);
  for (const path of [
    "/dashboard",
    "/projects",
    "/projects/a-project-with-a-rather-long-name-indeed",
    "/projects/a-project-with-a-rather-long-name-indeed/releases",
    `/projects/a-project-with-a-rather-long-name-indeed/releases/${encodeURIComponent("2024.10.1-beta+build.7")}`,
  ]) {
    await page.goto(path);
    await expect(page.locator("main h1")).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `horizontal overflow on ${path}`).toBeLessThanOrEqual(0);
  }

  // Deleting the project asks for its slug first, then lands on /projects with a toast.
  await page.goto("/projects/a-project-with-a-rather-long-name-indeed");
  await page.getByRole("button", { name: "Delete project" }).click();
  const confirm = page.getByRole("alertdialog");
  const deleteButton = confirm.getByRole("button", { name: "Delete project" });
  await expect(deleteButton).toBeDisabled();
  await confirm.getByLabel("Type a-project-with-a-rather-long-name-indeed to confirm").fill("a-project");
  await expect(deleteButton).toBeDisabled();
  await confirm
    .getByLabel("Type a-project-with-a-rather-long-name-indeed to confirm")
    .fill("a-project-with-a-rather-long-name-indeed");
  await deleteButton.click();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByText("Project a-project-with-a-rather-long-name-indeed deleted")).toBeVisible();
  await expect(page.getByText("You have no projects yet")).toBeVisible();
});
