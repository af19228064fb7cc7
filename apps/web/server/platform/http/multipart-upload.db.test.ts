// A multipart upload is bounded by MAX_UPLOAD_BYTES for all its files together (docs/api.md):
// two parts each under the limit but over it together are refused, and nothing of either is kept;
// parts that fit together are stored. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestApp,
  databaseKind,
  publishingProject,
  storedState,
  type TestApp,
} from "../../../test/harness.ts";
import { collectLeftovers } from "../../maintenance.ts";

const LIMIT = 1024 * 1024;
let app: TestApp;
let auth: Record<string, string>;

beforeAll(async () => {
  app = await createTestApp({ MAX_UPLOAD_BYTES: String(LIMIT) });
  ({ auth } = await publishingProject(app, "parts", "parts"));
  const release = await app.request("/api/v1/projects/parts/releases", {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ version: "1.0.0" }),
  });
  expect(release.status).toBe(201);
});
afterAll(async () => {
  await app?.close();
});

function upload(files: Record<string, number>) {
  const form = new FormData();
  for (const [name, size] of Object.entries(files)) {
    form.append("file", new Blob([new Uint8Array(size).fill(name.charCodeAt(0))]), name);
  }
  return app.request("/api/v1/projects/parts/releases/1.0.0/files", {
    method: "POST",
    headers: auth,
    body: form,
  });
}

describe(`multipart uploads and MAX_UPLOAD_BYTES (${databaseKind})`, () => {
  it("refuses two 600,000-byte files under a 1 MiB limit, and keeps neither", async () => {
    const before = await storedState(app, ["release_file", "blob"]);
    const res = await upload({ "a.bin": 600_000, "b.bin": 600_000 });
    expect(res.status).toBe(413);
    expect((await res.json()).error).toEqual({
      code: "PAYLOAD_TOO_LARGE",
      message: `The files of this upload together are larger than the limit of ${LIMIT} bytes`,
    });
    // The first file's row is undone; its bytes go with the next sweep (decision 022).
    expect((await storedState(app, ["release_file"])).release_file).toBe(before.release_file);
    await collectLeftovers(app.services, 0);
    expect(await storedState(app, ["release_file", "blob"])).toEqual(before);
    const listed = await app.request("/api/v1/projects/parts/releases/1.0.0/files", { headers: auth });
    expect((await listed.json()).files).toEqual([]);
  });

  it("stores files that fit the limit together", async () => {
    const res = await upload({ "c.bin": 500_000, "d.bin": 500_000 });
    expect(res.status).toBe(201);
    const { files } = (await res.json()) as { files: { filename: string; size: number }[] };
    expect(files.map((f) => [f.filename, f.size]).sort()).toEqual([
      ["c.bin", 500_000],
      ["d.bin", 500_000],
    ]);
  });
});
