// Signs repository metadata: InRelease (cleartext), Release.gpg and repomd.xml.asc (armored
// detached) and RPM headers (binary detached), always with SHA-256 or stronger.
import * as openpgp from "openpgp";
import { OpenPgpError } from "./openpgp-error.ts";
import type { SigningKey } from "./signing-key.ts";

export interface SignOptions {
  /** Signature creation time; now by default. */
  date?: Date;
}

// apt 3's sqv refuses SHA-1 signatures; SHA-512 is what gpg picks for modern keys too.
const config = { preferredHashAlgorithm: openpgp.enums.hash.sha512 };
const acceptedHashes = new Set<number>([
  openpgp.enums.hash.sha256,
  openpgp.enums.hash.sha384,
  openpgp.enums.hash.sha512,
  openpgp.enums.hash.sha3_256,
  openpgp.enums.hash.sha3_512,
]);

function privateKeysOf(keys: readonly SigningKey[]): openpgp.PrivateKey[] {
  if (keys.length === 0)
    throw new OpenPgpError("OPENPGP_NO_SIGNING_KEYS", "at least one signing key is required");
  return keys.map((key) => key.privateKey);
}

/** A key whose preferences only list weak hashes could otherwise sign with SHA-1. */
function assertStrongHashes(signature: openpgp.Signature): void {
  for (const packet of signature.packets) {
    if (packet.hashAlgorithm === null || !acceptedHashes.has(packet.hashAlgorithm)) {
      throw new OpenPgpError(
        "OPENPGP_WEAK_HASH",
        `refusing a signature made with hash algorithm ${packet.hashAlgorithm}`,
      );
    }
  }
}

async function signing<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof OpenPgpError) throw error;
    throw new OpenPgpError("OPENPGP_SIGN_FAILED", `could not create the ${what}`, { cause: error });
  }
}

/**
 * Returns InRelease content: `text` wrapped in a cleartext signature by every key (several keys
 * let clients holding either the old or the new key verify during a rotation).
 */
export async function signCleartext(
  text: string,
  keys: readonly SigningKey[],
  options: SignOptions = {},
): Promise<string> {
  const signingKeys = privateKeysOf(keys);
  return signing("cleartext signature", async () => {
    // The newline before "-----BEGIN PGP SIGNATURE-----" belongs to the armor, so the last line
    // break of `text` is left out, as gpg --clearsign does.
    const message = await openpgp.createCleartextMessage({ text: text.replace(/\r?\n$/, "") });
    const armored = await openpgp.sign({ message, signingKeys, date: options.date, config });
    const signatureStart = armored.indexOf("-----BEGIN PGP SIGNATURE-----");
    assertStrongHashes(await openpgp.readSignature({ armoredSignature: armored.slice(signatureStart) }));
    // openpgp.js writes the signed text with CRLF; the signature covers canonical CRLF text either
    // way, and apt and gpg expect the file itself with LF.
    return armored.replace(/\r\n/g, "\n");
  });
}

/** Release.gpg, repomd.xml.asc: an ASCII-armored detached signature over the exact bytes. */
export async function signDetachedArmored(
  data: string | Uint8Array,
  keys: readonly SigningKey[],
  options: SignOptions = {},
): Promise<string> {
  const signingKeys = privateKeysOf(keys);
  return signing("detached signature", async () => {
    const binary = typeof data === "string" ? new TextEncoder().encode(data) : data;
    const message = await openpgp.createMessage({ binary });
    const armored = await openpgp.sign({ message, signingKeys, detached: true, date: options.date, config });
    assertStrongHashes(await openpgp.readSignature({ armoredSignature: armored }));
    return armored;
  });
}

/** A binary detached signature by one key, as an RPM signature header stores it. */
export async function signDetachedBinary(
  data: Uint8Array,
  key: SigningKey,
  options: SignOptions = {},
): Promise<Uint8Array> {
  const signingKeys = privateKeysOf([key]);
  return signing("detached signature", async () => {
    const message = await openpgp.createMessage({ binary: data });
    const signature = await openpgp.sign({
      message,
      signingKeys,
      detached: true,
      format: "binary",
      date: options.date,
      config,
    });
    assertStrongHashes(await openpgp.readSignature({ binarySignature: signature }));
    return signature;
  });
}
