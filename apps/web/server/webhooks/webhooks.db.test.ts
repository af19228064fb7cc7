// Webhooks end to end through the API (docs/webhooks.md): a receiver started here gets each
// event once, signed; a delivery answered 500 twice is delivered on the third try; redelivery,
// test deliveries and secret rotation; a webhook failing for 3 days is turned off and its owner
// mailed; loopback, link-local and private targets are refused unless WEBHOOK_ALLOW_PRIVATE.
// The clock is moved instead of waiting for retries.
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  publishingProject,
  type TestApp,
} from "../../test/harness.ts";
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../test/webhook-receiver.ts";
import { verifySignature } from "./signature.ts";

let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);

const json = (method: string, body: unknown, headers: Record<string, string>) => ({
  method,
  headers: { ...headers, "content-type": "application/json" },
  body: JSON.stringify(body),
});

function signedBy(secret: string, request: ReceivedWebhook): boolean {
  const header = String(request.headers["packyard-signature"]);
  const t = Number(/t=(\d+)/.exec(header)?.[1]);
  return verifySignature(secret, header, request.body, { now: t });
}

async function auditCount(app: TestApp, action: string, actorKind?: string): Promise<number> {
  let query = app.services.database.db
    .selectFrom("audit_event")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("action", "=", action);
  if (actorKind) query = query.where("actor_kind", "=", actorKind as "key");
  return Number((await query.executeTakeFirstOrThrow()).n);
}

