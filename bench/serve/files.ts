// What bench/serve serves: a public project of a user made with the self-hoster CLI, holding a
// 1 MiB and a 100 MiB release file (random bytes) and 20 small .deb packages (so its APT
// repository has an InRelease and a Packages.gz), all uploaded through Packyard's API. Returns
// each file's URL, size and a copy on the same disk for nginx and the bare Node server.
import { randomFillSync } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { signedInCliUser } from "../../apps/web/test/server-process.ts";
import { writeBenchDebs } from "../apt/lib/debs.ts";

export type ServedFiles = Record<string, { url: string; path: string; size: number }>;

/**
 * The files, and an entitlement token of the project (issue 40's line: the same download with a
 * customer's token, which /dl checks on every request).
 */
export async function uploadFiles(
  url: string,
  dataDir: string,
  dir: string,
): Promise<{ files: ServedFiles; entitlementToken: string }> {
  mkdirSync(dir, { recursive: true });
  const session = await signedInCliUser({ url, dataDir }, "bench");
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, {
      ...init,
      headers: { cookie: session.cookie, origin: session.origin, ...(init.headers ?? {}) },
    });
  const created = await api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "files", name: "files", visibility: "public" }),
  });
  if (created.status !== 201) throw new Error(`project: ${created.status} ${await created.text()}`);

  const files: ServedFiles = {};
  for (const [name, size] of [
    ["payload-1m.bin", 1024 * 1024],
    ["payload-100m.bin", 100 * 1024 * 1024],
  ] as const) {
    const bytes = randomFillSync(Buffer.alloc(size));
    const put = await api(`/api/v1/projects/files/releases/1.0.0/files/${name}`, {
      method: "PUT",
      body: bytes,
    });
    if (put.status !== 201) throw new Error(`upload: ${put.status} ${await put.text()}`);
    const path = join(dir, name);
    writeFileSync(path, bytes);
    files[name] = { url: `/dl/bench/files/releases/1.0.0/${name}`, path, size };
  }
  for (const deb of writeBenchDebs(join(dir, "debs"), 20)) {
    const put = await api(`/api/v1/projects/files/releases/${deb.version}/files/${deb.filename}`, {
      method: "PUT",
      body: readFileSync(deb.path),
    });
    if (put.status !== 201) throw new Error(`deb upload: ${put.status} ${await put.text()}`);
  }
  // The repository is published after the uploads: wait until Packages lists all 20.
  const inRelease = "/dl/bench/files/deb/dists/stable/InRelease";
  const packages = "/dl/bench/files/deb/dists/stable/main/binary-amd64/Packages.gz";
  for (let i = 0; ; i++) {
    const res = await fetch(`${url}${packages}`);
    if (res.status === 200) {
      const text = gunzipSync(Buffer.from(await res.arrayBuffer())).toString();
      if ((text.match(/^Package: /gm)?.length ?? 0) >= 20) break;
    }
    if (i > 600) throw new Error(`the repository was not published: ${res.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const [name, path] of [
    ["InRelease", inRelease],
    ["Packages.gz", packages],
  ] as const) {
    const bytes = Buffer.from(await (await fetch(`${url}${path}`)).arrayBuffer());
    writeFileSync(join(dir, name), bytes);
    files[name] = { url: path, path: join(dir, name), size: bytes.byteLength };
  }
  const token = await api("/api/v1/projects/files/entitlements", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "bench customer" }),
  });
  if (token.status !== 201) throw new Error(`entitlement token: ${token.status} ${await token.text()}`);
  return { files, entitlementToken: ((await token.json()) as { token: string }).token };
}
