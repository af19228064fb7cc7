import type { AuditAction } from "@packyard/contract";

// Domain changes that other parts react to: a project was created (it needs a signing key), or
// its published packages changed (its repositories need a rebuild). Listeners are registered per
// database by the services.

export type ProjectEvent =
  | { type: "created"; projectId: string; keyAlgorithm?: "rsa3072" | "ed25519" }
  | { type: "packages-changed"; projectId: string };
type Listener = (event: ProjectEvent) => Promise<void>;

const listeners = new WeakMap<object, Listener>();

export function onProjectEvent(db: object, listener: Listener): void {
  listeners.set(db, listener);
}

/** Runs the listener and waits for it; a listener's failure is its own to log, never the caller's. */
export async function emitProjectEvent(db: object, event: ProjectEvent): Promise<void> {
  await listeners.get(db)?.(event);
}

// ---------------------------------------------------------------------------------------------
// What happened to a project's releases, files, repositories and keys, for anyone outside to
// hear (webhooks, decision 032). Any number of listeners per database; each one's failure is
// its own (logged by it), never the caller's: the action already happened.

export type ActivityEvent =
  | { type: "release.created" | "release.yanked" | "release.unyanked"; projectId: string; releaseId: string }
  | { type: "file.uploaded"; projectId: string; releaseId: string; fileId: string }
  | {
      type: "file.deleted";
      projectId: string;
      releaseId: string;
      file: { filename: string; sha256: string; kind: string };
    }
  | {
      type: "repository.published";
      projectId: string;
      revision: number;
      /** The revision served before this publish. */
      previousRevision: number;
      repositories: { format: string; name: string }[];
    }
  | { type: "key.rotated"; projectId: string; fingerprint: string; previous: string[] }
  | {
      type: "image.pushed";
      projectId: string;
      /** The repository name: {owner}/{project}[/{image}]. */
      name: string;
      tag: string | null;
      digest: string;
      mediaType: string;
      size: number;
    }
  | { type: "image.deleted"; projectId: string; name: string; tag: string | null; digest: string | null };
type ActivityListener = (event: ActivityEvent) => Promise<void>;

const activityListeners = new WeakMap<object, Set<ActivityListener>>();

/** Adds a listener for the database's activity; returns a function that removes it. */
export function onActivity(db: object, listener: ActivityListener): () => void {
  let set = activityListeners.get(db);
  if (!set) {
    set = new Set();
    activityListeners.set(db, set);
  }
  set.add(listener);
  return () => set.delete(listener);
}

/** Tells every listener and waits for them; a listener's failure never reaches the caller. */
export async function emitActivity(db: object, event: ActivityEvent): Promise<void> {
  const set = activityListeners.get(db);
  if (!set) return;
  await Promise.all([...set].map((listener) => listener(event).catch(() => {})));
}

// ---------------------------------------------------------------------------------------------
// Every domain event, as use cases emit them (use-case.ts): the events above, and `changed`,
// which announces each audited change by its action. Listeners that must hear every change (the
// serving cache, other servers through PostgreSQL) listen here.

export type ChangeEvent = { type: "changed"; action: AuditAction; ownerId: string; projectId: string | null };
/** An account and everything it owned is gone (its log with it: no audit entry announces it). */
export type AccountDeletedEvent = { type: "account.deleted"; userId: string };
export type DomainEvent = ProjectEvent | ActivityEvent | ChangeEvent | AccountDeletedEvent;
type DomainListener = (event: DomainEvent) => Promise<void> | void;

const domainListeners = new WeakMap<object, Set<DomainListener>>();

/** Adds a listener for every domain event of the database; returns a function that removes it. */
export function onDomainEvent(db: object, listener: DomainListener): () => void {
  let set = domainListeners.get(db);
  if (!set) {
    set = new Set();
    domainListeners.set(db, set);
  }
  set.add(listener);
  return () => set.delete(listener);
}

/**
 * Emits a change's events, in order: every domain listener hears all of them first, at once (the
 * serving cache drops once, other servers get one notification: change-listener.ts), then each
 * event's own kind's listeners (the project listener, activity listeners) run, one event after
 * the other. Waits for them all; a listener's failure is its own, never the caller's.
 */
export async function emitDomainEvents(db: object, events: readonly DomainEvent[]): Promise<void> {
  const heard = events.flatMap((event) =>
    [...(domainListeners.get(db) ?? [])].map(async (listener) => {
      try {
        await listener(event);
      } catch {}
    }),
  );
  for (const event of events) {
    if (event.type === "created" || event.type === "packages-changed") await emitProjectEvent(db, event);
    else if (event.type !== "changed" && event.type !== "account.deleted") await emitActivity(db, event);
  }
  await Promise.all(heard);
}

/** One event: emitDomainEvents of it alone. */
export function emitDomainEvent(db: object, event: DomainEvent): Promise<void> {
  return emitDomainEvents(db, [event]);
}
