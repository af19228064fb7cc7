// Index files are stored once by content and shared between generations and projects, and
// several servers may build and collect garbage at once on one database. Pruning deletes rows
// only; the sweep removes a file no generation refers to once no build has touched it for the
// grace period, under its row's lock (decision 022). Two publishers on one database and one index
// store stand for two servers; the tests hold one side at its critical point (a build that found
// the file stored and will not write it; a sweep about to delete the bytes) and run the other, so
// each interleaving is reproduced on every run. The builder is a stand-in producing files whose
// content the test chooses; storage and database are real.
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gate } from "../../test/gate.ts";
import { createTestApp, databaseKind, onboardedUser, postJson, type TestApp } from "../../test/harness.ts";
import { lockedOrSettled } from "../../test/row-locks.ts";
import { loadS3rver, startS3rver } from "../../test/s3rver.ts";
import { type BlobStore, createLocalBlobStore } from "../platform/storage/blob-store.ts";
import { createS3BlobStore, createS3Client } from "../platform/storage/s3-blob-store.ts";
import { type FormatBuilder, RepositoryPublisher } from "./publisher.ts";

let app: TestApp;
let cookie: string;
let storeDir: string;
const projectIds: Record<string, string> = {};
/** Per project, the contents of its files `index0`, `index1`, … */
const content = new Map<string, string[]>();
const GRACE_MS = 60_000;

beforeAll(async () => {
  app = await createTestApp();
  storeDir = mkdtempSync(join(tmpdir(), "packyard-index-store-"));
  ({ cookie } = await onboardedUser(app, "indexer"));
  for (const slug of ["first", "second", "third", "fourth", "early", "primed", "spared", "on-s3"]) {
    const res = await postJson(app, "/api/v1/projects", { slug, name: slug }, cookie);
    expect(res.status).toBe(201);
    projectIds[slug] = ((await res.json()) as { project: { id: string } }).project.id;
  }
});
afterAll(async () => {
  await app?.close();
  rmSync(storeDir, { recursive: true, force: true });
});

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const db = () => app.services.database.db;

const builder: FormatBuilder = {
  format: "apt",
  async build(context) {
    const texts = content.get(context.project.id) ?? [""];
    return [
      {
        name: "stable",
        files: new Map(texts.map((text, i) => [`index${i}`, new TextEncoder().encode(text)])),
      },
    ];
  },
};

/** A server: its own publisher and its own handle on the shared index store. */
function server() {
  const store = createLocalBlobStore(storeDir);
  const publisher = new RepositoryPublisher(
    {
      db: db(),
      store,
      keys: app.services.keys,
      logger: app.services.logger,
      builders: [builder],
    },
    // A superseded generation expires at once; only the newest is kept.
    { graceMs: 0, keepGenerations: 1 },
  );
  return { store, publisher };
}

/** Dates every index file's last touch back past the grace period. */
async function touchedLongAgo() {
  await db()
    .updateTable("index_blob")
    .set({ touched_at: new Date(Date.now() - 3_600_000).toISOString() })
    .execute();
}

/** Holds the next `exists(hex)` that finds the file stored, after it answered. */
function holdAfterFoundStored(store: BlobStore, hex: string, g: ReturnType<typeof gate>) {
  const original = store.exists;
  let held = false;
  store.exists = async (asked) => {
    const found = await original(asked);
    if (asked === hex && found && !held) {
      held = true;
      await g.wait();
    }
    return found;
  };
}

/** Holds the store's write of `hex` at the gate, before it writes. */
function holdPut(store: BlobStore, hex: string, g: ReturnType<typeof gate>) {
  const original = store.putBytes;
  store.putBytes = async (bytes, asked, options) => {
    if (asked === hex) await g.wait();
    return original(bytes, asked, options);
  };
}

/** Holds the store's delete of `hex` at the gate. */
function holdDelete(store: BlobStore, hex: string, g: ReturnType<typeof gate>) {
  const original = store.delete;
  store.delete = async (asked) => {
    if (asked === hex) await g.wait();
    return original(asked);
  };
}

async function served(publisher: RepositoryPublisher, store: BlobStore, projectId: string, text: string) {
  const current = await publisher.currentFile(projectId, "apt", "stable", "index0");
  expect(current?.sha256).toBe(sha256(text));
  expect(await store.exists(sha256(text))).toBe(true);
  const chunks: Uint8Array[] = [];
  for await (const chunk of await store.open(sha256(text))) chunks.push(chunk as Uint8Array);
  expect(Buffer.concat(chunks).toString()).toBe(text);
}

