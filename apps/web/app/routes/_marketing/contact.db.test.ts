// The contact form's server side, through the real page and action in memory: a valid message is
// stored and mailed to CONTACT_EMAIL with the sender as Reply-To, and the visitor is thanked; the
// spec's messages come back for invalid fields; a missing or forged form token is refused and a
// filled honeypot thanked, and neither stores anything; a name or subject stays one line in the
// mail; the sixth message an hour from one address is refused
// with a clear message. SQLite, and PostgreSQL when configured.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, type TestApp } from "../../../test/harness.ts";

let app: TestApp;

beforeAll(async () => {
  // TRUST_PROXY lets each test speak from its own client address (X-Forwarded-For).
  app = await createTestApp({ CONTACT_EMAIL: "hello@packyard.example", TRUST_PROXY: "true" });
});
afterAll(async () => {
  await app?.close();
});

const valid = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  subject: "Private repositories for a team",
  message: "Can one read key cover several private projects?",
  type: "sales",
};

/** The page's form token, as the browser gets it. */
async function formToken(address: string): Promise<string> {
  const res = await app.request("/contact", { headers: { "x-forwarded-for": address } });
  const html = await res.text();
  const token = html.match(/name="csrfToken" value="([^"]+)"/)?.[1];
  if (!token) throw new Error("no csrfToken field on /contact");
  return token;
}

async function post(fields: Record<string, string>, address: string) {
  const res = await app.request("/contact", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

async function stored() {
  return app.services.database.db.selectFrom("contact_message").selectAll().orderBy("created_at").execute();
}

function rawOutbox(): string[] {
  const dir = join(app.dataDir, "outbox");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".eml"))
    .sort()
    .map((f) => readFileSync(join(dir, f), "utf8"));
}

describe(`the contact form (${databaseKind})`, () => {
  it("stores a valid message, mails it to CONTACT_EMAIL with the sender as Reply-To, and says thank you", async () => {
    const before = app.outbox().length;
    const { status, html } = await post(
      { ...valid, csrfToken: await formToken("203.0.113.1") },
      "203.0.113.1",
    );
    expect(status).toBe(200);
    expect(html).toContain("Thank you, Ada Lovelace. Your message has been sent.");
    expect(html).toContain("ada@example.com");

    const rows = await stored();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      name: "Ada Lovelace",
      email: "ada@example.com",
      subject: "Private repositories for a team",
      message: "Can one read key cover several private projects?",
      type: "sales",
      client_address: "203.0.113.1",
      mail_error: null,
    });
    expect(rows[0]?.mailed_at).toBeTruthy();

    const mails = app.outbox().slice(before);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.to).toBe("hello@packyard.example");
    expect(mails[0]?.subject).toBe("Contact form (Sales): Private repositories for a team");
    expect(mails[0]?.text).toContain("Can one read key cover several private projects?");
    expect(mails[0]?.text).toContain("Ada Lovelace <ada@example.com>");
    expect(rawOutbox().at(-1)).toMatch(/^Reply-To: ada@example\.com\r?$/m);
  });

  it("answers the spec's messages for each invalid field, and stores nothing", async () => {
    const { status, html } = await post(
      {
        name: "A",
        email: "not-an-email",
        subject: "Hi",
        message: "Too short",
        type: "general",
        csrfToken: await formToken("203.0.113.2"),
      },
      "203.0.113.2",
    );
    expect(status).toBe(400);
    for (const message of [
      "Name must be at least 2 characters",
      "Please enter a valid email address",
      "Subject must be at least 5 characters",
      "Message must be at least 10 characters",
    ]) {
      expect(html).toContain(message);
    }
    expect(await stored()).toHaveLength(1);
  });

  it("refuses a post without the form token, or with a forged one, and stores nothing", async () => {
    const mails = app.outbox().length;
    const missing = await post(valid, "203.0.113.3");
    expect(missing.status).toBe(403);
    expect(missing.html).toContain(
      "This form could not be verified. Reload the page and send your message again.",
    );
    const forged = await post(
      { ...valid, csrfToken: `${Date.now() + 60_000}.abc.${"x".repeat(43)}` },
      "203.0.113.3",
    );
    expect(forged.status).toBe(403);
    expect(await stored()).toHaveLength(1);
    expect(app.outbox()).toHaveLength(mails);
  });

  it("thanks a post whose honeypot field is filled as it thanks a person, and stores and sends nothing", async () => {
    const mails = app.outbox().length;
    const { status, html } = await post(
      { ...valid, csrfToken: await formToken("203.0.113.4"), leave_blank: "https://spam.example" },
      "203.0.113.4",
    );
    expect(status).toBe(200);
    expect(html).toContain("Thank you, Ada Lovelace. Your message has been sent.");
    expect(await stored()).toHaveLength(1);
    expect(app.outbox()).toHaveLength(mails);
  });

  it("keeps a name and subject on one line, so that they cannot add lines to the mail", async () => {
    const before = app.outbox().length;
    const { status } = await post(
      {
        ...valid,
        name: "Mallory\r\nType: Support\r\nReceived: yesterday",
        subject: "Invoice question\nFrom: Boss <boss@packyard.example>",
        csrfToken: await formToken("203.0.113.5"),
      },
      "203.0.113.5",
    );
    expect(status).toBe(200);
    const row = (await stored()).find((r) => r.client_address === "203.0.113.5");
    expect(row).toMatchObject({
      name: "Mallory Type: Support Received: yesterday",
      subject: "Invoice question From: Boss <boss@packyard.example>",
    });
    const mails = app.outbox().slice(before);
    expect(mails).toHaveLength(1);
    const lines = mails[0]!.text.split(/\r?\n/);
    expect(lines).toContain("From: Mallory Type: Support Received: yesterday <ada@example.com>");
    expect(lines).toContain("Subject: Invoice question From: Boss <boss@packyard.example>");
    expect(lines.filter((line) => /^(From|Type|Received|Subject): /.test(line))).toHaveLength(4);
  });

  it("accepts 5 messages an hour from one address and refuses the sixth with a clear message", async () => {
    const address = "198.51.100.7";
    for (let i = 0; i < 5; i++) {
      const { status } = await post(
        { ...valid, subject: `Question number ${i + 1}`, csrfToken: await formToken(address) },
        address,
      );
      expect(status).toBe(200);
    }
    const sixth = await post({ ...valid, csrfToken: await formToken(address) }, address);
    expect(sixth.status).toBe(429);
    expect(sixth.html).toMatch(
      /You have sent 5 messages in the last hour, the most we accept from one address\. Please try again in (60|59) minutes\./,
    );
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(3500);
    // Another address is not affected.
    const other = await post({ ...valid, csrfToken: await formToken("198.51.100.8") }, "198.51.100.8");
    expect(other.status).toBe(200);
    expect((await stored()).filter((row) => row.client_address === address)).toHaveLength(5);
  });
});
