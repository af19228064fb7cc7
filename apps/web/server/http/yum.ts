// What dnf fetches from a project's YUM repository: /dl/{u}/{p}/rpm[/{group}]/repodata/… (the
// newest repomd.xml, its signature from the same generation, and checksum-named files of every
// still-served generation), the signed packages under …/packages/, the .repo file, and
// /dl/{u}/{p}/setup.rpm.sh.
import { type Context, Hono } from "hono";
import { notFound } from "../domain/errors.ts";
import { renderRepoFile, renderRpmSetupScript } from "../publishing/yum/setup-script.ts";
import type { Services } from "../services.ts";
import { cachedCurrentFile, cachedUsernameOf, cachedYumPackageFile, indexBytes } from "../serving/lookups.ts";
import { cacheControl } from "./cache-control.ts";
import { ownerBytesMeter } from "./downloads.ts";
import { bytesResponse, streamBlob } from "./stream-blob.ts";
import { usernameAwareErrors, visibleProject } from "./visible-project.ts";
import { EntryPins, type PinStore, requesterOf, SharedEntryPins } from "./yum-entry-pins.ts";

const REPOMD = "repodata/repomd.xml";
const SIGNATURE = "repodata/repomd.xml.asc";
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The entity tags of an If-Match or If-None-Match list: "*" → "*", W/ kept as a prefix. */
function entityTags(header: string): string[] {
  if (header.trim() === "*") return ["*"];
  return [...header.matchAll(/(W\/)?"([^"]*)"/g)].map((m) => `${m[1] ?? ""}${m[2]}`);
}

