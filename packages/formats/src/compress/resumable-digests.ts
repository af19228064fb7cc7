// Digests of a document made of keyed chunks (the blocks of a repository index), resumable: the
// hashes' midstates (hash.copy()) are kept every so many bytes, so the next document that starts
// with the same chunks re-hashes only from the last checkpoint before the first changed chunk,
// not from its first byte. A key must identify its chunk's bytes (for index blocks, the ids of
// the immutable stanzas they hold).
//
// The hashing itself (MidstateHasher) needs no keys, only where to resume: a hasher in another
// thread fed the same chunks keeps the same checkpoints, so one algorithm can be computed there
// while the others are computed here (repositories/digest-thread.ts).
import { createHash, type Hash } from "node:crypto";

export type DigestAlgorithm = "sha256" | "sha512";

/** A chunk of the document: its key identifies its bytes. */
export interface KeyedChunk {
  key: string;
  bytes: Uint8Array;
}

interface Checkpoint {
  /** Chunks hashed before this checkpoint. */
  count: number;
  /** The hashes' states after those chunks (never updated: copied before use). */
  hashes: Hash[];
}

/** Bytes between checkpoints: ~256 KiB re-hashed at most beyond the changed chunk, ~0.3 ms. */
export const CHECKPOINT_BYTES = 256 * 1024;

/** Hashes a sequence of chunks, keeping midstates at checkpoints to resume the next one from. */
export class MidstateHasher {
  readonly #algorithms: readonly DigestAlgorithm[];
  readonly #every: number;
  #checkpoints: Checkpoint[] = [];

  constructor(algorithms: readonly DigestAlgorithm[], every = CHECKPOINT_BYTES) {
    this.#algorithms = algorithms;
    this.#every = every;
  }

  /** Where the next document resumes when its first `same` chunks are the previous one's. */
  resumePoint(same: number): number {
    let point = 0;
    for (const checkpoint of this.#checkpoints) {
      if (checkpoint.count > same) break;
      point = checkpoint.count;
    }
    return point;
  }

  /**
   * Hex digests of the previous document's first `from` chunks (a resume point) followed by
   * `chunks` and `tail`. Throws when there is no checkpoint at `from`.
   */
  hash(from: number, chunks: readonly Uint8Array[], tail?: Uint8Array): { hex: string[]; hashed: number } {
    let kept = 0;
    while (kept < this.#checkpoints.length && this.#checkpoints[kept]!.count <= from) kept++;
    const resumed = this.#checkpoints[kept - 1];
    if (from > 0 && resumed?.count !== from) throw new Error(`no midstate after ${from} chunks`);
    const next = this.#checkpoints.slice(0, kept);
    const hashes = resumed
      ? resumed.hashes.map((hash) => hash.copy())
      : this.#algorithms.map((algorithm) => createHash(algorithm));
    if (!resumed) next.push({ count: 0, hashes: hashes.map((hash) => hash.copy()) });
    let hashed = 0;
    let sinceCheckpoint = 0;
    chunks.forEach((bytes, i) => {
      for (const hash of hashes) hash.update(bytes);
      hashed += bytes.byteLength;
      sinceCheckpoint += bytes.byteLength;
      if (sinceCheckpoint >= this.#every) {
        next.push({ count: from + i + 1, hashes: hashes.map((hash) => hash.copy()) });
        sinceCheckpoint = 0;
      }
    });
    if (tail) {
      for (const hash of hashes) hash.update(tail);
      hashed += tail.byteLength;
    }
    this.#checkpoints = next;
    return { hex: hashes.map((hash) => hash.digest("hex")), hashed };
  }

  /** Roughly the memory its checkpoints hold. */
  bytes(): number {
    return this.#checkpoints.length * this.#algorithms.length * 400;
  }
}

/** A MidstateHasher somewhere else (another thread): the same calls, answered later. */
export interface RemoteHasher {
  hash(from: number, chunks: readonly Uint8Array[], tail?: Uint8Array): Promise<string[]>;
  /**
   * hash(), given the chunks with their keys and the whole document's keys: a remote that kept
   * the chunks of earlier documents (by key) is sent only those it has not seen.
   */
  hashKeyed?(
    from: number,
    chunks: readonly KeyedChunk[],
    documentKeys: readonly string[],
    tail?: Uint8Array,
  ): Promise<string[]>;
}

export class ResumableDigests {
  readonly #algorithms: readonly DigestAlgorithm[];
  readonly #hasher: MidstateHasher;
  #keys: string[] = [];
  /** Bytes hashed by the last digest() (tests and benchmarks read it). */
  hashedBytes = 0;

  constructor(algorithms: readonly DigestAlgorithm[], options: { checkpointBytes?: number } = {}) {
    this.#algorithms = algorithms;
    this.#hasher = new MidstateHasher(algorithms, options.checkpointBytes);
  }

  /**
   * Hex digests (one per algorithm, in order) of the chunks' bytes joined, then `tail` (bytes
   * after the chunks that are never resumed from, such as an .xz stream's index and footer).
   * Remembers this document's chunks for the next call.
   */
  digest(chunks: readonly KeyedChunk[], tail?: Uint8Array): string[] {
    const from = this.#resumePoint(chunks);
    const { hex, hashed } = this.#hasher.hash(
      from,
      chunks.slice(from).map((chunk) => chunk.bytes),
      tail,
    );
    this.#keys = chunks.map((chunk) => chunk.key);
    this.hashedBytes = hashed;
    return hex;
  }

  /**
   * digest(), with `remote` computing further algorithms (its own MidstateHasher, fed every
   * document this one is) at the same time in another thread: this instance's digests, then
   * the remote's.
   */
  async digestWith(
    remote: RemoteHasher,
    chunks: readonly KeyedChunk[],
    options: { tail?: Uint8Array; meanwhile?: () => void } = {},
  ): Promise<string[]> {
    const { tail } = options;
    const from = this.#resumePoint(chunks);
    const keyed = chunks.slice(from);
    const keys = chunks.map((chunk) => chunk.key);
    const far = remote.hashKeyed
      ? remote.hashKeyed(from, keyed, keys, tail)
      : remote.hash(
          from,
          keyed.map((chunk) => chunk.bytes),
          tail,
        );
    // Here while the other thread hashes; a failed remote fails this digest (callers start over).
    far.catch(() => {});
    options.meanwhile?.();
    const { hex, hashed } = this.#hasher.hash(
      from,
      keyed.map((chunk) => chunk.bytes),
      tail,
    );
    this.#keys = keys;
    this.hashedBytes = hashed;
    return [...hex, ...(await far)];
  }

  #resumePoint(chunks: readonly KeyedChunk[]): number {
    let same = 0;
    const previous = this.#keys;
    const limit = Math.min(previous.length, chunks.length);
    while (same < limit && previous[same] === chunks[same]!.key) same++;
    return this.#hasher.resumePoint(same);
  }

  /** The algorithms computed here. */
  get algorithms(): readonly DigestAlgorithm[] {
    return this.#algorithms;
  }

  /** Roughly the memory kept: the keys and the checkpoints' hash states. */
  bytes(): number {
    let bytes = 64;
    for (const key of this.#keys) bytes += key.length + 16;
    return bytes + this.#hasher.bytes();
  }
}
