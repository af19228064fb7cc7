import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as openpgp from "openpgp";
import { beforeAll, describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import { runGpgTool } from "./gpg-test-support.ts";
import { buildArmoredKeyring, buildBinaryKeyring, dearmorPublicKeys } from "./keyring.ts";
import { OpenPgpError } from "./openpgp-error.ts";
import { type GeneratedSigningKey, generateSigningKey } from "./signing-key.ts";

let first: GeneratedSigningKey;
let second: GeneratedSigningKey;

beforeAll(async () => {
  [first, second] = await Promise.all([
    generateSigningKey({ name: "First", email: "first@example.com", algorithm: "ed25519" }),
    generateSigningKey({ name: "Second", email: "second@example.com", algorithm: "ed25519" }),
  ]);
});

describe("keyrings", () => {
  it("dearmors to the same bytes generateSigningKey returned", async () => {
    expect(await dearmorPublicKeys(first.armoredPublicKey)).toEqual(first.binaryPublicKey);
  });

  it("concatenates keys, drops duplicates and never carries private material", async () => {
    const keyring = await buildBinaryKeyring([
      first.armoredPublicKey,
      second.armoredPrivateKey,
      first.armoredPublicKey,
    ]);
    const keys = await openpgp.readKeys({ binaryKeys: keyring });
    expect(keys.map((key) => key.getFingerprint().toUpperCase())).toEqual([
      first.fingerprint,
      second.fingerprint,
    ]);
    expect(keys.every((key) => !key.isPrivate())).toBe(true);
    expect(keyring.length).toBe(first.binaryPublicKey.length + second.binaryPublicKey.length);
  });

  it("armors several keys in one block", async () => {
    const armored = await buildArmoredKeyring([first.armoredPublicKey, second.armoredPublicKey]);
    expect(armored.match(/-----BEGIN PGP PUBLIC KEY BLOCK-----/g)).toHaveLength(1);
    expect((await openpgp.readKeys({ armoredKeys: armored })).length).toBe(2);
  });

  it("armors with the CRC-24 line that rpm requires, and rpmkeys imports it", async () => {
    const armored = await buildArmoredKeyring([first.armoredPublicKey, second.armoredPublicKey]);
    expect(armored).toMatch(/\n=[A-Za-z0-9+/]{4}\n-----END PGP PUBLIC KEY BLOCK-----/);
    if (!requireTools(["rpmkeys"])) return;
    const dir = mkdtempSync(join(tmpdir(), "keyring-rpm-"));
    try {
      writeFileSync(join(dir, "keys.asc"), armored);
      execFileSync("rpmkeys", ["--dbpath", dir, "--import", join(dir, "keys.asc")], { stdio: "pipe" });
      const imported = execFileSync("rpm", ["--dbpath", dir, "-q", "gpg-pubkey"], { encoding: "utf8" });
      expect(imported.trim().split("\n")).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports unreadable input", async () => {
    await expect(buildBinaryKeyring(["garbage"])).rejects.toSatisfy(
      (error) => error instanceof OpenPgpError && error.code === "OPENPGP_BAD_KEY",
    );
  });

  it.runIf(requireTools(["gpg"]))("gpg lists both keys of a binary and an armored keyring", async () => {
    const files = {
      "keyring.gpg": await buildBinaryKeyring([first.armoredPublicKey, second.armoredPublicKey]),
      "keyring.asc": await buildArmoredKeyring([first.armoredPublicKey, second.armoredPublicKey]),
    };
    for (const name of Object.keys(files)) {
      const result = runGpgTool("gpg", ["--batch", "--with-colons", "--show-keys", name], files);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain(first.fingerprint);
      expect(result.stdout).toContain(second.fingerprint);
    }
  });
});
