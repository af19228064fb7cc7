// What apt fetches from a project's repository: /dl/{u}/{p}/deb/dists/… (current indexes and
// by-hash files of every still-served generation), /dl/{u}/{p}/deb/pool/… (the packages), and
// /dl/{u}/{p}/setup.deb.sh. The project's public keys are served by signing-keys.ts.
import { createGunzip, gunzipSync } from "node:zlib";
import { type Context, Hono } from "hono";
import { notFound } from "../domain/errors.ts";
import { renderDebSetupScript } from "../publishing/apt/setup-script.ts";
import type { IndexFileRef } from "../publishing/publisher.ts";
import type { Services } from "../services.ts";
import {
  cachedCurrentFile,
  cachedFileByHash,
  cachedPoolFile,
  cachedUsernameOf,
  indexBytes,
} from "../serving/lookups.ts";
import { servingCachesOf } from "../serving/serve-cache.ts";
import { cacheControl } from "./cache-control.ts";
import { ownerBytesMeter } from "./downloads.ts";
import { bytesResponse, type DeliveryMeter, pullStream, streamBlob } from "./stream-blob.ts";
import { usernameAwareErrors, visibleProject } from "./visible-project.ts";

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

export function createAptRoutes(services: Services) {
  const { database, repos, blobs } = services;
  const db = database.db;
  const routes = new Hono();
  routes.onError(usernameAwareErrors(services, "/dl"));

  const projectFor = async (c: Context) => {
    const project = await visibleProject(services, c);
    // Private repositories are personal: never cached by shared caches.
    const shared = project.visibility === "public";
    return { project, shared };
  };

  // An uncompressed Packages file is not stored: it is the decompressed .gz of its generation.
  // Index files are small and named by their sha256: answered from memory (serving/lookups.ts).
  const bytesOf = async (file: IndexFileRef): Promise<Buffer | undefined> => {
    const { content } = servingCachesOf(db);
    const cached = content.get(file.sha256);
    if (cached || file.size > content.maxEntryBytes) return cached;
    if (await repos.store.exists(file.sha256)) return indexBytes(db, repos.store, file.sha256, file.size);
    const gz = await repos.fileInGeneration(file.generationId, `${file.path}.gz`);
    const compressed = gz && (await indexBytes(db, repos.store, gz.sha256, gz.size));
    if (!compressed) return undefined;
    const bytes = gunzipSync(compressed);
    content.set(file.sha256, bytes);
    return bytes;
  };
  const serveIndexFile = async (
    file: IndexFileRef,
    headers: Record<string, string>,
    method: string,
    meter: DeliveryMeter | undefined,
  ) => {
    const bytes = await bytesOf(file);
    if (bytes) return bytesResponse(bytes, headers, method, meter);
    if (await repos.store.exists(file.sha256))
      return streamBlob(repos.store, file.sha256, file.size, headers, method, { meter });
    const gz = await repos.fileInGeneration(file.generationId, `${file.path}.gz`);
    if (!gz) throw notFound("Index file not found");
    const all = { ...headers, "content-length": String(file.size) };
    if (method === "HEAD") return new Response(null, { status: 200, headers: all });
    const compressed = await repos.store.open(gz.sha256);
    const source = compressed.pipe(createGunzip());
    compressed.once("error", (error) => source.destroy(error));
    return new Response(
      pullStream(source, () => compressed.destroy(), meter),
      { status: 200, headers: all },
    );
  };

  routes.on(["GET", "HEAD"], "/:username/:slug/setup.deb.sh", async (c) => {
    const { project } = await projectFor(c);
    const script = renderDebSetupScript({
      baseUrl: services.config.baseUrl,
      // The owner's name as written now, whatever the case of the one asked for.
      owner: await cachedUsernameOf(db, project.owner_id),
      slug: project.slug,
      private: project.visibility === "private",
    });
    return new Response(c.req.method === "HEAD" ? null : script, {
      headers: {
        "content-type": "text/x-shellscript; charset=utf-8",
        "cache-control": cacheControl({ kind: "script", shared: project.visibility === "public" }),
      },
    });
  });

  routes.on(["GET", "HEAD"], "/:username/:slug/deb/*", async (c) => {
    const { project, shared } = await projectFor(c);
    const prefix = `/dl/${c.req.param("username")}/${c.req.param("slug")}/deb/`;
    const rest = decodeURIComponent(c.req.path.slice(c.req.path.indexOf(prefix) + prefix.length));
    if (rest.split("/").some((part) => part === ".." || part === "")) throw notFound();
    // Packages and indexes alike count in the owner's downloaded bytes.
    const meter = () => ownerBytesMeter(services, c, project.owner_id);

    if (rest.startsWith("pool/")) {
      const file = await cachedPoolFile(db, project.id, rest);
      if (!file) throw notFound("Package not found");
      return streamBlob(
        blobs,
        file.sha256,
        Number(file.size),
        {
          "content-type": "application/vnd.debian.binary-package",
          etag: `"${file.sha256}"`,
          "cache-control": cacheControl({ kind: "immutable", shared }),
        },
        c.req.method,
        {
          meter: ownerBytesMeter(services, c, project.owner_id, {
            file: { id: file.id, projectId: project.id, version: file.version, filename: file.filename },
            size: Number(file.size),
            distribution: file.suite,
          }),
        },
      );
    }

    const dists = parseDistsPath(rest);
    if (!dists) throw notFound();
    const { suite, path, byHash } = dists;
    if (byHash) {
      const { directory, algorithm, hex } = byHash;
      const file = await cachedFileByHash(db, repos, project.id, "apt", suite, directory, algorithm, hex);
      if (!file) throw notFound("Index file not found");
      return serveIndexFile(
        file,
        {
          "content-type": contentTypeOf(file.path),
          "cache-control": cacheControl({ kind: "immutable", shared }),
        },
        c.req.method,
        meter(),
      );
    }
    const file = await cachedCurrentFile(db, repos, project.id, "apt", suite, path);
    if (!file) throw notFound("Index file not found");
    return serveIndexFile(
      file,
      {
        "content-type": contentTypeOf(path),
        etag: `"${file.sha256}"`,
        // The entry files change with every publish: revalidate, briefly.
        "cache-control": cacheControl({ kind: "entry", shared }),
      },
      c.req.method,
      meter(),
    );
  });

  return routes;
}
