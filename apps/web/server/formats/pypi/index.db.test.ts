// The Python index at /pypi/{owner}/{project}/ without a Python client (issue 42): twine's
// upload form with its digests, the refusals (digests, names and versions that disagree, a
// duplicate, an epoch), the simple pages in HTML and JSON (hashes, requires-python, PEP 658
// metadata, yanked files), the normalised-name redirect, a private project's index, download
// statistics and the audit log. twine and pip themselves: real-clients.db.test.ts. SQLite, and
// PostgreSQL when configured.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";
import { flushDownloadCounts } from "../../billing/usage.ts";
import { servingCachesOf } from "../../downloads/serve-cache.ts";
import { hashPublishToken, newPublishToken } from "../../trusted-publishing/storage.ts";
import { SIMPLE_HTML, SIMPLE_JSON } from "./simple-pages.ts";
import {
  buildSdist,
  buildWheel,
  type DistributionSpec,
  digestsOf,
  uploadForm,
} from "./test-distributions.ts";

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;

const PIP_ACCEPT = `${SIMPLE_JSON}, ${SIMPLE_HTML}; q=0.1, text/html; q=0.01`;
const PIP_AGENT = 'pip/23.0.1 {"installer":{"name":"pip","version":"23.0.1"},"python":"3.11.2"}';
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const basic = (secret: string) => `Basic ${Buffer.from(`__token__:${secret}`).toString("base64")}`;
const index = (project: string) => `${server.url}/pypi/packer/${project}`;

/** twine's upload of `file`, with the form's fields (name, version, digests) overridable. */
function upload(
  project: string,
  file: { filename: string; bytes: Uint8Array },
  spec: DistributionSpec,
  options: { key?: string | null; fields?: Record<string, string | undefined> } = {},
) {
  const key = options.key === undefined ? pub.token : options.key;
  const fields = {
    name: spec.name,
    version: spec.version,
    filetype: file.filename.endsWith(".whl") ? "bdist_wheel" : "sdist",
    pyversion: file.filename.endsWith(".whl") ? "py3" : "source",
    metadata_version: "2.1",
    ...digestsOf(file.bytes),
    ...options.fields,
  };
  return fetch(`${index(project)}/`, {
    method: "POST",
    headers: key ? { authorization: basic(key) } : {},
    body: uploadForm(file, fields),
  });
}

async function uploaded(res: Response) {
  expect(res.status, await res.clone().text()).toBe(200);
}

/** The status, the body and the reason phrase of a refusal. */
async function refusal(res: Response) {
  return {
    status: res.status,
    text: await res.text(),
    reason: res.statusText,
    code: res.headers.get("x-packyard-error-code"),
  };
}

function get(url: string, init: { key?: string; accept?: string; agent?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = basic(init.key);
  if (init.accept) headers.accept = init.accept;
  if (init.agent) headers["user-agent"] = init.agent;
  return fetch(url, { headers, redirect: "manual" });
}

async function createProject(slug: string, visibility: "public" | "private") {
  const res = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug, name: slug, visibility }),
  });
  expect(res.status).toBe(201);
}

interface JsonPage {
  meta: { "api-version": string };
  name: string;
  versions: string[];
  files: {
    filename: string;
    url: string;
    hashes: { sha256: string };
    "requires-python"?: string;
    "core-metadata": { sha256: string } | false;
    yanked: boolean | string;
    size: number;
    "upload-time": string;
  }[];
}

const acme: DistributionSpec = { name: "Acme_SDK", version: "1.0", requiresPython: ">=3.8" };
const wheel = buildWheel(acme);
const sdist = buildSdist(acme);

beforeAll(async () => {
  server = await startLiveServer({ PLAN_LIMITS: "off" });
  pub = await publisher(server, "packer");
  await createProject("sdk", "public");
  await createProject("vault", "private");
  await uploaded(await upload("sdk", wheel, acme));
  await uploaded(await upload("sdk", sdist, acme));
});
afterAll(async () => {
  await server?.close();
});

