import { describe, expect, it } from "vitest";
import { OpenPgpError } from "./openpgp-error.ts";
import { decryptPrivateKey, encryptPrivateKey } from "./private-key-envelope.ts";

const secret = "0123456789abcdef0123456789abcdef-server-secret";
const armored = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nxVgEZ...\n-----END PGP PRIVATE KEY BLOCK-----\n";

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof OpenPgpError ? error.code : String(error);
  }
  return undefined;
}

describe("private key envelope", () => {
  it("round-trips with the same secret and context", () => {
    const envelope = encryptPrivateKey(armored, secret, { context: "repository:42" });
    expect(envelope).toMatch(/^pky-key-v1\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(envelope).not.toContain("PGP");
    expect(decryptPrivateKey(envelope, secret, { context: "repository:42" })).toBe(armored);
    expect(decryptPrivateKey(encryptPrivateKey(armored, Buffer.from(secret)), secret)).toBe(armored);
  });

  it("uses a fresh salt and nonce every time", () => {
    expect(encryptPrivateKey(armored, secret)).not.toBe(encryptPrivateKey(armored, secret));
  });

  it("fails with OPENPGP_DECRYPT_FAILED on a wrong secret, a wrong context or tampering", () => {
    const envelope = encryptPrivateKey(armored, secret, { context: "repository:42" });
    expect(codeOf(() => decryptPrivateKey(envelope, `${secret}x`, { context: "repository:42" }))).toBe(
      "OPENPGP_DECRYPT_FAILED",
    );
    expect(codeOf(() => decryptPrivateKey(envelope, secret, { context: "repository:43" }))).toBe(
      "OPENPGP_DECRYPT_FAILED",
    );
    expect(codeOf(() => decryptPrivateKey(envelope, secret))).toBe("OPENPGP_DECRYPT_FAILED");
    const parts = envelope.split(".");
    const ciphertext = Buffer.from(parts[3]!, "base64url");
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 1;
    parts[3] = ciphertext.toString("base64url");
    expect(codeOf(() => decryptPrivateKey(parts.join("."), secret, { context: "repository:42" }))).toBe(
      "OPENPGP_DECRYPT_FAILED",
    );
  });

  it("rejects malformed envelopes and short secrets", () => {
    expect(codeOf(() => decryptPrivateKey("plain text", secret))).toBe("OPENPGP_BAD_ENVELOPE");
    expect(codeOf(() => decryptPrivateKey("pky-key-v1.a.b.c.d", secret))).toBe("OPENPGP_BAD_ENVELOPE");
    expect(codeOf(() => decryptPrivateKey("pky-key-v2.a.b.c.d", secret))).toBe("OPENPGP_BAD_ENVELOPE");
    expect(codeOf(() => encryptPrivateKey(armored, "short"))).toBe("OPENPGP_WEAK_SECRET");
    expect(codeOf(() => decryptPrivateKey(encryptPrivateKey(armored, secret), "short"))).toBe(
      "OPENPGP_WEAK_SECRET",
    );
  });
});
