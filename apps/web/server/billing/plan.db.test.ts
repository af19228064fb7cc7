// accountPlan: the operator's plan while valid, else a paying Stripe subscription's, else Basic;
// and limitsEnabled (PLAN_LIMITS).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";
import { loadConfig } from "../platform/config/config.ts";
import { accountPlan, clearOperatorPlan, limitsEnabled, setOperatorPlan } from "./plan.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const DAY = 24 * 60 * 60 * 1000;

async function addSubscription(userId: string, fields: Record<string, unknown>) {
  const { adapter } = await app.services.auth.$context;
  return adapter.create<Record<string, unknown>, { id: string }>({
    model: "subscription",
    data: { referenceId: userId, plan: "pro", status: "active", ...fields },
  });
}

async function setStatus(id: string, update: Record<string, unknown>) {
  const { adapter } = await app.services.auth.$context;
  await adapter.update({ model: "subscription", where: [{ field: "id", value: id }], update });
}

describe(`accountPlan (${databaseKind})`, () => {
  it("is Basic by default", async () => {
    const { userId } = await onboardedUser(app, "plain");
    expect(await accountPlan(app.services.database.db, userId)).toEqual({ plan: "basic", source: "default" });
  });

  it("follows the Stripe subscription while it is active, trialing or past due", async () => {
    const db = app.services.database.db;
    const { userId } = await onboardedUser(app, "payer");
    const periodEnd = new Date(Date.now() + 300 * DAY);
    const { id } = await addSubscription(userId, {
      stripeSubscriptionId: "sub_1",
      periodEnd,
      billingInterval: "year",
      cancelAtPeriodEnd: false,
    });
    expect(await accountPlan(db, userId)).toEqual({
      plan: "pro",
      source: "subscription",
      status: "active",
      annual: true,
      periodEnd,
      cancelAtPeriodEnd: false,
    });
    for (const status of ["trialing", "past_due"] as const) {
      await setStatus(id, { status });
      expect(await accountPlan(db, userId)).toMatchObject({ plan: "pro", source: "subscription", status });
    }
    await setStatus(id, { status: "active", cancelAtPeriodEnd: true });
    expect(await accountPlan(db, userId)).toMatchObject({ plan: "pro", cancelAtPeriodEnd: true });
    for (const status of ["canceled", "incomplete", "incomplete_expired", "unpaid"]) {
      await setStatus(id, { status });
      expect(await accountPlan(db, userId)).toEqual({ plan: "basic", source: "default" });
    }
  });

  it("prefers an active subscription to a past due one, and ignores other users'", async () => {
    const db = app.services.database.db;
    const { userId } = await onboardedUser(app, "twosubs");
    const other = await onboardedUser(app, "othersub");
    await addSubscription(userId, { plan: "pro", status: "past_due", periodEnd: new Date(Date.now() + DAY) });
    await addSubscription(userId, {
      plan: "starter",
      status: "active",
      periodEnd: new Date(Date.now() + 9 * DAY),
    });
    expect(await accountPlan(db, userId)).toMatchObject({ plan: "starter", status: "active" });
    expect(await accountPlan(db, other.userId)).toEqual({ plan: "basic", source: "default" });
  });

  it("gives the operator's plan precedence while it is valid", async () => {
    const db = app.services.database.db;
    const { userId } = await onboardedUser(app, "operated");
    await addSubscription(userId, { plan: "starter", status: "active" });
    await setOperatorPlan(db, userId, "pro");
    expect(await accountPlan(db, userId)).toEqual({ plan: "pro", source: "operator" });

    const now = new Date("2030-01-01T00:00:00Z");
    const until = new Date("2030-02-01T00:00:00Z");
    await setOperatorPlan(db, userId, "basic", until, now);
    expect(await accountPlan(db, userId, now)).toEqual({
      plan: "basic",
      source: "operator",
      operatorUntil: until,
    });
    // Past its date the subscription decides again.
    expect(await accountPlan(db, userId, new Date(until.getTime() + 1))).toMatchObject({
      plan: "starter",
      source: "subscription",
    });
    expect(await clearOperatorPlan(db, userId)).toBe(true);
    expect(await clearOperatorPlan(db, userId)).toBe(false);
    expect(await accountPlan(db, userId, now)).toMatchObject({ plan: "starter", source: "subscription" });
  });

  it("sets the private project limit: one on Basic, more on the operator's Pro", async () => {
    const { cookie, userId } = await onboardedUser(app, "limited");
    const create = (slug: string) =>
      app.request("/api/v1/projects", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ slug, name: slug, visibility: "private" }),
        cookie,
      });
    expect((await create("first")).status).toBe(201);
    const refused = await create("second");
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe("PLAN_LIMIT");
    await setOperatorPlan(app.services.database.db, userId, "pro");
    expect((await create("second")).status).toBe(201);
  });
});

describe("limitsEnabled", () => {
  it("reads PLAN_LIMITS: on by default, off lifts the limits", () => {
    const base = { DATA_DIR: app.dataDir, SECRET: "x".repeat(32) };
    expect(limitsEnabled(loadConfig(base))).toBe(true);
    expect(limitsEnabled(loadConfig({ ...base, PLAN_LIMITS: "on" }))).toBe(true);
    expect(limitsEnabled(loadConfig({ ...base, PLAN_LIMITS: "off" }))).toBe(false);
    expect(() => loadConfig({ ...base, PLAN_LIMITS: "maybe" })).toThrow(/PLAN_LIMITS/);
  });
});
