// The Releases tab's "New release" button, clicked in a real browser: it opens the dialog (the
// button takes the props and ref the dialog's trigger gives it), and the release is created, on
// a user's project and on an organization's.
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

test("New release on the Releases tab opens the dialog and creates a release, for a user's and an organization's project", async ({
  page,
  consoleErrors: _,
}) => {
  const username = `rel-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("releases"), name: "Release Maker", username });
  const org = `${username}-co`;
  expect(
    (
      await page.request.post("/api/v1/orgs", { headers: appOrigin(), data: { slug: org, name: "Rel Co" } })
    ).status(),
  ).toBe(201);
  for (const owner of [undefined, org]) {
    const created = await page.request.post("/api/v1/projects", {
      headers: appOrigin(),
      data: { slug: "gadget", name: "Gadget", ...(owner ? { owner } : {}) },
    });
    expect(created.status()).toBe(201);
  }

  for (const [base, version] of [
    ["/projects/gadget", "1.0.0"],
    [`/orgs/${org}/projects/gadget`, "2.0.0"],
  ] as const) {
    await page.goto(base);
    await page.getByRole("link", { name: "Releases", exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${base}/releases$`));
    await expect(page.getByText("No releases yet")).toBeVisible();

    const button = page.getByRole("button", { name: "New release" });
    await expect(button).toHaveAttribute("aria-haspopup", "dialog");
    await button.click();
    const dialog = page.getByRole("dialog", { name: "New release" });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel("Version").fill(version);
    await dialog.getByLabel("Title").fill(`Gadget ${version}`);
    await dialog.getByRole("button", { name: "Create release" }).click();

    await expect(page).toHaveURL(new RegExp(`${base}/releases/${version.replaceAll(".", "\\.")}$`));
    await expect(page.getByRole("heading", { level: 1, name: version })).toBeVisible();
  }
});
