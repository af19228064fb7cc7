// Paid plans in a real browser against the fake Stripe that global-setup starts
// (test/fake-stripe.ts, at PACKYARD_E2E_STRIPE_URL; it delivers its webhook events to Packyard):
// /pricing (Pro, annual) → sign-up → onboarding → Checkout → /billing/success; cancel at period
// end shows the end date; a signed customer.subscription.deleted returns the account to Basic.
// Also: a canceled Checkout, the card and invoices on /billing, and a failed renewal's banner
// fixed through the customer portal.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import Stripe from "stripe";
import { FAKE_WEBHOOK_SECRET } from "../test/fake-stripe.ts";
import { expect, PASSWORD, signUpAndOnboard, test, uniqueEmail, verificationLink } from "./support.ts";

const stripeUrl = () => process.env.PACKYARD_E2E_STRIPE_URL!;

interface FakeState {
  customers: { id: string; email: string }[];
  subscriptions: {
    id: string;
    customer: string;
    status: string;
    items: { data: { current_period_end: number }[] };
  }[];
}

async function fakeState(): Promise<FakeState> {
  return (await fetch(`${stripeUrl()}/_fake/state`)).json() as Promise<FakeState>;
}

async function subscriptionOf(email: string) {
  const state = await fakeState();
  const customer = state.customers.find((c) => c.email === email);
  const subscription = state.subscriptions.find((s) => s.customer === customer?.id);
  if (!subscription) throw new Error(`no subscription at the fake Stripe for ${email}`);
  return subscription;
}

/** Posts an event to Packyard's webhook, signed as Stripe signs it. */
async function postSignedEvent(type: string, object: unknown) {
  const payload = JSON.stringify({
    id: `evt_e2e_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
    object: "event",
    type,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object },
  });
  const signature = new Stripe("sk_test_e2e").webhooks.generateTestHeaderString({
    payload,
    secret: FAKE_WEBHOOK_SECRET,
  });
  return fetch(`${process.env.PACKYARD_E2E_URL}/api/auth/stripe/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": signature },
    body: payload,
  });
}

function mediumDate(unixSeconds: number) {
  return new Intl.DateTimeFormat("en-US", { dateStyle: "medium" }).format(new Date(unixSeconds * 1000));
}

async function expectNoAxeViolations(page: Page) {
  // Toasts come and go (sonner); the pages themselves are checked.
  const results = await new AxeBuilder({ page }).exclude("[data-sonner-toaster]").analyze();
  expect(
    results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
  ).toEqual([]);
}

