// Writes what Stripe says about a subscription into the plugin's `subscription` row: the one
// function the webhook, the /billing/success confirmation and the /subscription actions share,
// so they cannot disagree. Applying the same Stripe state twice changes nothing.
import type { DBAdapter } from "@better-auth/core/db/adapter";
import type Stripe from "stripe";
import { isOrganizationEmail } from "../orgs/storage.ts";
import type { StripeConfig } from "../platform/config/config.ts";
import type { SubscriptionStatus, SubscriptionTable } from "./plan.ts";
import { planOfPrice } from "./stripe.ts";

export type Adapter = DBAdapter;

const seconds = (value: number | null | undefined) => (value ? new Date(value * 1000) : null);

export function customerIdOf(value: string | { id: string } | null | undefined): string | undefined {
  if (!value) return undefined;
  return typeof value === "string" ? value : value.id;
}

/** The subscription an invoice belongs to (API 2025-03 and later: under parent). */
export function invoiceSubscriptionId(invoice: Stripe.Invoice): string | undefined {
  const fromParent = invoice.parent?.subscription_details?.subscription;
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  return customerIdOf(fromParent ?? legacy);
}

/** The item of a subscription that carries a Packyard plan, with that plan. */
export function planItem(config: StripeConfig, subscription: Stripe.Subscription) {
  for (const item of subscription.items.data) {
    const plan = planOfPrice(config, item.price.id);
    if (plan) return { item, ...plan };
  }
  return undefined;
}

export interface ApplyResult {
  row: SubscriptionTable;
  userId: string;
  created: boolean;
}

/**
 * Records a Stripe subscription for its Packyard user. The row is found by the Stripe
 * subscription id, then by the row id the plugin put in the metadata at checkout; the user is the
 * row's, then the hint's (a checkout session's client_reference_id), then the metadata's, then
 * the owner of the Stripe customer. Returns undefined (and changes nothing) for a subscription
 * of no known user or with no configured price.
 */
export async function applyStripeSubscription(
  adapter: Adapter,
  config: StripeConfig,
  subscription: Stripe.Subscription,
  options: { userId?: string; status?: SubscriptionStatus | Stripe.Subscription.Status } = {},
): Promise<ApplyResult | undefined> {
  const resolved = planItem(config, subscription);
  if (!resolved) return undefined;
  const customerId = customerIdOf(subscription.customer);
  const metadata = subscription.metadata ?? {};
  let row = await adapter.findOne<SubscriptionTable>({
    model: "subscription",
    where: [{ field: "stripeSubscriptionId", value: subscription.id }],
  });
  if (!row && metadata.subscriptionId) {
    row = await adapter.findOne<SubscriptionTable>({
      model: "subscription",
      where: [{ field: "id", value: metadata.subscriptionId }],
    });
  }
  let userId = row?.referenceId ?? options.userId ?? metadata.referenceId ?? metadata.userId;
  if (!userId && customerId) {
    const owner = await adapter.findOne<{ id: string }>({
      model: "user",
      where: [{ field: "stripeCustomerId", value: customerId }],
    });
    userId = owner?.id;
  }
  if (!userId) return undefined;
  // A row found through metadata must belong to the same user.
  if (row && row.referenceId !== userId) return undefined;
  const { item, plan, annual } = resolved;
  const state = {
    plan,
    status: options.status ?? subscription.status,
    stripeCustomerId: customerId ?? null,
    stripeSubscriptionId: subscription.id,
    periodStart: seconds(item.current_period_start),
    periodEnd: seconds(item.current_period_end),
    trialStart: seconds(subscription.trial_start),
    trialEnd: seconds(subscription.trial_end),
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    cancelAt: seconds(subscription.cancel_at),
    canceledAt: seconds(subscription.canceled_at),
    endedAt: seconds(subscription.ended_at),
    seats: item.quantity ?? 1,
    billingInterval: annual ? "year" : "month",
  };
  let created = false;
  if (row) {
    row =
      (await adapter.update<SubscriptionTable>({
        model: "subscription",
        where: [{ field: "id", value: row.id }],
        update: state,
      })) ?? row;
  } else {
    row = await adapter.create<Record<string, unknown>, SubscriptionTable>({
      model: "subscription",
      data: { referenceId: userId, ...state },
    });
    created = true;
  }
  if (customerId) {
    const user = await adapter.findOne<{ id: string; email: string; stripeCustomerId?: string | null }>({
      model: "user",
      where: [{ field: "id", value: userId }],
    });
    // An organization is paid for on its owner's customer (decision 040): the customer stays
    // the owner's, so looking a customer up finds a person.
    if (user && !user.stripeCustomerId && !isOrganizationEmail(user.email)) {
      await adapter.update({
        model: "user",
        where: [{ field: "id", value: userId }],
        update: { stripeCustomerId: customerId },
      });
    }
  }
  return { row, userId, created };
}
