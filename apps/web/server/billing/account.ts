// What the billing pages do and read: start a Checkout, confirm one on return, change plan or
// period (a subscription update, prorated as Stripe computes it), cancel at period end and
// resume, open the customer portal, and read the card and the invoices from Stripe.
// Every change is written back at once through applyStripeSubscription, the same function the
// webhook uses; the webhook arriving later changes nothing more.
import type { PlanId } from "@packyard/contract/plans.ts";
import type { Kysely } from "kysely";
import type Stripe from "stripe";
import type { StripeConfig } from "../platform/config/config.ts";
import type { Database } from "../platform/db/schema.ts";
import type { Services } from "../services.ts";
import {
  type AccountPlan,
  accountPlan,
  billingDb,
  payingSubscription,
  type SubscriptionTable,
  toBoolean,
  toDate,
} from "./plan.ts";
import { mayBillFor } from "./reference.ts";
import { createStripeClient, type PaidPlanId, priceFor } from "./stripe.ts";
import {
  type Adapter,
  applyStripeSubscription,
  customerIdOf,
  invoiceSubscriptionId,
  planItem,
} from "./sync.ts";

/** Where Checkout sends the user back (through the plugin's /api/auth/subscription/success). */
export const CHECKOUT_SUCCESS_PATH = "/billing/success?session_id={CHECKOUT_SESSION_ID}";

export type BillingErrorCode = "PAYMENTS_NOT_CONFIGURED" | "NO_SUBSCRIPTION" | "SAME_PLAN" | "STRIPE_ERROR";

export class BillingError extends Error {
  readonly code: BillingErrorCode;
  constructor(code: BillingErrorCode, message: string) {
    super(message);
    this.name = "BillingError";
    this.code = code;
  }
}

const clients = new WeakMap<StripeConfig, Stripe>();

/** The process's Stripe client for this configuration. */
export function stripeClient(config: StripeConfig): Stripe {
  let client = clients.get(config);
  if (!client) {
    client = createStripeClient(config);
    clients.set(config, client);
  }
  return client;
}

function requireStripe(services: Services): StripeConfig {
  const config = services.config.stripe;
  if (!config) {
    throw new BillingError("PAYMENTS_NOT_CONFIGURED", "Payments are not configured on this server.");
  }
  return config;
}

async function adapterOf(services: Services): Promise<Adapter> {
  return (await services.auth.$context).adapter as unknown as Adapter;
}

/** Stripe's own message for a failed call, as a BillingError; anything else is rethrown. */
function stripeFailure(error: unknown): never {
  if (error && typeof error === "object" && "type" in error && String(error.type).startsWith("Stripe")) {
    throw new BillingError("STRIPE_ERROR", `Stripe refused: ${(error as unknown as Error).message}`);
  }
  throw error;
}

// ---------------------------------------------------------------------------------------------
// Checkout.

/**
 * A Stripe Checkout for a paid plan and period, through the plugin (which creates the Stripe
 * customer once and remembers the pending subscription): the URL to send the browser to.
 * `org`: an organization the signed-in owner subscribes for (its id becomes the subscription's
 * referenceId; the plugin asks mayBillFor), on the owner's Stripe customer (decision 040).
 */
export async function startCheckout(
  services: Services,
  headers: Headers,
  choice: { plan: PaidPlanId; annual: boolean },
  org?: { id: string; slug: string },
): Promise<string> {
  requireStripe(services);
  const params = new URLSearchParams({ plan: choice.plan, annual: String(choice.annual) });
  if (org) params.set("org", org.slug);
  try {
    const result = await services.auth.api.upgradeSubscription({
      body: {
        plan: choice.plan,
        annual: choice.annual,
        successUrl: CHECKOUT_SUCCESS_PATH,
        cancelUrl: `/billing/cancel?${params}`,
        disableRedirect: true,
        ...(org ? { referenceId: org.id } : {}),
      },
      headers,
    });
    if (!result.url) throw new BillingError("STRIPE_ERROR", "Stripe did not return a checkout page.");
    return result.url;
  } catch (error) {
    if (error instanceof BillingError) throw error;
    const message = (error as { body?: { message?: string } }).body?.message ?? (error as Error).message;
    throw new BillingError("STRIPE_ERROR", message || "Checkout could not be started.");
  }
}

export type CheckoutConfirmation =
  | { state: "complete"; plan: AccountPlan }
  | { state: "open" | "expired" }
  | { state: "not-found" };

/**
 * The /billing/success check: the Checkout session as Stripe has it, applied at once when it is
 * paid (whether or not the webhook came first). A session for an account the user may not bill
 * for (another user's, an organization it does not own) is "not-found".
 */
