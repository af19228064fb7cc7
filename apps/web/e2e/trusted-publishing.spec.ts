// Trusted publishing in a real browser: a project's Publishing tab, its empty state; the form
// refuses a repository the contract refuses under its field, then trusts a GitHub Actions
// workflow (its card with its conditions and the workflow to paste) and a self-managed GitLab
// project (its fields once GitLab CI is chosen, its issuer under "Enterprise / self-managed");
// Remove asks first, then the card is gone. No axe violations, light and dark. SCREENSHOT_DIR:
// the page with both publishers is also saved there at 1280 and 375 px, light and dark.
import type { Page } from "@playwright/test";
import {
  appOrigin,
  expect,
  noAxeViolations,
  overflows,
  shots,
  signUpAndOnboard,
  test,
  uniqueEmail,
} from "./support.ts";

/** A text field of the form by its label (the radio buttons' descriptions name repositories too). */
const field = (page: Page, name: string) => page.getByRole("textbox", { name, exact: true });

test("trust a GitHub Actions workflow and a GitLab project, see each one's CI configuration, remove one", async ({
  page,
  consoleErrors: _,
}) => {
  const username = `shipper-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("shipper"), name: "Shipper", username });
  const project = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: { slug: "widget", name: "Widget", visibility: "public" },
  });
  expect(project.status()).toBe(201);
  const origin = new URL(process.env.PACKYARD_E2E_URL!).origin;

  await page.goto("/projects/widget");
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Publishing" }).click();
  await expect(page.getByRole("heading", { name: "Trusted publishing", level: 1 })).toBeVisible();
  await expect(page.getByText("No trusted publishers yet")).toBeVisible();
  await noAxeViolations(page);

  // The form checks with the contract's rules before posting.
  const add = page.getByRole("button", { name: "Add publisher" });
  await field(page, "Repository").fill("octo-org");
  await field(page, "Workflow file (optional)").fill("release");
  await add.click();
  await expect(page.getByText("Repository must be the GitHub repository as owner/name")).toBeVisible();
  await expect(
    page.getByText("Workflow must be the workflow's file name, such as release.yml"),
  ).toBeVisible();
  await expect(page.getByText("e.g. refs/tags/v* or main; leave empty for any branch or tag")).toBeVisible();

  await field(page, "Repository").fill("octo-org/widget");
  await field(page, "Workflow file (optional)").fill("release.yml");
  await field(page, "Ref (optional)").fill("refs/tags/v*");
  await add.click();
  await expect(
    page.getByText("GitHub Actions octo-org/widget (release.yml, ref refs/tags/v*) may publish"),
  ).toBeVisible();
  const cards = page.getByTestId("trusted-publisher");
  await expect(cards).toHaveCount(1);
  const githubCard = cards.filter({ hasText: "octo-org/widget" });
  await expect(githubCard).toContainText("GitHub Actions");
  await expect(githubCard).toContainText("refs/tags/v*");
  await expect(githubCard).toContainText("Never used");
  // The first card shows its workflow: it may ask for an ID token for this server, and pushes.
  const workflow = githubCard.getByTestId("ci-config-github-actions");
  await expect(workflow).toBeVisible();
  await expect(workflow).toContainText(".github/workflows/release.yml");
  await expect(workflow).toContainText("id-token: write");
  await expect(workflow).toContainText(`PACKYARD_SERVER: ${origin}`);
  await expect(workflow).toContainText(`packyard push ${username}/widget "\${GITHUB_REF_NAME#v}" dist/*`);
  await expect(workflow.getByRole("button", { name: "Copy .github/workflows/release.yml" })).toBeVisible();
  // The form is empty again, for the next one.
  await expect(field(page, "Repository")).toHaveValue("");

  // GitLab CI: its own fields, and a self-managed GitLab's issuer.
  await page.getByRole("radio", { name: /GitLab CI/ }).check();
  await expect(field(page, "Repository")).toHaveCount(0);
  await expect(field(page, "Workflow file (optional)")).toHaveCount(0);
  await field(page, "Project path").fill("platform/tools/widget");
  await field(page, "Environment (optional)").fill("production");
  await field(page, "Ref (optional)").fill("main");
  await page.getByText("Enterprise / self-managed").click();
  await field(page, "Issuer (optional)").fill("https://gitlab.example.com");
  await page.setViewportSize({ width: 375, height: 900 });
  expect(await overflows(page), "the open form fits 375 px").toBe(false);
  await page.setViewportSize({ width: 1280, height: 900 });
  await add.click();
  await expect(cards).toHaveCount(2);
  const gitlabCard = cards.filter({ hasText: "platform/tools/widget" });
  await expect(gitlabCard).toContainText("GitLab CI");
  await expect(gitlabCard).toContainText("production");
  await expect(gitlabCard).toContainText("https://gitlab.example.com");
  // Its job, folded under the card: the ID token for this server in PACKYARD_ID_TOKEN.
  await gitlabCard.getByText("GitLab CI job").click();
  const job = gitlabCard.getByTestId("ci-config-gitlab-ci");
  await expect(job).toBeVisible();
  await expect(job).toContainText(`aud: ${origin}`);
  await expect(job).toContainText("environment: production");
  await expect(job).toContainText('if: $CI_COMMIT_REF_NAME == "main"');
  await gitlabCard.getByText("GitLab CI job").click();

  await noAxeViolations(page);
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await overflows(page), `nothing overflows at ${width} px`).toBe(false);
  }
  // The page without the toasts, and with nothing under the mouse.
  await expect(page.locator("[data-sonner-toast]")).toHaveCount(0, { timeout: 15_000 });
  await page.mouse.move(0, 0);
  await shots(page, "trusted-publishing");

  // Remove asks first; Cancel keeps it.
  await githubCard.getByRole("button", { name: "Remove" }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText("Stop trusting octo-org/widget?");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(cards).toHaveCount(2);
  await githubCard.getByRole("button", { name: "Remove" }).click();
  await dialog.getByRole("button", { name: "Remove publisher" }).click();
  await expect(page.getByText("Trusted publisher removed")).toBeVisible();
  await expect(cards).toHaveCount(1);
  await expect(cards).toContainText("platform/tools/widget");
  await page.reload();
  await expect(cards).toHaveCount(1);
});
