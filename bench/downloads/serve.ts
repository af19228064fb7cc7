// The server side of the download benchmark, run inside the tree being measured: the real
// server (startLiveServer: @hono/node-server, SQLite, local blobs) with a public project holding
// one file of --size bytes, uploaded through the real API. Prints {"url","file","pid"} on stdout,
// then serves until stdin closes. Logs go to stderr at LOG_LEVEL (default info), as in production.
//
//   node bench/downloads/serve.ts <size-bytes>
import { type LiveServer, publisher, startLiveServer } from "../../apps/web/test/live-server.ts";

const size = Number(process.argv[2] ?? 1024 * 1024);
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
const bytes = new Uint8Array(size).map((_, i) => (i * 31) % 251);
const put = await pub.api("/api/v1/projects/files/releases/1.0.0/files/payload.bin", {
  method: "PUT",
  body: bytes,
});
if (put.status !== 201) throw new Error(`upload: ${put.status} ${await put.text()}`);
const file = `${server.url}/dl/bench/files/releases/1.0.0/payload.bin`;
const check = await fetch(file);
if ((await check.arrayBuffer()).byteLength !== size) throw new Error("the download is not the file");
process.stdout.write(`${JSON.stringify({ url: server.url, file, pid: process.pid })}\n`);
process.stdin.resume();
process.stdin.on("end", () => {
  server.close().then(() => process.exit(0));
});
