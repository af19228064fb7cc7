import { createHash } from "node:crypto";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { afterAll, describe, expect, it } from "vitest";
import {
  PROCESS_TEST_SECRET,
  type ServerProcess,
  signedInCliUser,
  startServerProcess,
} from "../test/server-process.ts";
import { makeTempDir, removeTempDirs } from "../test/temp-dirs.ts";
import { loadConfig } from "./platform/config/config.ts";
import { openDatabase } from "./platform/db/database.ts";
import { createLocalBlobStore } from "./platform/storage/blob-store.ts";
import { uploadFile } from "./releases/files.ts";

const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
  removeTempDirs();
});

async function start(dataDir: string) {
  const server = await startServerProcess({ DATA_DIR: dataDir });
  servers.push(server);
  return server;
}

/** Kills the process as a crash would: no shutdown, no flush. */
async function crash(server: ServerProcess) {
  const exited = new Promise((r) => server.child.once("exit", r));
  server.child.kill("SIGKILL");
  await exited;
}

const deb = (name: string, version: string) =>
  buildTestDeb({
    control: `Package: ${name}\nVersion: ${version}\nArchitecture: amd64\nMaintainer: T <t@example.com>\nDescription: ${name}\n`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name}\n` }],
  });

async function packagesIndex(server: ServerProcess, owner: string, slug: string) {
  const res = await fetch(`${server.url}/dl/${owner}/${slug}/deb/dists/stable/main/binary-amd64/Packages`);
  return res.ok ? res.text() : "";
}

async function eventually(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("after a crash (SIGKILL)", () => {
  it("publishes at the next start the packages committed just before the crash", async () => {
    const dataDir = makeTempDir("packyard-crash-");
    const first = await start(dataDir);
    const auth = await signedInCliUser(first, "crashy");
    const created = await fetch(`${first.url}/api/v1/projects`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ slug: "tool", name: "Tool" }),
    });
    expect(created.status).toBe(201);
    const put = await fetch(`${first.url}/api/v1/projects/tool/releases/1.0.0/files/before_1.0.0_amd64.deb`, {
      method: "PUT",
      headers: auth,
      body: Buffer.from(deb("before", "1.0.0")),
    });
    expect(put.status).toBe(201);
    expect(await packagesIndex(first, "crashy", "tool")).toContain("Package: before");
    await crash(first);

    // The state a crash between an upload's commit and its publish leaves: the upload's own
    // code committed it (rows, change log, bytes), and no process published it.
    const config = loadConfig({ DATA_DIR: dataDir, SECRET: PROCESS_TEST_SECRET, LOG_LEVEL: "silent" });
    const database = openDatabase(config.database);
    try {
      const project = await database.db
        .selectFrom("project")
        .selectAll()
        .where("slug", "=", "tool")
        .executeTakeFirstOrThrow();
      const bytes = deb("after", "2.0.0");
      await uploadFile(database.db, createLocalBlobStore(config.blobDir), {
        project,
        version: "2.0.0",
        filename: "after_2.0.0_amd64.deb",
        body: (async function* () {
          yield bytes;
        })(),
        maxBytes: config.maxUploadBytes,
        createRelease: true,
        limits: config,
      });
    } finally {
      await database.close();
    }

    const second = await start(dataDir);
    await eventually(
      async () => (await packagesIndex(second, "crashy", "tool")).includes("Package: after"),
      "the committed package to be published",
    );
    const index = await packagesIndex(second, "crashy", "tool");
    expect(index).toContain("Package: before");
    expect(index).toContain("Package: after");
  });

  it("collects partial uploads, half-written indexes and bytes no row claims, and keeps what is fresh or stored", async () => {
    const dataDir = makeTempDir("packyard-leftovers-");
    const first = await start(dataDir);
    await crash(first);

    const old = new Date(Date.now() - 60 * 60 * 1000);
    const write = (path: string, content: string, mtime?: Date) => {
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, content);
      if (mtime) utimesSync(path, mtime, mtime);
      return path;
    };
    const sha = (s: string) => createHash("sha256").update(s).digest("hex");
    const blobPath = (root: string, hex: string) =>
      join(root, "sha256", hex.slice(0, 2), hex.slice(2, 4), hex);
    const blobs = join(dataDir, "blobs");
    const indexes = join(dataDir, "indexes");
    const stale = [
      write(join(blobs, "tmp", "crashed-upload.part"), "partial", old),
      write(join(indexes, "tmp", "crashed-index.part"), "partial", old),
      write(blobPath(blobs, sha("never committed")), "never committed", old),
      write(blobPath(indexes, sha("no generation")), "no generation", old),
    ];
    const fresh = [
      write(join(blobs, "tmp", "upload-in-flight.part"), "still being written"),
      write(blobPath(blobs, sha("being placed")), "being placed"),
    ];

    await start(dataDir);
    await eventually(async () => stale.every((path) => !existsSync(path)), "leftovers to be removed");
    for (const path of fresh) expect(existsSync(path)).toBe(true);
  });
});
