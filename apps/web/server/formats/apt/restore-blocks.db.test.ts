// A fresh process's first publish takes the served Packages.gz / Packages.xz blocks back from
// the index store instead of compressing every block again (restore-blocks.ts), and what it
// publishes is byte for byte what the running server published — blocks the server stored in
// Packages.xz (decision 049) included, which it compresses after the publish.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { isStoredXzBlock } from "@packyard/formats/compress/xz-stored.ts";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../../test/harness.ts";
import { MemoryBudget } from "../../repositories/memory-budget.ts";
import { RepositoryPublisher } from "../../repositories/publisher.ts";
import { createAptBuilder } from "./builder.ts";
import { splitXzStream, systemXzEncoder, type XzEncoder } from "./xz-blocks.ts";

const hasTools = requireTools(["xz"]);

function deb(name: string) {
  return buildTestDeb({
    control: `Package: ${name}\nVersion: 1.0.0\nArchitecture: amd64\nMaintainer: Tests <t@example.com>\nDescription: ${name}\n one script\n`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name}\n` }],
  });
}

let app: TestApp;
let auth: Record<string, string>;
let projectId: string;

async function upload(name: string) {
  const res = await app.request(`/api/v1/projects/tools/releases/1.0.0/files/${name}_1.0.0_amd64.deb`, {
    method: "PUT",
    headers: auth,
    body: Buffer.from(deb(name)),
  });
  expect(res.status).toBe(201);
}

/** The newest generation's amd64 index files: path → sha256. */
async function servedIndex(): Promise<Record<string, string>> {
  const db = app.services.database.db;
  const generation = await db
    .selectFrom("repo_generation")
    .select("id")
    .where("project_id", "=", projectId)
    .where("format", "=", "apt")
    .orderBy("number", "desc")
    .executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom("repo_index_file")
    .select(["path", "sha256", "sha512"])
    .where("generation_id", "=", generation.id)
    .where("path", "like", "main/binary-amd64/Packages%")
    .execute();
  return Object.fromEntries(rows.map((r) => [r.path, `${r.sha256} ${r.sha512}`]));
}

/** The newest generation's amd64 Packages.xz. */
async function servedXz(): Promise<Buffer> {
  const sha256 = (await servedIndex())["main/binary-amd64/Packages.xz"]!.split(" ")[0]!;
  const chunks: Buffer[] = [];
  for await (const chunk of await app.services.repos.store.open(sha256)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const storedIn = (xz: Buffer) => splitXzStream(xz).filter((b) => isStoredXzBlock(b.block)).length;

function unxz(bytes: Uint8Array): string {
  const out = spawnSync("xz", ["-dc"], { input: bytes });
  expect(out.status, out.stderr.toString()).toBe(0);
  return createHash("sha256").update(out.stdout).digest("hex");
}

describe.runIf(hasTools)(`a fresh process's first APT publish (${databaseKind})`, () => {
  beforeAll(async () => {
    app = await createTestApp();
    ({ auth } = await publishingProject(app, "restorer", "tools"));
    const project = await app.services.database.db
      .selectFrom("project")
      .select("id")
      .where("slug", "=", "tools")
      .executeTakeFirstOrThrow();
    projectId = project.id;
    // Four blocks: pkg-004, pkg-127 and pkg-141 each start one (startsBlock: their names hash
    // to 0 modulo 32).
    for (let i = 0; i < 10; i++) await upload(`pkg-${String(i).padStart(3, "0")}`);
    await upload("pkg-127");
    await upload("pkg-141");
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  it("reuses the served blocks, compresses only what changed, and publishes the same bytes", async () => {
    const compressed: number[] = [];
    const xz = systemXzEncoder();
    const encoder: XzEncoder = (texts) => {
      compressed.push(texts.length);
      return xz(texts);
    };
    // Another server process on the same database and index store: nothing in its memory.
    const builder = createAptBuilder(new MemoryBudget(64 * 1024 * 1024), { xz: () => encoder });
    const fresh = new RepositoryPublisher(
      {
        db: app.services.database.db,
        store: app.services.repos.store,
        keys: app.services.keys,
        logger: app.services.logger,
        builders: [builder],
      },
      { graceMs: 60_000, keepGenerations: 5 },
    );
    const served = await servedIndex();
    expect(Object.keys(served).sort()).toEqual([
      "main/binary-amd64/Packages",
      "main/binary-amd64/Packages.gz",
      "main/binary-amd64/Packages.xz",
    ]);
    // The running server's last publish stored the block it changed (decision 049).
    const stored = storedIn(await servedXz());
    expect(stored).toBeGreaterThan(0);
    await fresh.publish(projectId);
    // Every block came back from the served files, the same files; xz only afterwards, for the
    // blocks stored in them.
    expect(await servedIndex()).toEqual(served);
    await builder.settled();
    expect(compressed).toEqual([stored]);

    // One more package (into the first block), published by the running server; then by the
    // other one, which now keeps the restored blocks (compressed) and their hash midstates: it
    // stores the changed block and compresses it after the publish.
    await upload("aaa-sorts-first");
    const next = await servedIndex();
    expect(next).not.toEqual(served);
    await fresh.publish(projectId);
    const mine = await servedIndex();
    for (const path of ["main/binary-amd64/Packages", "main/binary-amd64/Packages.gz"])
      expect(mine[path], path).toBe(next[path]);
    const published = await servedXz();
    expect(storedIn(published)).toBe(1);
    expect(unxz(published)).toBe(next["main/binary-amd64/Packages"]!.split(" ")[0]);
    await builder.settled();
    expect(compressed).toEqual([stored, 1]);
  }, 60_000);
});
