// The serving cache is dropped by domain events (decision 074), not by the SQL that ran: a change
// that writes none of the tables /dl reads — here only its audit entry — drops it when its event
// is announced, in this process and, on PostgreSQL, in another process sharing the database
// (through the `packyard_changes` notification the event sends).

import type { AuditAction } from "@packyard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";
import { emitDomainEvent } from "../platform/core/changes.ts";
import { change, SYSTEM } from "../platform/core/use-case.ts";
import { openDatabase } from "../platform/db/database.ts";
import { CHANGES_CHANNEL } from "./change-listener.ts";
import { servingCachesOf } from "./serve-cache.ts";

let app: TestApp;
let userId: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ userId } = await onboardedUser(app, "cachewatcher"));
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;

/** A change whose only write is its audit entry: nothing but its event can tell the cache. */
function announcedChange(target: string) {
  return change(db(), SYSTEM, async (_tx, record) => {
    record.audit({ ownerId: userId, action: "project.updated", target });
  });
}

/** Waits until `done` holds; the notification crosses a connection, so it is not instant. */
async function until(done: () => boolean) {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return done();
}

describe(`the serving cache follows domain events (${databaseKind})`, () => {
  it("drops what it holds when a change is announced", async () => {
    const { rows } = servingCachesOf(db());
    await rows.get("probe-here", async () => "held");
    expect(rows.peek("probe-here")).toBe("held");
    await announcedChange("probe-here");
    expect(rows.peek("probe-here")).toBeUndefined();
  });

  it.runIf(databaseKind === "postgres")("drops another process's cache through PostgreSQL", async () => {
    const other = openDatabase(app.services.config.database);
    try {
      // Its cache is on once its LISTEN connection is.
      expect(await until(() => other.caches.rows.enabled)).toBe(true);
      await other.caches.rows.get("probe-there", async () => "held");
      expect(other.caches.rows.peek("probe-there")).toBe("held");
      await announcedChange("probe-there");
      expect(await until(() => other.caches.rows.peek("probe-there") === undefined)).toBe(true);
    } finally {
      await other.close();
    }
  });
});

describe.runIf(databaseKind === "postgres")("the change notification (postgres)", () => {
  it("goes out once for the events announced together", async () => {
    const pg = (await import("pg")).default;
    const listener = new pg.Client({
      connectionString: (app.services.config.database as { url: string }).url,
    });
    const payloads: string[] = [];
    listener.on("notification", (message) => payloads.push(message.payload ?? ""));
    await listener.connect();
    try {
      await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
      const actions: AuditAction[] = ["project.updated", "release.yanked", "project.updated"];
      const events = actions.map((action) =>
        emitDomainEvent(db(), { type: "changed", action, ownerId: userId, projectId: null }),
      );
      await Promise.all(events);
      expect(await until(() => payloads.length > 0)).toBe(true);
      // Nothing more arrives: one notification for the three events.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(payloads).toEqual(["project.updated,release.yanked"]);
      // A change's events (its audit entries' and its own, heard one after the other by their
      // listeners) go out as one notification too.
      payloads.length = 0;
      await change(db(), SYSTEM, async (_tx, record) => {
        record.audit({ ownerId: userId, action: "release.created", target: "one" });
        record.audit({ ownerId: userId, action: "file.uploaded", target: "two" });
        record.emit({ type: "release.yanked", projectId: "p-none", releaseId: "r-none" });
        record.emit({ type: "file.uploaded", projectId: "p-none", releaseId: "r-none", fileId: "f-none" });
      });
      expect(await until(() => payloads.length > 0)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(payloads).toEqual(["release.created,file.uploaded,release.yanked"]);
    } finally {
      await listener.end();
    }
  });
});
