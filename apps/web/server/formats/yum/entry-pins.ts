// Which generation's repomd.xml each client was last served, so that its repomd.xml.asc comes
// from the same generation even when a publish switched generations between the two requests
// (decision 013). Remembered per connection (exact: a client fetching both over one keep-alive
// connection) and per client address (dnf 4 opens a connection per file), for a short window.
//
// Never worse than answering with the newest: an address's pin is the highest generation served
// to that address in the window, so it lies between the generation a client behind it holds and
// the newest. A connection's pin is skipped when the request came through a proxy (forwarding
// headers), whose pooled connections carry many clients.
//
// Several servers behind a load balancer (PostgreSQL): repomd.xml and its signature may be
// answered by different servers, so the address pins live in the database (SharedEntryPins),
// written before the repomd.xml response is sent; connection pins stay in the process that holds
// the connection.
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { type Kysely, sql } from "kysely";
import type { Database } from "../../platform/db/schema.ts";

/** How long after a repomd.xml answer its signature is still answered from that generation. */
export const PAIR_WINDOW_MS = 30_000;
/** Client addresses remembered at once; the least recently served go first. */
export const MAX_REMEMBERED_CLIENTS = 10_000;

export interface Requester {
  /** The client's connection; absent behind a proxy and in in-memory requests. */
  connection?: object;
  /** The peer address, with the forwarding headers a proxy added. */
  client?: string;
}

interface Pin {
  generationId: string;
  number: number;
  at: number;
}

