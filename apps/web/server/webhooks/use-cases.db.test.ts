// The webhook use cases called directly, on SQLite and PostgreSQL: a caller who may not manage
// the project changes nothing and leaves no entry; a change writes exactly one entry naming who
// made it; the delivery worker's turning off is the system's, once, however often it is asked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../test/harness.ts";
import type { Caller } from "../platform/core/use-case.ts";
import {
  createWebhook,
  deleteWebhook,
  disableFailingWebhook,
  rotateWebhookSecret,
  updateWebhook,
} from "./use-cases.ts";

let app: TestApp;
let ownerId: string;
let strangerId: string;

beforeAll(async () => {
  app = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: "true" });
  ({ userId: ownerId } = await publishingProject(app, "hookcase", "caseproj"));
  ({ userId: strangerId } = await publishingProject(app, "stranger", "elsewhere"));
});
afterAll(async () => {
  await app?.close();
});

const deps = () => ({
  db: app.services.database.db,
  clock: () => new Date(),
  webhooks: app.services.webhooks,
});
const person = (userId: string): Caller & { actor: { kind: "session"; userId: string } } => ({
  actor: { kind: "session", userId },
  address: "198.51.100.7",
});

const entries = (action: string) =>
  app.services.database.db
    .selectFrom("audit_event")
    .selectAll()
    .where("action", "=", action as "webhook.created")
    .execute();
const hooks = () => app.services.database.db.selectFrom("webhook").selectAll().execute();

describe(`webhook use cases (${databaseKind})`, () => {
  it("refuses a caller who does not reach the project: no webhook, no entry", async () => {
    await expect(
      createWebhook(deps(), person(strangerId), {
        project: "hookcase/caseproj",
        webhook: { url: "http://127.0.0.1:9/hook", events: ["release.created"] },
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await hooks()).toHaveLength(0);
    expect(await entries("webhook.created")).toHaveLength(0);
  });

  it("writes one entry per change, naming the person and their address", async () => {
    const created = await createWebhook(deps(), person(ownerId), {
      project: "hookcase/caseproj",
      webhook: { url: "http://127.0.0.1:9/hook", events: ["release.created"] },
    });
    expect(created.secret).toBeTruthy();
    // Refused edits by a stranger change nothing.
    await expect(
      updateWebhook(deps(), person(strangerId), {
        project: "hookcase/caseproj",
        id: created.id,
        webhook: { active: false },
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    // An edit that changes nothing records nothing.
    await updateWebhook(deps(), person(ownerId), {
      project: "hookcase/caseproj",
      id: created.id,
      webhook: {},
    });
    await updateWebhook(deps(), person(ownerId), {
      project: "hookcase/caseproj",
      id: created.id,
      webhook: { active: false, description: "ci" },
    });
    const rotated = await rotateWebhookSecret(deps(), person(ownerId), {
      project: "hookcase/caseproj",
      id: created.id,
    });
    expect(rotated.secret).not.toBe(created.secret);
    await deleteWebhook(deps(), person(ownerId), { project: "hookcase/caseproj", id: created.id });
    for (const action of [
      "webhook.created",
      "webhook.updated",
      "webhook.secret_rotated",
      "webhook.deleted",
    ]) {
      const found = await entries(action);
      expect(found, action).toHaveLength(1);
      expect(found[0], action).toMatchObject({
        actor_kind: "user",
        actor_user_id: ownerId,
        address: "198.51.100.7",
        project_slug: "caseproj",
        target: "http://127.0.0.1:9/hook",
      });
    }
    expect(JSON.parse((await entries("webhook.updated"))[0]!.details)).toEqual({
      changed: ["description", "active"],
    });
    expect(await hooks()).toHaveLength(0);
  });

  it("turns a failing webhook off once, as the system", async () => {
    const created = await createWebhook(deps(), person(ownerId), {
      project: "hookcase/caseproj",
      webhook: { url: "http://127.0.0.1:9/other", events: ["release.created"] },
    });
    const input = { webhookId: created.id, failingSince: "2026-01-01T00:00:00.000Z" };
    expect(await disableFailingWebhook(deps(), input)).toMatchObject({
      url: created.url,
      username: "hookcase",
    });
    expect(await disableFailingWebhook(deps(), input)).toBeNull();
    const found = await entries("webhook.disabled");
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      actor_kind: "system",
      actor_user_id: null,
      address: null,
      target: created.url,
    });
    expect((await hooks())[0]).toMatchObject({ active: expect.anything(), disabled_reason: "failing" });
  });
});
