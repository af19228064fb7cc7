// The plain-Node reference for bench/upload: a bare Node.js HTTP server with no framework, no
// database and no checks, storing a PUT's body the way an upload must be stored — SHA-256 of
// every byte, written to a file on the same disk in 2 MiB writes (no more read from the socket
// while one is written), fsynced, then answered 201 with the hex digest: what the runtime gives
// the straightforward way. Packyard's upload does more (authorization, the plan check, the
// release and file rows, the blob's rename and directory fsync) on a path tuned for this
// (decision 036: the body read straight from the socket, chunks freed once hashed and written).
//
//   node bench/upload/bare-upload.ts <dir>      → prints "<port>\n" once listening
import { createHash } from "node:crypto";
import { open, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";

const dir = process.argv[2]!;
const BATCH = 2 * 1024 * 1024;
let uploads = 0;

const server = createServer(async (req, res) => {
  if (req.method !== "PUT") {
    res.writeHead(405).end();
    return;
  }
  const path = join(dir, `bare-${process.pid}-${++uploads}.bin`);
  const handle = await open(path, "w", 0o640);
  try {
    const hash = createHash("sha256");
    let batch: Buffer[] = [];
    let batched = 0;
    const flush = async () => {
      const chunks = batch;
      batch = [];
      batched = 0;
      await handle.writev(chunks);
    };
    for await (const chunk of req as AsyncIterable<Buffer>) {
      hash.update(chunk);
      batch.push(chunk);
      batched += chunk.length;
      // The async iterator pulls no more from the socket while a write is awaited.
      if (batched >= BATCH) await flush();
    }
    await flush();
    await handle.sync();
    await handle.close();
    res.writeHead(201, { "content-type": "text/plain" }).end(`${hash.digest("hex")}\n`);
  } catch (error) {
    await handle.close().catch(() => {});
    res.writeHead(500).end(String(error));
  } finally {
    // The next sample stores the file anew, as Packyard's samples do.
    await rm(path, { force: true });
  }
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
