// The one answer to a /dl request (decision 074): resolveDownload decides everything a download
// URL answers — who may see the project, which file, redirects, ranges, conditional requests,
// HEAD, what is counted — and returns it as an Answer (status, headers, body, what to count).
// Two writers put an Answer on the wire and decide nothing: the Hono routes (downloads.ts,
// formats/apt/serve.ts, formats/yum/serve.ts, signing-keys.ts, badges.ts through dlHandler below) and the raw node:http
// path of anonymous downloads (fast-dl.ts), which asks for an answer from memory only.
import { createGunzip } from "node:zlib";
import { classifyClient } from "@packyard/contract/stats.ts";
import type { Context } from "hono";
import { countServed } from "../billing/usage.ts";
import { entitlementChecksOf, isEntitlementToken, type LoadedEntitlement } from "../entitlements/checks.ts";
import { resolveBadge } from "../formats/files/badges.ts";
import { accountingOf, resolveReleaseFile } from "../formats/files/serve.ts";
import type { PackageFormat } from "../formats/format.ts";
import {
  EntryPins,
  type PinStore,
  type Requester,
  requesterOf,
  SharedEntryPins,
} from "../formats/yum/entry-pins.ts";
import { assertEntitled, type EntitledTarget } from "../platform/core/authorization.ts";
import { notFound } from "../platform/core/errors.ts";
import { credentialFromHeaders } from "../platform/http/actor.ts";
import { apiErrorResponse } from "../platform/http/api-errors.ts";
import { cacheControl } from "../platform/http/cache-control.ts";
import { clientAddress } from "../platform/http/request-log.ts";
import { deliveryMeter, pullStream } from "../platform/http/stream-blob.ts";
import type { BlobStore } from "../platform/storage/blob-store.ts";
import { projectAsked } from "../projects/visible.ts";
import type { Services } from "../services.ts";
import { resolveArmoredKeys, resolveBinaryKeyring } from "../signing-keys/dl-routes.ts";
import type { Served, ServedFile } from "./counts.ts";
import { cachedProjectByName, cachedUsernameOf } from "./lookups.ts";
import { type MachineHash, machineHashOf } from "./machines.ts";

/**
 * Which /dl route a request is for (each resolver module registers its own patterns): a
 * package format's are `package` (/dl/{u}/{p}/{routePrefix}/…) and `setupScript`, with the format.
 */
export type DlRoute = "release" | "package" | "setupScript" | "gpgKey" | "keyring" | "badge";

/** A /dl request as both writers see it. Header names are lower-case. */
export interface DlRequest {
  route: DlRoute;
  /** The package format of a `package` or `setupScript` route (formats/registry.ts). */
  format?: PackageFormat;
  method: "GET" | "HEAD";
  username: string;
  slug: string;
  /** The route's other parameters: version and filename, name (badge), rest (after the format's prefix). */
  params: { version?: string; filename?: string; name?: string; rest?: string };
  header(name: string): string | undefined;
  query(name: string): string | undefined;
  /** Neither an Authorization nor a Cookie header: nobody signed in, no key. */
  anonymous: boolean;
  /** The request's headers, for resolving who asks (a key, a session). */
  headers(): Headers;
  /** Who asks, for YUM's entry pins (formats/yum/entry-pins.ts). */
  requester(): Requester;
  /**
   * Set by dlProject when the request carries an entitlement token that reads the project:
   * resolveDownload then holds the answer to the token's limits (authorization.ts).
   */
  entitled?: { entitlement: LoadedEntitlement; projectId: string };
}

/** A body: bytes in memory, or a stored blob's bytes start..end (inclusive), or a gzip's content. */
export type Body =
  /** `sha256`: the bytes are the content cache's of that name (an index file). */
  | { kind: "bytes"; bytes: Uint8Array; sha256?: string }
  | { kind: "blob"; store: BlobStore; sha256: string; size: number; start: number; end: number }
  | { kind: "gunzip"; store: BlobStore; sha256: string; size: number };

