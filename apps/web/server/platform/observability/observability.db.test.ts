// Server-side error reporting against a fake Sentry ingest endpoint (a local HTTP server, the
// outside service's boundary): with SENTRY_DSN set, a loader that fails — here because the
// database lost a table — sends an event to /api/<project>/envelope/, and so does the API's
// unexpected error; a 404 sends nothing. SQLite, and PostgreSQL when configured.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, onboardedUser, type TestApp } from "../../../test/harness.ts";

interface Envelope {
  path: string;
  body: string;
}

let ingest: Server;
let envelopes: Envelope[] = [];
let app: TestApp;

beforeAll(async () => {
  ingest = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      envelopes.push({ path: req.url ?? "", body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => ingest.listen(0, "127.0.0.1", resolve));
  const { port } = ingest.address() as AddressInfo;
  app = await createTestApp({ SENTRY_DSN: `http://publickey@127.0.0.1:${port}/7` });
});

afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => ingest?.close(resolve));
});

/** The error events received since the last call (transactions and sessions left out). */
async function receivedErrors(): Promise<{ path: string; exception: string; requestId?: string }[]> {
  await app.services.errors.flush(5000);
  const events = envelopes.flatMap(({ path, body }) => {
    const [, itemHeader, payload] = body.split("\n");
    if (!itemHeader || !payload || JSON.parse(itemHeader).type !== "event") return [];
    const event = JSON.parse(payload) as {
      exception?: { values?: { type: string; value: string }[] };
      tags?: Record<string, string>;
    };
    const values = event.exception?.values ?? [];
    return [
      {
        path,
        exception: values.map((v) => `${v.type}: ${v.value}`).join("\n"),
        requestId: event.tags?.request_id,
      },
    ];
  });
  envelopes = [];
  return events;
}

async function withProjectTableMissing<T>(run: () => Promise<T>): Promise<T> {
  const { db } = app.services.database;
  await sql`ALTER TABLE project RENAME TO project_unavailable`.execute(db);
  try {
    return await run();
  } finally {
    await sql`ALTER TABLE project_unavailable RENAME TO project`.execute(db);
  }
}

describe("server-side error reporting", () => {
  it("is on with SENTRY_DSN", () => {
    expect(app.services.errors.enabled).toBe(true);
  });

  it("sends an event to the ingest endpoint when a loader throws", async () => {
    const res = await withProjectTableMissing(() => app.request("/releases"));
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("Something went wrong. Please try again later.");

    const events = await receivedErrors();
    expect(events).toHaveLength(1);
    expect(events[0]?.path).toMatch(/^\/api\/7\/envelope\/\?/);
    expect(events[0]?.path).toContain("sentry_key=publickey");
    expect(events[0]?.exception).toMatch(/project/);
  });

  it("sends an event when an API request fails unexpectedly", async () => {
    // An existing owner: the lookup reaches the project table.
    const { username } = await onboardedUser(app, "reporter");
    const res = await withProjectTableMissing(() => app.request(`/api/p/${username}/nothing`));
    expect(res.status).toBe(500);
    const events = await receivedErrors();
    expect(events).toHaveLength(1);
    expect(events[0]?.exception).toMatch(/project/);
    // Tagged with the request's id, as its log lines are.
    expect(events[0]?.requestId).toBe(res.headers.get("x-request-id"));
    expect(events[0]?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("sends nothing for a page that is not found", async () => {
    expect((await app.request("/no/such/page")).status).toBe(404);
    expect((await app.request("/releases/nobody/nothing/1.0.0")).status).toBe(404);
    expect(await receivedErrors()).toEqual([]);
  });
});
