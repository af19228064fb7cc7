// A package format's /dl routes: /dl/{u}/{p}/{routePrefix}/… (what its clients fetch) and
// /dl/{u}/{p}/setup.{routePrefix}.sh, answered by resolveDownload (downloads/dl-answer.ts) through
// the format's resolvers.
import { Hono } from "hono";
import { dlHandler } from "../downloads/dl-answer.ts";
import { usernameAwareErrors } from "../projects/visible.ts";
import type { Services } from "../services.ts";
import type { PackageFormat } from "./format.ts";

export function createFormatRoutes(services: Services, format: PackageFormat) {
  const routes = new Hono();
  routes.onError(usernameAwareErrors(services, "/dl"));
  const prefix = format.routePrefix;
  routes.on(
    ["GET", "HEAD"],
    `/:username/:slug/setup.${prefix}.sh`,
    dlHandler(services, "setupScript", format),
  );
  routes.on(["GET", "HEAD"], `/:username/:slug/${prefix}/*`, dlHandler(services, "package", format));
  return routes;
}
