// The one source of truth for plans: the pricing page, limits and billing all read this.
export const planIds = ["basic", "starter", "pro"] as const;
export type PlanId = (typeof planIds)[number];

export interface Plan {
  id: PlanId;
  name: string;
  /** Prices in minor units (cents, USD). */
  monthlyPrice: number;
  annualPrice: number;
  privateProjects: number | "unlimited";
  storageBytes: number;
  downloadBytesPerMonth: number;
  /**
   * Entitlement tokens the account may hold, across its projects (docs/entitlements.md): read
   * tokens named for a publisher's customers, with limits and usage. An account's own machines
   * read its private projects with read-only API keys, on every plan.
   */
  entitlementTokens: number | "unlimited";
  /** Organizations' own SAML and OpenID providers, required sign-in and SCIM (docs/sso.md). */
  singleSignOn: boolean;
  highlights: string[];
}

const GB = 1024 ** 3;
const TB = 1024 ** 4;

export const plans: Record<PlanId, Plan> = {
  basic: {
    id: "basic",
    name: "Basic",
    monthlyPrice: 0,
    annualPrice: 0,
    privateProjects: 1,
    storageBytes: 2 * GB,
    downloadBytesPerMonth: 20 * GB,
    entitlementTokens: 0,
    singleSignOn: false,
    // Read-only keys work on every plan (docs/api.md): no dearer plan sells them as its own.
    highlights: [
      "Unlimited public projects",
      "1 private project",
      "Signed APT and YUM repositories",
      "Read-only API keys for private repositories",
    ],
  },
  starter: {
    id: "starter",
    name: "Starter",
    monthlyPrice: 1200,
    annualPrice: 12000,
    privateProjects: 10,
    storageBytes: 25 * GB,
    downloadBytesPerMonth: 250 * GB,
    entitlementTokens: 25,
    singleSignOn: false,
    highlights: ["Everything in Basic", "10 private projects", "25 entitlement tokens for your customers"],
  },
  pro: {
    id: "pro",
    name: "Pro",
    monthlyPrice: 3900,
    annualPrice: 39000,
    privateProjects: "unlimited",
    storageBytes: 250 * GB,
    downloadBytesPerMonth: 2 * TB,
    entitlementTokens: "unlimited",
    singleSignOn: true,
    highlights: [
      "Everything in Starter",
      "Unlimited private projects",
      "Unlimited entitlement tokens",
      "Single sign-on (SAML, OpenID Connect) and SCIM for organizations",
      "Priority support",
    ],
  },
};

export function parsePlan(value: string | null | undefined): PlanId | undefined {
  return planIds.find((id) => id === value);
}

export function parseAnnual(value: string | null | undefined): boolean | undefined {
  return value === "true" ? true : value === "false" ? false : undefined;
}

/** The plan and annual params, when valid, to carry through sign-in and onboarding. */
export function planParams(search: URLSearchParams): URLSearchParams {
  const carried = new URLSearchParams();
  const plan = parsePlan(search.get("plan"));
  const annual = parseAnnual(search.get("annual"));
  if (plan) carried.set("plan", plan);
  if (annual !== undefined) carried.set("annual", String(annual));
  return carried;
}