describe(`webhooks (${databaseKind})`, () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let auth: Record<string, string>;
  let readAuth: Record<string, string>;
  let hook: { id: string; secret: string };
  const base = "/api/v1/projects/hooked/webhooks";
  /** Every due delivery attempted, and every attempt in flight finished. */
  const drain = async () => {
    await app.services.webhooks.settled();
    await app.services.webhooks.runDue();
    await app.services.webhooks.settled();
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    app = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: "true" }, { clock });
    const owner = await publishingProject(app, "hookster", "hooked");
    auth = owner.auth;
    readAuth = bearer(await createApiKey(app, owner.userId, { projects: "*", access: "read" }));
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  it("adds a webhook with its secret shown once; read keys list it, only publish access manages it", async () => {
    const input = { url: receiver.url, events: ["release.created", "file.uploaded"] };
    const refused = await app.request(base, json("POST", input, readAuth));
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe("KEY_SCOPE");
    const bad = await app.request(base, json("POST", { url: "ftp://example.com", events: [] }, auth));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe("VALIDATION_FAILED");

    const res = await app.request(
      base,
      json(
        "POST",
        {
          url: receiver.url,
          description: "CI",
          events: [
            "release.created",
            "release.yanked",
            "release.unyanked",
            "file.uploaded",
            "file.deleted",
            "repository.published",
            "key.rotated",
          ],
        },
        auth,
      ),
    );
    expect(res.status).toBe(201);
    const { webhook } = await res.json();
    expect(webhook).toMatchObject({ url: receiver.url, active: true, description: "CI" });
    expect(webhook.secret).toMatch(/^whsec_/);
    hook = { id: webhook.id, secret: webhook.secret };

    const list = await (await app.request(base, { headers: readAuth })).json();
    expect(list.webhooks).toHaveLength(1);
    expect(list.webhooks[0].secret).toBeUndefined();
    expect(JSON.stringify(list)).not.toContain(hook.secret);
    expect(await auditCount(app, "webhook.created", "key")).toBe(1);
  });

  it("delivers each event once, signed, with the payload the docs describe", async () => {
    const deb = Buffer.from(
      buildTestDeb({
        control:
          "Package: hello\nVersion: 1.0.0\nArchitecture: all\nMaintainer: T <t@example.com>\nDescription: hello\n",
      }),
    );
    const file = "/api/v1/projects/hooked/releases/1.0.0/files/hello_1.0.0_all.deb";
    expect((await app.request(file, { method: "PUT", headers: auth, body: deb })).status).toBe(201);
    const release = "/api/v1/projects/hooked/releases/1.0.0";
    expect((await app.request(`${release}/yank`, json("POST", { reason: "broken" }, auth))).status).toBe(200);
    expect((await app.request(`${release}/unyank`, { method: "POST", headers: auth })).status).toBe(200);
    expect((await app.request(file, { method: "DELETE", headers: auth })).status).toBe(204);
    expect(
      (await app.request("/api/v1/projects/hooked/keys/rotate", { method: "POST", headers: auth })).status,
    ).toBe(201);
    const once = [
      "release.created",
      "file.uploaded",
      "release.yanked",
      "release.unyanked",
      "file.deleted",
      "key.rotated",
    ];
    for (const event of [...once, "repository.published"])
      await receiver.waitFor((r) => r.json.event === event);
    await drain();

    const received = receiver.received;
    for (const event of once) expect(received.filter((r) => r.json.event === event)).toHaveLength(1);
    const deliveries = received.map((r) => r.headers["packyard-delivery"]);
    expect(new Set(deliveries).size).toBe(received.length);
    for (const request of received) {
      expect(signedBy(hook.secret, request)).toBe(true);
      expect(request.headers["packyard-event"]).toBe(request.json.event);
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.json.project).toEqual({
        id: expect.any(String),
        slug: "hooked",
        owner: "hookster",
        url: "http://localhost:3000/releases/hookster/hooked",
      });
    }
    const uploaded = received.find((r) => r.json.event === "file.uploaded")!;
    expect(uploaded.json.data).toMatchObject({
      release: { version: "1.0.0", yanked: false },
      file: {
        filename: "hello_1.0.0_all.deb",
        size: deb.length,
        kind: "deb",
        url: "http://localhost:3000/dl/hookster/hooked/releases/1.0.0/hello_1.0.0_all.deb",
      },
    });
    expect(received.find((r) => r.json.event === "release.yanked")!.json.data).toMatchObject({
      release: { version: "1.0.0", yanked: true, yankedReason: "broken" },
    });
    const published = received.filter((r) => r.json.event === "repository.published");
    // The first publish includes the upload: how long it took until the index was served.
    expect(published[0]!.json.data).toMatchObject({
      revision: expect.any(Number),
      repositories: expect.arrayContaining([{ format: "apt", name: expect.any(String) }]),
      sinceChangeMs: expect.any(Number),
    });
    const rotated = received.find((r) => r.json.event === "key.rotated")!.json.data;
    expect(rotated).toMatchObject({
      fingerprint: expect.stringMatching(/^[0-9A-F]{40}$/i),
      previous: [expect.any(String)],
      keyringUrl: "http://localhost:3000/dl/hookster/hooked/gpg.key",
    });

    const log = await (await app.request(`${base}/${hook.id}/deliveries`, { headers: readAuth })).json();
    expect(log.deliveries).toHaveLength(received.length);
    for (const delivery of log.deliveries) {
      expect(delivery.state).toBe("delivered");
      expect(delivery.attempts).toEqual([
        {
          at: expect.any(String),
          status: 200,
          durationMs: expect.any(Number),
          responseExcerpt: "thanks",
          error: null,
        },
      ]);
    }
  });

  it("retries a delivery answered 500 twice with backoff, and delivers it on the third try", async () => {
    const before = receiver.received.length;
    receiver.script([500, 500]);
    expect(
      (await app.request("/api/v1/projects/hooked/releases", json("POST", { version: "2.0.0" }, auth)))
        .status,
    ).toBe(201);
    const first = await receiver.waitFor(
      (r) =>
        r.json.event === "release.created" &&
        r.json.data.release !== undefined &&
        (r.json.data.release as { version: string }).version === "2.0.0",
    );
    await app.services.webhooks.settled();
    const deliveryId = String(first.headers["packyard-delivery"]);
    const delivery = async () =>
      (
        await (await app.request(`${base}/${hook.id}/deliveries`, { headers: readAuth })).json()
      ).deliveries.find((d: { id: string }) => d.id === deliveryId);
    let state = await delivery();
    expect(state).toMatchObject({
      state: "pending",
      attempts: [{ status: 500, responseExcerpt: "receiver broke" }],
    });
    const wait1 = Date.parse(state.nextAttemptAt) - Date.parse(state.attempts[0].at);
    expect(wait1).toBe(30_000);
    // Not due yet: nothing is sent.
    await app.services.webhooks.runDue();
    expect(receiver.received.length).toBe(before + 1);
    expect(
      (await app.request(`${base}/${hook.id}`, { headers: readAuth }).then((r) => r.json())).webhook
        .failingSince,
    ).not.toBeNull();

    offsetMs += 30_000;
    await drain();
    state = await delivery();
    expect(state.attempts.map((a: { status: number }) => a.status)).toEqual([500, 500]);
    expect(Date.parse(state.nextAttemptAt) - Date.parse(state.attempts[1].at)).toBe(60_000);

    offsetMs += 60_000;
    await drain();
    state = await delivery();
    expect(state.state).toBe("delivered");
    expect(state.attempts.map((a: { status: number }) => a.status)).toEqual([500, 500, 200]);
    const tries = receiver.received.filter((r) => r.headers["packyard-delivery"] === deliveryId);
    expect(tries).toHaveLength(3);
    expect(new Set(tries.map((t) => t.body)).size).toBe(1);
    for (const t of tries) expect(signedBy(hook.secret, t)).toBe(true);
    expect(
      (await app.request(`${base}/${hook.id}`, { headers: readAuth }).then((r) => r.json())).webhook
        .failingSince,
    ).toBeNull();
  });

  it("redelivers a delivery as a new one with the same event, and sends test pings", async () => {
    const log = await (await app.request(`${base}/${hook.id}/deliveries`, { headers: readAuth })).json();
    const original = log.deliveries.find((d: { event: string }) => d.event === "file.uploaded");
    const res = await app.request(`${base}/${hook.id}/deliveries/${original.id}/redeliver`, {
      method: "POST",
      headers: auth,
    });
    expect(res.status).toBe(200);
    const { delivery } = await res.json();
    expect(delivery).toMatchObject({ event: "file.uploaded", state: "delivered", redeliveryOf: original.id });
    expect(delivery.id).not.toBe(original.id);
    const again = receiver.received.find((r) => r.headers["packyard-delivery"] === delivery.id)!;
    expect(again.json.id).toBe(original.payload.id);
    expect(signedBy(hook.secret, again)).toBe(true);
    expect(
      (
        await app.request(`${base}/${hook.id}/deliveries/${original.id}/redeliver`, {
          method: "POST",
          headers: readAuth,
        })
      ).status,
    ).toBe(403);

    const ping = await (
      await app.request(`${base}/${hook.id}/test`, { method: "POST", headers: auth })
    ).json();
    expect(ping.delivery).toMatchObject({ event: "ping", state: "delivered", attempts: [{ status: 200 }] });
    expect(ping.delivery.payload.data).toEqual({ webhook: { id: hook.id, events: expect.any(Array) } });
  });

  it("signs with the new secret once it is rotated", async () => {
    const res = await app.request(`${base}/${hook.id}/rotate-secret`, { method: "POST", headers: auth });
    expect(res.status).toBe(200);
    const { webhook } = await res.json();
    expect(webhook.secret).toMatch(/^whsec_/);
    expect(webhook.secret).not.toBe(hook.secret);
    const { delivery } = await (
      await app.request(`${base}/${hook.id}/test`, { method: "POST", headers: auth })
    ).json();
    const ping = receiver.received.find((r) => r.headers["packyard-delivery"] === delivery.id)!;
    expect(signedBy(webhook.secret, ping)).toBe(true);
    expect(signedBy(hook.secret, ping)).toBe(false);
    expect(await auditCount(app, "webhook.secret_rotated", "key")).toBe(1);
    hook.secret = webhook.secret;
  });

  it("turns off a webhook whose deliveries failed for 3 days, and mails the owner", async () => {
    receiver.script([500, 500]);
    const create = (version: string) =>
      app.request("/api/v1/projects/hooked/releases", json("POST", { version }, auth));
    expect((await create("3.0.0")).status).toBe(201);
    await receiver.waitFor(
      (r) => (r.json.data.release as { version?: string } | undefined)?.version === "3.0.0",
    );
    await app.services.webhooks.settled();
    offsetMs += 3 * 24 * 60 * 60 * 1000;
    expect((await create("3.0.1")).status).toBe(201);
    await receiver.waitFor(
      (r) => (r.json.data.release as { version?: string } | undefined)?.version === "3.0.1",
    );
    await drain();

    const { webhook } = await (await app.request(`${base}/${hook.id}`, { headers: readAuth })).json();
    expect(webhook).toMatchObject({ active: false, disabledReason: "failing" });
    const log = await (await app.request(`${base}/${hook.id}/deliveries`, { headers: readAuth })).json();
    expect(log.deliveries.filter((d: { state: string }) => d.state === "pending")).toEqual([]);
    const mail = app.outbox().filter((m) => m.subject === "A webhook of hookster/hooked was turned off");
    expect(mail).toHaveLength(1);
    expect(mail[0]!.to).toContain("hookster@example.com");
    expect(mail[0]!.text).toContain(receiver.url);
    expect(await auditCount(app, "webhook.disabled", "system")).toBe(1);

    // Nothing goes to a webhook that is off; turned on again, it starts afresh.
    const before = receiver.received.length;
    expect((await create("3.0.2")).status).toBe(201);
    await drain();
    expect(receiver.received.length).toBe(before);
    // A test ping still goes out, to check the receiver before turning the webhook on.
    const ping = await (
      await app.request(`${base}/${hook.id}/test`, { method: "POST", headers: auth })
    ).json();
    expect(ping.delivery).toMatchObject({ event: "ping", state: "delivered" });
    const on = await app.request(`${base}/${hook.id}`, json("PATCH", { active: true }, auth));
    expect((await on.json()).webhook).toMatchObject({
      active: true,
      disabledReason: null,
      failingSince: null,
    });
  });

  it("edits and deletes a webhook", async () => {
    const res = await app.request(`${base}/${hook.id}`, json("PATCH", { events: ["key.rotated"] }, auth));
    expect(res.status).toBe(200);
    expect((await res.json()).webhook.events).toEqual(["key.rotated"]);
    expect((await app.request(`${base}/${hook.id}`, { method: "DELETE", headers: readAuth })).status).toBe(
      403,
    );
    expect((await app.request(`${base}/${hook.id}`, { method: "DELETE", headers: auth })).status).toBe(204);
    // Its delivery log goes with it.
    const { n } = await app.services.database.db
      .selectFrom("webhook_delivery")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("webhook_id", "=", hook.id)
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(0);
    expect((await app.request(`${base}/${hook.id}`, { headers: auth })).status).toBe(404);
    expect(await auditCount(app, "webhook.updated", "key")).toBe(2);
    expect(await auditCount(app, "webhook.deleted", "key")).toBe(1);
  });
  it("an organization's webhook turned off is mailed to the organization's owners, linking its pages", async () => {
    const post = (path: string, body: unknown) => app.request(path, json("POST", body, auth));
    expect((await post("/api/v1/orgs", { slug: "hookorg", name: "Hook org" })).status).toBe(201);
    expect(
      (await post("/api/v1/projects", { owner: "hookorg", slug: "orghooked", name: "Org hooked" })).status,
    ).toBe(201);
    const orgBase = "/api/v1/projects/hookorg/orghooked";
    const added = await post(`${orgBase}/webhooks`, { url: receiver.url, events: ["release.created"] });
    expect(added.status).toBe(201);
    receiver.script([500, 500]);
    // This project's release (others of the same version were made above).
    const released = (version: string) =>
      receiver.waitFor((r) => {
        const release = r.json.data.release as { version?: string; url?: string } | undefined;
        return release?.version === version && release.url?.includes("/orghooked/") === true;
      });
    expect((await post(`${orgBase}/releases`, { version: "1.0.0" })).status).toBe(201);
    await released("1.0.0");
    await app.services.webhooks.settled();
    offsetMs += 3 * 24 * 60 * 60 * 1000;
    expect((await post(`${orgBase}/releases`, { version: "1.0.1" })).status).toBe(201);
    await released("1.0.1");
    await drain();

    const turnedOff = () =>
      app.outbox().filter((m) => m.subject === "A webhook of hookorg/orghooked was turned off");
    // The mail follows the delivery that turned the webhook off.
    await expect.poll(() => turnedOff().length).toBe(1);
    const mail = turnedOff();
    // To the organization's owner (the person), never to the organization's own .invalid address.
    expect(mail.map((m) => m.to)).toEqual([expect.stringContaining("hookster@example.com")]);
    expect(mail[0]!.text).toContain("/orgs/hookorg/projects/orghooked/webhooks");
  });
});

