// The APT repository as real apt-get sees it: uploads through the API, then apt-get update and
// install in a private root with signatures checked. Runs on SQLite and on PostgreSQL.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { buildTestDeb, type TestCompression } from "@packyard/formats/deb/test-deb-builder.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aptRoot, runCommand } from "../../../test/apt-client.ts";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";
import { removeTempDirs } from "../../../test/temp-dirs.ts";

const hasTools = requireTools(["apt-get", "apt-cache", "dpkg", "gpgv", "xz"]);

function deb(
  name: string,
  options: { version?: string; arch?: string; control?: TestCompression; depends?: string } = {},
) {
  const control = `Package: ${name}
Version: ${options.version ?? "1.0.0"}
Architecture: ${options.arch ?? "amd64"}
Maintainer: Packyard Tests <tests@example.com>
${options.depends ? `Depends: ${options.depends}\n` : ""}Description: ${name} for Packyard's apt tests
 It installs one script.
`;
  return buildTestDeb({
    control,
    controlCompression: options.control ?? "gzip",
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name}\n` }],
  });
}

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;

async function upload(project: string, version: string, filename: string, bytes: Uint8Array, query = "") {
  const res = await pub.api(`/api/v1/projects/${project}/releases/${version}/files/${filename}${query}`, {
    method: "PUT",
    body: Buffer.from(bytes),
  });
  return { status: res.status, body: await res.json() };
}

async function keyringFile(dir: string, project: string, token?: string) {
  const res = await fetch(
    `${server.url}/dl/${pub.username}/${project}/keyring.gpg`,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );
  expect(res.status).toBe(200);
  const path = join(dir, `${project}.gpg`);
  writeFileSync(path, Buffer.from(await res.arrayBuffer()));
  return path;
}

async function clientFor(
  project: string,
  suite = "stable",
  options: { keyring?: string; base?: string } = {},
) {
  const apt = aptRoot();
  const keyring = options.keyring ?? (await keyringFile(apt.root, project));
  writeFileSync(
    join(apt.root, "etc/apt/sources.list"),
    `deb [signed-by=${keyring}] ${options.base ?? server.url}/dl/${pub.username}/${project}/deb ${suite} main\n`,
  );
  return apt;
}

beforeAll(async () => {
  if (!hasTools) return;
  server = await startLiveServer();
  pub = await publisher(server, "debs");
  for (const [slug, visibility] of [
    ["tools", "public"],
    ["hidden", "private"],
    ["busy", "public"],
  ] as const) {
    const res = await pub.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug, name: slug, visibility }),
    });
    expect(res.status).toBe(201);
  }
}, 60_000);
afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

describe.runIf(hasTools)(`APT repositories with real apt-get (${databaseKind})`, () => {
  it("installs an amd64 package and an `all` package (zstd control) from stable, and an xz-control package from a second suite", async () => {
    expect((await upload("tools", "1.0.0", "hello-amd64_1.0.0_amd64.deb", deb("hello-amd64"))).status).toBe(
      201,
    );
    expect(
      (
        await upload(
          "tools",
          "1.0.0",
          "hello-all_1.0.0_all.deb",
          deb("hello-all", { arch: "all", control: "zstd" }),
        )
      ).status,
    ).toBe(201);
    const xz = await upload(
      "tools",
      "1.0.0-beta",
      "hello-xz_1.0.0_amd64.deb",
      deb("hello-xz", { control: "xz" }),
      "?distribution=testing",
    );
    expect(xz.status, JSON.stringify(xz.body)).toBe(201);

    const stable = await clientFor("tools");
    await stable.update();
    await stable.install("hello-amd64", "hello-all");
    expect(existsSync(join(stable.root, "usr/bin/hello-amd64"))).toBe(true);
    expect(existsSync(join(stable.root, "usr/bin/hello-all"))).toBe(true);
    // The testing suite's package is not in stable.
    expect((await stable.run("apt-cache", "show", "hello-xz")).status).not.toBe(0);

    const testing = await clientFor("tools", "testing");
    await testing.update();
    await testing.install("hello-xz");
    expect(readFileSync(join(testing.root, "usr/bin/hello-xz"), "utf8")).toContain("echo hello-xz");

    const release = await (await fetch(`${server.url}/dl/debs/tools/deb/dists/stable/Release`)).text();
    expect(release).toMatch(/^Origin: Packyard$/m);
    expect(release).toMatch(/^Label: debs\/tools$/m);
    expect(release).toMatch(/^Codename: stable$/m);
    expect(release).toMatch(/^Architectures: amd64 arm64 all$/m);
    expect(release).toMatch(/^Acquire-By-Hash: yes$/m);
    expect(release).toMatch(/^SHA512:$/m);
  }, 120_000);

  it("drops a yanked release's packages from the index and brings them back on unyank", async () => {
    expect(
      (await upload("tools", "2.0.0", "yankme_2.0.0_amd64.deb", deb("yankme", { version: "2.0.0" }))).status,
    ).toBe(201);
    const client = await clientFor("tools");
    await client.update();
    expect((await client.run("apt-cache", "show", "yankme")).status).toBe(0);

    const yank = await pub.api("/api/v1/projects/tools/releases/2.0.0/yank", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "bad build" }),
    });
    expect(yank.status).toBe(200);
    await client.update();
    expect((await client.run("apt-cache", "show", "yankme")).status).not.toBe(0);
    // Its file stays downloadable by URL.
    expect((await fetch(`${server.url}/dl/debs/tools/releases/2.0.0/yankme_2.0.0_amd64.deb`)).status).toBe(
      200,
    );

    expect((await pub.api("/api/v1/projects/tools/releases/2.0.0/unyank", { method: "POST" })).status).toBe(
      200,
    );
    await client.update();
    await client.install("yankme");
  }, 120_000);

  it("lets a client holding the previous InRelease finish while a new publish happens (by-hash)", async () => {
    const stale = await (await fetch(`${server.url}/dl/debs/tools/deb/dists/stable/InRelease`)).arrayBuffer();
    // A publish happens: new Packages files, new InRelease.
    expect(
      (await upload("tools", "3.0.0", "newer_3.0.0_amd64.deb", deb("newer", { version: "3.0.0" }))).status,
    ).toBe(201);
    const fresh = await (await fetch(`${server.url}/dl/debs/tools/deb/dists/stable/InRelease`)).arrayBuffer();
    expect(Buffer.from(fresh).equals(Buffer.from(stale))).toBe(false);

    // A mirror (or cache) still hands out the old InRelease; everything else is live.
    const requested: string[] = [];
    const mirror: Server = createServer(async (req, res) => {
      requested.push(req.url ?? "");
      if (req.url?.endsWith("/InRelease")) {
        res.writeHead(200, { "content-type": "text/plain" }).end(Buffer.from(stale));
        return;
      }
      const upstream = await fetch(`${server.url}${req.url}`);
      res.writeHead(upstream.status, {
        "content-type": upstream.headers.get("content-type") ?? "application/octet-stream",
      });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise<void>((r) => mirror.listen(0, "127.0.0.1", () => r()));
    try {
      const port = (mirror.address() as { port: number }).port;
      const client = await clientFor("tools", "stable", { base: `http://127.0.0.1:${port}` });
      await client.update();
      await client.install("hello-amd64");
      expect(requested.some((path) => path.includes("/by-hash/SHA512/"))).toBe(true);
      // The package added after that InRelease is not known to this client yet.
      expect((await client.run("apt-cache", "show", "newer")).status).not.toBe(0);
    } finally {
      mirror.close();
    }
  }, 120_000);

  it("ends 30 concurrent uploads with all 30 in the index, installable, in fewer builds than uploads", async () => {
    const buildsBefore = server.services.repos.builds.get((await projectId("busy"))!) ?? 0;
    const names = Array.from({ length: 30 }, (_, i) => `busy-${String(i + 1).padStart(2, "0")}`);
    const results = await Promise.all(
      names.map((n) => upload("busy", "1.0.0", `${n}_1.0.0_amd64.deb`, deb(n))),
    );
    expect(results.map((r) => r.status)).toEqual(names.map(() => 201));
    const builds = (server.services.repos.builds.get((await projectId("busy"))!) ?? 0) - buildsBefore;
    expect(builds).toBeLessThan(30);
    const client = await clientFor("busy");
    await client.update();
    await client.install(...names);
    for (const n of names) expect(existsSync(join(client.root, "usr/bin", n))).toBe(true);
  }, 180_000);

  it("fails apt-get update when the keyring holds the wrong key", async () => {
    const other = await keyringFile(aptRoot().root, "busy");
    const client = await clientFor("tools", "stable", { keyring: other });
    const result = await client.run("apt-get", "update");
    const output = `${result.stdout}${result.stderr}`;
    expect(output).toMatch(/NO_PUBKEY|not signed|signatures couldn't be verified/);
  }, 60_000);

  it("requires credentials for a private repository and works with a read token in auth.conf.d", async () => {
    expect((await upload("hidden", "1.0.0", "secret-tool_1.0.0_amd64.deb", deb("secret-tool"))).status).toBe(
      201,
    );
    const hiddenId = (await projectId("hidden"))!;
    const readToken = await pub.key({ projects: [hiddenId], access: "read" });
    for (const path of ["deb/dists/stable/InRelease", "keyring.gpg", "gpg.key", "setup.deb.sh"]) {
      expect((await fetch(`${server.url}/dl/debs/hidden/${path}`)).status).toBe(404);
    }
    const client = await clientFor("hidden", "stable", {
      keyring: await keyringFile(aptRoot().root, "hidden", readToken),
    });
    const denied = await client.run("apt-get", "update");
    expect(`${denied.stdout}${denied.stderr}`).toMatch(/E:/);
    writeFileSync(
      join(client.root, "etc/apt/auth.conf.d/packyard.conf"),
      `machine http://127.0.0.1:${server.port}/dl/debs/hidden/deb login token password ${readToken}\n`,
      { mode: 0o600 },
    );
    await client.update();
    await client.install("secret-tool");
    // No credentials in any URL apt was given.
    expect(readFileSync(join(client.root, "etc/apt/sources.list"), "utf8")).not.toContain(readToken);
  }, 120_000);

  it("sets a machine up with setup.deb.sh, then installs", async () => {
    const client = aptRoot();
    const script = await (await fetch(`${server.url}/dl/debs/tools/setup.deb.sh`)).text();
    writeFileSync(join(client.root, "setup.sh"), script);
    const result = await runCommand(["sh", join(client.root, "setup.sh")], {
      ...client.env,
      PACKYARD_ROOT: client.root,
    });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/^(W|E):/m);
    expect(
      readFileSync(join(client.root, "etc/apt/sources.list.d/packyard-debs-tools.sources"), "utf8"),
    ).toContain(`URIs: ${server.url}/dl/debs/tools/deb`);
    await client.install("hello-amd64");
    expect(existsSync(join(client.root, "usr/bin/hello-amd64"))).toBe(true);
  }, 120_000);

  it("updates the PACKYARD_ROOT's package lists with setup.deb.sh, not the machine's", async () => {
    const client = aptRoot();
    const script = await (await fetch(`${server.url}/dl/debs/tools/setup.deb.sh`)).text();
    writeFileSync(join(client.root, "setup.sh"), script);
    // This machine's apt is a stand-in with configuration and no package lists: an apt-get update
    // that is not told about PACKYARD_ROOT reads it and fails, instead of touching the real host.
    const host = join(client.root, "host");
    mkdirSync(join(host, "etc/apt/apt.conf.d"), { recursive: true });
    const hostConfig = join(host, "apt.conf");
    writeFileSync(
      hostConfig,
      `Dir "${host}/"; APT::Sandbox::User "root"; APT::Architecture "amd64";
Acquire::Languages "none"; Acquire::Retries "0";
`,
    );
    const result = await runCommand(["sh", join(client.root, "setup.sh")], {
      APT_CONFIG: hostConfig,
      LC_ALL: "C",
      PACKYARD_ROOT: client.root,
    });
    const output = `${result.stdout}${result.stderr}`;
    expect(result.status, output).toBe(0);
    expect(output).not.toMatch(/^(W|E):/m);
    const lists = readdirSync(join(client.root, "var/lib/apt/lists"));
    expect(lists.some((name) => name.endsWith("_dl_debs_tools_deb_dists_stable_InRelease"))).toBe(true);
    expect(output).toContain(`apt-get -o Dir=${client.root}/ `);
    await client.install("hello-amd64");
    expect(existsSync(join(client.root, "usr/bin/hello-amd64"))).toBe(true);
  }, 120_000);
});

