// Payments through Stripe, on better-auth's Stripe plugin (@better-auth/stripe): the plugin owns
// the `subscription` table and user.stripeCustomerId, creates the Stripe customer and the
// Checkout session (/api/auth/subscription/upgrade), confirms a returning Checkout
// (/api/auth/subscription/success) and opens the customer portal
// (/api/auth/subscription/billing-portal). Packyard replaces its webhook handler with its own
// at the same path, /api/auth/stripe/webhook (webhook.ts: idempotent by event id, state read
// back from Stripe, invoice events). docs/decisions/017-billing-with-stripe.md says why.
//
// Plans, prices and limits come from the contract's plans.ts; only the Stripe price ids of each
// paid plan and period come from the configuration (STRIPE_PRICE_*).
import { createRequire } from "node:module";
import { stripe as stripePlugin } from "@better-auth/stripe";
import type { PlanId } from "@packyard/contract/plans.ts";
import type { BetterAuthPlugin } from "better-auth";
import { type Dialect, Kysely } from "kysely";
import type Stripe from "stripe";
import type { Config, StripeConfig } from "../platform/config/config.ts";
import type { Database } from "../platform/db/schema.ts";
import type { Mailer } from "../platform/mail/mailer.ts";
import type { CspAllowances } from "../site/site-scripts.ts";
import type { BillingDatabase } from "./plan.ts";
import { mayBillFor } from "./reference.ts";
import { stripeWebhookEndpoint } from "./webhook.ts";

export type PaidPlanId = Exclude<PlanId, "basic">;
export const paidPlanIds: readonly PaidPlanId[] = ["starter", "pro"];

const require = createRequire(import.meta.url);

/** The Stripe SDK for the configured account (pointed at STRIPE_API_BASE in tests). */
export function createStripeClient(config: StripeConfig): Stripe {
  // Required here, when Stripe is configured: a server without it never loads the SDK (decision 037).
  const StripeSdk = require("stripe") as typeof Stripe;
  return new StripeSdk(config.secretKey, {
    ...(config.api ? { host: config.api.host, port: config.api.port, protocol: config.api.protocol } : {}),
    maxNetworkRetries: 2,
    timeout: 30_000,
    appInfo: { name: "Packyard" },
  });
}

/** The Stripe price of a paid plan and period. */
export function priceFor(config: StripeConfig, plan: PaidPlanId, annual: boolean): string {
  return config.prices[plan][annual ? "annual" : "monthly"];
}

/** The plan and period a Stripe price stands for, when it is one of the configured ones. */
export function planOfPrice(
  config: StripeConfig,
  priceId: string | undefined,
): { plan: PaidPlanId; annual: boolean } | undefined {
  for (const plan of paidPlanIds) {
    if (config.prices[plan].monthly === priceId) return { plan, annual: false };
    if (config.prices[plan].annual === priceId) return { plan, annual: true };
  }
  return undefined;
}

/** The plugin's plans: one per paid plan of plans.ts, its monthly and annual price. */
export function stripePlans(config: StripeConfig) {
  return paidPlanIds.map((plan) => ({
    name: plan,
    priceId: config.prices[plan].monthly,
    annualDiscountPriceId: config.prices[plan].annual,
  }));
}

// The plugin's schema with a client that is never called: the tables exist on every server, so
// accountPlan reads them whether Stripe is configured or not, and turning Stripe on later
// needs no data migration.
function schemaOnly() {
  const { schema } = stripePlugin({
    stripeClient: {} as Stripe,
    stripeWebhookSecret: "",
    subscription: { enabled: true, plans: [] },
  });
  return { id: "packyard-billing-schema", schema } satisfies BetterAuthPlugin;
}

