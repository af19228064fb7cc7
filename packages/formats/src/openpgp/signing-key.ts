// Creates and loads repository signing keys (OpenPGP v4, RSA-3072 or Ed25519) with openpgp.js.
import * as openpgp from "openpgp";
import { OpenPgpError } from "./openpgp-error.ts";
import { decryptPrivateKey, type EnvelopeOptions } from "./private-key-envelope.ts";

export type SigningKeyAlgorithm = "rsa3072" | "ed25519";

export interface GeneratedSigningKey {
  armoredPublicKey: string;
  /** Transferable public key packets: write it as keyring.gpg, or concatenate several. */
  binaryPublicKey: Uint8Array;
  /** Unprotected: encrypt it (encryptPrivateKey) before it is stored anywhere. */
  armoredPrivateKey: string;
  /** 40 uppercase hex digits. */
  fingerprint: string;
  /** The long key ID, 16 uppercase hex digits. */
  keyId: string;
  algorithm: SigningKeyAlgorithm;
  createdAt: Date;
}

/** An unlocked private key, parsed once and reused for every signature (decryption is not free). */
export interface SigningKey {
  readonly privateKey: openpgp.PrivateKey;
  readonly fingerprint: string;
  readonly keyId: string;
  readonly algorithm: SigningKeyAlgorithm;
}

export interface SigningKeyIdentity {
  name: string;
  email: string;
  algorithm: SigningKeyAlgorithm;
  /** Creation time; now by default. Tests pin it. */
  date?: Date;
  /** When the key expires (its self-signature's key expiration time); never by default. */
  expiresAt?: Date;
}

function algorithmOf(key: openpgp.Key): SigningKeyAlgorithm {
  if (key.keyPacket.version !== 4) {
    throw new OpenPgpError(
      "OPENPGP_UNSUPPORTED_ALGORITHM",
      `v${key.keyPacket.version} keys are not readable by apt's gpgv or rpm 4.x; use a v4 key`,
    );
  }
  const info = key.getAlgorithmInfo();
  if (info.algorithm === "rsaEncryptSign" || info.algorithm === "rsaSign") {
    // apt 3 (sqv) will refuse RSA below 3072 bits; not worth accepting for a new repository.
    if ((info.bits ?? 0) >= 3072) return "rsa3072";
  } else if (info.algorithm === "eddsaLegacy") {
    // Only the legacy EdDSA encoding: the RFC 9580 Ed25519 algorithm id is unknown to gnupg 2.2.
    return "ed25519";
  }
  const size = info.bits ?? info.curve ?? "";
  throw new OpenPgpError(
    "OPENPGP_UNSUPPORTED_ALGORITHM",
    `signing keys must be RSA (3072 bits or more) or Ed25519, not ${info.algorithm} ${size}`.trim(),
  );
}

export function describeKey(key: openpgp.Key): { fingerprint: string; keyId: string; createdAt: Date } {
  return {
    fingerprint: key.getFingerprint().toUpperCase(),
    keyId: key.getKeyID().toHex().toUpperCase(),
    createdAt: key.getCreationTime(),
  };
}

/**
 * openpgp.js marks the key-expiration subpacket of a self-signature critical; rpm 4.18's parser
 * refuses a key with a critical subpacket it does not handle there ("key 1 import failed"), so
 * dnf could not import an expiring key. gpg writes it non-critical, and so do we: the bit is
 * cleared as the hashed subpackets are written, before they are signed.
 */
const KEY_EXPIRATION_TIME = 9; // RFC 4880 5.2.3.6, signature subpacket type 9

