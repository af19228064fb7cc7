// Packyard's production entry point for a bench (startServerProcess: embedded mode,
// PLAN_LIMITS=off) with a user made through the CLI, a publish key for all its projects made
// through the API, and one public project.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { PROCESS_TEST_SECRET, startServerProcess } from "../../apps/web/test/server-process.ts";

const webDir = resolve(import.meta.dirname, "../../apps/web");

export async function startPackyardWithProject(project: { slug: string; name: string }) {
  const server = await startServerProcess({ PLAN_LIMITS: "off" });
  const url = server.url;
  const password = "a long bench password";
  execFileSync(
    process.execPath,
    [
      "server/cli.ts",
      "users",
      "create",
      "--email",
      "bench@example.com",
      "--username",
      "bench",
      "--password",
      password,
    ],
    {
      cwd: webDir,
      env: { ...process.env, SECRET: PROCESS_TEST_SECRET, DATA_DIR: server.dataDir, LOG_LEVEL: "silent" },
    },
  );
  const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email: "bench@example.com", password }),
  });
  const cookie = signIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const key = await fetch(`${url}/api/v1/keys`, {
    method: "POST",
    headers: { cookie, origin: url, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", access: "publish", projects: "*", expiresInDays: null }),
  });
  const token = ((await key.json()) as { key: { key: string } }).key.key;
  const created = await fetch(`${url}/api/v1/projects`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ ...project, visibility: "public" }),
  });
  if (created.status !== 201) throw new Error(`project: ${created.status}`);
  return { server, url, host: new URL(url).host, token };
}
