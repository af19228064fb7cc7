// What apt fetches from a project's repository: /dl/{u}/{p}/deb/dists/… (current indexes and
// by-hash files of every still-served generation), /dl/{u}/{p}/deb/pool/… (the packages), and
// /dl/{u}/{p}/setup.deb.sh. The project's public keys are served by signing-keys.ts.
import { gunzipSync } from "node:zlib";
import { compareDebianVersions } from "@packyard/formats/deb/debian-version.ts";
import { type Answer, type Body, type DlDeps, type DlRequest, dlProject } from "../../downloads/dl-answer.ts";
import {
  cachedCurrentFile,
  cachedFileByHash,
  cachedPoolFile,
  indexBytes,
  NotInMemory,
} from "../../downloads/lookups.ts";
import { servingCachesOf } from "../../downloads/serve-cache.ts";
import { filteredAptSuite } from "../../entitlements/filtered-apt.ts";
import { assertEntitled } from "../../platform/core/authorization.ts";
import { notFound } from "../../platform/core/errors.ts";
import type { Db } from "../../platform/core/use-case.ts";
import { cacheControl } from "../../platform/http/cache-control.ts";
import type { IndexFileRef } from "../../repositories/publisher.ts";

/** A path under /dl/{u}/{p}/deb/ into dists/: its suite, the file, and for by-hash files the digest. */
export interface DistsPath {
  suite: string;
  path: string;
  byHash?: { directory: string; algorithm: "SHA256" | "SHA512"; hex: string };
}

export function parseDistsPath(rest: string): DistsPath | undefined {
  const dists = /^dists\/([^/]+)\/(.+)$/.exec(rest);
  if (!dists) return undefined;
  const [, suite, path] = dists as unknown as [string, string, string];
  const byHash = /^(.+)\/by-hash\/(SHA256|SHA512)\/([0-9a-f]+)$/.exec(path);
  if (!byHash) return { suite, path };
  const [, directory, algorithm, hex] = byHash as unknown as [string, string, "SHA256" | "SHA512", string];
  return { suite, path, byHash: { directory, algorithm, hex } };
}

export function contentTypeOf(path: string): string {
  if (path.endsWith(".gz")) return "application/gzip";
  if (path.endsWith(".xz")) return "application/x-xz";
  if (path.endsWith(".deb")) return "application/vnd.debian.binary-package";
  if (path.endsWith(".gpg") && !path.endsWith("Release.gpg")) return "application/pgp-keys";
  return "text/plain; charset=utf-8";
}

const DEB_ROUTE = "/dl/:username/:slug/deb/*";

