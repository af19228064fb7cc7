// STRIPE_* and PLAN_LIMITS in the one configuration schema: all six Stripe variables or none,
// each missing one named.
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, removeTempDirs } from "../../test/temp-dirs.ts";
import { ConfigError, loadConfig } from "../platform/config/config.ts";
import { planOfPrice, priceFor, stripePlans } from "./stripe.ts";

const dataDir = () => makeTempDir("packyard-billing-config-");
afterAll(() => removeTempDirs());

const STRIPE = {
  STRIPE_SECRET_KEY: "sk_test_123abc",
  STRIPE_WEBHOOK_SECRET: "whsec_abc123",
  STRIPE_PRICE_STARTER_MONTHLY: "price_starter_m",
  STRIPE_PRICE_STARTER_ANNUAL: "price_starter_y",
  STRIPE_PRICE_PRO_MONTHLY: "price_pro_m",
  STRIPE_PRICE_PRO_ANNUAL: "price_pro_y",
};

function issues(env: Record<string, string>) {
  try {
    loadConfig({ DATA_DIR: dataDir(), ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("Stripe configuration", () => {
  it("is off without the variables, and limits are on", () => {
    const config = loadConfig({ DATA_DIR: dataDir() });
    expect(config.stripe).toBeUndefined();
    expect(config.planLimits).toBe(true);
  });

  it("reads the key, the webhook secret and the four prices", () => {
    const config = loadConfig({ DATA_DIR: dataDir(), ...STRIPE });
    expect(config.stripe).toEqual({
      secretKey: "sk_test_123abc",
      webhookSecret: "whsec_abc123",
      prices: {
        starter: { monthly: "price_starter_m", annual: "price_starter_y" },
        pro: { monthly: "price_pro_m", annual: "price_pro_y" },
      },
    });
    const stripe = config.stripe!;
    expect(priceFor(stripe, "pro", true)).toBe("price_pro_y");
    expect(planOfPrice(stripe, "price_starter_m")).toEqual({ plan: "starter", annual: false });
    expect(planOfPrice(stripe, "price_other")).toBeUndefined();
    expect(stripePlans(stripe)).toEqual([
      { name: "starter", priceId: "price_starter_m", annualDiscountPriceId: "price_starter_y" },
      { name: "pro", priceId: "price_pro_m", annualDiscountPriceId: "price_pro_y" },
    ]);
  });

  it("names every missing variable when only some are set", () => {
    const { STRIPE_WEBHOOK_SECRET: _, STRIPE_PRICE_PRO_ANNUAL: __, ...partial } = STRIPE;
    const found = issues(partial);
    expect(found.map((i) => i.variable)).toEqual(["STRIPE_WEBHOOK_SECRET", "STRIPE_PRICE_PRO_ANNUAL"]);
    expect(found[0]!.message).toContain("must be set with STRIPE_SECRET_KEY");
    expect(issues({ STRIPE_SECRET_KEY: "sk_live_x" }).map((i) => i.variable)).toHaveLength(5);
  });

  it("checks the formats", () => {
    expect(issues({ ...STRIPE, STRIPE_SECRET_KEY: "pk_test_public" })[0]).toMatchObject({
      variable: "STRIPE_SECRET_KEY",
      message: "must be a Stripe secret key (sk_… or rk_…)",
    });
    expect(issues({ ...STRIPE, STRIPE_WEBHOOK_SECRET: "secret" })[0]?.variable).toBe("STRIPE_WEBHOOK_SECRET");
    expect(issues({ ...STRIPE, STRIPE_PRICE_PRO_MONTHLY: "prod_123" })[0]).toMatchObject({
      variable: "STRIPE_PRICE_PRO_MONTHLY",
      message: "must be a Stripe price id (price_…)",
    });
  });

  it("points the SDK at STRIPE_API_BASE as host, port and protocol (tests only)", () => {
    const config = loadConfig({ DATA_DIR: dataDir(), ...STRIPE, STRIPE_API_BASE: "http://127.0.0.1:4567/" });
    expect(config.stripe?.api).toEqual({ host: "127.0.0.1", port: 4567, protocol: "http" });
    expect(issues({ STRIPE_API_BASE: "http://127.0.0.1:4567" })[0]).toMatchObject({
      variable: "STRIPE_SECRET_KEY",
      message: "must be set with STRIPE_API_BASE",
    });
  });

  it("reads PLAN_LIMITS on or off", () => {
    expect(loadConfig({ DATA_DIR: dataDir(), PLAN_LIMITS: "off" }).planLimits).toBe(false);
    expect(issues({ PLAN_LIMITS: "no" })[0]?.variable).toBe("PLAN_LIMITS");
  });
});
