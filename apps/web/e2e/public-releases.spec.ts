// The public release pages in a real browser, against the production build: a project, release
// and file created through the API with the browser's session, then seen as a visitor would.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

const NOTES = [
  "## What's new",
  "",
  "- **Bold** move with `inline code`",
  "- Fixes [issue 42](https://example.com/issues/42)",
  "",
  "<script>window.__pwned = true</script>",
].join("\n");

test("a release page shows Markdown notes (never running HTML), the file with size and sha256, and a working download", async ({
  page,
  context,
  consoleErrors: _,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const username = `pub-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("pub"), name: "Pub Lisher", username });

  // The API with the browser's session, naming the app's origin as the browser's fetch does.
  const project = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: {
      slug: "widget",
      name: "Widget",
      description: "A tiny widget for browser tests",
      visibility: "public",
      license: "Apache-2.0",
      homepage: "https://widget.example",
    },
  });
  expect(project.status()).toBe(201);
  const release = await page.request.post("/api/v1/projects/widget/releases", {
    headers: appOrigin(),
    data: { version: "1.2.3", title: "Spring cleaning", notes: NOTES },
  });
  expect(release.status()).toBe(201);
  const bytes = Buffer.alloc(2048, "w");
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const put = await page.request.put("/api/v1/projects/widget/releases/1.2.3/files/widget-1.2.3.tar.gz", {
    headers: appOrigin(),
    data: bytes,
  });
  expect(put.status()).toBe(201);

  // /releases/{user}/{project} goes to the latest release.
  await page.goto(`/releases/${username}/widget`);
  await expect(page).toHaveURL(new RegExp(`/releases/${username}/widget/latest$`));
  await expect(page).toHaveTitle("Widget 1.2.3 · Packyard");
  await expect(page.getByRole("heading", { level: 1, name: "Widget" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Spring cleaning" })).toBeVisible();
  await expect(page.getByText("A tiny widget for browser tests")).toBeVisible();

  // Notes rendered from Markdown; the <script> is text and never ran.
  const notes = page.getByTestId("release-notes");
  await expect(notes.getByRole("heading", { name: "What's new" })).toBeVisible();
  await expect(notes.locator("strong")).toHaveText("Bold");
  await expect(notes.getByRole("link", { name: "issue 42" })).toHaveAttribute(
    "href",
    "https://example.com/issues/42",
  );
  await expect(notes.getByText("<script>window.__pwned = true</script>")).toBeVisible();
  expect(await page.evaluate(() => (window as { __pwned?: boolean }).__pwned)).toBeUndefined();

  // The file: size, sha256 (copyable), and a download that delivers the bytes.
  const file = page.getByTestId("release-file");
  await expect(file).toContainText("widget-1.2.3.tar.gz");
  await expect(file.getByTestId("file-size")).toHaveText("2 KB");
  await expect(file.getByTestId("file-sha256")).toHaveText(sha256);
  await file.getByRole("button", { name: "Copy SHA-256 of widget-1.2.3.tar.gz" }).click();
  await expect(page.getByText("Copied to clipboard!")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(sha256);

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    file.getByRole("link", { name: "Download widget-1.2.3.tar.gz" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("widget-1.2.3.tar.gz");
  expect(download.url()).toMatch(new RegExp(`/dl/${username}/widget/releases/1.2.3/widget-1.2.3.tar.gz$`));
  const saved = await download.path();
  expect(
    createHash("sha256")
      .update(await readFile(saved))
      .digest("hex"),
  ).toBe(sha256);

  const sums = await page.request.get(
    (await page.getByRole("link", { name: "SHA256SUMS", exact: true }).getAttribute("href")) ?? "",
  );
  expect(await sums.text()).toBe(`${sha256}  widget-1.2.3.tar.gz\n`);
  // Its signature beside it, and the commands that verify a download.
  const signature = await page.request.get(
    (await page.getByRole("link", { name: "SHA256SUMS.asc", exact: true }).getAttribute("href")) ?? "",
  );
  expect(await signature.text()).toMatch(/^-----BEGIN PGP SIGNATURE-----/);
  await expect(page.getByTestId("verify-downloads")).toContainText("gpg --verify SHA256SUMS.asc SHA256SUMS");

  // The search finds it and leads to the same page.
  await page.goto(`/releases?q=${username}`);
  await page.getByRole("link", { name: "Widget", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/releases/${username}/widget/latest$`));

  // An unknown version is the page's own not-found view, with a way back.
  const missing = await page.goto(`/releases/${username}/widget/9.9.9`);
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Release not found" })).toBeVisible();
  await page.getByRole("link", { name: "Go to the latest release" }).click();
  await expect(page).toHaveURL(new RegExp(`/releases/${username}/widget/latest$`));
  await expect(page.getByRole("heading", { name: "Spring cleaning" })).toBeVisible();

  // An unknown project too.
  const noProject = await page.goto(`/releases/${username}/nothing-here/latest`);
  expect(noProject?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Project not found" })).toBeVisible();
});

test("the release page and search fit a 375 px screen", async ({ page, consoleErrors: _ }) => {
  const username = `narrow-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("narrow"), name: "Nar Row", username });
  expect(
    (
      await page.request.post("/api/v1/projects", {
        headers: appOrigin(),
        data: { slug: "a-project-with-a-rather-long-name", name: "A project with a rather long name" },
      })
    ).status(),
  ).toBe(201);
  expect(
    (
      await page.request.put(
        "/api/v1/projects/a-project-with-a-rather-long-name/releases/10.20.30-beta.1/files/a-rather-long-file-name-for-a-narrow-screen-x86_64.tar.gz",
        { headers: appOrigin(), data: Buffer.from("bytes") },
      )
    ).status(),
  ).toBe(201);
  await page.setViewportSize({ width: 375, height: 800 });
  for (const path of [
    `/releases/${username}/a-project-with-a-rather-long-name/latest`,
    `/releases?q=${username}`,
  ]) {
    await page.goto(path);
    await expect(page.getByRole("main")).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, path).toBeLessThanOrEqual(0);
  }
});
