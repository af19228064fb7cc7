// Where a Packyard publish spends its time, step by step: the same queries and the same
// @packyard/formats functions that AptRepositoryService.publish → buildSuite calls, in the same
// order, on a seeded data directory (read-only: index files are written to a scratch store), each
// step timed on its own. Then the same work done the ways recommended in docs/benchmarks.md, to
// put numbers on each recommendation. Prints JSON.
//
//   node bench/apt/profile-publish.ts <dataDir> <projectId> [runs=5]
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { constants, crc32, deflateRawSync, gunzipSync, gzipSync } from "node:zlib";
import { loadConfig } from "../../apps/web/server/config.ts";
import { openDatabase } from "../../apps/web/server/db/database.ts";
import { SigningKeyService } from "../../apps/web/server/repos/signing-keys.ts";
import { createLocalBlobStore } from "../../apps/web/server/storage/blob-store.ts";
import {
  comparePackagesIndexEntries,
  describeIndexFile,
  renderPackagesIndex,
  renderRelease,
} from "../../packages/formats/src/apt/index.ts";
import { signCleartext, signDetachedArmored } from "../../packages/formats/src/openpgp/index.ts";
import { summarize } from "../lib/proc.ts";

const [dataDir, projectId, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
// startLiveServer's secret: the signing keys in the seeded database are encrypted with it.
const SECRET = "live-server-secret-live-server-secret-00";

const config = loadConfig({ DATA_DIR: dataDir!, SECRET, LOG_LEVEL: "warn", NODE_ENV: "test" });
const database = openDatabase(config.database);
const db = database.db;
const keys = new SigningKeyService(db, SECRET);
const scratch = mkdtempSync(join(tmpdir(), "packyard-profile-"));
const store = createLocalBlobStore(scratch);
const encoder = new TextEncoder();

const timings = new Map<string, number[]>();
async function step<T>(name: string, work: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  const result = await work();
  const list = timings.get(name) ?? [];
  list.push(performance.now() - started);
  timings.set(name, list);
  return result;
}

const BASE_ARCHITECTURES = ["amd64", "arm64"];

async function onePublish() {
  const project = await step("1 query: project + owner", () =>
    db
      .selectFrom("project")
      .innerJoin("user", "user.id", "project.owner_id")
      .select(["project.id", "project.name", "project.slug", "user.username"])
      .where("project.id", "=", projectId!)
      .executeTakeFirstOrThrow(),
  );
  const rows = await step("2 query: every stored stanza (deb_package ⋈ release_file ⋈ release)", () =>
    db
      .selectFrom("deb_package")
      .innerJoin("release_file", "release_file.id", "deb_package.file_id")
      .innerJoin("release", "release.id", "release_file.release_id")
      .select([
        "deb_package.suite",
        "deb_package.component",
        "deb_package.name",
        "deb_package.version",
        "deb_package.architecture",
        "deb_package.stanza",
      ])
      .where("deb_package.project_id", "=", projectId!)
      .where("release.yanked", "=", 0)
      .orderBy("release.created_at", "desc")
      .orderBy("release.id", "desc")
      .execute(),
  );
  await step("3 query: distinct suites (deb_package)", () =>
    db.selectFrom("deb_package").select("suite").distinct().where("project_id", "=", projectId!).execute(),
  );
  const { signers } = await step("4 signing keys (keys.active, key already unlocked)", () =>
    keys.active(project),
  );
  const date = new Date();
  // buildSuite, step by step.
  const packages = await step("5 de-duplicate + list components/architectures", () => {
    const seen = new Set<string>();
    return rows.filter((p) => {
      const key = `${p.component}\u0000${p.name}\u0000${p.version}\u0000${p.architecture}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  });
  const components = [...new Set(packages.map((p) => p.component))].sort();
  const architectures = [
    ...new Set([...BASE_ARCHITECTURES, ...packages.map((p) => p.architecture).filter((a) => a !== "all")]),
  ].sort();
  architectures.push("all");
  const files = new Map<string, Uint8Array>();
  for (const component of components) {
    for (const architecture of architectures) {
      const entries = await step("6 filter per component/architecture", () =>
        packages.filter(
          (p) => p.component === component && (p.architecture === architecture || p.architecture === "all"),
        ),
      );
      // renderPackagesIndex = sort + duplicate check + join; the sort is timed alone as well.
      await step("7a   of which: sort (comparePackagesIndexEntries)", () =>
        [...entries].sort(comparePackagesIndexEntries),
      );
      const text = await step("7 renderPackagesIndex (sort + check + join)", () =>
        renderPackagesIndex(entries),
      );
      const plain = await step("8 TextEncoder.encode", () => encoder.encode(text));
      const base = `${component}/binary-${architecture}/Packages`;
      files.set(base, plain);
      files.set(`${base}.gz`, await step("9 gzipSync level 9", () => gzipSync(plain, { level: 9 })));
    }
  }
  const described = await step("10 describeIndexFile: sha256 + sha512 of every index", () =>
    [...files].map(([path, bytes]) => describeIndexFile(path, bytes)),
  );
  const release = await step("11 renderRelease", () =>
    renderRelease({
      origin: "Packyard",
      label: `${project.username}/${project.slug}`,
      suite: "stable",
      codename: "stable",
      date,
      architectures,
      components,
      description: `${project.username}/${project.slug} stable`,
      files: described,
    }),
  );
  files.set("Release", encoder.encode(release));
  files.set(
    "InRelease",
    encoder.encode(await step("12 signCleartext (InRelease)", () => signCleartext(release, signers))),
  );
  files.set(
    "Release.gpg",
    encoder.encode(
      await step("13 signDetachedArmored (Release.gpg)", () =>
        signDetachedArmored(encoder.encode(release), signers),
      ),
    ),
  );
  // The publisher then stores each file: stage (write + md5/sha1/sha256/sha512 + fsync), commit
  // (rename + directory fsync, or drop the copy when that content is stored already).
  await step(`14 store ${files.size} files one after another (stage + commit, fsync)`, async () => {
    for (const [, bytes] of files) {
      const staged = await store.stage(
        (async function* () {
          yield bytes;
        })(),
        { maxBytes: Number.MAX_SAFE_INTEGER },
      );
      await staged.commit();
    }
  });
  await step("14a   of which: the 4 hashes stage computes, in memory", () => {
    for (const [, bytes] of files) {
      for (const algorithm of ["sha256", "sha512", "sha1", "md5"])
        createHash(algorithm).update(bytes).digest();
    }
  });
  return { files, rows, packages, release, signers };
}

// ---- A prototype of the recommended incremental publish (R1–R6 in docs/benchmarks.md) ----

const POLY = 0xedb88320;
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}
const x2nTable = new Uint32Array(32);
{
  let p = 0x40000000;
  x2nTable[0] = p;
  for (let n = 1; n < 32; n++) x2nTable[n] = p = multModP(p, p);
}
function x2nModP(n: number, k: number): number {
  let p = 0x80000000;
  while (n) {
    if (n & 1) p = multModP(x2nTable[k & 31]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}
/** zlib's crc32_combine: the CRC-32 of A‖B from crc(A), crc(B) and |B|. */
function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multModP(x2nModP(lengthB, 3), crcA) ^ crcB) >>> 0;
}

interface Block {
  plain: Buffer;
  deflated: Buffer;
  crc: number;
  length: number;
}

/** Content-defined block ends: after a package whose name hashes to 0 mod 64 (FNV-1a). */
function endsBlock(name: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return (h >>> 0) % 64 === 0;
}

/**
 * One publish of the suite done incrementally: metadata-only query, sort, content-defined blocks
 * of ~64 stanzas, each block's raw-deflate (sync-flushed, so blocks concatenate into one gzip
 * member) cached by the file ids it holds; only blocks not in the cache read their stanzas and
 * are compressed. The uncompressed Packages is listed in Release but not stored; hashes computed
 * once; both signatures started together; only changed files stored, concurrently.
 */
async function incrementalPublish(cache: Map<string, Block>, signers: Parameters<typeof signCleartext>[1]) {
  const t: Record<string, number> = {};
  let mark = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    t[name] = (t[name] ?? 0) + now - mark;
    mark = now;
  };
  const meta = await db
    .selectFrom("deb_package")
    .innerJoin("release_file", "release_file.id", "deb_package.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .select([
      "deb_package.file_id",
      "deb_package.suite",
      "deb_package.component",
      "deb_package.name",
      "deb_package.version",
      "deb_package.architecture",
    ])
    .where("deb_package.project_id", "=", projectId!)
    .where("release.yanked", "=", 0)
    .orderBy("release.created_at", "desc")
    .orderBy("release.id", "desc")
    .execute();
  lap("query: metadata only (no stanza text)");
  const seen = new Set<string>();
  const entries = meta
    .filter((p) => {
      const key = `${p.component}\u0000${p.name}\u0000${p.version}\u0000${p.architecture}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return p.architecture === "amd64" || p.architecture === "all";
    })
    .map((p) => ({ ...p, stanza: "" }))
    .sort(comparePackagesIndexEntries);
  const blocks: (typeof entries)[] = [[]];
  for (const entry of entries) {
    blocks.at(-1)!.push(entry);
    if (endsBlock(entry.name)) blocks.push([]);
  }
  if (blocks.at(-1)!.length === 0) blocks.pop();
  const keys = blocks.map((block) => block.map((e) => e.file_id).join(","));
  lap("dedupe + sort + cut into blocks");
  const missing = blocks.filter((_, i) => !cache.has(keys[i]!));
  const ids = missing.flat().map((e) => e.file_id);
  const stanzas = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom("deb_package")
      .select(["file_id", "stanza"])
      .where("file_id", "in", ids.slice(i, i + 500))
      .execute();
    for (const row of rows) stanzas.set(row.file_id, row.stanza);
  }
  lap("query: stanzas of changed blocks");
  for (const block of missing) {
    const text = Buffer.from(block.map((e) => `${stanzas.get(e.file_id)!.replace(/\n*$/, "")}\n\n`).join(""));
    cache.set(block.map((e) => e.file_id).join(","), {
      plain: text,
      deflated: deflateRawSync(text, { level: 9, finishFlush: constants.Z_SYNC_FLUSH }),
      crc: crc32(text),
      length: text.length,
    });
  }
  lap("compress changed blocks (deflate level 9)");
  const parts = keys.map((key) => cache.get(key)!);
  let crc = 0;
  let length = 0;
  for (const part of parts) {
    crc = crc32Combine(crc, part.crc, part.length);
    length += part.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc, 0);
  trailer.writeUInt32LE(length >>> 0, 4);
  const gz = Buffer.concat([
    Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3]),
    ...parts.map((p) => p.deflated),
    Buffer.from([3, 0]),
    trailer,
  ]);
  lap("assemble Packages.gz (concat + crc32_combine)");
  // apt skips an index whose uncompressed name is not in Release, so the uncompressed Packages
  // stays listed (size and hashes, streamed from the cached blocks) but is not stored or served.
  const sha256 = createHash("sha256");
  const sha512 = createHash("sha512");
  for (const part of parts) {
    sha256.update(part.plain);
    sha512.update(part.plain);
  }
  const listedOnly = [
    {
      path: "main/binary-amd64/Packages",
      size: length,
      sha256: sha256.digest("hex"),
      sha512: sha512.digest("hex"),
    },
    describeIndexFile("main/binary-arm64/Packages", ""),
    describeIndexFile("main/binary-all/Packages", ""),
  ];
  const files = new Map<string, Uint8Array>([["main/binary-amd64/Packages.gz", gz]]);
  for (const arch of ["arm64", "all"]) files.set(`main/binary-${arch}/Packages.gz`, gzipSync(""));
  const release = renderRelease({
    origin: "Packyard",
    label: "bench/fleet",
    suite: "stable",
    codename: "stable",
    date: new Date(),
    architectures: ["amd64", "arm64", "all"],
    components: ["main"],
    description: "bench/fleet stable",
    files: [...listedOnly, ...[...files].map(([path, bytes]) => describeIndexFile(path, bytes))],
  });
  lap("hash Packages (streamed from blocks) + Packages.gz, render Release");
  const [inRelease, detached] = await Promise.all([
    signCleartext(release, signers),
    signDetachedArmored(encoder.encode(release), signers),
  ]);
  lap("sign InRelease + Release.gpg (started together)");
  files.set("Release", encoder.encode(release));
  files.set("InRelease", encoder.encode(inRelease));
  files.set("Release.gpg", encoder.encode(detached));
  await Promise.all(
    [...files].map(async ([, bytes]) => {
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      if (await store.exists(sha256)) return; // unchanged content is stored already
      const staged = await store.stage(
        (async function* () {
          yield bytes;
        })(),
        { maxBytes: Number.MAX_SAFE_INTEGER },
      );
      await staged.commit();
    }),
  );
  lap("store changed files concurrently (stage + commit, fsync)");
  return { t, gz, blocks: blocks.length, compressedBlocks: missing.length, plainLength: length };
}

