// Signs an .rpm the way rpmsign 4.18 does: a detached OpenPGP signature over the main header, in a new signature header.
import { createHash } from "node:crypto";
import * as openpgp from "openpgp";
import { concat } from "./byte-source.ts";
import { parseRpmFile, type RpmFile, signaturePadding } from "./rpm-file.ts";
import { RpmFormatError } from "./rpm-format-error.ts";
import { MAX_SIGNATURE_ENTRIES } from "./rpm-header.ts";
import { binaryEntry, encodeRpmHeader, type NewHeaderEntry, stringEntry } from "./rpm-header-writer.ts";
import { LEAD_SIZE } from "./rpm-lead.ts";
import { REGION_SIGNATURES, SigTag } from "./rpm-tags.ts";

/** rpm 6 keeps extra OpenPGP signatures (base64) here; they are signatures by other keys too. */
const SIGTAG_OPENPGP = 278;
/** Signatures we replace: header-only (267, 268), legacy header+payload (1002, 1005), rpm 6's list (278). */
const DROPPED_TAGS = new Set<number>([
  SigTag.DSA,
  SigTag.RSA,
  SigTag.PGP,
  SigTag.GPG,
  SIGTAG_OPENPGP,
  SigTag.SHA1,
  SigTag.SHA256,
  SigTag.RESERVEDSPACE,
]);

/** The key cannot make signatures rpm 4.x verifies: a configuration problem, not bad input. */
export class RpmSigningError extends Error {
  override readonly name = "RpmSigningError";
  readonly code = "RPM_UNSUPPORTED_KEY";
}

/**
 * rpmsign's choice of tag per OpenPGP algorithm: RSA has its own, DSA and EdDSA share 267.
 * Only algorithms rpm 4.18 verifies: ECDSA and RFC 9580 Ed25519 keys fail to import there.
 */
const SIGNATURE_TAGS = new Map<number, number>([
  [openpgp.enums.publicKey.rsaEncryptSign, SigTag.RSA],
  [openpgp.enums.publicKey.rsaSign, SigTag.RSA],
  [openpgp.enums.publicKey.dsa, SigTag.DSA],
  [openpgp.enums.publicKey.eddsaLegacy, SigTag.DSA],
]);

export interface SignRpmOptions {
  /** A decrypted v4 private key: RSA (3072+), or legacy EdDSA (openpgp type "ecc"). */
  signingKey: openpgp.PrivateKey;
  /** Signature creation time; defaults to now. */
  date?: Date;
}

export interface SignRpmResult {
  /** The new lead, signature header and padding. Follow them with the original file from `originalHeaderStart`. */
  leadAndSignature: Uint8Array;
  /** Where the main header starts in the original file: the part to stream unchanged begins here. */
  originalHeaderStart: number;
  /** Where the main header starts in the signed file (header-range start). */
  headerStart: number;
  /** Where the payload starts in the signed file (header-range end). */
  headerEnd: number;
  /**
   * Signed size minus original size. 0 whenever the package has enough reserved space (rpmbuild
   * leaves 4 KiB); otherwise the main header and payload move and header-range changes with them.
   */
  sizeDelta: number;
  /** 268 for RSA, 267 for DSA and EdDSA, as rpmsign chooses. */
  signatureTag: number;
}

/**
 * `input` is the whole file or just its start (lead and both headers), or an already parsed file.
 * The main header and payload are never touched, so their digests (MD5 1004, payload digest)
 * stay valid; the header digests 269 and 273 are recomputed and must match the old ones.
 */
