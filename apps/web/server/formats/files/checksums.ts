// A release's SHA256SUMS and SHA256SUMS.asc: the list of its files' sha256 (as sha256sum -c
// reads it) and an ASCII-armored detached OpenPGP signature of that list by the project's
// signing keys — made when asked for, by the keys that sign now (both during a rotation's
// overlap), so a release published before a rotation verifies with the key published after it.
import { createHash } from "node:crypto";
import { signDetachedArmored } from "@packyard/formats/openpgp/index.ts";
import type { SigningKeyService } from "../../signing-keys/keys.ts";

export function renderSha256Sums(files: readonly { sha256: string; filename: string }[]): string {
  return files.map((f) => `${f.sha256}  ${f.filename}\n`).join("");
}

/** The strong ETag of SHA256SUMS: the hash of the list. */
export function sha256SumsEtag(text: string): string {
  return `"${createHash("sha256").update(text).digest("hex")}"`;
}

export interface SignedChecksums {
  armored: string;
  /**
   * Names the list and the keys (and the signature time): equal ETags mean signatures equally
   * valid, not equal bytes (OpenPGP signatures carry a random salt), so it is sent as weak.
   */
  etag: string;
}

/** Recent signatures by ETag, so that repeated requests get the same bytes (and cost nothing). */
const signatures = new Map<string, Promise<string>>();
const KEEP_SIGNATURES = 512;

/**
 * SHA256SUMS.asc for `text`. The signature's time is the newest of the files' upload times and
 * the signing keys' creation times: stable between requests, never before a key existed.
 */
export async function signSha256Sums(
  keys: SigningKeyService,
  project: { id: string; name: string },
  text: string,
  files: readonly { created_at: string | Date }[],
): Promise<SignedChecksums> {
  const { rows, signers } = await keys.active(project);
  const times = [...files, ...rows].map((row) => new Date(row.created_at).getTime());
  // In whole seconds, as OpenPGP keeps times: a key's own time is its creation, floored, which
  // is never after its row's created_at.
  const date = new Date(Math.floor(Math.max(...times) / 1000) * 1000);
  const tag = createHash("sha256")
    .update(`${text}\u0000${rows.map((r) => r.fingerprint).join(",")}\u0000${date.toISOString()}`)
    .digest("hex");
  let signature = signatures.get(tag);
  if (!signature) {
    signature = signDetachedArmored(text, signers, { date });
    signatures.set(tag, signature);
    signature.catch(() => signatures.delete(tag));
    if (signatures.size > KEEP_SIGNATURES) signatures.delete(signatures.keys().next().value!);
  }
  return { armored: await signature, etag: `"${tag}"` };
}
