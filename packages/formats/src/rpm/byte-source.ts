// Pulls exact byte counts from a stream of chunks, so a reader can stop as soon as it has what it needs.

/** Whole bytes, or any async iterable of chunks: a Node Readable, a web ReadableStream, a generator. */
export type ByteSource = Uint8Array | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export class ByteReader {
  readonly #iterator: AsyncIterator<Uint8Array> | Iterator<Uint8Array>;
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #done = false;
  /** Everything handed out by readExactly so far, concatenated on demand. */
  #consumed: Uint8Array[] = [];
  #position = 0;

  constructor(source: ByteSource) {
    if (source instanceof Uint8Array) {
      this.#iterator = [source][Symbol.iterator]();
    } else if (Symbol.asyncIterator in source) {
      this.#iterator = source[Symbol.asyncIterator]();
    } else {
      this.#iterator = source[Symbol.iterator]();
    }
  }

  /** Bytes handed out so far. */
  get position(): number {
    return this.#position;
  }

  /** Returns exactly `length` bytes, or null when the source ends first. */
  async readExactly(length: number): Promise<Uint8Array | null> {
    while (this.#buffered < length) {
      if (this.#done) return null;
      const next = await this.#iterator.next();
      if (next.done) {
        this.#done = true;
        continue;
      }
      const chunk: unknown = next.value;
      if (!(chunk instanceof Uint8Array)) {
        throw new TypeError("byte source yielded something other than a Uint8Array (a text stream?)");
      }
      if (chunk.length === 0) continue;
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    const out = this.#take(length);
    this.#consumed.push(out);
    this.#position += length;
    return out;
  }

  /** Everything read so far as one array (the chunks handed out, in order). */
  consumedBytes(): Uint8Array {
    const all = concat(this.#consumed, this.#position);
    this.#consumed = [all];
    return all;
  }

  /** Bytes already pulled from the source but not handed out. */
  leftover(): Uint8Array {
    return this.#take(this.#buffered);
  }

  /** Tells the source we are done (a Node stream is destroyed, a web stream cancelled). */
  async close(): Promise<void> {
    if (!this.#done) {
      this.#done = true;
      await this.#iterator.return?.();
    }
  }

  /** The rest of the source: leftover bytes first, then the chunks not yet pulled. */
  async *rest(): AsyncGenerator<Uint8Array> {
    const leftover = this.leftover();
    if (leftover.length > 0) yield leftover;
    while (!this.#done) {
      const next = await this.#iterator.next();
      if (next.done) {
        this.#done = true;
        return;
      }
      yield next.value;
    }
  }

  #take(length: number): Uint8Array {
    const first = this.#chunks[0];
    if (first && first.length >= length) {
      const out = first.subarray(0, length);
      if (first.length === length) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(length);
      this.#buffered -= length;
      return out;
    }
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const chunk = this.#chunks[0]!;
      const wanted = Math.min(chunk.length, length - filled);
      out.set(chunk.subarray(0, wanted), filled);
      filled += wanted;
      if (wanted === chunk.length) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(wanted);
    }
    this.#buffered -= length;
    return out;
  }
}

export function concat(parts: Uint8Array[], total = parts.reduce((sum, part) => sum + part.length, 0)) {
  if (parts.length === 1 && parts[0]!.length === total) return parts[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
