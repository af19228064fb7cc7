// The self-hoster's `users create` command: a user it makes can sign in at once.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, postJson, type TestApp } from "../test/harness.ts";
import { makeTempDir, removeTempDirs } from "../test/temp-dirs.ts";
import { runCli } from "./cli.ts";

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

function run(argv: string[], extraEnv: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return runCli(argv, { ...env, ...extraEnv }, { out: (l) => out.push(l), err: (l) => err.push(l) }).then(
    (code) => ({
      code,
      out: out.join("\n"),
      err: err.join("\n"),
    }),
  );
}

describe(`packyard users create (${databaseKind})`, () => {
  it("creates a verified, onboarded user who can sign in with the given password", async () => {
    const result = await run([
      "users",
      "create",
      "--email",
      "Admin@Example.com",
      "--username",
      "admin",
      "--name",
      "Site Admin",
      "--password",
      "a long admin password",
    ]);
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(result.out).toContain("Created user admin <admin@example.com>");
    const signIn = await postJson(app, "/api/auth/sign-in/email", {
      email: "admin@example.com",
      password: "a long admin password",
    });
    expect(signIn.status).toBe(200);
    expect((await signIn.json()).user).toMatchObject({
      emailVerified: true,
      username: "admin",
      name: "Site Admin",
    });
    // No verification mail is needed, so none is sent.
    expect(app.outbox().filter((m) => m.to.includes("admin@example.com"))).toEqual([]);
  });

  it("generates and prints a password when none is given", async () => {
    const result = await run(["users", "create", "--email", "gen@example.com", "--username", "gen"]);
    expect(result.code).toBe(0);
    const password = result.out.match(/Password: (\S+)/)?.[1];
    expect(password).toBeTruthy();
    const signIn = await postJson(app, "/api/auth/sign-in/email", { email: "gen@example.com", password });
    expect(signIn.status).toBe(200);
  });

  it.each([
    [
      ["users", "create", "--email", "nope", "--username", "valid"],
      2,
      "--email: Please enter a valid email address",
    ],
    [
      ["users", "create", "--email", "x@example.com", "--username", "Bad_Name"],
      2,
      "--username: Username must be lowercase letters",
    ],
    [
      ["users", "create", "--email", "x@example.com", "--username", "ok-name", "--password", "short"],
      1,
      "--password must be",
    ],
    [["users", "create", "--email", "admin@example.com", "--username", "other"], 1, "already exists"],
    [["users", "create", "--email", "new@example.com", "--username", "admin"], 1, "already taken"],
    [["users", "delete"], 2, "Usage: packyard users create"],
    [["users", "create", "--bogus"], 2, "Unknown option '--bogus'"],
  ])("refuses %j with exit %i and a clear message", async (argv, code, message) => {
    const result = await run(argv as string[]);
    expect(result.code).toBe(code);
    expect(result.err).toContain(message);
  });

  it("refuses a name held after a rename, like onboarding does", async () => {
    const db = app.services.database.db;
    const owner = await db
      .selectFrom("user")
      .select("id")
      .where("username", "=", "admin")
      .executeTakeFirstOrThrow();
    await db
      .insertInto("username_history")
      .values({
        name_key: "old-admin",
        username: "old-admin",
        user_id: owner.id,
        released_at: new Date().toISOString(),
      })
      .execute();
    const result = await run(["users", "create", "--email", "held@example.com", "--username", "old-admin"]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("the username old-admin is already taken");
  });

  it("names a bad configuration variable", async () => {
    const result = await run(["users", "create", "--email", "c@example.com", "--username", "cfg"], {
      PORT: "nope",
    });
    expect(result.code).toBe(78);
    expect(result.err).toContain("PORT:");
  });

  it("runs as a real command through npm run packyard", () => {
    const dataDir = makeTempDir("packyard-cli-");
    let output = "";
    try {
      output = execFileSync(
        "npm",
        [
          "run",
          "--silent",
          "packyard",
          "--",
          "users",
          "create",
          "--email",
          "cmd@example.com",
          "--username",
          "cmd",
        ],
        {
          cwd: join(import.meta.dirname, ".."),
          env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", BASE_URL: "", LOG_LEVEL: "silent" },
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
    } catch (error) {
      const e = error as { status: number; stderr: string; stdout: string };
      throw new Error(`exit ${e.status}: ${e.stderr} ${e.stdout}`);
    }
    expect(output).toContain("Created user cmd <cmd@example.com>");
  });
});
