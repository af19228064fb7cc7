// API keys checked once, then answered from memory until a key changes (decision 050). Every
// request with a key — each upload, and each GET apt and dnf send to a private repository — had
// better-auth look the key up and write two updates to its row (last use, counters): ~2 ms of
// the request and two writes on one hot row. A key that checks out is now kept in the keys cache
// (serve-cache.ts), dropped whole when any key is deleted, disabled or changed: by this process's
// statements (write-watch.ts), another process's commit on SQLite (data_version), or a
// notification on PostgreSQL (migration 0028; the cache is off while that connection is down).
// On PostgreSQL another server's change arrives a moment after its commit, so a key answered
// from memory is confirmed against its row (one indexed select, no write) on every request:
// revoking a key on one server takes effect at once on all of them.
// What better-auth did on every request is done here: expiry is checked on every request; the
// rate limit is counted in memory, per key and process, in fixed windows; the last use is written
// every few seconds and when the server stops (a crash loses at most that much of it).
import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";
import { type Actor, scopeFromPermissions } from "../domain/authorization.ts";
import { DomainError } from "../domain/errors.ts";
import { isOrganization } from "../domain/orgs.ts";
import type { ServeCache } from "../serving/serve-cache.ts";
import type { Auth } from "./auth.ts";

/** Requests per key and window before 429 RATE_LIMITED: sized for CI pushing many files. */
export const KEY_RATE_LIMIT = { windowMs: 60_000, max: 5_000 };
/** How often the last use of the keys used is written. */
export const KEY_USE_FLUSH_MS = 2_000;

type KeyActor = Extract<Actor, { kind: "key" }>;

interface CheckedKey {
  actor: KeyActor;
  /** ms since the epoch; null: never expires. */
  expiresAt: number | null;
  /** With confirmation: the key's row as read before it was checked (null: none found). */
  stamp?: string | null;
}

export interface KeyChecksOptions {
  auth: Auth;
  db: Kysely<Database>;
  cache: ServeCache;
  rateLimit?: { windowMs: number; max: number };
  now?: () => number;
  /**
   * Confirm a key answered from memory against its row on every request: for PostgreSQL, where
   * other processes' changes arrive by notification, after their commit.
   */
  confirmFromDatabase?: boolean;
}

export class KeyChecks {
  readonly #auth: Auth;
  readonly #db: Kysely<Database>;
  readonly #cache: ServeCache;
  readonly #limit: { windowMs: number; max: number };
  readonly #now: () => number;
  readonly #confirm: boolean;
  /** Per key id: the window's start and the requests counted in it. */
  readonly #windows = new Map<string, { start: number; count: number }>();
  /** Per key id: its last use not yet written. */
  readonly #used = new Map<string, number>();
  #flushing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: KeyChecksOptions) {
    this.#auth = options.auth;
    this.#db = options.db;
    this.#cache = options.cache;
    this.#limit = options.rateLimit ?? KEY_RATE_LIMIT;
    this.#now = options.now ?? Date.now;
    this.#confirm = options.confirmFromDatabase ?? false;
  }

  /** The caller a key stands for; DomainError UNAUTHENTICATED or RATE_LIMITED otherwise. */
  async check(key: string): Promise<KeyActor> {
    // better-auth stores the key as this same hash (its default hasher): the row is found by it.
    const id = createHash("sha256").update(key).digest("base64url");
    const cacheKey = `key:${id}`;
    let checked = this.#cache.peek<CheckedKey>(cacheKey);
    if (checked && this.#confirm) {
      // No row found under the hash: nothing to confirm against, so never answered from memory.
      if (!checked.stamp) checked = await this.#verify(key, id);
      // Changed by another server whose notification has not arrived yet: the row says so, and
      // the cache is dropped as the notification will drop it.
      else if ((await this.#stamp(id)) !== checked.stamp) {
        this.#cache.invalidate();
        checked = undefined;
      }
    }
    checked ??= await this.#cache.get(cacheKey, () => this.#verify(key, id));
    // Past its expiry: better-auth answers (and removes the key), which drops the cache.
    if (checked.expiresAt !== null && this.#now() >= checked.expiresAt) checked = await this.#verify(key, id);
    this.#count(checked.actor.keyId);
    return checked.actor;
  }

  /** Writes the last use of the keys used since the last flush. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      const used = [...this.#used];
      this.#used.clear();
      for (const [keyId, at] of used)
        await this.#db
          .updateTable("apikey")
          .set({ lastRequest: new Date(at).toISOString() })
          .where("id", "=", keyId)
          .execute()
          .catch(() => {});
    });
    return this.#flushing;
  }

  /** Writes what is left; no timer keeps the process alive. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  /** The columns of the key's row whose change changes what the key may do (as migration 0028's trigger). */
  async #stamp(id: string): Promise<string | null> {
    const { rows } = await sql<Record<string, unknown>>`
      select "id", "enabled", "expiresAt", "permissions", "referenceId" from "apikey" where "key" = ${id}
    `.execute(this.#db);
    const row = rows[0];
    if (!row || rows.length > 1) return null;
    return JSON.stringify(Object.values(row).map((v) => (v instanceof Date ? v.toISOString() : v)));
  }

  async #verify(key: string, id: string): Promise<CheckedKey> {
    // Read before the check: a change in between makes the next confirmation fail, never pass.
    const stamp = this.#confirm ? await this.#stamp(id) : undefined;
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
      ...(stamp !== undefined ? { stamp } : {}),
    };
  }

  /** Counts a request of the key in its window (429 past the limit) and records its use. */
  #count(keyId: string) {
    const now = this.#now();
    let window = this.#windows.get(keyId);
    if (!window || now - window.start >= this.#limit.windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(keyId, window);
    }
    if (window.count >= this.#limit.max) {
      // The window's end is known: the 429 says when the key is let in again (Retry-After).
      const seconds = Math.max(1, Math.ceil((window.start + this.#limit.windowMs - now) / 1000));
      throw new DomainError(
        "RATE_LIMITED",
        `Too many requests for this API key: try again in ${seconds} seconds`,
        undefined,
        { retryAfterSeconds: seconds },
      );
    }
    window.count++;
    this.#used.set(keyId, now);
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.flush(), KEY_USE_FLUSH_MS);
      this.#timer.unref();
    }
    // Windows of keys not used for a window are forgotten (at most one entry per key in use).
    if (this.#windows.size > 10_000)
      for (const [id, w] of this.#windows)
        if (now - w.start >= this.#limit.windowMs) this.#windows.delete(id);
  }
}
