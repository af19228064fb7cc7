// SHA256SUMS.asc checked as a user would: real gpg in a temporary GNUPGHOME holding the project's
// public key from gpg.key, `gpg --verify SHA256SUMS.asc SHA256SUMS`, then
// `sha256sum -c --ignore-missing SHA256SUMS` — before and after a key rotation.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";
import { makeTempDir, removeTempDirs } from "../../../test/temp-dirs.ts";

const hasTools = requireTools(["gpg", "gpgconf", "sha256sum"]);

let app: TestApp;
let cookie: string;
const homes: string[] = [];

beforeAll(async () => {
  if (!hasTools) return;
  app = await createTestApp();
  ({ cookie } = await onboardedUser(app, "signer"));
  const res = await app.request("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "tool", name: "Tool", visibility: "public" }),
    cookie,
  });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  for (const home of homes)
    spawnSync("gpgconf", ["--kill", "all"], { env: { ...process.env, GNUPGHOME: home } });
  await app?.close();
  removeTempDirs();
});

const put = (version: string, filename: string, body: string) =>
  app.request(`/api/v1/projects/tool/releases/${version}/files/${filename}`, { method: "PUT", body, cookie });

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, { headers });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A directory with the downloaded files and a GNUPGHOME that trusts what gpg.key holds now. */
async function userMachine(files: string[], version = "1.0.0") {
  const dir = makeTempDir("packyard-verify-");
  const home = join(dir, "gnupg");
  mkdirSync(home, { mode: 0o700 });
  homes.push(home);
  const env = { ...process.env, GNUPGHOME: home, LC_ALL: "C" };
  const key = await get("/dl/signer/tool/gpg.key");
  expect(key.res.status).toBe(200);
  writeFileSync(join(dir, "gpg.key"), key.bytes);
  const imported = spawnSync("gpg", ["--batch", "--import", join(dir, "gpg.key")], { env, encoding: "utf8" });
  expect(imported.status, imported.stderr).toBe(0);
  for (const name of [...files, "SHA256SUMS", "SHA256SUMS.asc"]) {
    const file = await get(`/dl/signer/tool/releases/${version}/${name}`);
    expect(file.res.status, name).toBe(200);
    writeFileSync(join(dir, name), file.bytes);
  }
  const run = (...args: string[]) => spawnSync(args[0]!, args.slice(1), { cwd: dir, env, encoding: "utf8" });
  return {
    dir,
    /** gpg --verify; the fingerprints of the good signatures. */
    verify() {
      const result = run("gpg", "--batch", "--status-fd", "1", "--verify", "SHA256SUMS.asc", "SHA256SUMS");
      expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
      return [...result.stdout.matchAll(/^\[GNUPG:\] VALIDSIG ([0-9A-F]{40}) /gm)].map((m) => m[1]);
    },
    sha256sumCheck() {
      const result = run("sha256sum", "-c", "--ignore-missing", "SHA256SUMS");
      expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
      return result.stdout;
    },
  };
}

async function fingerprints() {
  const { rows } = await app.services.keys.active(await project());
  return rows.map((r) => r.fingerprint);
}

async function project() {
  return app.services.database.db
    .selectFrom("project")
    .select(["id", "name"])
    .where("slug", "=", "tool")
    .executeTakeFirstOrThrow();
}

