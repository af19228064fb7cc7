// change() on SQLite and PostgreSQL: the change and its audit entry commit together or not at
// all, and events are heard only after the commit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";
import { type DomainEvent, onDomainEvent } from "./changes.ts";
import { change } from "./use-case.ts";

let app: TestApp;
let userId: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ userId } = await onboardedUser(app, "usecaser"));
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;
const caller = () => ({ actor: { kind: "session" as const, userId }, address: "203.0.113.9" });

async function entries(target: string) {
  return db().selectFrom("audit_event").selectAll().where("target", "=", target).execute();
}

describe(`change (${databaseKind})`, () => {
  it("writes the audit entry with the change, then emits its events after the commit", async () => {
    const heard: { event: DomainEvent; entriesAtThatMoment: number }[] = [];
    // Heard in order (a change's events reach the domain listeners at once: the order is the
    // order of the calls, not of the lookups' answers).
    const stop = onDomainEvent(db(), async (event) => {
      const at = { event, entriesAtThatMoment: -1 };
      heard.push(at);
      at.entriesAtThatMoment = (await entries("committed-name")).length;
    });
    try {
      const result = await change(db(), caller(), async (tx, record) => {
        await tx.updateTable("user").set({ name: "committed-name" }).where("id", "=", userId).execute();
        record.audit({ ownerId: userId, action: "project.updated", target: "committed-name" });
        record.emit({ type: "packages-changed", projectId: "p-none" });
        return 42;
      });
      expect(result).toBe(42);
    } finally {
      stop();
    }
    const [entry] = await entries("committed-name");
    expect(entry).toMatchObject({ actor_kind: "user", actor_user_id: userId, address: "203.0.113.9" });
    expect(heard.map((h) => h.event.type)).toEqual(["changed", "packages-changed"]);
    expect(heard[0]!.event).toMatchObject({ action: "project.updated", ownerId: userId, projectId: null });
    // Listeners run after the commit: they already see the entry.
    expect(heard.every((h) => h.entriesAtThatMoment === 1)).toBe(true);
  });

  it("rolls back the change and its entry together, and emits nothing, when the work fails", async () => {
    const heard: DomainEvent[] = [];
    const stop = onDomainEvent(db(), (event) => {
      heard.push(event);
    });
    try {
      await expect(
        change(db(), caller(), async (tx, record) => {
          await tx.updateTable("user").set({ name: "rolled-back-name" }).where("id", "=", userId).execute();
          record.audit({ ownerId: userId, action: "project.updated", target: "rolled-back-name" });
          record.emit({ type: "packages-changed", projectId: "p-none" });
          throw new Error("the change failed half-way");
        }),
      ).rejects.toThrow("the change failed half-way");
    } finally {
      stop();
    }
    expect(await entries("rolled-back-name")).toEqual([]);
    const user = await db()
      .selectFrom("user")
      .select("name")
      .where("id", "=", userId)
      .executeTakeFirstOrThrow();
    expect(user.name).not.toBe("rolled-back-name");
    expect(heard).toEqual([]);
  });
});
