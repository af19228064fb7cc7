// The digests of a blob, computed while its bytes stream past. sha256 names every blob and is
// always computed; sha512, sha1 and md5 only when asked for (an APT Packages stanza lists md5,
// sha1 and sha256, nothing else needs more than sha256 while an upload is received — decisions
// 036 and 047).
import { createHash, type Hash } from "node:crypto";

export type ExtraDigest = "sha512" | "sha1" | "md5";
export const ALL_EXTRA_DIGESTS: readonly ExtraDigest[] = ["sha512", "sha1", "md5"];

export interface HexDigests {
  sha256: string;
  /** "" when not asked for. */
  sha512: string;
  /** "" when not asked for. */
  sha1: string;
  /** "" when not asked for. */
  md5: string;
}

export interface Digester {
  update(chunk: Uint8Array): void;
  digest(): Promise<HexDigests>;
  /** Gives up (the body failed): nothing more is hashed. */
  abort(): void;
}

/**
 * Hashes on the calling thread. With `extraUpTo`, the extra digests are given up (left "") as
 * soon as the body turns out longer than that, except those in `keep`: only sha256 (and the
 * kept ones) are computed for the rest of it.
 */
export function createDigester(
  extra: readonly ExtraDigest[],
  options: { extraUpTo?: number; keep?: readonly ExtraDigest[] } = {},
): Digester {
  let hashes: [keyof HexDigests, Hash][] = [
    ["sha256", createHash("sha256")],
    ...extra.map((name): [ExtraDigest, Hash] => [name, createHash(name)]),
  ];
  const limit = options.extraUpTo ?? Number.POSITIVE_INFINITY;
  const kept = new Set<keyof HexDigests>(["sha256", ...(options.keep ?? [])]);
  let given = false;
  let size = 0;
  return {
    update(chunk) {
      size += chunk.byteLength;
      if (size > limit && !given) {
        given = true;
        hashes = hashes.filter(([name]) => kept.has(name));
      }
      for (const [, hash] of hashes) hash.update(chunk);
    },
    async digest() {
      const hex: HexDigests = { sha256: "", sha512: "", sha1: "", md5: "" };
      for (const [name, hash] of hashes) hex[name] = hash.digest("hex");
      return hex;
    },
    abort() {},
  };
}

/**
 * Frees a chunk's memory now: detaches its ArrayBuffer (transfer to length 0) when the chunk is
 * the whole of it, so no other view can see the difference. Memory a read gave each chunk is
 * otherwise freed only at V8's next full collection, started after every ~64 MB of it: RSS
 * would carry that much garbage and the collections cost more CPU than hashing (decision 036).
 * Only for chunks nobody else holds once read.
 */
export function releaseChunk(chunk: Uint8Array): void {
  const buffer = chunk.buffer;
  if (
    buffer instanceof ArrayBuffer &&
    chunk.byteOffset === 0 &&
    chunk.byteLength === buffer.byteLength &&
    !buffer.detached
  )
    buffer.transfer(0);
}

/**
 * The digests of a whole stream (a stored blob whose other digests are filled in later); with
 * `releaseChunks`, each chunk is freed once hashed (see releaseChunk).
 */
export async function digestStream(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  extra: readonly ExtraDigest[] = ALL_EXTRA_DIGESTS,
  options: { releaseChunks?: boolean } = {},
): Promise<HexDigests & { size: number }> {
  const digester = createDigester(extra);
  let size = 0;
  for await (const chunk of source) {
    size += chunk.byteLength;
    digester.update(chunk);
    if (options.releaseChunks) releaseChunk(chunk);
  }
  return { ...(await digester.digest()), size };
}
