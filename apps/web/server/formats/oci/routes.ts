// The OCI Distribution Specification v1.1 at /v2/ (docs/containers.md, decision 084): every
// project is a registry of images named `{owner}/{project}` and `{owner}/{project}/{image}`,
// on the server's own host. Errors are the specification's `{"errors":[{code,message,detail}]}`
// with its statuses (errors.ts); authentication is Docker's bearer-token handshake (tokens.ts).
import type { Readable } from "node:stream";
import { isDigestReference, MAX_MANIFEST_BYTES, OciError, sha256Of } from "@packyard/formats/oci/manifest.ts";
import { type Context, Hono } from "hono";
import type { Caller } from "../../platform/core/use-case.ts";
import { credentialFromHeaders } from "../../platform/http/actor.ts";
import { clientAddress } from "../../platform/http/request-log.ts";
import { pullStream } from "../../platform/http/stream-blob.ts";
import { uploadBody } from "../../platform/http/upload-body.ts";
import type { Services } from "../../services.ts";
import { grantFor, subjectOf } from "./access.ts";
import { ociErrorResponse } from "./errors.ts";
import {
  deleteUpload,
  findManifest,
  findRepository,
  findUpload,
  heldBlob,
  listImages,
  listTags,
  projectOfName,
  referrersOf,
  splitRepositoryName,
} from "./storage.ts";
import { allows, parseScopes, type RegistryAction, type RegistryGrant, RegistryTokens } from "./tokens.ts";
import {
  appendToUpload,
  assertRoomFor,
  countPull,
  deleteManifest,
  finishUpload,
  type ImageRef,
  mountBlob,
  pushManifest,
  type RegistryDeps,
  startUpload,
  uploadWholeBlob,
} from "./use-cases.ts";

const API_VERSION = { "docker-distribution-api-version": "registry/2.0" };

/** Tags per page when the client names no `n`, and at most. */
const TAGS_PAGE = 1000;

type Route =
  | { kind: "upload-start"; name: string }
  | { kind: "upload"; name: string; id: string }
  | { kind: "blob"; name: string; digest: string }
  | { kind: "manifest"; name: string; reference: string }
  | { kind: "tags"; name: string }
  | { kind: "referrers"; name: string; digest: string };

const ROUTES: [RegExp, (m: RegExpExecArray) => Route][] = [
  [/^\/(.+)\/blobs\/uploads\/?$/, (m) => ({ kind: "upload-start", name: m[1]! })],
  [/^\/(.+)\/blobs\/uploads\/([^/]+)$/, (m) => ({ kind: "upload", name: m[1]!, id: m[2]! })],
  [/^\/(.+)\/blobs\/([^/]+)$/, (m) => ({ kind: "blob", name: m[1]!, digest: m[2]! })],
  [/^\/(.+)\/manifests\/([^/]+)$/, (m) => ({ kind: "manifest", name: m[1]!, reference: m[2]! })],
  [/^\/(.+)\/tags\/list$/, (m) => ({ kind: "tags", name: m[1]! })],
  [/^\/(.+)\/referrers\/([^/]+)$/, (m) => ({ kind: "referrers", name: m[1]!, digest: m[2]! })],
];

function routeOf(path: string): Route | undefined {
  for (const [pattern, make] of ROUTES) {
    const m = pattern.exec(path);
    if (m) return make(m);
  }
  return undefined;
}

function nameUnknown(name: string): OciError {
  return new OciError("NAME_UNKNOWN", `No image ${name} here, or you may not see it`);
}

