// Stripe's webhook, POST /api/auth/stripe/webhook (the plugin's path, Packyard's handler):
//
// - The Stripe-Signature header is verified against STRIPE_WEBHOOK_SECRET, and its time must be
//   within 300 s of now either way: anything else is 400 and changes nothing.
// - Each event is applied once: its id is claimed in stripe_event first; a replay or a retry
//   of an applied event answers 200 without touching anything. An event whose application
//   fails gives its claim back and answers 500, so Stripe retries it.
// - State is read back from Stripe (the subscription as it is now), not from the event, so
//   events arriving out of order cannot move a subscription back. A deleted subscription is
//   final, and taken from the event.
//
// checkout.session.completed, customer.subscription.created/updated/deleted, invoice.paid and
// invoice.payment_failed drive the subscription's status (active, trialing, past_due, canceled,
// incomplete); a failed payment also mails the owner, and /dashboard shows a banner
// (notice.ts). Other events are acknowledged and ignored.
import { createAuthEndpoint } from "@better-auth/core/api";
import { plans } from "@packyard/contract/plans.ts";
import { HIDE_METADATA } from "better-auth";
import type { Kysely } from "kysely";
import type Stripe from "stripe";
import { ownerRecipients } from "../orgs/storage.ts";
import type { StripeConfig } from "../platform/config/config.ts";
import type { Database } from "../platform/db/schema.ts";
import type { Mailer } from "../platform/mail/mailer.ts";
import { paymentFailedMail } from "../platform/mail/templates.ts";
import type { BillingDatabase } from "./plan.ts";
import { type Adapter, applyStripeSubscription, customerIdOf, invoiceSubscriptionId } from "./sync.ts";

export interface WebhookDeps {
  stripe: Stripe;
  config: StripeConfig;
  baseUrl: string;
  mailer: Mailer;
  db: Kysely<BillingDatabase>;
}

/** How far a signature's time may be from now, either way: Stripe's default. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The signature's time (`t=`, seconds), read as the Stripe library reads it: the last one. */
function signedAt(header: string): number {
  let timestamp = Number.NaN;
  for (const item of header.split(",")) {
    const [key, value] = item.split("=");
    if (key === "t") timestamp = Number.parseInt(value ?? "", 10);
  }
  return timestamp;
}

export function stripeWebhookEndpoint(deps: WebhookDeps) {
  const { stripe, config, db } = deps;
  return createAuthEndpoint(
    "/stripe/webhook",
    { method: "POST", metadata: { ...HIDE_METADATA }, cloneRequest: true, disableBody: true },
    async (ctx) => {
      const signature = ctx.request?.headers.get("stripe-signature");
      const payload = ctx.request ? await ctx.request.text() : "";
      if (!signature) {
        throw ctx.error("BAD_REQUEST", {
          code: "STRIPE_SIGNATURE_MISSING",
          message: "The Stripe-Signature header is missing.",
        });
      }
      let event: Stripe.Event;
      try {
        event = await stripe.webhooks.constructEventAsync(
          payload,
          signature,
          config.webhookSecret,
          SIGNATURE_TOLERANCE_SECONDS,
        );
        // The library refuses only signatures too old; one dated ahead would be good for as long
        // (a captured request replayable for years), so that side is refused here.
        if (signedAt(signature) > Date.now() / 1000 + SIGNATURE_TOLERANCE_SECONDS) throw new Error("future");
      } catch {
        throw ctx.error("BAD_REQUEST", {
          code: "STRIPE_SIGNATURE_INVALID",
          message: "The webhook signature does not match the payload.",
        });
      }
      const claimed = await db
        .insertInto("stripe_event")
        .values({ id: event.id, type: event.type, applied_at: new Date().toISOString() })
        .onConflict((oc) => oc.column("id").doNothing())
        .returning("id")
        .executeTakeFirst();
      if (!claimed) {
        return ctx.json({ received: true, duplicate: true });
      }
      try {
        await applyEvent({ ...deps, adapter: ctx.context.adapter }, event);
      } catch (error) {
        await db.deleteFrom("stripe_event").where("id", "=", event.id).execute();
        ctx.context.logger.error(
          `Stripe webhook ${event.type} ${event.id} failed: ${(error as Error).message}`,
        );
        throw ctx.error("INTERNAL_SERVER_ERROR", {
          code: "STRIPE_WEBHOOK_FAILED",
          message: "The event could not be applied; Stripe will retry it.",
        });
      }
      return ctx.json({ received: true });
    },
  );
}