async function prototype(signers: Parameters<typeof signCleartext>[1], plain: Uint8Array) {
  const cache = new Map<string, Block>();
  const started = performance.now();
  const cold = await incrementalPublish(cache, signers);
  const coldMs = performance.now() - started;
  if (!gunzipSync(cold.gz).equals(Buffer.from(plain))) {
    // The renderer separates stanzas with one blank line and ends with one newline; blocks end
    // each stanza with a blank line. Same stanzas, one extra trailing newline: compare that way.
    const unzipped = gunzipSync(cold.gz).toString();
    if (unzipped.trimEnd() !== Buffer.from(plain).toString().trimEnd()) {
      throw new Error("prototype Packages.gz differs from the renderer's Packages");
    }
  }
  // A new package changes the one block its name falls in: simulated by dropping one cached
  // block (a different one each run), whose stanzas are then read and compressed again.
  const warm: Record<string, number>[] = [];
  const totals: number[] = [];
  for (let i = 0; i < runs; i++) {
    const keys = [...cache.keys()];
    cache.delete(keys[Math.floor((keys.length * (i + 1)) / (runs + 1))]!);
    const started = performance.now();
    const result = await incrementalPublish(cache, signers);
    totals.push(performance.now() - started);
    warm.push(result.t);
  }
  const stepNames = Object.keys(warm[0]!);
  return {
    blocks: cold.blocks,
    "Packages.gz bytes (blocks)": cold.gz.length,
    "cold: every block compressed, ms": coldMs,
    "one block changed: total ms": summarize(totals),
    "one block changed: steps, median ms": Object.fromEntries(
      stepNames.map((name) => [name, summarize(warm.map((w) => w[name] ?? 0)).median]),
    ),
  };
}

