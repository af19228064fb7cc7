// Issue 37, item 2, as it was found: a small Packages.gz that expands to more than a million
// identical stanzas, imported into a real server process. The import fails with
// SOURCE_TOO_LARGE, creates no release, the server's memory stays flat and it keeps answering.
import type { ImportInfo } from "@packyard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repeated, stanza, writeHostileAptSuite } from "../../test/hostile-repository.ts";
import { type ServerProcess, signedInCliUser, startServerProcess } from "../../test/server-process.ts";
import { type StaticServer, startStaticServer } from "../../test/static-server.ts";
import { makeTempDir, removeTempDirs } from "../../test/temp-dirs.ts";
import { MAX_INDEX_BYTES } from "./repository-releases.ts";

const MB = 1024 * 1024;
let server: ServerProcess;
let repository: StaticServer;
let auth: Record<string, string>;

beforeAll(async () => {
  const root = makeTempDir("packyard-bomb-");
  const one = stanza("hello", "1.0-1");
  // Half again as many bytes as an import reads (about 1.3 million stanzas), in a file of a few
  // hundred kilobytes.
  await writeHostileAptSuite(
    root,
    repeated(Math.ceil((1.5 * MAX_INDEX_BYTES) / one.length), () => one),
    "gzip",
  );
  repository = await startStaticServer(root);
  // The repository is on 127.0.0.1.
  server = await startServerProcess({ WEBHOOK_ALLOW_PRIVATE: "true" });
  auth = await signedInCliUser(server, "victim");
  const created = await fetch(`${server.url}/api/v1/projects`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ slug: "mirror", name: "Mirror" }),
  });
  expect(created.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await repository?.stop();
  removeTempDirs();
});

describe("a decompression bomb of identical stanzas, imported into a server process", () => {
  it("fails with SOURCE_TOO_LARGE and no release; memory stays flat and the server answers", async () => {
    const before = server.peakRss();
    const started = await fetch(`${server.url}/api/v1/projects/mirror/imports`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        source: { kind: "apt-repository", url: repository.url, distribution: "stable" },
      }),
    });
    expect(started.status, await started.clone().text()).toBe(202);
    const { import: queued } = (await started.json()) as { import: { id: string } };
    let done: ImportInfo | undefined;
    for (let i = 0; i < 600 && !done; i++) {
      const res = await fetch(`${server.url}/api/v1/projects/mirror/imports/${queued.id}`, { headers: auth });
      const { import: current } = (await res.json()) as { import: ImportInfo };
      if (!["queued", "running"].includes(current.status)) done = current;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(done?.status).toBe("failed");
    expect(done?.errors).toEqual([
      {
        version: null,
        code: "SOURCE_TOO_LARGE",
        message: expect.stringContaining("is larger than 128 MB once decompressed"),
        subject: `${repository.url}dists/stable/main/binary-amd64/Packages.gz`,
      },
    ]);
    const releases = await fetch(`${server.url}/api/v1/projects/mirror/releases`, { headers: auth });
    expect(((await releases.json()) as { releases: unknown[] }).releases).toEqual([]);
    expect((await fetch(`${server.url}/ok`)).status).toBe(200);
    const growth = server.peakRss() - before;
    console.log(
      `server peak RSS ${Math.round(before / MB)} MB → ${Math.round(server.peakRss() / MB)} MB reading a bomb of ${Math.round((1.5 * MAX_INDEX_BYTES) / MB)} MB`,
    );
    // Streamed and deduplicated: nothing grows with the stanzas. (Listing them all took
    // gigabytes before.)
    expect(growth).toBeLessThan(128 * MB);
  }, 120_000);
});