/** Who is asking, from a request served by @hono/node-server (nobody, in app.request tests). */
export function requesterOf(env: unknown, headers: Headers): Requester {
  const socket = (env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
  if (!socket) return {};
  const forwardedFor = headers.get("x-forwarded-for");
  const forwarded = headers.get("forwarded");
  const proxied = forwardedFor !== null || forwarded !== null || headers.has("via");
  return {
    connection: proxied ? undefined : socket,
    client: [socket.remoteAddress ?? "", forwardedFor ?? "", forwarded ?? ""].join("\n"),
  };
}

/** Where pins are kept: this process (EntryPins) or the shared database (SharedEntryPins). */
export interface PinStore {
  remember(
    who: Requester,
    repository: string,
    generation: { generationId: string; generationNumber: number },
  ): void | Promise<void>;
  generations(who: Requester, repository: string): string[] | Promise<string[]>;
}

export class EntryPins implements PinStore {
  readonly #byConnection = new WeakMap<object, Map<string, Pin>>();
  /** `client \n\n repository` → pin, oldest answer first (Map order). */
  readonly #byClient = new Map<string, Pin>();
  readonly #windowMs: number;
  readonly #maxClients: number;
  readonly #now: () => number;

  constructor(options: { windowMs?: number; maxClients?: number; now?: () => number } = {}) {
    this.#windowMs = options.windowMs ?? PAIR_WINDOW_MS;
    this.#maxClients = options.maxClients ?? MAX_REMEMBERED_CLIENTS;
    this.#now = options.now ?? Date.now;
  }

  /** `who` was just answered the repomd.xml of `generation` of `repository`. */
  remember(
    who: Requester,
    repository: string,
    generation: { generationId: string; generationNumber: number },
  ) {
    const now = this.#now();
    const pin = (previous: Pin | undefined): Pin =>
      previous && this.#live(previous, now) && previous.number > generation.generationNumber
        ? { ...previous, at: now }
        : { generationId: generation.generationId, number: generation.generationNumber, at: now };
    if (who.connection) {
      let pins = this.#byConnection.get(who.connection);
      if (!pins) {
        pins = new Map();
        this.#byConnection.set(who.connection, pins);
      }
      pins.set(repository, pin(pins.get(repository)));
    }
    if (who.client !== undefined) {
      const key = `${who.client}\n\n${repository}`;
      const next = pin(this.#byClient.get(key));
      this.#byClient.delete(key);
      this.#byClient.set(key, next);
      for (const [oldest, value] of this.#byClient) {
        if (this.#byClient.size <= this.#maxClients && this.#live(value, now)) break;
        this.#byClient.delete(oldest);
      }
    }
  }

  /** The generations to answer `who`'s repomd.xml.asc from, best first (none: the newest). */
  generations(who: Requester, repository: string): string[] {
    const now = this.#now();
    const found: string[] = [];
    const add = (pin: Pin | undefined) => {
      if (pin && this.#live(pin, now) && !found.includes(pin.generationId)) found.push(pin.generationId);
    };
    if (who.connection) add(this.#byConnection.get(who.connection)?.get(repository));
    if (who.client !== undefined) add(this.#byClient.get(`${who.client}\n\n${repository}`));
    return found;
  }

  /** Addresses currently remembered (tests). */
  get clients(): number {
    return this.#byClient.size;
  }

  #live(pin: Pin, now: number): boolean {
    return now - pin.at <= this.#windowMs;
  }
}

/**
 * Pins shared by every server on one database: an address's pin is a row, upserted with the same
 * rule as EntryPins (the highest generation served in the window), before the repomd.xml
 * response leaves; a connection's pin stays in memory, in the process that has the connection.
 */
export class SharedEntryPins implements PinStore {
  readonly #db: Kysely<Database>;
  readonly #connections: EntryPins;
  readonly #windowMs: number;
  readonly #now: () => number;

  constructor(db: Kysely<Database>, options: { windowMs?: number; now?: () => number } = {}) {
    this.#db = db;
    this.#windowMs = options.windowMs ?? PAIR_WINDOW_MS;
    this.#now = options.now ?? Date.now;
    this.#connections = new EntryPins(options);
  }

  async remember(
    who: Requester,
    repository: string,
    generation: { generationId: string; generationNumber: number },
  ): Promise<void> {
    if (who.connection) this.#connections.remember({ connection: who.connection }, repository, generation);
    if (who.client === undefined) return;
    const now = this.#now();
    const live = now - this.#windowMs;
    // Keep the stored pin when it is live and newer than this answer; otherwise this answer.
    const keep = sql<boolean>`yum_entry_pin.pinned_at >= ${live} and yum_entry_pin.number > excluded.number`;
    await this.#db
      .insertInto("yum_entry_pin")
      .values({
        client_key: clientKey(who.client),
        repository,
        generation_id: generation.generationId,
        number: generation.generationNumber,
        pinned_at: now,
      })
      .onConflict((oc) =>
        oc.columns(["client_key", "repository"]).doUpdateSet({
          generation_id: sql`case when ${keep} then yum_entry_pin.generation_id else excluded.generation_id end`,
          number: sql`case when ${keep} then yum_entry_pin.number else excluded.number end`,
          pinned_at: sql`excluded.pinned_at`,
        }),
      )
      .execute();
  }

  async generations(who: Requester, repository: string): Promise<string[]> {
    const found = who.connection
      ? this.#connections.generations({ connection: who.connection }, repository)
      : [];
    if (who.client === undefined) return found;
    const row = await this.#db
      .selectFrom("yum_entry_pin")
      .select("generation_id")
      .where("client_key", "=", clientKey(who.client))
      .where("repository", "=", repository)
      .where("pinned_at", ">=", this.#now() - this.#windowMs)
      .executeTakeFirst();
    if (row && !found.includes(row.generation_id)) found.push(row.generation_id);
    return found;
  }

  /** Removes pins past their window (the collect-garbage job); returns how many. */
  static async removeExpired(db: Kysely<Database>, now = Date.now()): Promise<number> {
    const result = await db
      .deleteFrom("yum_entry_pin")
      .where("pinned_at", "<", now - PAIR_WINDOW_MS)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** An address (with its forwarding headers) as a fixed-length key. */
function clientKey(client: string): string {
  return createHash("sha256").update(client).digest("hex");
}
