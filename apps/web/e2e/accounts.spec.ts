import { expect, PASSWORD, signUpAndOnboard, test, uniqueEmail, verificationLink } from "./support.ts";

test("sign up, verify from the outbox, onboard, land on the dashboard, sign out, and come back to /projects", async ({
  page,
  consoleErrors: _,
}) => {
  const email = uniqueEmail("journey");
  const username = `journey-${Date.now().toString(36)}`;

  await page.goto("/auth/signin?mode=signup");
  await expect(page).toHaveTitle(/package management made simple|Sign in/);
  // The form validates before calling the server, with the spec's message.
  await page.getByLabel("Name").fill("Ada Lovelace");
  await page.getByLabel("Email").fill("not-an-email");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Please enter a valid email address")).toBeVisible();

  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Check your email")).toBeVisible();

  // Signing in before verifying is refused with a way to resend.
  await page.getByRole("button", { name: "Back to sign in" }).click();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("verify-notice")).toBeVisible();
  await expect(page.getByRole("button", { name: "Resend verification email" })).toBeVisible();

  await page.goto(await verificationLink(email));
  await expect(page).toHaveURL(/\/onboarding$/);

  // Onboarding shows the spec's message for a bad username, then accepts a good one.
  await page.getByLabel("Full name").fill("Ada Lovelace");
  await page.getByLabel("Username").fill("-Ada");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(
    page.getByText("Username must be lowercase letters, numbers, hyphens (no leading/trailing hyphen)"),
  ).toBeVisible();
  await page.getByLabel("Username").fill(username);
  await page.getByRole("button", { name: "Continue" }).click();

  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Hello, Ada Lovelace" })).toBeVisible();
  await expect(page.getByText("No projects yet")).toBeVisible();

  // Sign out from the sidebar.
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/$/);
  await expect(
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sign in" }),
  ).toBeVisible();

  // Signed out, /projects goes to sign-in and back to /projects afterwards.
  await page.goto("/projects");
  await expect(page).toHaveURL(/\/auth\/signin\?redirect=%2Fprojects$/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByRole("heading", { name: "Projects", exact: true })).toBeVisible();
});

test("a signed-in user who loses the session is sent to sign-in by the 60 s re-check", async ({
  page,
  context,
  consoleErrors: _,
}) => {
  await page.clock.install();
  await signUpAndOnboard(page, {
    email: uniqueEmail("recheck"),
    name: "Re Check",
    username: `recheck-${Date.now().toString(36)}`,
  });
  await page.goto("/settings");
  await expect(page.getByRole("heading", { name: "Settings" })).toBeVisible();
  await context.clearCookies();
  await page.clock.runFor(61_000);
  await expect(page).toHaveURL(/\/auth\/signin\?redirect=%2Fsettings$/);
});

test("signing up again with a registered email says so on the form", async ({ page, consoleErrors: _ }) => {
  const email = uniqueEmail("twice");
  await signUpAndOnboard(page, { email, name: "First Owner", username: `twice-${Date.now().toString(36)}` });
  await page.context().clearCookies();
  await page.goto("/auth/signin?mode=signup");
  await page.getByLabel("Name").fill("Second Person");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("User already exists. Use another email.")).toBeVisible();
  await expect(page.getByText("Check your email")).toHaveCount(0);
});

test("a broken verification link from the sign-up form lands on sign-in, which explains invalid_token", async ({
  page,
  consoleErrors: _,
}) => {
  const email = uniqueEmail("broken-link");
  await page.goto("/auth/signin?mode=signup");
  await page.getByLabel("Name").fill("Broken Link");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Check your email")).toBeVisible();
  const link = new URL(await verificationLink(email));
  link.searchParams.set("token", `${link.searchParams.get("token")}x`);
  await page.goto(link.toString());
  await expect(page).toHaveURL(/\/auth\/signin\?redirect=%2Fdashboard&error=invalid_token$/);
  const alert = page.getByTestId("signin-error");
  await expect(alert.getByText("This link is not valid")).toBeVisible();
  await expect(alert.getByText("invalid_token")).toBeVisible();
});

test("the sign-in page and /error explain token_expired, and an unknown code in general words", async ({
  page,
  consoleErrors: _,
}) => {
  await page.goto("/auth/signin?error=token_expired");
  const alert = page.getByTestId("signin-error");
  await expect(alert.getByText("This link has expired")).toBeVisible();
  await expect(alert.getByText(/a verification link for one hour/)).toBeVisible();

  await page.goto("/error?error=token_expired");
  await expect(page.getByRole("heading", { name: "This link has expired" })).toBeVisible();
  await expect(page.getByText(/a verification link for one hour/)).toBeVisible();
  await expect(page.getByTestId("error-code")).toHaveText("token_expired");

  await page.goto("/auth/signin?error=no_such_code");
  await expect(page.getByTestId("signin-error").getByText("Something went wrong")).toBeVisible();
  await expect(
    page.getByTestId("signin-error").getByText("The request could not be completed."),
  ).toBeVisible();
  await page.goto("/error?error=no_such_code");
  await expect(page.getByRole("heading", { name: "Something went wrong" })).toBeVisible();
  await expect(page.getByTestId("error-code")).toHaveText("no_such_code");
});
