// Where a Packyard YUM publish spends its time, step by step: the same queries and the same
// @packyard/formats calls that RepositoryPublisher.publish → yumBuilder.build → #commit make, in
// the same order, on a seeded data directory (read-only: files are written to a scratch store;
// the generation insert is not replayed), each step timed on its own. Also the real builders
// called whole, and what-ifs for the recommendations in docs/benchmarks.md. Prints JSON.
//
//   node bench/yum/profile-publish.ts <dataDir> <projectId> [runs=5] [unsigned.rpm]
//
// With an .rpm: also the upload's own work on it, step by step (parse, sign, render the three
// fragments, store original and signed file with fsync).
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { loadConfig } from "../../apps/web/server/config.ts";
import { openDatabase } from "../../apps/web/server/db/database.ts";
import { createAptBuilder } from "../../apps/web/server/repos/apt/apt-builder.ts";
import { MemoryBudget } from "../../apps/web/server/repos/memory-budget.ts";
import { SigningKeyService } from "../../apps/web/server/repos/signing-keys.ts";
import { createYumBuilder } from "../../apps/web/server/repos/yum/yum-builder.ts";

const indexMemory = new MemoryBudget(256 * 1024 * 1024);
const aptBuilder = createAptBuilder(indexMemory);
const yumBuilder = createYumBuilder(indexMemory);

import { createLocalBlobStore } from "../../apps/web/server/storage/blob-store.ts";
import { signDetachedArmored } from "../../packages/formats/src/openpgp/index.ts";
import { parseRpmPackage } from "../../packages/formats/src/rpm/read-rpm.ts";
import { signRpm } from "../../packages/formats/src/rpm/sign-rpm.ts";
import { renderFilelistsPackage, renderFilelistsXml } from "../../packages/formats/src/yum/filelists-xml.ts";
import { renderOtherPackage, renderOtherXml } from "../../packages/formats/src/yum/other-xml.ts";
import { renderPrimaryPackage, renderPrimaryXml } from "../../packages/formats/src/yum/primary-xml.ts";
import { type RepomdEntry, renderRepomd } from "../../packages/formats/src/yum/repomd-xml.ts";
import { summarize } from "../lib/proc.ts";

const [dataDir, projectId, runsArg, rpmPath] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
// startLiveServer's secret: the signing keys in the seeded database are encrypted with it.
const SECRET = "live-server-secret-live-server-secret-00";

const config = loadConfig({ DATA_DIR: dataDir!, SECRET, LOG_LEVEL: "warn", NODE_ENV: "test" });
const database = openDatabase(config.database);
const db = database.db;
const keys = new SigningKeyService(db, SECRET);
const scratch = mkdtempSync(join(tmpdir(), "packyard-profile-yum-"));
const store = createLocalBlobStore(scratch);
const encoder = new TextEncoder();
const hex = (algorithm: string, bytes: Uint8Array) => createHash(algorithm).update(bytes).digest("hex");

const timings = new Map<string, number[]>();
async function step<T>(name: string, work: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  const result = await work();
  const list = timings.get(name) ?? [];
  list.push(performance.now() - started);
  timings.set(name, list);
  return result;
}

const TYPES = ["primary", "filelists", "other"] as const;
const RENDER = { primary: renderPrimaryXml, filelists: renderFilelistsXml, other: renderOtherXml };
const COLUMN = { primary: "primary_xml", filelists: "filelists_xml", other: "other_xml" } as const;

async function project() {
  return db
    .selectFrom("project")
    .innerJoin("user", "user.id", "project.owner_id")
    .select(["project.id", "project.name", "project.slug", "user.username"])
    .where("project.id", "=", projectId!)
    .executeTakeFirstOrThrow();
}

function yumRows() {
  return db
    .selectFrom("yum_package")
    .innerJoin("release_file", "release_file.id", "yum_package.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .select([
      "yum_package.repo_group",
      "yum_package.name",
      "yum_package.epoch",
      "yum_package.version",
      "yum_package.release",
      "yum_package.arch",
      "yum_package.primary_xml",
      "yum_package.filelists_xml",
      "yum_package.other_xml",
    ])
    .where("yum_package.project_id", "=", projectId!)
    .where("release.yanked", "=", 0)
    .orderBy("release.created_at", "desc")
    .orderBy("release.id", "desc")
    .execute();
}

type Rows = Awaited<ReturnType<typeof yumRows>>;

