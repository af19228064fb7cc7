// better-auth's lines go through Packyard's logger: the server's stderr stays one JSON object
// per line, with no colour codes, even when the terminal would take colours (decision 066).
import { createLogger as betterAuthLogger } from "@better-auth/core/env";
import { afterEach, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "../../test/server-process.ts";
import { createLogger } from "../platform/observability/logger.ts";
import { authLogger } from "./auth-log.ts";

let server: ServerProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("better-auth's log lines", () => {
  it("an invalid API key writes one JSON line with better-auth's message and no ANSI escape", async () => {
    // FORCE_COLOR: better-auth's own console logger would colour its lines.
    server = await startServerProcess({ LOG_LEVEL: "info", FORCE_COLOR: "1" });
    const response = await fetch(`${server.url}/api/v1/projects`, {
      headers: { authorization: "Bearer pky_notARealKeyNotARealKeyNotARealKey" },
    });
    expect(response.status).toBe(401);
    // Stopped, so that every batched line is written.
    expect(await server.stop()).toBe(0);
    const output = server.output();
    expect(output).not.toContain("\u001b");
    const lines = output.split("\n").filter((line) => line.trim() !== "");
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const authLines = records.filter((record) => String(record.msg).startsWith("better-auth:"));
    expect(authLines).toEqual([
      expect.objectContaining({
        level: "info",
        msg: "better-auth: Failed to validate API key",
        status: 401,
        code: "INVALID_API_KEY",
      }),
    ]);
  });

  it("a failure of the server stays an error line with the error; LOG_LEVEL=silent writes none", () => {
    const written: string[] = [];
    const destination = { write: (line: string) => void written.push(line) };
    // better-auth's logger, as better-auth makes it from the option.
    const log = betterAuthLogger(authLogger(createLogger("info", destination), "info"));
    log.error("Failed to delete expired API keys:", new Error("database is locked"));
    log.info("Sign-up attempt for existing email: someone@example.com");
    const lines = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        level: "error",
        msg: "better-auth: Failed to delete expired API keys",
        err: expect.objectContaining({ type: "Error", message: "database is locked" }),
      }),
    ]);
    expect(authLogger(createLogger("info", destination), "silent")).toEqual({ disabled: true });
  });
});