/** What a GET's body counts: the owner's bytes, and a release file's download. */
export interface Count {
  ownerId: string;
  file?: ServedFile;
  /** The distribution the URL names (an APT suite, a YUM group), unless the client names one. */
  distribution?: string;
  /** The body ends at the file's last byte: delivered whole, it is one download. */
  lastByte?: boolean;
  /** Counted when answered, as if delivered (a presigned redirect, an empty file): these bytes. */
  issued?: number;
  /** The entitlement token the answer was made for: its usage counts these bytes too. */
  entitlement?: LoadedEntitlement;
}

export interface Answer {
  /** The route pattern, for the request log (as Hono names it: /dl/:username/…). */
  route: string;
  status: number;
  headers: Record<string, string>;
  /** The body of a GET (a HEAD and a 304 send none). */
  body?: Body;
  /** An error answer (api-errors.ts's body), with `headers` added. */
  error?: { code: "RANGE_NOT_SATISFIABLE"; message: string };
  count?: Count;
  /**
   * The same answer for every anonymous GET or HEAD of this URL until the next change (the
   * body is in memory and nothing of the request but its URL decided it).
   */
  reusable?: boolean;
  /**
   * What an entitlement token must allow for this answer beyond its project: the suite, group
   * and release version the URL and file name, and whether it is a release's file.
   */
  entitled?: Omit<EntitledTarget, "projectId">;
}

/** What the resolvers share: the services, the YUM entry pins, whether only memory may answer. */
export interface DlDeps {
  services: Services;
  pins: PinStore;
  /** Answer from the serving cache only: anything it lacks throws NotInMemory (lookups.ts). */
  memoryOnly: boolean;
}

const shared = new WeakMap<Services, PinStore>();

/** The deps of the services' resolvers: one pin store per services, whichever writer asks. */
export function dlDeps(services: Services, memoryOnly: boolean): DlDeps {
  let pins = shared.get(services);
  if (!pins) {
    // Several servers share one PostgreSQL database: the pins are shared through it.
    pins =
      services.database.kind === "postgres" ? new SharedEntryPins(services.database.db) : new EntryPins();
    shared.set(services, pins);
  }
  return { services, pins, memoryOnly };
}

/** The one function that answers a /dl request; throws domain errors (NOT_FOUND, a moved name). */
export async function resolveDownload(deps: DlDeps, req: DlRequest): Promise<Answer> {
  const answer = await resolveRoute(deps, req);
  if (req.entitled) await entitle(deps, req.entitled, req.method, answer);
  return answer;
}

/**
 * Holds an answer made for an entitlement token to the token: NOT_FOUND outside its suites,
 * groups or versions, ENTITLEMENT_LIMIT past a limit; a release's file answered from its first
 * byte takes one of its downloads. The answer then counts in the token's usage.
 */
async function entitle(
  deps: DlDeps,
  entitled: NonNullable<DlRequest["entitled"]>,
  method: DlRequest["method"],
  answer: Answer,
): Promise<void> {
  const { entitlement, projectId } = entitled;
  assertEntitled(entitlement, { projectId, ...answer.entitled }, deps.services.clock());
  const body = answer.body;
  const fromStart = body === undefined || body.kind !== "blob" || body.start === 0;
  if (
    answer.entitled?.file &&
    method === "GET" &&
    (answer.status === 200 || answer.status === 206) &&
    fromStart
  )
    await entitlementChecksOf(deps.services).takeDownload(entitlement);
  answer.reusable = false;
  if (answer.count) answer.count = { ...answer.count, entitlement };
}

function resolveRoute(deps: DlDeps, req: DlRequest): Promise<Answer> {
  switch (req.route) {
    case "release":
      return resolveReleaseFile(deps, req);
    case "package":
      return formatOf(req).resolve(deps, req);
    case "setupScript":
      return resolveSetupScript(deps, req);
    case "gpgKey":
      return resolveArmoredKeys(deps, req);
    case "keyring":
      return resolveBinaryKeyring(deps, req);
    case "badge":
      return resolveBadge(deps, req);
  }
}

