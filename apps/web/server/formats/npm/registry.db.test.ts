// The npm registry at /npm/{owner}/{project}/ without the client (issue 42): publish bodies as
// npm sends them, packuments full and abbreviated, tarballs, the refusals (integrity, names,
// versions published or unpublished), dist-tags, deprecation, unpublishing and its window,
// search, whoami and ping, a private project's readers and writers, provenance from a trusted
// publishing token, and a release's deletion taking its version away. The real npm client is in
// real-clients.db.test.ts. SQLite, and PostgreSQL when configured.
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";
import { applyRetention } from "../../retention/run.ts";
import { hashPublishToken, newPublishToken } from "../../trusted-publishing/storage.ts";

// biome-ignore lint/suspicious/noExplicitAny: documents read field by field, as npm reads them
type Doc = Record<string, any>;

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;

/** A ustar archive of `files` (path → text), gzipped: what `npm pack` writes. */
function tgz(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [path, text] of Object.entries(files)) {
    const body = Buffer.from(text);
    const header = Buffer.alloc(512);
    const field = (value: string, offset: number, length: number) =>
      header.write(value, offset, length, "ascii");
    field(path, 0, 100);
    field("0000644\0", 100, 8);
    field("0000000\0", 108, 8);
    field("0000000\0", 116, 8);
    field(`${body.length.toString(8).padStart(11, "0")}\0`, 124, 12);
    field(
      `${Math.floor(Date.now() / 1000)
        .toString(8)
        .padStart(11, "0")}\0`,
      136,
      12,
    );
    field("        ", 148, 8);
    field("0", 156, 1);
    field("ustar\0", 257, 6);
    field("00", 263, 2);
    let sum = 0;
    for (const byte of header) sum += byte;
    field(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

const sri = (bytes: Uint8Array) => `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
const sha1 = (bytes: Uint8Array) => createHash("sha1").update(bytes).digest("hex");
const escaped = (name: string) => (name.startsWith("@") ? `@${encodeURIComponent(name.slice(1))}` : name);

interface PublishOptions {
  tags?: Record<string, string>;
  inside?: Record<string, unknown>;
  integrity?: string;
  manifest?: Record<string, unknown>;
  bodyName?: string;
}

/** The body `npm publish` sends for `name@version`. */
function publishBody(name: string, version: string, options: PublishOptions = {}) {
  const pkg = {
    name,
    version,
    description: `The ${name} SDK`,
    keywords: ["acme", "client"],
    main: "index.js",
    dependencies: { "left-pad": "^1.3.0" },
    scripts: { test: `node test.js ${"--verbose ".repeat(100)}` },
    ...options.inside,
  };
  const tarball = tgz({
    "package/package.json": JSON.stringify(pkg),
    "package/index.js": `module.exports = ${JSON.stringify(version)};\n`,
    "package/README.md": `# ${name}\n`,
  });
  const tarballName = `${name}-${version}.tgz`;
  return {
    tarball,
    body: {
      _id: options.bodyName ?? name,
      name: options.bodyName ?? name,
      description: pkg.description,
      "dist-tags": options.tags ?? { latest: version },
      versions: {
        [version]: {
          ...pkg,
          readme: `# ${name} ${version}\n`,
          _id: `${name}@${version}`,
          _nodeVersion: "24.0.0",
          _npmVersion: "11.0.0",
          dist: {
            integrity: options.integrity ?? sri(tarball),
            shasum: sha1(tarball),
            tarball: `http://elsewhere/${name}/-/${tarballName}`,
          },
          ...options.manifest,
        },
      },
      access: null,
      _attachments: {
        [tarballName]: {
          content_type: "application/octet-stream",
          data: tarball.toString("base64"),
          length: tarball.length,
        },
      },
    },
  };
}

