// Checks an .rpm's payload against the digest its headers carry, while the payload streams past
// (nothing is buffered): rpm 4.14+ records the compressed payload's digest in the main header
// (RPMTAG_PAYLOADDIGEST, by PAYLOADDIGESTALGO); older packages only have the MD5 signature over
// main header and payload. A package whose payload was changed after it was built fails
// `rpmkeys -K` everywhere, so it is refused before it is signed and stored.
import { createHash, type Hash } from "node:crypto";
import type { RpmFile } from "./rpm-file.ts";
import { RpmFormatError } from "./rpm-format-error.ts";
import { SigTag, Tag } from "./rpm-tags.ts";

/** OpenPGP hash algorithm numbers (RFC 4880 §9.4), as PAYLOADDIGESTALGO holds them. */
const HASH_ALGORITHMS = new Map<number, string>([
  [1, "md5"],
  [2, "sha1"],
  [8, "sha256"],
  [9, "sha384"],
  [10, "sha512"],
  [11, "sha224"],
]);
/** rpm's default when PAYLOADDIGESTALGO is absent. */
const SHA256 = 8;

interface ExpectedDigest {
  hash: Hash;
  expected: string;
  label: string;
}

/** What the payload is checked against: its digest, else the legacy MD5; null when neither. */
function expectedDigest(file: RpmFile): ExpectedDigest | null {
  const digest = file.header.getStrings(Tag.PAYLOADDIGEST)?.[0];
  if (digest !== undefined) {
    const algorithm = file.header.getNumber(Tag.PAYLOADDIGESTALGO) ?? SHA256;
    const name = HASH_ALGORITHMS.get(algorithm);
    if (!name)
      throw new RpmFormatError(
        "RPM_UNSUPPORTED",
        `payload digest algorithm ${algorithm} is unknown`,
        "header",
      );
    return {
      hash: createHash(name),
      expected: digest.toLowerCase(),
      label: `${name.toUpperCase()} payload digest`,
    };
  }
  const md5 = file.signature.getBinary(SigTag.MD5);
  if (md5 !== undefined) {
    // The legacy digest covers the main header too.
    const hash = createHash("md5").update(file.header.bytes);
    return { hash, expected: Buffer.from(md5).toString("hex"), label: "MD5 digest of header and payload" };
  }
  return null;
}

/**
 * The payload (the file's bytes after the main header), passed through chunk by chunk; after
 * the last chunk, throws RPM_PAYLOAD_DIGEST_MISMATCH when it does not match the package's digest.
 */
export async function* checkPayloadDigest(
  file: RpmFile,
  payload: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  const digest = expectedDigest(file);
  for await (const chunk of payload) {
    digest?.hash.update(chunk);
    yield chunk;
  }
  if (digest && digest.hash.digest("hex") !== digest.expected)
    throw new RpmFormatError(
      "RPM_PAYLOAD_DIGEST_MISMATCH",
      `the ${digest.label} does not match the payload: the file was changed after it was built`,
      "payload",
    );
}
