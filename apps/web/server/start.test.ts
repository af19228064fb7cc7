// Start-up in steps (decision 037): the socket listens before the services exist, /ok answers
// from then on, and every other request — /readyz too — waits until the services are up and is
// then answered as usual; the first page loads the React Router build.
import { afterAll, describe, expect, it, vi } from "vitest";
import { freePort } from "../test/server-process.ts";
import { makeTempDir, removeTempDirs } from "../test/temp-dirs.ts";
import { loadConfig } from "./platform/config/config.ts";
import { type RunningServer, startServer } from "./start.ts";

/** Opened by the test: the real createServices runs only then. */
const gate = vi.hoisted(() => {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open, isOpen: false };
});

vi.mock("./services.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("./services.ts")>();
  return {
    ...real,
    createServices: async (...args: Parameters<typeof real.createServices>) => {
      await gate.opened;
      return real.createServices(...args);
    },
  };
});

const servers: RunningServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
  removeTempDirs();
});

async function configFor(dataDir: string) {
  const port = await freePort();
  return loadConfig({
    DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    SECRET: "start-test-secret-start-test-secret-0000",
    LOG_LEVEL: "warn",
    NODE_ENV: "test",
  });
}

async function untilAnswered(url: string): Promise<Response> {
  for (;;) {
    try {
      return await fetch(url);
    } catch {
      await new Promise((r) => setTimeout(r, 10)); // not listening yet
    }
  }
}

describe("startServer", () => {
  it("answers /ok while the services start; /readyz, the API and the first page wait for them", async () => {
    const config = await configFor(makeTempDir("packyard-start-"));
    const base = `http://127.0.0.1:${config.port}`;
    const starting = startServer(config);

    const ok = await untilAnswered(`${base}/ok`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true });
    expect(gate.isOpen).toBe(false);

    // Sent before the services exist; each records whether the gate was open when it was answered.
    const answeredAfterOpen = (path: string) =>
      fetch(`${base}${path}`).then(async (res) => ({
        open: gate.isOpen,
        status: res.status,
        body: await res.text(),
      }));
    const readyz = answeredAfterOpen("/readyz");
    const session = answeredAfterOpen("/api/auth/get-session");
    // Answered by then: the two requests before it have reached the server.
    expect((await fetch(`${base}/ok`)).status).toBe(200);
    gate.isOpen = true;
    gate.open();

    const ready = await readyz;
    expect(ready).toMatchObject({ open: true, status: 200 });
    expect(JSON.parse(ready.body)).toEqual({ ok: true, checks: { database: "ok", storage: "ok" } });
    expect(await session).toMatchObject({ open: true, status: 200, body: "null" });

    const server = await starting;
    servers.push(server);
    // The first page loads the build.
    const home = await fetch(`${base}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("Package management made simple");
    expect((await fetch(`${base}/ok`)).status).toBe(200);
  });

  it("still refuses to start without the web build, saying how to make it", async () => {
    const config = await configFor(makeTempDir("packyard-start-"));
    const buildDir = makeTempDir("packyard-no-build-");
    await expect(startServer(config, { buildDir })).rejects.toThrow(
      `Cannot load the web build at ${buildDir}/server/index.js; run "npm run build" first.`,
    );
    // Nothing listens: the port is free again.
    await expect(fetch(`http://127.0.0.1:${config.port}/ok`)).rejects.toThrow();
  });
});
