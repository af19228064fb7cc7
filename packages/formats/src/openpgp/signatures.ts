// Signs repository metadata: InRelease (cleartext), Release.gpg and repomd.xml.asc (armored
// detached) and RPM headers (binary detached), always with SHA-512.
//
// The signature packets are written here and the private-key operation is node:crypto's
// (OpenSSL, on libuv's thread pool), not openpgp.js's sign() (decision 046): for an InRelease
// and Release.gpg pair openpgp.js took 3.3 ms and 3.8 ms of CPU, mostly on the main thread
// (a key import per signature, streams, armor, re-reading its own output); this takes 1.3 ms
// and 1.9 ms, the RSA operations off the main thread, and re-signs RPM headers twice as fast.
// openpgp.js still reads, generates and unlocks the keys and picks the key that signs (primary
// or subkey, valid at the signing date). The packets are laid out as openpgp.js lays out its
// own (RFC 4880 v4; hashed: creation time, issuer key ID, a salt notation, issuer
// fingerprint), and gpgv, apt, dnf, rpm and openpgp.js verify them in the tests.
import {
  createHash,
  createPrivateKey,
  type JsonWebKeyInput,
  type KeyObject,
  randomBytes,
  sign,
} from "node:crypto";
import * as openpgp from "openpgp";
import { OpenPgpError } from "./openpgp-error.ts";
import type { SigningKey } from "./signing-key.ts";

export interface SignOptions {
  /** Signature creation time; now by default. */
  date?: Date;
}

/** apt 3's sqv refuses SHA-1 signatures; SHA-512 is what gpg picks for modern keys too. */
const SHA512 = 10;
/** Public-key algorithm ids: RSA (encrypt or sign), RSA sign-only, EdDSA (legacy, Ed25519). */
const RSA = 1;
const RSA_SIGN_ONLY = 3;
const EDDSA_LEGACY = 22;
const BINARY = 0x00;
const TEXT = 0x01;
/** openpgp.js salts every signature it makes with this notation; so do these. */
const SALT_NOTATION = new TextEncoder().encode("salt@notations.openpgpjs.org");

/** What signing needs of one key, derived once from its openpgp.js packet. */
interface PreparedKey {
  /** The key's algorithm id, written into the signature: RSA (either kind) or legacy EdDSA. */
  algorithm: number;
  keyObject: KeyObject;
  keyId: Uint8Array;
  fingerprint: Uint8Array;
}

