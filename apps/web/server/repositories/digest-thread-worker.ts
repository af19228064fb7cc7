// The digest thread's side (digest-thread.ts): MidstateHashers by id, each hashing what its
// twin on the main thread hashes.
import { parentPort } from "node:worker_threads";
import { type DigestAlgorithm, MidstateHasher } from "@packyard/formats/compress/resumable-digests.ts";

/** Per hasher: its MidstateHasher and the chunks of its last document, by number. */
const hashers = new Map<number, { hasher: MidstateHasher; chunks: Map<number, Uint8Array> }>();

parentPort?.on(
  "message",
  (message: {
    op: "hash" | "forget";
    call?: number;
    hasher: number;
    algorithms?: DigestAlgorithm[];
    from?: number;
    /** New chunks: as they are, or joined (with their lengths). */
    fresh?: Uint8Array[] | Uint8Array;
    lengths?: number[];
    /** With refs: the numbers of the new chunks, the document's chunks by number, and those to forget. */
    newIds?: number[];
    refs?: Int32Array;
    dropped?: number[];
    tail?: Uint8Array;
  }) => {
    if (message.op === "forget") {
      hashers.delete(message.hasher);
      return;
    }
    try {
      let entry = hashers.get(message.hasher);
      if (!entry) {
        entry = { hasher: new MidstateHasher(message.algorithms ?? []), chunks: new Map() };
        hashers.set(message.hasher, entry);
      }
      let fresh: Uint8Array[] = [];
      if (Array.isArray(message.fresh)) fresh = message.fresh;
      else if (message.fresh) {
        let offset = 0;
        for (const length of message.lengths ?? []) {
          fresh.push(message.fresh.subarray(offset, offset + length));
          offset += length;
        }
      }
      let chunks = fresh;
      if (message.refs) {
        for (const ref of message.dropped ?? []) entry.chunks.delete(ref);
        for (const [i, ref] of (message.newIds ?? []).entries()) entry.chunks.set(ref, fresh[i]!);
        chunks = [];
        for (const ref of message.refs) {
          const chunk = entry.chunks.get(ref);
          if (!chunk) throw new Error(`no chunk ${ref}`);
          chunks.push(chunk);
        }
      }
      const { hex } = entry.hasher.hash(message.from ?? 0, chunks, message.tail);
      parentPort?.postMessage({ call: message.call, hex });
    } catch (error) {
      // Its checkpoints no longer match the main thread's: start over next time.
      hashers.delete(message.hasher);
      parentPort?.postMessage({ call: message.call, error: String(error) });
    }
  },
);
