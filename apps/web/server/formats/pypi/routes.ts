// The Python package index of each project at /pypi/{owner}/{project}/ (docs/pypi.md): uploads
// as twine sends them (POST to that URL), the simple repository API under simple/ (what
// `pip install --index-url` takes), the files under files/{version}/{filename} (answered as
// /dl answers them: ranges, counting) and a wheel's METADATA beside it (PEP 658). Refusals are
// the API's statuses with the message as plain text, and in the reason phrase, which is what
// twine prints. A request without any credential for what it may not read is asked for one
// (401, Basic), so pip uses its keyring or netrc; one with a credential gets 404.
import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { normalizeProjectName } from "@packyard/formats/pypi/names.ts";
import { type Context, Hono } from "hono";
import { rememberRegistryAnswer } from "../../downloads/fast-dl.ts";
import { servingCachesOf } from "../../downloads/serve-cache.ts";
import { DomainError } from "../../platform/core/errors.ts";
import { MULTIPART_OVERHEAD_BYTES, receiveMultipart } from "../../platform/http/multipart-upload.ts";
import { uploadBody } from "../../platform/http/upload-body.ts";
import type { ProjectRow } from "../../projects/storage.ts";
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
  negotiateSimpleFormat,
  renderProjectList,
  renderProjectPage,
  SIMPLE_HTML,
  SIMPLE_JSON,
  type SimpleFormat,
  type SimplePage,
} from "./simple-pages.ts";
import { distributionFiles, listDistributions, wheelMetadata } from "./storage.ts";
import { uploadPythonFile } from "./use-cases.ts";

const CHALLENGE = 'Basic realm="Packyard"';

/** A page with its ETag, as the serving cache keeps it. */
/** A page kept in the serving cache: its bytes, and gzipped once a client takes gzip (pip does). */
type PageWithTag = SimplePage & { etag: string; bytes: Buffer; gzip?: Buffer };

/** Pages smaller than this are sent as they are: gzip would save less than its cost. */
const GZIP_FROM_BYTES = 1024;

/**
 * Puts `message` in the status line's reason phrase ("400 File already exists"), where twine
 * shows it, when the server is Node's (@hono/node-server, whose env carries the response).
 */
function setReasonPhrase(c: Context, message: string): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing || typeof outgoing.writeHead !== "function" || outgoing.headersSent) return;
  // A reason phrase is one line of visible ASCII.
  outgoing.statusMessage = message.replace(/[^\x20-\x7e]+/g, " ").slice(0, 300);
}

/**
 * The body, read through `body` by whoever reads it, whose reader's return() (a refusal stops
 * reading) leaves the stream open, so that `drain` can read the rest and throw it away (at most
 * `limit` more bytes; past that the stream is closed).
 */
function drainable(source: AsyncIterable<Uint8Array>) {
  const iterator = source[Symbol.asyncIterator]();
  let ended = false;
  const next = async () => {
    const result = await iterator.next();
    if (result.done) ended = true;
    return result;
  };
  const body: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next,
      return: async () => ({ done: true as const, value: undefined }),
    }),
  };
  return {
    body,
    async drain(limit: number): Promise<void> {
      let read = 0;
      try {
        while (!ended) {
          const { done, value } = await next();
          if (done) return;
          read += value.byteLength;
          if (read > limit) {
            await iterator.return?.();
            return;
          }
        }
      } catch {
        // The client went away: nothing to answer anyway.
      }
    },
  };
}

