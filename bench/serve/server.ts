// The Packyard side of bench/serve, run inside the tree being measured: the real server
// (startLiveServer in production mode: @hono/node-server, SQLite, local blobs, request log at
// info to stderr) with a public project holding a 1 MiB and a 100 MiB release file and a few
// .deb packages (so its APT repository has an InRelease), all uploaded through the real API.
// Prints one JSON line (URLs, the files' paths on disk, the pid), then serves until stdin closes.
//
//   node bench/serve/server.ts <workDir>
import { randomFillSync } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { type LiveServer, publisher, startLiveServer } from "../../apps/web/test/live-server.ts";
import { writeBenchDebs } from "../apt/lib/debs.ts";

const workDir = process.argv[2]!;
mkdirSync(workDir, { recursive: true });
const server: LiveServer = await startLiveServer({
  LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
  NODE_ENV: "production",
});
const pub = await publisher(server, "bench");
const created = await pub.api("/api/v1/projects", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ slug: "files", name: "files", visibility: "public" }),
});
if (created.status !== 201) throw new Error(`project: ${created.status} ${await created.text()}`);

const files: Record<string, { url: string; path: string; size: number }> = {};
for (const [name, size] of [
  ["payload-1m.bin", 1024 * 1024],
  ["payload-100m.bin", 100 * 1024 * 1024],
] as const) {
  const bytes = randomFillSync(Buffer.alloc(size));
  const put = await pub.api(`/api/v1/projects/files/releases/1.0.0/files/${name}`, {
    method: "PUT",
    body: bytes,
  });
  if (put.status !== 201) throw new Error(`upload: ${put.status} ${await put.text()}`);
  const { file } = (await put.json()) as { file: { sha256: string } };
  const path = join(workDir, name);
  writeFileSync(path, bytes);
  files[name] = { url: `/dl/bench/files/releases/1.0.0/${name}`, path, size, ...{ sha256: file.sha256 } };
}

const debDir = join(workDir, "debs");
for (const deb of writeBenchDebs(debDir, 20)) {
  const { readFileSync } = await import("node:fs");
  const put = await pub.api(`/api/v1/projects/files/releases/${deb.version}/files/${deb.filename}`, {
    method: "PUT",
    body: readFileSync(deb.path),
  });
  if (put.status !== 201) throw new Error(`deb upload: ${put.status} ${await put.text()}`);
}
// The repository is published after the uploads; wait until its InRelease lists all 20.
const inRelease = "/dl/bench/files/deb/dists/stable/InRelease";
const packages = "/dl/bench/files/deb/dists/stable/main/binary-amd64/Packages.gz";
for (let i = 0; ; i++) {
  const res = await fetch(`${server.url}${packages}`);
  if (res.status === 200) {
    const text = Buffer.from(await res.arrayBuffer());
    const { gunzipSync } = await import("node:zlib");
    if (
      (gunzipSync(text)
        .toString()
        .match(/^Package: /gm)?.length ?? 0) >= 20
    )
      break;
  }
  if (i > 600) throw new Error(`the repository was not published: ${res.status}`);
  await new Promise((r) => setTimeout(r, 100));
}
for (const [name, url] of [
  ["InRelease", inRelease],
  ["Packages.gz", packages],
] as const) {
  const bytes = Buffer.from(await (await fetch(`${server.url}${url}`)).arrayBuffer());
  const path = join(workDir, name);
  writeFileSync(path, bytes);
  files[name] = { url, path, size: bytes.byteLength };
}
// CPU_PROFILE=<file>: a V8 CPU profile of the serving only (after the set-up above).
const profile = process.env.CPU_PROFILE ? new Session() : undefined;
if (profile) {
  profile.connect();
  await profile.post("Profiler.enable");
  await profile.post("Profiler.start");
}
process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid, files })}\n`);
process.stdin.resume();
process.stdin.on("end", async () => {
  if (profile) {
    const { profile: data } = await profile.post("Profiler.stop");
    writeFileSync(process.env.CPU_PROFILE!, JSON.stringify(data));
  }
  server.close().then(() => process.exit(0));
});
