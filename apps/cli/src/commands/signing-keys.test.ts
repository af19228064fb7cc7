// packyard signing-keys list|rotate: the project's repository signing keys, against a real Packyard.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, publisher, startLiveServer } from "../test-support/live-server.ts";
import { cliHome, runCli } from "../test-support/run-cli.ts";

let server: LiveServer;
let alice: Awaited<ReturnType<typeof publisher>>;

beforeAll(async () => {
  server = await startLiveServer();
  alice = await publisher(server, "alice");
  await alice.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "widget", name: "Widget" }),
  });
});

afterAll(async () => {
  await server?.close();
});

const run = (...args: string[]) =>
  runCli(args, { env: { ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_TOKEN: alice.token } });

describe("packyard signing-keys", () => {
  it("lists the signing key and rotates to a new one with an overlap", async () => {
    const list = await run("signing-keys", "list", "alice/widget");
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(
      /^FINGERPRINT\s+ALGORITHM\s+CREATED\s+EXPIRES\s+RETIRES\n[0-9A-F]{40}\s+rsa3072\s+\S+ \S+\s+never\s+-\n$/,
    );

    const rotated = await run(
      "signing-keys",
      "rotate",
      "widget",
      "--algorithm",
      "ed25519",
      "--overlap-days",
      "3",
      "--json",
    );
    expect(rotated.code, rotated.stderr).toBe(0);
    const { keys } = JSON.parse(rotated.stdout);
    expect(keys.map((k: { algorithm: string }) => k.algorithm)).toEqual(["rsa3072", "ed25519"]);
    expect(keys[0].retireAt).not.toBeNull();
    expect(keys[1].retireAt).toBeNull();
  });

  it("shows when a key expires once the project gives its keys an expiry", async () => {
    const settings = await alice.api("/api/v1/projects/widget/repository-settings", {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ keyExpiryDays: 365 }),
    });
    expect(settings.status).toBe(200);
    const day = (ms: number) => new Date(ms + 365 * 86_400_000).toISOString().slice(0, 10);
    const before = day(Date.now());
    const rotated = await run("signing-keys", "rotate", "widget", "--overlap-days", "0");
    const after = day(Date.now());
    expect(rotated.code, rotated.stderr).toBe(0);
    const newest = rotated.stdout.trim().split("\n").at(-1) ?? "";
    const match = newest.match(/^[0-9A-F]{40}\s+rsa3072\s+\S+ \S+\s+(\S+) \S+\s+-$/);
    expect(match, newest).not.toBeNull();
    expect([before, after]).toContain(match?.[1]);
  });
});
