// Shared blobs under concurrent upload and delete: identical bytes uploaded to one release while
// another release holding them is deleted. The test holds each side at its critical point (a
// delete about to remove the bytes; an upload about to place them) and lets the other run, so
// the interleaving that lost data before is reproduced on every run, on SQLite and PostgreSQL.
import { createHash } from "node:crypto";
import { utimesSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gate, settlesWithin } from "../../test/gate.ts";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../test/harness.ts";
import type { BlobStore } from "../storage/blob-store.ts";
import { collectOrphanBytes, collectUnreferencedBlobs } from "./blobs.ts";

let app: TestApp;
let auth: Record<string, string>;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

beforeAll(async () => {
  app = await createTestApp();
  ({ auth } = await publishingProject(app, "racer", "race"));
});
afterAll(async () => {
  await app?.close();
});

/** Holds the store's next delete at the gate; later calls pass straight through. */
function holdNextDelete(store: BlobStore, g: ReturnType<typeof gate>) {
  const original = store.delete;
  let held = false;
  store.delete = async (sha256) => {
    if (!held) {
      held = true;
      await g.wait();
    }
    return original(sha256);
  };
  return () => {
    store.delete = original;
  };
}

/** Holds the next staged upload at the gate when it is about to be placed under its hash. */
function holdNextPlacement(store: BlobStore, g: ReturnType<typeof gate>) {
  const original = store.stage;
  let held = false;
  store.stage = async (body, options) => {
    const staged = await original(body, options);
    if (held) return staged;
    held = true;
    const commit = staged.commit;
    return {
      ...staged,
      async commit() {
        await g.wait();
        return commit();
      },
    };
  };
  return () => {
    store.stage = original;
  };
}

const put = (version: string, filename: string, body: Uint8Array) =>
  app.request(`/api/v1/projects/race/releases/${version}/files/${filename}`, {
    method: "PUT",
    headers: auth,
    body: Buffer.from(body),
  });
const del = (version: string) =>
  app.request(`/api/v1/projects/race/releases/${version}`, { method: "DELETE", headers: auth });
const download = (version: string, filename: string) =>
  app.request(`/dl/racer/race/releases/${version}/${filename}`);

describe(`shared blobs under concurrent upload and delete (${databaseKind})`, () => {
  it("keeps an upload's bytes when a release with the same bytes is deleted while it is stored", async () => {
    const deb = buildTestDeb({
      control:
        "Package: race\nVersion: 1.0.0\nArchitecture: amd64\nMaintainer: T <t@example.com>\nDescription: race\n",
    });
    expect((await put("1.0.0-rc1", "race_1.0.0_amd64.deb", deb)).status).toBe(201);

    // The delete of the -rc release stops just before it removes the bytes...
    const atRemoval = gate();
    const restore = holdNextDelete(app.services.blobs, atRemoval);
    try {
      const deleting = del("1.0.0-rc1");
      await atRemoval.reached;
      // ...while the same bytes are uploaded to the final release. Either the upload is answered
      // now, or it waits for the delete; both are fine as long as its bytes survive.
      const uploading = put("1.0.0", "race_1.0.0_amd64.deb", deb);
      await settlesWithin(uploading, 500);
      atRemoval.open();
      expect((await deleting).status).toBe(204);
      expect((await uploading).status).toBe(201);
    } finally {
      restore();
    }

    const res = await download("1.0.0", "race_1.0.0_amd64.deb");
    expect(res.status).toBe(200);
    expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(deb));
    // The APT pool serves it too, and the index lists it.
    await app.services.repos.publish(
      (
        await app.services.database.db
          .selectFrom("project")
          .select("id")
          .where("slug", "=", "race")
          .executeTakeFirstOrThrow()
      ).id,
    );
    const packages = await app.request("/dl/racer/race/deb/dists/stable/main/binary-amd64/Packages");
    const filename = /^Filename: (.+)$/m.exec(await packages.text())?.[1];
    expect(filename).toBeTruthy();
    const pool = await app.request(`/dl/racer/race/deb/${filename}`);
    expect(pool.status).toBe(200);
    expect(sha256(new Uint8Array(await pool.arrayBuffer()))).toBe(sha256(deb));
  });

  it("keeps an upload's bytes when the delete comes while the upload is placing them", async () => {
    const bytes = new TextEncoder().encode("same bytes in two releases\n");
    expect((await put("2.0.0-rc1", "tool.bin", bytes)).status).toBe(201);

    // The upload stops at the moment its bytes are about to be placed under their hash...
    const atPlacement = gate();
    const restore = holdNextPlacement(app.services.blobs, atPlacement);
    try {
      const uploading = put("2.0.0", "tool.bin", bytes);
      await atPlacement.reached;
      // ...and the release holding the same bytes is deleted meanwhile.
      const deleting = del("2.0.0-rc1");
      await settlesWithin(deleting, 500);
      atPlacement.open();
      expect((await deleting).status).toBe(204);
      expect((await uploading).status).toBe(201);
    } finally {
      restore();
    }
    const res = await download("2.0.0", "tool.bin");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("same bytes in two releases\n");
  });

  it("removes bytes no row claims once they are older than the grace period, and never a stored blob", async () => {
    const stray = new TextEncoder().encode("left by an upload that crashed before it committed\n");
    const straySha = sha256(stray);
    const dir = join(app.services.config.blobDir, "sha256", straySha.slice(0, 2), straySha.slice(2, 4));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, straySha), stray);
    expect(await collectOrphanBytes(app.services.database.db, app.services.blobs, { graceMs: 60_000 })).toBe(
      0,
    );
    expect(await app.services.blobs.exists(straySha)).toBe(true);

    const old = new Date(Date.now() - 120_000);
    utimesSync(join(dir, straySha), old, old);
    expect(await collectOrphanBytes(app.services.database.db, app.services.blobs, { graceMs: 60_000 })).toBe(
      1,
    );
    expect(await app.services.blobs.exists(straySha)).toBe(false);
    // Stored files are untouched, however old.
    expect((await download("2.0.0", "tool.bin")).status).toBe(200);
    expect(await collectUnreferencedBlobs(app.services.database.db, app.services.blobs)).toBe(0);
  });
});
