// The npm registry of every project at /npm/{owner}/{project}/ (docs/npm.md): the endpoints the
// npm client uses — packuments (full and abbreviated), tarballs (the release files, answered by
// the /dl writer), publish, deprecate and unpublish (the packument PUT and the -rev DELETEs),
// dist-tags, search, whoami and ping. Reads are allowed as /dl allows them (anonymous on a public
// project, keys, entitlement tokens), writes to a key or trusted-publishing token that may
// publish. Errors are npm's `{"error": message}` (with the API's code) and the API's statuses.
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { type VersionRange, versionInRange } from "@packyard/contract/entitlements.ts";
import { compareDebianVersions } from "@packyard/formats/deb/debian-version.ts";
import { type Context, Hono } from "hono";
import { dlDeps, dlProject, dlRequestOf } from "../../downloads/dl-answer.ts";
import { rememberRegistryAnswer } from "../../downloads/fast-dl.ts";
import { servingCachesOf } from "../../downloads/serve-cache.ts";
import { DomainError, notFound } from "../../platform/core/errors.ts";
import { requireActor } from "../../platform/http/actor.ts";
import { usernameOf } from "../../projects/storage.ts";
import type { Services } from "../../services.ts";
import {
  anonymousRequest,
  publishingCaller,
  type RegistryProjectName,
  readableProject,
  registryFailure,
  releaseFileResponder,
} from "../registry-http.ts";
import {
  ABBREVIATED_TYPE,
  buildPackument,
  nameParts,
  newestFirst,
  revisionOf,
  servedDistTags,
  servedVersion,
  registryUrl as urlOfRegistry,
  versionOfTarball,
} from "./packument.ts";
import { PackumentCache } from "./packument-cache.ts";
import {
  distTagsOf,
  findVersion,
  manifestsOf,
  packageRevisionRows,
  packageVersionSummaries,
  packageVersions,
  projectDistTags,
  projectVersionSummaries,
} from "./storage.ts";
import {
  type NpmDeps,
  publishVersion,
  removePackageDistTag,
  setPackageDistTag,
  unpublishPackage,
  unpublishVersion,
  updatePackage,
} from "./use-cases.ts";

/** Room for base64 (4/3 of the tarball) and the rest of a publish body (manifest, readme). */
const PUBLISH_SLACK_BYTES = 8 * 1024 * 1024;
/** A dist-tag PUT's body: a JSON string. */
const SMALL_BODY_BYTES = 64 * 1024;
const SEARCH_PAGE = 20;
/** Packuments smaller than this are sent as they are. */
const GZIP_FROM_BYTES = 1024;
const SEARCH_MAX = 250;

const JSON_TYPE = "application/json; charset=utf-8";

function npmJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": JSON_TYPE, "cache-control": "no-store", ...headers },
  });
}

/** A request's place in the registry: the project and what follows it, decoded. */
interface Located {
  project: RegistryProjectName;
  segments: string[];
}

/**
 * Splits `/npm/{owner}/{project}/…` into the project and the segments after it, reading a
 * scoped name's `%2f` as the slash it stands for. The tarball DELETE of `npm unpublish` names the
 * tarball's path relative to the registry, so its `npm/{owner}/{project}/` comes twice: once is
 * dropped.
 */
