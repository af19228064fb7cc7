// Encrypts a private key for storage at rest with a key derived from the server secret.
//
// AES-256-GCM (node:crypto) with a key from HKDF-SHA256(secret, random salt) rather than openpgp's
// own passphrase protection, because: GCM authenticates, so a wrong secret or a modified row fails
// cleanly instead of yielding garbage (v4 key protection is CFB with a SHA-1 checksum, and its AEAD
// variant is unreadable by gnupg 2.2); the context (e.g. repository id) is bound as associated
// data, so one repository's key cannot be swapped into another's row; and the deliberately slow
// S2K of passphrase protection buys nothing when the secret is already high-entropy, which is also
// why a short secret is refused instead of being stretched.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { OpenPgpError } from "./openpgp-error.ts";

const version = "pky-key-v1";
const minimumSecretBytes = 32;
const hkdfInfo = new TextEncoder().encode("packyard openpgp private key v1");

export interface EnvelopeOptions {
  /** Bound to the ciphertext: decrypting with a different context fails. */
  context?: string;
}

function secretBytes(secret: string | Uint8Array): Uint8Array {
  const bytes = typeof secret === "string" ? new TextEncoder().encode(secret) : secret;
  if (bytes.length < minimumSecretBytes) {
    throw new OpenPgpError(
      "OPENPGP_WEAK_SECRET",
      `the server secret must be at least ${minimumSecretBytes} bytes`,
    );
  }
  return bytes;
}

function deriveKey(secret: Uint8Array, salt: Uint8Array): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, salt, hkdfInfo, 32));
}

function associatedData(options: EnvelopeOptions): Buffer {
  return Buffer.from(`${version}\0${options.context ?? ""}`);
}

/** Returns "pky-key-v1.<salt>.<iv>.<ciphertext>.<tag>", base64url parts, safe for a text column. */
export function encryptPrivateKey(
  armoredPrivateKey: string,
  serverSecret: string | Uint8Array,
  options: EnvelopeOptions = {},
): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(secretBytes(serverSecret), salt), iv);
  cipher.setAAD(associatedData(options));
  const ciphertext = Buffer.concat([cipher.update(armoredPrivateKey, "utf8"), cipher.final()]);
  return [version, salt, iv, ciphertext, cipher.getAuthTag()]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

export function decryptPrivateKey(
  envelope: string,
  serverSecret: string | Uint8Array,
  options: EnvelopeOptions = {},
): string {
  const secret = secretBytes(serverSecret);
  const parts = envelope.trim().split(".");
  const [prefix, salt, iv, ciphertext, tag] = parts.map((part, index) =>
    index === 0 ? Buffer.alloc(0) : Buffer.from(part, "base64url"),
  );
  if (parts.length !== 5 || parts[0] !== version || !prefix || !salt || !iv || !ciphertext || !tag) {
    throw new OpenPgpError("OPENPGP_BAD_ENVELOPE", `not a ${version} private key envelope`);
  }
  if (salt.length !== 16 || iv.length !== 12 || tag.length !== 16) {
    throw new OpenPgpError("OPENPGP_BAD_ENVELOPE", "private key envelope has malformed parts");
  }
  try {
    const decipher = createDecipheriv("aes-256-gcm", deriveKey(secret, salt), iv);
    decipher.setAAD(associatedData(options));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
  } catch (error) {
    throw new OpenPgpError(
      "OPENPGP_DECRYPT_FAILED",
      "could not decrypt the private key: wrong server secret, wrong context or a modified envelope",
      { cause: error },
    );
  }
}