/** The subscription as Stripe has it now; the event's copy if Stripe no longer has it. */
async function current(stripe: Stripe, subscription: Stripe.Subscription): Promise<Stripe.Subscription> {
  try {
    return await stripe.subscriptions.retrieve(subscription.id);
  } catch (error) {
    if ((error as { code?: string }).code === "resource_missing") return subscription;
    throw error;
  }
}

async function applyEvent(deps: WebhookDeps & { adapter: Adapter }, event: Stripe.Event): Promise<void> {
  const { stripe, config, adapter } = deps;
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const session = event.data.object;
      const subscriptionId = customerIdOf(session.subscription);
      if (session.mode !== "subscription" || !subscriptionId) return;
      const subscription = await stripe.subscriptions.retrieve(subscriptionId);
      const userId = session.client_reference_id ?? session.metadata?.userId;
      await applyStripeSubscription(adapter, config, subscription, userId ? { userId } : {});
      return;
    }
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.paused":
    case "customer.subscription.resumed":
      await applyStripeSubscription(adapter, config, await current(stripe, event.data.object));
      return;
    case "customer.subscription.deleted":
      await applyStripeSubscription(adapter, config, event.data.object, { status: "canceled" });
      return;
    case "invoice.paid": {
      const subscriptionId = invoiceSubscriptionId(event.data.object);
      if (!subscriptionId) return;
      await applyStripeSubscription(adapter, config, await stripe.subscriptions.retrieve(subscriptionId));
      return;
    }
    case "invoice.payment_failed": {
      const invoice = event.data.object;
      const subscriptionId = invoiceSubscriptionId(invoice);
      if (!subscriptionId) return;
      const subscription = await stripe.subscriptions.retrieve(subscriptionId);
      // A renewal that failed leaves the subscription past due while Stripe retries the card
      // (Stripe may tell of it a moment later in customer.subscription.updated).
      const status = subscription.status === "active" ? "past_due" : subscription.status;
      const applied = await applyStripeSubscription(adapter, config, subscription, { status });
      if (!applied || status !== "past_due") return;
      // The person, or an organization's owners (decision 040).
      const recipients = await ownerRecipients(deps.db as unknown as Kysely<Database>, applied.userId);
      const org = await deps.db
        .selectFrom("organization")
        .select("slug")
        .where("id", "=", applied.userId)
        .executeTakeFirst();
      const planName = plans[applied.row.plan as keyof typeof plans]?.name ?? applied.row.plan;
      for (const user of recipients)
        await deps.mailer.send(
          paymentFailedMail(user.email, user.name, {
            planName,
            amount: formatAmount(invoice.amount_due, invoice.currency),
            ...(invoice.next_payment_attempt
              ? { nextAttempt: formatDay(new Date(invoice.next_payment_attempt * 1000)) }
              : {}),
            billingUrl: `${deps.baseUrl}/billing${org ? `?org=${encodeURIComponent(org.slug)}` : ""}`,
          }),
        );
      return;
    }
    default:
      return;
  }
}

/** Spec §9's currency display: minor units / 100, en-US, USD unless Stripe says otherwise. */
export function formatAmount(amountMinor: number, currency = "usd"): string {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(
    amountMinor / 100,
  );
}

function formatDay(date: Date): string {
  return date.toLocaleDateString("en-US", {
    year: "numeric",
    month: "long",
    day: "numeric",
    timeZone: "UTC",
  });
}
