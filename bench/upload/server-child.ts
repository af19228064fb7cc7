// The Packyard side of the upload benchmark, in its own process so its memory and CPU can be
// read from /proc/<pid> without the driver's in them. Started by run.ts with IPC:
//
//   node bench/upload/server-child.ts <dataDir>
//
// Starts the real server (startLiveServer: HTTP on loopback, SQLite, local disk blobs under
// <dataDir>, plan limits on) and a publisher with a public project, sends {url, token, slug},
// then answers:
//   {cmd:"digests"} → waits until the digests the uploads left for later are filled in
//                     (releases/blob-digests.ts), reports how long that took
//   {cmd:"stop"}
import { publisher, startLiveServer } from "../../apps/web/test/live-server.ts";

// Before decision 036 (an older commit, for comparison) there is nothing to wait for.
const digestFillsSettled: () => Promise<void> = await import(
  "../../apps/web/server/releases/blob-digests.ts"
).then(
  (m: { digestFillsSettled: () => Promise<void> }) => m.digestFillsSettled,
  () => async () => {},
);

const [dataDir] = process.argv.slice(2);
const server = await startLiveServer({ DATA_DIR: dataDir!, LOG_LEVEL: "warn" });
const pub = await publisher(server, "bench");
const created = await pub.api("/api/v1/projects", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ slug: "big", name: "big", visibility: "public" }),
});
if (created.status !== 201) throw new Error(`project: ${created.status} ${await created.text()}`);
// The start-up housekeeping pass, so that it does not run during the first sample.
await server.maintenance.started;

process.on("message", async (message: { cmd: string }) => {
  if (message.cmd === "digests") {
    const started = performance.now();
    await digestFillsSettled();
    process.send!({ ok: true, ms: performance.now() - started });
  } else if (message.cmd === "stop") {
    await server.close();
    process.exit(0);
  }
});
process.send!({ url: server.url, token: pub.token, slug: "big" });
