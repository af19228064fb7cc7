// Index files are stored once by content and shared between generations and projects. A prune
// deleting an index file no generation refers to any more must not meet a build that is just
// reusing the same file: the test holds the prune at the moment it deletes the file, lets another
// project's build reuse it, and checks that project's repository stays whole. The builder is a
// stand-in producing one file whose content the test chooses; storage and database are real.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gate, settlesWithin } from "../../test/gate.ts";
import { createTestApp, databaseKind, onboardedUser, postJson, type TestApp } from "../../test/harness.ts";
import { createLocalBlobStore } from "../storage/blob-store.ts";
import { type FormatBuilder, RepositoryPublisher } from "./publisher.ts";

let app: TestApp;
let storeDir: string;
const projectIds: Record<string, string> = {};

beforeAll(async () => {
  app = await createTestApp();
  storeDir = mkdtempSync(join(tmpdir(), "packyard-index-store-"));
  const { cookie } = await onboardedUser(app, "indexer");
  for (const slug of ["first", "second"]) {
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

describe(`index files shared between projects (${databaseKind})`, () => {
  it("keeps a file another project's build reuses while a prune deletes it", async () => {
    const content = new Map<string, string>();
    const builder: FormatBuilder = {
      format: "apt",
      async build(context) {
        const text = new TextEncoder().encode(content.get(context.project.id) ?? "");
        return [{ name: "stable", files: new Map([["index", text]]) }];
      },
    };
    const store = createLocalBlobStore(storeDir);
    const publisher = new RepositoryPublisher(
      {
        db: app.services.database.db,
        store,
        keys: app.services.keys,
        logger: app.services.logger,
        builders: [builder],
      },
      // A superseded generation expires at once; only the newest is kept.
      { graceMs: 0, keepGenerations: 1 },
    );
    const first = projectIds.first!;
    const second = projectIds.second!;

    content.set(first, "shared index");
    await publisher.publish(first);
    expect(await store.exists(sha256("shared index"))).toBe(true);

    // The first project moves on; its publish prunes the generation holding the shared file and
    // is held just as it deletes it...
    const original = store.delete;
    const atDelete = gate();
    store.delete = async (hex) => {
      if (hex === sha256("shared index")) await atDelete.wait();
      return original(hex);
    };
    try {
      content.set(first, "first moved on");
      const pruning = publisher.publish(first);
      await atDelete.reached;
      // ...while the second project publishes the very same file.
      content.set(second, "shared index");
      const reusing = publisher.publish(second);
      await settlesWithin(reusing, 500);
      atDelete.open();
      await pruning;
      await reusing;
    } finally {
      store.delete = original;
    }

    const current = await publisher.currentFile(second, "apt", "stable", "index");
    expect(current?.sha256).toBe(sha256("shared index"));
    expect(await store.exists(sha256("shared index"))).toBe(true);
  });
});
