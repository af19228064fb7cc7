// The contact form's server side: a message is checked (a signed form token, a honeypot, a limit
// per client address), stored, then mailed to CONTACT_EMAIL with the visitor as Reply-To. The
// database row comes first, so a mail server that is down loses nothing: the row keeps its send
// state and the periodic maintenance pass tries again.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import {
  CONTACT_MESSAGES_PER_HOUR,
  type ContactInput,
  contactTypeLabels,
} from "@packyard/contract/contact.ts";
import type { Kysely } from "kysely";
import type { Config } from "../platform/config/config.ts";
import { newRowId } from "../platform/core/ids.ts";
import type { Database } from "../platform/db/schema.ts";
import type { Mailer } from "../platform/mail/mailer.ts";
import { contactMessageMail } from "../platform/mail/templates.ts";
import type { Logger } from "../platform/observability/logger.ts";

const HOUR_MS = 60 * 60 * 1000;
/** How long a contact form stays good for after it was served: enough to write a long message. */
export const CONTACT_TOKEN_TTL_MS = 2 * HOUR_MS;
/** Mail attempts for one message (one per maintenance pass, every 10 minutes) before giving up. */
export const CONTACT_MAIL_MAX_ATTEMPTS = 24;
/** The sender's address is kept only as long as the rate limit needs it. */
export const CONTACT_ADDRESS_RETENTION_MS = 24 * HOUR_MS;
/** Contact messages are deleted two years after they were received. */
export const CONTACT_MESSAGE_RETENTION_MS = 730 * 24 * HOUR_MS;

export interface ContactDeps {
  db: Kysely<Database>;
  mailer: Mailer;
  logger: Logger;
  config: Pick<Config, "secret" | "contactEmail">;
}

// ---------------------------------------------------------------------------------------------
// The form token: `<expires ms>.<nonce>.<HMAC>`, made with a key derived from the server secret.
// A page on another site cannot read it, so it cannot post the form on a visitor's behalf.

function tokenKey(secret: string): Buffer {
  return createHmac("sha256", secret).update("packyard contact form token v1").digest();
}

function sign(secret: string, payload: string): string {
  return createHmac("sha256", tokenKey(secret)).update(payload).digest("base64url");
}

export function issueContactToken(secret: string, now = Date.now()): string {
  const payload = `${now + CONTACT_TOKEN_TTL_MS}.${randomBytes(12).toString("base64url")}`;
  return `${payload}.${sign(secret, payload)}`;
}

export type TokenCheck = "valid" | "missing" | "invalid" | "expired";

