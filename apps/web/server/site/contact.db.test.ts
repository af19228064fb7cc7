// Contact messages in the domain: the form token (signed, expiring), a message stored before its
// mail so a mail server that is down loses nothing, the retry from the maintenance pass, and the
// retention of addresses and messages. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, type TestApp } from "../../test/harness.ts";
import type { Mailer, MailMessage } from "../platform/mail/mailer.ts";
import type { Logger } from "../platform/observability/logger.ts";
import {
  CONTACT_MAIL_MAX_ATTEMPTS,
  CONTACT_TOKEN_TTL_MS,
  type ContactDeps,
  checkContactToken,
  contactUpkeep,
  issueContactToken,
  submitContactMessage,
} from "./contact.ts";

let app: TestApp;
const SECRET = "contact-test-secret-contact-test-secret";
const logged: string[] = [];
const logger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (m) => logged.push(m),
  error: (m) => logged.push(m),
};

/** A mailer that fails while `down` is true and keeps what it sent. */
function fakeMailer() {
  const sent: MailMessage[] = [];
  const state = { down: false };
  const mailer: Mailer = {
    async send(message) {
      if (state.down) throw new Error("connect ECONNREFUSED 127.0.0.1:587");
      sent.push(message);
    },
  };
  return { mailer, sent, state };
}

const values = {
  name: "Grace Hopper",
  email: "grace@example.com",
  subject: "Support for el9 groups",
  message: "Does a group need its own setup line?",
  type: "support" as const,
};

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

function deps(mailer: Mailer): ContactDeps {
  return {
    db: app.services.database.db,
    mailer,
    logger,
    config: { secret: SECRET, contactEmail: "team@packyard.example" },
  };
}

const rows = () =>
  app.services.database.db.selectFrom("contact_message").selectAll().orderBy("created_at").execute();

describe("the contact form token", () => {
  it("is valid until it expires, and only with the server's secret", () => {
    const now = Date.now();
    const token = issueContactToken(SECRET, now);
    expect(checkContactToken(SECRET, token, now)).toBe("valid");
    expect(checkContactToken(SECRET, token, now + CONTACT_TOKEN_TTL_MS - 1)).toBe("valid");
    expect(checkContactToken(SECRET, token, now + CONTACT_TOKEN_TTL_MS + 1)).toBe("expired");
    expect(checkContactToken("another-secret-another-secret-another", token, now)).toBe("invalid");
    expect(checkContactToken(SECRET, undefined, now)).toBe("missing");
    expect(checkContactToken(SECRET, "", now)).toBe("missing");
    const [expires, nonce, signature] = token.split(".");
    // A later expiry with the old signature is not accepted.
    expect(checkContactToken(SECRET, `${Number(expires) + 1e9}.${nonce}.${signature}`, now)).toBe("invalid");
    expect(checkContactToken(SECRET, "a.b", now)).toBe("invalid");
  });
});

describe(`a contact message whose mail fails (${databaseKind})`, () => {
  it("stays stored with its send state, is logged, and is mailed by the next maintenance pass", async () => {
    const { mailer, sent, state } = fakeMailer();
    state.down = true;
    const received = new Date(Date.now() - 5 * 60_000);
    const outcome = await submitContactMessage(
      deps(mailer),
      { values, csrfToken: issueContactToken(SECRET), honeypot: undefined, clientAddress: "192.0.2.10" },
      received,
    );
    expect(outcome).toMatchObject({ ok: true, mailed: false });
    let [row] = await rows();
    expect(row).toMatchObject({ name: "Grace Hopper", mailed_at: null, mail_attempts: 1 });
    expect(row?.mail_error).toContain("ECONNREFUSED");
    expect(logged.some((m) => m.includes("is stored and will be retried"))).toBe(true);

    // Still down: the pass tries again and records the attempt.
    await contactUpkeep(deps(mailer));
    [row] = await rows();
    expect(row?.mail_attempts).toBe(2);

    state.down = false;
    const upkeep = await contactUpkeep(deps(mailer));
    expect(upkeep).toMatchObject({ mailed: 1, stillUnsent: 0 });
    [row] = await rows();
    expect(row?.mailed_at).toBeTruthy();
    expect(row?.mail_error).toBeNull();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      to: "team@packyard.example",
      replyTo: "grace@example.com",
      subject: "Contact form (Support): Support for el9 groups",
    });

    // Mailed once: later passes leave it alone.
    await contactUpkeep(deps(mailer));
    expect(sent).toHaveLength(1);
  });

  it("is left to the request that is still sending it when it is under a minute old", async () => {
    const { mailer, sent, state } = fakeMailer();
    state.down = true;
    await submitContactMessage(deps(mailer), {
      values: { ...values, subject: "A fresh message" },
      csrfToken: issueContactToken(SECRET),
      honeypot: undefined,
      clientAddress: "192.0.2.11",
    });
    state.down = false;
    expect((await contactUpkeep(deps(mailer))).mailed).toBe(0);
    expect(sent).toHaveLength(0);
  });

  it("stops being retried after the last attempt, and stays stored", async () => {
    const { mailer, state } = fakeMailer();
    state.down = true;
    const db = app.services.database.db;
    await db
      .updateTable("contact_message")
      .set({
        mail_attempts: CONTACT_MAIL_MAX_ATTEMPTS - 1,
        created_at: new Date(Date.now() - 3_600_000).toISOString(),
      })
      .where("subject", "=", "A fresh message")
      .execute();
    logged.length = 0;
    await contactUpkeep(deps(mailer));
    expect(
      logged.some((m) => m.includes(`could not be mailed after ${CONTACT_MAIL_MAX_ATTEMPTS} attempts`)),
    ).toBe(true);
    state.down = false;
    expect((await contactUpkeep(deps(mailer))).mailed).toBe(0);
    expect((await rows()).find((r) => r.subject === "A fresh message")?.mailed_at).toBeNull();
  });
});

describe(`contact data retention (${databaseKind})`, () => {
  it("forgets the sender's address after a day and deletes messages after two years", async () => {
    const { mailer } = fakeMailer();
    const now = Date.now();
    const day = 24 * 3_600_000;
    for (const [subject, age] of [
      ["Two hours old", 2 * 3_600_000],
      ["Two days old", 2 * day],
      ["Three years old", 3 * 365 * day],
    ] as const) {
      await submitContactMessage(
        deps(mailer),
        {
          values: { ...values, subject },
          csrfToken: issueContactToken(SECRET, now - age),
          honeypot: undefined,
          clientAddress: "192.0.2.50",
        },
        new Date(now - age),
      );
    }
    await contactUpkeep(deps(mailer), new Date(now));
    const all = await rows();
    expect(all.find((r) => r.subject === "Two hours old")?.client_address).toBe("192.0.2.50");
    expect(all.find((r) => r.subject === "Two days old")?.client_address).toBe("");
    expect(all.find((r) => r.subject === "Three years old")).toBeUndefined();
  });
});
