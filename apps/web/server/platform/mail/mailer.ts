// Outgoing mail. With SMTP_URL set, messages go out over SMTP; otherwise each one is written to
// DATA_DIR/outbox as an .eml file and its first link is logged, so a self-hoster (or a test)
// can follow verification and reset links without a mail server.
import { randomUUID } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Transporter } from "nodemailer";
import type { Logger } from "../observability/logger.ts";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Where replies go, when not to the sender (the contact form: the visitor's address). */
  replyTo?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Nodemailer's transport, made when the first message is sent: an idle server never loads it (decision 037). */
function lazyTransport(
  make: (mailer: typeof import("nodemailer")["default"]) => Transporter,
): () => Promise<Transporter> {
  let transport: Promise<Transporter> | undefined;
  return () => (transport ??= import("nodemailer").then((module) => make(module.default)));
}

export function createMailer(options: {
  smtpUrl: string | undefined;
  from: string;
  outboxDir: string;
  logger: Logger;
}): Mailer {
  const { smtpUrl } = options;
  if (smtpUrl) {
    const transport = lazyTransport((nodemailer) => nodemailer.createTransport(smtpUrl));
    return {
      async send(message) {
        await (await transport()).sendMail({ from: options.from, ...message });
      },
    };
  }
  const transport = lazyTransport((nodemailer) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true }),
  );
  return {
    async send(message) {
      const info = await (await transport()).sendMail({ from: options.from, ...message });
      await mkdir(options.outboxDir, { recursive: true });
      // Sortable by time, unique, and written whole before it becomes visible.
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID()}.eml`;
      const tmp = join(options.outboxDir, `.${name}.tmp`);
      await writeFile(tmp, info.message as Buffer);
      await rename(tmp, join(options.outboxDir, name));
      const link = message.text.match(/https?:\/\/\S+/)?.[0];
      options.logger.info(`mail to ${message.to} written to outbox/${name}${link ? `: ${link}` : ""}`);
    },
  };
}