async function projectId(slug: string) {
  const row = await server.services.database.db
    .selectFrom("project")
    .select("id")
    .where("slug", "=", slug)
    .executeTakeFirst();
  return row?.id;
}

describe.runIf(hasTools)(`signing keys (${databaseKind})`, () => {
  it("gives every project its own RSA-3072 key at creation, published as gpg.key and keyring.gpg", async () => {
    const rows = await server.services.database.db
      .selectFrom("signing_key")
      .select(["project_id", "algorithm", "fingerprint", "private_key"])
      .execute();
    const projects = await server.services.database.db.selectFrom("project").select("id").execute();
    expect(new Set(rows.map((r) => r.project_id))).toEqual(new Set(projects.map((p) => p.id)));
    expect(new Set(rows.map((r) => r.fingerprint)).size).toBe(rows.length);
    for (const row of rows) {
      expect(row.algorithm).toBe("rsa3072");
      // Encrypted at rest: no private key material in the clear.
      expect(row.private_key).toMatch(/^pky-key-v1\./);
      expect(row.private_key).not.toContain("PRIVATE KEY");
    }
    const armored = await (await fetch(`${server.url}/dl/debs/tools/gpg.key`)).text();
    expect(armored).toContain("-----BEGIN PGP PUBLIC KEY BLOCK-----");
    const dir = aptRoot().root;
    const keyring = await keyringFile(dir, "tools");
    const listed = await runCommand(
      ["gpg", "--homedir", dir, "--batch", "--with-colons", "--show-keys", keyring],
      {},
    );
    const toolsId = await projectId("tools");
    const fingerprint = rows.find((r) => r.project_id === toolsId)!.fingerprint;
    expect(listed.stdout).toMatch(/^pub:-:3072:1:/m);
    expect(listed.stdout).toContain(`fpr:::::::::${fingerprint}:`);
  });

  it("rotates: both keys sign during the overlap, and clients trusting either key keep working", async () => {
    const id = (await projectId("tools"))!;
    const oldKeyring = await keyringFile(aptRoot().root, "tools");
    await server.services.keys.rotate({ id, name: "tools" }, { overlapMs: 60_000 });
    await server.services.repos.publish(id);
    const both = await (await fetch(`${server.url}/dl/debs/tools/gpg.key`)).text();
    expect(both.match(/BEGIN PGP PUBLIC KEY BLOCK/g)).toHaveLength(1);
    const withOld = await clientFor("tools", "stable", { keyring: oldKeyring });
    await withOld.update();
    const withNew = await clientFor("tools");
    await withNew.update();
    await withNew.install("hello-all");
  }, 60_000);
});

