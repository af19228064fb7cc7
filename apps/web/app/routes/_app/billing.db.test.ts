// The billing pages through their loaders and actions, in memory, with and without Stripe (a
// fake Stripe at its HTTP boundary): /pricing's buttons, onboarding's hand-off to Checkout,
// /billing/success's confirmation, /subscription's plan, renewal, cancelation and resumption,
// /billing's card, invoices and portal, /billing/cancel, the past-due banner, and the CSP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setOperatorPlan } from "../../../server/billing/plan.ts";
import { type FakeStripe, startFakeStripe } from "../../../test/fake-stripe.ts";
import {
  createTestApp,
  databaseKind,
  onboardedUser,
  postJson,
  signUpVerified,
  type TestApp,
} from "../../../test/harness.ts";

function postForm(app: TestApp, path: string, values: Record<string, string>, cookie: string) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values).toString(),
    cookie,
  });
}

const text = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

async function page(app: TestApp, path: string, cookie?: string) {
  const res = await app.request(path, cookie ? { cookie } : {});
  return { status: res.status, html: await res.text(), headers: res.headers };
}

describe(`billing pages without Stripe (${databaseKind})`, () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it("/pricing shows the plans and says payments are not configured, and how the operator sets a plan", async () => {
    const { status, html } = await page(app, "/pricing?plan=pro&annual=true");
    expect(status).toBe(200);
    const body = text(html);
    expect(body).toContain("Payments are not configured on this server");
    expect(body).toContain("npm run packyard -- users set-plan --username NAME --plan starter|pro|basic");
    expect(body).toContain("$390.00");
    expect(html).toContain('href="/auth/signin?mode=signup&amp;plan=basic&amp;annual=true"');
    expect(html).not.toContain('href="/auth/signin?mode=signup&amp;plan=pro');
  });

  it("/subscription and /billing show the plan the operator set", async () => {
    const { cookie, userId } = await onboardedUser(app, "selfhosted");
    let body = text((await page(app, "/subscription", cookie)).html);
    expect(body).toContain("Current plan Basic");
    expect(body).toContain("This server takes no payments");
    await setOperatorPlan(app.services.database.db, userId, "pro", new Date("2099-01-01T00:00:00Z"));
    body = text((await page(app, "/subscription", cookie)).html);
    expect(body).toContain("Current plan Pro");
    expect(body).toContain("Set by the operator of this server");
    // Usage against the limits of the plan in force, as on /dashboard.
    expect(body).toContain("Private projects");
    expect(body).toContain("Downloads this month");
    expect(body).toContain("of 250 GB");
    expect(body).toContain("Until the end of Dec 31, 2098 (UTC)");
    body = text((await page(app, "/billing", cookie)).html);
    expect(body).toContain("No payments on this server");
    expect(body).toContain("Set by the operator of this server; nothing is charged for it.");
  });

  it("refuses billing actions, and /billing/success says there is no checkout to confirm", async () => {
    const { cookie } = await onboardedUser(app, "nocard");
    const res = await postForm(
      app,
      "/subscription",
      { intent: "checkout", plan: "pro", annual: "false" },
      cookie,
    );
    expect(res.status).toBe(409);
    expect(text(await res.text())).toContain("Payments are not configured on this server.");
    for (const path of ["/billing/success", "/billing/success?session_id=cs_x"]) {
      const success = await page(app, path, cookie);
      expect(success.status).toBe(200);
      const body = text(success.html);
      expect(body).toContain("No checkout to confirm");
      expect(body).toContain("This server takes no payments, so nothing was charged.");
      expect(success.html).toContain('href="/subscription"');
    }
  });

  it("sign-up and onboarding name the plan chosen on /pricing", async () => {
    let body = text((await page(app, "/auth/signin?mode=signup&plan=starter&annual=false")).html);
    expect(body).toContain("You chose the Starter plan ($12.00 a month).");
    expect(body).toContain("This server takes no payments: its operator puts accounts on a plan.");
    body = text((await page(app, "/auth/signin?mode=signup")).html);
    expect(body).not.toContain("You chose the");
    const cookie = await signUpVerified(app, { email: "chooser@example.com" });
    body = text((await page(app, "/onboarding?plan=pro&annual=true", cookie)).html);
    expect(body).toContain("You chose the Pro plan ($390.00 a year).");
    body = text((await page(app, "/onboarding?plan=basic", cookie)).html);
    expect(body).toContain("You chose the Basic plan.");
  });

  it("onboarding with a paid plan goes to the dashboard", async () => {
    const cookie = await signUpVerified(app, { email: "planner@example.com" });
    const res = await postForm(
      app,
      "/onboarding?plan=pro&annual=true",
      { name: "Pat Planner", username: "planner" },
      cookie,
    );
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/dashboard?plan=pro&annual=true&welcome=1");
  });
});

