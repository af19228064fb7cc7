// The log on stderr: pino's destination, written in batches, a warning or an error at once with
// what waited before it, and every line written when the process ends (decision 072). Real
// processes, whose stderr is a pipe the test reads.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createLogger, withLogContext } from "./logger.ts";

const LOGGER = new URL("./logger.ts", import.meta.url).href;

interface Line {
  level: string;
  msg: string;
  time: string;
  i?: number;
  [field: string]: unknown;
}

/**
 * Runs `body` as a module in a new Node process (`log`: a logger at info on stderr) and resolves
 * with what it wrote to stderr, once it has ended, and how it ended.
 */
function runLogging(body: string): Promise<{ stderr: string; code: number | null; signal: string | null }> {
  const source = `const { createLogger } = await import(${JSON.stringify(LOGGER)});\nconst log = createLogger("info");\n${body}`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", source], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ stderr, code, signal }));
  });
}

/** The JSON lines of `text` (Node's own report of an uncaught exception is not one). */
function jsonLines(text: string): Line[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Line);
}

/**
 * Logs many batches of lines, the event loop turning between them (so earlier batches are
 * written while later ones are logged), then `ending` right after the last line.
 */
const manyBatches = (ending: string) => `
let i = 0;
for (let round = 0; round < 20; round++) {
  for (let k = 0; k < 60; k++) log.info("line", { i: i++, pad: "x".repeat(100) });
  await new Promise((resolve) => setImmediate(resolve));
}
for (let k = 0; k < 60; k++) log.info("line", { i: i++, pad: "x".repeat(100) });
${ending}`;
const LOGGED = 21 * 60;

describe("the log on stderr", () => {
  it.each([
    ["process.exit(0) (a stop after SIGTERM)", "process.exit(0);", 0],
    ["an uncaught exception", 'throw new Error("boom");', 1],
    ["the end of the event loop", "", 0],
  ])("has every line logged right before %s, whole and in order", async (_, ending, exitCode) => {
    const { stderr, code } = await runLogging(manyBatches(ending));
    expect(code).toBe(exitCode);
    const lines = jsonLines(stderr);
    expect(lines.map((line) => line.i)).toEqual([...Array(LOGGED).keys()]);
    expect(lines[0]).toMatchObject({ level: "info", msg: "line", pid: expect.any(Number) });
    expect(lines[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    if (exitCode === 1) expect(stderr).toContain("Error: boom");
  });

  it("writes a warning or an error at once, with the lines that waited before it", async () => {
    // SIGKILL runs no JavaScript: only what was already written to stderr survives it.
    const { stderr, signal } = await runLogging(`
log.info("first");
log.warn("careful");
log.info("second");
log.error("failed", new Error("boom"));
log.info("waiting for its batch");
process.kill(process.pid, "SIGKILL");`);
    expect(signal).toBe("SIGKILL");
    const lines = jsonLines(stderr);
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      ["info", "first"],
      ["warn", "careful"],
      ["info", "second"],
      ["error", "failed"],
    ]);
    expect(lines[3]!.err).toMatchObject({ type: "Error", message: "boom" });
  });

  it("writes nothing below its level", async () => {
    const { stderr } = await runLogging(`
const quiet = createLogger("warn");
quiet.info("not written");
quiet.debug("not written");
quiet.warn("written");`);
    expect(jsonLines(stderr).map((line) => line.msg)).toEqual(["written"]);
  });
});

describe("a line logged in a log context", () => {
  it("carries the context's fields, and its own fields win", () => {
    const written: string[] = [];
    const log = createLogger("debug", { write: (line: string) => written.push(line) });
    withLogContext({ reqId: "r-1", job: "publish" }, () => log.debug("working", { job: "sign" }));
    log.info("outside");
    expect(JSON.parse(written[0]!)).toMatchObject({
      level: "debug",
      reqId: "r-1",
      job: "sign",
      msg: "working",
    });
    expect(JSON.parse(written[1]!)).not.toHaveProperty("reqId");
  });
});