export function createPypiRoutes(services: Services) {
  const { config, database, blobs, keys, logger } = services;
  const db = database.db;
  const baseUrl = config.baseUrl.replace(/\/$/, "");
  const uploadDeps = { db, blobs, keys, config, logger };
  const respondWithFile = releaseFileResponder(services);
  const app = new Hono();

  const nameOf = (c: Context): RegistryProjectName => ({
    owner: c.req.param("owner")!,
    slug: c.req.param("project")!,
  });
  const prefixOf = (name: RegistryProjectName) =>
    `/pypi/${encodeURIComponent(name.owner)}/${encodeURIComponent(name.slug)}`;

  /**
   * The project, if the request may read it; else NOT_FOUND, anonymous or not (a private project
   * and a missing one look the same: pip sends the credentials of the index URL or ~/.netrc with
   * its first request, docs/pypi.md).
   */
  const readable = (c: Context, name: RegistryProjectName): Promise<ProjectRow> =>
    readableProject(services, c, name);

  /** A failure as text with the API's status; 401 with a Basic challenge for a missing or bad credential. */
  function failure(c: Context, error: unknown): Response {
    const headers = new Headers({ "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
    const { status, code, message, retryAfterSeconds } = registryFailure(services, error);
    if (retryAfterSeconds !== undefined) headers.set("retry-after", String(retryAfterSeconds));
    // The stable code beside the words (docs/pypi.md): what scripts and CI logs can match on.
    headers.set("x-packyard-error-code", code);
    if (status === 401) headers.set("www-authenticate", CHALLENGE);
    setReasonPhrase(c, message);
    return new Response(`${message}\n`, { status, headers });
  }

  /**
   * A page as `build` writes it, kept in the serving cache (downloads/serve-cache.ts) until the
   * next change anywhere (an upload, a yank, a deletion: every change drops it, in every
   * process); undefined when there is no such page.
   */
  function cachedPage(key: string[], build: () => Promise<SimplePage | undefined>) {
    return servingCachesOf(db).rows.get(
      ["pypi", ...key].join("\u0000"),
      async (): Promise<PageWithTag | undefined> => {
        const page = await build();
        if (!page) return undefined;
        const bytes = Buffer.from(page.body);
        return { ...page, bytes, etag: `"${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}"` };
      },
    );
  }

  /** A page answered in its format, revalidated by its ETag (pip asks with max-age=0). */
  function pageResponse(
    c: Context,
    project: ProjectRow,
    page: PageWithTag,
    at: { route: string; epoch: number },
  ): Response {
    const { etag } = page;
    const headers: Record<string, string> = {
      "content-type": page.contentType,
      vary: "Accept, Accept-Encoding, Authorization",
      etag,
      "cache-control": project.visibility === "public" ? "no-cache" : "private, no-cache",
    };
    const match = c.req.header("if-none-match");
    if (match?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag))
      return new Response(null, { status: 304, headers });
    // pip takes gzip: a page of many files is a third of its size so, made once per page.
    const gzip =
      /\bgzip\b/.test(c.req.header("accept-encoding") ?? "") && page.bytes.byteLength >= GZIP_FROM_BYTES;
    if (gzip) {
      page.gzip ??= gzipSync(page.bytes);
      headers["content-encoding"] = "gzip";
    }
    const body = gzip ? page.gzip! : page.bytes;
    headers["content-length"] = String(body.byteLength);
    // Anyone's: the next anonymous request for it is answered from memory (downloads/fast-dl.ts).
    if (project.visibility === "public" && anonymousRequest(c))
      rememberRegistryAnswer(
        db,
        { url: c.req.url, accept: c.req.header("accept"), acceptEncoding: c.req.header("accept-encoding") },
        { route: at.route, headers, bytes: body },
        at.epoch,
      );
    if (c.req.method === "HEAD") return new Response(null, { status: 200, headers });
    return new Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers });
  }

  /** The page's format, or undefined after answering 406. */
  function formatOf(c: Context): SimpleFormat | undefined {
    return negotiateSimpleFormat(c.req.header("accept"), c.req.query("format"));
  }

  function notAcceptable(c: Context): Response {
    const message = `Ask for ${SIMPLE_JSON}, ${SIMPLE_HTML} or text/html`;
    setReasonPhrase(c, "Not Acceptable");
    return new Response(`${message}\n`, {
      status: 406,
      headers: { "content-type": "text/plain; charset=utf-8", vary: "Accept" },
    });
  }

  /** A redirect to the same path with a trailing slash (PEP 503: pages end in /), query kept. */
  const withSlash = (c: Context) => {
    const url = new URL(c.req.url);
    return c.redirect(`${url.pathname}/${url.search}`, 301);
  };

  // Uploads: twine's `file_upload` form, one distribution file per request. Its fields come
  // before the file (`content`); a signature twine may add (`gpg_signature`, an .asc file) is
  // ignored, as PyPI ignores them.
  const upload = async (c: Context) => {
    const name = nameOf(c);
    const raw = uploadBody(c.req.raw, c.env);
    const body = raw && drainable(raw);
    try {
      const { caller } = await publishingCaller(services, c, name);
      let uploaded = false;
      await receiveMultipart(
        c.req.raw,
        { maxBytes: config.maxUploadBytes, maxFiles: 2, body: body?.body },
        async (part) => {
          if (part.filename.endsWith(".asc")) {
            for await (const _ of part.body);
            return;
          }
          if (uploaded)
            throw new DomainError("VALIDATION_FAILED", "Upload one distribution file per request");
          await uploadPythonFile(uploadDeps, caller, {
            project: `${name.owner}/${name.slug}`,
            fields: part.fields,
            filename: part.filename,
            body: part.body,
          });
          uploaded = true;
        },
      );
      if (!uploaded)
        throw new DomainError("VALIDATION_FAILED", "The upload has no distribution file (the content field)");
      return c.text("OK\n", 200);
    } catch (error) {
      // twine (Python's http.client) sends the whole body before it reads the answer: a refusal
      // answered on a connection closed under it is a "connection reset", not the refusal (and
      // --skip-existing cannot skip). The rest of the body is read first, up to the upload limit.
      const tooLarge = error instanceof DomainError && error.code === "PAYLOAD_TOO_LARGE";
      if (body && !tooLarge) await body.drain(config.maxUploadBytes + MULTIPART_OVERHEAD_BYTES);
      return failure(c, error);
    }
  };
  app.post("/:owner/:project", upload);
  app.post("/:owner/:project/", upload);

  app.get("/:owner/:project/simple", withSlash);

  // The index's root: every distribution the project holds.
  app.get("/:owner/:project/simple/", async (c) => {
    // Before anything is read: an answer made across a change is not remembered.
    const epoch = servingCachesOf(db).rows.epoch;
    try {
      const project = await readable(c, nameOf(c));
      const format = formatOf(c);
      if (!format) return notAcceptable(c);
      const page = await cachedPage([project.id, format.type], async () =>
        renderProjectList(format, await listDistributions(db, project.id)),
      );
      return pageResponse(c, project, page!, { route: "/pypi/:owner/:project/simple/", epoch });
    } catch (error) {
      return failure(c, error);
    }
  });

  app.get("/:owner/:project/simple/:name", withSlash);

  // A distribution's page, at its normalised name (other spellings are redirected there).
  app.get("/:owner/:project/simple/:name/", async (c) => {
    const epoch = servingCachesOf(db).rows.epoch;
    const name = nameOf(c);
    const asked = c.req.param("name");
    try {
      const project = await readable(c, name);
      const normalized = normalizeProjectName(asked);
      if (normalized !== asked) {
        const search = new URL(c.req.url).search;
        return c.redirect(`${prefixOf(name)}/simple/${encodeURIComponent(normalized)}/${search}`, 301);
      }
      const format = formatOf(c);
      if (!format) return notAcceptable(c);
      // The files' URLs are under the owner and project as this request spells them.
      const page = await cachedPage([project.id, prefixOf(name), normalized, format.type], async () => {
        const rows = await distributionFiles(db, project.id, normalized);
        if (rows.length === 0) return undefined;
        const files = rows.map((row) => ({
          filename: row.filename,
          url: `${baseUrl}${prefixOf(name)}/files/${encodeURIComponent(row.version)}/${encodeURIComponent(row.filename)}`,
          sha256: row.sha256,
          size: row.size,
          uploadTime: row.createdAt,
          requiresPython: row.requiresPython,
          metadataSha256: row.metadataSha256,
          yanked: row.yankedReason === undefined ? (false as const) : row.yankedReason,
        }));
        const versions = [...new Set(rows.map((row) => row.version))];
        return renderProjectPage(format, { name: normalized, versions, files });
      });
      if (!page) throw new DomainError("NOT_FOUND", `No distribution named ${asked} in this index`);
      return pageResponse(c, project, page, { route: "/pypi/:owner/:project/simple/:name/", epoch });
    } catch (error) {
      return failure(c, error);
    }
  });

  // A file, as /dl serves it; `{wheel}.metadata` is the wheel's METADATA (PEP 658).
  app.get("/:owner/:project/files/:version/:filename", async (c) => {
    const name = nameOf(c);
    const version = c.req.param("version");
    const filename = c.req.param("filename");
    try {
      if (filename.endsWith(".whl.metadata")) {
        const project = await readable(c, name);
        const found = await wheelMetadata(db, project.id, version, filename.slice(0, -".metadata".length));
        if (found)
          return new Response(Buffer.from(found.metadata, "utf8"), {
            headers: {
              "content-type": "text/plain; charset=utf-8",
              etag: `"${found.sha256}"`,
              "cache-control": project.visibility === "public" ? "no-cache" : "private, no-cache",
            },
          });
      }
      return await respondWithFile(c, name, version, filename);
    } catch (error) {
      return failure(c, error);
    }
  });

  return app;
}