describe(`the Python index (${databaseKind})`, () => {
  it("takes twine's upload form into the release of the version, created with the first file", async () => {
    const res = await pub.api("/api/v1/projects/sdk/releases/1.0/files");
    expect(res.status).toBe(200);
    const { files } = (await res.json()) as { files: { filename: string; sha256: string }[] };
    expect(files.map((f) => f.filename).sort()).toEqual([sdist.filename, wheel.filename].sort());
    expect(files.find((f) => f.filename === wheel.filename)!.sha256).toBe(sha256(wheel.bytes));
  });

  it("lists the distributions at the index's root, in HTML and JSON", async () => {
    const html = await get(`${index("sdk")}/simple/`);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await html.text()).toContain('<a href="acme-sdk/">Acme_SDK</a>');
    const json = await get(`${index("sdk")}/simple/`, { accept: PIP_ACCEPT });
    expect(json.headers.get("content-type")).toBe(SIMPLE_JSON);
    expect(await json.json()).toEqual({ meta: { "api-version": "1.1" }, projects: [{ name: "Acme_SDK" }] });
    // Without the trailing slash: redirected to it (PEP 503).
    const bare = await get(`${index("sdk")}/simple`);
    expect(bare.status).toBe(301);
    expect(bare.headers.get("location")).toBe("/pypi/packer/sdk/simple/");
  });

  it("writes a distribution's page in HTML with hashes, requires-python and the wheel's metadata hash", async () => {
    const res = await get(`${index("sdk")}/simple/acme-sdk/`, { accept: "text/html" });
    expect(res.status).toBe(200);
    expect(res.headers.get("vary")).toContain("Accept");
    const body = await res.text();
    expect(body).toContain('<meta name="pypi:repository-version" content="1.1">');
    const wheelUrl = `${index("sdk")}/files/1.0/${wheel.filename}`;
    const metadataHash = sha256(wheel.metadata);
    expect(body).toContain(
      `<a href="${wheelUrl}#sha256=${sha256(wheel.bytes)}" data-requires-python="&gt;=3.8" data-dist-info-metadata="sha256=${metadataHash}" data-core-metadata="sha256=${metadataHash}">${wheel.filename}</a>`,
    );
    expect(body).toContain(
      `<a href="${index("sdk")}/files/1.0/${sdist.filename}#sha256=${sha256(sdist.bytes)}" data-requires-python="&gt;=3.8">${sdist.filename}</a>`,
    );
    // The versioned HTML type is answered as itself.
    const versioned = await get(`${index("sdk")}/simple/acme-sdk/`, { accept: SIMPLE_HTML });
    expect(versioned.headers.get("content-type")).toBe(`${SIMPLE_HTML}; charset=utf-8`);
    // Revalidated by its ETag.
    const again = await fetch(`${index("sdk")}/simple/acme-sdk/`, {
      headers: { accept: "text/html", "if-none-match": res.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
  });

  it("writes it in JSON (PEP 691, 1.1) when asked with the Accept header, and serves the files and the metadata", async () => {
    const res = await get(`${index("sdk")}/simple/acme-sdk/`, { accept: PIP_ACCEPT });
    expect(res.headers.get("content-type")).toBe(SIMPLE_JSON);
    const page = (await res.json()) as JsonPage;
    expect(page.meta).toEqual({ "api-version": "1.1" });
    expect(page.name).toBe("acme-sdk");
    expect(page.versions).toEqual(["1.0"]);
    const whl = page.files.find((f) => f.filename === wheel.filename)!;
    expect(whl).toMatchObject({
      url: `${index("sdk")}/files/1.0/${wheel.filename}`,
      hashes: { sha256: sha256(wheel.bytes) },
      "requires-python": ">=3.8",
      "core-metadata": { sha256: sha256(wheel.metadata) },
      yanked: false,
      size: wheel.bytes.length,
    });
    expect(Date.parse(whl["upload-time"])).not.toBeNaN();
    expect(page.files.find((f) => f.filename === sdist.filename)!["core-metadata"]).toBe(false);

    const file = await get(whl.url, { agent: PIP_AGENT });
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(wheel.bytes)).toBe(true);
    const metadata = await get(`${whl.url}.metadata`);
    expect(metadata.status).toBe(200);
    const bytes = Buffer.from(await metadata.arrayBuffer());
    expect(bytes.equals(wheel.metadata)).toBe(true);
    expect(sha256(bytes)).toBe(sha256(wheel.metadata));
    // An sdist has none; nor is anything made up for a file that is not there.
    expect((await get(`${index("sdk")}/files/1.0/${sdist.filename}.metadata`)).status).toBe(404);
    // Nothing acceptable: 406.
    expect((await get(`${index("sdk")}/simple/acme-sdk/`, { accept: "application/json" })).status).toBe(406);
  });

  it("checks each digest of the form against the file, and keeps nothing of a refused one", async () => {
    const spec = { ...acme, version: "1.0.1" };
    const file = buildWheel(spec);
    for (const [field, pattern] of [
      ["sha256_digest", /sha256_digest does not match/],
      ["md5_digest", /md5_digest does not match/],
      ["blake2_256_digest", /blake2_256_digest does not match/],
    ] as const) {
      const wrong = field === "md5_digest" ? "0".repeat(32) : "0".repeat(64);
      const res = await refusal(await upload("sdk", file, spec, { fields: { [field]: wrong } }));
      expect(res.status).toBe(400);
      expect(res.code).toBe("PYPI_DIGEST_MISMATCH");
      expect(res.text).toMatch(pattern);
      // twine prints the reason phrase.
      expect(res.reason).toMatch(pattern);
    }
    const bad = await refusal(await upload("sdk", file, spec, { fields: { sha256_digest: "xyz" } }));
    expect(bad.text).toMatch(/not a hexadecimal digest/);
    const none = await refusal(
      await upload("sdk", file, spec, {
        fields: { md5_digest: undefined, sha256_digest: undefined, blake2_256_digest: undefined },
      }),
    );
    expect(none.text).toMatch(/needs a digest/);
    expect((await pub.api("/api/v1/projects/sdk/releases/1.0.1")).status).toBe(404);
    // With only some digests, those are checked.
    await uploaded(
      await upload("sdk", file, spec, { fields: { md5_digest: undefined, blake2_256_digest: undefined } }),
    );
  });

  it("refuses a file whose name, metadata and form disagree, bad names and versions, and broken archives", async () => {
    const cases: [string, Promise<Response>, RegExp][] = [
      [
        "metadata version",
        (() => {
          const spec = { ...acme, version: "2.0", metadataVersion: "2.1" };
          return upload("sdk", buildWheel(spec), spec);
        })(),
        /says version 2\.1, not 2\.0/,
      ],
      [
        "metadata name",
        (() => {
          const spec = { ...acme, version: "2.0", metadataName: "Other-Thing" };
          return upload("sdk", buildSdist(spec), spec);
        })(),
        /names Other-Thing/,
      ],
      [
        "form name",
        upload("sdk", buildWheel({ ...acme, version: "2.0" }), {
          ...acme,
          name: "other-pkg",
          version: "2.0",
        }),
        /is not of other-pkg/,
      ],
      [
        "form version",
        upload("sdk", buildWheel({ ...acme, version: "2.0" }), { ...acme, version: "2.1" }),
        /is not version 2\.1/,
      ],
      [
        "epoch",
        (() => {
          const spec = { ...acme, version: "1!2.0" };
          return upload("sdk", buildWheel(spec), spec);
        })(),
        /has an epoch/,
      ],
      [
        "invalid name",
        upload(
          "sdk",
          { filename: "-bad-1.0.tar.gz", bytes: Buffer.from("x") },
          { name: "-bad-", version: "1.0" },
        ),
        /not a valid project name/,
      ],
      [
        "invalid version",
        upload(
          "sdk",
          { filename: "acme_sdk-latest.tar.gz", bytes: Buffer.from("x") },
          { ...acme, version: "latest" },
        ),
        /not a valid version/,
      ],
      [
        "not a wheel",
        upload(
          "sdk",
          { filename: "acme_sdk-3.0-py3-none-any.whl", bytes: Buffer.from("not a zip") },
          {
            ...acme,
            version: "3.0",
          },
        ),
        /not a zip archive/,
      ],
      [
        "not a tar.gz",
        upload(
          "sdk",
          { filename: "acme_sdk-3.0.tar.gz", bytes: Buffer.from("not gzip") },
          { ...acme, version: "3.0" },
        ),
        /not a readable \.tar\.gz/,
      ],
      [
        "zip sdist",
        upload("sdk", { filename: "acme_sdk-3.0.zip", bytes: Buffer.from("x") }, { ...acme, version: "3.0" }),
        /\.tar\.gz only/,
      ],
      [
        "other action",
        upload("sdk", wheel, acme, { fields: { ":action": "doc_upload" } }),
        /Only the file_upload action/,
      ],
    ];
    // The stable code beside the words, where the refusal has one of its own.
    const codes: Record<string, string> = {
      "metadata version": "PYPI_INVALID_METADATA",
      "metadata name": "PYPI_INVALID_METADATA",
      "invalid name": "PYPI_INVALID_NAME",
      "invalid version": "INVALID_VERSION",
      "not a wheel": "PYPI_INVALID_METADATA",
      "other action": "VALIDATION_FAILED",
    };
    for (const [what, response, pattern] of cases) {
      const res = await refusal(await response);
      expect(res.status, what).toBe(400);
      expect(res.text, what).toMatch(pattern);
      if (codes[what]) expect(res.code, what).toBe(codes[what]);
    }
    for (const version of ["2.0", "3.0"])
      expect((await pub.api(`/api/v1/projects/sdk/releases/${version}`)).status).toBe(404);
  });

  it("refuses a file that is already there as PyPI does, so twine --skip-existing skips it", async () => {
    const res = await refusal(await upload("sdk", wheel, acme));
    expect(res.status).toBe(409);
    expect(res.text).toMatch(/already exists/);
  });

  it("redirects other spellings of a name to the normalised one", async () => {
    for (const spelling of ["Acme_SDK", "acme.sdk", "ACME--sdk"]) {
      const res = await get(`${index("sdk")}/simple/${spelling}/`);
      expect(res.status).toBe(301);
      expect(res.headers.get("location")).toBe("/pypi/packer/sdk/simple/acme-sdk/");
    }
    const bare = await get(`${index("sdk")}/simple/acme-sdk`);
    expect(bare.status).toBe(301);
    expect(bare.headers.get("location")).toBe("/pypi/packer/sdk/simple/acme-sdk/");
    expect((await get(`${index("sdk")}/simple/requests/`)).status).toBe(404);
  });

  it("marks the files of a yanked release as yanked, with its reason (PEP 592)", async () => {
    const spec = { ...acme, version: "1.1" };
    await uploaded(await upload("sdk", buildWheel(spec), spec));
    // The page as it is before (kept in the serving cache, which the yank must drop).
    expect(servingCachesOf(server.services.database.db).rows.enabled).toBe(true);
    const before = (await (
      await get(`${index("sdk")}/simple/acme-sdk/`, { accept: SIMPLE_JSON })
    ).json()) as JsonPage;
    expect(before.files.find((f) => f.filename === "acme_sdk-1.1-py3-none-any.whl")!.yanked).toBe(false);
    const yank = await pub.api("/api/v1/projects/sdk/releases/1.1/yank", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: 'broken "import" <oops>' }),
    });
    expect(yank.status).toBe(200);
    const html = await (await get(`${index("sdk")}/simple/acme-sdk/`)).text();
    expect(html).toMatch(
      /acme_sdk-1\.1-py3-none-any\.whl#sha256=[0-9a-f]{64}"[^>]* data-yanked="broken &quot;import&quot; &lt;oops&gt;">/,
    );
    expect(html).not.toMatch(/acme_sdk-1\.0-py3-none-any\.whl#[^>]*data-yanked/);
    const page = (await (
      await get(`${index("sdk")}/simple/acme-sdk/`, { accept: SIMPLE_JSON })
    ).json()) as JsonPage;
    expect(page.files.find((f) => f.filename === "acme_sdk-1.1-py3-none-any.whl")!.yanked).toBe(
      'broken "import" <oops>',
    );
    expect(page.files.find((f) => f.filename === wheel.filename)!.yanked).toBe(false);
    expect(page.versions).toContain("1.1");
  });

  it("keeps a private index from anonymous clients (not found); read keys and entitlement tokens read; a read key cannot upload", async () => {
    await uploaded(await upload("vault", wheel, acme));
    const fileUrl = `${index("vault")}/files/1.0/${wheel.filename}`;
    for (const url of [
      `${index("vault")}/simple/`,
      `${index("vault")}/simple/acme-sdk/`,
      fileUrl,
      `${fileUrl}.metadata`,
    ]) {
      const anonymous = await get(url);
      expect(anonymous.status, url).toBe(404);
    }
    // A missing project looks the same.
    expect((await get(`${index("nothing")}/simple/`)).status).toBe(404);
    const stranger = await publisher(server, "stranger");
    expect((await get(`${index("vault")}/simple/`, { key: stranger.token })).status).toBe(404);
    expect((await get(`${index("vault")}/simple/`, { key: "pky_not-a-key" })).status).toBe(401);

    const readKey = await pub.key({ projects: "*", access: "read" });
    const page = await get(`${index("vault")}/simple/acme-sdk/`, { key: readKey });
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("private, no-cache");
    expect((await get(fileUrl, { key: readKey })).status).toBe(200);
    expect((await get(`${fileUrl}.metadata`, { key: readKey })).status).toBe(200);

    const denied = await refusal(await upload("vault", sdist, acme, { key: readKey }));
    expect(denied.status).toBe(403);
    const anonymousUpload = await upload("vault", sdist, acme, { key: null });
    expect(anonymousUpload.status).toBe(401);
    expect(anonymousUpload.headers.get("www-authenticate")).toBe('Basic realm="Packyard"');
    expect((await upload("vault", sdist, acme, { key: stranger.token })).status).toBe(404);

    const created = await pub.api("/api/v1/projects/vault/entitlements", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Initech" }),
    });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    expect((await get(`${index("vault")}/simple/acme-sdk/`, { key: token })).status).toBe(200);
    const entitled = await get(fileUrl, { key: token });
    expect(entitled.status).toBe(200);
    expect(Buffer.from(await entitled.arrayBuffer()).equals(wheel.bytes)).toBe(true);
    // Not a publishing credential.
    expect((await upload("vault", sdist, acme, { key: token })).status).toBe(401);
  });

  it("takes an upload with a trusted-publishing token (twine's password from CI), for its projects only", async () => {
    const db = server.services.database.db;
    const sdk = await db
      .selectFrom("project")
      .select("id")
      .where("slug", "=", "sdk")
      .executeTakeFirstOrThrow();
    const secret = newPublishToken();
    await db
      .insertInto("publish_token")
      .values({
        id: "pt-pypi-test-0000000000000001",
        token_hash: hashPublishToken(secret),
        token_start: secret.slice(0, 10),
        owner_id: pub.userId,
        projects: JSON.stringify([sdk.id]),
        publisher: "GitHub Actions packer/sdk (release.yml)",
        claims: null,
        expires_at: new Date(Date.now() + 10 * 60_000).toISOString(),
        created_at: new Date().toISOString(),
      })
      .execute();
    const spec = { ...acme, version: "1.2" };
    await uploaded(await upload("sdk", buildSdist(spec), spec, { key: secret }));
    expect([403, 404]).toContain((await upload("vault", buildSdist(spec), spec, { key: secret })).status);
  });

  it("counts a file downloaded by pip as a pip install", async () => {
    const stats = async () => {
      await flushDownloadCounts(server.services.database.db);
      const res = await pub.api("/api/v1/projects/sdk/stats?by=client");
      const body = (await res.json()) as { stats: { rows: { key: string; installs: number }[] } };
      return body.stats.rows.find((row) => row.key === "pip")?.installs ?? 0;
    };
    const before = await stats();
    const res = await get(`${index("sdk")}/files/1.0/${sdist.filename}`, { agent: PIP_AGENT });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    let after = before;
    for (let i = 0; i < 100 && after === before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await stats();
    }
    expect(after).toBe(before + 1);
  });

  it("records each upload once in the audit log, and nothing for a refused one", async () => {
    const res = await pub.api("/api/v1/projects/sdk/audit?limit=200");
    expect(res.status).toBe(200);
    const { entries } = (await res.json()) as { entries: { action: string; target: string | null }[] };
    const count = (action: string, target: string) =>
      entries.filter((e) => e.action === action && e.target === target).length;
    expect(count("file.uploaded", wheel.filename)).toBe(1);
    expect(count("file.uploaded", sdist.filename)).toBe(1);
    expect(count("release.created", "1.0")).toBe(1);
    expect(count("release.yanked", "1.1")).toBe(1);
    expect(
      entries.some((e) => e.target?.startsWith("acme_sdk-2.0") || e.target?.startsWith("acme_sdk-3.0")),
    ).toBe(false);
  });
});
