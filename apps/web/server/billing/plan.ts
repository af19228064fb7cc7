// Which plan an account is on, the one place that decides:
//
// 1. The plan an operator set from the command line (`users set-plan`), while it is valid (no
//    until date, or one still ahead).
// 2. Otherwise the plan of the account's Stripe subscription while Stripe counts it as paying:
//    active, trialing or past_due (Stripe is still retrying the card).
// 3. Otherwise Basic: no subscription, or one canceled, incomplete or given up on by Stripe.
//
// The subscription rows are written by better-auth's Stripe plugin and by Packyard's webhook
// handler (server/billing); this module only reads them. `limitsEnabled` says whether plan limits
// apply at all (PLAN_LIMITS=off lifts every one of them on a private installation).
import { type PlanId, parsePlan } from "@packyard/contract/plans.ts";
import type { Kysely } from "kysely";
import type { Config } from "../platform/config/config.ts";
import type { Database } from "../platform/db/schema.ts";

/** Stripe's subscription statuses. */
export type SubscriptionStatus =
  | "active"
  | "trialing"
  | "past_due"
  | "canceled"
  | "incomplete"
  | "incomplete_expired"
  | "unpaid"
  | "paused";

export interface AccountPlan {
  plan: PlanId;
  /** Who decided: the operator's set-plan, a Stripe subscription, or nobody (Basic). */
  source: "subscription" | "operator" | "default";
  /** The subscription's status (source "subscription"). */
  status?: SubscriptionStatus;
  /** Billed yearly (source "subscription"). */
  annual?: boolean;
  /** End of the paid period: the next renewal, or the end date when cancelAtPeriodEnd. */
  periodEnd?: Date;
  /** The subscription ends at periodEnd instead of renewing. */
  cancelAtPeriodEnd?: boolean;
  /** Until when the operator's plan holds (source "operator"; absent: for good). */
  operatorUntil?: Date;
}

/** Statuses in which a subscription's plan applies, best first. */
export const PAYING_STATUSES: readonly SubscriptionStatus[] = ["active", "trialing", "past_due"];

// ---------------------------------------------------------------------------------------------
// Tables. `subscription` and user.stripeCustomerId belong to better-auth's Stripe plugin
// (camelCase columns; on SQLite dates are ISO strings and booleans 0/1, on PostgreSQL Date and
// boolean). plan_override and stripe_event are Packyard's (migration 0012).

type DateColumn = string | Date | null;

export interface SubscriptionTable {
  id: string;
  plan: string;
  referenceId: string;
  stripeCustomerId: string | null;
  stripeSubscriptionId: string | null;
  status: string | null;
  periodStart: DateColumn;
  periodEnd: DateColumn;
  trialStart: DateColumn;
  trialEnd: DateColumn;
  cancelAtPeriodEnd: number | boolean | null;
  cancelAt: DateColumn;
  canceledAt: DateColumn;
  endedAt: DateColumn;
  seats: number | null;
  billingInterval: string | null;
  stripeScheduleId: string | null;
}

export interface PlanOverrideTable {
  user_id: string;
  plan: string;
  /** ISO time the operator's plan ends (exclusive); NULL: for good. */
  until: string | null;
  set_at: string;
}

export interface StripeEventTable {
  id: string;
  type: string;
  applied_at: string;
}

export interface BillingTables {
  subscription: SubscriptionTable;
  plan_override: PlanOverrideTable;
  stripe_event: StripeEventTable;
  user: Database["user"] & { stripeCustomerId: string | null };
}

export type BillingDatabase = Omit<Database, "user"> & BillingTables;

/** The database with the billing tables typed. */
export function billingDb(db: Kysely<Database>): Kysely<BillingDatabase> {
  return db as unknown as Kysely<BillingDatabase>;
}

