// /pricing sells what the server does (issue 38): read-only API keys for private repositories
// are on every plan, Basic included, so the page lists them on Basic and no dearer plan sells
// them as its own. Plan limits on, as a real server runs. SQLite, and PostgreSQL when configured.
import { type PlanId, planIds } from "@packyard/contract/plans.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

/** Each plan card's list items, as text, from the server-rendered page. */
function cardLines(html: string): Record<PlanId, string[]> {
  const lines = {} as Record<PlanId, string[]>;
  for (const id of planIds) {
    const start = html.indexOf(`data-plan="${id}"`);
    expect(start).toBeGreaterThan(-1);
    const card = html.slice(start, html.indexOf("</ul>", start));
    lines[id] = [...card.matchAll(/<li[^>]*>([\s\S]*?)<\/li>/g)].map((m) =>
      m[1]!.replace(/<[^>]+>/g, "").trim(),
    );
  }
  return lines;
}

const readKeys = /read(-only)? (api )?(keys|tokens)/i;

describe(`pricing copy against enforcement (${databaseKind})`, () => {
  it("lists read-only keys for private repositories on Basic, where a Basic account's read-only key reads its private project", async () => {
    const page = await app.request("/pricing");
    expect(page.status).toBe(200);
    const cards = cardLines(await page.text());
    expect(cards.basic).toContain("Read-only API keys for private repositories");
    expect(cards.starter.filter((line) => readKeys.test(line))).toEqual([]);
    expect(cards.pro.filter((line) => readKeys.test(line))).toEqual([]);

    // What the Basic card promises, done as a Basic account does it: a private project, a
    // file in it, a read-only key made with the session, and a download with that key.
    const { cookie, username } = await onboardedUser(app, "basic-reader");
    const json = { "content-type": "application/json" };
    const created = await app.request("/api/v1/projects", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ slug: "secret", name: "Secret", visibility: "private" }),
      cookie,
    });
    expect(created.status).toBe(201);
    const put = await app.request("/api/v1/projects/secret/releases/1.0.0/files/tool.tar.gz", {
      method: "PUT",
      body: "archive bytes",
      cookie,
    });
    expect(put.status).toBe(201);
    const me = await app.request("/api/v1/usage", { cookie });
    expect(me.status).toBe(200);
    expect((await me.json()).usage.plan).toBe("basic");
    const key = await app.request("/api/v1/keys", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ name: "apt on the build farm", access: "read", projects: ["secret"] }),
      cookie,
    });
    expect(key.status).toBe(201);
    const secret = (await key.json()).key.key as string;

    const path = `/dl/${username}/secret/releases/1.0.0/tool.tar.gz`;
    expect((await app.request(path)).status).toBe(404);
    const download = await app.request(path, { headers: { authorization: `Bearer ${secret}` } });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe("archive bytes");
  });
});

describe(`single sign-on on the pricing page (${databaseKind})`, () => {
  it("sells it on Pro alone, as the server enforces it (orgs/sso.db.test.ts: PLAN_LIMIT below Pro)", async () => {
    const html = await (await app.request("/pricing")).text();
    const cards = cardLines(html);
    const sso = /single sign-on/i;
    expect(cards.pro.filter((line) => sso.test(line))).toEqual([
      "Single sign-on (SAML, OpenID Connect) and SCIM for organizations",
    ]);
    expect(cards.basic.filter((line) => sso.test(line))).toEqual([]);
    expect(cards.starter.filter((line) => sso.test(line))).toEqual([]);
    expect(html).toContain("SCIM provisioning are part of an organization&#x27;s Pro plan");
  });
});
