// An organization's plan (decision 040): its own limits, counted over its projects and not over
// its members'; its owners subscribe for it through Stripe Checkout (the plugin's referenceId is
// the organization, allowed by authorizeReference for owners only) and the webhook keeps it in
// sync; notices about it (a failed payment, the download allowance) go to its owners, never to
// the organization's own address. With a fake Stripe at its HTTP boundary; SQLite and PostgreSQL.
import { plans } from "@packyard/contract/plans.ts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type FakeStripe, startFakeStripe } from "../../test/fake-stripe.ts";
import { createTestApp, databaseKind, onboardedUser, postJson, type TestApp } from "../../test/harness.ts";
import { currentMonth } from "../downloads/counts.ts";
import { acceptInvitation, createInvitation, createOrganization } from "../orgs/storage.ts";
import type { Actor } from "../platform/core/authorization.ts";
import { accountPlan } from "./plan.ts";
import { accountHoldings, flushDownloadCounts } from "./usage.ts";

let app: TestApp;
let fake: FakeStripe;
let owner: Awaited<ReturnType<typeof onboardedUser>>;
let admin: Awaited<ReturnType<typeof onboardedUser>>;
let outsider: Awaited<ReturnType<typeof onboardedUser>>;
let orgId: string;
const db = () => app.services.database.db;

const text = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

function postForm(path: string, values: Record<string, string>, cookie: string) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values).toString(),
    cookie,
  });
}

function createProject(cookie: string, body: Record<string, string>) {
  return postJson(app, "/api/v1/projects", { keyAlgorithm: "ed25519", ...body }, cookie);
}

beforeAll(async () => {
  fake = await startFakeStripe({ autoDeliver: true });
  app = await createTestApp(fake.env);
  fake.setWebhookTarget((payload, signature) =>
    app.request("/api/auth/stripe/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": signature },
      body: payload,
    }),
  );
  owner = await onboardedUser(app, "owner");
  admin = await onboardedUser(app, "admin");
  outsider = await onboardedUser(app, "outsider");
  const session = (userId: string): Actor => ({ kind: "session", userId });
  orgId = (await createOrganization(db(), session(owner.userId), { slug: "acme", name: "Acme Inc" })).id;
  const invitation = await createInvitation(
    db(),
    session(owner.userId),
    "acme",
    { email: "admin@example.com", role: "admin" },
    app.services.config.baseUrl,
  );
  await acceptInvitation(db(), session(admin.userId), invitation.id);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

