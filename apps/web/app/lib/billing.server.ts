// The billing pages' loaders and actions (/subscription, /billing, /billing/success,
// /billing/cancel and onboarding's hand-off to Checkout), on server/billing/account.ts.
import type { PlanId } from "@packyard/contract/plans.ts";
import { data, type RouterContextProvider, redirect } from "react-router";
import {
  BillingError,
  billingDetails,
  billingNotice,
  changePlan,
  latestSubscription,
  openPortal,
  type SubscriptionSummary,
  setCancelAtPeriodEnd,
  startCheckout,
} from "../../server/billing/account.ts";
import { type AccountPlan, accountPlan, operatorPlan } from "../../server/billing/plan.ts";
import { requireOrganization } from "../../server/orgs/storage.ts";
import { DomainError } from "../../server/platform/core/errors.ts";
import { paidChoice } from "./billing.ts";
import { services } from "./session.server.ts";

export { paidChoice };

type Context = Readonly<RouterContextProvider>;

/**
 * Whose plan a billing page shows and changes: the signed-in user's, or with `?org=slug` an
 * organization's, which only its owners may see and pay for (decision 040: each organization
 * has its own plan, paid on the owner's Stripe customer). Not a member: the 404 page; another
 * role: 403.
 */
export interface BillingAccount {
  id: string;
  org?: { id: string; slug: string; name: string };
}

export async function billingAccount(context: Context, userId: string, url: URL): Promise<BillingAccount> {
  const slug = url.searchParams.get("org");
  if (!slug) return { id: userId };
  try {
    const { org } = await requireOrganization(
      services(context).database.db,
      { kind: "session", userId },
      slug,
      "own",
    );
    return { id: org.id, org: { id: org.id, slug: org.slug, name: org.name } };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (error.code === "NOT_FOUND") throw data(null, { status: 404 });
    throw data(error.message, { status: 403 });
  }
}

/** The organization an account is, for pages that name it (undefined for a person). */
export async function organizationOf(context: Context, accountId: string) {
  return services(context)
    .database.db.selectFrom("organization")
    .select(["slug", "name"])
    .where("id", "=", accountId)
    .executeTakeFirst();
}

/** An account plan as the pages show it (dates as ISO strings). */
export interface PlanView {
  plan: PlanId;
  source: AccountPlan["source"];
  status?: string;
  annual?: boolean;
  periodEnd?: string;
  cancelAtPeriodEnd?: boolean;
  operatorUntil?: string;
}

export function planView(plan: AccountPlan): PlanView {
  return {
    plan: plan.plan,
    source: plan.source,
    ...(plan.status ? { status: plan.status } : {}),
    ...(plan.annual !== undefined ? { annual: plan.annual } : {}),
    ...(plan.periodEnd ? { periodEnd: plan.periodEnd.toISOString() } : {}),
    ...(plan.cancelAtPeriodEnd !== undefined ? { cancelAtPeriodEnd: plan.cancelAtPeriodEnd } : {}),
    ...(plan.operatorUntil ? { operatorUntil: plan.operatorUntil.toISOString() } : {}),
  };
}

export interface SubscriptionPageData {
  payments: boolean;
  plan: PlanView;
  /** The Stripe subscription, paying or the last one that ended. */
  subscription?: SubscriptionSummary;
  /** The subscription Stripe still bills (active, trialing, past due). */
  paying: boolean;
  /** The operator's plan, when it has lapsed (a valid one is `plan`). */
  lapsedOperatorPlan?: { plan: PlanId; until: string };
  notice?: { kind: "past_due"; plan: PlanId };
}

export async function subscriptionPageData(context: Context, userId: string): Promise<SubscriptionPageData> {
  const { config, database } = services(context);
  const db = database.db;
  const [plan, subscription, operator, notice] = await Promise.all([
    accountPlan(db, userId),
    latestSubscription(db, userId),
    operatorPlan(db, userId),
    billingNotice(db, userId),
  ]);
  const paying =
    subscription !== undefined && ["active", "trialing", "past_due"].includes(subscription.status);
  return {
    payments: Boolean(config.stripe),
    plan: planView(plan),
    ...(subscription ? { subscription } : {}),
    paying,
    ...(operator?.until && plan.source !== "operator"
      ? { lapsedOperatorPlan: { plan: operator.plan, until: operator.until.toISOString() } }
      : {}),
    ...(notice ? { notice } : {}),
  };
}

export async function billingPageData(context: Context, userId: string) {
  const page = await subscriptionPageData(context, userId);
  if (!page.payments) return { ...page, details: undefined, detailsError: undefined };
  try {
    return { ...page, details: await billingDetails(services(context), userId), detailsError: undefined };
  } catch (error) {
    if (!(error instanceof BillingError)) throw error;
    services(context).logger.warn(`billing details for ${userId}: ${error.message}`);
    return {
      ...page,
      details: undefined,
      detailsError: "Stripe could not be reached. Try again in a moment.",
    };
  }
}

/** What a billing action answers when it stays on the page: a toast's worth. */
export interface BillingAnswer {
  ok: boolean;
  message?: string;
  error?: string;
}

const CHECKOUT_INTENTS = ["checkout", "change", "cancel", "resume", "portal"] as const;

/**
 * The billing forms: checkout (plan, annual) and portal redirect to Stripe; change (plan,
 * annual), cancel and resume answer with a message.
 */
export async function billingAction(request: Request, context: Context, account: BillingAccount) {
  const userId = account.id;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const svc = services(context);
  if (!CHECKOUT_INTENTS.includes(intent as (typeof CHECKOUT_INTENTS)[number])) {
    return data<BillingAnswer>({ ok: false, error: "Unknown action" }, { status: 400 });
  }
  if (!svc.config.stripe) {
    return data<BillingAnswer>(
      { ok: false, error: "Payments are not configured on this server." },
      { status: 409 },
    );
  }
  const choice = paidChoice(
    new URLSearchParams({ plan: String(form.get("plan") ?? ""), annual: String(form.get("annual") ?? "") }),
  );
  let target: string;
  try {
    switch (intent) {
      case "checkout":
        if (!choice)
          return data<BillingAnswer>({ ok: false, error: "Choose Starter or Pro." }, { status: 400 });
        target = await startCheckout(svc, request.headers, choice, account.org);
        break;
      case "portal":
        target = await openPortal(svc, request.headers);
        break;
      case "change": {
        if (!choice)
          return data<BillingAnswer>({ ok: false, error: "Choose Starter or Pro." }, { status: 400 });
        await changePlan(svc, userId, choice);
        const name = choice.plan === "pro" ? "Pro" : "Starter";
        return data<BillingAnswer>({
          ok: true,
          message: `You are now on ${name}, billed ${choice.annual ? "annually" : "monthly"}.`,
        });
      }
      case "cancel":
        await setCancelAtPeriodEnd(svc, userId, true);
        return data<BillingAnswer>({
          ok: true,
          message: "Your subscription ends at the end of the period. You can resume it until then.",
        });
      default:
        await setCancelAtPeriodEnd(svc, userId, false);
        return data<BillingAnswer>({ ok: true, message: "Your subscription continues." });
    }
  } catch (error) {
    if (!(error instanceof BillingError)) throw error;
    svc.logger.warn(`billing ${intent} for ${userId}: ${error.message}`);
    const status = error.code === "STRIPE_ERROR" ? 502 : 409;
    return data<BillingAnswer>({ ok: false, error: error.message }, { status });
  }
  throw redirect(target);
}
