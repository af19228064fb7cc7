// API keys verified by better-auth's api-key plugin, with a short memory in front and the rate
// limit counted in the key's row, where every server sees it (decision 073).
// Every request with a key runs one statement on the key's row: it counts the request in the
// key's fixed window (requestCount), records its last use (lastRequest), and returns the columns
// that decide what the key may do. A key the plugin verified is kept in
// memory with those columns as they were; while the row still has them, the plugin is not asked
// again. A row gone or changed — revoked, disabled, narrowed, past its expiry, by this server,
// another one or a direct update — sends the key back to the plugin on that very request, on
// SQLite and PostgreSQL alike. The memory is also dropped on the domain event of a key change.
// The plugin's own rate limit stays off: its window restarts only after a window without any
// request, so a key in steady use would be refused once it had made the maximum in all.
import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { isOrganization } from "../orgs/storage.ts";
import { type Actor, scopeFromPermissions } from "../platform/core/authorization.ts";
import { onDomainEvent } from "../platform/core/changes.ts";
import { DomainError } from "../platform/core/errors.ts";
import type { Database } from "../platform/db/schema.ts";
import type { Auth } from "./auth.ts";

/** Requests per key and window before 429 RATE_LIMITED: sized for CI pushing many files. */
export const KEY_RATE_LIMIT = { windowMs: 60_000, max: 5_000 };

/** Keys kept at most; past it the memory starts again (each key is verified once more). */
const MAX_KEPT = 10_000;

type KeyActor = Extract<Actor, { kind: "key" }>;

interface CheckedKey {
  actor: KeyActor;
  /** ms since the epoch; null: never expires. */
  expiresAt: number | null;
  /** The key's row as counted just before the plugin verified it. */
  stamp: string;
}

export interface KeyChecksOptions {
  auth: Auth;
  db: Kysely<Database>;
  rateLimit?: { windowMs: number; max: number };
  now?: () => number;
  /** PostgreSQL: the count's commit does not wait for the WAL to reach the disk. */
  postgres?: boolean;
}

export class KeyChecks {
  readonly #auth: Auth;
  readonly #db: Kysely<Database>;
  readonly #limit: { windowMs: number; max: number };
  readonly #now: () => number;
  readonly #postgres: boolean;
  /** Per hash of a key: what the plugin answered for it. */
  readonly #kept = new Map<string, CheckedKey>();
  readonly #unsubscribe: () => void;

