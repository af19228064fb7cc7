// The server and the React Router build share one copy of every server module (decision 069):
// the production build imports server/ from source instead of bundling a second copy, so state
// a module keeps (download counts waiting in memory, event listeners, caches) is the same for a
// REST handler and a route loader.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, signedInCliUser, startServerProcess } from "../test/server-process.ts";

const BUILD_SERVER_DIR = resolve(import.meta.dirname, "..", "build", "server");

/** Every JavaScript file of the server build. */
function builtFiles(dir = BUILD_SERVER_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return builtFiles(path);
    return entry.name.endsWith(".js") ? [path] : [];
  });
}

describe("the production build", () => {
  let server: ServerProcess;
  let session: { cookie: string; origin: string };

  beforeAll(async () => {
    server = await startServerProcess();
    session = await signedInCliUser(server, "counter");
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("shows a download on the dashboard at once", async () => {
    const headers = { cookie: session.cookie, origin: session.origin };
    const created = await fetch(`${server.url}/api/v1/projects`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ slug: "counted", name: "counted", visibility: "public" }),
    });
    expect(created.status).toBe(201);
    const upload = await fetch(`${server.url}/api/v1/projects/counted/releases/1.0.0/files/tool.txt`, {
      method: "PUT",
      headers,
      body: "tool",
    });
    expect(upload.status).toBe(201);

    const download = await fetch(`${server.url}/dl/counter/counted/releases/1.0.0/tool.txt`);
    expect(await download.text()).toBe("tool");

    // The page's loader writes this server's counts held in memory before it reads them; with a
    // second copy of billing/usage.ts in the build it wrote that copy's (empty) counts, and the
    // download showed up only after the next timed write.
    const page = await fetch(`${server.url}/projects/counted/downloads`, { headers });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(
      /Installs and downloads per day from [^"]*: 0 installs and 1 download in all\./,
    );
  });
});

describe("the server build", () => {
  it("bundles no server module: it imports them from server/, each one a file that exists", () => {
    const files = builtFiles();
    expect(files.length).toBeGreaterThan(0);
    const imported = new Set<string>();
    for (const file of files) {
      const code = readFileSync(file, "utf8");
      // Distinctive definitions from billing/usage.ts and platform/core/errors.ts (both reached by loaders).
      expect(code).not.toMatch(/function flushDownloadCounts\b/);
      expect(code).not.toMatch(/class DomainError\b/);
      for (const [, specifier] of code.matchAll(/from\s*"(\.[^"]*\/server\/[^"]+\.ts)"/g)) {
        const path = resolve(dirname(file), specifier!);
        expect(existsSync(path), `${specifier} from ${file}`).toBe(true);
        imported.add(path);
      }
    }
    expect(imported).toContain(resolve(import.meta.dirname, "billing", "usage.ts"));
  });
});