function locate(url: string): Located | undefined {
  const raw = new URL(url).pathname.replace(/^\/npm\//, "");
  const parts = raw
    .replace(/%2f/gi, "/")
    .split("/")
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
  const [owner, slug, ...segments] = parts;
  if (!owner || !slug) return undefined;
  if (segments[0] === "npm" && segments[1] === owner && segments[2] === slug && segments.includes("-"))
    segments.splice(0, 3);
  while (segments.length > 0 && segments.at(-1) === "") segments.pop();
  return { project: { owner, slug }, segments };
}

/** The package name at the start of `segments` and what follows it. */
function packageAt(segments: string[]): { name: string; rest: string[] } | undefined {
  const [first, second] = segments;
  if (!first) return undefined;
  if (first.startsWith("@")) {
    if (!second) return undefined;
    return { name: `${first}/${second}`, rest: segments.slice(2) };
  }
  return { name: first, rest: segments.slice(1) };
}

/** A body read whole, refused (PAYLOAD_TOO_LARGE) as soon as it is longer than `max` bytes. */
async function boundedBody(request: Request, max: number): Promise<Buffer> {
  const tooLarge = () =>
    new DomainError("PAYLOAD_TOO_LARGE", `The request body is larger than the limit of ${max} bytes`);
  if (Number(request.headers.get("content-length") ?? "0") > max) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of (request.body ?? []) as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function jsonBody(request: Request, max: number): Promise<unknown> {
  const bytes = await boundedBody(request, max);
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new DomainError("VALIDATION_FAILED", "The request body is not valid JSON");
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function createNpmRoutes(services: Services) {
  const { config } = services;
  const db = services.database.db;
  const respondFile = releaseFileResponder(services);
  const deps = (): NpmDeps => ({
    db,
    blobs: services.blobs,
    keys: services.keys,
    config,
    logger: services.logger,
    clock: services.clock,
  });
  const cache = new PackumentCache();
  const serving = servingCachesOf(db).rows;
  /** The serving cache's epoch, when its change feed is up (else undefined: read the revision). */
  const currentEpoch = () => {
    serving.validate();
    return serving.enabled ? serving.epoch : undefined;
  };
  const publishLimit = Math.floor((config.maxUploadBytes * 4) / 3) + PUBLISH_SLACK_BYTES;
  const app = new Hono();

  app.onError((error) => {
    const failure = registryFailure(services, error);
    // An error is about this request at this moment: never stored by a cache.
    const headers: Record<string, string> = { "cache-control": "no-store" };
    if (failure.retryAfterSeconds !== undefined) headers["retry-after"] = String(failure.retryAfterSeconds);
    if (failure.code === "UNAUTHENTICATED") headers["www-authenticate"] = 'Bearer realm="Packyard"';
    return npmJson({ error: failure.message, code: failure.code }, failure.status, headers);
  });

  const refOf = (project: RegistryProjectName) => `${project.owner}/${project.slug}`;

  /**
   * The project, if the request may read it (registry-http.ts's readableProject: as /dl decides),
   * and the version range of the entitlement token it was read with, if any: the packuments show
   * only the versions whose tarballs the token may fetch (in the /dl writer's order of release
   * versions), so `npm install` resolves within them.
   */
  async function reader(c: Context, name: RegistryProjectName) {
    const req = dlRequestOf(c, "release", undefined, { username: name.owner, slug: name.slug });
    const project = await dlProject(dlDeps(services, false), req);
    return { project, range: req.entitled?.entitlement.versionRange ?? null };
  }

  /** The registry's own URL as the request named it (so the tarballs carry its _authToken). */
  const registryOf = (project: RegistryProjectName) =>
    urlOfRegistry(config.baseUrl, project.owner, project.slug);

  async function packument(c: Context, at: Located, name: string): Promise<Response> {
    // Before anything is read: an answer made across a change is not remembered (below).
    const startEpoch = serving.epoch;
    const { project, range } = await reader(c, at.project);
    const entitled = <T extends { version: string }>(rows: T[]) => inRange(rows, range);
    const accept = c.req.header("accept") ?? "";
    const abbreviated = accept.includes(ABBREVIATED_TYPE) && c.req.query("write") !== "true";
    const registry = registryOf(at.project);
    const key = `${project.id}\0${name}\0${registry}\0${abbreviated}\0${range ? JSON.stringify(range) : ""}`;
    const epoch = currentEpoch();
    let document = epoch === undefined ? undefined : cache.getInEpoch(key, epoch);
    if (!document) {
      const summaries = entitled(await packageRevisionRows(db, project.id, name));
      if (summaries.length === 0) throw notFound(`${name} is not in this registry`);
      const tags = await distTagsOf(db, project.id, name);
      const revision = revisionOf(summaries, servedDistTags(tags, summaries));
      document = cache.get(key, revision);
      if (document) cache.set(key, revision, document, epoch === currentEpoch() ? epoch : undefined);
      else {
        const rows = entitled(await packageVersions(db, project.id, name));
        if (rows.length === 0) throw notFound(`${name} is not in this registry`);
        const body = JSON.stringify(buildPackument({ name, rows, storedTags: tags, registry, abbreviated }));
        document = { body, etag: `"${createHash("sha1").update(body).digest("hex")}"` };
        const built = revisionOf(rows, servedDistTags(tags, rows));
        cache.set(key, built, document, epoch === currentEpoch() && built === revision ? epoch : undefined);
      }
    }
    const headers: Record<string, string> = {
      "content-type": abbreviated ? ABBREVIATED_TYPE : JSON_TYPE,
      etag: document.etag,
      vary: "accept, accept-encoding, authorization",
      "cache-control": project.visibility === "public" ? "no-cache" : "private, no-cache",
    };
    if (c.req.header("if-none-match") === document.etag) return new Response(null, { status: 304, headers });
    // npm accepts gzip; a packument of many versions is a tenth of its size so.
    const gzip =
      /\bgzip\b/.test(c.req.header("accept-encoding") ?? "") && document.body.length > GZIP_FROM_BYTES;
    if (gzip) {
      document.gzip ??= gzipSync(document.body);
      headers["content-encoding"] = "gzip";
    }
    document.bytes ??= Buffer.from(document.body);
    const body = gzip ? Buffer.from(document.gzip!) : document.bytes;
    headers["content-length"] = String(body.byteLength);
    // Anyone's: the next anonymous request for it is answered from memory (downloads/fast-dl.ts).
    if (project.visibility === "public" && range === null && anonymousRequest(c))
      rememberRegistryAnswer(
        db,
        { url: c.req.url, accept: c.req.header("accept"), acceptEncoding: c.req.header("accept-encoding") },
        { route: "/npm/:owner/:project/:package", headers, bytes: body },
        startEpoch,
      );
    if (c.req.method === "HEAD") return new Response(null, { status: 200, headers });
    return new Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers });
  }

  /** One version's manifest (`GET /{package}/{version or tag}`). */
  async function versionDocument(c: Context, at: Located, name: string, wanted: string) {
    const { project, range } = await reader(c, at.project);
    const rows = inRange(await packageVersions(db, project.id, name), range);
    const tags = rows.length ? servedDistTags(await distTagsOf(db, project.id, name), rows) : {};
    const version = tags[wanted] ?? wanted;
    const row = rows.find((r) => r.version === version);
    if (!row) throw notFound(`${name}@${wanted} is not in this registry`);
    return npmJson(servedVersion(row, registryOf(at.project)).manifest, 200, { "cache-control": "no-cache" });
  }

  async function tarball(c: Context, at: Located, name: string, segment: string): Promise<Response> {
    const project = await readableProject(services, c, at.project);
    const version = versionOfTarball(name, segment);
    const row = version === undefined ? undefined : await findVersion(db, project.id, name, version);
    if (!row) throw notFound(`No tarball ${segment} of ${name} in this registry`);
    const res = await respondFile(c, at.project, row.releaseVersion, row.filename);
    if (res.status < 400) return res;
    // The /dl writer's refusal (an entitlement's limits, a missing blob) in npm's words.
    const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    const headers: Record<string, string> = {};
    res.headers.forEach((value, key) => {
      if (key !== "content-type" && key !== "content-length") headers[key] = value;
    });
    return npmJson(
      { error: body.error?.message ?? res.statusText, code: body.error?.code },
      res.status,
      headers,
    );
  }

  async function publishOrUpdate(c: Context, at: Located, name: string): Promise<Response> {
    const { caller } = await publishingCaller(services, c, at.project);
    const body = await jsonBody(c.req.raw, publishLimit);
    if (!isObject(body)) throw new DomainError("VALIDATION_FAILED", "The body is not a package document");
    for (const field of ["name", "_id"] as const)
      if (body[field] !== undefined && body[field] !== name)
        throw new DomainError(
          "VALIDATION_FAILED",
          `The body's ${field} is ${String(body[field])}, the URL's ${name}`,
        );
    const versions = isObject(body.versions) ? body.versions : undefined;
    const attachments = isObject(body._attachments) ? body._attachments : {};
    const tarballs = Object.entries(attachments).filter(([key]) => key.endsWith(".tgz"));
    if (tarballs.length === 0) {
      // npm deprecate / npm unpublish pkg@version: the packument sent back, changed.
      if (!versions) throw new DomainError("VALIDATION_FAILED", "The body has no versions");
      await updatePackage(deps(), caller, { project: refOf(at.project), name, versions });
      return npmJson({ ok: true, id: name });
    }
    if (!versions || Object.keys(versions).length !== 1 || tarballs.length !== 1)
      throw new DomainError("VALIDATION_FAILED", "A publish carries exactly one version and its tarball");
    const [version, manifest] = Object.entries(versions)[0]!;
    if (!isObject(manifest))
      throw new DomainError("VALIDATION_FAILED", `The version ${version} is not an object`);
    if (manifest.name !== name || manifest.version !== version)
      throw new DomainError(
        "VALIDATION_FAILED",
        `The manifest is ${String(manifest.name)}@${String(manifest.version)}, not ${name}@${version}`,
      );
    const attachment = tarballs[0]![1];
    if (!isObject(attachment) || typeof attachment.data !== "string")
      throw new DomainError("VALIDATION_FAILED", "The tarball attachment has no data");
    const tarballBytes = Buffer.from(attachment.data, "base64");
    if (typeof attachment.length === "number" && attachment.length !== tarballBytes.byteLength)
      throw new DomainError(
        "VALIDATION_FAILED",
        `The tarball is ${tarballBytes.byteLength} bytes, not the ${attachment.length} its attachment says`,
      );
    const distTags = isObject(body["dist-tags"]) ? body["dist-tags"] : {};
    const tags = Object.entries(distTags)
      .filter(([, v]) => v === version)
      .map(([tag]) => tag);
    await publishVersion(deps(), caller, {
      project: refOf(at.project),
      name,
      version,
      manifest,
      tarball: tarballBytes,
      tags,
    });
    return npmJson({ ok: true, id: name, version }, 201);
  }

  async function distTags(c: Context, at: Located, name: string, tag: string | undefined) {
    const method = c.req.method;
    if (tag === undefined) {
      if (method !== "GET" && method !== "HEAD")
        throw new DomainError("METHOD_NOT_ALLOWED", `${method} is not a dist-tags method`);
      const { project, range } = await reader(c, at.project);
      const rows = inRange(await packageVersionSummaries(db, project.id, name), range);
      if (rows.length === 0) throw notFound(`${name} is not in this registry`);
      return npmJson(servedDistTags(await distTagsOf(db, project.id, name), rows), 200, {
        "cache-control": "no-cache",
      });
    }
    const { caller } = await publishingCaller(services, c, at.project);
    if (method === "PUT" || method === "POST") {
      const version = await jsonBody(c.req.raw, SMALL_BODY_BYTES);
      if (typeof version !== "string")
        throw new DomainError("VALIDATION_FAILED", 'The body is the version as a JSON string: "1.2.0"');
      await setPackageDistTag(deps(), caller, { project: refOf(at.project), name, tag, version });
      return npmJson({ ok: true, [tag]: version }, 201);
    }
    if (method === "DELETE") {
      await removePackageDistTag(deps(), caller, { project: refOf(at.project), name, tag });
      return npmJson({ ok: true });
    }
    throw new DomainError("METHOD_NOT_ALLOWED", `${method} is not a dist-tag method`);
  }

  async function search(c: Context, at: Located): Promise<Response> {
    const { project, range } = await reader(c, at.project);
    const text = (c.req.query("text") ?? "").trim().toLowerCase();
    const size = Math.min(Math.max(Number(c.req.query("size") ?? SEARCH_PAGE) || SEARCH_PAGE, 1), SEARCH_MAX);
    const from = Math.max(Number(c.req.query("from") ?? 0) || 0, 0);
    const rows = inRange(await projectVersionSummaries(db, project.id), range);
    const tagsByName = await projectDistTags(db, project.id);
    const byName = new Map<string, typeof rows>();
    for (const row of rows) byName.set(row.name, [...(byName.get(row.name) ?? []), row]);
    const latest = [...byName].map(([name, versions]) => {
      const tags = servedDistTags(tagsByName.get(name) ?? new Map(), versions);
      return versions.find((v) => v.version === tags.latest) ?? newestFirst(versions)[0]!;
    });
    const manifests = await manifestsOf(
      db,
      latest.map((row) => row.fileId),
    );
    const registry = registryOf(at.project);
    const hits = latest
      .map((row) => {
        const manifest = parseObject(manifests.get(row.fileId));
        return { row, manifest, score: matchScore(text, row.name, manifest) };
      })
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || a.row.name.localeCompare(b.row.name));
    const objects = hits.slice(from, from + size).map(({ row, manifest, score }) => {
      const { scope } = nameParts(row.name);
      const publisher = row.publishedBy ?? project.slug;
      return {
        package: {
          name: row.name,
          scope: scope ?? "unscoped",
          version: row.version,
          description: typeof manifest.description === "string" ? manifest.description : "",
          keywords: Array.isArray(manifest.keywords) ? manifest.keywords : [],
          date: row.createdAt,
          links: {
            npm: `${registry}${row.name}`,
            ...(typeof manifest.homepage === "string" ? { homepage: manifest.homepage } : {}),
          },
          ...(manifest.author !== undefined ? { author: manifest.author } : {}),
          publisher: { username: publisher },
          maintainers: [{ username: publisher }],
        },
        score: { final: score, detail: { quality: score, popularity: score, maintenance: score } },
        searchScore: score,
      };
    });
    return npmJson({ objects, total: hits.length, time: new Date().toUTCString() }, 200, {
      "cache-control": "no-cache",
    });
  }

  app.all("/*", async (c) => {
    const at = locate(c.req.url);
    if (!at) throw notFound("Name a project's registry: /npm/{owner}/{project}/");
    const method = c.req.method;
    const [first, second, third] = at.segments;
    if (at.segments.length === 0) {
      await readableProject(services, c, at.project);
      return npmJson({ db_name: refOf(at.project) });
    }
    if (first === "-") {
      if (second === "ping") {
        await readableProject(services, c, at.project);
        return npmJson({});
      }
      if (second === "whoami") {
        const actor = await requireActor(services, c.req.raw.headers);
        const username =
          actor.kind === "key" || actor.kind === "session" ? await usernameOf(db, actor.userId) : "";
        return npmJson({ username });
      }
      if (second === "v1" && third === "search") return search(c, at);
      if ((second === "v1" && third === "login") || second === "user")
        throw new DomainError(
          "FORBIDDEN",
          `npm login is not supported: create an API key in Packyard and set it with npm config set //${new URL(config.baseUrl).host}/npm/${at.project.owner}/${at.project.slug}/:_authToken=KEY`,
        );
      if (second === "package") {
        const pkg = packageAt(at.segments.slice(2));
        if (pkg && pkg.rest[0] === "dist-tags" && pkg.rest.length <= 2)
          return distTags(c, at, pkg.name, pkg.rest[1]);
      }
      if (second === "npm" && third === "v1")
        throw notFound("This registry has no security advisories (npm audit): use npm's registry for them");
      throw notFound("No such registry endpoint");
    }
    const pkg = packageAt(at.segments);
    if (!pkg) throw notFound("No such package");
    const { name, rest } = pkg;
    if (rest.length === 0) {
      if (method === "GET" || method === "HEAD") return packument(c, at, name);
      if (method === "PUT") return publishOrUpdate(c, at, name);
      throw new DomainError("METHOD_NOT_ALLOWED", `${method} is not a package method`);
    }
    if (rest[0] === "-rev" && rest.length === 2) {
      if (method === "PUT") return publishOrUpdate(c, at, name);
      if (method === "DELETE") {
        const { caller } = await publishingCaller(services, c, at.project);
        await unpublishPackage(deps(), caller, { project: refOf(at.project), name });
        return npmJson({ ok: true });
      }
      throw new DomainError("METHOD_NOT_ALLOWED", `${method} is not a revision method`);
    }
    if (rest[0] === "-" && rest.length === 2) {
      if (method === "GET" || method === "HEAD") return tarball(c, at, name, rest[1]!);
      throw new DomainError("METHOD_NOT_ALLOWED", `${method} is not a tarball method`);
    }
    if (rest[0] === "-" && rest[2] === "-rev" && rest.length === 4 && method === "DELETE") {
      const { caller } = await publishingCaller(services, c, at.project);
      const version = versionOfTarball(name, rest[1]!);
      if (version === undefined) throw notFound(`${rest[1]} is not a tarball of ${name}`);
      await unpublishVersion(deps(), caller, { project: refOf(at.project), name, version });
      return npmJson({ ok: true });
    }
    if (rest.length === 1 && (method === "GET" || method === "HEAD"))
      return versionDocument(c, at, name, rest[0]!);
    throw notFound("No such registry endpoint");
  });

  return app;
}

