// A second thread for the hashing a publish cannot avoid: Release lists SHA256 and SHA512 of the
// whole uncompressed Packages, and when a package sorts near the start of a big index nearly all
// of it is re-hashed. SHA-512 runs here (the slower of the two without CPU support), SHA-256
// and the compressed files' digests on the main thread at the same time (issue 16).
//
// Each remote hasher is a MidstateHasher in the thread, fed the same chunks as its ResumableDigests
// on the main thread, so both keep the same checkpoints. The chunks to hash are joined into one
// buffer that is moved to the thread (one copy, no per-chunk cloning). The thread is started by
// the first build that could use it and used once it is up: until then, and if it fails, builds
// hash on the main thread (decision 078: an idle server holds no second thread).
import { Worker } from "node:worker_threads";
import type { DigestAlgorithm, RemoteHasher } from "@packyard/formats/compress/resumable-digests.ts";

type Reply = { call: number; hex?: string[]; error?: string };

/**
 * Chunks for the thread: on SharedArrayBuffers, as they are (read there, no copy); otherwise
 * joined into one buffer that is moved, not copied (with the lengths to split it).
 */
function pack(chunks: readonly Uint8Array[]): {
  fresh: Uint8Array[] | Uint8Array;
  lengths?: number[];
  transfer: ArrayBuffer[];
} {
  if (chunks.every((chunk) => chunk.buffer instanceof SharedArrayBuffer))
    return { fresh: [...chunks], transfer: [] };
  const lengths = chunks.map((chunk) => chunk.byteLength);
  const joined = Buffer.allocUnsafeSlow(lengths.reduce((a, b) => a + b, 0));
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { fresh: joined, lengths, transfer: [joined.buffer as ArrayBuffer] };
}

export class DigestThread {
  #worker: Worker | undefined;
  #failed = false;
  #online = false;
  #calls = 0;
  #hashers = 0;
  readonly #pending = new Map<number, { resolve(hex: string[]): void; reject(error: Error): void }>();
  readonly #forget = new FinalizationRegistry<number>((hasher) => {
    this.#worker?.postMessage({ op: "forget", hasher });
  });

  /** Starts the thread now, idle and unreferenced, so that a later digest does not wait for it to boot. */
  warm(): void {
    this.#start();
  }

  /** Whether hashing can go to the thread (false after it failed once). */
  get available(): boolean {
    return !this.#failed;
  }

  /** Whether the thread is up: hashing sent to it now does not wait for it to boot. */
  get running(): boolean {
    return this.#online && !this.#failed;
  }

  /** A new hasher in the thread for `algorithms`; forgotten there once the handle is collected. */
  hasher(algorithms: readonly DigestAlgorithm[]): RemoteHasher {
    const id = ++this.#hashers;
    /** Chunks the thread holds for this hasher (those of its last document), by key. */
    const held = new Map<string, number>();
    let chunkIds = 0;
    const handle: RemoteHasher = {
      hash: (from, chunks, tail) => {
        const { fresh, lengths, transfer } = pack(chunks);
        return this.#call({ op: "hash", hasher: id, algorithms, from, fresh, lengths, tail }, transfer);
      },
      hashKeyed: (from, chunks, documentKeys, tail) => {
        // Only chunks the thread has not seen are sent; the others are named by number.
        const refs = new Int32Array(chunks.length);
        const news: Uint8Array[] = [];
        const newIds: number[] = [];
        chunks.forEach((chunk, i) => {
          let ref = held.get(chunk.key);
          if (ref === undefined) {
            ref = ++chunkIds;
            held.set(chunk.key, ref);
            news.push(chunk.bytes);
            newIds.push(ref);
          }
          refs[i] = ref;
        });
        // The thread keeps the chunks of this document only (a later one resumes within it).
        const kept = new Set(documentKeys);
        const dropped: number[] = [];
        for (const [key, ref] of held)
          if (!kept.has(key)) {
            held.delete(key);
            dropped.push(ref);
          }
        const { fresh, lengths, transfer } = pack(news);
        return this.#call(
          { op: "hash", hasher: id, algorithms, from, fresh, lengths, newIds, refs, dropped, tail },
          transfer,
        ).catch((error: unknown) => {
          // The thread's chunks may not match ours any more: nothing is taken as held.
          held.clear();
          throw error;
        });
      },
    };
    this.#forget.register(handle, id);
    return handle;
  }

  #call(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<string[]> {
    const worker = this.#start();
    if (!worker) return Promise.reject(new Error("the digest thread is not available"));
    const call = ++this.#calls;
    return new Promise((resolve, reject) => {
      this.#pending.set(call, { resolve, reject });
      // Referenced while a digest is awaited, so the process waits for it.
      worker.ref();
      worker.postMessage({ ...message, call }, transfer);
    });
  }

  #start(): Worker | undefined {
    if (this.#worker || this.#failed) return this.#worker;
    try {
      // None of the server's flags: some (--input-type) stop a worker from starting.
      const worker = new Worker(new URL("./digest-thread-worker.ts", import.meta.url), { execArgv: [] });
      worker.on("message", (reply: Reply) => {
        const pending = this.#pending.get(reply.call);
        if (!pending) return;
        this.#pending.delete(reply.call);
        if (this.#pending.size === 0) worker.unref();
        if (reply.hex) pending.resolve(reply.hex);
        else pending.reject(new Error(reply.error ?? "digest thread: no answer"));
      });
      const fail = (error: unknown) => {
        this.#failed = true;
        this.#worker = undefined;
        for (const pending of this.#pending.values())
          pending.reject(new Error(`digest thread: ${String(error)}`));
        this.#pending.clear();
      };
      worker.once("online", () => {
        this.#online = true;
      });
      worker.on("error", fail);
      worker.on("exit", (code) => fail(`exited with ${code}`));
      // Idle, never what keeps the process running (after the listeners: a "message" listener
      // refs it).
      worker.unref();
      this.#worker = worker;
    } catch {
      this.#failed = true;
    }
    return this.#worker;
  }

  /** Stops the thread (server shutdown). */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#failed = true;
    this.#worker = undefined;
    await worker?.terminate();
  }
}
