import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as openpgp from "openpgp";
import { beforeAll, describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import { runGpgTool } from "./gpg-test-support.ts";
import { OpenPgpError } from "./openpgp-error.ts";
import { encryptPrivateKey } from "./private-key-envelope.ts";
import {
  type GeneratedSigningKey,
  generateSigningKey,
  loadSigningKey,
  unlockSigningKey,
} from "./signing-key.ts";

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return error instanceof OpenPgpError ? error.code : String(error);
  }
  return undefined;
}

const createdAt = new Date("2025-01-02T03:04:05Z");
let rsa: GeneratedSigningKey;
let ed25519: GeneratedSigningKey;

beforeAll(async () => {
  [rsa, ed25519] = await Promise.all([
    generateSigningKey({
      name: "Packyard RSA",
      email: "rsa@example.com",
      algorithm: "rsa3072",
      date: createdAt,
    }),
    generateSigningKey({
      name: "Packyard Ed",
      email: "ed@example.com",
      algorithm: "ed25519",
      date: createdAt,
    }),
  ]);
});

describe("generateSigningKey", () => {
  it.each(["rsa3072", "ed25519"] as const)("creates a v4 %s signing key", async (algorithm) => {
    const key = algorithm === "rsa3072" ? rsa : ed25519;
    expect(key.algorithm).toBe(algorithm);
    expect(key.fingerprint).toMatch(/^[0-9A-F]{40}$/);
    expect(key.keyId).toBe(key.fingerprint.slice(-16));
    expect(key.createdAt).toEqual(createdAt);
    expect(key.armoredPublicKey).toMatch(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    expect(key.armoredPrivateKey).toMatch(/^-----BEGIN PGP PRIVATE KEY BLOCK-----/);

    const publicKey = await openpgp.readKey({ binaryKey: key.binaryPublicKey });
    expect(publicKey.isPrivate()).toBe(false);
    expect(publicKey.keyPacket.version).toBe(4);
    expect(publicKey.subkeys).toHaveLength(0);
    expect(publicKey.getFingerprint().toUpperCase()).toBe(key.fingerprint);
    expect(publicKey.getAlgorithmInfo()).toEqual(
      algorithm === "rsa3072"
        ? { algorithm: "rsaEncryptSign", bits: 3072 }
        : { algorithm: "eddsaLegacy", curve: "ed25519Legacy" },
    );
    const privateKey = await openpgp.readPrivateKey({ armoredKey: key.armoredPrivateKey });
    expect(privateKey.isDecrypted()).toBe(true);
  });

  it("sets the OpenPGP key expiration when asked, and none by default", async () => {
    expect(await (await openpgp.readKey({ binaryKey: rsa.binaryPublicKey })).getExpirationTime()).toBe(
      Number.POSITIVE_INFINITY,
    );
    const expiresAt = new Date("2025-04-02T03:04:05Z");
    const key = await generateSigningKey({
      name: "Expiring",
      email: "expiring@example.com",
      algorithm: "ed25519",
      date: createdAt,
      expiresAt,
    });
    const publicKey = await openpgp.readKey({ binaryKey: key.binaryPublicKey });
    expect(await publicKey.getExpirationTime()).toEqual(expiresAt);
    expect(
      await codeOf(
        generateSigningKey({
          name: "x",
          email: "x@example.com",
          algorithm: "ed25519",
          date: createdAt,
          expiresAt: createdAt,
        }),
      ),
    ).toBe("OPENPGP_BAD_KEY");
  });

  it.runIf(requireTools(["rpmkeys"]))(
    "writes expiring keys rpm imports (key expiration not critical)",
    async () => {
      const key = await generateSigningKey({
        name: "Expiring",
        email: "expiring@example.com",
        algorithm: "rsa3072",
        date: createdAt,
        expiresAt: new Date("2035-01-02T03:04:05Z"),
      });
      const dir = mkdtempSync(join(tmpdir(), "rpmkeys-"));
      try {
        writeFileSync(join(dir, "key.asc"), key.armoredPublicKey);
        const imported = spawnSync(
          "rpmkeys",
          ["--dbpath", join(dir, "db"), "--import", join(dir, "key.asc")],
          {
            encoding: "utf8",
          },
        );
        expect(imported.status, imported.stderr).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.runIf(requireTools(["gpg"]))("writes keys gnupg 2.2 reads", () => {
    const result = runGpgTool("gpg", ["--batch", "--with-colons", "--show-keys", "keys.gpg"], {
      "keys.gpg": Buffer.concat([rsa.binaryPublicKey, ed25519.binaryPublicKey]),
    });
    expect(result.status).toBe(0);
    const primaryKeys = result.stdout.split("\n").filter((line) => line.startsWith("pub:"));
    // Colon format: field 3 is the size, field 4 the algorithm (1 = RSA, 22 = EdDSA).
    expect(primaryKeys.map((line) => line.split(":").slice(2, 4))).toEqual([
      ["3072", "1"],
      ["255", "22"],
    ]);
    expect(result.stdout).toContain(`fpr:::::::::${rsa.fingerprint}:`);
    expect(result.stdout).toContain("Packyard Ed <ed@example.com>");
  });
});

describe("loadSigningKey", () => {
  it("loads an unprotected private key once for repeated signing", async () => {
    const key = await loadSigningKey(rsa.armoredPrivateKey);
    expect(key).toMatchObject({ fingerprint: rsa.fingerprint, keyId: rsa.keyId, algorithm: "rsa3072" });
    expect(key.privateKey.isDecrypted()).toBe(true);
  });

  it("unlocks a stored envelope", async () => {
    const secret = "s".repeat(32);
    const envelope = encryptPrivateKey(ed25519.armoredPrivateKey, secret, { context: "repo-1" });
    const key = await unlockSigningKey(envelope, secret, { context: "repo-1" });
    expect(key.fingerprint).toBe(ed25519.fingerprint);
    expect(await codeOf(unlockSigningKey(envelope, "t".repeat(32), { context: "repo-1" }))).toBe(
      "OPENPGP_DECRYPT_FAILED",
    );
  });

  it("refuses a public key, garbage and a passphrase-protected key", async () => {
    expect(await codeOf(loadSigningKey(rsa.armoredPublicKey))).toBe("OPENPGP_NOT_A_PRIVATE_KEY");
    expect(await codeOf(loadSigningKey("not a key"))).toBe("OPENPGP_BAD_KEY");
    const privateKey = await openpgp.readPrivateKey({ armoredKey: ed25519.armoredPrivateKey });
    const locked = await openpgp.encryptKey({ privateKey, passphrase: "hunter2" });
    expect(await codeOf(loadSigningKey(locked.armor()))).toBe("OPENPGP_KEY_LOCKED");
  });

  it("refuses RFC 9580 Ed25519 and v6 keys, which gnupg 2.2 cannot verify", async () => {
    for (const config of [{ v6Keys: false }, { v6Keys: true }]) {
      const { privateKey } = await openpgp.generateKey({
        type: "curve25519",
        userIDs: [{ name: "New format" }],
        subkeys: [],
        format: "armored",
        config,
      });
      expect(await codeOf(loadSigningKey(privateKey))).toBe("OPENPGP_UNSUPPORTED_ALGORITHM");
    }
  });

  it("refuses RSA keys below 3072 bits", async () => {
    const { privateKey } = await openpgp.generateKey({
      type: "rsa",
      rsaBits: 2048,
      userIDs: [{ name: "Weak" }],
      subkeys: [],
      format: "armored",
    });
    expect(await codeOf(loadSigningKey(privateKey))).toBe("OPENPGP_UNSUPPORTED_ALGORITHM");
  });
});