export function checkContactToken(secret: string, token: string | undefined, now = Date.now()): TokenCheck {
  if (!token) return "missing";
  const parts = token.split(".");
  if (parts.length !== 3) return "invalid";
  const [expires = "", nonce = "", signature = ""] = parts;
  const expected = Buffer.from(sign(secret, `${expires}.${nonce}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "invalid";
  const expiresAt = Number(expires);
  if (!Number.isSafeInteger(expiresAt)) return "invalid";
  return expiresAt < now ? "expired" : "valid";
}

// ---------------------------------------------------------------------------------------------
// Submitting.

export type ContactRefusal =
  | { reason: "token"; check: Exclude<TokenCheck, "valid"> }
  | { reason: "honeypot" }
  | { reason: "rate-limited"; retryAfterSeconds: number };

export type ContactOutcome = { ok: true; id: string; mailed: boolean } | ({ ok: false } & ContactRefusal);

export interface ContactSubmission {
  values: Omit<ContactInput, "csrfToken">;
  csrfToken: string | undefined;
  /** The honeypot field: people never see it, so anything in it was filled by a program. */
  honeypot: string | undefined;
  clientAddress: string;
}

export async function submitContactMessage(
  deps: ContactDeps,
  submission: ContactSubmission,
  now = new Date(),
): Promise<ContactOutcome> {
  const check = checkContactToken(deps.config.secret, submission.csrfToken, now.getTime());
  if (check !== "valid") return { ok: false, reason: "token", check };
  if (submission.honeypot) return { ok: false, reason: "honeypot" };

  const clientAddress = submission.clientAddress.slice(0, 64);
  const since = new Date(now.getTime() - HOUR_MS).toISOString();
  const recent = await deps.db
    .selectFrom("contact_message")
    .select("created_at")
    .where("client_address", "=", clientAddress)
    .where("created_at", ">", since)
    .orderBy("created_at", "asc")
    .execute();
  if (recent.length >= CONTACT_MESSAGES_PER_HOUR) {
    // The oldest message of the hour leaves the window first.
    const oldest = Date.parse(recent[recent.length - CONTACT_MESSAGES_PER_HOUR]?.created_at ?? since);
    const retryAfterSeconds = Math.max(60, Math.ceil((oldest + HOUR_MS - now.getTime()) / 1000));
    return { ok: false, reason: "rate-limited", retryAfterSeconds };
  }

  const row = {
    id: newRowId(),
    type: submission.values.type,
    name: oneLine(submission.values.name),
    email: submission.values.email,
    subject: oneLine(submission.values.subject),
    message: submission.values.message,
    client_address: clientAddress,
    created_at: now.toISOString(),
    mailed_at: null,
    mail_error: null,
  };
  await deps.db.insertInto("contact_message").values(row).execute();
  const mailed = await deliver(deps, row);
  return { ok: true, id: row.id, mailed };
}

/**
 * A name or subject is one line: its line breaks become spaces, so that a sender cannot add
 * lines (a forged "From:" or "Received:") to the mail it is quoted in.
 */
function oneLine(value: string): string {
  return value.replace(/[\r\n\v\f\u0085\u2028\u2029]+/g, " ");
}

type StoredMessage = Pick<
  Database["contact_message"],
  "id" | "type" | "name" | "email" | "subject" | "message" | "created_at"
>;

/** Mails one stored message; records the outcome on its row. Never throws. */
async function deliver(deps: ContactDeps, row: StoredMessage): Promise<boolean> {
  const mail = contactMessageMail(deps.config.contactEmail, {
    name: row.name,
    email: row.email,
    subject: row.subject,
    message: row.message,
    type: contactTypeLabels[row.type as keyof typeof contactTypeLabels] ?? row.type,
    receivedAt: row.created_at,
  });
  try {
    await deps.mailer.send(mail);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    try {
      const updated = await deps.db
        .updateTable("contact_message")
        .set((eb) => ({ mail_attempts: eb("mail_attempts", "+", 1), mail_error: reason.slice(0, 1000) }))
        .where("id", "=", row.id)
        .returning("mail_attempts")
        .executeTakeFirst();
      const attempts = updated?.mail_attempts ?? 0;
      deps.logger.error(
        attempts >= CONTACT_MAIL_MAX_ATTEMPTS
          ? `contact message ${row.id} could not be mailed after ${attempts} attempts; it stays in the contact_message table`
          : `mailing contact message ${row.id} failed (attempt ${attempts}); it is stored and will be retried`,
        error,
      );
    } catch (recordError) {
      deps.logger.error(`recording the failed mail of contact message ${row.id} failed`, recordError);
    }
    return false;
  }
  try {
    await deps.db
      .updateTable("contact_message")
      .set((eb) => ({
        mailed_at: new Date().toISOString(),
        mail_attempts: eb("mail_attempts", "+", 1),
        mail_error: null,
      }))
      .where("id", "=", row.id)
      .execute();
  } catch (error) {
    // The mail went out; only its record did not. The next pass may send it twice, never zero times.
    deps.logger.error(`recording the mail of contact message ${row.id} failed`, error);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Housekeeping, from the maintenance pass.

export interface ContactUpkeep {
  mailed: number;
  stillUnsent: number;
  addressesCleared: number;
  deleted: number;
}

/**
 * Mails stored messages whose mail failed (those younger than a minute belong to a request still
 * sending them), forgets sender addresses the rate limit no longer needs, and deletes messages
 * past their retention.
 */
export async function contactUpkeep(deps: ContactDeps, now = new Date()): Promise<ContactUpkeep> {
  const settled = new Date(now.getTime() - 60_000).toISOString();
  const unsent = await deps.db
    .selectFrom("contact_message")
    .select(["id", "type", "name", "email", "subject", "message", "created_at"])
    .where("mailed_at", "is", null)
    .where("mail_attempts", "<", CONTACT_MAIL_MAX_ATTEMPTS)
    .where("created_at", "<", settled)
    .orderBy("created_at", "asc")
    .limit(100)
    .execute();
  let mailed = 0;
  for (const row of unsent) if (await deliver(deps, row)) mailed++;

  const cleared = await deps.db
    .updateTable("contact_message")
    .set({ client_address: "" })
    .where("client_address", "!=", "")
    .where("created_at", "<", new Date(now.getTime() - CONTACT_ADDRESS_RETENTION_MS).toISOString())
    .executeTakeFirst();
  const deleted = await deps.db
    .deleteFrom("contact_message")
    .where("created_at", "<", new Date(now.getTime() - CONTACT_MESSAGE_RETENTION_MS).toISOString())
    .executeTakeFirst();
  return {
    mailed,
    stillUnsent: unsent.length - mailed,
    addressesCleared: Number(cleared.numUpdatedRows),
    deleted: Number(deleted.numDeletedRows),
  };
}
