// Stripe's webhook and the billing actions against a fake Stripe at its HTTP boundary
// (test/fake-stripe.ts): signatures, idempotency by event id, the subscription states, the
// past-due mail and banner, the success-page confirmation, plan changes and cancelation.
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_WEBHOOK_SECRET, type FakeStripe, startFakeStripe } from "../../test/fake-stripe.ts";
import { createTestApp, databaseKind, onboardedUser, postJson, type TestApp } from "../../test/harness.ts";
import {
  billingDetails,
  billingNotice,
  changePlan,
  confirmCheckout,
  latestSubscription,
  setCancelAtPeriodEnd,
} from "./account.ts";
import { accountPlan, billingDb } from "./plan.ts";

let fake: FakeStripe;
let app: TestApp;
const WEBHOOK = "/api/auth/stripe/webhook";

function post(payload: string, signature?: string) {
  return app.request(WEBHOOK, {
    method: "POST",
    headers: { "content-type": "application/json", ...(signature ? { "stripe-signature": signature } : {}) },
    body: payload,
  });
}

beforeAll(async () => {
  fake = await startFakeStripe();
  app = await createTestApp(fake.env);
  fake.setWebhookTarget((payload, signature) => post(payload, signature));
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const db = () => app.services.database.db;

/** A user who went through Checkout for a plan (paid at the fake), no event delivered yet. */
async function paidCheckout(username: string, plan: "starter" | "pro", annual: boolean) {
  const user = await onboardedUser(app, username);
  const res = await postJson(
    app,
    "/api/auth/subscription/upgrade",
    {
      plan,
      annual,
      successUrl: "/billing/success?session_id={CHECKOUT_SESSION_ID}",
      cancelUrl: "/billing/cancel",
      disableRedirect: true,
    },
    user.cookie,
  );
  expect(res.status).toBe(200);
  const { url } = (await res.json()) as { url: string };
  const sessionId = url.split("/").pop()!;
  const session = fake.sessions.get(sessionId)!;
  expect(session).toMatchObject({ mode: "subscription", client_reference_id: user.userId });
  await fake.completeCheckout(sessionId);
  const subscription = fake.subscriptions.get(String(session.subscription))!;
  return { ...user, sessionId, session, subscription };
}

/** The signature with its last hex digit changed. */
function flipLast(signature: string) {
  return signature.slice(0, -1) + (signature.endsWith("0") ? "1" : "0");
}

async function eventCount() {
  const { n } = await billingDb(db())
    .selectFrom("stripe_event")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(n);
}

describe(`Stripe webhook (${databaseKind})`, () => {
  it("answers 400 to a missing, wrong or forged signature and changes nothing", async () => {
    const { userId, session } = await paidCheckout("badsig", "pro", false);
    const before = await eventCount();
    const { payload, signature } = fake.signedEvent("checkout.session.completed", session);

    const missing = await post(payload);
    expect(missing.status).toBe(400);
    expect((await missing.json()).code).toBe("STRIPE_SIGNATURE_MISSING");

    const otherSecret = new Stripe("sk_test_x").webhooks.generateTestHeaderString({
      payload,
      secret: "whsec_not_the_configured_one",
    });
    for (const bad of [otherSecret, "t=1,v1=deadbeef", flipLast(signature)]) {
      const res = await post(payload, bad);
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe("STRIPE_SIGNATURE_INVALID");
    }
    // A valid signature over another payload.
    const forged = payload.replace('"status":"complete"', '"status":"open"');
    expect((await post(forged, signature)).status).toBe(400);

    expect(await eventCount()).toBe(before);
    expect(await accountPlan(db(), userId)).toEqual({ plan: "basic", source: "default" });
    // The plugin's pending row is still waiting for the payment.
    const rows = await billingDb(db())
      .selectFrom("subscription")
      .selectAll()
      .where("referenceId", "=", userId)
      .execute();
    expect(rows.map((r) => r.status)).toEqual(["incomplete"]);
  });

  it("answers 400 to a valid signature dated more than 300 s away, either way, and changes nothing", async () => {
    const { userId, session } = await paidCheckout("clocksig", "pro", false);
    const before = await eventCount();
    const { payload } = fake.signedEvent("checkout.session.completed", session);
    const signedAt = (offsetSeconds: number) =>
      new Stripe("sk_test_x").webhooks.generateTestHeaderString({
        payload,
        secret: FAKE_WEBHOOK_SECRET,
        timestamp: Math.floor(Date.now() / 1000) + offsetSeconds,
      });
    const year = 365 * 24 * 60 * 60;
    for (const offset of [10 * year, 3600, -3600]) {
      const res = await post(payload, signedAt(offset));
      expect(res.status, `signed ${offset} s from now`).toBe(400);
      expect((await res.json()).code).toBe("STRIPE_SIGNATURE_INVALID");
    }
    expect(await eventCount()).toBe(before);
    expect(await accountPlan(db(), userId)).toEqual({ plan: "basic", source: "default" });
    // Within the tolerance (a clock a minute off) it is taken.
    expect((await post(payload, signedAt(60))).status).toBe(200);
    expect((await accountPlan(db(), userId)).plan).toBe("pro");
  });

  it("checkout.session.completed puts the account on the plan, once however often it comes", async () => {
    const { userId, session, subscription } = await paidCheckout("buyer", "pro", true);
    const { id, payload, signature } = fake.signedEvent("checkout.session.completed", session);
    const first = await post(payload, signature);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true });
    const plan = await accountPlan(db(), userId);
    expect(plan).toMatchObject({ plan: "pro", source: "subscription", status: "active", annual: true });
    expect(plan.periodEnd?.getTime()).toBe(
      Number((subscription.items as { data: { current_period_end: number }[] }).data[0]!.current_period_end) *
        1000,
    );

    const again = await post(payload, signature);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    const rows = await billingDb(db()).selectFrom("stripe_event").selectAll().where("id", "=", id).execute();
    expect(rows).toHaveLength(1);
    // One subscription row: the plugin's pending one, now active.
    const subs = await billingDb(db())
      .selectFrom("subscription")
      .selectAll()
      .where("referenceId", "=", userId)
      .execute();
    expect(subs.map((s) => [s.plan, s.status, s.stripeSubscriptionId])).toEqual([
      ["pro", "active", subscription.id],
    ]);
  });

  it("customer.subscription.created and invoice.paid lead to the same single row", async () => {
    const { userId, subscription, session } = await paidCheckout("creator", "starter", false);
    expect(await fake.emit("customer.subscription.created", subscription)).toBe(200);
    const invoice = [...fake.invoices.values()].find((i) => i.customer === subscription.customer)!;
    expect(await fake.emit("invoice.paid", invoice)).toBe(200);
    expect(await fake.emit("checkout.session.completed", session)).toBe(200);
    expect(await accountPlan(db(), userId)).toMatchObject({
      plan: "starter",
      status: "active",
      annual: false,
    });
    const subs = await billingDb(db())
      .selectFrom("subscription")
      .selectAll()
      .where("referenceId", "=", userId)
      .execute();
    expect(subs).toHaveLength(1);
  });

  it("invoice.payment_failed makes it past due: banner data and one mail, also when replayed", async () => {
    const { userId, subscription, session } = await paidCheckout("declined", "pro", false);
    await fake.emit("checkout.session.completed", session);
    const mailsBefore = app.outbox().filter((m) => m.to.includes("declined@example.com")).length;
    const { invoice } = await fake.failRenewal(subscription.id);
    const event = fake.signedEvent("invoice.payment_failed", invoice);
    expect((await post(event.payload, event.signature)).status).toBe(200);
    expect((await post(event.payload, event.signature)).status).toBe(200);

    expect(await accountPlan(db(), userId)).toMatchObject({ plan: "pro", status: "past_due" });
    expect(await billingNotice(db(), userId)).toEqual({ kind: "past_due", plan: "pro" });
    const mails = app.outbox().filter((m) => m.to.includes("declined@example.com"));
    expect(mails).toHaveLength(mailsBefore + 1);
    const mail = mails.at(-1)!;
    expect(mail.subject).toBe("Your payment for Packyard Pro failed");
    expect(mail.text).toContain("We could not charge $39.00");
    expect(mail.links).toContain("http://localhost:3000/billing");

    // The card is fixed and the invoice paid: active again, no banner.
    invoice.status = "paid";
    subscription.status = "active";
    expect(await fake.emit("invoice.paid", invoice)).toBe(200);
    expect(await accountPlan(db(), userId)).toMatchObject({ plan: "pro", status: "active" });
    expect(await billingNotice(db(), userId)).toBeUndefined();
  });

  it("customer.subscription.deleted returns the account to Basic; a late update does not revive it", async () => {
    const { userId, subscription, session } = await paidCheckout("quitter", "starter", true);
    await fake.emit("checkout.session.completed", session);
    const staleUpdate = fake.signedEvent("customer.subscription.updated", structuredClone(subscription));
    const ended = await fake.endSubscription(subscription.id, { deliver: false });
    expect(await fake.emit("customer.subscription.deleted", ended)).toBe(200);
    expect(await accountPlan(db(), userId)).toEqual({ plan: "basic", source: "default" });
    expect(await latestSubscription(db(), userId)).toMatchObject({ plan: "starter", status: "canceled" });

    // Sent before the deletion, delivered after it: Stripe now says canceled.
    expect((await post(staleUpdate.payload, staleUpdate.signature)).status).toBe(200);
    expect(await accountPlan(db(), userId)).toEqual({ plan: "basic", source: "default" });
  });

  it("answers 500 and keeps no claim when an event cannot be applied, so Stripe retries", async () => {
    const invoice = {
      id: "in_fake_orphan",
      object: "invoice",
      parent: { subscription_details: { subscription: "sub_fake_missing" } },
    };
    const event = fake.signedEvent("invoice.paid", invoice);
    const before = await eventCount();
    expect((await post(event.payload, event.signature)).status).toBe(500);
    expect(await eventCount()).toBe(before);
    expect((await post(event.payload, event.signature)).status).toBe(500);
  });

  it("acknowledges events Packyard does not use", async () => {
    expect(await fake.emit("customer.created", { id: "cus_fake_other", object: "customer" })).toBe(200);
  });
});

