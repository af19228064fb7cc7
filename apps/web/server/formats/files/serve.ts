// GET/HEAD /dl/{username}/{projectSlug}/releases/{version|latest}/{filename}: stable download
// URLs with a strong ETag (the sha256), Last-Modified, Range (206/416) and If-None-Match (304).
// A GET whose response delivers the file's last byte to the client counts as one download; every
// GET adds the bytes it actually sent to the owner's month (ranges included). Each release also
// serves a generated SHA256SUMS and its detached signature SHA256SUMS.asc (checksums.ts).
// With S3_PRESIGNED_DOWNLOADS (and S3 storage) a GET of a release file is instead answered with
// a 302 to a short-lived presigned URL of the bucket, counted when issued by the same rule
// (see presignedRedirect); HEAD, 304, 416 and every other conditional request stay here.
import { normalizeFilename } from "@packyard/contract";
import { compareDebianVersions } from "@packyard/formats/deb/debian-version.ts";
import { Hono } from "hono";
import {
  type Answer,
  type Count,
  type DlDeps,
  type DlRequest,
  dlHandler,
  dlProject,
} from "../../downloads/dl-answer.ts";
import { cachedRelease, NotInMemory } from "../../downloads/lookups.ts";
import { notFound } from "../../platform/core/errors.ts";
import { cacheControl as cacheControlOf } from "../../platform/http/cache-control.ts";
import { usernameAwareErrors } from "../../projects/visible.ts";
import type { Services } from "../../services.ts";
import { renderSha256Sums, sha256SumsEtag, signSha256Sums } from "./checksums.ts";

/** Parses a single `bytes=` range against a size; undefined for none or several, null if unsatisfiable. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, from, to] = match;
  if (from === "" && to === "") return undefined;
  if (from === "") {
    const suffix = Number(to);
    if (suffix === 0) return null;
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === "" ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || start > end) return null;
  return { start, end };
}

/** The headers of a release file's answer. */
export function releaseFileHeaders(
  file: { content_type: string; sha256: string; created_at: string; filename: string },
  cacheControl: string,
): Record<string, string> {
  return {
    "content-type": file.content_type,
    etag: `"${file.sha256}"`,
    "last-modified": new Date(file.created_at).toUTCString(),
    "accept-ranges": "bytes",
    "cache-control": cacheControl,
    "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
    "x-checksum-sha256": file.sha256,
  };
}

/** What counting a served response needs (usage.ts). */
export function accountingOf(services: Services) {
  const { database, mailer, config, logger, clock } = services;
  return { db: database.db, mailer, config, logger, clock };
}

export function createDownloads(services: Services) {
  const dl = new Hono();
  dl.onError(usernameAwareErrors(services, "/dl"));
  dl.on(["GET", "HEAD"], "/:username/:slug/releases/:version/:filename", dlHandler(services, "release"));
  return dl;
}

const RELEASE_ROUTE = "/dl/:username/:slug/releases/:version/:filename";