describe(`webhook targets without WEBHOOK_ALLOW_PRIVATE (${databaseKind})`, () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let auth: Record<string, string>;
  const base = "/api/v1/projects/guarded/webhooks";

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    app = await createTestApp();
    auth = (await publishingProject(app, "guard", "guarded")).auth;
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  it("refuses loopback, link-local and private URLs when they are saved", async () => {
    for (const url of [
      receiver.url,
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:127.0.0.1]/hook",
      "http://10.0.0.8/hook",
      `http://localhost:${receiver.port}/hook`,
    ]) {
      const res = await app.request(base, json("POST", { url, events: ["release.created"] }, auth));
      expect(res.status, url).toBe(400);
      const { error } = await res.json();
      expect(error.code, url).toBe("WEBHOOK_URL_FORBIDDEN");
      expect(error.message).toMatch(/loopback, link-local or private address/);
    }
    const created = await app.request(
      base,
      json("POST", { url: "http://93.184.216.34/hook", events: ["release.created"] }, auth),
    );
    expect(created.status).toBe(201);
    const { webhook } = await created.json();
    const moved = await app.request(
      `${base}/${webhook.id}`,
      json("PATCH", { url: "http://192.168.1.10/" }, auth),
    );
    expect(moved.status).toBe(400);
    expect((await moved.json()).error.code).toBe("WEBHOOK_URL_FORBIDDEN");
  });

  it("refuses at connect time an address that became private after the URL was saved", async () => {
    const { webhook } = await (
      await app.request(
        base,
        json("POST", { url: "http://93.184.216.34/hook", events: ["release.created"] }, auth),
      )
    ).json();
    for (const url of [
      `http://localhost:${receiver.port}/hook`,
      "http://169.254.169.254/latest/meta-data/",
    ]) {
      // As if the name now resolved elsewhere (DNS rebinding), or the row had been written so.
      await app.services.database.db
        .updateTable("webhook")
        .set({ url })
        .where("id", "=", webhook.id)
        .execute();
      const { delivery } = await (
        await app.request(`${base}/${webhook.id}/test`, { method: "POST", headers: auth })
      ).json();
      expect(delivery.state, url).toBe("pending");
      expect(delivery.attempts[0].status).toBeNull();
      expect(delivery.attempts[0].error).toMatch(/^Refused: .*loopback, link-local or private address/);
    }
    expect(receiver.received).toEqual([]);
  });
});