function stripeBilling(config: StripeConfig, deps: { baseUrl: string; mailer: Mailer; dialect: Dialect }) {
  const client = createStripeClient(config);
  // Packyard's own tables (stripe_event) on the connection better-auth shares.
  const db = new Kysely<BillingDatabase>({ dialect: deps.dialect });
  const plugin = stripePlugin({
    stripeClient: client,
    stripeWebhookSecret: config.webhookSecret,
    subscription: {
      enabled: true,
      plans: stripePlans(config),
      requireEmailVerification: true,
      // An organization's plan (referenceId: its id) is paid by one of its owners, on that
      // owner's Stripe customer (decision 040).
      authorizeReference: ({ user, referenceId }) =>
        mayBillFor(db as unknown as Kysely<Database>, user.id, referenceId),
    },
  });
  return {
    ...plugin,
    endpoints: {
      ...plugin.endpoints,
      stripeWebhook: stripeWebhookEndpoint({
        stripe: client,
        config,
        baseUrl: deps.baseUrl,
        mailer: deps.mailer,
        db,
      }),
    },
    // Stripe sends bursts of events from a few addresses; every one is signed and verified, so
    // the per-address limit of the auth API (100 a minute) would only delay them.
    rateLimit: [{ pathMatcher: (path: string) => path === "/stripe/webhook", window: 60, max: 10_000 }],
    async init(ctx: Parameters<NonNullable<typeof plugin.init>>[0]) {
      const base = await plugin.init(ctx);
      const hooks = (base?.options?.databaseHooks ?? {}) as { user?: Record<string, unknown> };
      return {
        ...base,
        options: {
          ...base?.options,
          databaseHooks: {
            ...hooks,
            user: {
              ...hooks.user,
              // A deleted account is not charged again: its subscriptions end at Stripe now.
              delete: {
                async before(user: { id: string }) {
                  await endSubscriptionsOf(client, db, user.id, (message) => ctx.logger.error(message));
                },
              },
            },
          },
        },
      };
    },
  };
}

/**
 * Cancels at Stripe, at once, every subscription of a user being deleted, and removes their
 * rows (a row whose cancelation failed stays, for the operator). Never throws: the deletion has begun (sessions are gone) and must finish; a failure is
 * logged for the operator.
 */
export async function endSubscriptionsOf(
  client: Stripe,
  db: Kysely<BillingDatabase>,
  userId: string,
  logError: (message: string) => void,
): Promise<void> {
  try {
    const rows = await db
      .selectFrom("subscription")
      .select(["id", "stripeSubscriptionId", "status"])
      .where("referenceId", "=", userId)
      .execute();
    const ended: string[] = [];
    for (const row of rows) {
      if (row.stripeSubscriptionId && row.status !== "canceled" && row.status !== "incomplete_expired") {
        try {
          await client.subscriptions.cancel(row.stripeSubscriptionId);
        } catch (error) {
          if ((error as { code?: string }).code !== "resource_missing") {
            // The row stays, naming the subscription to cancel by hand.
            logError(
              `deleting user ${userId}: canceling Stripe subscription ${row.stripeSubscriptionId} failed: ${(error as Error).message}`,
            );
            continue;
          }
        }
      }
      ended.push(row.id);
    }
    if (ended.length > 0) await db.deleteFrom("subscription").where("id", "in", ended).execute();
  } catch (error) {
    logError(`deleting user ${userId}: ending subscriptions failed: ${(error as Error).message}`);
  }
}

/**
 * What payments add to the Content-Security-Policy: the billing forms answer with a redirect to
 * Stripe's hosted Checkout and customer portal, which form-action must allow.
 */
export function stripeCspAllowances(config: StripeConfig | undefined): CspAllowances {
  return config ? { "form-action": ["https://checkout.stripe.com", "https://billing.stripe.com"] } : {};
}

/** The plugin entry of auth.ts: Stripe when STRIPE_SECRET_KEY is set, otherwise its tables only. */
export function billingPlugins(deps: { config: Config; mailer: Mailer; dialect: Dialect }) {
  const { config, mailer, dialect } = deps;
  // Typed as the full plugin either way, so auth.api names its endpoints; they exist only when
  // config.stripe is set, and every caller checks that first.
  return config.stripe
    ? [stripeBilling(config.stripe, { baseUrl: config.baseUrl, mailer, dialect })]
    : [schemaOnly() as unknown as ReturnType<typeof stripeBilling>];
}
