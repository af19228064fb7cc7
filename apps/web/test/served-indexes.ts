// What Packyard's APT and YUM repositories serve for one fixed set of uploads, as a map path →
// status, content type and SHA-256 of the body: the yardstick for moving the formats without
// changing a byte they serve (issue 39). A live server with a fixed clock (Release `Date:`,
// repomd timestamps, signature times) takes fixed .deb and .rpm files; every path a client
// reads is found by walking Release and repomd.xml, as apt and dnf do.
//
// A few things differ on every run by design, and are replaced by names before hashing: the
// server's port, release and project ids (random), the project's signing key (generated), the
// signed .rpm files (each OpenPGP signature carries a random salt, so their digests differ) and
// the time an .rpm was uploaded (`<time file>`, the row's real creation time). Digests and
// sizes of other served files are replaced by "{sha256 of <path>}" once checked against that
// file. A body that needed none of this is hashed as served, byte for byte; a compressed one is
// decompressed first and its compression's header recorded. Signatures are verified with gpgv
// and their signed text compared instead of their bytes.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { compressionOfName, decompressStream } from "@packyard/formats/compress/decompress-stream.ts";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { gpgvVerify } from "@packyard/formats/openpgp/gpg-test-support.ts";
import {
  binaryEntry,
  encodeRpmHeader,
  int16Entry,
  int32Entry,
  type NewHeaderEntry,
  stringArrayEntry,
  stringEntry,
} from "@packyard/formats/rpm/rpm-header-writer.ts";
import { REGION_IMMUTABLE, SigTag, Tag } from "@packyard/formats/rpm/rpm-tags.ts";
import { syntheticRpm } from "@packyard/formats/rpm/testing/synthetic-rpm.ts";
import { type LiveServer, publisher, startLiveServer } from "./live-server.ts";

/** The server's clock for the whole capture: indexes and signatures carry this time. */
export const CAPTURE_TIME = new Date("2026-03-02T10:20:30.000Z");

export interface ServedFile {
  status: number;
  contentType: string | null;
  /** SHA-256 of the body as served, or of its normalised text when `normalised` says how. */
  sha256: string;
  /** Present when the body was not hashed as served: what was done to it first. */
  normalised?: string;
  /** For a compressed body: the compression's header bytes (gzip flags and mtime, xz/zstd flags). */
  compressionHeader?: string;
  /** For a signature: gpgv found a good signature by the project's key over the signed text. */
  verified?: boolean;
}

export type ServedIndexes = Record<string, ServedFile>;

const USER = "capture";
const PROJECT = "tools";

// --- The uploads -------------------------------------------------------------------------------

