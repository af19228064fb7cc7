// Built packuments kept in memory, so that `npm install` asking again for a package of many
// versions does not read, parse and write every version's manifest again. A document is kept
// with its revision (its versions' ids, deprecations and tags) and with the serving cache's epoch
// when it was built (downloads/serve-cache.ts: every committed change, this server's or, by
// LISTEN, another's, starts a new epoch). While the epoch is the same the document is served
// without a query; after a change, or with the change feed down, the revision is read again (one
// light query) and the document served if it is still that revision. Bounded by bytes; the least
// recently used goes first.

export interface CachedDocument {
  body: string;
  etag: string;
  /** The body gzipped, made the first time a client accepts it. */
  gzip?: Uint8Array;
  /** The body as UTF-8, made the first time it is sent. */
  bytes?: Buffer;
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export class PackumentCache {
  readonly #entries = new Map<string, { revision: string; epoch?: number; document: CachedDocument }>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes = DEFAULT_MAX_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** The document built for `key` at `revision`, if it is still kept. */
  get(key: string, revision: string): CachedDocument | undefined {
    const entry = this.#entries.get(key);
    if (!entry || entry.revision !== revision) return undefined;
    return this.#used(key, entry).document;
  }

  /** The document built for `key` in the serving cache's `epoch` (nothing changed since). */
  getInEpoch(key: string, epoch: number): CachedDocument | undefined {
    const entry = this.#entries.get(key);
    if (!entry || entry.epoch !== epoch) return undefined;
    return this.#used(key, entry).document;
  }

  /** Keeps a document at its revision, and its epoch when nothing changed while it was built. */
  set(key: string, revision: string, document: CachedDocument, epoch?: number): void {
    this.#remove(key);
    const size = document.body.length;
    if (size > this.#maxBytes / 4) return;
    this.#entries.set(key, { revision, document, ...(epoch === undefined ? {} : { epoch }) });
    this.#bytes += size;
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#remove(oldest);
    }
  }

  /** Most recently used last. */
  #used<T>(key: string, entry: T): T {
    this.#entries.delete(key);
    this.#entries.set(key, entry as never);
    return entry;
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#bytes -= entry.document.body.length;
    this.#entries.delete(key);
  }
}
