// The reads /dl makes for every request, through the serving cache (serve-cache.ts): the same
// functions the routes called before, each answer kept until the next change. A miss — and
// every error (a missing release is NOT_FOUND, never cached) — goes to the database, unless
// the caller asked for memory only (`memoryOnly`: the raw /dl path, downloads/fast-dl.ts), which
// gets NotInMemory instead and leaves the request to the app.

import { usernameKey } from "../accounts/usernames.ts";
import { findPoolFile } from "../formats/apt/builder.ts";
import { findYumPackageFile } from "../formats/yum/builder.ts";
import type { BlobStore } from "../platform/storage/blob-store.ts";
import { findProjectByCurrentName, usernameOf } from "../projects/storage.ts";
import { listFileRows, requireRelease } from "../releases/storage.ts";
import type { IndexFileRef, RepositoryFormat, RepositoryPublisher } from "../repositories/publisher.ts";
import type { Services } from "../services.ts";
import { servingCachesOf } from "./serve-cache.ts";

type Db = Services["database"]["db"];
const K = "\u0000";

/** The keys of the entries. */
export const keys = {
  project: (username: string, slug: string) => `project${K}${usernameKey(username)}${K}${slug}`,
  release: (projectId: string, version: string) => `release${K}${projectId}${K}${version}`,
  pool: (projectId: string, poolPath: string) => `pool${K}${projectId}${K}${poolPath}`,
  rpm: (projectId: string, group: string, path: string) => `rpm${K}${projectId}${K}${group}${K}${path}`,
  index: (projectId: string, format: RepositoryFormat, name: string, path: string) =>
    `index${K}${projectId}${K}${format}${K}${name}${K}${path}`,
  byHash: (args: Parameters<RepositoryPublisher["fileByHash"]>) => `by-hash${K}${args.join(K)}`,
  /** The fast path's answer for an anonymous request of this URL (downloads/fast-dl.ts). */
  answer: (url: string) => `answer${K}${url}`,
};

/** What a memory-only lookup throws when the serving cache does not have the answer. */
export class NotInMemory extends Error {
  constructor() {
    super("Not in the serving cache");
  }
}

/**
 * The entry `key` of the serving cache, loaded on a miss; with `memoryOnly`, NotInMemory on a
 * miss (an entry cached as undefined is a miss too: the app answers what is not there).
 */
function cached<T>(db: Db, key: string, load: () => Promise<T>, memoryOnly: boolean): Promise<T> {
  const { rows } = servingCachesOf(db);
  if (!memoryOnly) return rows.get(key, load);
  const value = rows.peek<T>(key);
  return value === undefined ? Promise.reject(new NotInMemory()) : Promise.resolve(value);
}

export function cachedProjectByName(db: Db, username: string, slug: string, memoryOnly = false) {
  return cached(
    db,
    keys.project(username, slug),
    () => findProjectByCurrentName(db, username, slug),
    memoryOnly,
  );
}

export type CachedRelease = Awaited<ReturnType<typeof cachedRelease>>;

/** A release (by version or "latest") and its files; NOT_FOUND as requireRelease. */
export function cachedRelease(db: Db, projectId: string, version: string, memoryOnly = false) {
  return cached(
    db,
    keys.release(projectId, version),
    async () => {
      const release = await requireRelease(db, projectId, version);
      return { release, files: await listFileRows(db, release.id) };
    },
    memoryOnly,
  );
}

export function cachedUsernameOf(db: Db, userId: string, memoryOnly = false) {
  return cached(db, `username${K}${userId}`, () => usernameOf(db, userId), memoryOnly);
}

export function cachedPoolFile(db: Db, projectId: string, poolPath: string, memoryOnly = false) {
  return cached(db, keys.pool(projectId, poolPath), () => findPoolFile(db, projectId, poolPath), memoryOnly);
}

export function cachedYumPackageFile(
  db: Db,
  projectId: string,
  group: string,
  path: string,
  memoryOnly = false,
) {
  return cached(
    db,
    keys.rpm(projectId, group, path),
    () => findYumPackageFile(db, projectId, group, path),
    memoryOnly,
  );
}

export function cachedCurrentFile(
  db: Db,
  repos: RepositoryPublisher,
  projectId: string,
  format: RepositoryFormat,
  name: string,
  path: string,
  memoryOnly = false,
): Promise<IndexFileRef | undefined> {
  return cached(
    db,
    keys.index(projectId, format, name, path),
    () => repos.currentFile(projectId, format, name, path),
    memoryOnly,
  );
}

export function cachedFileByHash(
  db: Db,
  repos: RepositoryPublisher,
  args: Parameters<RepositoryPublisher["fileByHash"]>,
  memoryOnly = false,
): Promise<IndexFileRef | undefined> {
  return cached(db, keys.byHash(args), () => repos.fileByHash(...args), memoryOnly);
}

/**
 * The bytes of a stored index file, from memory when they were read before (they are named by
 * their sha256, so they never change); undefined when too big to keep (stream it instead).
 */
export async function indexBytes(db: Db, store: BlobStore, sha256: string, size: number, memoryOnly = false) {
  const { content } = servingCachesOf(db);
  const kept = content.get(sha256);
  if (kept) return kept;
  if (memoryOnly) throw new NotInMemory();
  if (size > content.maxEntryBytes) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of await store.open(sha256)) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  content.set(sha256, bytes);
  return bytes;
}
