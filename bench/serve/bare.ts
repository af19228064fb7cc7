// The runtime's ceiling for bench/serve: a bare Node.js HTTP server with no framework, answering
// the same URLs as Packyard — index files from memory (res.end of a Buffer), release files
// streamed from the same disk (fs.createReadStream piped to the socket, 1 MiB reads).
//
//   node bench/serve/bare.ts <files.json> <port>
import { createReadStream, readFileSync } from "node:fs";
import { createServer } from "node:http";

const files = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as Record<
  string,
  { url: string; path: string; size: number }
>;
const port = Number(process.argv[3]);
const byUrl = new Map<string, { path: string; size: number; bytes?: Buffer }>();
for (const file of Object.values(files)) {
  byUrl.set(file.url, {
    path: file.path,
    size: file.size,
    bytes: file.size <= 1024 * 1024 && !file.path.endsWith(".bin") ? readFileSync(file.path) : undefined,
  });
}
createServer((req, res) => {
  const file = byUrl.get(req.url ?? "");
  if (!file) {
    res.writeHead(404).end();
    return;
  }
  if (file.bytes) {
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "content-length": file.size });
    res.end(file.bytes);
    return;
  }
  res.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.size });
  createReadStream(file.path, { highWaterMark: 1024 * 1024 }).pipe(res);
}).listen(port, "127.0.0.1", () => process.stdout.write("ready\n"));
