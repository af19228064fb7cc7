// What the repository builders remember between publishes — each project's package set, each
// repository's compressed blocks — under one byte budget (INDEX_CACHE_MB), least recently used
// first out. Forgetting only costs time: the next publish of that project reads and compresses
// everything again.
export class MemoryBudget {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, { value: unknown; bytes: number }>();
  #usedBytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get usedBytes(): number {
    return this.#usedBytes;
  }

  /** The value kept under `key`, which becomes the most recently used. */
  get<T>(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value as T;
  }

  /**
   * Keeps `value` as the most recently used, then forgets the least recently used others until
   * everything fits. A value larger than the whole budget is not kept at all.
   */
  set(key: string, value: unknown, bytes: number): void {
    this.delete(key);
    if (bytes > this.#maxBytes) return;
    this.#entries.set(key, { value, bytes });
    this.#usedBytes += bytes;
    for (const [other, entry] of this.#entries) {
      if (this.#usedBytes <= this.#maxBytes) break;
      if (other === key) continue;
      this.#entries.delete(other);
      this.#usedBytes -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#usedBytes -= entry.bytes;
  }
}

/** Roughly what strings cost in memory: V8 keeps one byte per character for Latin-1 text. */
export function stringBytes(values: readonly string[]): number {
  let bytes = 0;
  for (const value of values) bytes += value.length + 16;
  return bytes;
}