export async function confirmCheckout(
  services: Services,
  signedIn: string,
  sessionId: string,
): Promise<CheckoutConfirmation & { account?: string }> {
  const config = requireStripe(services);
  const stripe = stripeClient(config);
  if (!/^cs_[A-Za-z0-9_]+$/.test(sessionId)) return { state: "not-found" };
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.retrieve(sessionId);
  } catch (error) {
    if ((error as { code?: string }).code === "resource_missing") return { state: "not-found" };
    stripeFailure(error);
  }
  const userId = session.client_reference_id ?? session.metadata?.userId;
  if (!userId || !(await mayBillFor(services.database.db, signedIn, userId))) return { state: "not-found" };
  if (session.status === "expired") return { state: "expired" };
  const subscriptionId = customerIdOf(session.subscription);
  if (session.status !== "complete" || !subscriptionId) return { state: "open" };
  const subscription = await stripe.subscriptions.retrieve(subscriptionId).catch(stripeFailure);
  await applyStripeSubscription(await adapterOf(services), config, subscription, { userId });
  return { state: "complete", plan: await accountPlan(services.database.db, userId), account: userId };
}

// ---------------------------------------------------------------------------------------------
// Changing the subscription.

async function currentSubscription(services: Services, userId: string) {
  const config = requireStripe(services);
  const row = await payingSubscription(services.database.db, userId);
  if (!row?.stripeSubscriptionId) {
    throw new BillingError("NO_SUBSCRIPTION", "You have no paid subscription to change.");
  }
  const stripe = stripeClient(config);
  const subscription = await stripe.subscriptions.retrieve(row.stripeSubscriptionId).catch(stripeFailure);
  return { config, stripe, subscription };
}

/** Another paid plan or period: Stripe prorates the change (create_prorations). */
export async function changePlan(
  services: Services,
  userId: string,
  choice: { plan: PaidPlanId; annual: boolean },
): Promise<void> {
  const { config, stripe, subscription } = await currentSubscription(services, userId);
  const current = planItem(config, subscription);
  if (!current)
    throw new BillingError("NO_SUBSCRIPTION", "Your subscription has no Packyard plan to change.");
  const price = priceFor(config, choice.plan, choice.annual);
  if (current.item.price.id === price) {
    throw new BillingError("SAME_PLAN", "You are already on this plan and period.");
  }
  const updated = await stripe.subscriptions
    .update(subscription.id, {
      items: [{ id: current.item.id, price }],
      proration_behavior: "create_prorations",
    })
    .catch(stripeFailure);
  await applyStripeSubscription(await adapterOf(services), config, updated, { userId });
}

/** Cancel at the end of the paid period (true), or keep renewing after all (false). */
export async function setCancelAtPeriodEnd(
  services: Services,
  userId: string,
  cancel: boolean,
): Promise<void> {
  const { config, stripe, subscription } = await currentSubscription(services, userId);
  const updated = await stripe.subscriptions
    .update(
      subscription.id,
      cancel || !subscription.cancel_at || subscription.cancel_at_period_end
        ? { cancel_at_period_end: cancel }
        : { cancel_at: "" },
    )
    .catch(stripeFailure);
  await applyStripeSubscription(await adapterOf(services), config, updated, { userId });
}

/** A customer portal session (card, invoices, cancelation) returning to /billing. */
export async function openPortal(services: Services, headers: Headers): Promise<string> {
  requireStripe(services);
  try {
    const result = await services.auth.api.createBillingPortal({
      body: { returnUrl: "/billing", disableRedirect: true },
      headers,
    });
    return result.url;
  } catch (error) {
    const message = (error as { body?: { message?: string } }).body?.message ?? (error as Error).message;
    throw new BillingError("STRIPE_ERROR", message || "The billing portal could not be opened.");
  }
}

// ---------------------------------------------------------------------------------------------
// Reading.

export interface SubscriptionSummary {
  plan: PlanId;
  status: string;
  annual: boolean;
  periodEnd?: string;
  cancelAtPeriodEnd: boolean;
  /** When a canceled subscription ended. */
  endedAt?: string;
}

