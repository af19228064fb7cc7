// Built packuments kept in memory, so that `npm install` asking again for a package of many
// versions costs one light query (its versions' ids, deprecations and tags: the revision) and
// not reading, parsing and writing every version's manifest again. A cached document is served
// only while its revision is the current one, so every server answers what the database says,
// whatever another server changed. Bounded by bytes; the least recently used goes first.

export interface CachedDocument {
  body: string;
  etag: string;
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export class PackumentCache {
  readonly #entries = new Map<string, { revision: string; document: CachedDocument }>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes = DEFAULT_MAX_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** The document built for `key` at `revision`, if it is still kept. */
  get(key: string, revision: string): CachedDocument | undefined {
    const entry = this.#entries.get(key);
    if (!entry || entry.revision !== revision) return undefined;
    // Most recently used last.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.document;
  }

  set(key: string, revision: string, document: CachedDocument): void {
    this.#remove(key);
    const size = document.body.length;
    if (size > this.#maxBytes / 4) return;
    this.#entries.set(key, { revision, document });
    this.#bytes += size;
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#remove(oldest);
    }
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#bytes -= entry.document.body.length;
    this.#entries.delete(key);
  }
}
