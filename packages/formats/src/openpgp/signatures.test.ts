import * as openpgp from "openpgp";
import { beforeAll, describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import { gpgvVerify, signatureDigestAlgorithms } from "./gpg-test-support.ts";
import { buildBinaryKeyring } from "./keyring.ts";
import { OpenPgpError } from "./openpgp-error.ts";
import { signCleartext, signDetachedArmored, signDetachedBinary } from "./signatures.ts";
import {
  type GeneratedSigningKey,
  generateSigningKey,
  loadSigningKey,
  type SigningKey,
} from "./signing-key.ts";

const release = `Origin: Packyard
Label: Packyard
Suite: stable
Codename: stable
Date: Sat, 01 Feb 2025 00:00:00 UTC
Architectures: amd64 all
Components: main
Description: Packyard test repository
SHA256:
 ${"a".repeat(64)} 123 main/binary-amd64/Packages
`;

let rsa: GeneratedSigningKey;
let ed25519: GeneratedSigningKey;
let rsaKey: SigningKey;
let edKey: SigningKey;

beforeAll(async () => {
  [rsa, ed25519] = await Promise.all([
    generateSigningKey({ name: "Old key", email: "old@example.com", algorithm: "rsa3072" }),
    generateSigningKey({ name: "New key", email: "new@example.com", algorithm: "ed25519" }),
  ]);
  [rsaKey, edKey] = await Promise.all([
    loadSigningKey(rsa.armoredPrivateKey),
    loadSigningKey(ed25519.armoredPrivateKey),
  ]);
});

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return error instanceof OpenPgpError ? error.code : String(error);
  }
  return undefined;
}

describe("signCleartext", () => {
  it("frames the text the way gpg --clearsign does", async () => {
    const inRelease = await signCleartext(release, [rsaKey]);
    expect(
      inRelease.startsWith("-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\nOrigin: Packyard\n"),
    ).toBe(true);
    expect(inRelease).toContain(`main/binary-amd64/Packages\n-----BEGIN PGP SIGNATURE-----\n`);
    expect(inRelease).not.toContain("\r");
    expect(inRelease.endsWith("-----END PGP SIGNATURE-----\n")).toBe(true);
  });

  it("verifies with openpgp.js, with both keys", async () => {
    const inRelease = await signCleartext(release, [rsaKey, edKey]);
    const message = await openpgp.readCleartextMessage({ cleartextMessage: inRelease });
    const verificationKeys = await Promise.all(
      [rsa, ed25519].map((key) => openpgp.readKey({ armoredKey: key.armoredPublicKey })),
    );
    const result = await openpgp.verify({ message, verificationKeys, expectSigned: true });
    expect(result.signatures).toHaveLength(2);
    expect(result.data).toBe(release.slice(0, -1));
  });

  it("refuses an empty key list", async () => {
    expect(await codeOf(signCleartext(release, []))).toBe("OPENPGP_NO_SIGNING_KEYS");
  });

  it("dash-escapes lines that start with a dash, and signs what it shows", async () => {
    const text = "Origin: Packyard\n-----BEGIN trick\n- spaced\n";
    const signed = await signCleartext(text, [edKey]);
    expect(signed).toContain("\n- -----BEGIN trick\n- - spaced\n");
    const message = await openpgp.readCleartextMessage({ cleartextMessage: signed });
    const verificationKeys = await openpgp.readKey({ armoredKey: ed25519.armoredPublicKey });
    const result = await openpgp.verify({ message, verificationKeys, expectSigned: true });
    expect(result.data).toBe(text.slice(0, -1));
  });
});

describe("the signature packets", () => {
  it("carry the creation time and the issuer, and verify with openpgp.js, detached and binary", async () => {
    const date = new Date(Math.floor(Date.now() / 1000) * 1000);
    const data = new TextEncoder().encode(release);
    const armored = await signDetachedArmored(data, [rsaKey, edKey], { date });
    const binary = await signDetachedBinary(data, edKey, { date });
    const publicKeys = await Promise.all(
      [rsa, ed25519].map((key) => openpgp.readKey({ armoredKey: key.armoredPublicKey })),
    );
    for (const signature of [
      await openpgp.readSignature({ armoredSignature: armored }),
      await openpgp.readSignature({ binarySignature: binary }),
    ]) {
      const message = await openpgp.createMessage({ binary: data });
      const result = await openpgp.verify({
        message,
        signature,
        verificationKeys: publicKeys,
        expectSigned: true,
      });
      expect(result.signatures).toHaveLength(signature.packets.length);
      for (const verification of result.signatures) expect(await verification.verified).toBe(true);
      for (const packet of signature.packets) {
        expect(packet.created).toEqual(date);
        expect(packet.hashAlgorithm).toBe(openpgp.enums.hash.sha512);
      }
    }
    const issuers = (await openpgp.readSignature({ armoredSignature: armored })).packets.map((packet) =>
      Buffer.from(packet.issuerFingerprint!).toString("hex").toUpperCase(),
    );
    expect(issuers).toEqual([rsa.fingerprint, ed25519.fingerprint]);
    // A changed byte no longer verifies.
    const changed = data.slice();
    changed[0] = changed[0]! ^ 1;
    const bad = await openpgp.verify({
      message: await openpgp.createMessage({ binary: changed }),
      signature: await openpgp.readSignature({ binarySignature: binary }),
      verificationKeys: publicKeys,
    });
    await expect(bad.signatures[0]!.verified).rejects.toThrow();
  });

  it("differ each time (salted), as openpgp.js's do", async () => {
    const date = new Date(Math.floor(Date.now() / 1000) * 1000);
    const [a, b] = await Promise.all([
      signDetachedArmored(release, [edKey], { date }),
      signDetachedArmored(release, [edKey], { date }),
    ]);
    expect(a).not.toBe(b);
  });
});

