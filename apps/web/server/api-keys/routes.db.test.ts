// /api/v1/keys as keys see it: an organization's key mints no keys (it would make further
// never-expiring publish keys that outlive it), as on /api/v1/orgs/{slug}/keys; and a key past
// its rate limit is told when to come back (Retry-After), on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  type TestApp,
} from "../../test/harness.ts";
import { KEY_RATE_LIMIT } from "../auth/key-checks.ts";

let app: TestApp;
let owner: Awaited<ReturnType<typeof onboardedUser>>;

beforeAll(async () => {
  app = await createTestApp();
  owner = await onboardedUser(app, "keymaker");
});
afterAll(async () => {
  await app?.close();
});

const send = (method: string, path: string, auth: { cookie?: string; key?: string }, body?: unknown) =>
  app.request(path, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(auth.key ? bearer(auth.key) : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    cookie: auth.cookie,
  });

const keyCount = async () =>
  Number(
    (
      await app.services.database.db
        .selectFrom("apikey")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe(`API keys through the API (${databaseKind})`, () => {
  it("refuses an organization's all-projects publish key on /api/v1/keys as the organization's route does", async () => {
    expect((await send("POST", "/api/v1/orgs", owner, { slug: "keyco", name: "Key Co" })).status).toBe(201);
    const created = await send("POST", "/api/v1/orgs/keyco/keys", owner, {
      name: "ci",
      access: "publish",
      projects: "*",
      expiresInDays: 30,
    });
    expect(created.status).toBe(201);
    const orgKey: string = (await created.json()).key.key;
    const input = { name: "minted", access: "publish", projects: "*", expiresInDays: null };
    const before = await keyCount();

    const viaOrgRoute = await send("POST", "/api/v1/orgs/keyco/keys", { key: orgKey }, input);
    const viaKeysRoute = await send("POST", "/api/v1/keys", { key: orgKey }, input);
    const orgAnswer = { status: viaOrgRoute.status, code: (await viaOrgRoute.json()).error.code };
    expect(orgAnswer).toEqual({ status: 404, code: "NOT_FOUND" });
    expect({ status: viaKeysRoute.status, code: (await viaKeysRoute.json()).error.code }).toEqual(orgAnswer);
    // Nor does it list or delete the organization's keys there.
    expect((await send("GET", "/api/v1/keys", { key: orgKey })).status).toBe(404);
    expect(await keyCount()).toBe(before);

    // A person's all-projects publish key still manages its owner's keys.
    const personal = await createApiKey(app, owner.userId, { projects: "*", access: "publish" });
    expect((await send("POST", "/api/v1/keys", { key: personal }, input)).status).toBe(201);
  });

  it("answers a key past its rate limit 429 with Retry-After in seconds", async () => {
    const key = await createApiKey(app, owner.userId, { projects: "*", access: "read" });
    // The cheapest request a key makes: checked and counted, then refused for its scope.
    const statuses = new Map<number, number>();
    for (let sent = 0; sent < KEY_RATE_LIMIT.max; sent += 100) {
      const batch = await Promise.all(
        Array.from({ length: 100 }, () => send("GET", "/api/v1/keys", { key }).then((r) => r.status)),
      );
      for (const status of batch) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(statuses.get(403)).toBe(KEY_RATE_LIMIT.max);

    const limited = await send("GET", "/api/v1/keys", { key });
    expect(limited.status).toBe(429);
    expect((await limited.json()).error.code).toBe("RATE_LIMITED");
    const retryAfter = limited.headers.get("retry-after");
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(KEY_RATE_LIMIT.windowMs / 1000);
  });
});