function parseObject(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * How well a package matches a search (0: not at all): every word must be in its name,
 * description or keywords; `keywords:a,b` and `scope:acme` qualify. An exact name ranks first.
 */
function matchScore(text: string, name: string, manifest: Record<string, unknown>): number {
  const lowerName = name.toLowerCase();
  const description = typeof manifest.description === "string" ? manifest.description.toLowerCase() : "";
  const keywords = Array.isArray(manifest.keywords)
    ? manifest.keywords.map((k) => String(k).toLowerCase())
    : [];
  let score = 1;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const qualified = /^(keywords|scope):(.*)$/.exec(word);
    if (qualified) {
      const values = qualified[2]!.split(",").filter(Boolean);
      if (qualified[1] === "scope" && !values.some((v) => lowerName.startsWith(`@${v.replace(/^@/, "")}/`)))
        return 0;
      if (qualified[1] === "keywords" && !values.some((v) => keywords.includes(v))) return 0;
      continue;
    }
    if (lowerName === word || nameParts(lowerName).bare === word) score += 100;
    else if (lowerName.includes(word)) score += 10;
    else if (keywords.includes(word)) score += 5;
    else if (description.includes(word)) score += 1;
    else return 0;
  }
  return Math.round((score / (score + 10)) * 1000) / 1000;
}

/** The versions an entitlement token's range lets it read (all of them without one). */
function inRange<T extends { version: string }>(rows: T[], range: VersionRange | null): T[] {
  if (!range) return rows;
  return rows.filter((row) => versionInRange(range, row.version, compareDebianVersions));
}
