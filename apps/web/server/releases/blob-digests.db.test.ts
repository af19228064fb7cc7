// Digests an upload leaves for later (decision 036): a large file is answered with its sha256
// and gets sha512, sha1 and md5 right after; a small file gets all four at once, a large .deb
// the three its Packages stanza lists (decision 047); rows a crash left without them are filled
// by the collect-garbage pass.
import { createHash } from "node:crypto";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";
import { digestFillsSettled, fillMissingDigests } from "./blob-digests.ts";
import { EAGER_DIGEST_BYTES } from "./files.ts";

let app: TestApp;
let cookie: string;
const base = "/api/v1/projects/big/releases";
const hex = (algorithm: string, bytes: Uint8Array) => createHash(algorithm).update(bytes).digest("hex");

/** A body just over the size up to which all four digests are computed while receiving. */
const large: Uint8Array<ArrayBuffer> = new Uint8Array(EAGER_DIGEST_BYTES + 4096).map(
  (_, i) => (i * 7) & 0xff,
);

beforeAll(async () => {
  app = await createTestApp();
  ({ cookie } = await onboardedUser(app, "bulk"));
  const res = await app.request("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "big", name: "Big" }),
    cookie,
  });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await app?.close();
});

const put = (version: string, filename: string, body: Uint8Array<ArrayBuffer>) =>
  app.request(`${base}/${version}/files/${filename}`, { method: "PUT", body, cookie });

const listed = async (version: string) =>
  (await (await app.request(`${base}/${version}/files`, { cookie })).json()).files as {
    filename: string;
    sha256: string;
    sha512: string | null;
  }[];

const row = (filename: string) =>
  app.services.database.db
    .selectFrom("release_file")
    .select(["sha256", "sha512", "sha1", "md5"])
    .where("filename", "=", filename)
    .executeTakeFirstOrThrow();

describe(`digests filled in after the upload (${databaseKind})`, () => {
  it("answers a large upload with its sha256 and shows sha512, sha1 and md5 once computed", async () => {
    const res = await put("1.0.0", "big.bin", large);
    expect(res.status).toBe(201);
    const { file } = await res.json();
    expect(file.sha256).toBe(hex("sha256", large));
    await digestFillsSettled();
    expect(await listed("1.0.0")).toMatchObject([{ filename: "big.bin", sha512: hex("sha512", large) }]);
    expect(await row("big.bin")).toEqual({
      sha256: hex("sha256", large),
      sha512: hex("sha512", large),
      sha1: hex("sha1", large),
      md5: hex("md5", large),
    });
  });

  it("gives a small file all four digests in the upload's answer", async () => {
    const small = new TextEncoder().encode("small and whole\n");
    const { file } = await (await put("1.0.0", "small.txt", small)).json();
    expect(file).toMatchObject({ sha256: hex("sha256", small), sha512: hex("sha512", small) });
    expect(await row("small.txt")).toMatchObject({ sha1: hex("sha1", small), md5: hex("md5", small) });
  });

  it("lists a large .deb in Packages with MD5sum, SHA1 and SHA256 at once, and not SHA512", async () => {
    const deb = buildTestDeb({
      control:
        "Package: big-tool\nVersion: 1.0\nArchitecture: amd64\nMaintainer: T <t@example.com>\nDescription: big\n",
      dataCompression: "none",
      dataFiles: [{ name: "./usr/bin/big-tool", data: large }],
    }) as Uint8Array<ArrayBuffer>;
    expect(deb.byteLength).toBeGreaterThan(EAGER_DIGEST_BYTES);
    expect((await put("2.0.0", "big-tool_1.0_amd64.deb", deb)).status).toBe(201);
    const res = await app.request("/dl/bulk/big/deb/dists/stable/main/binary-amd64/Packages", { cookie });
    expect(res.status).toBe(200);
    const stanza = await res.text();
    expect(stanza).toContain("Package: big-tool\n");
    expect(stanza).toContain(
      `MD5sum: ${hex("md5", deb)}\nSHA1: ${hex("sha1", deb)}\nSHA256: ${hex("sha256", deb)}\n`,
    );
    expect(stanza).not.toContain("SHA512");
    await digestFillsSettled();
    expect(await row("big-tool_1.0_amd64.deb")).toMatchObject({ sha512: hex("sha512", deb) });
  });

  it("fills rows a crash left without digests, computing them or copying them from identical content", async () => {
    await digestFillsSettled();
    const db = app.services.database.db;
    const blank = { sha512: "", sha1: "", md5: "" };
    // As a crash between the upload's commit and the fill leaves a row.
    await db.updateTable("release_file").set(blank).where("filename", "=", "big.bin").execute();
    expect((await listed("1.0.0")).find((f) => f.filename === "big.bin")?.sha512).toBeNull();
    // The collect-garbage pass (maintenance.ts) runs this.
    expect(await fillMissingDigests(db, app.services.blobs)).toBe(1);
    expect(await row("big.bin")).toMatchObject({ sha512: hex("sha512", large), md5: hex("md5", large) });
    // The same bytes in another file: its digests are copied, not computed again.
    expect((await put("1.0.1", "copy.bin", large)).status).toBe(201);
    await digestFillsSettled();
    await db.updateTable("release_file").set(blank).where("filename", "=", "copy.bin").execute();
    await app.services.blobs.delete(hex("sha256", large));
    expect(await fillMissingDigests(db, app.services.blobs)).toBe(1);
    expect(await row("copy.bin")).toMatchObject({ sha1: hex("sha1", large), md5: hex("md5", large) });
    expect(await fillMissingDigests(db, app.services.blobs)).toBe(0);
  });
});