describe(`billing pages with Stripe (${databaseKind})`, () => {
  let app: TestApp;
  let fake: FakeStripe;
  beforeAll(async () => {
    fake = await startFakeStripe({ autoDeliver: true });
    app = await createTestApp(fake.env);
    fake.setWebhookTarget((payload, signature) =>
      app.request("/api/auth/stripe/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": signature },
        body: payload,
      }),
    );
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it("/pricing's paid buttons lead to sign-up with the plan, and the CSP lets forms reach Stripe", async () => {
    const { html, headers } = await page(app, "/pricing?annual=true");
    expect(text(html)).not.toContain("Payments are not configured");
    expect(html).toContain('href="/auth/signin?mode=signup&amp;plan=pro&amp;annual=true"');
    expect(headers.get("content-security-policy")).toContain(
      "form-action 'self' http://127.0.0.1:* http://localhost:* https://checkout.stripe.com https://billing.stripe.com",
    );
  });

  it("runs the journey: onboarding → Checkout → /billing/success → /subscription → /billing", async () => {
    const cookie = await signUpVerified(app, { email: "journey@example.com" });
    expect(text((await page(app, "/auth/signin?mode=signup&plan=pro&annual=true")).html)).toContain(
      "You chose the Pro plan ($390.00 a year). Checkout for it follows once you have chosen a username.",
    );
    expect(text((await page(app, "/onboarding?plan=pro&annual=true", cookie)).html)).toContain(
      "You chose the Pro plan ($390.00 a year). Continue takes you to checkout for it.",
    );
    const onboarded = await postForm(
      app,
      "/onboarding?plan=pro&annual=true",
      { name: "Jo Journey", username: "journey" },
      cookie,
    );
    expect(onboarded.status).toBe(302);
    const checkoutUrl = onboarded.headers.get("location")!;
    expect(checkoutUrl).toMatch(new RegExp(`^${fake.url}/checkout/cs_`));
    const sessionId = checkoutUrl.split("/").pop()!;
    const session = fake.sessions.get(sessionId)!;
    expect(session.line_items).toEqual([{ price: "price_fake_pro_annual", quantity: "1" }]);
    expect(session.cancel_url).toBe("http://localhost:3000/billing/cancel?plan=pro&annual=true");

    // The hosted page's button: Stripe sends the browser to the plugin's success endpoint, which
    // redirects to /billing/success with the session id.
    const back = new URL(await fake.completeCheckout(sessionId));
    const relay = await app.request(`${back.pathname}${back.search}`, { cookie });
    expect(relay.status).toBe(302);
    expect(relay.headers.get("location")).toBe(
      `http://localhost:3000/billing/success?session_id=${sessionId}`,
    );

    const success = text((await page(app, `/billing/success?session_id=${sessionId}`, cookie)).html);
    expect(success).toContain("You are on Pro");
    expect(success).toContain("billed annually; it renews on");

    const subscription = text((await page(app, "/subscription", cookie)).html);
    expect(subscription).toContain("Current plan Pro Active");
    expect(subscription).toContain("$390.00 / year, billed annually");
    expect(subscription).toMatch(/Renews on \w{3} \d{1,2}, \d{4}/);

    const billing = text((await page(app, "/billing", cookie)).html);
    expect(billing).toContain("Visa •••• 4242");
    expect(billing).toContain("Expires 12/2034");
    expect(billing).toMatch(/\$390\.00 Paid/);
    expect(billing).toContain("Manage billing");
    const { html } = await page(app, "/billing", cookie);
    expect(html).toMatch(new RegExp(`href="${fake.url}/invoices/in_\\w+\\.pdf"`));

    const portal = await postForm(app, "/billing", { intent: "portal" }, cookie);
    expect(portal.status).toBe(302);
    expect(portal.headers.get("location")).toMatch(new RegExp(`^${fake.url}/portal/bps_`));
  });

  it("cancels at period end, shows the end date, and resumes", async () => {
    const { cookie } = await subscribed(app, fake, "canceler", "starter", false);
    const canceled = await postForm(app, "/subscription", { intent: "cancel" }, cookie);
    expect(canceled.status).toBe(200);
    let body = text((await page(app, "/subscription", cookie)).html);
    expect(body).toContain("Cancels at period end");
    expect(body).toMatch(/Ends on \w{3} \d{1,2}, \d{4} ?; Basic after that/);
    expect(body).toContain("Resume subscription");
    expect((await postForm(app, "/subscription", { intent: "resume" }, cookie)).status).toBe(200);
    body = text((await page(app, "/subscription", cookie)).html);
    expect(body).toMatch(/Renews on/);
  });

  it("changes plan from /subscription; refuses a checkout without a plan", async () => {
    const { cookie } = await subscribed(app, fake, "upgrader", "starter", false);
    const changed = await postForm(
      app,
      "/subscription",
      { intent: "change", plan: "pro", annual: "false" },
      cookie,
    );
    expect(changed.status).toBe(200);
    expect(text((await page(app, "/subscription", cookie)).html)).toContain("Current plan Pro Active");
    const bad = await postForm(app, "/subscription", { intent: "checkout", plan: "basic" }, cookie);
    expect(bad.status).toBe(400);
  });

  it("shows the past-due banner on the dashboard after a failed payment, with the portal button", async () => {
    const { cookie, subscriptionId } = await subscribed(app, fake, "pastdue", "pro", false);
    expect(text((await page(app, "/dashboard", cookie)).html)).not.toContain("Your last payment");
    await fake.failRenewal(subscriptionId);
    await fake.settled();
    const dashboard = await page(app, "/dashboard", cookie);
    expect(text(dashboard.html)).toContain("Your last payment for Pro failed.");
    expect(dashboard.html).toContain('data-testid="past-due-banner"');
    expect(dashboard.html).toContain('action="/billing"');
    expect(text((await page(app, "/subscription", cookie)).html)).toContain("Payment failed");
    expect(
      app.outbox().filter((m) => m.to.includes("pastdue@example.com") && /failed/.test(m.subject)),
    ).toHaveLength(1);
  });

  it("/billing/cancel says nothing was charged and offers the same plan again", async () => {
    const { cookie } = await onboardedUser(app, "backer");
    const body = text((await page(app, "/billing/cancel?plan=pro&annual=true", cookie)).html);
    expect(body).toContain("Checkout canceled");
    expect(body).toContain(
      "Nothing was charged and you are still on your current plan. Try Pro (annual) again",
    );
    expect(body).toContain("Try again");
    const again = await postForm(
      app,
      "/subscription",
      { intent: "checkout", plan: "pro", annual: "true" },
      cookie,
    );
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toMatch(new RegExp(`^${fake.url}/checkout/cs_`));
  });

  it("/billing/success names no checkout for a missing or foreign session", async () => {
    const { cookie } = await onboardedUser(app, "lost");
    expect(text((await page(app, "/billing/success", cookie)).html)).toContain("No checkout to confirm");
    expect(text((await page(app, "/billing/success?session_id=cs_fake_nope", cookie)).html)).toContain(
      "No checkout to confirm",
    );
  });
});

/** A user with a paid subscription (checkout through the plugin, confirmed on /billing/success). */
async function subscribed(app: TestApp, fake: FakeStripe, username: string, plan: string, annual: boolean) {
  const user = await onboardedUser(app, username);
  const res = await postJson(
    app,
    "/api/auth/subscription/upgrade",
    { plan, annual, successUrl: "/billing/success", cancelUrl: "/billing/cancel", disableRedirect: true },
    user.cookie,
  );
  const sessionId = ((await res.json()) as { url: string }).url.split("/").pop()!;
  await fake.completeCheckout(sessionId);
  const confirmed = await app.request(`/billing/success?session_id=${sessionId}`, { cookie: user.cookie });
  expect(confirmed.status).toBe(200);
  const subscriptionId = String(fake.sessions.get(sessionId)!.subscription);
  return { ...user, subscriptionId };
}
