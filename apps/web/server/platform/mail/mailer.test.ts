// Mail goes out over SMTP when SMTP_URL is set (here a real SMTP server on loopback), and to
// the outbox as .eml files otherwise.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEml, readOutbox } from "../../../test/harness.ts";
import { makeTempDir, removeTempDirs } from "../../../test/temp-dirs.ts";
import type { Logger } from "../observability/logger.ts";
import { createMailer } from "./mailer.ts";
import { verificationMail } from "./templates.ts";

const logged: string[] = [];
const logger: Logger = {
  debug: () => {},
  info: (m) => logged.push(m),
  warn: (m) => logged.push(m),
  error: (m) => logged.push(m),
};

const link = `http://localhost:3000/api/auth/verify-email?token=${"x".repeat(180)}&callbackURL=%2Fdashboard`;

describe("SMTP delivery", () => {
  const received: { from: string; to: string[]; raw: string; user?: string }[] = [];
  let server: SMTPServer;
  let port: number;

  beforeAll(async () => {
    server = new SMTPServer({
      secure: false,
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onAuth(auth, _session, callback) {
        callback(null, { user: auth.username });
      },
      onData(stream, session, callback) {
        let raw = "";
        stream.on("data", (d) => (raw += d));
        stream.on("end", () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            user: session.user as string | undefined,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    port = (server.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("sends through the server named by SMTP_URL, with credentials, and writes nothing to the outbox", async () => {
    const outboxDir = join(makeTempDir("packyard-mail-"), "outbox");
    const mailer = createMailer({
      smtpUrl: `smtp://mailer:s3cret@127.0.0.1:${port}?ignoreTLS=true`,
      from: "Packyard <no-reply@packyard.test>",
      outboxDir,
      logger,
    });
    await mailer.send(verificationMail("ada@example.com", "Ada", link));
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      from: "no-reply@packyard.test",
      to: ["ada@example.com"],
      user: "mailer",
    });
    const message = parseEml(received[0]!.raw);
    expect(message.subject).toBe("Verify your email for Packyard");
    expect(message.links).toContain(link);
    expect(() => readdirSync(outboxDir)).toThrow();
  });

  it("fails loudly when the SMTP server cannot be reached", async () => {
    const mailer = createMailer({
      smtpUrl: "smtp://127.0.0.1:1?ignoreTLS=true",
      from: "Packyard <no-reply@packyard.test>",
      outboxDir: makeTempDir("packyard-mail-"),
      logger,
    });
    await expect(mailer.send(verificationMail("ada@example.com", "Ada", link))).rejects.toThrow();
  });
});

describe("the outbox", () => {
  it("writes one complete .eml per message and logs its link", async () => {
    const outboxDir = join(makeTempDir("packyard-mail-"), "outbox");
    const mailer = createMailer({
      smtpUrl: undefined,
      from: "Packyard <no-reply@packyard.test>",
      outboxDir,
      logger,
    });
    await mailer.send(verificationMail("ada@example.com", "Ada", link));
    await mailer.send(verificationMail("bob@example.com", "Bob", link));
    const files = readdirSync(outboxDir);
    expect(files.filter((f) => f.endsWith(".eml"))).toHaveLength(2);
    expect(files.some((f) => f.endsWith(".tmp"))).toBe(false);
    const messages = readOutbox(outboxDir);
    expect(messages.map((m) => m.to)).toEqual(["ada@example.com", "bob@example.com"]);
    expect(messages[0]!.links).toContain(link);
    expect(
      logged.some((l) => l.includes("mail to ada@example.com written to outbox/") && l.includes(link)),
    ).toBe(true);
  });
});

afterAll(removeTempDirs);