export function createRegistryRoutes(services: Services) {
  const { config } = services;
  const tokens = new RegistryTokens({ secret: config.secret, baseUrl: config.baseUrl, now: services.clock });
  const deps = (): RegistryDeps => ({
    db: services.database.db,
    blobs: services.blobs,
    maxBytes: config.maxUploadBytes,
    limits: config,
  });
  const declared = (c: Context) => {
    const length = c.req.header("content-length");
    return length === undefined ? undefined : Number(length);
  };
  const realm = `${config.baseUrl.replace(/\/$/, "")}/v2/token`;
  const challenge = (scope?: string) =>
    `Bearer realm="${realm}",service="${tokens.service}"${scope ? `,scope="${scope}"` : ""}`;
  const app = new Hono();

  app.use("*", async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(API_VERSION)) c.res.headers.set(k, v);
  });
  app.onError((error, c) => {
    const scope = (c.get as (key: string) => unknown)("scope") as string | undefined;
    return ociErrorResponse(error, services.logger, challenge(scope));
  });

  /** The caller's grant: a registry token, or an API key or token sent directly (curl). */
  async function grantOf(headers: Headers, wanted: { name: string; actions: RegistryAction[] }[]) {
    const authorization = headers.get("authorization");
    if (!authorization) return undefined;
    const bearer = /^bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim();
    if (bearer?.startsWith("ey")) {
      const grant = await tokens.verify(bearer);
      if (!grant) throw new OciError("UNAUTHORIZED", "The registry token is not valid or has expired");
      return grant;
    }
    return grantFor(services, await subjectOf(services, credentialFromHeaders(headers)), wanted);
  }

  /** The image a request names, if the caller may `action` it; the right refusal otherwise. */
  async function authorize(
    c: { req: { raw: Request }; set: (k: never, v: never) => void },
    name: string,
    action: RegistryAction,
  ): Promise<{ ref: ImageRef; grant: RegistryGrant | undefined }> {
    const scope = `repository:${name}:${action === "pull" ? "pull" : `pull,${action}`}`;
    (c.set as (k: string, v: string) => void)("scope", scope);
    const headers = c.req.raw.headers;
    const parts = splitRepositoryName(name);
    const project = parts && (await projectOfName(services.database.db, parts));
    const anonymousPull = action === "pull" && project?.visibility === "public";
    const grant = await grantOf(headers, [{ name, actions: [action, "pull"] }]);
    // Publishing includes deleting (access.ts): a push grant deletes too.
    const granted = allows(grant, name, action) || (action === "delete" && allows(grant, name, "push"));
    if (project && parts && (granted || (anonymousPull && !grant))) {
      return { ref: { project, image: parts.image, name }, grant };
    }
    if (project && anonymousPull && grant && allows(grant, name, "pull") === false && action === "pull") {
      // A token for other repositories: a public image is pulled by anyone.
      return { ref: { project, image: parts!.image, name }, grant };
    }
    const visible = project && (project.visibility === "public" || allows(grant, name, "pull"));
    if (!visible) throw nameUnknown(name);
    if (!grant || grant.subject.kind === "anonymous")
      throw new OciError("UNAUTHORIZED", "Authentication required: log in with an API key");
    throw new OciError("DENIED", `Your credentials may not ${action} ${name}`);
  }

  function callerOf(c: { req: { raw: Request } }, grant: RegistryGrant | undefined): Caller {
    const address = clientAddress(c as never, config.trustProxy);
    if (grant?.subject.kind === "actor") return { actor: grant.subject.actor, address };
    throw new OciError("DENIED", "Only an API key or a publish token may change images");
  }

  // The API base: 200 to a caller with a valid token or key, else the challenge.
  const base = async (c: Context) => {
    const authorization = c.req.header("authorization");
    if (!authorization) throw new OciError("UNAUTHORIZED", "Authentication required");
    await grantOf(c.req.raw.headers, []);
    return c.json({});
  };
  app.get("/", base);

  // The token endpoint (the challenge's realm).
  app.get("/token", async (c) => {
    const credential = credentialFromHeaders(c.req.raw.headers);
    const subject = await subjectOf(services, credential);
    const grant = await grantFor(services, subject, parseScopes(c.req.queries("scope") ?? []));
    const { token, expiresIn, issuedAt } = await tokens.issue(grant);
    c.header("cache-control", "no-store");
    return c.json({ token, access_token: token, expires_in: expiresIn, issued_at: issuedAt });
  });

  app.get("/_catalog", async (c) => {
    const grant = await grantOf(c.req.raw.headers, []);
    const subject = grant?.subject ?? { kind: "anonymous" as const };
    const rows = await listImages(services.database.db);
    const names: string[] = [];
    for (const row of rows) {
      const name = [row.username, row.slug, row.image].filter(Boolean).join("/").toLowerCase();
      if (row.visibility === "public") names.push(name);
      else if (subject.kind !== "anonymous") {
        const mine = await grantFor(services, subject, [{ name, actions: ["pull"] }]);
        if (allows(mine, name, "pull")) names.push(name);
      }
    }
    names.sort();
    const n = Number(c.req.query("n") ?? TAGS_PAGE);
    const last = c.req.query("last");
    const after = last === undefined ? names : names.filter((name) => name > last);
    const page = after.slice(0, Math.max(0, Math.min(n, TAGS_PAGE)));
    if (after.length > page.length && page.length > 0)
      c.header("link", `</v2/_catalog?n=${n}&last=${encodeURIComponent(page.at(-1)!)}>; rel="next"`);
    return c.json({ repositories: page });
  });

  app.all("/*", async (c) => {
    const path = c.req.path.replace(/^\/v2/, "");
    if ((path === "/" || path === "") && c.req.method === "GET") return base(c);
    const route = routeOf(path);
    if (!route) throw new OciError("UNSUPPORTED", "No such registry endpoint");
    const method = c.req.method;
    const repoOf = async (ref: ImageRef) => findRepository(services.database.db, ref.project.id, ref.image);

    if (route.kind === "blob") {
      if (method !== "GET" && method !== "HEAD")
        throw new OciError("UNSUPPORTED", "Blobs are removed with the manifests that need them", {
          status: 405,
        });
      const { ref } = await authorize(c, route.name, "pull");
      const sha256 = sha256Of(route.digest);
      const repository = await repoOf(ref);
      const held = repository && (await heldBlob(services.database.db, repository.id, sha256));
      if (!held) throw new OciError("BLOB_UNKNOWN", `No blob ${route.digest} in ${route.name}`);
      const headers: Record<string, string> = {
        "docker-content-digest": `sha256:${sha256}`,
        "content-type": "application/octet-stream",
        "accept-ranges": "bytes",
        "cache-control": "private, max-age=31536000, immutable",
        etag: `"sha256:${sha256}"`,
      };
      const range = parseRange(c.req.header("range"), held.size);
      if (range === "invalid") {
        return new Response(null, { status: 416, headers: { "content-range": `bytes */${held.size}` } });
      }
      if (method === "HEAD") {
        return new Response(null, {
          status: 200,
          headers: { ...headers, "content-length": String(held.size) },
        });
      }
      const source = await services.blobs.open(sha256, range ?? undefined);
      if (range) {
        headers["content-range"] = `bytes ${range.start}-${range.end}/${held.size}`;
        headers["content-length"] = String(range.end - range.start + 1);
        return new Response(pullStream(source as Readable), { status: 206, headers });
      }
      headers["content-length"] = String(held.size);
      return new Response(pullStream(source as Readable), { status: 200, headers });
    }

    if (route.kind === "upload-start") {
      if (method !== "POST") throw new OciError("UNSUPPORTED", "Start an upload with POST", { status: 405 });
      const { ref, grant } = await authorize(c, route.name, "push");
      callerOf(c, grant);
      const digest = c.req.query("digest");
      const mount = c.req.query("mount");
      const from = c.req.query("from");
      if (mount && from) {
        const source = await mountSource(from, grant);
        if (source && (await mountBlob(deps(), ref, source, mount))) {
          return new Response(null, {
            status: 201,
            headers: { location: `/v2/${route.name}/blobs/${mount}`, "docker-content-digest": mount },
          });
        }
      } else if (digest) {
        await assertRoomFor(deps(), ref.project, declared(c));
        const body = uploadBody(c.req.raw, c.env) ?? emptyBody();
        await uploadWholeBlob(deps(), ref, digest, body);
        return new Response(null, {
          status: 201,
          headers: { location: `/v2/${route.name}/blobs/${digest}`, "docker-content-digest": digest },
        });
      }
      const id = await startUpload(deps(), ref);
      return new Response(null, {
        status: 202,
        headers: {
          location: `/v2/${route.name}/blobs/uploads/${id}`,
          range: "0-0",
          "docker-upload-uuid": id,
          "content-length": "0",
        },
      });
    }

    if (route.kind === "upload") {
      const { ref, grant } = await authorize(c, route.name, "push");
      callerOf(c, grant);
      const repository = await repoOf(ref);
      const upload = repository && (await findUpload(services.database.db, repository.id, route.id));
      if (!repository || !upload) throw new OciError("BLOB_UPLOAD_UNKNOWN", "No such upload");
      const location = `/v2/${route.name}/blobs/uploads/${route.id}`;
      const progress = (size: number, status: number) =>
        new Response(null, {
          status,
          headers: {
            location,
            range: `0-${Math.max(0, size - 1)}`,
            "docker-upload-uuid": route.id,
            "content-length": "0",
          },
        });
      if (method === "GET") return progress(upload.size, 204);
      if (method === "DELETE") {
        await deleteUpload(services.database.db, route.id);
        return new Response(null, { status: 204 });
      }
      if (method === "PATCH") {
        await assertRoomFor(deps(), ref.project, declared(c));
        const start = contentRangeStart(c.req.header("content-range"));
        const size = await appendToUpload(deps(), upload, uploadBody(c.req.raw, c.env) ?? emptyBody(), start);
        return progress(size, 202);
      }
      if (method === "PUT") {
        const digest = c.req.query("digest");
        if (!digest) throw new OciError("DIGEST_INVALID", "Finish an upload with ?digest=");
        sha256Of(digest);
        let current = upload;
        const length = Number(c.req.header("content-length") ?? "0");
        if (length > 0 || c.req.header("transfer-encoding")) {
          await assertRoomFor(deps(), ref.project, declared(c));
          const start = contentRangeStart(c.req.header("content-range"));
          const size = await appendToUpload(
            deps(),
            upload,
            uploadBody(c.req.raw, c.env) ?? emptyBody(),
            start,
          );
          const again = await findUpload(services.database.db, repository.id, route.id);
          if (!again) throw new OciError("BLOB_UPLOAD_UNKNOWN", "No such upload");
          current = { ...again, size };
        }
        await finishUpload(deps(), repository.id, current, digest);
        return new Response(null, {
          status: 201,
          headers: { location: `/v2/${route.name}/blobs/${digest}`, "docker-content-digest": digest },
        });
      }
      throw new OciError("UNSUPPORTED", `${method} is not an upload method`, { status: 405 });
    }

    if (route.kind === "manifest") {
      if (method === "PUT") {
        const { ref, grant } = await authorize(c, route.name, "push");
        const bytes = await boundedBody(c.req.raw, MAX_MANIFEST_BYTES);
        const { sha256, manifest } = await pushManifest(deps(), callerOf(c, grant), ref, {
          reference: route.reference,
          bytes,
          contentType: c.req.header("content-type"),
        });
        const headers: Record<string, string> = {
          location: `/v2/${route.name}/manifests/sha256:${sha256}`,
          "docker-content-digest": `sha256:${sha256}`,
          "content-length": "0",
        };
        if (manifest.subject) headers["oci-subject"] = manifest.subject.digest;
        return new Response(null, { status: 201, headers });
      }
      if (method === "DELETE") {
        const { ref, grant } = await authorize(c, route.name, "delete");
        if (!(await deleteManifest(deps(), callerOf(c, grant), ref, route.reference)))
          throw new OciError("MANIFEST_UNKNOWN", `No manifest ${route.reference} in ${route.name}`);
        return new Response(null, { status: 202 });
      }
      if (method !== "GET" && method !== "HEAD")
        throw new OciError("UNSUPPORTED", `${method} is not a manifest method`, { status: 405 });
      const { ref } = await authorize(c, route.name, "pull");
      const repository = await repoOf(ref);
      const found =
        repository &&
        (await findManifest(
          services.database.db,
          repository.id,
          isDigestReference(route.reference)
            ? { sha256: sha256Of(route.reference) }
            : { tag: route.reference },
        ));
      if (!found) throw new OciError("MANIFEST_UNKNOWN", `No manifest ${route.reference} in ${route.name}`);
      const headers = {
        "content-type": found.media_type,
        "docker-content-digest": `sha256:${found.sha256}`,
        "content-length": String(found.size),
        etag: `"sha256:${found.sha256}"`,
        "cache-control": isDigestReference(route.reference)
          ? "private, max-age=31536000, immutable"
          : "no-cache",
      };
      if (method === "HEAD") return new Response(null, { status: 200, headers });
      const source = await services.blobs.open(found.sha256);
      // A GET of a manifest is a pull (HEAD is a client checking what a tag points at).
      await countPull(
        services.database.db,
        found.repository_id,
        isDigestReference(route.reference) ? { sha256: found.sha256 } : { tag: route.reference },
        services.clock().toISOString().slice(0, 10),
      );
      return new Response(pullStream(source as Readable), { status: 200, headers });
    }

    if (route.kind === "tags") {
      const { ref } = await authorize(c, route.name, "pull");
      const repository = await repoOf(ref);
      if (!repository) throw nameUnknown(route.name);
      const nParam = c.req.query("n");
      const n = nParam === undefined ? TAGS_PAGE : Math.max(0, Math.min(Number(nParam) || 0, TAGS_PAGE));
      const last = c.req.query("last");
      const tags = await listTags(services.database.db, repository.id, { last, n });
      const page = tags.slice(0, n);
      if (tags.length > n && page.length > 0)
        c.header(
          "link",
          `</v2/${route.name}/tags/list?n=${n}&last=${encodeURIComponent(page.at(-1)!)}>; rel="next"`,
        );
      return c.json({ name: route.name, tags: page });
    }

    // The referrers API: an image index of the manifests whose subject is the digest.
    const { ref } = await authorize(c, route.name, "pull");
    const sha256 = sha256Of(route.digest);
    const repository = await repoOf(ref);
    const artifactType = c.req.query("artifactType");
    const rows = repository
      ? await referrersOf(services.database.db, repository.id, sha256, artifactType)
      : [];
    const headers: Record<string, string> = { "content-type": "application/vnd.oci.image.index.v1+json" };
    if (artifactType !== undefined) headers["oci-filters-applied"] = "artifactType";
    return new Response(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.index.v1+json",
        manifests: rows.map((row) => ({
          mediaType: row.media_type,
          digest: `sha256:${row.sha256}`,
          size: row.size,
          ...(row.artifact_type ? { artifactType: row.artifact_type } : {}),
          ...(row.annotations ? { annotations: JSON.parse(row.annotations) } : {}),
        })),
      }),
      { status: 200, headers },
    );
  });

  /** The repository a mount names, if the caller may read it. */
  async function mountSource(from: string, grant: RegistryGrant | undefined): Promise<ImageRef | undefined> {
    const parts = splitRepositoryName(from);
    const project = parts && (await projectOfName(services.database.db, parts));
    if (!parts || !project) return undefined;
    let mayRead = project.visibility === "public" || allows(grant, from, "pull");
    if (!mayRead && grant) {
      const more = await grantFor(services, grant.subject, [{ name: from, actions: ["pull"] }]);
      mayRead = allows(more, from, "pull");
    }
    return mayRead ? { project, image: parts.image, name: from } : undefined;
  }

  return app;
}

async function* emptyBody(): AsyncIterable<Uint8Array> {}

/** A small body read whole, refused (SIZE_INVALID) as soon as it is longer than `max` bytes. */
async function boundedBody(request: Request, max: number): Promise<Uint8Array> {
  const tooLarge = () => new OciError("SIZE_INVALID", `A manifest may be at most ${max} bytes`);
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

/** The first byte of a chunk's `Content-Range: <start>-<end>` (the specification's form). */
function contentRangeStart(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const m = /^(?:bytes )?(\d+)-(\d+)$/.exec(header.trim());
  if (!m) throw new OciError("BLOB_UPLOAD_INVALID", `Not a Content-Range: ${header}`, { status: 416 });
  return Number(m[1]);
}

/** A single `Range: bytes=a-b` (or `a-`, `-n`) within the size; "invalid" when unsatisfiable. */
function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | "invalid" {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null;
  let start: number;
  let end: number;
  if (m[1] === "") {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) return "invalid";
  return { start, end };
}