describe(`index files shared between projects and servers (${databaseKind})`, () => {
  it("keeps a file a build on another server reuses while the first project's publish prunes it", async () => {
    const a = server();
    const b = server();
    const first = projectIds.first!;
    const second = projectIds.second!;
    content.set(first, ["shared index"]);
    await a.publisher.publish(first);
    await touchedLongAgo();

    // Server B builds the second project with the very same file and one of its own: its touch
    // found the shared file referred to by a generation (stored: neither asked about nor
    // written), and B is held while it writes its own file...
    const own = gate();
    holdPut(b.store, sha256("second's own"), own);
    const asked: string[] = [];
    const exists = b.store.exists;
    b.store.exists = (hex) => {
      asked.push(hex);
      return exists(hex);
    };
    content.set(second, ["shared index", "second's own"]);
    const reusing = b.publisher.publish(second);
    await own.reached;
    expect(asked).toEqual([]);

    // ...while server A moves the first project on (its prune drops the generation that referred
    // to the file) and collects garbage.
    content.set(first, ["first moved on"]);
    await a.publisher.publish(first);
    expect(await a.publisher.currentFile(first, "apt", "stable", "index0")).toMatchObject({
      sha256: sha256("first moved on"),
    });
    expect(await a.publisher.collectIndexFiles(GRACE_MS)).toBe(0);
    expect(await a.store.exists(sha256("shared index"))).toBe(true);

    own.open();
    await reusing;
    await served(b.publisher, b.store, second, "shared index");
    // Once referred to, no pass removes it, however old its touch.
    await touchedLongAgo();
    await a.publisher.collectIndexFiles(GRACE_MS);
    await served(b.publisher, b.store, second, "shared index");
  });

  it("a build reusing a file the sweep is deleting waits for the sweep, then stores the file again", async () => {
    const a = server();
    const b = server();
    const first = projectIds.first!;
    const second = projectIds.second!;
    content.set(first, ["reused while swept"]);
    await a.publisher.publish(first);
    content.set(first, ["first moved on again"]);
    await a.publisher.publish(first);
    await touchedLongAgo();

    // Server A's sweep holds the file's row and stops just before it deletes the bytes...
    const atDelete = gate();
    holdDelete(a.store, sha256("reused while swept"), atDelete);
    const sweeping = a.publisher.collectIndexFiles(GRACE_MS);
    await atDelete.reached;
    // ...while server B builds the same file: its touch waits for the row (PostgreSQL: the
    // upsert blocks on the lock; SQLite: behind the one writer).
    content.set(second, ["reused while swept"]);
    const reusing = b.publisher.publish(second);
    await lockedOrSettled(db(), reusing);
    atDelete.open();
    expect(await sweeping).toBeGreaterThanOrEqual(1);
    await reusing;
    await served(b.publisher, b.store, second, "reused while swept");
  });

  it("a build slower than the grace period finds its reused file swept at the switch and stores it again", async () => {
    const a = server();
    const b = server();
    const first = projectIds.first!;
    const second = projectIds.second!;
    content.set(first, ["slow build"]);
    await a.publisher.publish(first);
    content.set(first, ["first moved on a third time"]);
    await a.publisher.publish(first);
    await touchedLongAgo();

    const found = gate();
    holdAfterFoundStored(b.store, sha256("slow build"), found);
    content.set(second, ["slow build"]);
    const reusing = b.publisher.publish(second);
    await found.reached;
    // The grace passes while B is held: the sweep may remove the file B touched.
    await touchedLongAgo();
    expect(await a.publisher.collectIndexFiles(GRACE_MS)).toBeGreaterThanOrEqual(1);
    expect(await a.store.exists(sha256("slow build"))).toBe(false);

    found.open();
    await reusing;
    await served(b.publisher, b.store, second, "slow build");
  });

  it("removes a deleted project's index files after the grace period and keeps those another project refers to", async () => {
    const a = server();
    const third = projectIds.third!;
    const fourth = projectIds.fourth!;
    // What the tests above left unreferenced goes first.
    await touchedLongAgo();
    await a.publisher.collectIndexFiles(GRACE_MS);
    content.set(third, ["only the third project's", "shared by third and fourth"]);
    content.set(fourth, ["shared by third and fourth"]);
    await a.publisher.publish(third);
    await a.publisher.publish(fourth);
    expect(await a.store.exists(sha256("only the third project's"))).toBe(true);

    const res = await app.request("/api/v1/projects/third", { method: "DELETE", cookie });
    expect(res.status).toBe(204);
    const rows = await db()
      .selectFrom("repo_generation")
      .select("id")
      .where("project_id", "=", third)
      .execute();
    expect(rows).toEqual([]);

    // Within the grace period (the files were touched by the build just now): kept.
    expect(await a.publisher.collectIndexFiles(GRACE_MS)).toBe(0);
    expect(await a.store.exists(sha256("only the third project's"))).toBe(true);

    await touchedLongAgo();
    expect(await a.publisher.collectIndexFiles(GRACE_MS)).toBe(1);
    expect(await a.store.exists(sha256("only the third project's"))).toBe(false);
    const left = await db()
      .selectFrom("index_blob")
      .select("sha256")
      .where("sha256", "=", sha256("only the third project's"))
      .execute();
    expect(left).toEqual([]);
    await served(a.publisher, a.store, fourth, "shared by third and fourth");
  });

  it("removes index bytes no row claims once they are older than the grace period", async () => {
    const a = server();
    const stray = new TextEncoder().encode("written by a build cut off before its first touch");
    await a.store.putBytes(stray, sha256("written by a build cut off before its first touch"));
    expect(await a.publisher.collectIndexFiles(GRACE_MS)).toBe(0);
    expect(await a.publisher.collectIndexFiles(0)).toBe(1);
    expect(await a.store.exists(sha256("written by a build cut off before its first touch"))).toBe(false);
    await served(a.publisher, a.store, projectIds.fourth!, "shared by third and fourth");
  });
});

