// Checks a downloaded file against what its index says while it streams: the size (too many
// bytes fail at once) and the digests (at the end). The last chunk is held back until the end
// is verified, so whoever reads the stream never sees the whole of a file that does not match:
// the stream ends with ImportError("CHECKSUM_MISMATCH", …, filename) in its place.
import { createHash, type Hash } from "node:crypto";
import { ImportError } from "./source.ts";

export interface ExpectedDigest {
  /** A node:crypto hash name (sha256, sha512, sha1, …) or repodata's "sha" (sha1). */
  algorithm: string;
  /** Lowercase hex. */
  hex: string;
}

export interface Expected {
  size?: number;
  digests: readonly ExpectedDigest[];
}

function hashName(algorithm: string): string {
  const lower = algorithm.toLowerCase();
  return lower === "sha" ? "sha1" : lower;
}

/** The checksum name as it is shown: "sha256", "sha1". */
function label(algorithm: string): string {
  return hashName(algorithm);
}

/** A TransformStream that passes the bytes through and errors with CHECKSUM_MISMATCH. */
export function verifyingTransform(
  expected: Expected,
  subject: string,
): TransformStream<Uint8Array, Uint8Array> {
  const hashes: Array<{ expected: ExpectedDigest; hash: Hash }> = expected.digests.map((digest) => ({
    expected: digest,
    hash: createHash(hashName(digest.algorithm)),
  }));
  let total = 0;
  let held: Uint8Array | undefined;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      total += chunk.length;
      if (expected.size !== undefined && total > expected.size) {
        throw new ImportError(
          "CHECKSUM_MISMATCH",
          `${subject}: expected ${expected.size} bytes, got more than that`,
          subject,
        );
      }
      for (const { hash } of hashes) hash.update(chunk);
      if (held) controller.enqueue(held);
      held = chunk;
    },
    flush(controller) {
      if (expected.size !== undefined && total !== expected.size) {
        throw new ImportError(
          "CHECKSUM_MISMATCH",
          `${subject}: expected ${expected.size} bytes, got ${total}`,
          subject,
        );
      }
      for (const { expected: digest, hash } of hashes) {
        const actual = hash.digest("hex");
        // The digest of what came is not told: it would tell anyone the digest of any answer.
        if (actual !== digest.hex.toLowerCase()) {
          throw new ImportError(
            "CHECKSUM_MISMATCH",
            `${subject}: expected ${label(digest.algorithm)} ${digest.hex.toLowerCase()}; the bytes do not match the checksum the index gives`,
            subject,
          );
        }
      }
      if (held) controller.enqueue(held);
    },
  });
}

export function verifiedStream(
  body: ReadableStream<Uint8Array>,
  expected: Expected,
  subject: string,
): ReadableStream<Uint8Array> {
  return body.pipeThrough(verifyingTransform(expected, subject));
}