/** /dl/{user}/{project}/setup.{routePrefix}.sh: the format's script for this project. */
async function resolveSetupScript(deps: DlDeps, req: DlRequest): Promise<Answer> {
  const { services, memoryOnly } = deps;
  const format = formatOf(req);
  const project = await dlProject(deps, req);
  // Fetched with a read token (`curl -fsSL -u TOKEN: …/setup.deb.sh | sudo bash`): the script
  // writes that token into the machine's credentials, so it is nobody else's to keep.
  const token = req.anonymous ? undefined : credentialFromHeaders(req.headers());
  const script = format.setupScript({
    baseUrl: services.config.baseUrl,
    // The owner's name as written now, whatever the case of the one asked for.
    owner: await cachedUsernameOf(services.database.db, project.owner_id, memoryOnly),
    slug: project.slug,
    private: project.visibility === "private",
    ...(token ? { token } : {}),
  });
  return {
    route: `/dl/:username/:slug/setup.${format.routePrefix}.sh`,
    status: 200,
    headers: {
      "content-type": "text/x-shellscript; charset=utf-8",
      "cache-control": token
        ? "private, no-store"
        : cacheControl({ kind: "script", shared: project.visibility === "public" }),
    },
    body: { kind: "bytes", bytes: Buffer.from(script) },
  };
}

function formatOf(req: DlRequest): PackageFormat {
  if (!req.format) throw new Error(`the /dl route ${req.route} needs its package format`);
  return req.format;
}

/**
 * The /dl request a Hono route received (`format`: a package format's route). `named`: the
 * project and file when the route names them otherwise (a registry's file URL).
 */
export function dlRequestOf(
  c: Context,
  route: DlRoute,
  format?: PackageFormat,
  named?: { username: string; slug: string; version?: string; filename?: string },
): DlRequest {
  const raw = c.req.raw.headers;
  const username = named?.username ?? c.req.param("username")!;
  const slug = named?.slug ?? c.req.param("slug")!;
  let rest: string | undefined;
  if (route === "package" && format) {
    const prefix = `/dl/${username}/${slug}/${format.routePrefix}/`;
    rest = decodeURIComponent(c.req.path.slice(c.req.path.indexOf(prefix) + prefix.length));
  }
  return {
    route,
    format,
    method: c.req.method === "HEAD" ? "HEAD" : "GET",
    username,
    slug,
    params: {
      version: named ? named.version : c.req.param("version"),
      filename: named ? named.filename : c.req.param("filename"),
      name: c.req.param("name"),
      rest,
    },
    header: (name) => c.req.header(name),
    query: (name) => c.req.query(name),
    anonymous: !raw.has("authorization") && !raw.has("cookie"),
    headers: () => raw,
    requester: () => requesterOf(c.env, raw),
  };
}

/** A Hono handler answering `route` with resolveDownload: the Hono writer of an Answer. */
export function dlHandler(services: Services, route: DlRoute, format?: PackageFormat) {
  const respond = dlResponder(services);
  return (c: Context): Promise<Response> => respond(c, dlRequestOf(c, route, format));
}

/**
 * The Hono writer of an Answer: resolves a /dl request made from `c` and writes it. The npm and
 * PyPI registries answer their file URLs with it (a release file's request under their own path).
 */