async function npm(
  path: string,
  init: {
    method?: string;
    token?: string | null;
    body?: unknown;
    accept?: string;
    headers?: Record<string, string>;
  } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  const token = init.token === undefined ? pub.token : init.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.accept) headers.accept = init.accept;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${server.url}/npm/acme/${path}`, {
    method: init.method ?? "GET",
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

async function publish(
  project: string,
  name: string,
  version: string,
  options: PublishOptions = {},
  token?: string,
) {
  const { body, tarball } = publishBody(name, version, options);
  const res = await npm(`${project}/${escaped(name)}`, { method: "PUT", body, token });
  return { res, tarball };
}

async function createProject(slug: string, visibility: "public" | "private") {
  const res = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug, name: slug, visibility }),
  });
  expect(res.status).toBe(201);
}

const db = () => server.services.database.db;

async function audit(action: string) {
  const rows = await db()
    .selectFrom("audit_event")
    .select(["target", "details", "actor_key_name"])
    .where("action", "=", action)
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    target: row.target,
    details: JSON.parse(row.details),
    keyName: row.actor_key_name,
  }));
}

beforeAll(async () => {
  server = await startLiveServer({ PLAN_LIMITS: "off" });
  pub = await publisher(server, "acme");
  await createProject("sdk", "public");
  await createProject("vault", "private");
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe(`the npm registry at /npm/{owner}/{project}/ (${databaseKind})`, () => {
  it("publishes a scoped package as a release file and serves its packument, full and abbreviated, and its tarball", async () => {
    const { res, tarball } = await publish("sdk", "@acme/sdk", "1.0.0");
    expect(res.status, await res.clone().text()).toBe(201);

    const full = await npm("sdk/@acme%2fsdk", { token: null });
    expect(full.status).toBe(200);
    expect(full.headers.get("content-type")).toMatch(/^application\/json/);
    const doc = (await full.json()) as Doc;
    expect(doc).toMatchObject({
      _id: "@acme/sdk",
      name: "@acme/sdk",
      description: "The @acme/sdk SDK",
      "dist-tags": { latest: "1.0.0" },
      readme: "# @acme/sdk 1.0.0\n",
      keywords: ["acme", "client"],
      maintainers: [{ name: "acme" }],
    });
    expect(doc._rev).toMatch(/^\d+-[0-9a-f]{32}$/);
    const v = doc.versions["1.0.0"];
    expect(v).toMatchObject({
      name: "@acme/sdk",
      version: "1.0.0",
      _id: "@acme/sdk@1.0.0",
      dependencies: { "left-pad": "^1.3.0" },
      _npmUser: { name: "acme" },
      _packyard: { release: "1.0.0" },
      dist: {
        integrity: sri(tarball),
        shasum: sha1(tarball),
        tarball: `${server.url}/npm/acme/sdk/@acme/sdk/-/sdk-1.0.0.tgz`,
      },
    });
    expect(v.readme).toBeUndefined();
    expect(doc.time).toMatchObject({
      created: expect.any(String),
      modified: expect.any(String),
      "1.0.0": expect.any(String),
    });

    // The unescaped path names the same package; the abbreviated form keeps what installs need.
    const corgi = await npm("sdk/@acme/sdk", {
      token: null,
      accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*",
    });
    expect(corgi.headers.get("content-type")).toBe("application/vnd.npm.install-v1+json");
    const abbreviated = (await corgi.json()) as Doc;
    expect(Object.keys(abbreviated).sort()).toEqual(["dist-tags", "modified", "name", "versions"]);
    expect(abbreviated.versions["1.0.0"]).toEqual({
      name: "@acme/sdk",
      version: "1.0.0",
      dependencies: { "left-pad": "^1.3.0" },
      dist: v.dist,
    });

    // Sent gzipped to a client that takes it (fetch does, and so does npm).
    expect(full.headers.get("content-encoding")).toBe("gzip");
    const plainBody = await npm("sdk/@acme%2fsdk", {
      token: null,
      headers: { "accept-encoding": "identity" },
    });
    expect(plainBody.headers.get("content-encoding")).toBeNull();
    expect(((await plainBody.json()) as Doc).name).toBe("@acme/sdk");

    // Revalidation by ETag.
    const again = await npm("sdk/@acme%2fsdk", {
      token: null,
      headers: { "if-none-match": full.headers.get("etag")! },
    });
    expect(again.status).toBe(304);

    // The tarball is the release file acme-sdk-1.0.0.tgz of the release 1.0.0, served by the /dl writer.
    const got = await fetch(v.dist.tarball);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(tarball)).toBe(true);
    expect((await fetch(v.dist.tarball, { method: "HEAD" })).status).toBe(200);
    const files = await pub.api("/api/v1/projects/sdk/releases/1.0.0/files");
    expect(((await files.json()) as { files: { filename: string }[] }).files.map((f) => f.filename)).toEqual([
      "acme-sdk-1.0.0.tgz",
    ]);
    expect((await audit("file.uploaded")).map((e) => e.target)).toContain("acme-sdk-1.0.0.tgz");

    // An unscoped package's file is named as npm pack names it.
    expect((await publish("sdk", "plain-tool", "0.1.0")).res.status).toBe(201);
    const plain = (await (await npm("sdk/plain-tool", { token: null })).json()) as Doc;
    expect(plain.versions["0.1.0"].dist.tarball).toBe(
      `${server.url}/npm/acme/sdk/plain-tool/-/plain-tool-0.1.0.tgz`,
    );
    expect((await fetch(plain.versions["0.1.0"].dist.tarball)).status).toBe(200);
    // Missing packages and tarballs are npm's 404 with a message.
    const missing = await npm("sdk/@acme%2fnothing", { token: null });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toMatch(/not in this registry/);
    expect((await npm("sdk/@acme%2fsdk/-/sdk-9.9.9.tgz", { token: null })).status).toBe(404);
  });

  it("refuses a tarball whose integrity, name or version is not what the body says, and a version published twice", async () => {
    const wrongIntegrity = await publish("sdk", "@acme/sdk", "1.0.1", {
      integrity: sri(Buffer.from("other")),
    });
    expect(wrongIntegrity.res.status).toBe(400);
    expect(((await wrongIntegrity.res.json()) as { error: string }).error).toMatch(/integrity/);

    const urlMismatch = await publish("sdk", "@acme/sdk", "1.0.1", { bodyName: "@acme/other" });
    expect(urlMismatch.res.status).toBe(400);

    const inside = await publish("sdk", "@acme/sdk", "1.0.1", {
      inside: { version: "1.0.2" },
      manifest: { version: "1.0.1" },
    });
    expect(inside.res.status).toBe(400);
    const insideBody = (await inside.res.json()) as { error: string; code: string };
    expect(insideBody.error).toMatch(/package\.json is @acme\/sdk@1\.0\.2/);
    // Nothing of a refused publish stays: no release, no file.
    expect((await pub.api("/api/v1/projects/sdk/releases/1.0.1")).status).toBe(404);

    const badVersion = await publish("sdk", "@acme/sdk", "v1");
    expect(badVersion.res.status).toBe(400);
    expect(((await badVersion.res.json()) as { code: string }).code).toBe("INVALID_VERSION");
    const badName = await publish("sdk", "@acme/Bad Name", "1.0.0");
    expect(badName.res.status).toBe(400);
    expect(((await badName.res.json()) as { code: string }).code).toBe("NPM_INVALID_NAME");

    // Bytes that are not a tarball, declared with their own integrity.
    const { body } = publishBody("@acme/sdk", "1.0.1");
    const junk = Buffer.from("not a tarball at all");
    const version = body.versions["1.0.1"]!;
    version.dist = { ...version.dist, integrity: sri(junk), shasum: sha1(junk) };
    body._attachments["@acme/sdk-1.0.1.tgz"] = {
      content_type: "application/octet-stream",
      data: junk.toString("base64"),
      length: junk.length,
    };
    const broken = await npm("sdk/@acme%2fsdk", { method: "PUT", body });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { code: string }).code).toBe("NPM_INVALID_TARBALL");

    const again = await publish("sdk", "@acme/sdk", "1.0.0");
    expect(again.res.status).toBe(409);
    expect(await again.res.json()).toEqual({
      error: "You cannot publish over the previously published versions: @acme/sdk@1.0.0 exists",
      code: "VERSION_EXISTS",
    });
  });

  it("sets, lists and removes dist-tags; latest stays", async () => {
    expect(
      (await publish("sdk", "@acme/sdk", "1.1.0-beta.1", { tags: { beta: "1.1.0-beta.1" } })).res.status,
    ).toBe(201);
    const tags = await npm("sdk/-/package/@acme%2fsdk/dist-tags", { token: null });
    expect(await tags.json()).toEqual({ latest: "1.0.0", beta: "1.1.0-beta.1" });

    const set = await npm("sdk/-/package/@acme%2fsdk/dist-tags/next", { method: "PUT", body: "1.0.0" });
    expect(set.status).toBe(201);
    // Setting it where it already is records nothing more.
    await npm("sdk/-/package/@acme%2fsdk/dist-tags/next", { method: "PUT", body: "1.0.0" });
    expect(await (await npm("sdk/-/package/@acme%2fsdk/dist-tags")).json()).toEqual({
      latest: "1.0.0",
      beta: "1.1.0-beta.1",
      next: "1.0.0",
    });
    expect(
      (await npm("sdk/-/package/@acme%2fsdk/dist-tags/next", { method: "PUT", body: "7.0.0" })).status,
    ).toBe(404);
    expect(
      (await npm("sdk/-/package/@acme%2fsdk/dist-tags/1.x", { method: "PUT", body: "1.0.0" })).status,
    ).toBe(400);
    expect((await npm("sdk/-/package/@acme%2fsdk/dist-tags/next", { method: "DELETE" })).status).toBe(200);
    const latest = await npm("sdk/-/package/@acme%2fsdk/dist-tags/latest", { method: "DELETE" });
    expect(latest.status).toBe(400);
    expect(((await latest.json()) as { error: string }).error).toMatch(/latest/);
    // Anonymous writes need credentials: 401 with the challenge npm reports.
    const anonymous = await npm("sdk/-/package/@acme%2fsdk/dist-tags/next", {
      method: "PUT",
      body: "1.0.0",
      token: null,
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="Packyard"');

    expect(await audit("npm.dist_tag_set")).toEqual([
      { target: "@acme/sdk", details: { tag: "next", version: "1.0.0" }, keyName: "publish key" },
    ]);
    expect(await audit("npm.dist_tag_removed")).toEqual([
      { target: "@acme/sdk", details: { tag: "next", version: "1.0.0" }, keyName: "publish key" },
    ]);
  });

  it("deprecates and undeprecates a version through the packument npm deprecate sends back", async () => {
    const doc = (await (await npm("sdk/@acme%2fsdk?write=true")).json()) as Doc;
    doc.versions["1.0.0"].deprecated = "Use 1.1.0";
    expect((await npm("sdk/@acme%2fsdk", { method: "PUT", body: doc })).status).toBe(200);
    const after = (await (await npm("sdk/@acme%2fsdk", { token: null })).json()) as Doc;
    expect(after.versions["1.0.0"].deprecated).toBe("Use 1.1.0");
    expect(after.versions["1.1.0-beta.1"].deprecated).toBeUndefined();
    const corgi = (await (
      await npm("sdk/@acme%2fsdk", { token: null, accept: "application/vnd.npm.install-v1+json" })
    ).json()) as Doc;
    expect(corgi.versions["1.0.0"].deprecated).toBe("Use 1.1.0");

    after.versions["1.0.0"].deprecated = "";
    expect((await npm("sdk/@acme%2fsdk", { method: "PUT", body: after })).status).toBe(200);
    const cleared = (await (await npm("sdk/@acme%2fsdk", { token: null })).json()) as Doc;
    expect(cleared.versions["1.0.0"].deprecated).toBeUndefined();
    expect(await audit("npm.deprecated")).toEqual([
      { target: "@acme/sdk@1.0.0", details: { message: "Use 1.1.0" }, keyName: "publish key" },
    ]);
    expect(await audit("npm.undeprecated")).toEqual([
      { target: "@acme/sdk@1.0.0", details: { previous: "Use 1.1.0" }, keyName: "publish key" },
    ]);

    // A yanked release's version shows as deprecated with the yank's reason; the packument sent
    // back as it was changes nothing.
    const yank = await pub.api("/api/v1/projects/sdk/releases/1.1.0-beta.1/yank", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "broken build" }),
    });
    expect(yank.status).toBe(200);
    const yanked = (await (await npm("sdk/@acme%2fsdk?write=true")).json()) as Doc;
    expect(yanked.versions["1.1.0-beta.1"].deprecated).toBe(
      "The release 1.1.0-beta.1 was yanked: broken build",
    );
    expect((await npm("sdk/@acme%2fsdk", { method: "PUT", body: yanked })).status).toBe(200);
    expect(await audit("npm.deprecated")).toHaveLength(1);
    await pub.api("/api/v1/projects/sdk/releases/1.1.0-beta.1/unyank", { method: "POST" });
    const unyanked = (await (await npm("sdk/@acme%2fsdk")).json()) as Doc;
    expect(unyanked.versions["1.1.0-beta.1"].deprecated).toBeUndefined();
  });

  it("unpublishes a version within 72 hours as npm unpublish does it, never to be published again; older versions stay", async () => {
    expect((await publish("sdk", "@acme/sdk", "2.0.0")).res.status).toBe(201);
    expect((await (await npm("sdk/-/package/@acme%2fsdk/dist-tags")).json()).latest).toBe("2.0.0");
    // npm unpublish @acme/sdk@2.0.0: the packument without the version, PUT to -rev, then the tarball's DELETE
    // at its path under the registry (npm repeats the registry's path prefix).
    const doc = (await (await npm("sdk/@acme%2fsdk?write=true")).json()) as Doc;
    const tarballPath = new URL(doc.versions["2.0.0"].dist.tarball).pathname.slice(1);
    delete doc.versions["2.0.0"];
    doc["dist-tags"].latest = "1.0.0";
    expect((await npm(`sdk/@acme%2fsdk/-rev/${doc._rev}`, { method: "PUT", body: doc })).status).toBe(200);
    const rev = ((await (await npm("sdk/@acme%2fsdk?write=true")).json()) as { _rev: string })._rev;
    expect((await npm(`sdk/${tarballPath}/-rev/${rev}`, { method: "DELETE" })).status).toBe(200);

    const after = (await (await npm("sdk/@acme%2fsdk", { token: null })).json()) as Doc;
    expect(Object.keys(after.versions)).toEqual(["1.0.0", "1.1.0-beta.1"]);
    expect(after["dist-tags"]).toEqual({ latest: "1.0.0", beta: "1.1.0-beta.1" });
    expect((await npm("sdk/@acme%2fsdk/-/sdk-2.0.0.tgz", { token: null })).status).toBe(404);
    expect((await audit("file.deleted")).map((e) => e.target)).toContain("acme-sdk-2.0.0.tgz");
    const republish = await publish("sdk", "@acme/sdk", "2.0.0");
    expect(republish.res.status).toBe(409);
    expect(((await republish.res.json()) as { error: string }).error).toMatch(/unpublished/);

    // Past 72 hours a version stays: deprecate it instead.
    await db()
      .updateTable("npm_version")
      .set({ created_at: new Date(Date.now() - 73 * 3600_000).toISOString() })
      .where("name", "=", "@acme/sdk")
      .where("version", "=", "1.0.0")
      .execute();
    const old = await npm(`sdk/@acme%2fsdk/-/sdk-1.0.0.tgz/-rev/${rev}`, { method: "DELETE" });
    expect(old.status).toBe(409);
    expect(await old.json()).toMatchObject({
      code: "NPM_UNPUBLISH_WINDOW",
      error: expect.stringMatching(/72 hours.*deprecate/),
    });
    const whole = await npm(`sdk/@acme%2fsdk/-rev/${rev}`, { method: "DELETE" });
    expect(whole.status).toBe(409);
    expect((await npm("sdk/@acme%2fsdk", { token: null })).status).toBe(200);

    // A package whose versions are all recent goes whole.
    expect((await publish("sdk", "short-lived", "1.0.0")).res.status).toBe(201);
    expect((await npm("sdk/short-lived/-rev/1-x", { method: "DELETE" })).status).toBe(200);
    expect((await npm("sdk/short-lived", { token: null })).status).toBe(404);
  });

  it("searches the project's packages, and answers whoami, ping and npm login", async () => {
    const search = async (text: string, token: string | null = null, project = "sdk") =>
      npm(`${project}/-/v1/search?text=${encodeURIComponent(text)}&size=20`, { token });
    const found = (await (await search("sdk")).json()) as {
      objects: { package: Doc }[];
      total: number;
    };
    // An exact name first, then a description that names it.
    expect(found.objects.map((o) => o.package.name)).toEqual(["@acme/sdk", "plain-tool"]);
    expect(found.objects[0]!.package).toMatchObject({
      name: "@acme/sdk",
      scope: "acme",
      version: "1.0.0",
      description: "The @acme/sdk SDK",
      keywords: ["acme", "client"],
      publisher: { username: "acme" },
    });
    const byKeyword = (await (await search("keywords:client")).json()) as { total: number };
    expect(byKeyword.total).toBe(2);
    expect(((await (await search("nothing-like-it")).json()) as { total: number }).total).toBe(0);

    expect(await (await npm("sdk/-/whoami")).json()).toEqual({ username: "acme" });
    const anonymous = await npm("sdk/-/whoami", { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="Packyard"');
    expect(await (await npm("sdk/-/ping", { token: null })).json()).toEqual({});

    const login = await npm("sdk/-/user/org.couchdb.user:acme", {
      method: "PUT",
      token: null,
      body: { name: "acme", password: "x" },
    });
    expect(login.status).toBe(403);
    expect(((await login.json()) as { error: string }).error).toMatch(
      /npm login is not supported.*\/npm\/acme\/sdk\/:_authToken=/,
    );
    expect((await npm("sdk/-/v1/login", { method: "POST", token: null, body: {} })).status).toBe(403);
  });

  it("keeps a private project's registry from anyone who may not read it; a read key and an entitlement token read, a read key cannot publish", async () => {
    const { res, tarball } = await publish("vault", "@acme/secret", "1.0.0");
    expect(res.status).toBe(201);
    expect((await npm("vault/@acme%2fsecret", { token: null })).status).toBe(404);
    expect((await npm("vault/@acme%2fsecret/-/secret-1.0.0.tgz", { token: null })).status).toBe(404);
    expect((await npm("vault/-/v1/search?text=secret", { token: null })).status).toBe(404);
    const stranger = await publisher(server, "stranger");
    expect((await npm("vault/@acme%2fsecret", { token: stranger.token })).status).toBe(404);

    const readKey = await pub.key({ projects: "*", access: "read" });
    const doc = (await (await npm("vault/@acme%2fsecret", { token: readKey })).json()) as Doc;
    const url = doc.versions["1.0.0"].dist.tarball as string;
    expect(url).toBe(`${server.url}/npm/acme/vault/@acme/secret/-/secret-1.0.0.tgz`);
    const got = await fetch(url, { headers: { authorization: `Bearer ${readKey}` } });
    expect(Buffer.from(await got.arrayBuffer()).equals(tarball)).toBe(true);
    expect(
      ((await (await npm("vault/-/v1/search?text=secret", { token: readKey })).json()) as { total: number })
        .total,
    ).toBe(1);
    const refused = await publish("vault", "@acme/secret", "1.0.1", {}, readKey);
    expect(refused.res.status).toBe(403);
    expect(((await refused.res.json()) as { error: string }).error).toBeTruthy();

    const created = await pub.api("/api/v1/projects/vault/entitlements", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Initech" }),
    });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    expect((await npm("vault/@acme%2fsecret", { token })).status).toBe(200);
    expect((await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await publish("vault", "@acme/secret", "1.0.2", {}, token)).res.status).toBe(401);

    // A token for the 1.x versions sees only them: npm resolves latest within its range.
    expect((await publish("vault", "@acme/secret", "2.0.0")).res.status).toBe(201);
    const ranged = await pub.api("/api/v1/projects/vault/entitlements", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Legacy", versionRange: "<2.0.0" }),
    });
    expect(ranged.status).toBe(201);
    const legacy = ((await ranged.json()) as { token: string }).token;
    const seen = (await (await npm("vault/@acme%2fsecret", { token: legacy })).json()) as Doc;
    expect(Object.keys(seen.versions)).toEqual(["1.0.0"]);
    expect(seen["dist-tags"]).toEqual({ latest: "1.0.0" });
    const corgi = (await (
      await npm("vault/@acme%2fsecret", { token: legacy, accept: "application/vnd.npm.install-v1+json" })
    ).json()) as Doc;
    expect(Object.keys(corgi.versions)).toEqual(["1.0.0"]);
    expect(await (await npm("vault/-/package/@acme%2fsecret/dist-tags", { token: legacy })).json()).toEqual({
      latest: "1.0.0",
    });
    const newer = await fetch(`${server.url}/npm/acme/vault/@acme/secret/-/secret-2.0.0.tgz`, {
      headers: { authorization: `Bearer ${legacy}` },
    });
    expect(newer.status).toBe(404);
    expect(
      Object.keys(((await (await npm("vault/@acme%2fsecret", { token })).json()) as Doc).versions),
    ).toEqual(["1.0.0", "2.0.0"]);
  });

  it("records a trusted-publishing token's CI claims as the version's provenance", async () => {
    const project = await db()
      .selectFrom("project")
      .select("id")
      .where("slug", "=", "sdk")
      .executeTakeFirstOrThrow();
    const secret = newPublishToken();
    const claims = {
      iss: "https://token.actions.githubusercontent.com",
      repository: "acme/sdk",
      workflow_ref: "acme/sdk/.github/workflows/release.yml@refs/tags/v3.0.0",
      ref: "refs/tags/v3.0.0",
      sha: "0123456789abcdef0123456789abcdef01234567",
      run_id: "42",
    };
    await db()
      .insertInto("publish_token")
      .values({
        id: "pt-npm-test-0000000000000001",
        token_hash: hashPublishToken(secret),
        token_start: secret.slice(0, 10),
        owner_id: pub.userId,
        projects: JSON.stringify([project.id]),
        publisher: "GitHub Actions acme/sdk (release.yml)",
        claims: JSON.stringify(claims),
        expires_at: new Date(Date.now() + 10 * 60_000).toISOString(),
        created_at: new Date().toISOString(),
      })
      .execute();
    const { res } = await publish("sdk", "@acme/ci-built", "3.0.0", {}, secret);
    expect(res.status, await res.clone().text()).toBe(201);
    const doc = (await (await npm("sdk/@acme%2fci-built", { token: null })).json()) as Doc;
    expect(doc.versions["3.0.0"]._packyard.provenance).toMatchObject({
      repository: "acme/sdk",
      workflow: "release.yml",
      sha: claims.sha,
      runUrl: "https://github.com/acme/sdk/actions/runs/42",
      claims,
    });
    const entry = (await audit("file.uploaded")).find((e) => e.target === "acme-ci-built-3.0.0.tgz");
    expect(entry?.keyName).toBe("GitHub Actions acme/sdk (release.yml)");
    // The token publishes to its project only.
    expect((await publish("vault", "@acme/ci-built", "3.0.0", {}, secret)).res.status).toBe(403);
  });

  it("drops a version whose release is deleted (by hand or by retention); latest falls back to the highest release left", async () => {
    expect((await publish("sdk", "@acme/sdk", "1.2.0")).res.status).toBe(201);
    expect((await (await npm("sdk/-/package/@acme%2fsdk/dist-tags")).json()).latest).toBe("1.2.0");
    expect((await pub.api("/api/v1/projects/sdk/releases/1.2.0", { method: "DELETE" })).status).toBe(204);
    expect((await pub.api("/api/v1/projects/sdk/releases/1.1.0-beta.1", { method: "DELETE" })).status).toBe(
      204,
    );
    const doc = (await (await npm("sdk/@acme%2fsdk", { token: null })).json()) as Doc;
    expect(Object.keys(doc.versions)).toEqual(["1.0.0"]);
    expect(doc["dist-tags"]).toEqual({ latest: "1.0.0" });
    expect((await npm("sdk/@acme%2fsdk/-/sdk-1.2.0.tgz", { token: null })).status).toBe(404);
  });

  it("drops the versions a retention run deletes, from a packument served before", async () => {
    await createProject("kept", "public");
    for (const version of ["1.0.0", "1.1.0", "1.2.0"])
      expect((await publish("kept", "@acme/kept", version)).res.status).toBe(201);
    const before = (await (await npm("kept/@acme%2fkept", { token: null })).json()) as Doc;
    expect(Object.keys(before.versions)).toEqual(["1.0.0", "1.1.0", "1.2.0"]);
    const saved = await pub.api("/api/v1/projects/kept/retention", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ enabled: true, keepReleases: 2 }),
    });
    expect(saved.status).toBe(200);
    const { services } = server;
    const project = await db()
      .selectFrom("project")
      .select("id")
      .where("slug", "=", "kept")
      .executeTakeFirstOrThrow();
    await applyRetention(
      { db: services.database.db, clock: services.clock, logger: services.logger },
      project.id,
    );
    const after = (await (await npm("kept/@acme%2fkept", { token: null })).json()) as Doc;
    expect(Object.keys(after.versions)).toEqual(["1.1.0", "1.2.0"]);
    expect(after["dist-tags"]).toEqual({ latest: "1.2.0" });
    expect((await npm("kept/@acme%2fkept/-/kept-1.0.0.tgz", { token: null })).status).toBe(404);
  });
});