/** The account's latest subscription, paying or not (a canceled one says when it ended). */
export async function latestSubscription(
  db: Kysely<Database>,
  userId: string,
): Promise<SubscriptionSummary | undefined> {
  const paying = await payingSubscription(db, userId);
  const row: SubscriptionTable | undefined =
    paying ??
    (
      await billingDb(db)
        .selectFrom("subscription")
        .selectAll()
        .where("referenceId", "=", userId)
        .where("stripeSubscriptionId", "is not", null)
        .execute()
    ).sort((a, b) => (toDate(b.periodEnd)?.getTime() ?? 0) - (toDate(a.periodEnd)?.getTime() ?? 0))[0];
  if (!row) return undefined;
  const plan = row.plan.toLowerCase() as PlanId;
  const periodEnd = toDate(row.periodEnd);
  const endedAt = toDate(row.endedAt) ?? toDate(row.canceledAt);
  return {
    plan,
    status: row.status ?? "incomplete",
    annual: row.billingInterval === "year",
    ...(periodEnd ? { periodEnd: periodEnd.toISOString() } : {}),
    cancelAtPeriodEnd: toBoolean(row.cancelAtPeriodEnd) || toDate(row.cancelAt) !== undefined,
    ...(endedAt && row.status === "canceled" ? { endedAt: endedAt.toISOString() } : {}),
  };
}

/** The past-due banner of the dashboard: a subscription whose last payment failed. */
export async function billingNotice(
  db: Kysely<Database>,
  userId: string,
): Promise<{ kind: "past_due"; plan: PlanId } | undefined> {
  const row = await billingDb(db)
    .selectFrom("subscription")
    .select("plan")
    .where("referenceId", "=", userId)
    .where("status", "=", "past_due")
    .executeTakeFirst();
  return row ? { kind: "past_due", plan: row.plan.toLowerCase() as PlanId } : undefined;
}

export interface PaymentMethodSummary {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface InvoiceSummary {
  id: string;
  number: string | null;
  /** ISO date the invoice was created. */
  date: string;
  /** Minor units, with its currency (spec §9's display). */
  amount: number;
  currency: string;
  status: string;
  pdfUrl: string | null;
  hostedUrl: string | null;
}

export interface BillingDetails {
  paymentMethod?: PaymentMethodSummary;
  invoices: InvoiceSummary[];
  /** The account has a Stripe customer (the portal can open). */
  hasCustomer: boolean;
}

/**
 * The card on file and the latest invoices, from Stripe. An organization has no customer of its
 * own (decision 040): its subscriptions' customer is the owner who pays, and only the invoices
 * of the organization's subscriptions are its.
 */
export async function billingDetails(services: Services, userId: string): Promise<BillingDetails> {
  const config = requireStripe(services);
  const user = await billingDb(services.database.db)
    .selectFrom("user")
    .select("stripeCustomerId")
    .where("id", "=", userId)
    .executeTakeFirst();
  let customerId = user?.stripeCustomerId;
  let onlySubscriptions: Set<string> | undefined;
  if (!customerId) {
    const rows = await billingDb(services.database.db)
      .selectFrom("subscription")
      .select(["stripeCustomerId", "stripeSubscriptionId"])
      .where("referenceId", "=", userId)
      .where("stripeCustomerId", "is not", null)
      .execute();
    customerId = rows[0]?.stripeCustomerId;
    onlySubscriptions = new Set(
      rows.flatMap((row) => (row.stripeSubscriptionId ? [row.stripeSubscriptionId] : [])),
    );
  }
  if (!customerId) return { invoices: [], hasCustomer: false };
  const stripe = stripeClient(config);
  try {
    const [customer, invoices] = await Promise.all([
      stripe.customers.retrieve(customerId, { expand: ["invoice_settings.default_payment_method"] }),
      stripe.invoices.list({ customer: customerId, limit: 24 }),
    ]);
    if ("deleted" in customer && customer.deleted) return { invoices: [], hasCustomer: false };
    let method = (customer as Stripe.Customer).invoice_settings?.default_payment_method;
    if (!method || typeof method === "string") {
      const methods = await stripe.paymentMethods.list({ customer: customerId, type: "card", limit: 1 });
      method = methods.data[0] ?? null;
    }
    const card = method && typeof method === "object" ? method.card : undefined;
    return {
      hasCustomer: true,
      ...(card
        ? {
            paymentMethod: {
              brand: card.brand,
              last4: card.last4,
              expMonth: card.exp_month,
              expYear: card.exp_year,
            },
          }
        : {}),
      invoices: invoices.data
        .filter(
          (invoice) => !onlySubscriptions || onlySubscriptions.has(invoiceSubscriptionId(invoice) ?? ""),
        )
        .map((invoice) => ({
          id: invoice.id ?? "",
          number: invoice.number ?? null,
          date: new Date(invoice.created * 1000).toISOString(),
          amount: invoice.amount_due,
          currency: invoice.currency,
          status: invoice.status ?? "draft",
          pdfUrl: invoice.invoice_pdf ?? null,
          hostedUrl: invoice.hosted_invoice_url ?? null,
        })),
    };
  } catch (error) {
    stripeFailure(error);
  }
}
