// The optional site scripts (analytics, ads, chat, heatmap) and error reporting as a page's
// HTML and Content-Security-Policy show them: absent by default and in development, present
// with the request's nonce — and the policy widened for exactly them — when their ids are set
// in production. SQLite, and PostgreSQL when configured.
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/harness.ts";

const IDS = {
  ANALYTICS_ID: "packyard.example",
  ADS_CLIENT_ID: "ca-pub-1234567890123456",
  CHAT_ID: "4f1e2d3c-1a2b-4c3d-8e9f-0123456789ab",
  HEATMAP_ID: "k2x9q7w1ab",
};
const DSN = "https://abc123@o42.ingest.example.io/7";

/** Today's policy, with the request's nonce: what an unconfigured server must send. */
const strictPolicy = (nonce: string) =>
  [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self' http://127.0.0.1:* http://localhost:*",
    "frame-ancestors 'none'",
  ].join("; ");

const THIRD_PARTY = /plausible\.io|googlesyndication|crisp\.chat|clarity\.ms|CRISP_WEBSITE_ID/;

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function home(env: Record<string, string>) {
  app = await createTestApp(env);
  const res = await app.request("/");
  expect(res.status).toBe(200);
  const csp = res.headers.get("content-security-policy") ?? "";
  const nonce = csp.match(/'nonce-([^']+)'/)?.[1] ?? "";
  expect(nonce).not.toBe("");
  return { html: await res.text(), csp, nonce };
}

/** The directive's sources, without its name. */
function directive(csp: string, name: string): string[] {
  const entry = csp.split("; ").find((d) => d.startsWith(`${name} `));
  return entry ? entry.split(" ").slice(1) : [];
}

describe("site scripts", () => {
  it("are absent, and the policy strict, in production with no ids", async () => {
    const { html, csp, nonce } = await home({ NODE_ENV: "production" });
    expect(html).not.toMatch(THIRD_PARTY);
    expect(csp).toBe(strictPolicy(nonce));
  });

  it("are absent, and the policy strict, in development even with every id set", async () => {
    const { html, csp, nonce } = await home({ NODE_ENV: "development", ...IDS });
    expect(html).not.toMatch(THIRD_PARTY);
    expect(csp).toBe(strictPolicy(nonce));
  });

  it("load in production when their ids are set, with the nonce, and the policy allows them", async () => {
    const { html, csp, nonce } = await home({ NODE_ENV: "production", ...IDS });
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    const tag = (pattern: RegExp) => scripts.find((s) => pattern.test(s));

    // Plausible, with the site's domain.
    const plausible = tag(/src="https:\/\/plausible\.io\/js\/script\.js"/);
    expect(plausible).toContain('data-domain="packyard.example"');
    expect(plausible).toContain(`nonce="${nonce}"`);
    // AdSense, with the publisher id.
    expect(tag(/adsbygoogle\.js\?client=ca-pub-1234567890123456/)).toContain(`nonce="${nonce}"`);
    // Crisp: the website id, then its loader.
    expect(html).toContain(`window.CRISP_WEBSITE_ID="${IDS.CHAT_ID}"`);
    expect(tag(/src="https:\/\/client\.crisp\.chat\/l\.js"/)).toContain(`nonce="${nonce}"`);
    // Clarity, with the project id.
    expect(tag(/src="https:\/\/www\.clarity\.ms\/tag\/k2x9q7w1ab"/)).toContain(`nonce="${nonce}"`);
    // Every inline script carries the nonce too (the browser would refuse it otherwise).
    for (const s of scripts.filter((s) => !s.includes("src=") && !s.includes("application/ld+json"))) {
      expect(s).toContain(`nonce="${nonce}"`);
    }

    expect(directive(csp, "script-src")).toEqual(
      expect.arrayContaining([
        "'self'",
        `'nonce-${nonce}'`,
        "https://plausible.io",
        "https://pagead2.googlesyndication.com",
        "https://client.crisp.chat",
        "https://settings.crisp.chat",
        "https://www.clarity.ms",
        "https://scripts.clarity.ms",
      ]),
    );
    expect(directive(csp, "script-src")).not.toContain("'unsafe-inline'");
    expect(directive(csp, "connect-src")).toEqual(
      expect.arrayContaining([
        "'self'",
        "https://plausible.io",
        "https://pagead2.googlesyndication.com",
        "https://client.crisp.chat",
        "wss://client.relay.crisp.chat",
        "https://*.clarity.ms",
      ]),
    );
    expect(directive(csp, "frame-src")).toEqual(
      expect.arrayContaining(["'self'", "https://googleads.g.doubleclick.net", "https://game.crisp.chat"]),
    );
    expect(directive(csp, "style-src")).toContain("https://client.crisp.chat");
    expect(directive(csp, "font-src")).toContain("https://client.crisp.chat");
    // Nothing else was loosened.
    expect(directive(csp, "default-src")).toEqual(["'self'"]);
    expect(directive(csp, "object-src")).toEqual(["'none'"]);
    expect(directive(csp, "frame-ancestors")).toEqual(["'none'"]);
    expect(directive(csp, "worker-src")).toEqual([]);
  });

  it("load one at a time: only the configured one is widened for", async () => {
    const { html, csp, nonce } = await home({ NODE_ENV: "production", HEATMAP_ID: IDS.HEATMAP_ID });
    expect(html).toContain("https://www.clarity.ms/tag/k2x9q7w1ab");
    expect(html).not.toMatch(/plausible\.io|googlesyndication|crisp\.chat/);
    expect(directive(csp, "script-src")).toEqual([
      "'self'",
      `'nonce-${nonce}'`,
      "https://www.clarity.ms",
      "https://scripts.clarity.ms",
    ]);
    expect(directive(csp, "connect-src")).toEqual(["'self'", "https://*.clarity.ms"]);
    expect(directive(csp, "frame-src")).toEqual([]);
  });
});

describe("error reporting in the browser", () => {
  it("is off without SENTRY_DSN: no DSN in the page, nothing added to the policy", async () => {
    const { html } = await home({ NODE_ENV: "production" });
    expect(html).not.toContain("ingest");
    expect(html).not.toMatch(/"dsn"/);
  });

  it("gets the DSN and sample rates from the root loader, and the policy allows the DSN's origin", async () => {
    const { html, csp, nonce } = await home({ NODE_ENV: "production", SENTRY_DSN: DSN });
    // The root loader's data (streamed for hydration) names the DSN and spec §9's rates.
    for (const text of [DSN, "tracesSampleRate", "replaysSessionSampleRate", "replaysOnErrorSampleRate"]) {
      expect(html).toContain(text);
    }
    expect(directive(csp, "connect-src")).toEqual(["'self'", "https://o42.ingest.example.io"]);
    expect(directive(csp, "worker-src")).toEqual(["'self'", "blob:"]);
    expect(directive(csp, "script-src")).toEqual(["'self'", `'nonce-${nonce}'`]);
  });
});