// Issue 37 item 6: a receiver that never answers. The server makes WEBHOOK_CONCURRENCY (8)
// attempts at once, a quarter of them (2) at most for one project, one at a time per webhook; a
// webhook that got no answer 5 times in a row is paused, longer each time, until it answers.
describe(`webhooks to a receiver that hangs (${databaseKind})`, () => {
  let app: TestApp;
  let hanging: WebhookReceiver;
  let healthy: WebhookReceiver;
  let stalled: Record<string, string>;
  let stalledCookie: string;
  let brisk: Record<string, string>;
  let offset = 0;
  const stalledBase = "/api/v1/projects/stalled/webhooks";
  const hookIds: string[] = [];
  const release = (project: string, auth: Record<string, string>, version: string) =>
    app.request(`/api/v1/projects/${project}/releases`, json("POST", { version }, auth));
  const webhook = async (id: string) =>
    (await (await app.request(`${stalledBase}/${id}`, { headers: stalled })).json()).webhook;
  const deliveries = async (id: string) =>
    (await (await app.request(`${stalledBase}/${id}/deliveries`, { headers: stalled })).json())
      .deliveries as {
      state: string;
      nextAttemptAt: string | null;
      attempts: { at: string; status: number | null; error: string | null }[];
    }[];
  /** Every due delivery attempted, and every attempt in flight finished. */
  const drain = async () => {
    await app.services.webhooks.settled();
    await app.services.webhooks.runDue();
    await app.services.webhooks.settled();
  };

  beforeAll(async () => {
    hanging = await startWebhookReceiver();
    hanging.hang(true);
    healthy = await startWebhookReceiver();
    app = await createTestApp(
      { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_SECONDS: "1", WEBHOOK_CONCURRENCY: "8" },
      { clock: () => new Date(Date.now() + offset) },
    );
    const owner = await onboardedUser(app, "stalling");
    stalledCookie = owner.cookie;
    stalled = bearer(await createApiKey(app, owner.userId, { projects: "*", access: "publish" }));
    expect(
      (await app.request("/api/v1/projects", json("POST", { slug: "stalled", name: "Stalled" }, stalled)))
        .status,
    ).toBe(201);
    brisk = (await publishingProject(app, "brisker", "brisk")).auth;
    for (let i = 0; i < 5; i++) {
      const res = await app.request(
        stalledBase,
        json("POST", { url: hanging.url, events: ["release.created"] }, stalled),
      );
      expect(res.status).toBe(201);
      hookIds.push((await res.json()).webhook.id);
    }
    const res = await app.request(
      "/api/v1/projects/brisk/webhooks",
      json("POST", { url: healthy.url, events: ["release.created"] }, brisk),
    );
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await app?.close();
    await hanging?.close();
    await healthy?.close();
  });

  it("another project's delivery goes out while one project's hang, and they never hold more than their share of sockets", async () => {
    for (const version of ["1.0.0", "1.0.1", "1.0.2", "1.0.3"])
      expect((await release("stalled", stalled, version)).status).toBe(201);
    expect((await release("brisk", brisk, "1.0.0")).status).toBe(201);
    // Queued after 20 deliveries to the receiver that hangs (20 s of attempts, 2 at a time).
    await healthy.waitFor((r) => r.json.event === "release.created");
    expect(hanging.received.length).toBeLessThan(20);

    await expect.poll(() => hanging.received.length, { timeout: 60_000, interval: 200 }).toBe(20);
    await app.services.webhooks.settled();
    expect(hanging.maxOpen).toBeGreaterThan(0);
    expect(hanging.maxOpen).toBeLessThanOrEqual(2);
    for (const id of hookIds) {
      const log = await deliveries(id);
      expect(log).toHaveLength(4);
      for (const delivery of log) {
        expect(delivery.state).toBe("pending");
        expect(delivery.attempts).toEqual([
          expect.objectContaining({ status: null, error: "No answer within 1 s" }),
        ]);
      }
      expect(await webhook(id)).toMatchObject({ consecutiveTimeouts: 4, pausedUntil: null });
    }
  }, 90_000);

  it("pauses a webhook after 5 attempts in a row without an answer, then tries one delivery once the pause ends", async () => {
    offset += 30_000;
    await drain();
    // One more attempt per webhook (its 5th without an answer), not its 4 due deliveries.
    expect(hanging.received.length).toBe(25);
    for (const id of hookIds) {
      const hook = await webhook(id);
      expect(hook.consecutiveTimeouts).toBe(5);
      expect(hook.pausedUntil).toEqual(expect.any(String));
      const log = await deliveries(id);
      const tried = log.find((d) => d.attempts.length === 2)!;
      expect(tried.attempts[1]!.error).toBe(
        `No answer within 1 s (paused after 5 attempts in a row without an answer: next try at ${hook.pausedUntil})`,
      );
      // A minute after the 5th attempt ended; the deliveries wait for it, as their log says.
      expect(Date.parse(hook.pausedUntil) - Date.parse(tried.attempts[1]!.at)).toBeGreaterThanOrEqual(60_000);
      expect(log.map((d) => d.nextAttemptAt)).toEqual(log.map(() => hook.pausedUntil));
    }
    // The owner's webhooks page says so.
    const page = await app.request("/projects/stalled/webhooks", { cookie: stalledCookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html.match(/Paused after 5 attempts in a row without an answer/g)).toHaveLength(5);

    // A new event while paused waits too; nothing reaches the receiver before the pause ends.
    expect((await release("stalled", stalled, "1.0.4")).status).toBe(201);
    await expect
      .poll(async () => (await deliveries(hookIds[0]!)).filter((d) => d.attempts.length === 0).length, {
        timeout: 30_000,
        interval: 200,
      })
      .toBe(1);
    offset += 30_000;
    await drain();
    expect(hanging.received.length).toBe(25);
    for (const id of hookIds) {
      const hook = await webhook(id);
      const log = await deliveries(id);
      expect(log).toHaveLength(5);
      expect(log.map((d) => d.nextAttemptAt)).toEqual(log.map(() => hook.pausedUntil));
    }

    // The pause over: one delivery per webhook is tried, and no answer pauses it for longer.
    offset += 31_000;
    await drain();
    expect(hanging.received.length).toBe(30);
    for (const id of hookIds) {
      const hook = await webhook(id);
      expect(hook.consecutiveTimeouts).toBe(6);
      const last = (await deliveries(id))
        .flatMap((d) => d.attempts)
        .sort((a, b) => Date.parse(b.at) - Date.parse(a.at))[0]!;
      expect(last.error).toContain("paused after 6 attempts in a row without an answer");
      expect(Date.parse(hook.pausedUntil) - Date.parse(last.at)).toBeGreaterThanOrEqual(120_000);
    }
  }, 90_000);

  it("an answer closes the pause, and the deliveries that waited go out", async () => {
    hanging.hang(false);
    offset += 121_000;
    await drain();
    // 5 webhooks, 5 deliveries each: each delivered once, after the 30 tries that got nothing.
    expect(hanging.received.length).toBe(30 + 25);
    for (const id of hookIds) {
      expect(await webhook(id)).toMatchObject({ consecutiveTimeouts: 0, pausedUntil: null });
      const log = await deliveries(id);
      expect(log.map((d) => d.state)).toEqual(log.map(() => "delivered"));
    }
  }, 90_000);
});
