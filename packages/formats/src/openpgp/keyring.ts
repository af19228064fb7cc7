// Turns armored public keys into what clients install: a binary keyring (apt's signed-by *.gpg,
// several keys concatenated) or one armored block holding several keys (*.asc, rpm --import).
import * as openpgp from "openpgp";
import { OpenPgpError } from "./openpgp-error.ts";

async function readPublicKeys(armoredKeys: readonly string[]): Promise<openpgp.PublicKey[]> {
  const byFingerprint = new Map<string, openpgp.PublicKey>();
  for (const armored of armoredKeys) {
    let keys: openpgp.Key[];
    try {
      keys = await openpgp.readKeys({ armoredKeys: armored });
    } catch (error) {
      throw new OpenPgpError("OPENPGP_BAD_KEY", "could not read an armored public key", { cause: error });
    }
    // toPublic() so a private key passed by mistake never ends up in a published keyring.
    for (const key of keys) byFingerprint.set(key.getFingerprint(), key.toPublic());
  }
  return [...byFingerprint.values()];
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** One armored block (which may hold several keys) as binary packets. */
export async function dearmorPublicKeys(armored: string): Promise<Uint8Array> {
  return buildBinaryKeyring([armored]);
}

/** Concatenated transferable public keys, de-duplicated by fingerprint, in input order. */
export async function buildBinaryKeyring(armoredKeys: readonly string[]): Promise<Uint8Array> {
  return concat((await readPublicKeys(armoredKeys)).map((key) => key.write()));
}

export async function buildArmoredKeyring(armoredKeys: readonly string[]): Promise<string> {
  const binary = await buildBinaryKeyring(armoredKeys);
  // With the CRC-24 line: rpm 4.x refuses armored keys without it ("not an armored public key"),
  // and openpgp.js leaves it out unless asked.
  return openpgp.armor(openpgp.enums.armor.publicKey, binary, undefined, undefined, undefined, true);
}