describe("with gnupg", () => {
  const hasTools = requireTools(["gpg", "gpgv"]);

  it.runIf(hasTools).each(["rsa3072", "ed25519"] as const)(
    "gpgv verifies an InRelease signed with %s",
    async (algorithm) => {
      const [generated, key] = algorithm === "rsa3072" ? [rsa, rsaKey] : [ed25519, edKey];
      const inRelease = await signCleartext(release, [key]);
      const result = gpgvVerify(generated.binaryPublicKey, { InRelease: inRelease }, [
        "--output",
        "-",
        "InRelease",
      ]);
      expect(result.status, result.stderr).toBe(0);
      expect(result.goodSigners).toEqual([generated.fingerprint]);
      expect(result.stdout).toBe(release);
    },
  );

  it.runIf(hasTools)("an InRelease signed by two keys verifies with a keyring holding either", async () => {
    const inRelease = await signCleartext(release, [rsaKey, edKey]);
    const both = await buildBinaryKeyring([rsa.armoredPublicKey, ed25519.armoredPublicKey]);
    expect(gpgvVerify(rsa.binaryPublicKey, { InRelease: inRelease }, ["InRelease"]).goodSigners).toEqual([
      rsa.fingerprint,
    ]);
    expect(gpgvVerify(ed25519.binaryPublicKey, { InRelease: inRelease }, ["InRelease"]).goodSigners).toEqual([
      ed25519.fingerprint,
    ]);
    const withBoth = gpgvVerify(both, { InRelease: inRelease }, ["InRelease"]);
    expect(withBoth.status, withBoth.stderr).toBe(0);
    expect(withBoth.goodSigners).toEqual([rsa.fingerprint, ed25519.fingerprint]);
    const other = await generateSigningKey({
      name: "Stranger",
      email: "x@example.com",
      algorithm: "ed25519",
    });
    const stranger = gpgvVerify(other.binaryPublicKey, { InRelease: inRelease }, ["InRelease"]);
    expect(stranger.goodSigners).toEqual([]);
    expect(stranger.status).not.toBe(0);
  });

  it.runIf(hasTools)("gpgv rejects a modified InRelease", async () => {
    const inRelease = (await signCleartext(release, [rsaKey])).replace("Suite: stable", "Suite: stabl3");
    const result = gpgvVerify(rsa.binaryPublicKey, { InRelease: inRelease }, ["InRelease"]);
    expect(result.status).not.toBe(0);
    expect(result.badSignatures).toBe(1);
  });

  it.runIf(hasTools)("gpgv verifies Release.gpg from one and from two keys", async () => {
    const files = async (keys: SigningKey[]) => ({
      "Release.gpg": await signDetachedArmored(release, keys),
      Release: release,
    });
    const single = await files([rsaKey]);
    expect(single["Release.gpg"]).toMatch(/^-----BEGIN PGP SIGNATURE-----\n/);
    const result = gpgvVerify(rsa.binaryPublicKey, single, ["Release.gpg", "Release"]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.goodSigners).toEqual([rsa.fingerprint]);
    const double = await files([rsaKey, edKey]);
    expect(gpgvVerify(ed25519.binaryPublicKey, double, ["Release.gpg", "Release"]).goodSigners).toEqual([
      ed25519.fingerprint,
    ]);
    const tampered = gpgvVerify(rsa.binaryPublicKey, { ...single, Release: `${release} ` }, [
      "Release.gpg",
      "Release",
    ]);
    expect(tampered.badSignatures).toBe(1);
  });

  it.runIf(hasTools)("gpgv verifies a binary detached signature", async () => {
    const data = new Uint8Array(4096).map((_, index) => index * 7);
    const signature = await signDetachedBinary(data, rsaKey);
    expect(signature[0]! & 0x80).toBe(0x80);
    const result = gpgvVerify(rsa.binaryPublicKey, { "header.sig": signature, header: data }, [
      "header.sig",
      "header",
    ]);
    expect(result.status, result.stderr).toBe(0);
  });

  it.runIf(hasTools)("signs with SHA-512, never SHA-1", async () => {
    const inRelease = await signCleartext(release, [rsaKey, edKey]);
    const signatureBlock = inRelease.slice(inRelease.indexOf("-----BEGIN PGP SIGNATURE-----"));
    expect(signatureDigestAlgorithms(signatureBlock)).toEqual([10, 10]);
    expect(signatureDigestAlgorithms(await signDetachedArmored(release, [edKey]))).toEqual([10]);
    expect(signatureDigestAlgorithms(await signDetachedBinary(new Uint8Array([1, 2, 3]), rsaKey))).toEqual([
      10,
    ]);
  });
});

describe("signing cost", () => {
  it("reuses the unlocked key: 20 RSA-3072 InRelease signatures", async () => {
    const started = performance.now();
    for (let index = 0; index < 20; index++) await signCleartext(release, [rsaKey]);
    const perSignature = (performance.now() - started) / 20;
    console.info(`RSA-3072 cleartext signature: ${perSignature.toFixed(1)} ms each`);
    expect(perSignature).toBeLessThan(500);
  });
});
