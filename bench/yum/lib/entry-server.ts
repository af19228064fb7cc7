// The server side of bench/yum/entry-consistency.ts, in its own process: serves a data directory
// seeded by bench/lib/packyard-child.ts, and on each {cmd:"toggle"} over IPC yanks or unyanks
// release 1.0.1 in process — the domain call the API route makes, publish included, answered once
// the new generation is live. In process because the benchmark publishes thousands of times, and
// the API key's rate limit (5,000 requests, reset only after a quiet minute) would stop it.
//
//   node bench/yum/lib/entry-server.ts <dataDir> <state.json>      (forked, IPC)
import { readFileSync } from "node:fs";
import { requireRelease, setYanked } from "../../../apps/web/server/releases/storage.ts";
import { startLiveServer } from "../../../apps/web/test/live-server.ts";
import type { SeedState } from "../../lib/packyard-child.ts";

const [dataDir, stateFile] = process.argv.slice(2);
const state = JSON.parse(readFileSync(stateFile!, "utf8")) as SeedState;
const server = await startLiveServer({ DATA_DIR: dataDir!, LOG_LEVEL: "warn" });
const db = server.services.database.db;
let yanked = false;
const send = (message: unknown) => process.send!(message);

process.on("message", async (message: { cmd: string }) => {
  try {
    if (message.cmd === "toggle") {
      const release = await requireRelease(db, state.projectId, "1.0.1");
      await setYanked(db, release, yanked ? null : { reason: "bench" });
      yanked = !yanked;
      send({ ok: true });
    } else if (message.cmd === "stop") {
      await server.close();
      send({ ok: true });
      process.exit(0);
    }
  } catch (error) {
    send({ ok: false, error: String((error as Error).stack ?? error) });
  }
});
process.on("disconnect", () => process.exit(1));
send({ ok: true, url: server.url });