/** A file of the APT repository: a package in pool/, an index in dists/ (current or by hash). */
export async function resolveAptFile(deps: DlDeps, req: DlRequest): Promise<Answer> {
  const { services, memoryOnly } = deps;
  const { repos, blobs } = services;
  const db = services.database.db;
  const project = await dlProject(deps, req);
  // Private repositories are personal: never cached by shared caches.
  const shared = project.visibility === "public";
  const rest = req.params.rest!;
  if (rest.split("/").some((part) => part === ".." || part === "")) throw notFound();
  // Packages and indexes alike count in the owner's downloaded bytes.
  const count = { ownerId: project.owner_id };

  if (rest.startsWith("pool/")) {
    const file = await cachedPoolFile(db, project.id, rest, memoryOnly);
    if (!file) throw notFound("Package not found");
    const size = Number(file.size);
    // An entitlement token limited to suites reads a package listed in one of them (a pool file
    // may be listed in several).
    const entitledSuites = req.entitled?.entitlement.suites
      ? await poolSuites(db, project.id, rest)
      : undefined;
    return {
      route: DEB_ROUTE,
      status: 200,
      headers: {
        "content-length": String(size),
        "content-type": "application/vnd.debian.binary-package",
        etag: `"${file.sha256}"`,
        "cache-control": cacheControl({ kind: "immutable", shared }),
      },
      body: { kind: "blob", store: blobs, sha256: file.sha256, size, start: 0, end: size - 1 },
      count: {
        ...count,
        file: { id: file.id, projectId: project.id, version: file.version, filename: file.filename },
        distribution: file.suite,
        lastByte: true,
      },
      entitled: {
        ...(entitledSuites ? { suite: entitledSuites } : {}),
        version: { value: file.package_version, compare: compareDebianVersions },
        file: true,
      },
    };
  }

  const dists = parseDistsPath(rest);
  if (!dists) throw notFound();
  const { suite, path, byHash } = dists;
  const entitled = { suite };
  // A token with a version range reads the suite without the versions it may not install.
  const range = req.entitled?.entitlement.versionRange;
  if (range) {
    // Its suites first: nothing is made for a suite it may not read.
    assertEntitled(req.entitled!.entitlement, { projectId: project.id, suite }, services.clock());
    const filtered = await filteredAptSuite(services, project, suite, range);
    const bytes = filtered?.files.get(byHash ? (filtered.byHash.get(path) ?? "") : path);
    if (!bytes) throw notFound("Index file not found");
    return {
      route: DEB_ROUTE,
      status: 200,
      headers: {
        "content-type": contentTypeOf(
          path.includes("/by-hash/") ? (filtered!.byHash.get(path) ?? path) : path,
        ),
        "content-length": String(bytes.byteLength),
        // This customer's view of the suite: never kept by a shared cache.
        "cache-control": cacheControl({ kind: byHash ? "immutable" : "entry", shared: false }),
      },
      body: { kind: "bytes", bytes },
      count,
      entitled,
    };
  }
  // An uncompressed Packages file is not stored: it is the decompressed .gz of its generation.
  // Index files are small and named by their sha256: answered from memory (downloads/lookups.ts).
  const indexFile = async (file: IndexFileRef, headers: Record<string, string>): Promise<Answer> => {
    const answer = (body: Body, length: number): Answer => ({
      route: DEB_ROUTE,
      status: 200,
      headers: { ...headers, "content-length": String(length) },
      body,
      count,
      reusable: req.anonymous && body.kind === "bytes",
      entitled,
    });
    const bytes = await bytesOf(file);
    if (bytes) return answer({ kind: "bytes", bytes, sha256: file.sha256 }, bytes.byteLength);
    if (await repos.store.exists(file.sha256))
      return answer(
        {
          kind: "blob",
          store: repos.store,
          sha256: file.sha256,
          size: file.size,
          start: 0,
          end: file.size - 1,
        },
        file.size,
      );
    const gz = await repos.fileInGeneration(file.generationId, `${file.path}.gz`);
    if (!gz) throw notFound("Index file not found");
    return answer({ kind: "gunzip", store: repos.store, sha256: gz.sha256, size: file.size }, file.size);
  };
  const bytesOf = async (file: IndexFileRef): Promise<Buffer | undefined> => {
    const { content } = servingCachesOf(db);
    const cached = content.get(file.sha256);
    if (cached) return cached;
    if (memoryOnly) throw new NotInMemory();
    if (file.size > content.maxEntryBytes) return undefined;
    if (await repos.store.exists(file.sha256)) return indexBytes(db, repos.store, file.sha256, file.size);
    const gz = await repos.fileInGeneration(file.generationId, `${file.path}.gz`);
    const compressed = gz && (await indexBytes(db, repos.store, gz.sha256, gz.size));
    if (!compressed) return undefined;
    const bytes = gunzipSync(compressed);
    content.set(file.sha256, bytes);
    return bytes;
  };

  if (byHash) {
    const { directory, algorithm, hex } = byHash;
    const file = await cachedFileByHash(
      db,
      repos,
      [project.id, "apt", suite, directory, algorithm, hex],
      memoryOnly,
    );
    if (!file) throw notFound("Index file not found");
    return indexFile(file, {
      "content-type": contentTypeOf(file.path),
      "cache-control": cacheControl({ kind: "immutable", shared }),
    });
  }
  const file = await cachedCurrentFile(db, repos, project.id, "apt", suite, path, memoryOnly);
  if (!file) throw notFound("Index file not found");
  return indexFile(file, {
    "content-type": contentTypeOf(path),
    etag: `"${file.sha256}"`,
    // The entry files change with every publish: revalidate, briefly.
    "cache-control": cacheControl({ kind: "entry", shared }),
  });
}

/** The suites whose indexes list a pool file. */
async function poolSuites(db: Db, projectId: string, poolPath: string): Promise<string[]> {
  const rows = await db
    .selectFrom("deb_package")
    .select("suite")
    .distinct()
    .where("project_id", "=", projectId)
    .where("pool_path", "=", poolPath)
    .execute();
  return rows.map((row) => row.suite);
}
