// Spares of the large index files (decision 049). A publish that adds one package rewrites
// Packages.gz and Packages.xz whole (~1 MB each at 10,000 packages), and waiting for the disk to
// take 2 MB and fsync them was the longest part of it. The new file differs from the one before
// only near its end, so after each publish a copy of each large file it stored is written to a
// temporary file and fsynced (a spare, blob-store.ts), off the publish's path; the next publish
// of the same file keeps the spare's common beginning and appends the rest: kilobytes. Index
// files stay whole, content-addressed files, durable before the switch as before. Local disk only.
import { setTimeout as sleep } from "node:timers/promises";
import type { BlobStore, SpareCopy } from "../platform/storage/blob-store.ts";

/** Smaller files are written whole: a spare would save less than it costs. */
export const SPARE_MIN_BYTES = 256 * 1024;
/** Spares kept at most, in bytes of their copies; the least recently prepared go first. */
export const SPARES_MAX_BYTES = 64 * 1024 * 1024;

/** A stored index file's spare, by project, format, repository and path. */
export const spareKey = (projectId: string, format: string, name: string, path: string) =>
  `${projectId}\u0000${format}\u0000${name}\u0000${path}`;

export class IndexSpares {
  readonly #prepareSpare: (bytes: Uint8Array) => Promise<SpareCopy>;
  readonly #discardSpare: (spare: SpareCopy) => Promise<void>;
  readonly #spares = new Map<string, SpareCopy>();
  readonly #maxBytes: number;
  #bytes = 0;
  /** Spares are written one at a time, after one another. */
  #preparing: Promise<void> = Promise.resolve();
  /** Spares being removed. */
  readonly #discarding = new Set<Promise<void>>();
  /**
   * Aborted by close(): a spare still waiting for its delay is not written. The delay's timer
   * does not hold the process open (a spare only saves time), so a close that waited for it
   * could be left unsettled when nothing else keeps the event loop running — the rest of the
   * server's shutdown after it would never run.
   */
  readonly #closing = new AbortController();

  /** Undefined for a store that keeps no spares (S3). */
  static for(store: BlobStore, maxBytes = SPARES_MAX_BYTES): IndexSpares | undefined {
    if (!store.prepareSpare || !store.discardSpare) return undefined;
    return new IndexSpares(
      (bytes) => store.prepareSpare!(bytes),
      (spare) => store.discardSpare!(spare),
      maxBytes,
    );
  }

  private constructor(
    prepareSpare: (bytes: Uint8Array) => Promise<SpareCopy>,
    discardSpare: (spare: SpareCopy) => Promise<void>,
    maxBytes: number,
  ) {
    this.#prepareSpare = prepareSpare;
    this.#discardSpare = discardSpare;
    this.#maxBytes = maxBytes;
  }

  /** The spare for `key`, no longer kept here (the caller uses it up or gives it back). */
  take(key: string): SpareCopy | undefined {
    const spare = this.#spares.get(key);
    if (!spare) return undefined;
    this.#spares.delete(key);
    this.#bytes -= spare.bytes.byteLength;
    return spare;
  }

  /** Keeps a spare that was taken and not used. */
  giveBack(key: string, spare: SpareCopy): void {
    this.#add(key, spare);
  }

  /**
   * Writes spares of `files` (those of at least `minBytes`), one after the other, `delayMs` from
   * now and after whatever is being written; a spare that cannot be written is left out (it only
   * saves time).
   */
  prepare(
    files: readonly { key: string; bytes: Uint8Array }[],
    delayMs = 0,
    minBytes = SPARE_MIN_BYTES,
  ): void {
    const large = files.filter((file) => file.bytes.byteLength >= minBytes);
    const closing = this.#closing.signal;
    if (large.length === 0 || closing.aborted) return;
    const waited = sleep(delayMs, undefined, { ref: false, signal: closing }).catch(() => {});
    this.#preparing = Promise.all([this.#preparing, waited]).then(async () => {
      for (const { key, bytes } of large) {
        if (closing.aborted) return;
        const spare = await this.#prepareSpare(bytes).catch(() => undefined);
        if (spare) this.#add(key, spare);
      }
    });
  }

  /** Resolves once the spares asked for so far are written, and those dropped removed (tests). */
  async settled(): Promise<void> {
    await this.#preparing;
    await Promise.all(this.#discarding);
  }

  /** Removes every spare kept; spares not yet begun are not written. */
  async close(): Promise<void> {
    this.#closing.abort();
    await this.#preparing;
    const spares = [...this.#spares.values()];
    this.#spares.clear();
    this.#bytes = 0;
    for (const spare of spares) this.#discard(spare);
    await this.settled();
  }

  #discard(spare: SpareCopy) {
    const removing = this.#discardSpare(spare).catch(() => {});
    this.#discarding.add(removing);
    void removing.finally(() => this.#discarding.delete(removing));
  }

  #add(key: string, spare: SpareCopy) {
    const replaced = this.take(key);
    if (replaced) this.#discard(replaced);
    this.#spares.set(key, spare);
    this.#bytes += spare.bytes.byteLength;
    for (const [oldest, kept] of this.#spares) {
      if (this.#bytes <= this.#maxBytes) break;
      this.take(oldest);
      this.#discard(kept);
    }
  }
}
