// Shared blobs under concurrent upload and garbage collection: identical bytes uploaded to one
// release while the sweep removes the same bytes left by another release's delete. Deleting only
// deletes rows; the sweep (mark, then remove once the mark is older than the grace period, under
// the row's lock) removes bytes (decision 022). The tests hold each side at its critical point (a
// sweep about to remove the bytes; an upload that has placed them but not yet committed its file
// row) and let the other run, so the interleaving is reproduced on every run, on SQLite and
// PostgreSQL.
import { createHash } from "node:crypto";
import { utimesSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { PostgresAdapter } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gate } from "../../test/gate.ts";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../test/harness.ts";
import { lockedOrSettled } from "../../test/row-locks.ts";
import type { BlobStore } from "../platform/storage/blob-store.ts";
import { collectOrphanBytes, collectUnreferencedBlobs, markUnreferencedBlobs } from "./blobs.ts";

let app: TestApp;
let auth: Record<string, string>;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const GRACE = { graceMs: 60_000 };

beforeAll(async () => {
  app = await createTestApp();
  ({ auth } = await publishingProject(app, "racer", "race"));
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;
const postgres = () => db().getExecutor().adapter instanceof PostgresAdapter;
const collect = () => collectUnreferencedBlobs(db(), app.services.blobs, GRACE);

/** Marks blobs no file refers to, then dates every mark back past the grace period. */
async function markLongAgo() {
  await markUnreferencedBlobs(db());
  await db()
    .updateTable("blob")
    .set({ unreferenced_since: new Date(Date.now() - 3_600_000).toISOString() })
    .where("unreferenced_since", "is not", null)
    .execute();
}

async function mark(hex: string) {
  return (
    await db().selectFrom("blob").select("unreferenced_since").where("sha256", "=", hex).executeTakeFirst()
  )?.unreferenced_since;
}

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

/** Holds the next staged upload at the gate once its bytes are placed under their hash. */
function holdAfterPlacement(store: BlobStore, g: ReturnType<typeof gate>) {
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
        await commit();
        await g.wait();
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

describe(`blobs are removed by mark-and-sweep after the grace period (${databaseKind})`, () => {
  it("keeps a deleted file's bytes until its mark is older than the grace period", async () => {
    const bytes = new TextEncoder().encode("bytes only one release has\n");
    expect((await put("0.1.0", "only.bin", bytes)).status).toBe(201);
    expect((await del("0.1.0")).status).toBe(204);
    // Deleting removed the rows only.
    expect(await app.services.blobs.exists(sha256(bytes))).toBe(true);

    // The first pass marks the blob; the grace has not passed.
    expect(await collect()).toBe(0);
    expect(await mark(sha256(bytes))).toBeTruthy();
    expect(await app.services.blobs.exists(sha256(bytes))).toBe(true);

    await markLongAgo();
    expect(await collect()).toBe(1);
    expect(await app.services.blobs.exists(sha256(bytes))).toBe(false);
    expect(await mark(sha256(bytes))).toBeUndefined();
  });

  it("an upload of the same bytes clears the mark, and the sweep keeps them", async () => {
    const bytes = new TextEncoder().encode("uploaded, deleted, uploaded again\n");
    expect((await put("0.2.0-rc1", "again.bin", bytes)).status).toBe(201);
    expect((await del("0.2.0-rc1")).status).toBe(204);
    await markLongAgo();
    expect(await mark(sha256(bytes))).toBeTruthy();
    expect((await put("0.2.0", "again.bin", bytes)).status).toBe(201);
    expect(await mark(sha256(bytes))).toBeNull();
    expect(await collect()).toBe(0);
    expect(await (await download("0.2.0", "again.bin")).text()).toBe("uploaded, deleted, uploaded again\n");
  });
});

describe(`shared blobs under concurrent upload and sweep (${databaseKind})`, () => {
  it("keeps an upload's bytes when the sweep removes the same bytes while it is stored", async () => {
    const deb = buildTestDeb({
      control:
        "Package: race\nVersion: 1.0.0\nArchitecture: amd64\nMaintainer: T <t@example.com>\nDescription: race\n",
    });
    expect((await put("1.0.0-rc1", "race_1.0.0_amd64.deb", deb)).status).toBe(201);
    expect((await del("1.0.0-rc1")).status).toBe(204);
    await markLongAgo();

    // The sweep holds the blob's row and stops just before it removes the bytes...
    const atRemoval = gate();
    const restore = holdNextDelete(app.services.blobs, atRemoval);
    try {
      const sweeping = collect();
      await atRemoval.reached;
      // ...while the same bytes are uploaded to the final release: the upload waits for the
      // row (PostgreSQL: its upsert blocks on the lock; SQLite: behind the one writer).
      const uploading = put("1.0.0", "race_1.0.0_amd64.deb", deb);
      await lockedOrSettled(db(), uploading);
      atRemoval.open();
      expect(await sweeping).toBe(1);
      expect((await uploading).status).toBe(201);
    } finally {
      restore();
    }

    const res = await download("1.0.0", "race_1.0.0_amd64.deb");
    expect(res.status).toBe(200);
    expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(deb));
    // The APT pool serves it too, and the index lists it.
    await app.services.repos.publish(
      (await db().selectFrom("project").select("id").where("slug", "=", "race").executeTakeFirstOrThrow()).id,
    );
    const packages = await app.request("/dl/racer/race/deb/dists/stable/main/binary-amd64/Packages");
    const filename = /^Filename: (.+)$/m.exec(await packages.text())?.[1];
    expect(filename).toBeTruthy();
    const pool = await app.request(`/dl/racer/race/deb/${filename}`);
    expect(pool.status).toBe(200);
    expect(sha256(new Uint8Array(await pool.arrayBuffer()))).toBe(sha256(deb));
  });

  it("keeps an upload's bytes when the sweep comes after they are placed, before the file row commits", async () => {
    const bytes = new TextEncoder().encode("same bytes in two releases\n");
    expect((await put("2.0.0-rc1", "tool.bin", bytes)).status).toBe(201);
    expect((await del("2.0.0-rc1")).status).toBe(204);
    await markLongAgo();

    // The upload has upserted the blob's row and placed its bytes, and stops before its file
    // row commits: the blob is still marked long ago and no committed file refers to it...
    const placed = gate();
    const restore = holdAfterPlacement(app.services.blobs, placed);
    try {
      const uploading = put("2.0.0", "tool.bin", bytes);
      await placed.reached;
      // ...when the sweep runs. PostgreSQL: it skips the row the upload holds and finishes now;
      // SQLite: it waits behind the upload's transaction and then finds the file row.
      const sweeping = collect();
      if (postgres()) expect(await sweeping).toBe(0);
      else await lockedOrSettled(db(), sweeping);
      placed.open();
      expect((await uploading).status).toBe(201);
      expect(await sweeping).toBe(0);
    } finally {
      restore();
    }
    const res = await download("2.0.0", "tool.bin");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("same bytes in two releases\n");
    // Later passes keep it too.
    await markLongAgo();
    expect(await collect()).toBe(0);
    expect((await download("2.0.0", "tool.bin")).status).toBe(200);
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
    expect(await collectUnreferencedBlobs(app.services.database.db, app.services.blobs, { graceMs: 0 })).toBe(
      0,
    );
  });
});