describe.runIf(hasTools)(`key choices and the key API (${databaseKind})`, () => {
  it("signs with Ed25519 when the project asks for it, and apt accepts it", async () => {
    const res = await pub.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug: "edwards", name: "Edwards", keyAlgorithm: "ed25519" }),
    });
    expect(res.status).toBe(201);
    const keys = await (await pub.api("/api/v1/projects/edwards/keys")).json();
    expect(keys.keys).toEqual([expect.objectContaining({ algorithm: "ed25519", retireAt: null })]);
    expect((await upload("edwards", "1.0.0", "ed-tool_1.0.0_amd64.deb", deb("ed-tool"))).status).toBe(201);
    const client = await clientFor("edwards");
    await client.update();
    await client.install("ed-tool");
  }, 60_000);

  it("rotates through the API: two keys listed, the old one retiring after the overlap", async () => {
    const before = (await (await pub.api("/api/v1/projects/busy/keys")).json()).keys;
    expect(before).toHaveLength(1);
    const res = await pub.api("/api/v1/projects/busy/keys/rotate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ overlapDays: 2 }),
    });
    expect(res.status).toBe(201);
    const { keys } = await res.json();
    expect(keys).toHaveLength(2);
    expect(keys[0].fingerprint).toBe(before[0].fingerprint);
    const retireIn = Date.parse(keys[0].retireAt) - Date.now();
    expect(retireIn).toBeGreaterThan(47 * 3600_000);
    expect(retireIn).toBeLessThan(49 * 3600_000);
    expect(keys[1].retireAt).toBeNull();
    // The published keyring now carries both keys.
    const gpgKey = await (await fetch(`${server.url}/dl/debs/busy/gpg.key`)).text();
    const dir = aptRoot().root;
    writeFileSync(join(dir, "k.asc"), gpgKey);
    const listed = await runCommand(
      ["gpg", "--homedir", dir, "--batch", "--with-colons", "--show-keys", join(dir, "k.asc")],
      {},
    );
    expect(listed.stdout.match(/^pub:/gm)).toHaveLength(2);
    // A read-only key may list but not rotate.
    const readKey = await pub.key({ projects: "*", access: "read" });
    const denied = await fetch(`${server.url}/api/v1/projects/busy/keys/rotate`, {
      method: "POST",
      headers: { authorization: `Bearer ${readKey}` },
    });
    expect(denied.status).toBe(403);
  }, 60_000);
});