describe.runIf(hasTools)(`SHA256SUMS.asc (${databaseKind})`, () => {
  it("verifies with gpg and the project's key, then sha256sum -c checks the downloads", async () => {
    expect((await put("1.0.0", "tool-linux-amd64", "#!/bin/sh\necho amd64\n")).status).toBe(201);
    expect((await put("1.0.0", "tool-linux-arm64", "#!/bin/sh\necho arm64\n")).status).toBe(201);
    const machine = await userMachine(["tool-linux-amd64"]);
    expect(machine.verify()).toEqual(await fingerprints());
    expect(machine.sha256sumCheck()).toBe("tool-linux-amd64: OK\n");

    // A tampered list fails.
    writeFileSync(join(machine.dir, "SHA256SUMS"), `${"0".repeat(64)}  tool-linux-amd64\n`);
    const bad = spawnSync("gpg", ["--batch", "--verify", "SHA256SUMS.asc", "SHA256SUMS"], {
      cwd: machine.dir,
      env: { ...process.env, GNUPGHOME: join(machine.dir, "gnupg") },
      encoding: "utf8",
    });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/BAD signature/);
  });

  it("is revalidated like SHA256SUMS, and changes when a file is added", async () => {
    const url = "/dl/signer/tool/releases/1.0.0/SHA256SUMS.asc";
    const first = await get(url);
    expect(first.res.headers.get("content-type")).toBe("application/pgp-signature");
    expect(first.res.headers.get("cache-control")).toBe("public, max-age=30, must-revalidate");
    expect(first.bytes.toString()).toMatch(/^-----BEGIN PGP SIGNATURE-----/);
    const etag = first.res.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"[0-9a-f]{64}"$/);
    // The same request again: the same signature, and 304 for the ETag.
    expect((await get(url)).bytes.equals(first.bytes)).toBe(true);
    expect((await get(url, { "if-none-match": etag })).res.status).toBe(304);
    expect((await app.request(url, { method: "HEAD" })).headers.get("content-length")).toBe(
      String(first.bytes.length),
    );
    expect((await get("/dl/signer/tool/releases/latest/SHA256SUMS.asc")).res.status).toBe(200);

    expect((await put("1.0.0", "tool-darwin-arm64", "#!/bin/sh\necho darwin\n")).status).toBe(201);
    const grown = await get(url, { "if-none-match": etag });
    expect(grown.res.status).toBe(200);
    expect(grown.res.headers.get("etag")).not.toBe(etag);
    const machine = await userMachine(["tool-darwin-arm64"]);
    machine.verify();
    expect(machine.sha256sumCheck()).toBe("tool-darwin-arm64: OK\n");
  });

  it("keeps a release made before a rotation verifiable: both keys sign during the overlap, the new one after", async () => {
    const [oldKey] = await fingerprints();
    await app.services.keys.rotate(await project(), { overlapMs: 60_000 });
    const both = await fingerprints();
    expect(both).toHaveLength(2);
    const during = await userMachine(["tool-linux-amd64"]);
    expect(during.verify().sort()).toEqual([...both].sort());
    during.sha256sumCheck();

    // The overlap ends: the old key retires, the release is signed by the new key alone.
    await app.services.database.db
      .updateTable("signing_key")
      .set({ retire_at: new Date(Date.now() - 1000).toISOString() })
      .where("fingerprint", "=", oldKey!)
      .execute();
    const after = await userMachine(["tool-linux-amd64"]);
    expect(after.verify()).toEqual([both.find((f) => f !== oldKey)]);
    expect(after.sha256sumCheck()).toBe("tool-linux-amd64: OK\n");
  });

  it("shows the verify commands on the release page", async () => {
    const html = await (await app.request("/releases/signer/tool/1.0.0")).text();
    const base = app.services.config.baseUrl;
    expect(html).toContain(`curl -fsSL ${base}/dl/signer/tool/gpg.key | gpg --import`);
    expect(html).toContain("gpg --verify SHA256SUMS.asc SHA256SUMS");
    expect(html).toContain("sha256sum -c --ignore-missing SHA256SUMS");
    expect(html).toContain(`href="${base}/dl/signer/tool/releases/1.0.0/SHA256SUMS.asc"`);
  });

  it("answers 404 for a private project's signature without credentials", async () => {
    const res = await app.request("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug: "hidden", name: "Hidden", visibility: "private" }),
      cookie,
    });
    expect(res.status).toBe(201);
    expect(
      (
        await app.request("/api/v1/projects/hidden/releases/1.0.0/files/x", {
          method: "PUT",
          body: "x",
          cookie,
        })
      ).status,
    ).toBe(201);
    expect((await app.request("/dl/signer/hidden/releases/1.0.0/SHA256SUMS.asc")).status).toBe(404);
    const signed = await app.request("/dl/signer/hidden/releases/1.0.0/SHA256SUMS.asc", { cookie });
    expect(signed.status).toBe(200);
    expect(signed.headers.get("cache-control")).toMatch(/private/);
  });
});
