// The digest thread's side (digest-thread.ts): MidstateHashers by id, each hashing what its
// twin on the main thread hashes.
import { parentPort } from "node:worker_threads";
import { type DigestAlgorithm, MidstateHasher } from "@packyard/formats/compress/resumable-digests.ts";

const hashers = new Map<number, MidstateHasher>();

parentPort?.on(
  "message",
  (message: {
    op: "hash" | "forget";
    call?: number;
    hasher: number;
    algorithms?: DigestAlgorithm[];
    from?: number;
    joined?: Uint8Array;
    /** Chunks on SharedArrayBuffers, passed as they are. */
    chunks?: Uint8Array[];
    lengths?: number[];
    tail?: Uint8Array;
  }) => {
    if (message.op === "forget") {
      hashers.delete(message.hasher);
      return;
    }
    try {
      let hasher = hashers.get(message.hasher);
      if (!hasher) {
        hasher = new MidstateHasher(message.algorithms ?? []);
        hashers.set(message.hasher, hasher);
      }
      const chunks: Uint8Array[] = message.chunks ?? [];
      let offset = 0;
      for (const length of message.lengths ?? []) {
        chunks.push(message.joined!.subarray(offset, offset + length));
        offset += length;
      }
      const { hex } = hasher.hash(message.from ?? 0, chunks, message.tail);
      parentPort?.postMessage({ call: message.call, hex });
    } catch (error) {
      // Its checkpoints no longer match the main thread's: start over next time.
      hashers.delete(message.hasher);
      parentPort?.postMessage({ call: message.call, error: String(error) });
    }
  },
);