describe.runIf(hasTools)(`install instructions on pages (${databaseKind})`, () => {
  it("shows the setup commands, the deb822 source and the signing key fingerprint on the release page", async () => {
    const html = await (await fetch(`${server.url}/releases/debs/tools/1.0.0`)).text();
    const { fingerprint } = await server.services.database.db
      .selectFrom("signing_key")
      .innerJoin("project", "project.id", "signing_key.project_id")
      .select("signing_key.fingerprint")
      .where("project.slug", "=", "tools")
      .orderBy("signing_key.generation")
      .executeTakeFirstOrThrow();
    expect(html).toContain(`curl -fsSL ${server.url}/dl/debs/tools/setup.deb.sh | sudo bash`);
    expect(html).toContain("sudo apt-get install hello-all");
    expect(html).toContain(fingerprint.replace(/(.{4})/g, "$1 ").trim());
    expect(html).toContain(`curl -fsSL ${server.url}/dl/debs/tools/setup.rpm.sh | sudo bash`);
  }, 30_000);
});

describe.runIf(hasTools)(`uncompressed indexes (${databaseKind})`, () => {
  it("serves Packages, by path and by hash, exactly as Release describes it, from its .gz", async () => {
    const { createHash } = await import("node:crypto");
    const { gunzipSync } = await import("node:zlib");
    const base = `${server.url}/dl/debs/tools/deb/dists/stable`;
    const release = await (await fetch(`${base}/Release`)).text();
    const line = release
      .split("SHA256:")[1]!
      .split("\n")
      .find((l) => l.endsWith(" main/binary-amd64/Packages"))!;
    const [hash, size] = line.trim().split(/\s+/);
    const plain = Buffer.from(await (await fetch(`${base}/main/binary-amd64/Packages`)).arrayBuffer());
    expect(plain.length).toBe(Number(size));
    expect(createHash("sha256").update(plain).digest("hex")).toBe(hash);
    const byHash = Buffer.from(
      await (await fetch(`${base}/main/binary-amd64/by-hash/SHA256/${hash}`)).arrayBuffer(),
    );
    expect(byHash.equals(plain)).toBe(true);
    const gz = Buffer.from(await (await fetch(`${base}/main/binary-amd64/Packages.gz`)).arrayBuffer());
    expect(gunzipSync(gz).equals(plain)).toBe(true);
    const head = await fetch(`${base}/main/binary-amd64/Packages`, { method: "HEAD" });
    expect(head.headers.get("content-length")).toBe(size);
  }, 30_000);
});

