// What /dl answers from, kept in memory between requests: the project a URL names, a release
// and its files, the current index file of a repository, a package's pool file — each what the
// database said since the last change that could alter it — and the bytes of index files, which
// are named by their sha256 and so never change (docs/decisions/039-serving-cache.md).
//
// Dropped whole on every change: every change emits a domain event once it has committed
// (use-case.ts), and change-listener.ts calls `invalidate` on each; with PostgreSQL, other
// processes' changes arrive by LISTEN (change-listener.ts), and while that connection is down
// nothing is cached. A load that overlaps a change is not kept (decision 074).

/** Entries kept at most; past it the oldest go. */
const MAX_ENTRIES = 20_000;

export class ServeCache {
  #epoch = 0;
  #enabled = true;
  #entries = new Map<string, unknown>();
  /** Runs before every lookup: may invalidate (SQLite: another process committed). */
  validate: () => void = () => {};

  /** Drops everything, and whatever is loading now. */
  invalidate(): void {
    this.#epoch++;
    if (this.#entries.size > 0) this.#entries.clear();
  }

  /** Off: every lookup loads (the change feed is down); on again after a reconnect. */
  setEnabled(enabled: boolean): void {
    this.#enabled = enabled;
    this.invalidate();
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  /** The cached value, or undefined when there is none (a miss loads through get()). */
  peek<T>(key: string): T | undefined {
    this.validate();
    return this.#entries.get(key) as T | undefined;
  }

  /** The cached value, or what `load` returns (kept unless a change happened meanwhile). */
  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    this.validate();
    if (this.#entries.has(key)) return this.#entries.get(key) as T;
    const epoch = this.#epoch;
    const value = await load();
    if (this.#enabled && epoch === this.#epoch) {
      if (this.#entries.size >= MAX_ENTRIES) {
        this.#entries.delete(this.#entries.keys().next().value as string);
      }
      this.#entries.set(key, value);
    }
    return value;
  }

  /** Changes with every invalidation: a value made from lookups since then is still fresh. */
  get epoch(): number {
    return this.#epoch;
  }

  /**
   * Keeps a value made from values this cache returned since `epoch` (read before the first of
   * them): kept only if nothing changed in between, so it is as fresh as they are.
   */
  remember(key: string, value: unknown, epoch = this.#epoch): void {
    if (!this.#enabled || epoch !== this.#epoch) return;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, value);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Bytes named by their sha256 (index files): immutable, so never invalidated; bounded by bytes,
 * least recently used first out, and emptied of what nobody asked for in the last minute so an
 * idle server gives the memory back.
 */
/** How recently used an entry may be and still not be moved to the end on use. */
const REORDER_MS = 1000;

export class ContentCache {
  #entries = new Map<string, { bytes: Buffer; used: number }>();
  #bytes = 0;
  readonly maxBytes: number;
  readonly maxEntryBytes: number;
  readonly idleMs: number;
  constructor(maxBytes = 64 * 1024 * 1024, maxEntryBytes = 16 * 1024 * 1024, idleMs = 60_000) {
    this.maxBytes = maxBytes;
    this.maxEntryBytes = maxEntryBytes;
    this.idleMs = idleMs;
  }

  get(sha256: string, now = performance.now()): Buffer | undefined {
    const entry = this.#entries.get(sha256);
    if (!entry) return undefined;
    // Most recently used last; an entry used within the last second keeps its place (an index
    // file asked for thousands of times a second is not moved each time).
    if (now - entry.used >= REORDER_MS) {
      this.#entries.delete(sha256);
      this.#entries.set(sha256, entry);
    }
    entry.used = now;
    return entry.bytes;
  }

  set(sha256: string, bytes: Buffer, now = performance.now()): void {
    if (bytes.byteLength > this.maxEntryBytes || this.#entries.has(sha256)) return;
    this.#entries.set(sha256, { bytes, used: now });
    this.#bytes += bytes.byteLength;
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(key);
      this.#bytes -= entry.bytes.byteLength;
    }
  }

  /** Drops what was not used within idleMs. */
  sweep(now = performance.now()): void {
    for (const [key, entry] of this.#entries) {
      if (now - entry.used < this.idleMs) continue;
      this.#entries.delete(key);
      this.#bytes -= entry.bytes.byteLength;
    }
  }

  get bytes(): number {
    return this.#bytes;
  }
}

/** A database's caches, found by its Kysely instance (the route bundle and the server share it). */
export interface ServingCaches {
  rows: ServeCache;
  content: ContentCache;
  /**
   * Small release and package files (HOT_FILE_BYTES at most), read once from the local disk and
   * then answered from memory (downloads/fast-dl.ts): 32 MiB at most, let go after 30 s unused so
   * the memory a download load took is back within a minute (decision 041).
   */
  files: ContentCache;
}

/** Release and package files up to this size are kept in `files` once asked for. */
export const HOT_FILE_BYTES = 4 * 1024 * 1024;

/** A database's caches, new and empty. */
export function newServingCaches(): ServingCaches {
  return {
    rows: new ServeCache(),
    content: new ContentCache(),
    files: new ContentCache(32 * 1024 * 1024, HOT_FILE_BYTES, 30_000),
  };
}

const registry = new WeakMap<object, ServingCaches>();

export function registerServingCaches(db: object, caches: ServingCaches): void {
  registry.set(db, caches);
}

/** The database's caches; a fresh, unregistered pair when it has none (a test's own Kysely). */
export function servingCachesOf(db: object): ServingCaches {
  let caches = registry.get(db);
  if (!caches) {
    caches = newServingCaches();
    caches.rows.setEnabled(false);
    registry.set(db, caches);
  }
  return caches;
}
