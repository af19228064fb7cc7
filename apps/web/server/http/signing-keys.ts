// A project's public repository keys, for apt and dnf alike: /dl/{u}/{p}/gpg.key (armored) and
// /dl/{u}/{p}/keyring.gpg (binary). Every key that signs now, so machines keep trusting the
// repository through a rotation's overlap. gpg.key (what dnf imports) also serves a retired key
// while a served .rpm still carries its signature, until the resign-rpms job re-signed it
// (decision 030).
import { buildArmoredKeyring, buildBinaryKeyring } from "@packyard/formats/openpgp/index.ts";
import { Hono } from "hono";
import { rpmVerifyingKeys } from "../publishing/yum/resign-rpms.ts";
import type { Services } from "../services.ts";
import { cacheControl } from "./cache-control.ts";
import { usernameAwareErrors, visibleProject } from "./visible-project.ts";

export function createSigningKeyRoutes(services: Services) {
  const { keys } = services;
  const routes = new Hono();
  routes.onError(usernameAwareErrors(services, "/dl"));

  routes.on(["GET", "HEAD"], "/:username/:slug/gpg.key", async (c) => {
    const project = await visibleProject(services, c);
    const rows = await rpmVerifyingKeys({ db: services.database.db, keys }, project);
    const text = await buildArmoredKeyring(rows.map((r) => r.public_key));
    return new Response(c.req.method === "HEAD" ? null : text, {
      headers: {
        "content-type": "application/pgp-keys",
        "cache-control": cacheControl({ kind: "script", shared: project.visibility === "public" }),
      },
    });
  });

  routes.on(["GET", "HEAD"], "/:username/:slug/keyring.gpg", async (c) => {
    const project = await visibleProject(services, c);
    const { rows } = await keys.active(project);
    const bytes = await buildBinaryKeyring(rows.map((r) => r.public_key));
    return new Response(c.req.method === "HEAD" ? null : Buffer.from(bytes), {
      headers: {
        "content-type": "application/pgp-keys",
        "content-length": String(bytes.byteLength),
        "cache-control": cacheControl({ kind: "script", shared: project.visibility === "public" }),
      },
    });
  });

  return routes;
}
