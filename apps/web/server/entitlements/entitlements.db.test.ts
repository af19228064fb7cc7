// Entitlement tokens through the API and /dl (issue 40, docs/entitlements.md), as a publisher and
// their customer use them and as an attacker tries them: the plan's number, reading a private
// project's files with the token as Bearer, as the Basic password and as the Basic user name;
// the version range; limits (dates, downloads, bytes a month) refused with ENTITLEMENT_LIMIT;
// disable, rotate with an overlap, delete; a token reaching another project, another account's
// project or the API; usage per day; an organization's token over chosen projects; the audit
// log. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, postJson, type TestApp } from "../../test/harness.ts";
import { setOperatorPlan } from "../billing/plan.ts";
import { flushDownloadCounts } from "../billing/usage.ts";

let app: TestApp;
let now = new Date("2026-12-01T10:00:00.000Z");
let owner: { cookie: string; userId: string; username: string };
let other: { cookie: string; userId: string; username: string };

const json = { "content-type": "application/json" };

async function call(method: string, path: string, body?: unknown, cookie = owner.cookie) {
  const res = await app.request(path, {
    method,
    headers: json,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    cookie,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function upload(
  project: string,
  version: string,
  filename: string,
  content: string,
  cookie = owner.cookie,
) {
  const res = await app.request(`/api/v1/projects/${project}/releases/${version}/files/${filename}`, {
    method: "PUT",
    body: content,
    cookie,
  });
  expect(res.status).toBe(201);
}

async function createProject(slug: string, cookie = owner.cookie) {
  const res = await postJson(app, "/api/v1/projects", { slug, name: slug, visibility: "private" }, cookie);
  expect(res.status).toBe(201);
}

/**
 * A /dl GET with the token sent as curl, apt or a browser would send it; the body is read whole
 * (a client that takes the file), and kept for the test as `text`.
 */
async function dl(
  path: string,
  token: string | undefined,
  how: "bearer" | "password" | "user" = "bearer",
  userAgent = "curl/8.5.0",
) {
  const headers: Record<string, string> = { "user-agent": userAgent };
  if (token !== undefined)
    headers.authorization =
      how === "bearer"
        ? `Bearer ${token}`
        : `Basic ${Buffer.from(how === "password" ? `entitlement:${token}` : `${token}:`).toString("base64")}`;
  const res = await app.request(path, { headers });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text: async () => text,
    json: async () => JSON.parse(text),
  };
}

async function createToken(body: Record<string, unknown>, project = "licensed") {
  const res = await call("POST", `/api/v1/projects/${project}/entitlements`, body);
  expect(res.status).toBe(201);
  return res.body as { entitlement: { id: string; start: string }; token: string };
}

beforeAll(async () => {
  app = await createTestApp({}, { clock: () => now });
  owner = await onboardedUser(app, "vendor");
  other = await onboardedUser(app, "othervendor");
  await setOperatorPlan(app.services.database.db, owner.userId, "pro");
  await createProject("licensed");
  await createProject("unlicensed");
  await upload("licensed", "2.1.0", "tool-2.1.0.tar.gz", "tool two one");
  await upload("licensed", "3.0.0", "tool-3.0.0.tar.gz", "tool three");
  await upload("unlicensed", "1.0.0", "other.tar.gz", "other bytes");
  await createProject("theirs", other.cookie);
  await upload("theirs", "1.0.0", "theirs.tar.gz", "their bytes", other.cookie);
});
afterAll(async () => {
  await app?.close();
});

const file21 = () => `/dl/${owner.username}/licensed/releases/2.1.0/tool-2.1.0.tar.gz`;
const file30 = () => `/dl/${owner.username}/licensed/releases/3.0.0/tool-3.0.0.tar.gz`;

describe(`entitlement tokens (${databaseKind})`, () => {
  it("are sold by plan: a Basic account is refused with PLAN_LIMIT, and the pricing page says so", async () => {
    const res = await call(
      "POST",
      "/api/v1/projects/theirs/entitlements",
      { name: "A customer" },
      other.cookie,
    );
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("PLAN_LIMIT");
    expect(res.body.error.message).toContain("does not include entitlement tokens");
    const pricing = await (await app.request("/pricing")).text();
    expect(pricing).toContain("25 entitlement tokens for your customers");
    expect(pricing).toContain("Unlimited entitlement tokens");
  });

  it("read the project's files with the token as Bearer, as the Basic password and as the Basic user name; nothing else", async () => {
    const { token, entitlement } = await createToken({ name: "Customer One", note: "order 1234" });
    expect(token).toMatch(/^pke_[A-Za-z0-9]{40}$/);
    expect(entitlement.start).toBe(token.slice(0, 8));

    expect((await dl(file21(), undefined)).status).toBe(404);
    for (const how of ["bearer", "password", "user"] as const) {
      const res = await dl(file21(), token, how);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("tool two one");
      expect(res.headers.get("cache-control")).toContain("private");
    }
    // SHA256SUMS and the project's keys are entitled too.
    const sums = await dl(`/dl/${owner.username}/licensed/releases/2.1.0/SHA256SUMS`, token);
    expect(sums.status).toBe(200);
    expect(await sums.text()).toContain("tool-2.1.0.tar.gz");
    expect((await dl(`/dl/${owner.username}/licensed/gpg.key`, token)).status).toBe(200);

    // The setup scripts, fetched with the token, write it into the machine's credentials.
    for (const format of ["deb", "rpm"]) {
      const script = await dl(`/dl/${owner.username}/licensed/setup.${format}.sh`, token, "user");
      expect(script.status).toBe(200);
      expect(script.headers.get("cache-control")).toBe("private, no-store");
      expect(await script.text()).toContain(`TOKEN="\${PACKYARD_TOKEN:-${token}}"`);
    }
    const anonymous = await dl(`/dl/${owner.username}/licensed/setup.deb.sh`, undefined);
    expect(anonymous.status).toBe(404);

    // Another project of the same account, another account's project: as if they did not exist.
    expect((await dl(`/dl/${owner.username}/unlicensed/releases/1.0.0/other.tar.gz`, token)).status).toBe(
      404,
    );
    expect((await dl(`/dl/${other.username}/theirs/releases/1.0.0/theirs.tar.gz`, token)).status).toBe(404);
    // Never the API.
    for (const path of ["/api/v1/projects", "/api/v1/projects/licensed/releases", "/api/v1/keys"]) {
      const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe("UNAUTHENTICATED");
    }
    // A made-up token is refused, not taken for anonymous.
    expect((await dl(file21(), `pke_${"x".repeat(40)}`)).status).toBe(401);
  });

  it("read only the releases in their version range, compared as dpkg compares versions", async () => {
    const { token } = await createToken({ name: "Licensed for 2.x", versionRange: ">=2.0 <3.0" });
    expect((await dl(file21(), token)).status).toBe(200);
    expect((await dl(file30(), token)).status).toBe(404);
    expect((await dl(`/dl/${owner.username}/licensed/releases/3.0.0/SHA256SUMS`, token)).status).toBe(404);
    // `latest` is 3.0.0: outside the range.
    expect((await dl(`/dl/${owner.username}/licensed/releases/latest/tool-3.0.0.tar.gz`, token)).status).toBe(
      404,
    );

    const bad = await call("POST", "/api/v1/projects/licensed/entitlements", {
      name: "x",
      versionRange: ">=2.0 <",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_FAILED");
  });

  it("are refused with ENTITLEMENT_LIMIT before validFrom, after validUntil, and once their downloads or month's bytes are used", async () => {
    const later = await createToken({ name: "Starts tomorrow", validFrom: "2026-12-02T00:00:00Z" });
    const before = await dl(file21(), later.token);
    expect(before.status).toBe(403);
    const refusal = (await before.json()).error;
    expect(refusal.code).toBe("ENTITLEMENT_LIMIT");
    expect(refusal.message).toBe("This entitlement token is valid from 2026-12-02T00:00:00.000Z.");

    const ended = await createToken({ name: "Ended", validUntil: "2026-11-30T00:00:00Z" });
    const after = await dl(file21(), ended.token);
    expect(after.status).toBe(403);
    expect((await after.json()).error.code).toBe("ENTITLEMENT_LIMIT");

    const two = await createToken({ name: "Two downloads", maxDownloads: 2 });
    expect((await dl(file21(), two.token)).status).toBe(200);
    // HEAD, a checksum list and a key fetch take no download.
    expect(
      (await app.request(file21(), { method: "HEAD", headers: { authorization: `Bearer ${two.token}` } }))
        .status,
    ).toBe(200);
    expect((await dl(`/dl/${owner.username}/licensed/releases/2.1.0/SHA256SUMS`, two.token)).status).toBe(
      200,
    );
    expect((await dl(file30(), two.token)).status).toBe(200);
    const third = await dl(file21(), two.token);
    expect(third.status).toBe(403);
    expect((await third.json()).error).toMatchObject({
      code: "ENTITLEMENT_LIMIT",
      message: "This entitlement token has used all of its 2 downloads.",
    });

    // 12 bytes a file: the first two fit in 20 bytes' month, the third is refused.
    const bytes = await createToken({ name: "Twenty bytes", maxBytesPerMonth: 20 });
    expect((await dl(file21(), bytes.token)).status).toBe(200);
    expect((await dl(file21(), bytes.token)).status).toBe(200);
    const over = await dl(file21(), bytes.token);
    expect(over.status).toBe(403);
    expect((await over.json()).error.message).toContain("has used its 20 B for this month");
  });

  it("are disabled, enabled, rotated with an overlap and deleted, each in the audit log", async () => {
    const { token, entitlement } = await createToken({ name: "Rotating customer" });
    const path = `/api/v1/projects/licensed/entitlements/${entitlement.id}`;
    expect((await call("PATCH", path, { enabled: false })).status).toBe(200);
    const disabled = await dl(file21(), token);
    expect(disabled.status).toBe(401);
    expect((await disabled.json()).error.message).toBe("This entitlement token is disabled");
    expect((await call("PATCH", path, { enabled: true })).status).toBe(200);
    expect((await dl(file21(), token)).status).toBe(200);

    const rotated = await call("POST", `${path}/rotate`, { overlapHours: 2 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.token as string;
    expect(fresh).not.toBe(token);
    expect(rotated.body.entitlement.previousValidUntil).toBe("2026-12-01T12:00:00.000Z");
    expect((await dl(file21(), token)).status).toBe(200);
    expect((await dl(file21(), fresh)).status).toBe(200);
    const saved = now;
    now = new Date("2026-12-01T12:00:01.000Z");
    try {
      expect((await dl(file21(), token)).status).toBe(401);
      expect((await dl(file21(), fresh)).status).toBe(200);
    } finally {
      now = saved;
    }
    // A rotation without an overlap ends the old secret at once.
    const again = await call("POST", `${path}/rotate`, { overlapHours: 0 });
    expect((await dl(file21(), fresh)).status).toBe(401);
    expect((await dl(file21(), again.body.token)).status).toBe(200);

    expect((await call("DELETE", path)).status).toBe(204);
    expect((await dl(file21(), again.body.token)).status).toBe(401);
    expect((await call("GET", path)).status).toBe(404);

    const log = await call("GET", "/api/v1/projects/licensed/audit?action=entitlement");
    expect(log.status).toBe(200);
    const actions = (log.body.entries as { action: string; target: string }[])
      .filter((e) => e.target === "Rotating customer")
      .map((e) => e.action);
    expect(actions).toEqual([
      "entitlement.deleted",
      "entitlement.rotated",
      "entitlement.rotated",
      "entitlement.enabled",
      "entitlement.disabled",
      "entitlement.created",
    ]);
    expect(JSON.stringify(log.body)).not.toContain(again.body.token);
  });

  it("count their use per day: downloads, installs (a package manager), bytes and distinct machines", async () => {
    const { token, entitlement } = await createToken({ name: "Counted customer" });
    await dl(file21(), token, "bearer", "curl/8.5.0");
    await dl(file21(), token, "bearer", "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0");
    await dl(file30(), token, "password", "Debian APT-HTTP/1.3 (2.6.1)");
    await flushDownloadCounts(app.services.database.db);
    const usage = await call("GET", `/api/v1/projects/licensed/entitlements/${entitlement.id}/usage`);
    expect(usage.status).toBe(200);
    expect(usage.body.days).toEqual([
      { day: "2026-12-01", downloads: 2, installs: 1, bytes: 12 + 12 + 10, machines: 3 },
    ]);
    expect(usage.body.entitlement).toMatchObject({
      downloads: 3,
      bytesThisMonth: 34,
      lastUsed: { at: "2026-12-01T10:00:00.000Z", client: "Debian APT-HTTP/1.3 (2.6.1)" },
    });
    const listed = await call("GET", "/api/v1/projects/licensed/entitlements");
    expect(listed.body.entitlements.map((e: { name: string }) => e.name)).toContain("Counted customer");
    // Another account cannot see them.
    expect(
      (await call("GET", "/api/v1/projects/licensed/entitlements", undefined, other.cookie)).status,
    ).toBe(404);
  });

  it("of an organization read the projects it lists, and only those", async () => {
    const org = await postJson(app, "/api/v1/orgs", { slug: "acme-corp", name: "Acme" }, owner.cookie);
    expect(org.status).toBe(201);
    await setOperatorPlan(app.services.database.db, (await org.json()).organization.id, "starter");
    for (const slug of ["acme-cli", "acme-agent"]) {
      const res = await postJson(
        app,
        "/api/v1/projects",
        { slug, name: slug, visibility: "private", owner: "acme-corp" },
        owner.cookie,
      );
      expect(res.status).toBe(201);
      await upload(`acme-corp/${slug}`, "1.0.0", `${slug}.tar.gz`, `${slug} bytes`);
    }
    const unknown = await call("POST", "/api/v1/orgs/acme-corp/entitlements", {
      name: "x",
      projects: ["nope"],
    });
    expect(unknown.status).toBe(404);
    const created = await call("POST", "/api/v1/orgs/acme-corp/entitlements", {
      name: "Acme customer",
      projects: ["acme-cli"],
    });
    expect(created.status).toBe(201);
    expect(created.body.entitlement.projects).toEqual(["acme-corp/acme-cli"]);
    const token = created.body.token as string;
    expect((await dl("/dl/acme-corp/acme-cli/releases/1.0.0/acme-cli.tar.gz", token)).status).toBe(200);
    expect((await dl("/dl/acme-corp/acme-agent/releases/1.0.0/acme-agent.tar.gz", token)).status).toBe(404);
    const widened = await call(
      "PATCH",
      `/api/v1/orgs/acme-corp/entitlements/${created.body.entitlement.id}`,
      {
        projects: ["acme-cli", "acme-agent"],
      },
    );
    expect(widened.status).toBe(200);
    expect((await dl("/dl/acme-corp/acme-agent/releases/1.0.0/acme-agent.tar.gz", token)).status).toBe(200);
    // The project's own list shows the organization's token that reads it.
    const listed = await call("GET", "/api/v1/projects/acme-corp/acme-agent/entitlements");
    expect(listed.body.entitlements.map((e: { name: string }) => e.name)).toEqual(["Acme customer"]);
  });
});