/** A release file, or the release's SHA256SUMS and its signature. */
export async function resolveReleaseFile(deps: DlDeps, req: DlRequest): Promise<Answer> {
  const { services, memoryOnly } = deps;
  const db = services.database.db;
  const project = await dlProject(deps, req);
  const requested = req.params.version!;
  const { release, files } = await cachedRelease(db, project.id, requested, memoryOnly);
  const filename = normalizeFilename(req.params.filename!);
  const isLatest = requested === "latest";
  // Public files of a fixed version never change; "latest" moves, private files are personal.
  const cacheControl = cacheControlOf({
    kind: isLatest ? "latest" : "immutable",
    shared: project.visibility !== "private",
  });
  // An entitlement token reads the releases in its version range (dpkg's order: releases of
  // every format share one version) — a file of one also takes one of its downloads.
  let entitled: Answer["entitled"] = {
    version: { value: release.version, compare: compareDebianVersions },
  };
  const answer = (status: number, headers: Record<string, string>, body?: Answer["body"]): Answer => ({
    route: RELEASE_ROUTE,
    status,
    headers,
    ...(body ? { body } : {}),
    entitled,
  });

  if (filename === "SHA256SUMS" || filename === "SHA256SUMS.asc") {
    // Signed on request, by the keys in the database: never from memory alone.
    if (memoryOnly) throw new NotInMemory();
    // It lists the release's files, which change when one is added or deleted: unlike the
    // files themselves it is revalidated (its ETag is the hash of the list). The signature
    // follows the list and the project's signing keys (a rotation changes it too).
    const text = renderSha256Sums(files);
    const revalidated = cacheControlOf({ kind: "entry", shared: project.visibility !== "private" });
    if (filename === "SHA256SUMS.asc") {
      const signed = await signSha256Sums(services.keys, project, text, files);
      const headers = {
        "content-type": "application/pgp-signature",
        "content-length": String(Buffer.byteLength(signed.armored)),
        "cache-control": revalidated,
        etag: `W/${signed.etag}`,
      };
      if (matchesEtag(req.header("if-none-match"), signed.etag)) return answer(304, headers);
      return answer(200, headers, { kind: "bytes", bytes: Buffer.from(signed.armored) });
    }
    const headers = {
      "content-type": "text/plain; charset=utf-8",
      "content-length": String(Buffer.byteLength(text)),
      "cache-control": revalidated,
      etag: sha256SumsEtag(text),
    };
    if (matchesEtag(req.header("if-none-match"), headers.etag)) return answer(304, headers);
    return answer(200, headers, { kind: "bytes", bytes: Buffer.from(text) });
  }

  const file = files.find((f) => f.filename === filename);
  if (!file) throw notFound("File not found");
  entitled = { ...entitled, file: true };
  const size = Number(file.size);
  const etag = `"${file.sha256}"`;
  const headers = releaseFileHeaders(file, cacheControl);

  if (matchesEtag(req.header("if-none-match"), etag)) return answer(304, headers);

  // If-Range with another validator means "the file changed": send it whole.
  const ifRange = req.header("if-range");
  const range = ifRange && ifRange !== etag ? undefined : parseRange(req.header("range"), size);
  if (range === null) {
    return {
      route: RELEASE_ROUTE,
      status: 416,
      headers: { "content-range": `bytes */${size}` },
      error: { code: "RANGE_NOT_SATISFIABLE", message: `The file is ${size} bytes long` },
      entitled,
    };
  }
  const status = range ? 206 : 200;
  const start = range?.start ?? 0;
  const end = range?.end ?? size - 1;
  headers["content-length"] = String(size === 0 ? 0 : end - start + 1);
  if (range) headers["content-range"] = `bytes ${start}-${end}/${size}`;
  if (req.method === "HEAD") return answer(status, headers);
  const lastByte = end === size - 1;
  const count: Count = {
    ownerId: project.owner_id,
    file: {
      id: file.id,
      projectId: project.id,
      version: release.version,
      filename: file.filename,
      // A signature or a checksum list is fetched to check another file: neither an install nor
      // a download (decision 083).
      ...(file.kind === "signature" || file.kind === "checksum" ? { check: true } : {}),
    },
    lastByte,
  };
  const redirect = await presignedRedirect(services, req, file.sha256, size, headers);
  // Counted when issued, by the rule of a streamed GET that delivers what was asked: the
  // range's bytes (the whole file without one), a download when it ends at the last byte.
  if (redirect) return { ...redirect, count: { ...count, issued: end - start + 1 }, entitled };
  if (size === 0) return { ...answer(status, headers), count: { ...count, issued: 0, lastByte: true } };
  // The bytes count as sent; a download when the file's last byte reached the client.
  return {
    ...answer(status, headers, {
      kind: "blob",
      store: services.blobs,
      sha256: file.sha256,
      size,
      start,
      end,
    }),
    count,
  };
}

/** Request headers whose answer depends on validators only this server knows (below). */
const conditionalHeaders = [
  "if-none-match",
  "if-modified-since",
  "if-range",
  "if-match",
  "if-unmodified-since",
];

/**
 * S3_PRESIGNED_DOWNLOADS: a 302 to a presigned GetObject URL of the file's blob, from which the
 * bucket serves the bytes with the same Content-Type and Content-Disposition; undefined when the
 * request is to be answered here. Called for a GET only, after authorization, the 304 and 416
 * answers. Not redirected:
 * - a request with any conditional header: the bucket's ETag is an MD5 and its Last-Modified
 *   the blob's first upload, so it would judge If-None-Match, If-Range or If-Modified-Since by
 *   other validators than ours (the sha256, the file's upload time) — and count a 304 as a
 *   download. This server answers them exactly as without the flag;
 * - a Range header that is not one `bytes=` range (parseRange ignores it and sends the whole
 *   file; what the bucket would do with it is not ours to count). A single range is redirected:
 *   clients send their Range again to the new location and S3 honours it (206);
 * - an empty file (nothing to offload).
 * The redirect is `private, no-store`: its Location is a credential that expires within
 * minutes (and, for a private project, grants the file to whoever holds it), so no cache — a
 * CDN, a proxy, the browser — may keep it.
 */
async function presignedRedirect(
  services: Services,
  req: DlRequest,
  sha256: string,
  size: number,
  headers: Record<string, string>,
): Promise<Answer | undefined> {
  const presigned = services.config.s3?.presignedDownloads;
  const { blobs } = services;
  if (!presigned || !blobs.presignGet || req.method !== "GET" || size === 0) return undefined;
  if (conditionalHeaders.some((name) => req.header(name) !== undefined)) return undefined;
  const range = req.header("range");
  if (range !== undefined && !parseRange(range, size)) return undefined;
  const location = await blobs.presignGet(sha256, {
    expiresSeconds: presigned.expiresSeconds,
    contentType: headers["content-type"],
    contentDisposition: headers["content-disposition"],
  });
  return {
    route: RELEASE_ROUTE,
    status: 302,
    headers: { location, "cache-control": "private, no-store", "x-checksum-sha256": sha256 },
  };
}

/** Whether an If-None-Match header names this ETag (weak or strong), or is "*". */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return (
    ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)
  );
}
