// A webhook URL the server refuses, in a real browser: a Packyard of its own, started here as the
// suite's is (global-setup.ts) but without WEBHOOK_ALLOW_PRIVATE, answers each of them with a
// message on the Payload URL field, never a 500, and logs no unhandled error.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readOutbox } from "../test/harness.ts";
import { expect, PASSWORD, test, uniqueEmail } from "./support.ts";

let server: ChildProcess | undefined;
let origin = "";
let dataDir = "";
let log = "";

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolvePort(port));
    });
  });
}

test.beforeAll(async () => {
  if (process.env.PACKYARD_E2E_SKIP) return;
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  dataDir = mkdtempSync(join(tmpdir(), "packyard-e2e-refused-"));
  const { WEBHOOK_ALLOW_PRIVATE: _, ...env } = process.env;
  server = spawn(process.execPath, ["server/main.ts"], {
    cwd: resolve(import.meta.dirname, ".."),
    env: {
      ...env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      BASE_URL: origin,
      DATA_DIR: dataDir,
      SECRET: "e2e-secret-e2e-secret-e2e-secret-e2e-secret",
      AUTH_RATE_LIMIT: "false",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
  server.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
  // Started, as global-setup.ts waits for it: /ok answers.
  for (let tries = 0; ; tries++) {
    if (server.exitCode !== null) throw new Error(`Packyard exited during start-up:\n${log}`);
    const ok = await fetch(`${origin}/ok`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) break;
    if (tries > 300) throw new Error(`Packyard did not answer /ok:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once("exit", r));
    server.kill("SIGTERM");
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("each refused Payload URL is a message on the field, not a 500", async ({ page, consoleErrors: _ }) => {
  const email = uniqueEmail("refused");
  const username = `refused-${Date.now().toString(36)}`;
  const signUp = await page.request.post(`${origin}/api/auth/sign-up/email`, {
    headers: { origin },
    data: { email, name: "Hook Keeper", password: PASSWORD, callbackURL: "/dashboard" },
  });
  expect(signUp.ok()).toBe(true);
  const link = readOutbox(join(dataDir, "outbox"))
    .findLast((m) => m.to.includes(email))
    ?.links.find((l) => l.includes("/verify-email"));
  expect(link).toBeTruthy();
  await page.goto(link!);
  await expect(page).toHaveURL(/\/onboarding/);
  await page.getByLabel("Full name").fill("Hook Keeper");
  await page.getByLabel("Username").fill(username);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page).toHaveURL(/\/dashboard/);
  const project = await page.request.post(`${origin}/api/v1/projects`, {
    headers: { origin },
    data: { slug: "relay", name: "Relay" },
  });
  expect(project.status()).toBe(201);

  await page.goto(`${origin}/projects/relay/webhooks`);
  const url = page.getByLabel("Payload URL");
  const answers: number[] = [];
  page.on("response", (res) => {
    if (res.request().method() === "POST") answers.push(res.status());
  });
  for (const [target, message] of [
    [
      "http://localhost:8080/hook",
      /^Webhooks cannot be sent to localhost: localhost resolves to [\w.:]+, a loopback, link-local or private address\. Use a public address\.$/,
    ],
    [
      "http://10.1.2.3/hook",
      "Webhooks cannot be sent to 10.1.2.3: 10.1.2.3 is a loopback, link-local or private address. Use a public address.",
    ],
    [
      "http://127.0.0.1:9/hook",
      "Webhooks cannot be sent to 127.0.0.1: 127.0.0.1 is a loopback, link-local or private address. Use a public address.",
    ],
    ["http://no-such-host.invalid/hook", "no-such-host.invalid could not be resolved"],
  ] as const) {
    await url.fill(target);
    await page.getByRole("button", { name: "Add webhook" }).click();
    await expect(url).toHaveAccessibleDescription(message);
    await expect(url).toHaveAttribute("aria-invalid", "true");
  }
  // The form's own check still answers first, without a post.
  await url.fill("ftp://example.com/hook");
  await page.getByRole("button", { name: "Add webhook" }).click();
  await expect(url).toHaveAccessibleDescription("URL must be an http(s) URL");

  expect(answers).toEqual([400, 400, 400, 400]);
  await expect(page.getByText("No webhooks yet")).toBeVisible();
  expect(log).not.toMatch(/DomainError|Unexpected Server Error/);
});