describe(`files a builder hands over early (${databaseKind})`, () => {
  it("stores them while the build goes on, once, and the generation lists them", async () => {
    const store = createLocalBlobStore(storeDir);
    let writes = 0;
    const putBytes = store.putBytes.bind(store);
    store.putBytes = async (...args) => {
      writes++;
      return putBytes(...args);
    };
    const text = "handed over before the build was done";
    const bytes = new TextEncoder().encode(text);
    const digests = { sha256: sha256(text), sha512: createHash("sha512").update(text).digest("hex") };
    const early: FormatBuilder = {
      format: "apt",
      async build(context) {
        context.storeEarly?.("stable", "index0", bytes, digests);
        // The build goes on only once the file is stored: it was stored while building.
        for (let i = 0; i < 500 && !(await store.exists(digests.sha256)); i++)
          await new Promise((resolve) => setTimeout(resolve, 5));
        expect(await store.exists(digests.sha256)).toBe(true);
        return [
          { name: "stable", files: new Map([["index0", bytes]]), digests: new Map([["index0", digests]]) },
        ];
      },
    };
    const publisher = new RepositoryPublisher(
      { db: db(), store, keys: app.services.keys, logger: app.services.logger, builders: [early] },
      { graceMs: 0, keepGenerations: 1 },
    );
    await publisher.publish(projectIds.early!);
    expect(writes).toBe(1);
    await served(publisher, store, projectIds.early!, text);
  });

  it("hands the small files it stores to the serving cache, so their first request reads nothing back", async () => {
    const { store, publisher } = server();
    const small = "InRelease-sized";
    const large = "x".repeat(200 * 1024);
    content.set(projectIds.primed!, [small, large]);
    const cache = app.services.database.caches.content;
    expect(cache.get(sha256(small))).toBeUndefined();
    await publisher.publish(projectIds.primed!);
    await served(publisher, store, projectIds.primed!, small);
    expect(cache.get(sha256(small))?.toString()).toBe(small);
    // A large file (Packages.gz, primary.xml.gz) waits for a request that wants it.
    expect(cache.get(sha256(large))).toBeUndefined();
  });
});

