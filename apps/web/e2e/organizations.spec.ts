// Organizations in the browser (issue 19, decision 040): an owner creates an organization and a
// private project in it, invites a member through the outbox link; the member makes an account
// from the link, accepts, and publishes a release with a file to the project; the owner removes
// them, and the project and its public page are then "not found" for them.
import type { Page } from "@playwright/test";
import { readOutbox } from "../test/harness.ts";
import {
  expect,
  outboxDir,
  PASSWORD,
  signUpAndOnboard,
  test,
  uniqueEmail,
  verificationLink,
} from "./support.ts";

async function invitationLink(email: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const link = readOutbox(outboxDir())
      .findLast((m) => m.to.includes(email))
      ?.links.find((l) => l.includes("/invitations/"));
    if (link) return link;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no invitation mail for ${email}`);
}

async function toast(page: Page, text: string) {
  await expect(page.getByText(text)).toBeVisible();
}

test("an organization: create it, invite a member who publishes, remove them", async ({
  page,
  browser,
  consoleErrors: _,
}) => {
  const stamp = Date.now().toString(36);
  const owner = `own-${stamp}`;
  const org = `acme-${stamp}`;
  await signUpAndOnboard(page, { email: uniqueEmail("owner"), name: "Olive Owner", username: owner });

  // The owner switcher: Personal, and New organization.
  const switcher = page.getByTestId("owner-switcher").first();
  await switcher.getByRole("button", { name: `Owner: Personal (${owner})` }).click();
  await switcher.getByRole("link", { name: "New organization" }).click();
  await expect(page).toHaveURL(/\/orgs\/new$/);
  // The slug shares the usernames' namespace.
  await page.getByLabel("Name").fill("Acme Corp");
  await page.getByLabel("Slug").fill(owner);
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page.getByText("This name is already taken by a user or an organization")).toBeVisible();
  await page.getByLabel("Slug").fill(org);
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page).toHaveURL(new RegExp(`/orgs/${org}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Acme Corp" })).toBeVisible();
  await expect(page.getByTestId("org-role")).toHaveText("owner");

  // A private project of the organization, from its page.
  await page.getByRole("button", { name: "New project" }).click();
  const dialog = page.getByRole("dialog", { name: "New project" });
  await dialog.getByLabel("Name").fill("Rocket");
  await dialog.getByLabel("Private").check();
  await dialog.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(new RegExp(`/orgs/${org}/projects/rocket$`));
  await expect(page.getByText(`${org}/rocket`, { exact: true })).toBeVisible();

  // Invite a publisher; the link goes through the outbox.
  const memberEmail = uniqueEmail("member");
  await page.goto(`/orgs/${org}/members`);
  await page.getByLabel("Email").fill(memberEmail);
  await page.getByRole("radio", { name: /^publisher/i }).check();
  await page.getByRole("button", { name: "Send invitation" }).click();
  await toast(page, `Invitation mailed to ${memberEmail}`);
  await expect(page.getByRole("list", { name: "Open invitations" })).toContainText(memberEmail);
  const link = await invitationLink(memberEmail);

  // The member: a new account made from the link, back to it, accepted.
  const memberContext = await browser.newContext();
  const member = await memberContext.newPage();
  const memberName = `mem-${stamp}`;
  await member.goto(link);
  await expect(member.getByTestId("invitation")).toContainText("Acme Corp");
  await expect(member.getByTestId("invitation")).toContainText("publisher");
  await member.getByRole("link", { name: "Create an account" }).click();
  await member.getByLabel("Name").fill("Max Member");
  await member.getByLabel("Email").fill(memberEmail);
  await member.getByLabel("Password").fill(PASSWORD);
  await member.getByRole("button", { name: "Create account" }).click();
  await expect(member.getByText("Check your email")).toBeVisible();
  await member.goto(await verificationLink(memberEmail));
  await expect(member).toHaveURL(/\/invitations\//);
  await member.getByRole("button", { name: "Accept invitation" }).click();
  await expect(member).toHaveURL(/\/onboarding/);
  await member.getByLabel("Full name").fill("Max Member");
  await member.getByLabel("Username").fill(memberName);
  await member.getByRole("button", { name: "Continue" }).click();
  await toast(member, "You joined Acme Corp as publisher");
  await expect(member).toHaveURL(new RegExp(`/orgs/${org}$`));
  await expect(member.getByTestId("org-role")).toHaveText("publisher");
  // A publisher does not create projects.
  await expect(member.getByRole("button", { name: "New project" })).toHaveCount(0);

  // The member publishes a release with a file to the organization's private project.
  await member.getByRole("link", { name: "Rocket" }).click();
  await expect(member).toHaveURL(new RegExp(`/orgs/${org}/projects/rocket$`));
  await expect(member.getByRole("button", { name: "Edit project" })).toHaveCount(0);
  await member.getByRole("link", { name: "New release" }).click();
  const releaseDialog = member.getByRole("dialog", { name: "New release" });
  await releaseDialog.getByLabel("Version").fill("1.0.0");
  await releaseDialog.getByRole("button", { name: "Create release" }).click();
  await expect(member).toHaveURL(new RegExp(`/orgs/${org}/projects/rocket/releases/1\\.0\\.0$`));
  await member.getByTestId("file-input").setInputFiles({
    name: "rocket-1.0.0.tar.gz",
    mimeType: "application/gzip",
    buffer: Buffer.from("rocket fuel"),
  });
  await expect(member.getByTestId("upload-item").filter({ hasText: "Uploaded" })).toHaveCount(1);
  await expect(member.locator(`[data-testid="file-row"][data-filename="rocket-1.0.0.tar.gz"]`)).toBeVisible();

  // The owner sees it, and removes the member.
  await page.goto(`/orgs/${org}/projects/rocket/releases`);
  await expect(page.getByRole("link", { name: "1.0.0" })).toBeVisible();
  await page.goto(`/orgs/${org}/members`);
  await page.getByRole("button", { name: `Remove ${memberName}` }).click();
  await toast(page, `${memberName} was removed`);
  await expect(page.getByTestId(`member-${memberName}`)).toHaveCount(0);

  // The former member no longer sees the private project: its pages are not found.
  for (const path of [`/orgs/${org}/projects/rocket`, `/releases/${org}/rocket`, `/orgs/${org}`]) {
    const response = await member.goto(path);
    expect(response?.status(), path).toBe(404);
  }
  await memberContext.close();
});
