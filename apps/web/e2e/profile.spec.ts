// /profile in the browser (spec §5, decision 014): every message of the profile form, a username
// change after which the old release page redirects to the new name (and the old name is refused
// to someone else), and an email change on the verified path through the outbox: the confirmation
// link mailed to the current address, then the verification link mailed to the new one.
import type { Page } from "@playwright/test";
import { readOutbox } from "../test/harness.ts";
import { appOrigin, expect, outboxDir, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

const stamp = () => Date.now().toString(36);

/** Waits for a mail to `to` whose subject matches, and returns its first link to `path`. */
async function mailedLink(to: string, subject: RegExp, path: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const message = readOutbox(outboxDir()).findLast((m) => m.to.includes(to) && subject.test(m.subject));
    const link = message?.links.find((l) => l.includes(path));
    if (link) return link;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail "${subject}" to ${to}`);
}

async function publicRelease(page: Page, slug: string, version: string) {
  const headers = { ...appOrigin(), "content-type": "application/json" };
  const project = await page.request.post("/api/v1/projects", {
    headers,
    data: { slug, name: "Widget", visibility: "public" },
  });
  expect(project.status()).toBe(201);
  const release = await page.request.post(`/api/v1/projects/${slug}/releases`, {
    headers,
    data: { version, title: "First light" },
  });
  expect(release.status()).toBe(201);
}

async function saveProfile(page: Page, fields: { username?: string; name?: string }) {
  if (fields.username !== undefined) await page.getByLabel("Username").fill(fields.username);
  if (fields.name !== undefined) await page.getByLabel("Name", { exact: true }).fill(fields.name);
  await page.getByRole("button", { name: "Save profile" }).click();
}

test("edit the profile: each message, then a new username; the old release page redirects to it", async ({
  page,
  browser,
  consoleErrors: _,
}) => {
  const old = `pro-${stamp()}`;
  const renamed = `Pro_${stamp()}`;
  const email = uniqueEmail("profile");
  await signUpAndOnboard(page, { email, name: "Ada", username: old });
  await publicRelease(page, "widget", "1.0.0");

  await page.goto("/profile");
  await expect(page.getByRole("heading", { name: "Profile", exact: true })).toBeVisible();
  await expect(page.getByLabel("Username")).toHaveValue(old);
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Ada");
  await expect(page.getByLabel("Email")).toHaveValue(email);

  for (const [fields, message] of [
    [{ username: "ab" }, "Username must be at least 3 characters"],
    [{ username: "a".repeat(31) }, "Username must be at most 30 characters"],
    [{ username: "ada lovelace" }, "Username can only contain letters, numbers, underscores, and hyphens"],
    [{ username: "ada.l" }, "Username can only contain letters, numbers, underscores, and hyphens"],
    [{ username: old, name: "" }, "Name is required"],
    [{ name: "x".repeat(101) }, "Name must be at most 100 characters"],
  ] as const) {
    await saveProfile(page, fields);
    await expect(page.getByText(message)).toBeVisible();
  }

  // The email form: checked in the browser, then by the server.
  const emailField = page.getByLabel("Email");
  const changeEmail = page.getByRole("button", { name: "Change email" });
  await emailField.fill("not-an-email");
  await changeEmail.click();
  await expect(page.getByText("Please enter a valid email address")).toBeVisible();
  await emailField.fill(email.toUpperCase());
  await changeEmail.click();
  await expect(page.getByText("Email is the same")).toBeVisible();
  // Someone else's address (a sign-up is enough to hold it).
  const other = uniqueEmail("other");
  const signUp = await page.request.post("/api/auth/sign-up/email", {
    headers: { ...appOrigin(), "content-type": "application/json" },
    data: { email: other, name: "Other", password: "correct horse battery" },
  });
  expect(signUp.ok()).toBe(true);
  await emailField.fill(other);
  await changeEmail.click();
  await expect(page.getByText("Couldn't update your email")).toBeVisible();

  // A good profile: saved, and the old name is listed as held.
  await saveProfile(page, { username: renamed, name: "Ada Lovelace" });
  await expect(page.getByText(`Profile saved. Links with @${old} now lead to @${renamed}.`)).toBeVisible();
  await expect(page.getByText("Previous usernames")).toBeVisible();
  await expect(page.getByText(`@${old}`, { exact: true })).toBeVisible();
  await expect(page.getByText(`@${renamed}`, { exact: true }).first()).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Username")).toHaveValue(renamed);
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Ada Lovelace");

  // The old release page moves to the new name.
  await page.goto(`/releases/${old}/widget/1.0.0`);
  await expect(page).toHaveURL(new RegExp(`/releases/${renamed}/widget/1\\.0\\.0$`));
  await expect(page.getByRole("heading", { name: /Widget/ }).first()).toBeVisible();
  await page.goto(`/releases/${old}/widget`);
  await expect(page).toHaveURL(new RegExp(`/releases/${renamed}/widget/latest$`));

  // Someone else cannot take the old name.
  const context = await browser.newContext();
  const second = await context.newPage();
  await signUpAndOnboard(second, { email: uniqueEmail("second"), name: "Eve", username: `eve-${stamp()}` });
  await second.goto("/profile");
  await saveProfile(second, { username: old });
  await expect(second.getByText("This username is already taken")).toBeVisible();
  await saveProfile(second, { username: renamed.toLowerCase() });
  await expect(second.getByText("This username is already taken")).toBeVisible();
  await context.close();
});

test("change the email on the verified path: confirm from the current address, then verify the new one", async ({
  page,
  consoleErrors: _,
}) => {
  const email = uniqueEmail("before");
  const next = uniqueEmail("after");
  await signUpAndOnboard(page, { email, name: "Grace", username: `grace-${stamp()}` });

  await page.goto("/profile");
  await expect(page.getByText("Verified", { exact: true })).toBeVisible();
  await page.getByLabel("Email").fill(next);
  await page.getByRole("button", { name: "Change email" }).click();
  await expect(page.getByText(`Check ${email} to confirm the change.`)).toBeVisible();
  // Nothing changed yet.
  await page.reload();
  await expect(page.getByLabel("Email")).toHaveValue(email);

  // The confirmation goes to the current address; opening it makes the new one the sign-in address.
  await page.goto(await mailedLink(email, /confirm/i, "/verify-email"));
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByLabel("Email")).toHaveValue(next);
  await expect(page.getByText("Not verified", { exact: true })).toBeVisible();

  // Then the new address gets its verification link.
  await page.goto(await mailedLink(next, /verify/i, "/verify-email"));
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByLabel("Email")).toHaveValue(next);
  await expect(page.getByText("Verified", { exact: true })).toBeVisible();
});
