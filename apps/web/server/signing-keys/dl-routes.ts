// A project's public repository keys, for apt and dnf alike: /dl/{u}/{p}/gpg.key (armored) and
// /dl/{u}/{p}/keyring.gpg (binary). Every key that signs now, so machines keep trusting the
// repository through a rotation's overlap. gpg.key (what dnf imports) also serves a retired key
// while a served .rpm still carries its signature, until the resign-rpms job re-signed it
// (decision 030).
import { buildArmoredKeyring, buildBinaryKeyring } from "@packyard/formats/openpgp/index.ts";
import { Hono } from "hono";
import { type Answer, type DlDeps, type DlRequest, dlHandler, dlProject } from "../downloads/dl-answer.ts";
import { verifyingKeys } from "../formats/registry.ts";
import { cacheControl } from "../platform/http/cache-control.ts";
import { usernameAwareErrors } from "../projects/visible.ts";
import type { Services } from "../services.ts";

export function createSigningKeyRoutes(services: Services) {
  const routes = new Hono();
  routes.onError(usernameAwareErrors(services, "/dl"));
  routes.on(["GET", "HEAD"], "/:username/:slug/gpg.key", dlHandler(services, "gpgKey"));
  routes.on(["GET", "HEAD"], "/:username/:slug/keyring.gpg", dlHandler(services, "keyring"));
  return routes;
}

export async function resolveArmoredKeys(deps: DlDeps, req: DlRequest): Promise<Answer> {
  const { services } = deps;
  const project = await dlProject(deps, req);
  const rows = await verifyingKeys({ db: services.database.db, keys: services.keys }, project);
  const text = await buildArmoredKeyring(rows.map((r) => r.public_key));
  return {
    route: "/dl/:username/:slug/gpg.key",
    status: 200,
    headers: {
      "content-type": "application/pgp-keys",
      "cache-control": cacheControl({ kind: "script", shared: project.visibility === "public" }),
    },
    body: { kind: "bytes", bytes: Buffer.from(text) },
  };
}

export async function resolveBinaryKeyring(deps: DlDeps, req: DlRequest): Promise<Answer> {
  const project = await dlProject(deps, req);
  const { rows } = await deps.services.keys.active(project);
  const bytes = await buildBinaryKeyring(rows.map((r) => r.public_key));
  return {
    route: "/dl/:username/:slug/keyring.gpg",
    status: 200,
    headers: {
      "content-type": "application/pgp-keys",
      "content-length": String(bytes.byteLength),
      "cache-control": cacheControl({ kind: "script", shared: project.visibility === "public" }),
    },
    body: { kind: "bytes", bytes },
  };
}
