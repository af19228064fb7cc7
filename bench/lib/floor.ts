// The floor of a publish: the time to hash and sign the index bytes it must produce — every
// byte of the index files it writes anew, hashed with each algorithm its entry file lists
// (APT's Release: SHA256 and SHA512 of Packages, Packages.gz, Packages.xz; YUM's repomd.xml:
// SHA256 of each .xml.gz and of its XML), then the entry file signed as the server signs it
// (Packyard's signing code, RSA-3072: InRelease and Release.gpg, or repomd.xml.asc; the two
// signatures on the thread pool at once, as the server makes them). Measured in the driver
// process on the very files the sample's publish served, right after the sample, so it meets
// the same machine; the hashing single-threaded, as a publish that re-hashes from the first
// byte does.
import { createHash } from "node:crypto";
import {
  generateSigningKey,
  loadSigningKey,
  type SigningKey,
  signCleartext,
  signDetachedArmored,
} from "../../packages/formats/src/openpgp/index.ts";
import type { Sample } from "./proc.ts";

/** What a publish produced: files to hash and the entry file to sign. */
export interface FloorInput {
  hashed: { path: string; bytes: Uint8Array; algorithms: readonly ("sha256" | "sha512")[] }[];
  /** The entry file's text (Release, repomd.xml), signed as the server signs it. */
  entry: string;
  /** APT signs twice (InRelease and Release.gpg), YUM once (repomd.xml.asc). */
  signatures: "cleartext+detached" | "detached";
}

export class PublishFloor {
  readonly #key: SigningKey;

  private constructor(key: SigningKey) {
    this.#key = key;
  }

  /** An RSA-3072 key like a project's (generated once: not part of the floor). */
  static async create(): Promise<PublishFloor> {
    const generated = await generateSigningKey({
      name: "Floor",
      email: "floor@example.com",
      algorithm: "rsa3072",
    });
    return new PublishFloor(await loadSigningKey(generated.armoredPrivateKey));
  }

  /** One measurement: hashing, then signing; ms is their sum. */
  async measure(input: FloorInput): Promise<Sample> {
    const started = performance.now();
    let bytes = 0;
    for (const file of input.hashed) {
      for (const algorithm of file.algorithms) createHash(algorithm).update(file.bytes).digest("hex");
      bytes += file.bytes.byteLength;
    }
    const hashed = performance.now();
    const date = new Date();
    const entryBytes = new TextEncoder().encode(input.entry);
    if (input.signatures === "cleartext+detached") {
      await Promise.all([
        signCleartext(input.entry, [this.#key], { date }),
        signDetachedArmored(entryBytes, [this.#key], { date }),
      ]);
    } else {
      await signDetachedArmored(entryBytes, [this.#key], { date });
    }
    const ms = performance.now() - started;
    return {
      ms,
      peakRssKb: 0,
      extra: {
        "hash ms": hashed - started,
        "sign ms": ms - (hashed - started),
        "MiB hashed": bytes / 2 ** 20,
      },
    };
  }
}