test("Pro annual from /pricing through sign-up, onboarding and Checkout; cancel at period end; Stripe ends it", async ({
  page,
  consoleErrors: _,
}) => {
  const email = uniqueEmail("payer");
  const username = `payer-${Date.now().toString(36)}`;

  await page.goto("/pricing");
  await page.getByRole("link", { name: "Annual (2 months free)" }).click();
  await expect(page).toHaveURL(/annual=true/);
  await page.locator('[data-plan="pro"]').getByRole("link", { name: "Choose Pro" }).click();
  await expect(page).toHaveURL(/\/auth\/signin\?mode=signup&plan=pro&annual=true$/);

  await page.getByLabel("Name").fill("Paula Payer");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Check your email")).toBeVisible();
  await page.goto(await verificationLink(email));
  await expect(page).toHaveURL(/\/onboarding\?plan=pro&annual=true$/);

  await page.getByLabel("Full name").fill("Paula Payer");
  await page.getByLabel("Username").fill(username);
  await page.getByRole("button", { name: "Continue" }).click();

  // Stripe's hosted Checkout (the fake's page), for Pro billed yearly.
  await expect(page).toHaveURL(new RegExp(`^${stripeUrl()}/checkout/cs_`));
  await expect(page.getByTestId("checkout-line")).toHaveText("Pro annual: $390.00 / year");
  await page.getByRole("button", { name: "Pay and subscribe" }).click();

  await expect(page).toHaveURL(/\/billing\/success\?session_id=cs_/);
  await expect(page.getByRole("heading", { name: "You are on Pro" })).toBeVisible();
  await expect(page.getByTestId("checkout-confirmed")).toContainText("billed annually");
  await expectNoAxeViolations(page);

  await page.goto("/subscription");
  await expect(page.getByTestId("current-plan-name")).toHaveText("Pro");
  const subscription = await subscriptionOf(email);
  const periodEnd = mediumDate(subscription.items.data[0]!.current_period_end);
  await expect(page.getByTestId("renewal")).toHaveText(`Renews on ${periodEnd}.`);

  await page.getByRole("button", { name: "Cancel subscription" }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText(`You keep Pro until ${periodEnd}`);
  await dialog.getByRole("button", { name: "Cancel at period end" }).click();
  await expect(page.getByText("Your subscription ends at the end of the period.")).toBeVisible();
  await expect(page.getByTestId("renewal")).toHaveText(`Ends on ${periodEnd}; Basic after that.`);
  await expect(page.getByRole("button", { name: "Resume subscription" })).toBeVisible();
  await expectNoAxeViolations(page);

  // Stripe gives up (or the period ends): the subscription is deleted, and says so.
  const ended = await fetch(`${stripeUrl()}/_fake/subscriptions/${subscription.id}/end`, { method: "POST" });
  const response = await postSignedEvent("customer.subscription.deleted", await ended.json());
  expect(response.status).toBe(200);

  await page.reload();
  await expect(page.getByTestId("current-plan-name")).toHaveText("Basic");
  await expect(page.getByTestId("ended-subscription")).toContainText("Your Pro subscription ended");
});

test("a canceled Checkout charges nothing and offers the plan again", async ({ page, consoleErrors: _ }) => {
  const email = uniqueEmail("backout");
  await signUpAndOnboard(page, {
    email,
    name: "Bea Backout",
    username: `backout-${Date.now().toString(36)}`,
  });

  await page.goto("/pricing");
  await page.locator('[data-plan="starter"]').getByRole("link", { name: "Choose Starter" }).click();
  await expect(page).toHaveURL(/\/subscription\?plan=starter&annual=false$/);
  await expect(page.getByTestId("checkout-prompt")).toContainText("Starter, billed monthly: $12.00 / month");
  await page.getByRole("button", { name: "Pay with Stripe" }).click();
  await expect(page).toHaveURL(new RegExp(`^${stripeUrl()}/checkout/cs_`));
  await page.getByRole("link", { name: "Back" }).click();

  await expect(page).toHaveURL(/\/billing\/cancel\?plan=starter&annual=false$/);
  await expect(page.getByRole("heading", { name: "Checkout canceled" })).toBeVisible();
  await expect(page.getByTestId("checkout-canceled")).toContainText("Nothing was charged");
  await expectNoAxeViolations(page);
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(page).toHaveURL(new RegExp(`^${stripeUrl()}/checkout/cs_`));
  await expect(page.getByTestId("checkout-line")).toHaveText("Starter monthly: $12.00 / month");
});

test("/billing shows the card and invoices; a failed renewal's banner leads to the portal to fix the card", async ({
  page,
  consoleErrors: _,
}) => {
  const email = uniqueEmail("renewer");
  await signUpAndOnboard(page, {
    email,
    name: "Ron Renewer",
    username: `renewer-${Date.now().toString(36)}`,
  });
  await page.goto("/subscription?plan=starter&annual=false");
  await page.getByRole("button", { name: "Pay with Stripe" }).click();
  await page.getByRole("button", { name: "Pay and subscribe" }).click();
  await expect(page.getByRole("heading", { name: "You are on Starter" })).toBeVisible();

  await page.getByRole("link", { name: "Billing and invoices" }).click();
  await expect(page.getByTestId("payment-method")).toContainText("Visa •••• 4242");
  await expect(page.getByTestId("payment-method")).toContainText("Expires 12/2034");
  const invoices = page.getByTestId("invoices");
  await expect(invoices.getByRole("row")).toHaveCount(2);
  await expect(invoices).toContainText("$12.00");
  await expect(invoices).toContainText("Paid");
  await expect(invoices.getByRole("link", { name: /PDF/ })).toHaveAttribute(
    "href",
    /\/invoices\/in_\w+\.pdf$/,
  );
  await expectNoAxeViolations(page);

  // The renewal is declined: Stripe's events make the subscription past due.
  const subscription = await subscriptionOf(email);
  await fetch(`${stripeUrl()}/_fake/subscriptions/${subscription.id}/fail-renewal`, { method: "POST" });
  await expect(async () => {
    await page.goto("/dashboard");
    await expect(page.getByTestId("past-due-banner")).toBeVisible({ timeout: 1000 });
  }).toPass();
  await expect(page.getByTestId("past-due-banner")).toContainText("Your last payment for Starter failed.");

  await page.getByTestId("past-due-banner").getByRole("button", { name: "Update card" }).click();
  await expect(page).toHaveURL(new RegExp(`^${stripeUrl()}/portal/bps_`));
  await page.getByRole("button", { name: "Use a new card" }).click();
  await expect(page).toHaveURL(/\/billing$/);
  await expect(page.getByTestId("payment-method")).toContainText("Mastercard •••• 4444");
  await expect(async () => {
    await page.goto("/dashboard");
    await expect(page.getByRole("heading", { name: /^Hello/ })).toBeVisible();
    await expect(page.getByTestId("past-due-banner")).toHaveCount(0, { timeout: 1000 });
  }).toPass();
});