const prepared = new WeakMap<object, PreparedKey>();

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const toBigInt = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`);
const fromBigInt = (value: bigint) => {
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex");
};

interface KeyPacket {
  algorithm: number;
  publicParams: Record<string, unknown>;
  privateParams?: Record<string, unknown> | null;
  getFingerprintBytes(): Uint8Array | null;
  getKeyID(): { write(): Uint8Array };
}

/** The node:crypto key for an openpgp.js secret key packet (RSA, or legacy EdDSA on Ed25519). */
function prepare(packet: KeyPacket): PreparedKey {
  const found = prepared.get(packet);
  if (found) return found;
  const priv = packet.privateParams as Record<string, Uint8Array> | null | undefined;
  const pub = packet.publicParams as Record<string, Uint8Array>;
  const fingerprint = packet.getFingerprintBytes();
  if (!priv || !fingerprint) throw new Error("the signing key is not unlocked");
  let jwk: JsonWebKeyInput["key"];
  if (packet.algorithm === RSA || packet.algorithm === RSA_SIGN_ONLY) {
    // OpenPGP keeps p < q and u = p⁻¹ mod q; a JWK's qi is q⁻¹ mod p, so the primes swap places.
    const [d, p, q] = [toBigInt(priv.d!), toBigInt(priv.p!), toBigInt(priv.q!)];
    jwk = {
      kty: "RSA",
      n: base64url(pub.n!),
      e: base64url(pub.e!),
      d: base64url(priv.d!),
      p: base64url(fromBigInt(q)),
      q: base64url(fromBigInt(p)),
      dp: base64url(fromBigInt(d % (q - 1n))),
      dq: base64url(fromBigInt(d % (p - 1n))),
      qi: base64url(priv.u!),
    };
  } else if (packet.algorithm === EDDSA_LEGACY) {
    // Q is 0x40 followed by the 32-byte public key; the secret is the 32-byte seed.
    jwk = { kty: "OKP", crv: "Ed25519", d: base64url(priv.seed!), x: base64url(pub.Q!.subarray(1)) };
  } else {
    throw new OpenPgpError(
      "OPENPGP_UNSUPPORTED_ALGORITHM",
      `cannot sign with key algorithm ${packet.algorithm}`,
    );
  }
  const made: PreparedKey = {
    algorithm: packet.algorithm,
    keyObject: createPrivateKey({ key: jwk, format: "jwk" }),
    keyId: packet.getKeyID().write(),
    fingerprint,
  };
  prepared.set(packet, made);
  return made;
}

const u16 = (n: number) => [(n >>> 8) & 0xff, n & 0xff];
const u32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

/** An MPI: its length in bits, then its bytes without leading zeros. */
function mpi(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const value = bytes.subarray(start);
  const bits = (value.length - 1) * 8 + (32 - Math.clz32(value[0]!));
  return Uint8Array.from([...u16(value[0] === 0 ? 0 : bits), ...value]);
}

/** A v4 signature subpacket (RFC 4880 5.2.3.1): one-octet length, type, body. */
const subpacket = (type: number, body: ArrayLike<number>) => [body.length + 1, type, ...Array.from(body)];

/** An OpenPGP packet with a new-format header (tag 2: signature). */
function packet(tag: number, body: Uint8Array): Uint8Array {
  const length =
    body.length < 192
      ? [body.length]
      : body.length < 8384
        ? [((body.length - 192) >> 8) + 192, (body.length - 192) & 0xff]
        : [0xff, ...u32(body.length)];
  const out = new Uint8Array(1 + length.length + body.length);
  out[0] = 0xc0 | tag;
  out.set(length, 1);
  out.set(body, 1 + length.length);
  return out;
}

/** node:crypto's sign() on libuv's thread pool: the main thread goes on meanwhile. */
const signAsync = (algorithm: string | null, data: Uint8Array, key: KeyObject) =>
  new Promise<Buffer>((resolve, reject) =>
    sign(algorithm, data, key, (error, signature) => (error ? reject(error) : resolve(signature))),
  );

/** One v4 signature packet over `data` (already canonical for a text signature). */
async function signaturePacket(
  data: Uint8Array,
  type: typeof BINARY | typeof TEXT,
  signingKey: SigningKey,
  date: Date,
): Promise<Uint8Array> {
  // The key openpgp.js would sign with at `date` (primary or subkey); it throws when none is valid.
  const chosen = await signingKey.privateKey.getSigningKey(undefined, date);
  const key = prepare(chosen.keyPacket as unknown as KeyPacket);
  const created = Math.floor(date.getTime() / 1000);
  const hashed = Uint8Array.from([
    // Creation time, critical, as openpgp.js marks it.
    ...subpacket(0x80 | 2, u32(created)),
    ...subpacket(16, key.keyId),
    ...subpacket(20, [
      0,
      0,
      0,
      0,
      ...u16(SALT_NOTATION.length),
      ...u16(32),
      ...SALT_NOTATION,
      ...randomBytes(32),
    ]),
    ...subpacket(33, [4, ...key.fingerprint]),
  ]);
  const head = Uint8Array.from([4, type, key.algorithm, SHA512, ...u16(hashed.length), ...hashed]);
  const trailer = Uint8Array.from([4, 0xff, ...u32(head.length)]);
  const signed = Buffer.concat([data, head, trailer]);
  const digest = createHash("sha512").update(signed).digest();
  let mpis: Uint8Array;
  if (key.algorithm !== EDDSA_LEGACY) {
    mpis = mpi(await signAsync("sha512", signed, key.keyObject));
  } else {
    // Legacy EdDSA signs the digest itself; r and s are two MPIs.
    const rs = await signAsync(null, digest, key.keyObject);
    mpis = Buffer.concat([mpi(rs.subarray(0, 32)), mpi(rs.subarray(32))]);
  }
  return packet(2, Buffer.concat([head, Uint8Array.from([0, 0, digest[0]!, digest[1]!]), mpis]));
}

async function signatures(
  what: string,
  data: Uint8Array,
  type: typeof BINARY | typeof TEXT,
  keys: readonly SigningKey[],
  options: SignOptions,
): Promise<Uint8Array> {
  if (keys.length === 0)
    throw new OpenPgpError("OPENPGP_NO_SIGNING_KEYS", "at least one signing key is required");
  const date = options.date ?? new Date();
  try {
    return Buffer.concat(await Promise.all(keys.map((key) => signaturePacket(data, type, key, date))));
  } catch (error) {
    if (error instanceof OpenPgpError) throw error;
    throw new OpenPgpError("OPENPGP_SIGN_FAILED", `could not create the ${what}`, { cause: error });
  }
}

/** ASCII armor of signature packets, with the CRC-24 line, as keyring.ts armors keys. */
const armorSignature = (bytes: Uint8Array): string =>
  openpgp.armor(openpgp.enums.armor.signature, bytes, undefined, undefined, undefined, true);

/**
 * Returns InRelease content: `text` wrapped in a cleartext signature by every key (several keys
 * let clients holding either the old or the new key verify during a rotation).
 */
export async function signCleartext(
  text: string,
  keys: readonly SigningKey[],
  options: SignOptions = {},
): Promise<string> {
  // The newline before "-----BEGIN PGP SIGNATURE-----" belongs to the armor, so the last line
  // break of `text` is left out, as gpg --clearsign does; trailing blanks are not signed.
  const lines = text
    .replace(/\r?\n$/, "")
    .split(/\r?\n/)
    .map((line) => line.replace(/[ \t]+$/, ""));
  // The signature covers the lines joined with CRLF; the file itself has LF, as apt expects.
  const canonical = new TextEncoder().encode(lines.join("\r\n"));
  const signed = await signatures("cleartext signature", canonical, TEXT, keys, options);
  const body = lines.map((line) => (line.startsWith("-") ? `- ${line}` : line)).join("\n");
  return `-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n${body}\n${armorSignature(signed)}`;
}

/** Release.gpg, repomd.xml.asc: an ASCII-armored detached signature over the exact bytes. */
export async function signDetachedArmored(
  data: string | Uint8Array,
  keys: readonly SigningKey[],
  options: SignOptions = {},
): Promise<string> {
  const binary = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return armorSignature(await signatures("detached signature", binary, BINARY, keys, options));
}

/** A binary detached signature by one key, as an RPM signature header stores it. */
export async function signDetachedBinary(
  data: Uint8Array,
  key: SigningKey,
  options: SignOptions = {},
): Promise<Uint8Array> {
  return signatures("detached signature", data, BINARY, [key], options);
}
