// Pulls exact byte counts out of a chunked stream, so archive readers can walk headers while
// skipping large members chunk by chunk instead of holding them.

/** A Node Readable, a web ReadableStream, any (async) iterable of byte chunks, or bytes in memory. */
export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Uint8Array;

const empty = new Uint8Array(0);

export class ByteReader {
  #iterator: AsyncIterator<unknown> | Iterator<unknown>;
  #pending: Uint8Array = empty;
  #ended = false;
  #closed = false;
  /** Bytes handed out or skipped so far. */
  position = 0;

  constructor(source: ByteSource) {
    if (source instanceof Uint8Array) {
      this.#iterator = [source][Symbol.iterator]();
    } else if (Symbol.asyncIterator in source) {
      this.#iterator = source[Symbol.asyncIterator]();
    } else {
      this.#iterator = source[Symbol.iterator]();
    }
  }

  /** Loads the next non-empty chunk when nothing is pending; false at the end of the stream. */
  async #fill(): Promise<boolean> {
    while (this.#pending.length === 0) {
      if (this.#ended) return false;
      const next = await this.#iterator.next();
      if (next.done) {
        this.#ended = true;
        return false;
      }
      if (!(next.value instanceof Uint8Array)) {
        // A Readable with setEncoding() yields strings, which would silently corrupt binary data.
        throw new TypeError("ByteReader expects Uint8Array chunks (do not set an encoding on the stream)");
      }
      this.#pending = next.value;
    }
    return true;
  }

  /**
   * Returns a copy of the next `count` bytes, or fewer only when the stream ends first.
   * Copies so that a small header never pins a large caller-owned chunk in memory.
   */
  async read(count: number): Promise<Uint8Array> {
    const out = new Uint8Array(count);
    let filled = 0;
    while (filled < count && (await this.#fill())) {
      const take = Math.min(count - filled, this.#pending.length);
      out.set(this.#pending.subarray(0, take), filled);
      this.#pending = this.#pending.subarray(take);
      filled += take;
    }
    this.position += filled;
    return filled === count ? out : out.subarray(0, filled);
  }

  /** Discards the next `count` bytes without keeping them; returns how many were there. */
  async skip(count: number): Promise<number> {
    let skipped = 0;
    while (skipped < count && (await this.#fill())) {
      const take = Math.min(count - skipped, this.#pending.length);
      this.#pending = this.#pending.subarray(take);
      skipped += take;
    }
    this.position += skipped;
    return skipped;
  }

  /** True when no byte is left. */
  async atEnd(): Promise<boolean> {
    return !(await this.#fill());
  }

  /** Releases the source early (destroys a Node stream, cancels a web stream). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = empty;
    if (!this.#ended) {
      this.#ended = true;
      await this.#iterator.return?.();
    }
  }
}
