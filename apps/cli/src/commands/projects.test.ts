// packyard projects list|create against a real Packyard.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, publisher, startLiveServer } from "../test-support/live-server.ts";
import { cliHome, runCli } from "../test-support/run-cli.ts";

let server: LiveServer;
let alice: Awaited<ReturnType<typeof publisher>>;

beforeAll(async () => {
  server = await startLiveServer();
  alice = await publisher(server, "alice");
});

afterAll(async () => {
  await server?.close();
});

const run = (token: string, ...args: string[]) =>
  runCli(args, { env: { ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_TOKEN: token } });

describe("packyard projects", () => {
  it("creates projects with their details and lists them", async () => {
    const empty = await run(alice.token, "projects", "list");
    expect(empty.stdout).toBe("No projects yet: packyard projects create SLUG\n");

    const created = await run(
      alice.token,
      "projects",
      "create",
      "widget",
      "--name",
      "The Widget",
      "--license",
      "MIT",
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe("Created public project alice/widget\n");
    const secret = await run(
      alice.token,
      "projects",
      "create",
      "secret",
      "--visibility",
      "private",
      "--json",
    );
    expect(JSON.parse(secret.stdout).project).toMatchObject({
      owner: "alice",
      slug: "secret",
      name: "secret",
      visibility: "private",
    });

    const list = await run(alice.token, "projects", "list");
    expect(list.stdout).toMatch(/^PROJECT\s+VISIBILITY\s+LATEST\s+RELEASES\s+DOWNLOADS\s+NAME$/m);
    expect(list.stdout).toMatch(/^alice\/widget\s+public\s+-\s+0\s+0\s+The Widget$/m);
    expect(list.stdout).toMatch(/^alice\/secret\s+private\s+/m);
    const json = JSON.parse((await run(alice.token, "projects", "list", "--json")).stdout);
    expect(json.projects.map((p: { slug: string }) => p.slug).sort()).toEqual(["secret", "widget"]);
  });

  it("a key scoped to chosen projects cannot create one (KEY_SCOPE, exit 3)", async () => {
    const scoped = await alice.key({ projects: [], access: "publish" });
    const result = await run(scoped, "projects", "create", "other");
    expect(result.code).toBe(3);
    expect(result.stderr).toBe("error: This API key is scoped to chosen projects only (KEY_SCOPE)\n");
  });
});
