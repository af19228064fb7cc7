// `users set-plan`: the operator's plan, with or without an until date, and its clear errors.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../test/harness.ts";
import { makeTempDir, removeTempDirs } from "../test/temp-dirs.ts";
import { accountPlan, operatorPlan } from "./billing/plan.ts";
import { parseUntil, runCli } from "./cli.ts";

let app: TestApp;
let env: Record<string, string>;
beforeAll(async () => {
  app = await createTestApp();
  const config = app.services.config;
  env = {
    DATA_DIR: app.dataDir,
    SECRET: config.secret,
    LOG_LEVEL: "silent",
    ...(config.database.kind === "postgres" ? { DATABASE_URL: config.database.url } : {}),
  };
});
afterAll(async () => {
  await app?.close();
  removeTempDirs();
});

async function run(argv: string[], extraEnv: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    ["users", "set-plan", ...argv],
    { ...env, ...extraEnv },
    {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    },
  );
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe(`packyard users set-plan (${databaseKind})`, () => {
  it("puts a user on a plan for good, whatever the case of the username", async () => {
    const { userId } = await onboardedUser(app, "operatee");
    const result = await run(["--username", "OperaTee", "--plan", "pro"]);
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(result.out).toContain("operatee is on the Pro plan until you change it");
    expect(await accountPlan(app.services.database.db, userId)).toEqual({ plan: "pro", source: "operator" });
  });

  it("keeps the plan until the end of the given day, then lets it lapse", async () => {
    const { userId } = await onboardedUser(app, "timed");
    const result = await run(["--username", "timed", "--plan", "starter", "--until", "2099-12-31"]);
    expect(result.code).toBe(0);
    expect(result.out).toContain("timed is on the Starter plan through 2099-12-31 (UTC)");
    const db = app.services.database.db;
    const until = new Date("2100-01-01T00:00:00.000Z");
    expect(await operatorPlan(db, userId)).toMatchObject({ plan: "starter", until });
    expect(await accountPlan(db, userId, new Date("2099-12-31T23:59:59Z"))).toEqual({
      plan: "starter",
      source: "operator",
      operatorUntil: until,
    });
    expect(await accountPlan(db, userId, until)).toEqual({ plan: "basic", source: "default" });
  });

  it("changes and clears the operator's plan", async () => {
    const { userId } = await onboardedUser(app, "changing");
    const db = app.services.database.db;
    expect((await run(["--username", "changing", "--plan", "pro"])).code).toBe(0);
    expect((await run(["--username", "changing", "--plan", "basic"])).code).toBe(0);
    expect(await accountPlan(db, userId)).toEqual({ plan: "basic", source: "operator" });
    const cleared = await run(["--username", "changing", "--clear"]);
    expect(cleared.code).toBe(0);
    expect(cleared.out).toContain("Removed the operator's plan of changing; they are on the Basic plan");
    expect(await operatorPlan(db, userId)).toBeUndefined();
    expect((await run(["--username", "changing", "--clear"])).out).toContain("There was no operator's plan");
  });

  it("says when PLAN_LIMITS=off makes plans moot", async () => {
    await onboardedUser(app, "unlimited");
    const result = await run(["--username", "unlimited", "--plan", "starter"], { PLAN_LIMITS: "off" });
    expect(result.code).toBe(0);
    expect(result.out).toContain("PLAN_LIMITS=off");
  });

  it.each([
    [[], 2, "--username is required"],
    [["--username", "x"], 2, "--plan is required: one of basic, starter, pro"],
    [["--username", "x", "--plan", "gold"], 2, '--plan must be one of basic, starter, pro, not "gold"'],
    [["--username", "x", "--plan", "pro", "--until", "tomorrow"], 2, "--until must be a date (YYYY-MM-DD)"],
    [["--username", "x", "--plan", "pro", "--until", "2024-02-30"], 2, "--until must be a date"],
    [["--username", "x", "--plan", "pro", "--until", "2001-01-01"], 2, "--until must be in the future"],
    [["--username", "x", "--clear", "--plan", "pro"], 2, "--clear takes no --plan or --until"],
    [["--username", "x", "--plan"], 2, "Usage: packyard users set-plan"],
    [["--username", "nobody-here", "--plan", "pro"], 1, "no user or organization has the name nobody-here"],
  ])("refuses %j with exit %i and a clear message", async (argv, code, message) => {
    const result = await run(argv as string[]);
    expect(result.code).toBe(code);
    expect(result.err).toContain(message);
  });

  it("reads --until as a day through its end, or an ISO time as is", () => {
    expect(parseUntil("2030-06-15")?.toISOString()).toBe("2030-06-16T00:00:00.000Z");
    expect(parseUntil("2030-06-15T12:00:00Z")?.toISOString()).toBe("2030-06-15T12:00:00.000Z");
    expect(parseUntil("15/06/2030")).toBeUndefined();
  });

  it("runs as a real command through npm run packyard", () => {
    const dataDir = makeTempDir("packyard-cli-");
    const npm = (args: string[]) =>
      execFileSync("npm", ["run", "--silent", "packyard", "--", "users", ...args], {
        cwd: join(import.meta.dirname, ".."),
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", BASE_URL: "", LOG_LEVEL: "silent" },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    try {
      npm(["create", "--email", "plan@example.com", "--username", "planned"]);
      expect(npm(["set-plan", "--username", "planned", "--plan", "starter"])).toContain(
        "planned is on the Starter plan",
      );
    } catch (error) {
      const e = error as { status: number; stderr: string; stdout: string };
      throw new Error(`exit ${e.status}: ${e.stderr} ${e.stdout}`);
    }
  });
});
