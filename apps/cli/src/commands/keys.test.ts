// packyard keys list|create|delete: API keys, against a real Packyard.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, publisher, startLiveServer } from "../test-support/live-server.ts";
import { cliHome, runCli } from "../test-support/run-cli.ts";

let server: LiveServer;
let bob: Awaited<ReturnType<typeof publisher>>;

beforeAll(async () => {
  server = await startLiveServer();
  bob = await publisher(server, "bob");
  await bob.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "gadget", name: "Gadget" }),
  });
});

afterAll(async () => {
  await server?.close();
});

const run = (token: string, ...args: string[]) =>
  runCli(args, { env: { ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_TOKEN: token } });

describe("packyard keys", () => {
  it("creates a scoped key whose secret works, lists it, and deletes it", async () => {
    const created = await run(
      bob.token,
      "keys",
      "create",
      "deploy",
      "--access",
      "read",
      "--projects",
      "gadget",
      "--expires-days",
      "30",
      "--json",
    );
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout);
    expect(key).toMatchObject({ name: "deploy", scope: { access: "read", projects: ["gadget"] } });
    expect(key.key).toMatch(/^pky_/);

    const whoami = await run(key.key, "whoami");
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.stdout).toContain("User:     bob");
    expect(whoami.stdout).toContain("Scope:    read on gadget");

    const list = await run(bob.token, "keys", "list");
    expect(list.code, list.stderr).toBe(0);
    // Used once, by whoami above.
    expect(list.stdout).toMatch(new RegExp(`${key.id}\\s+deploy\\s+pky_\\S*\\s+read gadget\\s+\\d`));

    // A read key cannot manage keys.
    const denied = await run(key.key, "keys", "list");
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/\(KEY_SCOPE\)\n$/);

    const deleted = await run(bob.token, "keys", "delete", key.id);
    expect(deleted.code, deleted.stderr).toBe(0);
    const gone = await run(key.key, "whoami");
    expect(gone.code).toBe(3);
    const again = await run(bob.token, "keys", "delete", key.id);
    expect(again.code).toBe(4);
  });

  it("prints the secret once in plain output, and refuses bad options", async () => {
    const created = await run(bob.token, "keys", "create", "ci");
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/The secret is shown only now:\npky_\S+\n$/);
    const bad = await run(bob.token, "keys", "create", "x", "--access", "admin");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("error: --access must be read or publish (USAGE)\n");
  });
});
