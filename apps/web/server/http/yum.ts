// What dnf fetches from a project's YUM repository: /dl/{u}/{p}/rpm[/{group}]/repodata/… (the
// newest repomd.xml, and checksum-named files of every still-served generation), the signed
// packages under …/packages/, the .repo file, and /dl/{u}/{p}/setup.rpm.sh.
import { type Context, Hono } from "hono";
import { notFound } from "../domain/errors.ts";
import { findVisibleProject } from "../domain/visibility.ts";
import { renderRepoFile, renderRpmSetupScript } from "../repos/yum/setup-script.ts";
import { findYumPackageFile } from "../repos/yum/yum-builder.ts";
import type { Services } from "../services.ts";
import { resolveActor } from "./actor.ts";
import { toApiErrorResponse } from "./api-errors.ts";
import { streamBlob } from "./stream-blob.ts";

export function createYumRoutes(services: Services) {
  const { database, repos, blobs, logger, config } = services;
  const db = database.db;
  const routes = new Hono();
  routes.onError((error) => toApiErrorResponse(error, logger));

  const projectFor = async (c: Context) => {
    const viewer = await resolveActor(services, c.req.raw.headers);
    return findVisibleProject(db, c.req.param("username")!, c.req.param("slug")!, viewer);
  };

  routes.on(["GET", "HEAD"], "/:username/:slug/setup.rpm.sh", async (c) => {
    const project = await projectFor(c);
    const script = renderRpmSetupScript({
      baseUrl: config.baseUrl,
      owner: c.req.param("username"),
      slug: project.slug,
      private: project.visibility === "private",
    });
    return new Response(c.req.method === "HEAD" ? null : script, {
      headers: {
        "content-type": "text/x-shellscript; charset=utf-8",
        "cache-control": "public, max-age=300",
      },
    });
  });

  routes.on(["GET", "HEAD"], "/:username/:slug/rpm/*", async (c) => {
    const project = await projectFor(c);
    const shared = project.visibility === "public";
    const prefix = `/dl/${c.req.param("username")}/${c.req.param("slug")}/rpm/`;
    const rest = decodeURIComponent(c.req.path.slice(c.req.path.indexOf(prefix) + prefix.length));
    const parts = rest.split("/");
    if (parts.some((part) => part === ".." || part === "")) throw notFound();
    // The root repository, or a group: /rpm/<group>/…
    const group =
      parts[0] === "repodata" || parts[0] === "packages" || parts.length === 1 ? "" : parts.shift()!;
    const path = parts.join("/");

    if (path === `${project.slug}.repo`) {
      const text = renderRepoFile({
        baseUrl: config.baseUrl,
        owner: c.req.param("username"),
        slug: project.slug,
        group,
      });
      return new Response(c.req.method === "HEAD" ? null : text, {
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    if (path.startsWith("packages/")) {
      const file = await findYumPackageFile(db, project.id, group, path);
      if (!file) throw notFound("Package not found");
      return streamBlob(
        blobs,
        file.sha256,
        Number(file.size),
        {
          "content-type": "application/x-rpm",
          etag: `"${file.sha256}"`,
          "cache-control": shared ? "public, max-age=31536000, immutable" : "private, no-store",
        },
        c.req.method,
      );
    }
    if (path.startsWith("repodata/")) {
      // repomd.xml and its signature: the newest generation. Every other repodata file is named
      // by its checksum, so any still-served generation may answer for it.
      const file = await repos.currentFile(project.id, "yum", group, path);
      if (!file) throw notFound("Repository file not found");
      const entry = path === "repodata/repomd.xml" || path === "repodata/repomd.xml.asc";
      return streamBlob(
        repos.store,
        file.sha256,
        file.size,
        {
          "content-type": path.endsWith(".gz")
            ? "application/gzip"
            : path.endsWith(".asc")
              ? "application/pgp-signature"
              : "application/xml",
          "cache-control": !shared
            ? "private, no-store"
            : entry
              ? "public, max-age=30, must-revalidate"
              : "public, max-age=31536000, immutable",
        },
        c.req.method,
      );
    }
    throw notFound();
  });

  return routes;
}