describe(`spares of the large index files (${databaseKind})`, () => {
  it("writes a publish's large files from copies of the previous ones, and keeps no copy unused", async () => {
    const store = createLocalBlobStore(storeDir);
    const fromSpares: number[] = [];
    const putBytes = store.putBytes.bind(store);
    store.putBytes = async (bytes, hash, options) => {
      if (options?.spare) fromSpares.push(bytes.byteLength);
      return putBytes(bytes, hash, options);
    };
    const publisher = new RepositoryPublisher(
      { db: db(), store, keys: app.services.keys, logger: app.services.logger, builders: [builder] },
      // index0 gets a spare; index1, smaller, does not.
      { graceMs: 0, keepGenerations: 1, spareMinBytes: 64 * 1024 },
    );
    const spares = () => readdirSync(join(storeDir, "tmp")).filter((name) => name.endsWith(".spare"));
    const id = projectIds.spared!;
    const stanzas = "Package: spared\nVersion: 1\n\n".repeat(4_000);
    content.set(id, [`${stanzas}Package: one\n`, "Release"]);
    await publisher.publish(id);
    await publisher.sparesSettled();
    expect(spares()).toHaveLength(1);
    // One package more at the end: written from the spare, which is used up by it; a copy of
    // the new file becomes the next spare once the publish is over.
    content.set(id, [`${stanzas}Package: one\n\nPackage: two\n`, "Release 2"]);
    await publisher.publish(id);
    expect(fromSpares).toEqual([stanzas.length + "Package: one\n\nPackage: two\n".length]);
    expect(spares()).toEqual([]);
    await served(publisher, store, id, `${stanzas}Package: one\n\nPackage: two\n`);
    await publisher.sparesSettled();
    expect(spares()).toHaveLength(1);
    // A file that begins otherwise is written whole, and right as well.
    content.set(id, [`Package: first\n\n${stanzas}`, "Release 3"]);
    await publisher.publish(id);
    await served(publisher, store, id, `Package: first\n\n${stanzas}`);
    await publisher.sparesSettled();
    expect(spares()).toHaveLength(1);
    await publisher.close();
    expect(spares()).toEqual([]);
  });
});

const s3rverModule = await loadS3rver();

describe.skipIf(!s3rverModule)(`index files on S3 (${databaseKind})`, () => {
  it("writes a file whose row the build inserted without a HeadObject, skips one a generation refers to, and asks about one whose row is there alone", async () => {
    const s3 = await startS3rver(s3rverModule!);
    const client = createS3Client(s3.settings);
    try {
      /** The requests sent, as command and key. */
      const sent: string[] = [];
      client.middlewareStack.add(
        (next, context) => async (args) => {
          sent.push(`${context.commandName} ${(args.input as { Key?: string }).Key ?? ""}`);
          return next(args);
        },
        { step: "initialize", name: "countRequests" },
      );
      const store = createS3BlobStore(client, s3.settings.bucket, "indexes/");
      const publisher = new RepositoryPublisher(
        { db: db(), store, keys: app.services.keys, logger: app.services.logger, builders: [builder] },
        { graceMs: 0, keepGenerations: 1 },
      );
      const id = projectIds["on-s3"]!;
      const key = (text: string) => `indexes/sha256/${sha256(text)}`;
      const kept = "on S3, unchanged between publishes";

      // Both files are new content: their rows are inserted by the build's touch, so each is
      // put at once, without asking the bucket first.
      content.set(id, [kept, "on S3, first"]);
      await publisher.publish(id);
      expect(sent.filter((r) => r.startsWith("HeadObjectCommand"))).toEqual([]);
      expect(sent.filter((r) => r.startsWith("PutObjectCommand")).sort()).toEqual(
        [`PutObjectCommand ${key(kept)}`, `PutObjectCommand ${key("on S3, first")}`].sort(),
      );
      await served(publisher, store, id, kept);

      // The unchanged file's row was there and the generation being served refers to it: its
      // bytes were written before that switch, so the bucket is not asked; the changed one is
      // new and only put.
      sent.length = 0;
      content.set(id, [kept, "on S3, second"]);
      await publisher.publish(id);
      expect(sent.filter((r) => /^(Head|Put)Object/.test(r)).sort()).toEqual([
        `PutObjectCommand ${key("on S3, second")}`,
      ]);

      // A row that is there with no generation referring to it and its bytes never written (a
      // build cut off between its touch and its write): asked, found missing, written.
      const cutOff = "on S3, left by a build cut off";
      await db()
        .insertInto("index_blob")
        .values({ sha256: sha256(cutOff), size: cutOff.length, touched_at: new Date().toISOString() })
        .execute();
      sent.length = 0;
      content.set(id, [cutOff, "on S3, third"]);
      await publisher.publish(id);
      expect(sent.filter((r) => /^(Head|Put)Object/.test(r)).sort()).toEqual(
        [
          `HeadObjectCommand ${key(cutOff)}`,
          `PutObjectCommand ${key(cutOff)}`,
          `PutObjectCommand ${key("on S3, third")}`,
        ].sort(),
      );
      await served(publisher, store, id, cutOff);
      // The generations are numbered on, one statement for all repositories.
      const newest = await publisher.servedFile(id, "apt", "stable", "index0");
      expect(newest?.generationNumber).toBe(3);
    } finally {
      client.destroy();
      await s3.stop();
    }
  });
});
