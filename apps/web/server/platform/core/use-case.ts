// The one way a state change is carried out (issue 39, decision 070). A use case is a function
// `(deps, caller, input) → result` in its feature's `use-cases.ts`: it decides with
// platform/core/authorization.ts, then calls `change(db, caller, work)` here. `work` makes the change
// on the transaction it is given and says what happened through `record`: the audit entries are
// written in that same transaction (a crash never leaves a change without its entry, or an entry
// without its change), and the domain events are emitted once it has committed (listeners read
// committed rows: the publisher, webhooks, the serving cache). REST handlers, React Router
// actions, the CLI and jobs only parse, call a use case and map its result; nothing else writes
// an audit entry or emits an event (use-case-boundary.test.ts keeps it so).
import type { Kysely, Transaction } from "kysely";
import { type AuditActor, type AuditInput, recordAudit } from "../../audit/record.ts";
import type { Database } from "../db/schema.ts";
import type { Actor } from "./authorization.ts";
import { type DomainEvent, emitDomainEvent, emitDomainEvents } from "./changes.ts";

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

/** Who asked for a change, and from where: a person's session or key, or a job. */
export interface Caller {
  actor: Actor | { kind: "system" };
  /** The client's address (request-log.ts's clientAddress: TRUST_PROXY decides); null for jobs. */
  address: string | null;
}

/** A person's caller: a session or a key (a job cannot do what only a person may). */
export type PersonCaller = Caller & { actor: Actor };

/** A job's caller. */
export const SYSTEM: Caller = { actor: { kind: "system" }, address: null };

export function auditActorOf(actor: Caller["actor"]): AuditActor {
  if (actor.kind === "system") return { kind: "system" };
  if (actor.kind !== "key") return { kind: "user", userId: actor.userId };
  return {
    kind: "key",
    userId: actor.userId,
    keyId: actor.keyId,
    ...(actor.keyName !== undefined ? { keyName: actor.keyName, keyStart: actor.keyStart ?? null } : {}),
  };
}

/**
 * An audit entry as a use case states it: the caller and the address are filled in. `actor`
 * only where the entry's actor is not the caller (a trusted publisher acting for an anonymous
 * exchange).
 */
export type AuditEntry = Omit<AuditInput, "actor" | "address"> & { actor?: AuditActor };

export interface Record {
  /** An audit entry, written in the change's transaction. */
  audit(entry: AuditEntry): void;
  /** A domain event, emitted after the change has committed. */
  emit(event: DomainEvent): void;
}

/**
 * Runs `work` in one transaction, writes the audit entries it recorded in that transaction, and
 * emits its events after the commit. Everything `work` reads or writes goes through `tx` (on
 * SQLite a query on `db` inside would wait for the transaction's own connection). A failure
 * rolls the change and its entries back, and emits nothing.
 */
export async function change<T>(
  db: Db,
  caller: Caller,
  work: (tx: Tx, record: Record) => Promise<T>,
): Promise<T> {
  // Events are heard per database (platform/core/changes.ts): a use case inside another's transaction
  // would emit them where nobody listens, before the outer one commits.
  if (db.isTransaction) throw new Error("A use case runs on the database, not inside another transaction");
  const entries: AuditEntry[] = [];
  const events: DomainEvent[] = [];
  const record: Record = {
    audit: (entry) => entries.push(entry),
    emit: (event) => events.push(event),
  };
  const result = await inTransaction(db, async (tx) => {
    const value = await work(tx, record);
    const actor = auditActorOf(caller.actor);
    await recordAudit(
      tx,
      ...entries.map((entry) => ({ ...entry, actor: entry.actor ?? actor, address: caller.address })),
    );
    return value;
  });
  // Every audited change is also announced, so a listener that must hear every change (the
  // serving cache, other servers) needs no list of them.
  await emitDomainEvents(db, [
    ...entries.map(
      (entry): DomainEvent => ({
        type: "changed",
        action: entry.action,
        ownerId: entry.ownerId,
        projectId: entry.projectId ?? null,
      }),
    ),
    ...events,
  ]);
  return result;
}

/**
 * Announces a change a job committed in a transaction of its own and records no entry for (the
 * publisher's switch to a new revision, retried when files were swept meanwhile): its event,
 * after that commit, to the same listeners change() reaches.
 */
export async function announce(db: Db, event: DomainEvent): Promise<void> {
  if (db.isTransaction) throw new Error("Announce a change after its transaction has committed");
  await emitDomainEvent(db, event);
}

/**
 * `fn` in a transaction: a new one on a database, the same one when `db` already is a
 * transaction (Kysely does not nest them), so domain functions can be called inside a use case's
 * transaction and on their own alike.
 */
export function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Tx);
  return db.transaction().execute(fn);
}