export async function signRpm(input: Uint8Array | RpmFile, options: SignRpmOptions): Promise<SignRpmResult> {
  const file = input instanceof Uint8Array ? parseRpmFile(input) : input;
  const headerBytes = file.header.bytes;
  const sha1 = createHash("sha1").update(headerBytes).digest("hex");
  const sha256 = createHash("sha256").update(headerBytes).digest("hex");
  // Re-signing a header whose digests no longer match would bless whatever changed it.
  const checkDigest = (tag: number, expected: string, label: string) => {
    const stored = file.signature.has(tag) ? file.signature.getString(tag) : undefined;
    if (stored !== undefined && stored.toLowerCase() !== expected) {
      throw new RpmFormatError(
        "RPM_DIGEST_MISMATCH",
        `${label} header digest does not match the header`,
        "signature",
      );
    }
  };
  checkDigest(SigTag.SHA1, sha1, "SHA1");
  checkDigest(SigTag.SHA256, sha256, "SHA256");

  const signature = await createHeaderSignature(headerBytes, options);
  const signatureTag = signature.signatureTag;

  const kept: NewHeaderEntry[] = file.signature.entries
    .filter((entry) => entry.tag !== file.signature.regionTag && !DROPPED_TAGS.has(entry.tag))
    .map((entry) => ({
      tag: entry.tag,
      type: entry.type,
      count: entry.count,
      data: file.signature.rawData(entry),
    }));
  const entries = [
    ...kept,
    stringEntry(SigTag.SHA1, sha1),
    stringEntry(SigTag.SHA256, sha256),
    binaryEntry(signatureTag, signature.bytes),
  ];

  if (entries.length + 1 > MAX_SIGNATURE_ENTRIES) {
    throw new RpmFormatError("RPM_TOO_LARGE", "no room for another signature header entry", "signature");
  }
  const originalSize = file.headerStart - LEAD_SIZE;
  const reserved = file.signature.entry(SigTag.RESERVEDSPACE);
  const signatureHeader = reserved
    ? fitReservedSpace(entries, reserved.count, originalSize)
    : encodeRpmHeader(REGION_SIGNATURES, entries);
  const padded = signatureHeader.length + signaturePadding(signatureHeader.length);
  const leadAndSignature = new Uint8Array(LEAD_SIZE + padded);
  leadAndSignature.set(file.prefix.subarray(0, LEAD_SIZE), 0);
  leadAndSignature.set(signatureHeader, LEAD_SIZE);
  const headerStart = leadAndSignature.length;
  return {
    leadAndSignature,
    originalHeaderStart: file.headerStart,
    headerStart,
    headerEnd: headerStart + headerBytes.length,
    sizeDelta: headerStart - file.headerStart,
    signatureTag,
  };
}

/** Convenience for whole files in memory: the signed file's bytes. */
export async function signRpmBytes(bytes: Uint8Array, options: SignRpmOptions): Promise<Uint8Array> {
  const result = await signRpm(bytes, options);
  return concat([result.leadAndSignature, bytes.subarray(result.originalHeaderStart)]);
}

/**
 * Shrinks RESERVEDSPACE (1008) by what the new entries add so the padded signature header keeps
 * its size, as rpmsign does; when the space is too small, keeps it whole and lets the header grow.
 */
function fitReservedSpace(entries: NewHeaderEntry[], reservedCount: number, targetSize: number): Uint8Array {
  const encode = (count: number) =>
    encodeRpmHeader(REGION_SIGNATURES, [
      ...entries,
      binaryEntry(SigTag.RESERVEDSPACE, new Uint8Array(count)),
    ]);
  const paddedSize = (header: Uint8Array) => header.length + signaturePadding(header.length);
  const atOldSize = encode(reservedCount);
  // Reserved space is byte-aligned, so the size moves one for one with its count; alignment of
  // entries after it (unusual tags above 1008) could shift that by a few bytes, hence the scan.
  const guess = reservedCount - (atOldSize.length - targetSize);
  for (let delta = 0; delta <= 8; delta++) {
    for (const count of delta === 0 ? [guess] : [guess - delta, guess + delta]) {
      if (count < 1) continue;
      const header = encode(count);
      if (paddedSize(header) === targetSize) return header;
    }
  }
  return atOldSize;
}

async function createHeaderSignature(headerBytes: Uint8Array, options: SignRpmOptions) {
  const bytes = (await openpgp.sign({
    message: await openpgp.createMessage({ binary: headerBytes }),
    signingKeys: options.signingKey,
    detached: true,
    format: "binary",
    date: options.date,
  })) as Uint8Array;
  const parsed = await openpgp.readSignature({ binarySignature: bytes });
  const packet = parsed.packets[0];
  if (!packet) throw new Error("openpgp produced no signature packet");
  // rpm 4.x parses only v4 signatures; a v6 key would give packages no rpm can verify.
  if (packet.version !== 4) {
    throw new RpmSigningError(`rpm needs a v4 OpenPGP signature, the key made a v${packet.version} one`);
  }
  const algorithm = packet.publicKeyAlgorithm as number;
  const signatureTag = SIGNATURE_TAGS.get(algorithm);
  // A package signed with anything else installs nowhere that matters (EL8, EL9, Debian 12):
  // better to fail at signing time than at the customer's `dnf install`.
  if (signatureTag === undefined) {
    throw new RpmSigningError(
      `rpm 4.x cannot verify ${openpgp.enums.read(openpgp.enums.publicKey, algorithm)} signatures: use RSA (3072+) or legacy EdDSA (openpgp type "ecc")`,
    );
  }
  return { bytes, signatureTag };
}
