// Entitlement tokens at /dl (docs/entitlements.md): the token a request carries, found by its
// secret's sha256 with one statement on its row (and the projects it reads) per request, so a
// token disabled, rotated, narrowed or deleted on any server, and its use counted by any server,
// is seen at once; then decided by authorization.ts's
// assertEntitled. A file answered with the token takes one of its downloads in one statement on
// its row (exact across servers); the bytes, installs, machines (downloads/machines.ts) and last
// use are written with the download counts (downloads/counts.ts), and this server's bytes not
// written yet are added to the row's, so one server refuses as soon as its own answers used the
// month up.
import { ENTITLEMENT_TOKEN_PREFIX, parseVersionRange } from "@packyard/contract/entitlements.ts";
import { sql } from "kysely";
import { unwrittenEntitlementBytes } from "../billing/usage.ts";
import { currentMonth } from "../downloads/counts.ts";
import { downloadsUsedUp, type Entitlement } from "../platform/core/authorization.ts";
import { DomainError } from "../platform/core/errors.ts";
import type { Db } from "../platform/core/use-case.ts";
import { hashEntitlementToken } from "./storage.ts";

/** Whether a credential is an entitlement token (and not an API key). */
export function isEntitlementToken(credential: string): boolean {
  return credential.startsWith(ENTITLEMENT_TOKEN_PREFIX);
}

/** A token as /dl holds it: the decisions' Entitlement, and whether it may be used at all. */
export interface LoadedEntitlement extends Entitlement {
  enabled: boolean;
  /** Set when the secret is the previous one of a rotation: it works until then. */
  previousUntil: string | null;
}

function invalid(message: string): DomainError {
  return new DomainError("UNAUTHENTICATED", message);
}

/** The token the secret belongs to (its current or, within a rotation's overlap, previous one). */
async function loadEntitlement(db: Db, hash: string, now: Date): Promise<LoadedEntitlement | null> {
  // One statement: the row once per project it reads.
  const rows = await db
    .selectFrom("entitlement")
    .leftJoin("entitlement_project", "entitlement_project.entitlement_id", "entitlement.id")
    .selectAll("entitlement")
    .select("entitlement_project.project_id")
    .where((eb) =>
      eb.or([eb("entitlement.token_hash", "=", hash), eb("entitlement.previous_token_hash", "=", hash)]),
    )
    .execute();
  const row = rows[0];
  if (!row) return null;
  const projectIds = rows.flatMap((r) => (r.project_id === null ? [] : [r.project_id]));
  const range = row.version_range ? parseVersionRange(row.version_range) : null;
  const month = currentMonth(now);
  return {
    id: row.id,
    ownerId: row.owner_id,
    projectIds,
    enabled: Boolean(Number(row.enabled)),
    previousUntil: row.token_hash === hash ? null : (row.previous_valid_until ?? ""),
    validFrom: row.valid_from,
    validUntil: row.valid_until,
    maxDownloads: row.max_downloads === null ? null : Number(row.max_downloads),
    downloads: Number(row.downloads),
    maxBytesPerMonth: row.max_bytes_per_month === null ? null : Number(row.max_bytes_per_month),
    bytesThisMonth:
      (row.month === month ? Number(row.month_bytes) : 0) + unwrittenEntitlementBytes(db, row.id, month),
    suites: row.suites === null ? null : (JSON.parse(row.suites) as string[]),
    groups: row.groups === null ? null : (JSON.parse(row.groups) as string[]),
    // Stored ranges were parsed when set; one that no longer parses reads nothing.
    versionRange: range === null ? null : "range" in range ? range.range : [[{ operator: "<", version: "" }]],
  };
}

export class EntitlementChecks {
  readonly #db: Db;
  readonly #now: () => Date;

  constructor(options: { db: Db; now?: () => Date }) {
    this.#db = options.db;
    this.#now = options.now ?? (() => new Date());
  }

  /** The token a secret stands for; UNAUTHENTICATED when none may be used with it now. */
  async check(token: string): Promise<LoadedEntitlement> {
    const now = this.#now();
    const hash = hashEntitlementToken(token);
    const entitlement = await loadEntitlement(this.#db, hash, now);
    if (!entitlement) throw invalid("This entitlement token is not valid: ask its publisher for a new one");
    if (entitlement.previousUntil !== null && entitlement.previousUntil <= now.toISOString())
      throw invalid("This entitlement token was replaced by a new one: ask its publisher for it");
    if (!entitlement.enabled) throw invalid("This entitlement token is disabled");
    return entitlement;
  }

  /**
   * Takes one of the token's downloads for a file about to be answered: one statement, so two
   * servers never let more than maxDownloads through; ENTITLEMENT_LIMIT when none is left.
   */
  async takeDownload(entitlement: LoadedEntitlement): Promise<void> {
    const max = entitlement.maxDownloads;
    let update = this.#db
      .updateTable("entitlement")
      .set({ downloads: sql`"downloads" + 1` })
      .where("id", "=", entitlement.id);
    if (max !== null) update = update.where("downloads", "<", max);
    const result = await update.executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      if (max !== null) {
        entitlement.downloads = max;
        throw downloadsUsedUp(max);
      }
      // Deleted meanwhile: the next request finds no token.
      throw invalid("This entitlement token is not valid: ask its publisher for a new one");
    }
    entitlement.downloads++;
  }
}

const checks = new WeakMap<object, EntitlementChecks>();

/** The server's checks, made at their first use. */
export function entitlementChecksOf(services: {
  database: { db: Db };
  clock: () => Date;
}): EntitlementChecks {
  let found = checks.get(services);
  if (!found) {
    found = new EntitlementChecks({ db: services.database.db, now: services.clock });
    checks.set(services, found);
  }
  return found;
}