  constructor(options: KeyChecksOptions) {
    this.#auth = options.auth;
    this.#db = options.db;
    this.#limit = options.rateLimit ?? KEY_RATE_LIMIT;
    this.#now = options.now ?? Date.now;
    this.#postgres = options.postgres ?? false;
    // Not needed for correctness (each request confirms the row), but a key's change frees it.
    this.#unsubscribe = onDomainEvent(this.#db, (event) => {
      if (event.type === "changed" && event.action.startsWith("api_key.")) this.#kept.clear();
    });
  }

  /** The caller a key stands for; DomainError UNAUTHENTICATED or RATE_LIMITED otherwise. */
  async check(key: string): Promise<KeyActor> {
    // better-auth stores the key as this same hash (its default hasher): the row is found by it.
    const hash = createHash("sha256").update(key).digest("base64url");
    const now = this.#now();
    const counted = await this.#count(hash, now);
    // Not counted: its window is full, or no row has this hash (the plugin answers that below).
    const row = counted ?? (await this.#row(hash));
    let checked = this.#kept.get(hash);
    if (
      !checked ||
      !row ||
      checked.stamp !== row.stamp ||
      (checked.expiresAt !== null && now >= checked.expiresAt)
    ) {
      this.#kept.delete(hash);
      // Refuses a key gone, disabled or expired (and removes an expired one).
      checked = await this.#verify(key, row?.stamp ?? null);
      if (row) {
        if (this.#kept.size >= MAX_KEPT) this.#kept.clear();
        this.#kept.set(hash, checked);
      }
    }
    if (!counted && row) {
      // The window's end is known: the 429 says when the key is let in again (Retry-After).
      const seconds = Math.max(1, Math.ceil((row.windowStart + this.#limit.windowMs - now) / 1000));
      throw new DomainError(
        "RATE_LIMITED",
        `Too many requests for this API key: try again in ${seconds} seconds`,
        undefined,
        { retryAfterSeconds: seconds },
      );
    }
    return checked.actor;
  }

  /** Nothing is left to write; stops listening for key changes. */
  async close(): Promise<void> {
    this.#unsubscribe();
    this.#kept.clear();
  }

  /**
   * Counts the request in the key's window and records its use, in one statement (atomic on
   * both databases, so servers sharing the row never let more than the limit through). A window
   * starts with the first request after the last one ended, its start kept in the plugin's
   * lastRefillAt column: Packyard's keys have no quota to refill, so the plugin never uses it.
   */
  async #count(hash: string, now: number): Promise<KeyRow | null> {
    // ISO text: compared as text on SQLite (better-auth stores dates so), as timestamptz on PostgreSQL.
    const ended = new Date(now - this.#limit.windowMs).toISOString();
    const at = new Date(now).toISOString();
    // A use is not worth a WAL flush: a crash may lose the last counts and uses, never a key's
    // change. The setting holds for this statement's own transaction, in effect at its commit.
    const noFlush = this.#postgres
      ? sql`and set_config('synchronous_commit', 'off', true) is not null`
      : sql``;
    const { rows } = await sql<Record<string, unknown>>`
      update "apikey" set
        "requestCount" = case when "lastRefillAt" > ${ended} then coalesce("requestCount", 0) + 1 else 1 end,
        "lastRefillAt" = case when "lastRefillAt" > ${ended} then "lastRefillAt" else ${at} end,
        "lastRequest" = ${at}
      where "key" = ${hash}
        and ("lastRefillAt" is null or "lastRefillAt" <= ${ended} or coalesce("requestCount", 0) < ${this.#limit.max})
        ${noFlush}
      returning "id", "enabled", "expiresAt", "permissions", "referenceId", "lastRefillAt"
    `.execute(this.#db);
    return keyRow(rows);
  }

  /** The key's row without counting (its window is full); null when no row has this hash. */
  async #row(hash: string): Promise<KeyRow | null> {
    const { rows } = await sql<Record<string, unknown>>`
      select "id", "enabled", "expiresAt", "permissions", "referenceId", "lastRefillAt"
      from "apikey" where "key" = ${hash}
    `.execute(this.#db);
    return keyRow(rows);
  }

  async #verify(key: string, stamp: string | null): Promise<CheckedKey> {
    const result = await this.#auth.api.verifyApiKey({ body: { key } });
    if (!result.valid || !result.key) {
      const code = result.error?.code;
      // The key library answers "invalid" for any failure, a database error included: a key
      // is only called invalid when the database answers.
      await sql`select 1`.execute(this.#db);
      throw new DomainError(
        "UNAUTHENTICATED",
        code === "KEY_EXPIRED" ? "This API key has expired" : "Invalid API key",
      );
    }
    const org = await isOrganization(this.#db, result.key.referenceId);
    return {
      actor: {
        kind: "key",
        userId: result.key.referenceId,
        keyId: result.key.id,
        scope: scopeFromPermissions(result.key.permissions as Record<string, string[]> | null),
        ...(org ? { org: true } : {}),
      },
      expiresAt: result.key.expiresAt ? new Date(result.key.expiresAt).getTime() : null,
      stamp: stamp ?? "",
    };
  }
}

interface KeyRow {
  /** The columns whose change changes what the key may do (as migration 0028's trigger), as one string. */
  stamp: string;
  /** When the key's rate-limit window started (ms since the epoch). */
  windowStart: number;
}

function keyRow(rows: Record<string, unknown>[]): KeyRow | null {
  const row = rows[0];
  if (!row || rows.length > 1) return null;
  const { lastRefillAt, ...watched } = row;
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);
  return {
    stamp: JSON.stringify(Object.values(watched).map(iso)),
    windowStart: lastRefillAt ? new Date(iso(lastRefillAt) as string).getTime() : 0,
  };
}