async function whatIf(last: Awaited<ReturnType<typeof onePublish>>) {
  const plain = last.files.get("main/binary-amd64/Packages")!;
  const gz9 = last.files.get("main/binary-amd64/Packages.gz")!;
  const results: Record<string, unknown> = {};
  const time = (work: () => unknown) => {
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      work();
      samples.push(performance.now() - started);
    }
    return summarize(samples);
  };
  results["Packages (amd64) bytes"] = plain.length;
  results["Packages.gz level 9 bytes"] = gz9.length;
  for (const level of [1, 6]) {
    results[`gzipSync level ${level} ms`] = time(() => gzipSync(plain, { level }));
    results[`gzipSync level ${level} bytes`] = gzipSync(plain, { level }).length;
  }
  const signed: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await Promise.all([
      signCleartext(last.release, last.signers),
      signDetachedArmored(encoder.encode(last.release), last.signers),
    ]);
    signed.push(performance.now() - started);
  }
  results["R6 both signatures concurrently (Promise.all) ms"] = summarize(signed);
  // fsync: the three files that change on every publish, written concurrently.
  const fsyncs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const changed = [gz9, encoder.encode(`${last.release}${i}`), encoder.encode(`in${i}${last.release}`)];
    const started = performance.now();
    await Promise.all(
      changed.map(async (bytes) => {
        const staged = await store.stage(
          (async function* () {
            yield bytes;
          })(),
          { maxBytes: Number.MAX_SAFE_INTEGER },
        );
        await staged.commit();
      }),
    );
    fsyncs.push(performance.now() - started);
  }
  results["R4 store only the 3 changed files, concurrently (stage + commit) ms"] = summarize(fsyncs);
  results["crc32 of the whole Packages ms"] = time(() => crc32(plain));
  results["prototype: incremental publish"] = await prototype(last.signers, plain);
  return results;
}

try {
  let last: Awaited<ReturnType<typeof onePublish>> | undefined;
  // One run first so keys are unlocked and code is warm, like a running server; not recorded.
  await onePublish();
  timings.clear();
  for (let i = 0; i < runs; i++) last = await onePublish();
  const steps = Object.fromEntries(
    [...timings].map(([name, samples]) => {
      // Steps run more than once per publish (per architecture) are summed per publish.
      const perPublish = samples.length / runs;
      const sums: number[] = [];
      for (let i = 0; i < samples.length; i += perPublish) {
        sums.push(samples.slice(i, i + perPublish).reduce((a, b) => a + b, 0));
      }
      return [name, summarize(sums)];
    }),
  );
  const output = {
    packages: last!.rows.length,
    steps,
    whatIf: await whatIf(last!),
  };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
} finally {
  await database.close();
  rmSync(scratch, { recursive: true, force: true });
}