export function toDate(value: DateColumn | number | undefined): Date | undefined {
  if (value === null || value === undefined) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export function toBoolean(value: number | boolean | string | null | undefined): boolean {
  return value === true || value === 1 || value === "1" || value === "true";
}

export function isSubscriptionStatus(value: string | null | undefined): value is SubscriptionStatus {
  return (
    value === "active" ||
    value === "trialing" ||
    value === "past_due" ||
    value === "canceled" ||
    value === "incomplete" ||
    value === "incomplete_expired" ||
    value === "unpaid" ||
    value === "paused"
  );
}

// ---------------------------------------------------------------------------------------------
// Reading.

/** The operator's plan for the user, valid or not (set-plan, /subscription). */
export async function operatorPlan(
  db: Kysely<Database>,
  userId: string,
): Promise<{ plan: PlanId; until?: Date; setAt: Date } | undefined> {
  const row = await billingDb(db)
    .selectFrom("plan_override")
    .selectAll()
    .where("user_id", "=", userId)
    .executeTakeFirst();
  const plan = parsePlan(row?.plan);
  if (!row || !plan) return undefined;
  const until = toDate(row.until);
  return { plan, ...(until ? { until } : {}), setAt: toDate(row.set_at) ?? new Date(0) };
}

/**
 * The user's subscription that decides the plan: the paying one (active before trialing before
 * past_due, then the latest period end). Undefined when none is paying.
 */
export async function payingSubscription(
  db: Kysely<Database>,
  userId: string,
): Promise<SubscriptionTable | undefined> {
  const rows = await billingDb(db)
    .selectFrom("subscription")
    .selectAll()
    .where("referenceId", "=", userId)
    .where("status", "in", [...PAYING_STATUSES])
    .execute();
  const rank = (row: SubscriptionTable) => PAYING_STATUSES.indexOf(row.status as SubscriptionStatus);
  return rows.sort(
    (a, b) =>
      rank(a) - rank(b) || (toDate(b.periodEnd)?.getTime() ?? 0) - (toDate(a.periodEnd)?.getTime() ?? 0),
  )[0];
}

export async function accountPlan(
  db: Kysely<Database>,
  userId: string,
  now = new Date(),
): Promise<AccountPlan> {
  // Both asked at once (an upload's plan check is on its path); the operator's plan wins.
  const [operator, subscription] = await Promise.all([
    operatorPlan(db, userId),
    payingSubscription(db, userId),
  ]);
  if (operator && (!operator.until || operator.until > now)) {
    return {
      plan: operator.plan,
      source: "operator",
      ...(operator.until ? { operatorUntil: operator.until } : {}),
    };
  }
  const plan = parsePlan(subscription?.plan?.toLowerCase());
  if (subscription && plan && isSubscriptionStatus(subscription.status)) {
    const periodEnd = toDate(subscription.periodEnd);
    return {
      plan,
      source: "subscription",
      status: subscription.status,
      annual: subscription.billingInterval === "year",
      ...(periodEnd ? { periodEnd } : {}),
      cancelAtPeriodEnd:
        toBoolean(subscription.cancelAtPeriodEnd) || toDate(subscription.cancelAt) !== undefined,
    };
  }
  return { plan: "basic", source: "default" };
}

/** Whether plan limits apply on this server (PLAN_LIMITS, default on). */
export function limitsEnabled(config: Pick<Config, "planLimits">): boolean {
  return config.planLimits;
}

// ---------------------------------------------------------------------------------------------
// The operator's plan (users set-plan).

export async function setOperatorPlan(
  db: Kysely<Database>,
  userId: string,
  plan: PlanId,
  until?: Date,
  now = new Date(),
): Promise<void> {
  const row = { plan, until: until?.toISOString() ?? null, set_at: now.toISOString() };
  await billingDb(db)
    .insertInto("plan_override")
    .values({ user_id: userId, ...row })
    .onConflict((oc) => oc.column("user_id").doUpdateSet(row))
    .execute();
}

/** Removes the operator's plan: the subscription (or Basic) decides again. */
export async function clearOperatorPlan(db: Kysely<Database>, userId: string): Promise<boolean> {
  const result = await billingDb(db)
    .deleteFrom("plan_override")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
