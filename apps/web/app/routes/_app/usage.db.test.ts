// /dashboard shows the plan's usage as accessible bars (progressbar role, the values in text):
// private projects, storage and this month's downloads against the plan's limits; unlimited on
// Pro, no bars with PLAN_LIMITS=off. Past 80 % and 100 % of the month's download allowance every
// dashboard page shows a banner. SQLite and PostgreSQL.
import { plans } from "@packyard/contract/plans.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setOperatorPlan } from "../../../server/billing/plan.ts";
import { currentMonth } from "../../../server/downloads/counts.ts";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

/** The progress bars of the page: label, value text and value. */
function bars(html: string) {
  return [...html.matchAll(/<div role="progressbar"([^>]*)>/g)].map(([, attributes]) => {
    const attribute = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(attributes!)?.[1];
    return {
      label: attribute("aria-label"),
      text: attribute("aria-valuetext"),
      now: attribute("aria-valuenow"),
    };
  });
}

async function seedMonth(db: TestApp["services"]["database"]["db"], ownerId: string, share: number) {
  const bytes = Math.round(share);
  await db
    .insertInto("download_month")
    .values({ owner_id: ownerId, month: currentMonth(), bytes })
    .onConflict((oc) => oc.columns(["owner_id", "month"]).doUpdateSet({ bytes }))
    .execute();
}

async function createProject(target: TestApp, cookie: string, slug: string, visibility: string) {
  const res = await target.request("/projects", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ intent: "create", slug, name: slug, visibility }).toString(),
    cookie,
  });
  expect(res.status).toBe(302);
}

describe(`usage bars on /dashboard (${databaseKind})`, () => {
  it("shows private projects, storage and the month's downloads against the Basic plan", async () => {
    const { cookie, userId } = await onboardedUser(app, "gauged");
    await createProject(app, cookie, "secret", "private");
    await seedMonth(app.services.database.db, userId, plans.basic.downloadBytesPerMonth * 0.85);
    const res = await app.request("/dashboard", { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('data-testid="usage-bars"');
    expect(html).toContain("Basic plan");
    expect(bars(html)).toEqual(
      expect.arrayContaining([
        { label: "Private projects", text: "1 of 1 (100%)", now: "100" },
        { label: "Storage", text: "0 B of 2 GB (0%)", now: "0" },
        { label: "Downloads this month", text: "17 GB of 20 GB (85%)", now: "85" },
      ]),
    );
    expect(html).toContain("Limit reached: new private projects are refused");
    expect(html).toContain("downloads are never cut off");
    // Past 80 % of the allowance: the banner, on every dashboard page.
    expect(html).toContain('data-testid="usage-banner" data-level="80"');
    expect(html).toContain(
      "You have used 85% of this month&#x27;s download allowance: 17 GB of the 20 GB your Basic plan includes.",
    );
    const projects = await (await app.request("/projects", { cookie })).text();
    expect(projects).toContain('data-testid="usage-banner" data-level="80"');

    await seedMonth(app.services.database.db, userId, plans.basic.downloadBytesPerMonth + 1024 ** 3);
    const full = await (await app.request("/dashboard", { cookie })).text();
    expect(full).toContain('data-testid="usage-banner" data-level="100"');
    expect(full).toContain(
      "You have used this month&#x27;s download allowance: 21 GB of the 20 GB your Basic plan includes.",
    );
    expect(full).toContain("Downloads keep working and nothing is cut off");
    expect(bars(full)).toContainEqual({
      label: "Downloads this month",
      text: "21 GB of 20 GB (105%)",
      now: "100",
    });
    expect(full).toContain("Allowance used: downloads keep working, nothing is cut off");
  });

  it("shows no banner under 80 % of the allowance", async () => {
    const { cookie, userId } = await onboardedUser(app, "modest");
    await seedMonth(app.services.database.db, userId, plans.basic.downloadBytesPerMonth * 0.75);
    const html = await (await app.request("/dashboard", { cookie })).text();
    expect(html).not.toContain('data-testid="usage-banner"');
    expect(bars(html)).toContainEqual({
      label: "Downloads this month",
      text: "15 GB of 20 GB (75%)",
      now: "75",
    });
  });

  it("says unlimited where the plan has no limit (Pro), and shows no bar for it", async () => {
    const { cookie, userId } = await onboardedUser(app, "unbounded");
    await setOperatorPlan(app.services.database.db, userId, "pro");
    const html = await (await app.request("/dashboard", { cookie })).text();
    expect(html).toContain("Pro plan");
    expect(html).toContain("Unlimited on Pro");
    expect(bars(html).map((b) => b.label)).toEqual(
      expect.arrayContaining(["Storage", "Downloads this month"]),
    );
    expect(bars(html).map((b) => b.label)).not.toContain("Private projects");
    expect(bars(html).find((b) => b.label === "Storage")?.text).toBe("0 B of 250 GB (0%)");
  });
});

describe(`usage with PLAN_LIMITS=off on /dashboard (${databaseKind})`, () => {
  let free: TestApp;
  beforeAll(async () => {
    free = await createTestApp({ PLAN_LIMITS: "off" });
  }, 60_000);
  afterAll(async () => {
    await free?.close();
  });

  it("shows the numbers without bars or limits", async () => {
    const { cookie, userId } = await onboardedUser(free, "boundless");
    await createProject(free, cookie, "one", "private");
    await createProject(free, cookie, "two", "private");
    await seedMonth(free.services.database.db, userId, plans.basic.downloadBytesPerMonth * 2);
    const html = await (await free.request("/dashboard", { cookie })).text();
    expect(html).toContain("Plan limits are off on this server");
    expect(html).toContain("No plan limits on this server");
    expect(html).not.toContain('data-testid="usage-banner"');
    // The storage stat card keeps its own bar; the usage card has none.
    const usage = html.slice(html.indexOf('data-testid="usage-bars"'));
    expect(bars(usage.slice(0, usage.indexOf("</ul>")))).toEqual([]);
    expect(usage).toContain("40 GB");
  });
});
