// Starts the production build of Packyard as a real process on a free loopback port with its
// own data directory, for the browser tests; stops it (SIGTERM) when they end. A real OpenID
// Connect provider (test/oidc-provider.ts) starts first, and Packyard signs in through it as
// "Test SSO" (AUTH_OIDC_*); the specs find its issuer in PACKYARD_E2E_OIDC_ISSUER. A fake
// Stripe (test/fake-stripe.ts) takes the payments (STRIPE_*), delivering its webhook events to
// Packyard; the specs find it in PACKYARD_E2E_STRIPE_URL. A fake GitHub API
// (test/fake-github.ts) holds the repository acme/hello the GitHub Releases import reads
// (GITHUB_API_URL): two releases, the second with an asset that answers 500. Domain verification
// asks the DNS server at PACKYARD_E2E_DNS_PORT (DNS_RESOLVER), which the spec that needs it starts.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CHROMIUM } from "../playwright.config.ts";
import { startFakeGithub } from "../test/fake-github.ts";
import { startFakeStripe } from "../test/fake-stripe.ts";
import { startOidcProvider } from "../test/oidc-provider.ts";
import { START_NODE_FLAGS } from "../test/server-process.ts";

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

async function waitForOk(url: string, child: ChildProcess, deadline: number) {
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`Packyard exited with code ${child.exitCode} during start-up`);
    try {
      const res = await fetch(`${url}/ok`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("Packyard did not answer /ok within 20 s");
}

export default async function globalSetup() {
  if (!existsSync(CHROMIUM)) {
    const message = `Chromium not found at ${CHROMIUM} (apt-get install -y chromium)`;
    if (process.env.CI) throw new Error(message);
    console.warn(`skipping browser tests: ${message}`);
    process.env.PACKYARD_E2E_SKIP = message;
    return;
  }
  const appDir = resolve(import.meta.dirname, "..");
  if (!existsSync(join(appDir, "build", "server", "index.js"))) {
    throw new Error("No production build: run `npm run build` first");
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), "packyard-e2e-"));
  // Packyard reads the provider's discovery document when it starts: the provider comes first.
  const oidc = await startOidcProvider({ packyardBaseUrl: url, name: "Test SSO" });
  const stripe = await startFakeStripe({
    autoDeliver: true,
    webhookTarget: `${url}/api/auth/stripe/webhook`,
  });
  const github = await startFakeGithub();
  const dnsPort = await freePort();
  const text = (value: string) => new TextEncoder().encode(value);
  github.repositories.set("acme/hello", {
    releases: [
      {
        tag: "v1.0.0",
        name: "Hello 1.0",
        body: "The first release.",
        publishedAt: "2024-01-01T00:00:00Z",
        assets: [{ name: "hello-1.0.0.tar.gz", bytes: text("hello 1.0.0") }],
      },
      {
        tag: "v1.1.0",
        name: "Hello 1.1",
        publishedAt: "2024-02-01T00:00:00Z",
        assets: [{ name: "hello-1.1.0.tar.gz", bytes: text("hello 1.1.0"), broken: true }],
      },
    ],
  });
  const child = spawn(process.execPath, [...START_NODE_FLAGS, "server/main.ts"], {
    cwd: appDir,
    env: {
      ...process.env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      BASE_URL: url,
      DATA_DIR: dataDir,
      SECRET: "e2e-secret-e2e-secret-e2e-secret-e2e-secret",
      AUTH_RATE_LIMIT: "false",
      LOG_LEVEL: "warn",
      ...oidc.env,
      ...stripe.env,
      GITHUB_API_URL: github.url,
      // The webhooks journey's receiver listens on 127.0.0.1.
      WEBHOOK_ALLOW_PRIVATE: "true",
      DNS_RESOLVER: `127.0.0.1:${dnsPort}`,
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  try {
    await waitForOk(url, child, Date.now() + 20_000);
  } catch (error) {
    child.kill("SIGTERM");
    await oidc.stop();
    await stripe.close();
    await github.close();
    throw error;
  }
  process.env.PACKYARD_E2E_URL = url;
  process.env.PACKYARD_E2E_DATA_DIR = dataDir;
  process.env.PACKYARD_E2E_OIDC_ISSUER = oidc.issuer;
  process.env.PACKYARD_E2E_STRIPE_URL = stripe.url;
  process.env.PACKYARD_E2E_DNS_PORT = String(dnsPort);

  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      child.kill("SIGTERM");
      const code = await exited;
      if (code !== 0) console.warn(`Packyard exited with code ${code} on SIGTERM`);
    }
    await oidc.stop();
    await stripe.close();
    await github.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
