// The check push makes after each upload. An .rpm comes back signed by the server, so it is
// compared by header and payload length; everything else by sha256.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { generateSigningKey, loadSigningKey } from "@packyard/formats/openpgp/index.ts";
import { signRpmBytes } from "@packyard/formats/rpm/sign-rpm.ts";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReleaseFile } from "./contract.ts";
import { checkStoredFile, type LocalFile, sha256OfFile } from "./stored-file-check.ts";

const hasRpmbuild = requireTools(["rpmbuild"]);
let rpms: TestRpms;
let sign: (bytes: Uint8Array) => Promise<Uint8Array>;

beforeAll(async () => {
  if (!hasRpmbuild) return;
  rpms = buildTestRpms();
  const key = await loadSigningKey(
    (await generateSigningKey({ name: "Test", email: "test@example.com", algorithm: "ed25519" }))
      .armoredPrivateKey,
  );
  sign = (bytes) => signRpmBytes(bytes, { signingKey: key.privateKey });
});
afterAll(() => rpms?.cleanup());

async function local(path: string): Promise<LocalFile> {
  return {
    path,
    name: path.split("/").pop()!,
    size: readFileSync(path).length,
    sha256: await sha256OfFile(path),
  };
}

function stored(bytes: Uint8Array, kind: ReleaseFile["kind"]): ReleaseFile {
  return {
    filename: "x",
    size: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    sha512: "0".repeat(128),
    kind,
    contentType: "application/octet-stream",
    downloads: 0,
    createdAt: "",
    url: "",
  };
}

/** Serves the stored bytes as the Range reads would, refusing to hand out the last byte. */
const reader = (bytes: Uint8Array) => async (length: number) => {
  expect(length).toBeLessThan(bytes.length);
  return bytes.subarray(0, length);
};

describe.skipIf(!hasRpmbuild)("checkStoredFile", () => {
  it("accepts equal sha256, and refuses another sha256 for anything but an .rpm", async () => {
    const file = await local(rpms.beta);
    const bytes = readFileSync(rpms.beta);
    expect(await checkStoredFile(file, stored(bytes, "other"), reader(bytes))).toEqual({
      same: true,
      by: "sha256",
    });
    const other = readFileSync(rpms.alpha);
    expect(await checkStoredFile(file, stored(other, "other"), reader(other))).toEqual({
      same: false,
      why: `server sha256 ${stored(other, "other").sha256}, local ${file.sha256}`,
    });
  });

  it("accepts the server's signed copy of the same .rpm", async () => {
    const signed = await sign(readFileSync(rpms.alpha));
    expect(await checkStoredFile(await local(rpms.alpha), stored(signed, "rpm"), reader(signed))).toEqual({
      same: true,
      by: "rpm-header",
    });
  });

  it("refuses a signed copy of another package, or one whose payload lost a byte", async () => {
    const file = await local(rpms.alpha);
    const another = await sign(readFileSync(rpms.beta));
    expect(await checkStoredFile(file, stored(another, "rpm"), reader(another))).toMatchObject({
      same: false,
    });
    const signed = await sign(readFileSync(rpms.alpha));
    const short = signed.subarray(0, signed.length - 1);
    expect(await checkStoredFile(file, stored(short, "rpm"), reader(short))).toMatchObject({ same: false });
  });
});
