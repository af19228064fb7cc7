// Digests of a document made of keyed chunks (the blocks of a repository index), resumable: the
// hashes' midstates (hash.copy()) are kept every so many bytes, so the next document that starts
// with the same chunks re-hashes only from the last checkpoint before the first changed chunk,
// not from its first byte. A key must identify its chunk's bytes (for index blocks, the ids of
// the immutable stanzas they hold).
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
const CHECKPOINT_BYTES = 256 * 1024;

export class ResumableDigests {
  readonly #algorithms: readonly DigestAlgorithm[];
  readonly #every: number;
  #keys: string[] = [];
  #checkpoints: Checkpoint[] = [];
  /** Bytes hashed by the last digest() (tests and benchmarks read it). */
  hashedBytes = 0;

  constructor(algorithms: readonly DigestAlgorithm[], options: { checkpointBytes?: number } = {}) {
    this.#algorithms = algorithms;
    this.#every = options.checkpointBytes ?? CHECKPOINT_BYTES;
  }

  /**
   * Hex digests (one per algorithm, in order) of the chunks' bytes joined, then `tail` (bytes
   * after the chunks that are never resumed from, such as an .xz stream's index and footer).
   * Remembers this document's chunks for the next call.
   */
  digest(chunks: readonly KeyedChunk[], tail?: Uint8Array): string[] {
    let same = 0;
    const previous = this.#keys;
    const limit = Math.min(previous.length, chunks.length);
    while (same < limit && previous[same] === chunks[same]!.key) same++;
    // The last checkpoint at or before the first changed chunk.
    const checkpoints = this.#checkpoints;
    let kept = 0;
    while (kept < checkpoints.length && checkpoints[kept]!.count <= same) kept++;
    const resumed = checkpoints[kept - 1];
    const next = checkpoints.slice(0, kept);
    const hashes = resumed
      ? resumed.hashes.map((hash) => hash.copy())
      : this.#algorithms.map((algorithm) => createHash(algorithm));
    if (!resumed) next.push({ count: 0, hashes: hashes.map((hash) => hash.copy()) });
    let hashed = 0;
    let sinceCheckpoint = 0;
    for (let i = resumed?.count ?? 0; i < chunks.length; i++) {
      const { bytes } = chunks[i]!;
      for (const hash of hashes) hash.update(bytes);
      hashed += bytes.byteLength;
      sinceCheckpoint += bytes.byteLength;
      if (sinceCheckpoint >= this.#every) {
        next.push({ count: i + 1, hashes: hashes.map((hash) => hash.copy()) });
        sinceCheckpoint = 0;
      }
    }
    if (tail) {
      for (const hash of hashes) hash.update(tail);
      hashed += tail.byteLength;
    }
    this.#keys = chunks.map((chunk) => chunk.key);
    this.#checkpoints = next;
    this.hashedBytes = hashed;
    return hashes.map((hash) => hash.digest("hex"));
  }

  /** Roughly the memory kept: the keys and the checkpoints' hash states. */
  bytes(): number {
    let bytes = 64;
    for (const key of this.#keys) bytes += key.length + 16;
    return bytes + this.#checkpoints.length * this.#algorithms.length * 400;
  }
}
