// Pins shared through the database (several servers behind a load balancer): a client's
// repomd.xml answered by one server, its repomd.xml.asc by another, from the same generation.
// Runs on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, type TestApp } from "../../../test/harness.ts";
import { PAIR_WINDOW_MS, SharedEntryPins } from "./entry-pins.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const gen = (n: number) => ({ generationId: `g${n}`, generationNumber: n });

describe(`repomd.xml pins shared between servers (${databaseKind})`, () => {
  it("answers one server's pin on another, keeps the highest in the window, forgets it after", async () => {
    let now = 1_000_000;
    const clock = () => now;
    const db = app.services.database.db;
    const [a, b] = [new SharedEntryPins(db, { now: clock }), new SharedEntryPins(db, { now: clock })];
    const client = { client: "203.0.113.7\n\n" };
    await a.remember(client, "p1/", gen(4));
    expect(await b.generations(client, "p1/")).toEqual(["g4"]);
    expect(await b.generations({ client: "198.51.100.1\n\n" }, "p1/")).toEqual([]);
    expect(await b.generations(client, "p2/")).toEqual([]);

    // A slower answer of an older generation does not move the pin back; a newer one moves it.
    await b.remember(client, "p1/", gen(3));
    expect(await a.generations(client, "p1/")).toEqual(["g4"]);
    await b.remember(client, "p1/", gen(5));
    expect(await a.generations(client, "p1/")).toEqual(["g5"]);

    // Past the window the pin is gone, and an older answer replaces it.
    now += PAIR_WINDOW_MS + 1;
    expect(await a.generations(client, "p1/")).toEqual([]);
    await a.remember(client, "p1/", gen(2));
    expect(await b.generations(client, "p1/")).toEqual(["g2"]);

    // A connection's pin stays in the process holding the connection, and comes first there.
    const connection = {};
    await a.remember({ connection, ...client }, "p1/", gen(6));
    expect(await a.generations({ connection, ...client }, "p1/")).toEqual(["g6"]);
    expect(await b.generations({ connection: {}, ...client }, "p1/")).toEqual(["g6"]);

    const removed = await SharedEntryPins.removeExpired(db, now + PAIR_WINDOW_MS + 1);
    expect(removed).toBe(1);
    expect(await a.generations(client, "p1/")).toEqual([]);
  });
});