function nonCriticalKeyExpiration(): void {
  const proto = openpgp.SignaturePacket.prototype as unknown as {
    writeHashedSubPackets(): Uint8Array;
    __packyardKeyExpiration?: true;
  };
  if (proto.__packyardKeyExpiration) return;
  const original = proto.writeHashedSubPackets;
  proto.writeHashedSubPackets = function (this: openpgp.SignaturePacket) {
    const bytes = original.call(this);
    // v4: a two-octet length, then subpackets: a length (1, 2 or 5 octets), a type, the data.
    if ((this as unknown as { version: number }).version !== 4) return bytes;
    for (let at = 2; at < bytes.length; ) {
      const first = bytes[at]!;
      let length: number;
      let header: number;
      if (first < 192) [length, header] = [first, 1];
      else if (first < 255) [length, header] = [((first - 192) << 8) + bytes[at + 1]! + 192, 2];
      else [length, header] = [new DataView(bytes.buffer, bytes.byteOffset + at + 1, 4).getUint32(0), 5];
      const type = at + header;
      if (bytes[type] === (0x80 | KEY_EXPIRATION_TIME)) bytes[type] = KEY_EXPIRATION_TIME;
      at = type + length;
    }
    return bytes;
  };
  proto.__packyardKeyExpiration = true;
}

export async function generateSigningKey(identity: SigningKeyIdentity): Promise<GeneratedSigningKey> {
  const created = identity.date ?? new Date();
  const lifetimeSeconds =
    identity.expiresAt === undefined
      ? 0
      : Math.floor((identity.expiresAt.getTime() - created.getTime()) / 1000);
  if (identity.expiresAt !== undefined && lifetimeSeconds <= 0)
    throw new OpenPgpError("OPENPGP_BAD_KEY", "a key must expire after it is created");
  if (identity.expiresAt !== undefined) nonCriticalKeyExpiration();
  const common = {
    userIDs: [{ name: identity.name, email: identity.email }],
    // A signing-only primary key: repositories never receive encrypted mail.
    subkeys: [],
    date: created,
    // 0: never expires (openpgp.js's default).
    keyExpirationTime: lifetimeSeconds,
    format: "object" as const,
  };
  // "ed25519Legacy" is the v4 EdDSA key every gpg/apt/rpm understands; openpgp's "curve25519"
  // type would make an RFC 9580 key that gnupg 2.2 and rpm 4.18 cannot read.
  const { privateKey, publicKey } =
    identity.algorithm === "rsa3072"
      ? await openpgp.generateKey({ ...common, type: "rsa", rsaBits: 3072 })
      : await openpgp.generateKey({ ...common, type: "ecc", curve: "ed25519Legacy" });
  return {
    armoredPublicKey: publicKey.armor(),
    binaryPublicKey: publicKey.write(),
    armoredPrivateKey: privateKey.armor(),
    ...describeKey(publicKey),
    algorithm: identity.algorithm,
  };
}

/** Parses an unprotected armored private key (as decryptPrivateKey returns it) for signing. */
export async function loadSigningKey(armoredPrivateKey: string): Promise<SigningKey> {
  let privateKey: openpgp.PrivateKey;
  try {
    const key = await openpgp.readKey({ armoredKey: armoredPrivateKey });
    if (!key.isPrivate())
      throw new OpenPgpError("OPENPGP_NOT_A_PRIVATE_KEY", "expected a private key, got a public key");
    privateKey = key;
  } catch (error) {
    if (error instanceof OpenPgpError) throw error;
    throw new OpenPgpError("OPENPGP_BAD_KEY", "could not read the private key", { cause: error });
  }
  if (!privateKey.isDecrypted()) {
    throw new OpenPgpError(
      "OPENPGP_KEY_LOCKED",
      "the private key is passphrase-protected; store it unprotected inside an envelope",
    );
  }
  const algorithm = algorithmOf(privateKey);
  const { fingerprint, keyId } = describeKey(privateKey);
  return { privateKey, fingerprint, keyId, algorithm };
}

/** Decrypts a stored envelope and parses the key: do it once, then keep the SigningKey around. */
export async function unlockSigningKey(
  envelope: string,
  serverSecret: string | Uint8Array,
  options: EnvelopeOptions = {},
): Promise<SigningKey> {
  return loadSigningKey(decryptPrivateKey(envelope, serverSecret, options));
}
