// The V8 flags of decision 071 live on the command line that starts the server, so every way of
// starting it in production must carry the same ones: `npm start` (the root's and this
// workspace's) and the systemd unit in docs/self-hosting.md. The tests' server processes, the
// e2e server and the benchmarks take them from START_NODE_FLAGS.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { START_NODE_FLAGS } from "./test/server-process.ts";

const repo = join(import.meta.dirname, "..", "..");
const startScript = (path: string) =>
  (JSON.parse(readFileSync(join(repo, path), "utf8")) as { scripts: { start: string } }).scripts.start;

describe("the server's start commands", () => {
  const flags = START_NODE_FLAGS.join(" ");

  it("npm start runs the server with the V8 flags, at the root and in apps/web", () => {
    expect(startScript("package.json")).toContain(`node ${flags} apps/web/server/main.ts`);
    expect(startScript("apps/web/package.json")).toContain(`node ${flags} server/main.ts`);
  });

  it("the systemd unit in docs/self-hosting.md runs the server with the same flags", () => {
    const doc = readFileSync(join(repo, "docs/self-hosting.md"), "utf8");
    expect(doc).toContain(`ExecStart=/opt/packyard/node_modules/.bin/node ${flags} apps/web/server/main.ts`);
  });

  it("this Node accepts the flags on its command line", () => {
    // A flag V8 no longer knows stops Node at start ("bad option"), which would stop the server.
    const out = execFileSync(process.execPath, [...START_NODE_FLAGS, "-e", "console.log('ok')"], {
      encoding: "utf8",
    });
    expect(out.trim()).toBe("ok");
  });
});