export function dlResponder(services: Services) {
  const accounting = accountingOf(services);
  const counting = countingOf(services);
  const deps = dlDeps(services, false);
  return async (c: Context, req: DlRequest): Promise<Response> => {
    const answer = await resolveDownload(deps, req);
    if (answer.error) {
      const res = apiErrorResponse(answer.error.code, answer.error.message);
      for (const [name, value] of Object.entries(answer.headers)) res.headers.set(name, value);
      return res;
    }
    const { status, headers, count } = answer;
    const body = req.method === "HEAD" || status === 304 ? undefined : answer.body;
    /** What the answer's bytes add to the owner's month, the statistics and a token's usage. */
    const served = (bytes: number, download: boolean) =>
      countServed(
        accounting,
        servedOf(
          count!,
          { userAgent: req.header("user-agent"), address: clientAddress(c, services.config.trustProxy) },
          bytes,
          download,
          counting,
        ),
      );
    if (count?.issued !== undefined && req.method === "GET") served(count.issued, count.lastByte === true);
    if (!body) return new Response(null, { status, headers });
    const length = body.kind === "blob" ? body.end - body.start + 1 : bodyLength(body);
    const meter =
      count && count.issued === undefined
        ? deliveryMeter(
            c,
            (sent, complete) => served(sent, complete && count.lastByte === true),
            body.kind === "blob" ? length : undefined,
          )
        : undefined;
    if (body.kind === "bytes") {
      meter?.chunk(body.bytes.byteLength);
      meter?.end();
      return new Response(body.bytes as Uint8Array<ArrayBuffer>, { status, headers });
    }
    if (body.kind === "blob") {
      // Read as a range even when whole: the stream then ends at the last byte, without a
      // further read to find the end of the file.
      const source = await body.store.open(
        body.sha256,
        body.size > 0 ? { start: body.start, end: body.end } : undefined,
      );
      return new Response(pullStream(source, undefined, meter), { status, headers });
    }
    const compressed = await body.store.open(body.sha256);
    const source = compressed.pipe(createGunzip());
    compressed.once("error", (error) => source.destroy(error));
    return new Response(
      pullStream(source, () => compressed.destroy(), meter),
      { status, headers },
    );
  };
}

function bodyLength(body: Body): number {
  if (body.kind === "bytes") return body.bytes.byteLength;
  if (body.kind === "blob") return body.end - body.start + 1;
  return body.size;
}

/** Who asked for an answer, as the counts need them. */
export interface Asker {
  userAgent: string | undefined;
  /** The client's address (TRUST_PROXY decides): hashed into the day's machine, never kept. */
  address: string;
}

/** What counting needs of the server: the day's machine hash and the time. */
export interface Counting {
  machines: MachineHash;
  clock: () => Date;
}

export function countingOf(services: Services): Counting {
  return { machines: machineHashOf(services), clock: services.clock };
}

/**
 * What one served GET adds to the owner's month, the project's statistics and an entitlement
 * token's usage: a release file's bytes with who asked (the kind of client from the User-Agent,
 * and the day's machine), an index's or a key's bytes alone. The machine is hashed only when a
 * file or a token's use is counted: an index answer costs no hash.
 */
export function servedOf(
  count: Count,
  asker: Asker,
  bytes: number,
  download: boolean,
  counting: Counting,
): Served {
  const { ownerId, file, entitlement } = count;
  const machine =
    file || entitlement ? counting.machines.of(asker.address, asker.userAgent, counting.clock()) : "";
  const of = entitlement
    ? {
        entitlement: {
          id: entitlement.id,
          machine,
          address: asker.address,
          userAgent: asker.userAgent ?? null,
        },
      }
    : {};
  if (!file) return { ownerId, bytes, ...of };
  const asked = classifyClient(asker.userAgent);
  const distribution = asked.distribution ?? count.distribution;
  return {
    ownerId,
    bytes,
    file,
    download,
    client: asked.client,
    ...(distribution ? { distribution } : {}),
    machine,
    ...of,
  };
}

/**
 * The project a /dl request names, if the caller may see it (visible-project.ts). A request
 * with an entitlement token gets the project when the token reads it (and is within its dates
 * and bytes), else NOT_FOUND; the token is kept on the request for resolveDownload.
 */
export async function dlProject(deps: DlDeps, req: DlRequest) {
  const { services } = deps;
  if (!req.anonymous && !deps.memoryOnly) {
    const credential = credentialFromHeaders(req.headers());
    if (credential !== undefined && isEntitlementToken(credential)) {
      const entitlement = await entitlementChecksOf(services).check(credential);
      const project = await cachedProjectByName(services.database.db, req.username, req.slug);
      if (!project) throw notFound("Project not found");
      assertEntitled(entitlement, { projectId: project.id }, services.clock());
      req.entitled = { entitlement, projectId: project.id };
      return project;
    }
  }
  return projectAsked(deps.services, {
    username: req.username,
    slug: req.slug,
    anonymous: req.anonymous,
    headers: req.headers,
    dl: true,
    memoryOnly: deps.memoryOnly,
  });
}
