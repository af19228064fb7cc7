import { rpmVersionCompare } from "@packyard/formats/rpm/rpm-version-compare.ts";
import { type Answer, type Body, type DlDeps, type DlRequest, dlProject } from "../../downloads/dl-answer.ts";
import {
  cachedCurrentFile,
  cachedUsernameOf,
  cachedYumPackageFile,
  indexBytes,
  NotInMemory,
} from "../../downloads/lookups.ts";
import { filteredYumRepodata } from "../../entitlements/filtered-yum.ts";
import { assertEntitled } from "../../platform/core/authorization.ts";
import { notFound } from "../../platform/core/errors.ts";
import { cacheControl } from "../../platform/http/cache-control.ts";
import { renderRepoFile } from "./setup-script.ts";

const REPOMD = "repodata/repomd.xml";
const SIGNATURE = "repodata/repomd.xml.asc";
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The entity tags of an If-Match or If-None-Match list: "*" → "*", W/ kept as a prefix. */
function entityTags(header: string): string[] {
  if (header.trim() === "*") return ["*"];
  return [...header.matchAll(/(W\/)?"([^"]*)"/g)].map((m) => `${m[1] ?? ""}${m[2]}`);
}

const RPM_ROUTE = "/dl/:username/:slug/rpm/*";

/** A file of the YUM repository (or a group's): the .repo file, a package, repodata. */
export async function resolveYumFile(deps: DlDeps, req: DlRequest): Promise<Answer> {
  const { services, memoryOnly, pins } = deps;
  const { repos, blobs, config } = services;
  const db = services.database.db;
  const project = await dlProject(deps, req);
  const shared = project.visibility === "public";
  const parts = req.params.rest!.split("/");
  if (parts.some((part) => part === ".." || part === "")) throw notFound();
  // The root repository, or a group: /rpm/<group>/…
  const group =
    parts[0] === "repodata" || parts[0] === "packages" || parts.length === 1 ? "" : parts.shift()!;
  const path = parts.join("/");
  // An entitlement token limited to groups reads nothing else of the repository, before any
  // answer is made (repomd.xml pins its requester).
  if (req.entitled)
    assertEntitled(req.entitled.entitlement, { projectId: project.id, group }, services.clock());
  // Packages and repodata alike count in the owner's downloaded bytes.
  const count = { ownerId: project.owner_id };
  const answer = (headers: Record<string, string>, body: Body, extra: Partial<Answer> = {}): Answer => ({
    route: RPM_ROUTE,
    status: 200,
    headers,
    body,
    count,
    ...extra,
  });
  /** A stored repodata file: from memory when small enough, else streamed. */
  const stored = async (file: { sha256: string; size: number }, headers: Record<string, string>) => {
    const bytes = await indexBytes(db, repos.store, file.sha256, file.size, memoryOnly);
    if (bytes)
      return answer(
        { ...headers, "content-length": String(bytes.byteLength) },
        { kind: "bytes", bytes, sha256: file.sha256 },
        { reusable: req.anonymous },
      );
    return answer(
      { "content-length": String(file.size), ...headers },
      {
        kind: "blob",
        store: repos.store,
        sha256: file.sha256,
        size: file.size,
        start: 0,
        end: file.size - 1,
      },
    );
  };

  if (path === `${project.slug}.repo`) {
    const text = renderRepoFile({
      baseUrl: config.baseUrl,
      owner: await cachedUsernameOf(db, project.owner_id, memoryOnly),
      slug: project.slug,
      group,
    });
    return {
      route: RPM_ROUTE,
      status: 200,
      headers: { "content-type": "text/plain; charset=utf-8" },
      body: { kind: "bytes", bytes: Buffer.from(text) },
    };
  }
  if (path.startsWith("packages/")) {
    const file = await cachedYumPackageFile(db, project.id, group, path, memoryOnly);
    if (!file) throw notFound("Package not found");
    const size = Number(file.size);
    return answer(
      {
        "content-length": String(size),
        "content-type": "application/x-rpm",
        etag: `"${file.sha256}"`,
        "cache-control": cacheControl({ kind: "immutable", shared }),
      },
      { kind: "blob", store: blobs, sha256: file.sha256, size, start: 0, end: size - 1 },
      {
        count: {
          ...count,
          file: { id: file.id, projectId: project.id, version: file.version, filename: file.filename },
          ...(group ? { distribution: group } : {}),
          lastByte: true,
        },
        entitled: { group, version: { value: file.package_version, compare: rpmVersionCompare }, file: true },
      },
    );
  }
  // repomd.xml and its signature follow the requester (entry pins): never from memory alone.
  if ((path === REPOMD || path === SIGNATURE) && memoryOnly) throw new NotInMemory();
  // A token with a version range reads repodata without the versions it may not install.
  const range = req.entitled?.entitlement.versionRange;
  if (range && path.startsWith("repodata/")) {
    const pinned = `${project.id}/${group}`;
    // The generations whose repodata may answer: the pinned ones (the requester's repomd.xml)
    // for the signature and the files it names, then the newest.
    const candidates: { sha256: string; generationId: string }[] = [];
    if (path !== REPOMD)
      for (const generationId of await pins.generations(req.requester(), pinned)) {
        const repomd = await repos.servedFile(project.id, "yum", group, REPOMD, { generationId });
        if (repomd) candidates.push(repomd);
      }
    const newest = await repos.servedFile(project.id, "yum", group, REPOMD);
    if (newest) candidates.push(newest);
    if (path === REPOMD && newest) await pins.remember(req.requester(), pinned, newest);
    for (const repomd of path === REPOMD ? candidates.slice(-1) : candidates) {
      const bytes = (await filteredYumRepodata(services, project, repomd, range)).files.get(path);
      if (!bytes) continue;
      return answer(
        {
          "content-type": path.endsWith(".asc")
            ? "application/pgp-signature"
            : path.endsWith(".gz")
              ? "application/gzip"
              : "application/xml",
          "content-length": String(bytes.byteLength),
          // This customer's view of the repository: never kept by a shared cache.
          "cache-control": cacheControl({
            kind: path === REPOMD || path === SIGNATURE ? "entry" : "immutable",
            shared: false,
          }),
        },
        { kind: "bytes", bytes },
      );
    }
    throw notFound("Repository file not found");
  }
  if (path === REPOMD) {
    // The newest generation's; the requester is remembered so that its signature comes from
    // the same generation even if a publish happens before it is asked for (decision 013).
    const repomd = await repos.servedFile(project.id, "yum", group, REPOMD);
    if (!repomd) throw notFound("Repository file not found");
    await pins.remember(req.requester(), `${project.id}/${group}`, repomd);
    const headers = {
      "content-type": "application/xml",
      etag: `"${repomd.sha256}"`,
      "cache-control": cacheControl({ kind: "entry", shared }),
    };
    const ifNoneMatch = req.header("if-none-match");
    if (
      ifNoneMatch !== undefined &&
      entityTags(ifNoneMatch).some((tag) => tag === "*" || tag.replace(/^W\//, "") === repomd.sha256)
    )
      return { route: RPM_ROUTE, status: 304, headers };
    // Not reusable: the answer also pins its requester.
    return { ...(await stored(repomd, headers)), reusable: false };
  }
  if (path === SIGNATURE) return signature(deps, req, project.owner_id, project.id, group, shared);
  if (path.startsWith("repodata/")) {
    // Every other repodata file is named by its checksum, so any still-served generation may
    // answer for it.
    const file = await cachedCurrentFile(db, repos, project.id, "yum", group, path, memoryOnly);
    if (!file) throw notFound("Repository file not found");
    return stored(file, {
      "content-type": path.endsWith(".gz") ? "application/gzip" : "application/xml",
      "cache-control": cacheControl({ kind: "immutable", shared }),
    });
  }
  throw notFound();
}

/**
 * repomd.xml.asc of one generation, with the ETag of the repomd.xml it signs. Which one: the
 * generation whose repomd.xml has the sha256 given by `?repomd=` (404 once no longer served)
 * or by If-Match (412), else the one whose repomd.xml this requester was last served (on this
 * connection, then from this address) if still served, else the newest.
 */
async function signature(
  { services, pins }: DlDeps,
  req: DlRequest,
  ownerId: string,
  projectId: string,
  group: string,
  shared: boolean,
): Promise<Answer> {
  const { repos } = services;
  const named = req.query("repomd");
  const ifMatch = req.header("if-match");
  // If-Match compares strongly: weak tags never match.
  const wanted = ifMatch === undefined ? undefined : entityTags(ifMatch).filter((t) => !t.startsWith("W/"));
  const listed = wanted && !wanted.includes("*") ? wanted.filter((t) => SHA256_HEX.test(t)) : undefined;
  const preconditionFailed = (): Answer => ({
    route: RPM_ROUTE,
    status: 412,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
    body: {
      kind: "bytes",
      bytes: Buffer.from("No repomd.xml with that ETag is served any more: fetch repomd.xml again.\n"),
    },
  });

  const pair = async (of: { generationId?: string; sha256?: readonly string[] }) => {
    const repomd = await repos.servedFile(projectId, "yum", group, REPOMD, of);
    const file = repomd && (await repos.fileInGeneration(repomd.generationId, SIGNATURE));
    return repomd && file ? { repomd, file } : undefined;
  };
  let found: Awaited<ReturnType<typeof pair>>;
  if (named !== undefined) {
    if (!SHA256_HEX.test(named)) throw notFound("Repository file not found");
    found = await pair({ sha256: [named] });
    if (!found) throw notFound("That repomd.xml is no longer served");
  } else if (listed) {
    found = await pair({ sha256: listed });
    if (!found) return preconditionFailed();
  } else {
    for (const generationId of await pins.generations(req.requester(), `${projectId}/${group}`)) {
      found = await pair({ generationId });
      if (found) break;
    }
    found ??= await pair({});
    if (!found) throw notFound("Repository file not found");
  }
  if (listed && !listed.includes(found.repomd.sha256)) return preconditionFailed();
  const { sha256, size } = found.file;
  return {
    route: RPM_ROUTE,
    status: 200,
    headers: {
      "content-length": String(size),
      "content-type": "application/pgp-signature",
      etag: `"${found.repomd.sha256}"`,
      // Named by the document it signs, it never changes; otherwise it follows repomd.xml.
      "cache-control": cacheControl({ kind: named !== undefined ? "immutable" : "entry", shared }),
    },
    body: { kind: "blob", store: repos.store, sha256, size, start: 0, end: size - 1 },
    count: { ownerId },
  };
}
