// Page actions read their form whole, so a body over 1 MiB is refused before an action sees it:
// a declared Content-Length at once, a body without one (chunked) as soon as it outgrows the
// limit. The contact form, anonymous, is the case: an oversized post is answered 413
// PAYLOAD_TOO_LARGE (the error page for a browser, JSON otherwise) and nothing is stored or
// mailed; an ordinary post still goes through. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, type TestApp } from "../../../test/harness.ts";
import { PAGE_BODY_LIMIT_BYTES } from "./page-body-limit.ts";

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ CONTACT_EMAIL: "hello@packyard.example", TRUST_PROXY: "true" });
});
afterAll(async () => {
  await app?.close();
});

const ADDRESS = "192.0.2.10";

/** A valid contact form, with its token, as the page serves it. */
async function contactForm(): Promise<string> {
  const page = await (await app.request("/contact", { headers: { "x-forwarded-for": ADDRESS } })).text();
  const csrfToken = page.match(/name="csrfToken" value="([^"]+)"/)?.[1];
  if (!csrfToken) throw new Error("no csrfToken field on /contact");
  return new URLSearchParams({
    name: "Ada Lovelace",
    email: "ada@example.com",
    subject: "Private repositories for a team",
    message: "Can one read key cover several private projects?",
    type: "sales",
    csrfToken,
  }).toString();
}

/** `form`, then an extra field that makes the body `size` bytes, produced as it is read. */
function padded(form: string, size: number): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  const encoder = new TextEncoder();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk =
        sent === 0
          ? encoder.encode(`${form}&padding=`)
          : new Uint8Array(Math.min(64 * 1024, size - sent)).fill(0x61);
      controller.enqueue(chunk);
      sent += chunk.byteLength;
      if (sent >= size) controller.close();
    },
  });
  return { body, pulled: () => sent };
}

const messages = async () => app.services.database.db.selectFrom("contact_message").select("id").execute();

function post(body: BodyInit, headers: Record<string, string> = {}) {
  return app.request("/contact", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-forwarded-for": ADDRESS,
      ...headers,
    },
    body,
    duplex: "half",
  } as RequestInit);
}

describe(`page actions' body limit (${databaseKind})`, () => {
  it("answers a declared Content-Length over the limit with 413 before reading the body", async () => {
    const size = 16 * 1024 * 1024;
    const { body, pulled } = padded(await contactForm(), size);
    const res = await post(body, { "content-length": String(size) });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
    // Not read beyond what the stream had queued before the answer.
    expect(pulled()).toBeLessThan(PAGE_BODY_LIMIT_BYTES);
    expect(await messages()).toEqual([]);
    expect(app.outbox()).toEqual([]);
  });

  it("cuts off a chunked body when it outgrows the limit, with 413", async () => {
    const size = 8 * 1024 * 1024;
    const { body, pulled } = padded(await contactForm(), size);
    const res = await post(body);
    expect(res.status).toBe(413);
    expect((await res.json()).error).toEqual({
      code: "PAYLOAD_TOO_LARGE",
      message: "Form submissions are limited to 1 MB",
    });
    expect(pulled()).toBeLessThan(size);
    expect(await messages()).toEqual([]);
    expect(app.outbox()).toEqual([]);
  });

  it("shows a browser the error page with the code", async () => {
    const size = 2 * 1024 * 1024;
    const { body } = padded(await contactForm(), size);
    const res = await post(body, {
      accept: "text/html,application/xhtml+xml",
      "content-length": String(size),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toContain("PAYLOAD_TOO_LARGE");
    expect(await messages()).toEqual([]);
  });

  it("still takes an ordinary contact message, declared or chunked", async () => {
    const declared = await post(await contactForm());
    expect(declared.status).toBe(200);
    expect(await declared.text()).toContain("Thank you, Ada Lovelace. Your message has been sent.");
    const { body } = padded(await contactForm(), 100 * 1024);
    const chunked = await post(body);
    expect(chunked.status).toBe(200);
    expect(await messages()).toHaveLength(2);
    expect(app.outbox()).toHaveLength(2);
  });
});