export function createYumRoutes(services: Services) {
  const { database, repos, blobs, config } = services;
  const db = database.db;
  const routes = new Hono();
  routes.onError(usernameAwareErrors(services, "/dl"));
  // Several servers share one PostgreSQL database: the pins are shared through it.
  const pins: PinStore =
    services.database.kind === "postgres" ? new SharedEntryPins(services.database.db) : new EntryPins();

  routes.on(["GET", "HEAD"], "/:username/:slug/setup.rpm.sh", async (c) => {
    const project = await visibleProject(services, c);
    const script = renderRpmSetupScript({
      baseUrl: config.baseUrl,
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

  routes.on(["GET", "HEAD"], "/:username/:slug/rpm/*", async (c) => {
    const project = await visibleProject(services, c);
    const shared = project.visibility === "public";
    const prefix = `/dl/${c.req.param("username")}/${c.req.param("slug")}/rpm/`;
    const rest = decodeURIComponent(c.req.path.slice(c.req.path.indexOf(prefix) + prefix.length));
    const parts = rest.split("/");
    if (parts.some((part) => part === ".." || part === "")) throw notFound();
    // The root repository, or a group: /rpm/<group>/…
    const group =
      parts[0] === "repodata" || parts[0] === "packages" || parts.length === 1 ? "" : parts.shift()!;
    const path = parts.join("/");
    // Packages and repodata alike count in the owner's downloaded bytes.
    const meter = () => ownerBytesMeter(services, c, project.owner_id);

    if (path === `${project.slug}.repo`) {
      const text = renderRepoFile({
        baseUrl: config.baseUrl,
        owner: await cachedUsernameOf(db, project.owner_id),
        slug: project.slug,
        group,
      });
      return new Response(c.req.method === "HEAD" ? null : text, {
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    if (path.startsWith("packages/")) {
      const file = await cachedYumPackageFile(db, project.id, group, path);
      if (!file) throw notFound("Package not found");
      return streamBlob(
        blobs,
        file.sha256,
        Number(file.size),
        {
          "content-type": "application/x-rpm",
          etag: `"${file.sha256}"`,
          "cache-control": cacheControl({ kind: "immutable", shared }),
        },
        c.req.method,
        {
          meter: ownerBytesMeter(services, c, project.owner_id, {
            file: { id: file.id, projectId: project.id, version: file.version, filename: file.filename },
            size: Number(file.size),
            ...(group ? { distribution: group } : {}),
          }),
        },
      );
    }
    if (path === REPOMD) {
      // The newest generation's; the requester is remembered so that its signature comes from
      // the same generation even if a publish happens before it is asked for (decision 013).
      const repomd = await repos.servedFile(project.id, "yum", group, REPOMD);
      if (!repomd) throw notFound("Repository file not found");
      await pins.remember(requesterOf(c.env, c.req.raw.headers), `${project.id}/${group}`, repomd);
      const headers = {
        "content-type": "application/xml",
        etag: `"${repomd.sha256}"`,
        "cache-control": cacheControl({ kind: "entry", shared }),
      };
      const ifNoneMatch = c.req.header("if-none-match");
      if (
        ifNoneMatch !== undefined &&
        entityTags(ifNoneMatch).some((tag) => tag === "*" || tag.replace(/^W\//, "") === repomd.sha256)
      )
        return new Response(null, { status: 304, headers });
      const bytes = await indexBytes(db, repos.store, repomd.sha256, repomd.size);
      if (bytes) return bytesResponse(bytes, headers, c.req.method, meter());
      return streamBlob(repos.store, repomd.sha256, repomd.size, headers, c.req.method, { meter: meter() });
    }
    if (path === SIGNATURE) return signature(c, project.owner_id, project.id, group, shared);
    if (path.startsWith("repodata/")) {
      // Every other repodata file is named by its checksum, so any still-served generation may
      // answer for it.
      const file = await cachedCurrentFile(db, repos, project.id, "yum", group, path);
      if (!file) throw notFound("Repository file not found");
      const headers = {
        "content-type": path.endsWith(".gz") ? "application/gzip" : "application/xml",
        "cache-control": cacheControl({ kind: "immutable", shared }),
      };
      const bytes = await indexBytes(db, repos.store, file.sha256, file.size);
      if (bytes) return bytesResponse(bytes, headers, c.req.method, meter());
      return streamBlob(repos.store, file.sha256, file.size, headers, c.req.method, { meter: meter() });
    }
    throw notFound();
  });

  /**
   * repomd.xml.asc of one generation, with the ETag of the repomd.xml it signs. Which one: the
   * generation whose repomd.xml has the sha256 given by `?repomd=` (404 once no longer served)
   * or by If-Match (412), else the one whose repomd.xml this requester was last served (on this
   * connection, then from this address) if still served, else the newest.
   */
  async function signature(c: Context, ownerId: string, projectId: string, group: string, shared: boolean) {
    const named = c.req.query("repomd");
    const ifMatch = c.req.header("if-match");
    // If-Match compares strongly: weak tags never match.
    const wanted = ifMatch === undefined ? undefined : entityTags(ifMatch).filter((t) => !t.startsWith("W/"));
    const listed = wanted && !wanted.includes("*") ? wanted.filter((t) => SHA256_HEX.test(t)) : undefined;
    const preconditionFailed = () =>
      new Response("No repomd.xml with that ETag is served any more: fetch repomd.xml again.\n", {
        status: 412,
        headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
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
      for (const generationId of await pins.generations(
        requesterOf(c.env, c.req.raw.headers),
        `${projectId}/${group}`,
      )) {
        found = await pair({ generationId });
        if (found) break;
      }
      found ??= await pair({});
      if (!found) throw notFound("Repository file not found");
    }
    if (listed && !listed.includes(found.repomd.sha256)) return preconditionFailed();
    return streamBlob(
      repos.store,
      found.file.sha256,
      found.file.size,
      {
        "content-type": "application/pgp-signature",
        etag: `"${found.repomd.sha256}"`,
        // Named by the document it signs, it never changes; otherwise it follows repomd.xml.
        "cache-control": cacheControl({ kind: named !== undefined ? "immutable" : "entry", shared }),
      },
      c.req.method,
      { meter: ownerBytesMeter(services, c, ownerId) },
    );
  }

  return routes;
}
