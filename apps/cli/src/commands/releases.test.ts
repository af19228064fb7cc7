// packyard releases list|show|yank|unyank|delete|promote against a real Packyard, for people and --json.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, publisher, startLiveServer } from "../test-support/live-server.ts";
import { cliHome, runCli } from "../test-support/run-cli.ts";

let server: LiveServer;
let alice: Awaited<ReturnType<typeof publisher>>;
const work = mkdtempSync(join(tmpdir(), "packyard-cli-releases-"));

const cli = async (...args: string[]) => {
  const result = await runCli(args, {
    env: { ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_TOKEN: alice.token },
  });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

beforeAll(async () => {
  server = await startLiveServer();
  alice = await publisher(server, "alice");
  await alice.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "widget", name: "Widget" }),
  });
  const file = join(work, "widget.tar.gz");
  writeFileSync(file, "widget\n");
  writeFileSync(join(work, "notes.md"), "Fixes everything.\n");
  await cli("push", "alice/widget", "1.0.0", file);
  await cli("push", "alice/widget", "1.1.0", file, "--title", "Faster", "--notes", join(work, "notes.md"));
});

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await server?.close();
});

describe("packyard releases", () => {
  it("list: newest first, with files, downloads and yanked state", async () => {
    const lines = (await cli("releases", "list", "widget")).trimEnd().split("\n");
    expect(lines[0]).toMatch(/^VERSION\s+PUBLISHED\s+FILES\s+DOWNLOADS\s+YANKED\s+TITLE$/);
    expect(lines[1]).toMatch(/^1\.1\.0\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+1\s+0\s+-\s+Faster$/);
    expect(lines[2]).toMatch(/^1\.0\.0\s+.*\s+1\s+0\s+-$/);
    const json = JSON.parse(await cli("releases", "list", "alice/widget", "--json"));
    expect(json.releases.map((r: { version: string }) => r.version)).toEqual(["1.1.0", "1.0.0"]);
  });

  it("show: title, notes, page and files with sha256", async () => {
    const out = await cli("releases", "show", "widget", "1.1.0");
    expect(out).toContain("alice/widget 1.1.0 — Faster");
    expect(out).toContain("Fixes everything.");
    expect(out).toContain(`Page: ${server.url}/releases/alice/widget/1.1.0`);
    expect(out).toMatch(/widget\.tar\.gz\s+7 B\s+archive\s+0\s+[0-9a-f]{64}/);
    const json = JSON.parse(await cli("releases", "show", "widget", "1.1.0", "--json"));
    expect(json.release).toMatchObject({ version: "1.1.0", title: "Faster", notes: "Fixes everything.\n" });
  });

  it("yank with a reason, then unyank", async () => {
    expect(await cli("releases", "yank", "widget", "1.1.0", "--reason", "Corrupt build")).toBe(
      "Yanked alice/widget 1.1.0: Corrupt build\n",
    );
    const yanked = JSON.parse(await cli("releases", "show", "widget", "1.1.0", "--json")).release;
    expect(yanked).toMatchObject({ yanked: true, yankedReason: "Corrupt build" });
    expect(await cli("releases", "list", "widget")).toMatch(/^1\.1\.0 .* yes\s+Faster$/m);

    expect(await cli("releases", "unyank", "widget", "1.1.0")).toBe("Restored alice/widget 1.1.0\n");
    const restored = JSON.parse(await cli("releases", "unyank", "widget", "1.1.0", "--json")).release;
    expect(restored.yanked).toBe(false);
  });

  it("promote --to-project copies the release into another project; a missing target is a usage error", async () => {
    await alice.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug: "widget-stable", name: "Widget stable" }),
    });
    const out = await cli("releases", "promote", "widget", "1.1.0", "--to-project", "widget-stable");
    expect(out).toContain("Copied alice/widget 1.1.0 to alice/widget-stable 1.1.0");
    expect(out).toMatch(/widget\.tar\.gz\s+-\s+[0-9a-f]{64}/);
    const copy = JSON.parse(await cli("releases", "show", "widget-stable", "1.1.0", "--json")).release;
    expect(copy).toMatchObject({ version: "1.1.0", title: "Faster" });

    const again = await runCli(["releases", "promote", "widget", "1.1.0", "--to-project", "widget-stable"], {
      env: { ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_TOKEN: alice.token },
    });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("already exists in widget-stable");
    const none = await runCli(["releases", "promote", "widget", "1.1.0"], {
      env: { ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_TOKEN: alice.token },
    });
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain("Name a target");
  });

  it("delete --yes removes the release and its files", async () => {
    expect(await cli("releases", "delete", "widget", "1.0.0", "--yes")).toBe("Deleted alice/widget 1.0.0\n");
    expect((await alice.api("/api/v1/projects/widget/releases/1.0.0")).status).toBe(404);
  });
});