describe(`an organization's plan (${databaseKind})`, () => {
  it("limits the organization's private projects by its own plan, not its members'", async () => {
    // The owner's own Basic plan is full (one private project)…
    expect(
      (await createProject(owner.cookie, { slug: "mine", name: "Mine", visibility: "private" })).status,
    ).toBe(201);
    expect(
      (await createProject(owner.cookie, { slug: "mine-too", name: "Mine", visibility: "private" })).status,
    ).toBe(403);
    // …and the organization, on Basic too, still has room for its own one, then is full.
    const first = await createProject(admin.cookie, {
      slug: "inhouse",
      name: "In-house",
      visibility: "private",
      owner: "acme",
    });
    expect(first.status).toBe(201);
    const second = await createProject(admin.cookie, {
      slug: "inhouse-two",
      name: "In-house",
      visibility: "private",
      owner: "acme",
    });
    expect(second.status).toBe(403);
    const { error } = await second.json();
    expect(error.code).toBe("PLAN_LIMIT");
    expect(error.details.limit).toBe("privateProjects");
  });

  it("/pricing says how organizations are billed", async () => {
    const pricing = text(await (await app.request("/pricing")).text());
    expect(pricing).toContain("How are organizations billed?");
    expect(pricing).toContain("Each organization has a plan of its own");
    expect(pricing).toContain("Members cost nothing and are unlimited");
  });

  it("lets an owner subscribe for the organization through Checkout; the plan is the organization's", async () => {
    // Only the organization's owners see and pay for its plan.
    expect((await app.request("/subscription?org=acme", { cookie: admin.cookie })).status).toBe(403);
    expect((await app.request("/billing?org=acme", { cookie: outsider.cookie })).status).toBe(404);
    // Nor may anyone else name it as the plugin's reference.
    const refused = await postJson(
      app,
      "/api/auth/subscription/upgrade",
      {
        plan: "pro",
        annual: false,
        referenceId: orgId,
        successUrl: "/billing/success",
        cancelUrl: "/billing/cancel",
        disableRedirect: true,
      },
      admin.cookie,
    );
    expect(refused.status).toBe(401);

    const checkout = await postForm(
      "/subscription?org=acme",
      { intent: "checkout", plan: "pro", annual: "false" },
      owner.cookie,
    );
    expect(checkout.status).toBe(302);
    const sessionId = checkout.headers.get("location")!.split("/").pop()!;
    const session = fake.sessions.get(sessionId)!;
    expect(session.client_reference_id).toBe(orgId);
    expect(session.cancel_url).toBe("http://localhost:3000/billing/cancel?plan=pro&annual=false&org=acme");
    // Going back from Checkout offers the same plan again, for the organization.
    const back = await app.request("/billing/cancel?plan=pro&annual=false&org=acme", {
      cookie: owner.cookie,
    });
    const backHtml = await back.text();
    expect(text(backHtml)).toContain("Acme Inc is still on its current plan");
    expect(backHtml).toContain('action="/subscription?org=acme"');
    await fake.completeCheckout(sessionId);
    await fake.settled();
    const success = await app.request(`/billing/success?session_id=${sessionId}`, { cookie: owner.cookie });
    expect(text(await success.text())).toContain("Acme Inc is on Pro");
    // Another user cannot confirm it.
    const other = await app.request(`/billing/success?session_id=${sessionId}`, { cookie: outsider.cookie });
    expect(text(await other.text())).not.toContain("is on Pro");

    expect((await accountPlan(db(), orgId)).plan).toBe("pro");
    expect((await accountPlan(db(), owner.userId)).plan).toBe("basic");
    const page = text(await (await app.request("/subscription?org=acme", { cookie: owner.cookie })).text());
    expect(page).toContain("Subscription of Acme Inc");
    expect(page).toContain("Current plan Pro Active");
    expect(text(await (await app.request("/subscription", { cookie: owner.cookie })).text())).toContain(
      "Current plan Basic",
    );
    // The organization's limits are Pro's now; the owner's stay Basic's.
    expect(
      (
        await createProject(admin.cookie, {
          slug: "inhouse-two",
          name: "In-house",
          visibility: "private",
          owner: "acme",
        })
      ).status,
    ).toBe(201);
    expect(
      (await createProject(owner.cookie, { slug: "mine-too", name: "Mine", visibility: "private" })).status,
    ).toBe(403);
    // The customer paying is the owner's; the organization's account holds none.
    const orgUser = await db()
      .selectFrom("user")
      .selectAll()
      .where("id", "=", orgId)
      .executeTakeFirstOrThrow();
    expect((orgUser as { stripeCustomerId?: string | null }).stripeCustomerId ?? null).toBeNull();

    // Its billing page: the owner's card, and the organization's invoices only.
    const billing = text(await (await app.request("/billing?org=acme", { cookie: owner.cookie })).text());
    expect(billing).toContain("Billing of Acme Inc");
    expect(billing).toContain("Visa •••• 4242");
    expect(billing).toMatch(/\$39\.00 Paid/);

    // A failed renewal is told to the organization's owners, not its own address.
    const subscriptionId = String(session.subscription);
    await fake.failRenewal(subscriptionId);
    await fake.settled();
    const failed = app.outbox().filter((m) => /failed/i.test(m.subject));
    expect(failed.map((m) => m.to)).toEqual(["owner@example.com"]);
    expect(failed[0]!.links).toContain("http://localhost:3000/billing?org=acme");
    expect(app.outbox().filter((m) => m.to.includes(".invalid"))).toEqual([]);
  });

  it("counts an organization project's storage and downloads against the organization, and mails its owners the allowance warning", async () => {
    const uploaded = await app.request("/api/v1/projects/inhouse/releases/1.0.0/files/tool.bin", {
      method: "PUT",
      body: "0123456789",
      cookie: admin.cookie,
    });
    expect(uploaded.status).toBe(201);
    // Storage counts against the organization that holds the file, not the member who sent it.
    expect((await accountHoldings(db(), orgId)).storageBytes).toBe(10);
    expect((await accountHoldings(db(), admin.userId)).storageBytes).toBe(0);
    const seeded = Math.floor(plans.pro.downloadBytesPerMonth * 0.8) - 5;
    await db()
      .insertInto("download_month")
      .values({ owner_id: orgId, month: currentMonth(), bytes: seeded })
      .onConflict((oc) => oc.columns(["owner_id", "month"]).doUpdateSet({ bytes: seeded }))
      .execute();
    const res = await app.request("/dl/acme/inhouse/releases/1.0.0/tool.bin", { cookie: admin.cookie });
    expect(await res.text()).toBe("0123456789");
    const mails = () => app.outbox().filter((m) => /download allowance/.test(m.subject));
    await vi.waitFor(
      async () => {
        await flushDownloadCounts(db());
        expect(mails()).toHaveLength(1);
      },
      { timeout: 5000 },
    );
    expect(mails()[0]!.to).toBe("owner@example.com");
    expect(mails()[0]!.text).toContain("your Pro plan includes");
  });
});