function deb(name: string, version: string, architecture: string) {
  return buildTestDeb({
    control: `Package: ${name}
Version: ${version}
Architecture: ${architecture}
Maintainer: Packyard Tests <tests@example.com>
Description: ${name} for the served-indexes capture
 It installs one script.
`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name} ${version}\n` }],
  });
}

const sha256Hex = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/**
 * An .rpm built from header entries (rpmbuild's output differs by host and rpm version), with
 * the digests and the reserved signature space rpmbuild writes, so the server accepts and signs it.
 */
function rpm(name: string, version: string, arch: string): Uint8Array {
  const payload = new TextEncoder().encode(`payload of ${name}-${version}.${arch}`);
  const entries: NewHeaderEntry[] = [
    stringEntry(Tag.NAME, name),
    stringEntry(Tag.VERSION, version),
    stringEntry(Tag.RELEASE, "1"),
    stringEntry(Tag.SUMMARY, `${name} for the served-indexes capture`),
    stringEntry(Tag.DESCRIPTION, `${name} ${version} installs one script.`),
    int32Entry(Tag.BUILDTIME, [1_700_000_000]),
    stringEntry(Tag.BUILDHOST, "build.example.com"),
    stringEntry(Tag.LICENSE, "MIT"),
    stringEntry(Tag.URL, "https://example.com/capture"),
    stringEntry(Tag.OS, "linux"),
    stringEntry(Tag.ARCH, arch),
    int32Entry(Tag.SIZE, [64]),
    stringEntry(Tag.SOURCERPM, `${name}-${version}-1.src.rpm`),
    stringArrayEntry(Tag.PROVIDENAME, [name]),
    int32Entry(Tag.PROVIDEFLAGS, [8]),
    stringArrayEntry(Tag.PROVIDEVERSION, [`${version}-1`]),
    stringArrayEntry(Tag.REQUIRENAME, ["/bin/sh"]),
    int32Entry(Tag.REQUIREFLAGS, [0]),
    stringArrayEntry(Tag.REQUIREVERSION, [""]),
    int16Entry(Tag.FILEMODES, [0o100755]),
    int32Entry(Tag.DIRINDEXES, [0]),
    stringArrayEntry(Tag.BASENAMES, [name]),
    stringArrayEntry(Tag.DIRNAMES, ["/usr/bin/"]),
    stringEntry(Tag.PAYLOADFORMAT, "cpio"),
    stringEntry(Tag.PAYLOADCOMPRESSOR, "gzip"),
    stringArrayEntry(Tag.PAYLOADDIGEST, [sha256Hex(payload)]),
    int32Entry(Tag.PAYLOADDIGESTALGO, [8]),
  ];
  const header = encodeRpmHeader(REGION_IMMUTABLE, entries);
  const hex = (algorithm: string) => createHash(algorithm).update(header).digest("hex");
  const signature: NewHeaderEntry[] = [
    stringEntry(SigTag.SHA1, hex("sha1")),
    stringEntry(SigTag.SHA256, hex("sha256")),
    int32Entry(SigTag.SIZE, [header.length + payload.length]),
    binaryEntry(SigTag.RESERVEDSPACE, new Uint8Array(4128)),
  ];
  return syntheticRpm({ signature, header: entries, payload });
}

interface Upload {
  release: string;
  filename: string;
  bytes: Uint8Array;
  query?: string;
}

/** Two versions of a package, three architectures, a second suite and component, a YUM group. */
const UPLOADS: Upload[] = [
  { release: "0.9.0", filename: "hello_0.9.0_amd64.deb", bytes: deb("hello", "0.9.0", "amd64") },
  { release: "1.0.0", filename: "hello_1.0.0_amd64.deb", bytes: deb("hello", "1.0.0", "amd64") },
  { release: "1.1.0", filename: "hello_1.1.0_amd64.deb", bytes: deb("hello", "1.1.0", "amd64") },
  { release: "1.1.0", filename: "hello_1.1.0_arm64.deb", bytes: deb("hello", "1.1.0", "arm64") },
  { release: "1.1.0", filename: "hello-doc_1.1.0_all.deb", bytes: deb("hello-doc", "1.1.0", "all") },
  {
    release: "2.0.0-rc1",
    filename: "hello_2.0.0~rc1_amd64.deb",
    bytes: deb("hello", "2.0.0~rc1", "amd64"),
    query: "?distribution=testing&component=contrib",
  },
  { release: "0.9.0", filename: "hello-0.9.0-1.x86_64.rpm", bytes: rpm("hello", "0.9.0", "x86_64") },
  { release: "1.0.0", filename: "hello-1.0.0-1.x86_64.rpm", bytes: rpm("hello", "1.0.0", "x86_64") },
  { release: "1.1.0", filename: "hello-1.1.0-1.x86_64.rpm", bytes: rpm("hello", "1.1.0", "x86_64") },
  { release: "1.1.0", filename: "hello-1.1.0-1.aarch64.rpm", bytes: rpm("hello", "1.1.0", "aarch64") },
  { release: "1.1.0", filename: "hello-doc-1.1.0-1.noarch.rpm", bytes: rpm("hello-doc", "1.1.0", "noarch") },
  {
    release: "2.0.0-rc1",
    filename: "hello-2.0.0-1.x86_64.rpm",
    bytes: rpm("hello", "2.0.0", "x86_64"),
    query: "?group=testing",
  },
];
/** Yanked after the uploads: its packages leave the indexes. */
const YANKED = "0.9.0";

// --- Fetching what a client fetches ------------------------------------------------------------

interface Raw {
  status: number;
  contentType: string | null;
  body: Uint8Array;
}

const SIGNATURE_ARMOR =
  /(-----BEGIN PGP (?:SIGNATURE|PUBLIC KEY BLOCK)-----\n(?:[^\n]+\n)*\n)[\s\S]*?(-----END PGP)/g;
const COMPRESSED = /\.(gz|xz|zst)$/;

async function decompressed(path: string, body: Uint8Array): Promise<Uint8Array> {
  const compression = compressionOfName(path);
  if (!compression || compression === "none") return body;
  const stream = decompressStream(
    new Response(new Uint8Array(body)).body as ReadableStream<Uint8Array>,
    compression,
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const digestOf = (algorithm: string, bytes: Uint8Array) => createHash(algorithm).update(bytes).digest("hex");

/** Uploads the fixed set to a fresh server, walks its repositories, and answers the map. */
export async function captureServedIndexes(): Promise<ServedIndexes> {
  const server = await startLiveServer({}, { clock: () => new Date(CAPTURE_TIME) });
  try {
    return await capture(server);
  } finally {
    await server.close();
  }
}

async function capture(server: LiveServer): Promise<ServedIndexes> {
  const pub = await publisher(server, USER);
  const created = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: PROJECT, name: PROJECT, visibility: "public" }),
  });
  if (created.status !== 201)
    throw new Error(`creating the project: ${created.status} ${await created.text()}`);
  for (const upload of UPLOADS) {
    const res = await pub.api(
      `/api/v1/projects/${PROJECT}/releases/${upload.release}/files/${upload.filename}${upload.query ?? ""}`,
      { method: "PUT", body: Buffer.from(upload.bytes) },
    );
    if (res.status !== 201)
      throw new Error(`uploading ${upload.filename}: ${res.status} ${await res.text()}`);
  }
  const yank = await pub.api(`/api/v1/projects/${PROJECT}/releases/${YANKED}/yank`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ reason: "superseded" }),
  });
  if (yank.status !== 200) throw new Error(`yanking ${YANKED}: ${yank.status} ${await yank.text()}`);

  const raw = new Map<string, Raw>();
  const get = async (path: string): Promise<Raw> => {
    const known = raw.get(path);
    if (known) return known;
    const res = await fetch(`${server.url}/dl/${USER}/${PROJECT}/${path}`);
    const answer = {
      status: res.status,
      contentType: res.headers.get("content-type"),
      body: new Uint8Array(await res.arrayBuffer()),
    };
    raw.set(path, answer);
    return answer;
  };
  /** Paths whose body is the same file as another path's (by-hash): named after that path. */
  const aliasOf = new Map<string, string>();

  for (const path of ["setup.deb.sh", "setup.rpm.sh", "gpg.key", "keyring.gpg"]) await get(path);

  // APT: each suite's Release lists its indexes; apt fetches them by hash when Release says so.
  for (const suite of ["stable", "testing"]) {
    const dists = `deb/dists/${suite}`;
    for (const name of ["InRelease", "Release", "Release.gpg"]) await get(`${dists}/${name}`);
    const release = text((await get(`${dists}/Release`)).body);
    const byHash = /^Acquire-By-Hash: yes$/m.test(release);
    for (const [, algorithm, section] of release.matchAll(/^(SHA256|SHA512):\n((?: .*\n?)*)/gm)) {
      for (const [, hex, , file] of (section ?? "").matchAll(/^ ([0-9a-f]+) +(\d+) (\S+)$/gm)) {
        const served = await get(`${dists}/${file}`);
        if (!byHash || served.status !== 200) continue;
        const alias = `${dists}/${file!.replace(/[^/]+$/, "")}by-hash/${algorithm}/${hex}`;
        await get(alias);
        aliasOf.set(alias, `${dists}/${file}`);
      }
    }
    for (const [path, answer] of [...raw]) {
      if (!path.startsWith(`${dists}/`) || !/\/Packages(\.gz|\.xz)?$/.test(path) || answer.status !== 200)
        continue;
      const packages = text(await decompressed(path, answer.body));
      for (const [, filename] of packages.matchAll(/^Filename: (\S+)$/gm)) await get(`deb/${filename}`);
    }
  }

  // YUM: each group's repomd.xml lists its repodata; primary lists the packages.
  for (const group of ["", "testing"]) {
    const base = group ? `rpm/${group}/` : "rpm/";
    await get(`${base}${PROJECT}.repo`);
    const repomd = text((await get(`${base}repodata/repomd.xml`)).body);
    await get(`${base}repodata/repomd.xml.asc`);
    for (const [, href] of repomd.matchAll(/<location href="([^"]+)"/g)) {
      const data = await get(`${base}${href}`);
      if (!/primary\.xml/.test(href!) || data.status !== 200) continue;
      const primary = text(await decompressed(href!, data.body));
      for (const [, location] of primary.matchAll(/<location href="([^"]+)"/g))
        await get(`${base}${location}`);
    }
  }

  return normalise(server, raw, aliasOf);
}

// --- Normalising what differs on every run by design -------------------------------------------

async function normalise(
  server: LiveServer,
  raw: Map<string, Raw>,
  aliasOf: Map<string, string>,
): Promise<ServedIndexes> {
  const db = server.services.database.db;
  const project = await db
    .selectFrom("project")
    .select("id")
    .where("slug", "=", PROJECT)
    .executeTakeFirstOrThrow();
  const releases = await db
    .selectFrom("release")
    .select(["id", "version"])
    .where("project_id", "=", project.id)
    .execute();
  const keys = await db
    .selectFrom("signing_key")
    .select("fingerprint")
    .where("project_id", "=", project.id)
    .execute();
  if (keys.length !== 1) throw new Error(`expected one signing key, found ${keys.length}`);
  const fingerprint = keys[0]!.fingerprint.toUpperCase();

  // Literal names first (paths contain release ids), longest first so no name eats another.
  const names: [string, string][] = [
    [server.url, "http://packyard.test"],
    [new URL(server.url).host, "packyard.test"],
    [project.id, "{project id}"],
    ...releases.map(({ id, version }): [string, string] => [id, `{release ${version} id}`]),
    [fingerprint, "{key fingerprint}"],
    [fingerprint.toLowerCase(), "{key fingerprint}"],
    [fingerprint.slice(-16), "{key id}"],
    [fingerprint.slice(-16).toLowerCase(), "{key id}"],
  ];
  names.sort((a, b) => b[0].length - a[0].length);
  const named = (value: string) => names.reduce((out, [from, to]) => out.split(from).join(to), value);

  // Every digest of every served file (and of a compressed file's content), by the file's name;
  // a repodata file is named without the digest its own name starts with.
  const digests = new Map<string, string>();
  const stable = (path: string) => named(path).replace(/\/[0-9a-f]{64}-([^/]+)$/, "/$1");
  const bodies = new Map<string, Uint8Array>();
  const algorithms = ["md5", "sha1", "sha256", "sha512"];
  // The first file with a content names it (an empty index may be served under several paths);
  // a file as served before any file's decompressed content.
  const nameDigest = (bytes: Uint8Array, label: (algorithm: string) => string) => {
    for (const algorithm of algorithms) {
      const hex = digestOf(algorithm, bytes);
      if (!digests.has(hex)) digests.set(hex, label(algorithm));
    }
  };
  const served = [...raw].filter(([path, answer]) => answer.status === 200 && !aliasOf.has(path));
  for (const [path, answer] of served) nameDigest(answer.body, (a) => `{${a} of ${stable(path)}}`);
  for (const [path, answer] of served) {
    const content = await decompressed(path, answer.body);
    bodies.set(path, content);
    if (content !== answer.body) nameDigest(content, (a) => `{${a} of ${stable(path)}, decompressed}`);
  }
  const digestNamed = (value: string) =>
    value.replace(/\b[0-9a-f]{32,128}\b/g, (hex) => digests.get(hex) ?? hex);
  const sizeOf = (path: string, decompressedSize: boolean) => {
    const answer = raw.get(path);
    if (answer?.status !== 200) throw new Error(`${path} is listed but not served`);
    return (decompressedSize ? bodies.get(path)! : answer.body).length;
  };

  const out = new Map<string, ServedFile>();
  for (const [path, answer] of raw) {
    const name = digestNamed(named(path));
    if (out.has(name)) throw new Error(`two served paths are named ${name}`);
    const entry: ServedFile = {
      status: answer.status,
      contentType: answer.contentType,
      sha256: sha256Hex(answer.body),
    };
    out.set(name, entry);
    if (answer.status !== 200) continue;
    const dir = path.replace(/[^/]+$/, "");
    const steps: string[] = [];
    let body = answer.body;
    const source = aliasOf.get(path) ?? path;
    if (COMPRESSED.test(source)) {
      // gzip: flags, mtime, extra flags and OS; xz: the stream flags; zstd: the frame header.
      const headerLength = source.endsWith(".gz") ? 10 : source.endsWith(".xz") ? 12 : 6;
      entry.compressionHeader = Buffer.from(body.subarray(0, headerLength)).toString("hex");
      body = bodies.get(source) ?? (await decompressed(source, body));
      steps.push("decompressed");
    }
    if (/(InRelease|Release\.gpg|repomd\.xml\.asc)$/.test(path))
      entry.verified = verify(raw, path, fingerprint);
    let normalised = text(body);
    if (path.endsWith(".rpm") || path === "keyring.gpg") {
      // The signed .rpm files and the binary keyring: their bytes carry a random signature salt
      // or a generated key; what they are is recorded, their digests name them in the indexes.
      normalised = path.endsWith(".rpm")
        ? `signed rpm, ${body.length} bytes`
        : "the project's binary keyring";
      steps.push("opaque");
    } else if (isText(body)) {
      const before = normalised;
      normalised = normalised.replace(SIGNATURE_ARMOR, "$1{armored data}\n$2");
      // Sizes first, while the paths they are listed under are still as served.
      if (/(^|\/)(In)?Release$/.test(path)) normalised = releaseSizes(normalised, path, sizeOf);
      if (path.endsWith("repomd.xml")) normalised = repomdSizes(normalised, dir, sizeOf);
      normalised = digestNamed(named(normalised));
      normalised = normalised.replace(/<time file="\d+"/g, '<time file="{upload time}"');
      if (normalised !== before) steps.push("named");
    }
    // To see what changed when the snapshot fails: the normalised texts, written out.
    const dump = process.env.SERVED_INDEXES_DUMP;
    if (dump && isText(body)) {
      const file = join(dump, name.replace(/[{}]/g, "_"));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, normalised);
    }
    if (steps.length > 0) {
      entry.sha256 = sha256Hex(normalised);
      entry.normalised = steps.join(", ");
    }
  }
  return Object.fromEntries([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function isText(bytes: Uint8Array): boolean {
  return !bytes.includes(0) && !text(bytes).includes("\uFFFD");
}

/** Release's size column, checked against each file and then named (compressed sizes vary with the ids). */
function releaseSizes(
  release: string,
  path: string,
  sizeOf: (path: string, decompressed: boolean) => number,
) {
  const dists = path.replace(/\/(In)?Release$/, "");
  return release.replace(/^ (\{[^}]+\}|[0-9a-f]+) +(\d+) (\S+)$/gm, (_line, digest, size, file) => {
    const actual = sizeOf(`${dists}/${file}`, false);
    if (actual !== Number(size)) throw new Error(`${path} lists ${file} as ${size} bytes, served ${actual}`);
    return ` ${digest} {size} ${file}`;
  });
}

/** repomd.xml's sizes, checked against each file and then named. */
function repomdSizes(repomd: string, dir: string, sizeOf: (path: string, decompressed: boolean) => number) {
  return repomd.replace(/<data type="[^"]+">[\s\S]*?<\/data>/g, (block) => {
    const href = /<location href="([^"]+)"/.exec(block)?.[1];
    if (!href) throw new Error(`a repomd.xml entry without a location: ${block}`);
    const path = `${dir.replace(/repodata\/$/, "")}${href}`;
    return block
      .replace(/<size>(\d+)<\/size>/, (_m, size) => {
        if (sizeOf(path, false) !== Number(size))
          throw new Error(`repomd.xml lists ${href} as ${size} bytes`);
        return "<size>{size}</size>";
      })
      .replace(/<open-size>(\d+)<\/open-size>/, (_m, size) => {
        if (sizeOf(path, true) !== Number(size))
          throw new Error(`repomd.xml lists ${href} open as ${size} bytes`);
        return "<open-size>{size}</open-size>";
      });
  });
}

/** gpgv's verdict: a good signature by the project's key, none bad, over the file it signs. */
function verify(raw: Map<string, Raw>, path: string, fingerprint: string): boolean {
  const keyring = raw.get("keyring.gpg")?.body;
  if (!keyring) throw new Error("keyring.gpg was not fetched");
  const name = path.split("/").pop()!;
  const dir = path.slice(0, -name.length);
  const signed = name === "Release.gpg" ? "Release" : name === "repomd.xml.asc" ? "repomd.xml" : undefined;
  const files: Record<string, Uint8Array> = { [name]: raw.get(path)!.body };
  if (signed) files[signed] = raw.get(`${dir}${signed}`)!.body;
  const result = gpgvVerify(keyring, files, signed ? [name, signed] : [name]);
  const good =
    result.status === 0 &&
    result.badSignatures === 0 &&
    result.goodSigners.length > 0 &&
    result.goodSigners.every((s) => s === fingerprint);
  // InRelease signs Release's text: apt reads either, so they must say the same.
  if (name === "InRelease")
    return good && clearSigned(text(files[name]!)) === text(raw.get(`${dir}Release`)!.body);
  return good;
}

/** The text of a clear-signed message (RFC 4880 §7), with the line ending the signature took back. */
function clearSigned(message: string): string | undefined {
  const match =
    /^-----BEGIN PGP SIGNED MESSAGE-----\n(?:[^\n]+\n)*\n([\s\S]*?)\n-----BEGIN PGP SIGNATURE-----\n/.exec(
      message,
    );
  return match ? `${match[1]!.replace(/^- /gm, "")}\n` : undefined;
}
