// The reads /dl makes for every request, through the serving cache (serve-cache.ts): the same
// functions the routes called before, each answer kept until the next change. A miss — and
// every error (a missing release is NOT_FOUND, never cached) — goes to the database.
import { findProjectByCurrentName, usernameOf } from "../domain/projects.ts";
import { listFileRows, requireRelease } from "../domain/releases.ts";
import { usernameKey } from "../domain/usernames.ts";
import { findPoolFile } from "../publishing/apt/apt-builder.ts";
import type { IndexFileRef, RepositoryFormat, RepositoryPublisher } from "../publishing/publisher.ts";
import { findYumPackageFile } from "../publishing/yum/yum-builder.ts";
import type { Services } from "../services.ts";
import type { BlobStore } from "../storage/blob-store.ts";
import { servingCachesOf } from "./serve-cache.ts";

type Db = Services["database"]["db"];
const K = "\u0000";

/** The keys of the entries, for the fast path's peeks (http/fast-dl.ts). */
export const keys = {
  project: (username: string, slug: string) => `project${K}${usernameKey(username)}${K}${slug}`,
  release: (projectId: string, version: string) => `release${K}${projectId}${K}${version}`,
  pool: (projectId: string, poolPath: string) => `pool${K}${projectId}${K}${poolPath}`,
  rpm: (projectId: string, group: string, path: string) => `rpm${K}${projectId}${K}${group}${K}${path}`,
  index: (projectId: string, format: RepositoryFormat, name: string, path: string) =>
    `index${K}${projectId}${K}${format}${K}${name}${K}${path}`,
  byHash: (args: Parameters<RepositoryPublisher["fileByHash"]>) => `by-hash${K}${args.join(K)}`,
  /** The fast path's answer for an anonymous request of this URL (http/fast-dl.ts). */
  answer: (url: string) => `answer${K}${url}`,
};

export function cachedProjectByName(db: Db, username: string, slug: string) {
  return servingCachesOf(db).rows.get(keys.project(username, slug), () =>
    findProjectByCurrentName(db, username, slug),
  );
}

export type CachedRelease = Awaited<ReturnType<typeof cachedRelease>>;

/** A release (by version or "latest") and its files; NOT_FOUND as requireRelease. */
export function cachedRelease(db: Db, projectId: string, version: string) {
  return servingCachesOf(db).rows.get(keys.release(projectId, version), async () => {
    const release = await requireRelease(db, projectId, version);
    return { release, files: await listFileRows(db, release.id) };
  });
}

export function cachedUsernameOf(db: Db, userId: string) {
  return servingCachesOf(db).rows.get(`username${K}${userId}`, () => usernameOf(db, userId));
}

export function cachedPoolFile(db: Db, projectId: string, poolPath: string) {
  return servingCachesOf(db).rows.get(keys.pool(projectId, poolPath), () =>
    findPoolFile(db, projectId, poolPath),
  );
}

export function cachedYumPackageFile(db: Db, projectId: string, group: string, path: string) {
  return servingCachesOf(db).rows.get(keys.rpm(projectId, group, path), () =>
    findYumPackageFile(db, projectId, group, path),
  );
}

export function cachedCurrentFile(
  db: Db,
  repos: RepositoryPublisher,
  projectId: string,
  format: RepositoryFormat,
  name: string,
  path: string,
): Promise<IndexFileRef | undefined> {
  return servingCachesOf(db).rows.get(keys.index(projectId, format, name, path), () =>
    repos.currentFile(projectId, format, name, path),
  );
}

export function cachedFileByHash(
  db: Db,
  repos: RepositoryPublisher,
  ...args: Parameters<RepositoryPublisher["fileByHash"]>
): Promise<IndexFileRef | undefined> {
  return servingCachesOf(db).rows.get(keys.byHash(args), () => repos.fileByHash(...args));
}

/**
 * The bytes of a stored index file, from memory when they were read before (they are named by
 * their sha256, so they never change); undefined when too big to keep (stream it instead).
 */
export async function indexBytes(db: Db, store: BlobStore, sha256: string, size: number) {
  const { content } = servingCachesOf(db);
  const cached = content.get(sha256);
  if (cached) return cached;
  if (size > content.maxEntryBytes) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of await store.open(sha256)) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  content.set(sha256, bytes);
  return bytes;
}