describe(`billing actions (${databaseKind})`, () => {
  it("/billing/success's confirmation applies a paid checkout before the webhook, idempotently", async () => {
    const { userId, sessionId, session } = await paidCheckout("confirmer", "pro", true);
    const other = await onboardedUser(app, "snooper");
    expect(await confirmCheckout(app.services, other.userId, sessionId)).toEqual({ state: "not-found" });
    expect(await confirmCheckout(app.services, userId, "cs_fake_unknown")).toEqual({ state: "not-found" });
    expect(await confirmCheckout(app.services, userId, "not a session")).toEqual({ state: "not-found" });

    const confirmed = await confirmCheckout(app.services, userId, sessionId);
    expect(confirmed).toMatchObject({
      state: "complete",
      plan: { plan: "pro", annual: true, status: "active" },
    });
    expect(await confirmCheckout(app.services, userId, sessionId)).toMatchObject({ state: "complete" });
    expect(await fake.emit("checkout.session.completed", session)).toBe(200);
    const subs = await billingDb(db())
      .selectFrom("subscription")
      .selectAll()
      .where("referenceId", "=", userId)
      .execute();
    expect(subs).toHaveLength(1);
  });

  it("an unpaid checkout is reported open", async () => {
    const user = await onboardedUser(app, "hesitant");
    const res = await postJson(
      app,
      "/api/auth/subscription/upgrade",
      {
        plan: "starter",
        annual: false,
        successUrl: "/billing/success",
        cancelUrl: "/billing/cancel",
        disableRedirect: true,
      },
      user.cookie,
    );
    const sessionId = ((await res.json()) as { url: string }).url.split("/").pop()!;
    expect(await confirmCheckout(app.services, user.userId, sessionId)).toEqual({ state: "open" });
    expect(await accountPlan(db(), user.userId)).toEqual({ plan: "basic", source: "default" });
  });

  it("changes plan and period with proration, cancels at period end and resumes", async () => {
    const { userId, sessionId, subscription } = await paidCheckout("changer", "starter", false);
    await confirmCheckout(app.services, userId, sessionId);
    const invoicesBefore = [...fake.invoices.values()].filter(
      (i) => i.customer === subscription.customer,
    ).length;

    await changePlan(app.services, userId, { plan: "pro", annual: false });
    expect(await accountPlan(db(), userId)).toMatchObject({ plan: "pro", annual: false });
    // Stripe's proration: an invoice for the difference.
    const invoices = [...fake.invoices.values()].filter((i) => i.customer === subscription.customer);
    expect(invoices.length).toBe(invoicesBefore + 1);
    expect(invoices.at(-1)).toMatchObject({ billing_reason: "subscription_update", status: "paid" });

    await changePlan(app.services, userId, { plan: "pro", annual: true });
    expect(await accountPlan(db(), userId)).toMatchObject({ plan: "pro", annual: true });
    await expect(changePlan(app.services, userId, { plan: "pro", annual: true })).rejects.toMatchObject({
      code: "SAME_PLAN",
    });

    await setCancelAtPeriodEnd(app.services, userId, true);
    const canceling = await accountPlan(db(), userId);
    expect(canceling).toMatchObject({ plan: "pro", cancelAtPeriodEnd: true, status: "active" });
    expect(fake.subscriptions.get(subscription.id)?.cancel_at_period_end).toBe(true);
    await setCancelAtPeriodEnd(app.services, userId, false);
    expect(await accountPlan(db(), userId)).toMatchObject({ plan: "pro", cancelAtPeriodEnd: false });

    const details = await billingDetails(app.services, userId);
    expect(details.paymentMethod).toEqual({ brand: "visa", last4: "4242", expMonth: 12, expYear: 2034 });
    expect(details.invoices.length).toBe(invoicesBefore + 2);
    expect(details.invoices[0]).toMatchObject({ currency: "usd", status: "paid" });
    expect(details.invoices[0]!.pdfUrl).toMatch(/\.pdf$/);
  });

  it("ends the Stripe subscription at once when the account is deleted", async () => {
    const { userId, sessionId, subscription } = await paidCheckout("leaver", "pro", false);
    await confirmCheckout(app.services, userId, sessionId);
    const ctx = await app.services.auth.$context;
    await ctx.internalAdapter.deleteUser(userId);
    expect(fake.subscriptions.get(subscription.id)?.status).toBe("canceled");
    const rows = await billingDb(db())
      .selectFrom("subscription")
      .selectAll()
      .where("referenceId", "=", userId)
      .execute();
    expect(rows).toEqual([]);
  });

  it("refuses changes without a paid subscription", async () => {
    const { userId } = await onboardedUser(app, "freeloader");
    await expect(changePlan(app.services, userId, { plan: "pro", annual: false })).rejects.toMatchObject({
      code: "NO_SUBSCRIPTION",
    });
    expect(await billingDetails(app.services, userId)).toEqual({ invoices: [], hasCustomer: false });
  });
});

describe(`Stripe webhook and the auth API's rate limit (${databaseKind})`, () => {
  it("takes a burst of events from one address (the per-address limit is 100 a minute)", async () => {
    const limited = await createTestApp({ ...fake.env, AUTH_RATE_LIMIT: "true" });
    try {
      const statuses = new Set<number>();
      for (let i = 0; i < 120; i++) {
        const { payload, signature } = fake.signedEvent("customer.created", {
          id: `cus_fake_${i}`,
          object: "customer",
        });
        const res = await limited.request(WEBHOOK, {
          method: "POST",
          headers: { "content-type": "application/json", "stripe-signature": signature },
          body: payload,
        });
        statuses.add(res.status);
      }
      expect([...statuses]).toEqual([200]);
    } finally {
      await limited.close();
    }
  });
});