function dedupeAndSort(rows: Rows, group: string): Rows {
  const seen = new Set<string>();
  const packages = rows.filter((r) => {
    if (r.repo_group !== group) return false;
    const key = `${r.name}\u0000${r.epoch}\u0000${r.version}\u0000${r.release}\u0000${r.arch}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return packages.sort(
    (a, b) =>
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.arch < b.arch ? -1 : a.arch > b.arch ? 1 : 0),
  );
}

/** One publish of the root group, step by step: what yumBuilder.build and the publisher's #commit do. */
async function onePublish() {
  const p = await step("01 query: project + owner (publisher)", project);
  const context = {
    db,
    project: { ...p, username: p.username ?? "" },
    keys,
    date: new Date(),
    published: [] as string[],
  };
  await step("02 APT builder on this YUM-only project (queries, nothing to build)", () =>
    aptBuilder.build({ ...context, published: [] }),
  );
  await step("03 query: published YUM repositories (repo_generation)", () =>
    db
      .selectFrom("repo_generation")
      .select("name")
      .distinct()
      .where("project_id", "=", projectId!)
      .where("format", "=", "yum")
      .execute(),
  );
  const rows = await step(
    "04 query: every package's 3 fragments (yum_package ⋈ release_file ⋈ release)",
    yumRows,
  );
  await step("05 query: groups ever used (distinct repo_group)", () =>
    db
      .selectFrom("yum_package")
      .select("repo_group")
      .distinct()
      .where("project_id", "=", projectId!)
      .execute(),
  );
  const { signers } = await step("06 signing keys (keys.active, key already unlocked)", () => keys.active(p));
  const timestamp = Math.floor(context.date.getTime() / 1000);
  const packages = await step("07 de-duplicate + sort by name, arch", () => dedupeAndSort(rows, ""));
  const files = new Map<string, Uint8Array>();
  const entries: RepomdEntry[] = [];
  const sizes: Record<string, { open: number; gz: number }> = {};
  for (const type of TYPES) {
    const xml = await step(`08 join ${type} fragments into the document`, () =>
      RENDER[type](packages.map((r) => r[COLUMN[type]])),
    );
    // buildRepodataFile, step by step: UTF-8 encode, gzip level 6, sha256 of both.
    const open = await step("09 Buffer.from (UTF-8 encode), 3 documents", () => Buffer.from(xml, "utf8"));
    const bytes = await step(
      `10 gzip level 6 of ${type}`,
      () => new Uint8Array(gzipSync(open, { level: 6 })),
    );
    const checksum = await step("11 sha256 of the .gz and of the open XML (repomd entries)", () => {
      hex("sha256", open);
      return hex("sha256", bytes);
    });
    sizes[type] = { open: open.length, gz: bytes.length };
    const path = `repodata/${checksum}-${type}.xml.gz`;
    files.set(path, bytes);
    entries.push({
      type,
      checksum,
      openChecksum: checksum,
      location: path,
      timestamp,
      size: bytes.length,
      openSize: open.length,
    });
  }
  const repomd = await step("12 renderRepomd", () => renderRepomd({ revision: timestamp, entries }));
  files.set("repodata/repomd.xml", encoder.encode(repomd));
  files.set(
    "repodata/repomd.xml.asc",
    encoder.encode(
      await step("13 sign repomd.xml (detached, armored, openpgp.js RSA-3072)", () =>
        signDetachedArmored(encoder.encode(repomd), signers),
      ),
    ),
  );
  // The publisher's #commit: sha256 + sha512 of each file (the YUM builder passes no digests),
  // exists(), putBytes() of the new ones, all files at once.
  await step("14 publisher: sha256 + sha512 of the 5 files again", () => {
    for (const bytes of files.values()) {
      hex("sha256", bytes);
      hex("sha512", bytes);
    }
  });
  await step("15 publisher: exists + putBytes of the 5 files, concurrently (write, fsync, rename)", () =>
    Promise.all(
      [...files.values()].map(async (bytes) => {
        const sha256 = hex("sha256", bytes);
        if (!(await store.exists(sha256))) await store.putBytes(bytes, sha256);
      }),
    ),
  );
  return { rows, packages, signers, sizes, files };
}

/**
 * The same .gz made from cached per-block gzip members, as the APT builder does since 3e674a0:
 * blocks of ~`blockSize` packages cut where a package name hashes to 0 (so one new package
 * changes one block), each block a gzip member cached by its text; only new blocks are
 * compressed. Phases are added to `phases` (ms).
 */
function blockGzip(
  fragments: string[],
  head: string,
  tail: string,
  cache: Map<string, Uint8Array>,
  blockSize: number,
  phases: Record<string, number>,
) {
  const clock = (name: string, started: number) => {
    phases[name] = (phases[name] ?? 0) + performance.now() - started;
  };
  let started = performance.now();
  const blocks: string[] = [head];
  let current: string[] = [];
  const nameOf = (f: string) => {
    const match = /<name>([^<]*)<\/name>| name="([^"]*)"/.exec(f);
    return match?.[1] ?? match?.[2] ?? f.slice(0, 64);
  };
  const hash = (s: string) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
    return h;
  };
  for (const f of fragments) {
    if (current.length > 0 && (hash(nameOf(f)) % blockSize === 0 || current.length >= blockSize * 4)) {
      blocks.push(current.join(""));
      current = [];
    }
    current.push(f);
  }
  if (current.length) blocks.push(current.join(""));
  blocks.push(tail);
  clock("cut into blocks + join each", started);
  started = performance.now();
  const open = createHash("sha256");
  for (const block of blocks) open.update(block);
  const openSha256 = open.digest("hex");
  clock("sha256 of the open XML (open-checksum), streamed over the blocks", started);
  started = performance.now();
  let compressedNow = 0;
  const parts = blocks.map((block) => {
    let gz = cache.get(block);
    if (!gz) {
      gz = gzipSync(Buffer.from(block), { level: 6 });
      compressedNow++;
      cache.set(block, gz);
    }
    return gz;
  });
  clock("look up blocks, gzip the new ones", started);
  started = performance.now();
  const bytes = Buffer.concat(parts);
  const sha256 = hex("sha256", bytes);
  clock("concatenate members + sha256 of the .gz", started);
  return { bytes, sha256, openSha256, compressedNow, blocks: blocks.length };
}

async function whatIf(last: Awaited<ReturnType<typeof onePublish>>) {
  const out: Record<string, unknown> = {};
  const time = async (fn: () => unknown, n = runs) => {
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await fn();
      samples.push(performance.now() - started);
    }
    return summarize(samples);
  };
  const docs = TYPES.map((type) => ({
    type,
    fragments: last.packages.map((r) => r[COLUMN[type]]),
    xml: RENDER[type](last.packages.map((r) => r[COLUMN[type]])),
  }));
  // Gzip levels for the three documents together.
  for (const level of [1, 6, 9]) {
    out[`gzip level ${level}, 3 documents`] = {
      ms: await time(() => docs.map((d) => gzipSync(Buffer.from(d.xml), { level }))),
      bytes: docs.reduce((sum, d) => sum + gzipSync(Buffer.from(d.xml), { level }).length, 0),
    };
  }
  // Cached per-block gzip members (blocks of ~32 packages cut where a name hashes to 0 mod 32):
  // fill the cache with the current list, then add one package and rebuild.
  const caches = TYPES.map(() => new Map<string, Uint8Array>());
  const pieces = docs.map((d) => {
    const whole = d.xml;
    const first = d.fragments[0] ?? "";
    const at = first ? whole.indexOf(first) : whole.lastIndexOf("<");
    return { head: whole.slice(0, at), tail: whole.slice(at + d.fragments.join("").length) };
  });
  const ignored: Record<string, number> = {};
  const cold = docs.map((d, i) =>
    blockGzip(d.fragments, pieces[i]!.head, pieces[i]!.tail, caches[i]!, 32, ignored),
  );
  const equal = docs.every(
    (d, i) =>
      gunzipSync(cold[i]!.bytes).toString("utf8") === d.xml &&
      cold[i]!.openSha256 === hex("sha256", Buffer.from(d.xml)),
  );
  // One more package in the middle of the list (as a new upload would be): copy a fragment, new name.
  const middle = Math.floor(last.packages.length / 2);
  const added = docs.map((d) => {
    const copy = d.fragments[middle]!.replaceAll(
      last.packages[middle]!.name,
      `${last.packages[middle]!.name}a`,
    );
    return [...d.fragments.slice(0, middle + 1), copy, ...d.fragments.slice(middle + 1)];
  });
  const phases: Record<string, number> = {};
  const warm = await time(() => {
    // Each sample starts from the cache of the N-package build.
    return added.map((fragments, i) =>
      blockGzip(fragments, pieces[i]!.head, pieces[i]!.tail, new Map(caches[i]!), 32, phases),
    );
  });
  const one = added.map((fragments, i) =>
    blockGzip(fragments, pieces[i]!.head, pieces[i]!.tail, new Map(caches[i]!), 32, ignored),
  );
  out[
    "cached gzip blocks: one package added, 3 documents (join + sha256 open + recompress changed blocks + concat + sha256)"
  ] = {
    ms: warm,
    phasesMeanMs: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, v / runs])),
    blocksRecompressed: one.map((o) => o.compressedNow),
    blocks: one.map((o) => o.blocks),
    bytes: one.reduce((sum, o) => sum + o.bytes.length, 0),
    gunzipsToTheSameXml: equal,
  };
  out["sha256 + sha512 of the 3 .gz files (what passing digests to the publisher saves)"] = {
    ms: await time(() => {
      for (const [path, bytes] of last.files) {
        if (!path.endsWith(".gz")) continue;
        hex("sha256", bytes);
        hex("sha512", bytes);
      }
    }),
  };
  out["metadata-only query (no fragments)"] = {
    ms: await time(() =>
      db
        .selectFrom("yum_package")
        .innerJoin("release_file", "release_file.id", "yum_package.file_id")
        .innerJoin("release", "release.id", "release_file.release_id")
        .select(["yum_package.repo_group", "yum_package.name", "yum_package.arch", "yum_package.file_id"])
        .where("yum_package.project_id", "=", projectId!)
        .where("release.yanked", "=", 0)
        .execute(),
    ),
  };
  out["revision probe: count(*), max(rowid) of the project's yum_package"] = {
    ms: await time(() =>
      db
        .selectFrom("yum_package")
        .select((eb) => [eb.fn.countAll().as("n"), eb.fn.max("file_id").as("m")])
        .where("project_id", "=", projectId!)
        .executeTakeFirst(),
    ),
  };
  return out;
}

/** The upload's work on one .rpm, without HTTP and SQL: what uploadFile → signStoredRpm → yumRecord do. */
async function uploadSteps() {
  if (!rpmPath) return undefined;
  const p = await project();
  const key = await keys.newest(p);
  const bytes = new Uint8Array(readFileSync(rpmPath));
  const upload = new Map<string, number[]>();
  const time = async <T>(name: string, work: () => Promise<T> | T): Promise<T> => {
    const started = performance.now();
    const result = await work();
    upload.set(name, [...(upload.get(name) ?? []), performance.now() - started]);
    return result;
  };
  for (let i = 0; i <= runs; i++) {
    if (i === 1) upload.clear(); // the first round warms up
    await time("U1 store the upload: stage (write + md5/sha1/sha256/sha512 + fsync) + commit", async () => {
      const staged = await store.stage(
        (async function* () {
          yield bytes;
        })(),
        { maxBytes: 1 << 30 },
      );
      await staged.commit();
    });
    const pkg = await time("U2 parse the .rpm (lead, signature and main headers)", () =>
      parseRpmPackage(bytes),
    );
    const signed = await time("U3 sign the main header (openpgp.js, RSA-3072, detached)", () =>
      signRpm(bytes, { signingKey: key.privateKey }),
    );
    await time("U4 store the signed file: stage + commit (original is then deleted)", async () => {
      const staged = await store.stage(
        (async function* () {
          yield signed.leadAndSignature;
          yield bytes.subarray(signed.originalHeaderStart);
        })(),
        { maxBytes: 1 << 30 },
      );
      await staged.commit();
    });
    await time("U5 render the primary, filelists and other fragments", () => {
      const file = { checksum: "0".repeat(64), href: "packages/x/y.rpm", size: bytes.length, time: 0 };
      renderPrimaryPackage(pkg.metadata, file);
      renderFilelistsPackage(pkg.metadata, file);
      renderOtherPackage(pkg.metadata, file);
    });
  }
  return Object.fromEntries([...upload].map(([k, v]) => [k, summarize(v)]));
}

async function main() {
  let last: Awaited<ReturnType<typeof onePublish>> | undefined;
  // One untimed warm-up publish (JIT, key unlock), then `runs` timed ones.
  await onePublish();
  timings.clear();
  for (let i = 0; i < runs; i++) last = await onePublish();
  const wholeYum: number[] = [];
  for (let i = 0; i < runs; i++) {
    const p = await project();
    const started = performance.now();
    await yumBuilder.build({
      db,
      project: { ...p, username: p.username ?? "" },
      keys,
      date: new Date(),
      published: [""],
    });
    wholeYum.push(performance.now() - started);
  }
  const output = {
    packages: last!.packages.length,
    sizes: last!.sizes,
    steps: Object.fromEntries(
      [...timings].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, summarize(v)]),
    ),
    realYumBuilder: summarize(wholeYum),
    whatIf: await whatIf(last!),
    upload: await uploadSteps(),
  };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
  await database.close();
  rmSync(scratch, { recursive: true, force: true });
}

await main();
