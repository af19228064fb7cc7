// Sign-in through a real OpenID Connect provider in the browser (oidc-provider, started by
// global-setup as "Test SSO"): sign up through it and onboard, sign out and in again, a reused
// callback refused on the explained /error page, implicit linking to a verified password account,
// refused linking for an email the provider does not vouch for, linking and unlinking from
// /settings, and the last account that cannot be unlinked.
import type { Page } from "@playwright/test";
import { expect, PASSWORD, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

const PROVIDER = "Test SSO";

function issuer(): string {
  const value = process.env.PACKYARD_E2E_OIDC_ISSUER;
  if (!value) throw new Error("PACKYARD_E2E_OIDC_ISSUER is not set: global-setup starts the provider");
  return value;
}

function uniqueUsername(prefix: string) {
  return `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
}

/** At the provider's login page: signs in as anyone, the provider vouching for the email or not. */
async function loginAtProvider(page: Page, user: { email: string; name: string; verified: boolean }) {
  await expect(page).toHaveURL(new RegExp(`^${issuer()}/interaction/`));
  await expect(page.getByRole("heading", { name: "Test identity provider" })).toBeVisible();
  const form = page.getByRole("form", { name: "Another account" });
  await form.getByLabel("Email", { exact: true }).fill(user.email);
  await form.getByLabel("Name", { exact: true }).fill(user.name);
  await form.getByLabel("Email verified by the provider").setChecked(user.verified);
  await form.getByRole("button", { name: "Sign in" }).click();
}

async function continueWithProvider(page: Page) {
  await page.goto("/auth/signin");
  await page.getByRole("button", { name: `Continue with ${PROVIDER}` }).click();
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/$/);
}

/** The rows of the linked-accounts list on /settings, by their labels. */
function linkedAccounts(page: Page) {
  return page.getByRole("list", { name: "Linked accounts" }).getByRole("listitem");
}

test("signs up through the provider, onboards, signs out and in again; a reused callback is refused and explained", async ({
  page,
  consoleErrors: _,
}) => {
  const email = uniqueEmail("sso-new");
  const username = uniqueUsername("sso");
  const callbacks: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/api/auth/callback/oidc")) callbacks.push(request.url());
  });

  await continueWithProvider(page);
  await loginAtProvider(page, { email, name: "Grace Hopper", verified: true });
  // A new user from the provider goes through onboarding.
  await expect(page).toHaveURL(/\/onboarding$/);
  await page.getByLabel("Full name").fill("Grace Hopper");
  await page.getByLabel("Username").fill(username);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page).toHaveURL(/\/dashboard/);
  await expect(page.getByRole("heading", { name: "Hello, Grace Hopper" })).toBeVisible();

  await signOut(page);
  // The provider still knows the browser: straight back, signed in as the same user.
  await continueWithProvider(page);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Hello, Grace Hopper" })).toBeVisible();

  // The provider's answer works once.
  expect(callbacks).toHaveLength(2);
  await page.goto(callbacks[0]!);
  await expect(page).toHaveURL(/\/error\?error=please_restart_the_process$/);
  await expect(page.getByRole("heading", { name: "This sign-in request has expired" })).toBeVisible();
  await expect(page.getByTestId("error-code")).toHaveText("please_restart_the_process");
  await expect(page.getByRole("link", { name: "Back to sign in" })).toHaveAttribute("href", "/auth/signin");
});

test("carries the plan through the provider to onboarding", async ({ page, consoleErrors: _ }) => {
  await page.goto("/auth/signin?plan=pro&annual=true");
  await page.getByRole("button", { name: `Continue with ${PROVIDER}` }).click();
  await loginAtProvider(page, { email: uniqueEmail("sso-plan"), name: "Plan Person", verified: true });
  await expect(page).toHaveURL(/\/onboarding\?plan=pro&annual=true$/);
});

test("links the provider to an existing verified password account when the provider vouches for the email", async ({
  page,
  consoleErrors: _,
}) => {
  const email = uniqueEmail("sso-link");
  await signUpAndOnboard(page, { email, name: "Ada Lovelace", username: uniqueUsername("ada") });
  await signOut(page);

  await continueWithProvider(page);
  await loginAtProvider(page, { email, name: "Ada at the provider", verified: true });
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Hello, Ada Lovelace" })).toBeVisible();

  await page.goto("/settings");
  await expect(linkedAccounts(page).filter({ hasText: PROVIDER })).toHaveCount(1);
  await expect(linkedAccounts(page)).toHaveCount(2);
});

test("refuses linking when the provider does not vouch for the email, and explains why", async ({
  page,
  consoleErrors: _,
}) => {
  const email = uniqueEmail("sso-unverified");
  await signUpAndOnboard(page, { email, name: "Alan Turing", username: uniqueUsername("alan") });
  await signOut(page);

  await continueWithProvider(page);
  await loginAtProvider(page, { email, name: "Alan at the provider", verified: false });
  await expect(page).toHaveURL(/\/auth\/signin\?error=account_not_linked$/);
  const explained = page.getByTestId("signin-error");
  await expect(explained).toContainText("An account with this email address already exists");
  await expect(explained).toContainText("Sign in with your email and password instead.");
  await expect(explained).toContainText("account_not_linked");

  // The password still signs in, and the provider was not linked.
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/settings");
  await expect(linkedAccounts(page)).toHaveCount(1);
  await expect(linkedAccounts(page).filter({ hasText: PROVIDER })).toHaveCount(0);

  // Linking it from /settings is refused too (the provider still knows the browser).
  await page.getByRole("button", { name: `Link ${PROVIDER}` }).click();
  await expect(page).toHaveURL(/\/settings\?error=unable_to_link_account$/);
  await expect(page.getByRole("alert").first()).toBeVisible();
  await expect(linkedAccounts(page)).toHaveCount(1);
  await expect(linkedAccounts(page).filter({ hasText: PROVIDER })).toHaveCount(0);
});

test("links the provider from /settings and unlinks it again", async ({ page, consoleErrors: _ }) => {
  const email = uniqueEmail("sso-settings");
  await signUpAndOnboard(page, { email, name: "Katherine Johnson", username: uniqueUsername("kj") });

  await page.goto("/settings");
  await page.getByRole("button", { name: `Link ${PROVIDER}` }).click();
  await loginAtProvider(page, { email, name: "Katherine at the provider", verified: true });
  await expect(page).toHaveURL(/\/settings$/);
  await expect(linkedAccounts(page).filter({ hasText: PROVIDER })).toHaveCount(1);

  await page.getByRole("button", { name: `Unlink ${PROVIDER}` }).click();
  await expect(page.getByText(`${PROVIDER} unlinked`)).toBeVisible();
  await expect(linkedAccounts(page).filter({ hasText: PROVIDER })).toHaveCount(0);
  await expect(linkedAccounts(page)).toHaveCount(1);
});

test("refuses to unlink the last account", async ({ page, consoleErrors: _ }) => {
  await continueWithProvider(page);
  await loginAtProvider(page, { email: uniqueEmail("sso-only"), name: "Only Provider", verified: true });
  await expect(page).toHaveURL(/\/onboarding$/);
  await page.getByLabel("Full name").fill("Only Provider");
  await page.getByLabel("Username").fill(uniqueUsername("only"));
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page).toHaveURL(/\/dashboard/);

  await page.goto("/settings");
  await expect(linkedAccounts(page)).toHaveCount(1);
  await page.getByRole("button", { name: `Unlink ${PROVIDER}` }).click();
  await expect(
    page.getByRole("alert").filter({ hasText: "You can't unlink your last account" }),
  ).toBeVisible();
  await expect(linkedAccounts(page)).toHaveCount(1);
});
