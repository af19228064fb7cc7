// Domain changes that other parts react to: a project was created (it needs a signing key), or
// its published packages changed (its repositories need a rebuild). Listeners are registered per
// database by the services; the registry lives in a process-wide slot because the route bundle
// and the server are separate module graphs that both call the domain functions.

export type ProjectEvent =
  | { type: "created"; projectId: string; keyAlgorithm?: "rsa3072" | "ed25519" }
  | { type: "packages-changed"; projectId: string };
type Listener = (event: ProjectEvent) => Promise<void>;

const slot = Symbol.for("packyard.project-event-listeners");
const holder = globalThis as { [slot]?: WeakMap<object, Listener> };
if (!holder[slot]) holder[slot] = new WeakMap();
const listeners = holder[slot];

export function onProjectEvent(db: object, listener: Listener): void {
  listeners.set(db, listener);
}

/** Runs the listener and waits for it; a listener's failure is its own to log, never the caller's. */
export async function emitProjectEvent(db: object, event: ProjectEvent): Promise<void> {
  await listeners.get(db)?.(event);
}