describe.runIf(hasTools)(`Packages.xz (${databaseKind})`, () => {
  const isGzip = (b: Buffer) => b[0] === 0x1f && b[1] === 0x8b;
  const isXz = (b: Buffer) => b.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]));

  it("installs with apt-get reading Packages.xz, the .gz and the plain Packages withheld", async () => {
    expect((await upload("tools", "4.0.0", "xz-only_4.0.0_amd64.deb", deb("xz-only"))).status).toBe(201);
    // A proxy that answers 404 for every Packages.gz and uncompressed Packages, by name or by hash.
    const served: string[] = [];
    const mirror: Server = createServer(async (req, res) => {
      const upstream = await fetch(`${server.url}${req.url}`);
      const body = Buffer.from(await upstream.arrayBuffer());
      if (req.url?.includes("/binary-") && (isGzip(body) || body.subarray(0, 8).toString() === "Package:")) {
        res.writeHead(404).end();
        return;
      }
      if (isXz(body)) served.push(req.url ?? "");
      res.writeHead(upstream.status, {
        "content-type": upstream.headers.get("content-type") ?? "application/octet-stream",
      });
      res.end(body);
    });
    await new Promise<void>((r) => mirror.listen(0, "127.0.0.1", () => r()));
    try {
      const port = (mirror.address() as { port: number }).port;
      const client = await clientFor("tools", "stable", { base: `http://127.0.0.1:${port}` });
      writeFileSync(
        join(client.root, "etc/apt/apt.conf.d/90xz"),
        'Acquire::CompressionTypes::Order { "xz"; "gz"; };\n',
      );
      await client.update();
      await client.install("xz-only", "hello-amd64");
      expect(existsSync(join(client.root, "usr/bin/xz-only"))).toBe(true);
      // apt fetched the amd64 index as .xz, by its SHA512 (the strongest hash Release lists).
      expect(served.some((url) => /\/main\/binary-amd64\/by-hash\/SHA512\/[0-9a-f]{128}$/.test(url))).toBe(
        true,
      );
    } finally {
      mirror.close();
    }
  }, 120_000);

  it("serves Packages.xz by name and by hash, as Release lists it, and keeps the old one by hash after a publish", async () => {
    const { createHash } = await import("node:crypto");
    const { spawnSync } = await import("node:child_process");
    const base = `${server.url}/dl/debs/tools/deb/dists/stable`;
    const release = await (await fetch(`${base}/Release`)).text();
    const listed = (algorithm: string, path: string) =>
      release
        .split(`${algorithm}:`)[1]!
        .split("\n")
        .find((l) => l.endsWith(` ${path}`))!
        .trim()
        .split(/\s+/);
    const [sha256, size] = listed("SHA256", "main/binary-amd64/Packages.xz");
    const [sha512] = listed("SHA512", "main/binary-amd64/Packages.xz");
    const res = await fetch(`${base}/main/binary-amd64/Packages.xz`);
    expect(res.headers.get("content-type")).toBe("application/x-xz");
    const xz = Buffer.from(await res.arrayBuffer());
    expect(xz.length).toBe(Number(size));
    expect(createHash("sha256").update(xz).digest("hex")).toBe(sha256);
    expect(createHash("sha512").update(xz).digest("hex")).toBe(sha512);
    for (const [algorithm, hex] of [
      ["SHA256", sha256],
      ["SHA512", sha512],
    ]) {
      const byHash = await fetch(`${base}/main/binary-amd64/by-hash/${algorithm}/${hex}`);
      expect(byHash.status).toBe(200);
      expect(Buffer.from(await byHash.arrayBuffer()).equals(xz)).toBe(true);
    }
    const plain = Buffer.from(await (await fetch(`${base}/main/binary-amd64/Packages`)).arrayBuffer());
    expect(spawnSync("xz", ["-dc"], { input: xz }).stdout.equals(plain)).toBe(true);

    expect((await upload("tools", "5.0.0", "xz-later_5.0.0_amd64.deb", deb("xz-later"))).status).toBe(201);
    const after = await (await fetch(`${base}/Release`)).text();
    expect(after).not.toContain(sha512!);
    const old = await fetch(`${base}/main/binary-amd64/by-hash/SHA512/${sha512}`);
    expect(old.status).toBe(200);
    expect(Buffer.from(await old.arrayBuffer()).equals(xz)).toBe(true);
  }, 60_000);
});
