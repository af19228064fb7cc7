// packyard push against a real Packyard: a .deb, an .rpm (built by rpmbuild, signed by the
// server on upload), an archive and a binary; re-runs; --json; connections cut mid-upload
// or after the server answered (retried without ever storing a file twice), and a corrupted body.
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fault, startFaultProxy } from "../test-support/fault-proxy.ts";
import { type LiveServer, publisher, startLiveServer } from "../test-support/live-server.ts";
import { cliHome, runCli } from "../test-support/run-cli.ts";

const hasRpmbuild = requireTools(["rpmbuild"]);

let server: LiveServer;
let alice: Awaited<ReturnType<typeof publisher>>;
let rpms: TestRpms | undefined;
const work = mkdtempSync(join(tmpdir(), "packyard-cli-push-"));
const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

const deb = join(work, "hello-world_2.10-3_amd64.deb");
const archive = join(work, "widget-1.0.0-linux-amd64.tar.gz");
const binary = join(work, "widget");
const notes = join(work, "NOTES.md");
let rpm: string;

interface ApiFile {
  filename: string;
  sha256: string;
  size: number;
  kind: string;
  downloads: number;
}

async function releaseOf(project: string, version: string) {
  const response = await alice.api(`/api/v1/projects/${project}/releases/${version}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { release: unknown }).release as {
    title: string | null;
    notes: string | null;
    files: ApiFile[];
  };
}

const env = () => ({ ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_TOKEN: alice.token });

beforeAll(async () => {
  server = await startLiveServer();
  alice = await publisher(server, "alice");
  for (const [slug, visibility] of [
    ["widget", "public"],
    ["secret", "private"],
  ]) {
    const created = await alice.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug, name: slug, visibility }),
    });
    expect(created.status).toBe(201);
  }
  writeFileSync(deb, buildTestDeb());
  writeFileSync(archive, randomBytes(300 * 1024));
  writeFileSync(binary, randomBytes(64 * 1024));
  writeFileSync(notes, "## Changes\n\n- First release\n");
  if (hasRpmbuild) {
    rpms = buildTestRpms();
    rpm = join(work, basename(rpms.alpha));
    copyFileSync(rpms.alpha, rpm);
  }
});

afterAll(async () => {
  rpms?.cleanup();
  rmSync(work, { recursive: true, force: true });
  await server?.close();
});

describe("packyard push", () => {
  it.skipIf(!hasRpmbuild)(
    "creates the release, uploads a .deb, an .rpm, an archive and a binary, verifies each, and prints where they are",
    async () => {
      const result = await runCli(
        ["push", "alice/widget", "1.0.0", deb, rpm, archive, binary, "--title", "First", "--notes", notes],
        { env: env() },
      );
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.split("\n");
      expect(lines[0]).toBe("Created release alice/widget 1.0.0");
      expect(lines).toContain(
        `Uploaded ${basename(deb)} (${readFileSync(deb).length} B, sha256 ${sha256(deb)})`,
      );
      expect(lines).toContain(`Uploaded ${basename(archive)} (300 KB, sha256 ${sha256(archive)})`);
      expect(lines).toContain(`Uploaded widget (64 KB, sha256 ${sha256(binary)})`);
      expect(result.stdout).toMatch(
        new RegExp(
          `Uploaded ${basename(rpm).replace(/[.+]/g, "\\$&")} \\(.*, signed by Packyard, header and payload verified\\)`,
        ),
      );
      expect(result.stdout).toContain(`Release: ${server.url}/releases/alice/widget/1.0.0`);
      expect(result.stdout).toContain(
        `apt:  curl -fsSL ${server.url}/dl/alice/widget/setup.deb.sh | sudo bash`,
      );
      expect(result.stdout).toContain(
        `dnf:  curl -fsSL ${server.url}/dl/alice/widget/setup.rpm.sh | sudo bash`,
      );

      const release = await releaseOf("widget", "1.0.0");
      expect(release.title).toBe("First");
      expect(release.notes).toBe("## Changes\n\n- First release\n");
      const files = Object.fromEntries(release.files.map((f) => [f.filename, f]));
      expect(Object.keys(files).sort()).toEqual(
        [basename(archive), basename(deb), basename(rpm), "widget"].sort(),
      );
      for (const path of [deb, archive, binary]) expect(files[basename(path)]?.sha256).toBe(sha256(path));
      // The .rpm is stored signed, so its checksum differs; reading it back was not a download.
      expect(files[basename(rpm)]?.kind).toBe("rpm");
      expect(files[basename(rpm)]?.sha256).not.toBe(sha256(rpm));
      expect(files[basename(rpm)]?.downloads).toBe(0);

      // Running the same push again (a re-run CI job) is safe: nothing is uploaded twice.
      const again = await runCli(
        ["push", "alice/widget", "1.0.0", deb, rpm, archive, binary, "--title", "Renamed"],
        {
          env: env(),
        },
      );
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain("Release alice/widget 1.0.0 exists; title and notes updated");
      expect(again.stdout.match(/^Already present /gm)).toHaveLength(4);
      const after = await releaseOf("widget", "1.0.0");
      expect(after.title).toBe("Renamed");
      expect(after.notes).toBe("## Changes\n\n- First release\n");
      expect(after.files).toHaveLength(4);
    },
  );

  it("--json prints one document for scripts; install lines follow the suite and the project's privacy", async () => {
    const result = await runCli(
      ["push", "alice/secret", "2.0.0", deb, binary, "--distribution", "bookworm", "--json"],
      { env: env() },
    );
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out).toEqual({
      project: "alice/secret",
      version: "2.0.0",
      releaseCreated: true,
      releaseUrl: `${server.url}/releases/alice/secret/2.0.0`,
      files: [
        expect.objectContaining({
          filename: basename(deb),
          kind: "deb",
          sha256: sha256(deb),
          status: "uploaded",
          verifiedBy: "sha256",
        }),
        expect.objectContaining({
          filename: "widget",
          kind: "binary",
          sha256: sha256(binary),
          status: "uploaded",
          verifiedBy: "sha256",
        }),
      ],
      install: {
        apt: `curl -fsSL -H "Authorization: Bearer $TOKEN" ${server.url}/dl/alice/secret/setup.deb.sh | sudo PACKYARD_TOKEN="$TOKEN" PACKYARD_DISTRIBUTION=bookworm bash`,
      },
    });
    expect(out.files[0].url).toBe(`${server.url}/dl/alice/secret/releases/2.0.0/${basename(deb)}`);
  });
});

describe("packyard push through a faulty connection", () => {
  const big = join(work, "big.bin");
  const small = join(work, "small.txt");
  beforeAll(() => {
    writeFileSync(big, randomBytes(3 * 1024 * 1024));
    writeFileSync(small, "small\n");
  });

  async function pushThroughProxy(fault: Fault, version: string) {
    const proxy = await startFaultProxy(server.port, fault);
    try {
      const result = await runCli(["push", "alice/widget", version, big, small], {
        env: { ...env(), PACKYARD_SERVER: proxy.url },
      });
      return { result, faults: proxy.faults() };
    } finally {
      await proxy.close();
    }
  }

  it("retries an upload cut off midway, and the release holds each file once, intact", async () => {
    const { result, faults } = await pushThroughProxy("drop-mid-request", "3.0.0");
    expect(faults).toBe(1);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /retrying: PUT \/api\/v1\/projects\/alice\/widget\/releases\/3\.0\.0\/files\/big\.bin: connection (reset|closed) \(\w+\); retry 1 of 5/,
    );
    expect(result.stdout).toContain(`Uploaded big.bin (3 MB, sha256 ${sha256(big)})`);
    const release = await releaseOf("widget", "3.0.0");
    expect(release.files.map((f) => [f.filename, f.sha256]).sort()).toEqual(
      [
        ["big.bin", sha256(big)],
        ["small.txt", sha256(small)],
      ].sort(),
    );
  });

  it("does not upload twice when the answer is lost: the retry's 409 is accepted because the stored sha256 matches", async () => {
    const { result, faults } = await pushThroughProxy("drop-after-response", "3.1.0");
    expect(faults).toBe(1);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /retrying: PUT \/api\/v1\/projects\/alice\/widget\/releases\/3\.1\.0\/files\/big\.bin/,
    );
    expect(result.stdout).toContain(`Already present big.bin (3 MB, sha256 ${sha256(big)})`);
    expect(result.stdout).toContain("Uploaded small.txt");
    const release = await releaseOf("widget", "3.1.0");
    expect(release.files.map((f) => f.filename).sort()).toEqual(["big.bin", "small.txt"]);
  });

  it("fails loudly when the server stored other bytes than were sent", async () => {
    const { result, faults } = await pushThroughProxy("corrupt-body", "3.2.0");
    expect(faults).toBe(1);
    expect(result.code).toBe(1);
    const stored = (await releaseOf("widget", "3.2.0")).files.find((f) => f.filename === "big.bin")!;
    expect(result.stderr).toContain(
      `error: The server stored big.bin with different contents than were sent (server sha256 ${stored.sha256}, local ${sha256(big)}); delete the file in the dashboard and push again (SHA256_MISMATCH)`,
    );
  });
});
