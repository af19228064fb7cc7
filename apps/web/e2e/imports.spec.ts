// Importing from GitHub Releases in a real browser: the form on /integrations/github-releases
// starts an import from the fake GitHub API global-setup.ts runs (acme/hello: 1.0.0 imports,
// 1.1.0's asset answers 500), the page follows its progress until it ends, shows the failed
// release with its code, and the imported release is on the project's page with its notes.
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

test("import releases from GitHub and follow the import to its end", async ({ page, consoleErrors: _ }) => {
  await signUpAndOnboard(page, {
    email: uniqueEmail("importer"),
    name: "Importer",
    username: `imp-${Date.now().toString(36)}`,
  });
  const created = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: { slug: "hello", name: "Hello" },
  });
  expect(created.status()).toBe(201);

  await page.goto("/integrations/github-releases");
  await expect(page.getByRole("heading", { name: "Import from GitHub Releases" })).toBeVisible();
  await expect(page.getByText("No imports into this project yet.")).toBeVisible();

  // The form checks what it sends.
  await page.getByLabel("GitHub repository").fill("not a repository");
  await page.getByRole("button", { name: "Start import" }).click();
  await expect(page.getByText("Repository must be owner/repo, as in github.com/owner/repo")).toBeVisible();

  await page.getByLabel("Import into project").selectOption("hello");
  await page.getByLabel("GitHub repository").fill("acme/hello");
  await page.getByRole("button", { name: "Start import" }).click();

  // Followed until it ends, without reloading: one release imported, one failed with its code.
  const item = page.getByTestId("import");
  await expect(item).toContainText("acme/hello");
  await expect(item.getByText("Partly imported")).toBeVisible();
  await expect(item).toContainText("Imported 1 release (1 file, 11 B); 1 failed:");
  const failure = item.getByRole("list", { name: "Errors" }).getByRole("listitem");
  await expect(failure).toContainText("1.1.0");
  await expect(failure).toContainText("SOURCE_UNREACHABLE");
  await expect(failure).toContainText("hello-1.1.0.tar.gz");

  await page.goto("/projects/hello/releases/1.0.0");
  await expect(page.getByText("The first release.")).toBeVisible();
  await expect(page.getByText("hello-1.0.0.tar.gz").first()).toBeVisible();
});
