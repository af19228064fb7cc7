// Lighthouse on the public site (issue 12, "Speed"): performance and accessibility of /,
// /features, /pricing, /blog/ and one post, with Lighthouse's desktop and mobile presets, and
// the JavaScript each page loads — as sent (compressed by the server) and gzipped.
//
//   npm run build          # this script builds nothing itself
//   node bench/lighthouse/run.ts [--runs 3] [--pages /,/pricing] [--presets desktop,mobile]
//
// It starts the production server (apps/web/server/main.ts, NODE_ENV=production, no site
// scripts, no error reporting) on a free loopback port with a temporary DATA_DIR, drives
// Debian's Chromium (CHROME_PATH, default /usr/bin/chromium; --no-sandbox as root) through
// chrome-launcher, prints a table (median of the runs per page and preset) and writes
// bench/lighthouse/results/latest.json and latest.md.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    pages: { type: "string", default: "/,/features,/pricing,/blog/,post" },
    presets: { type: "string", default: "desktop,mobile" },
    out: { type: "string", default: resolve(import.meta.dirname, "results") },
  },
});
const runs = Number(args.runs);
const presets = args.presets.split(",") as ("desktop" | "mobile")[];
const root = resolve(import.meta.dirname, "..", "..");
const webDir = join(root, "apps", "web");
const log = (message: string) => process.stderr.write(`${message}\n`);

const TARGET = { performance: 95, accessibility: 95, jsGzipKb: 100 };

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

async function startPackyard(): Promise<{ url: string; child: ChildProcess; dataDir: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), "packyard-lighthouse-"));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(port),
    BASE_URL: url,
    DATA_DIR: dataDir,
    SECRET: "lighthouse-secret-lighthouse-secret-0123",
    LOG_LEVEL: "warn",
  };
  const child = spawn(process.execPath, ["server/main.ts"], {
    cwd: webDir,
    env,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`Packyard exited with ${child.exitCode}: run "npm run build" first?`);
    try {
      if ((await fetch(`${url}/ok`)).ok) return { url, child, dataDir };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("Packyard did not start within 30 s");
}

/** "post" in --pages stands for the newest blog post, found in the sitemap. */
async function resolvePages(baseUrl: string): Promise<string[]> {
  const wanted = args.pages.split(",");
  if (!wanted.includes("post")) return wanted;
  const sitemap = await (await fetch(`${baseUrl}/sitemap.xml`)).text();
  const post = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)]
    .map((m) => new URL(m[1] ?? "").pathname)
    .find((path) => /^\/blog\/[^/]+$/.test(path));
  if (!post) log("no blog post in sitemap.xml: measuring without one");
  return wanted.flatMap((page) => (page === "post" ? (post ? [post] : []) : [page]));
}

interface Sample {
  performance: number;
  accessibility: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  speedIndexMs: number;
  /** Script bytes over the wire during the load, as the server compressed them. */
  jsTransferBytes: number;
  jsRequests: number;
  /** Every byte over the wire during the load. */
  totalTransferBytes: number;
  /** The scripts the page loaded, by URL (for the gzip measure). */
  scripts: string[];
  failedAudits: string[];
}

/**
 * Lighthouse now and then fails to record a page load's trace (NO_NAVSTART, NO_FCP) and asks to
 * be run again: a run that failed so is repeated, twice at most, and said in the log.
 */
async function measureWithRetry(url: string, port: number, preset: "desktop" | "mobile"): Promise<Sample> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await measure(url, port, preset);
    } catch (error) {
      if (!(error instanceof LighthouseRuntimeError) || attempt === 3) throw error;
      log(`${url} ${preset}: ${error.message}; running it again`);
    }
  }
}

class LighthouseRuntimeError extends Error {}

type NetworkItem = { url: string; resourceType?: string; transferSize?: number };

async function measure(url: string, port: number, preset: "desktop" | "mobile"): Promise<Sample> {
  const result = await lighthouse(
    url,
    { port, output: "json", logLevel: "error", onlyCategories: ["performance", "accessibility"] },
    preset === "desktop" ? desktopConfig : undefined,
  );
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  const { lhr } = result;
  if (lhr.runtimeError) {
    throw new LighthouseRuntimeError(`${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  }
  const audit = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  const network = (
    (lhr.audits["network-requests"]?.details as { items?: NetworkItem[] })?.items ?? []
  ).filter((item) => !item.url.startsWith("data:"));
  const scripts = network.filter((item) => item.resourceType === "Script");
  const failedAudits = Object.values(lhr.categories)
    .flatMap((category) => category.auditRefs)
    .map((ref) => lhr.audits[ref.id])
    .filter((a) => a && a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== "informative")
    .map((a) => `${a?.id} (${a?.displayValue ?? a?.score})`);
  return {
    performance: Math.round((lhr.categories.performance?.score ?? 0) * 100),
    accessibility: Math.round((lhr.categories.accessibility?.score ?? 0) * 100),
    fcpMs: audit("first-contentful-paint"),
    lcpMs: audit("largest-contentful-paint"),
    tbtMs: audit("total-blocking-time"),
    cls: audit("cumulative-layout-shift"),
    speedIndexMs: audit("speed-index"),
    jsTransferBytes: scripts.reduce((sum, s) => sum + (s.transferSize ?? 0), 0),
    jsRequests: scripts.length,
    totalTransferBytes: network.reduce((sum, s) => sum + (s.transferSize ?? 0), 0),
    scripts: scripts.map((s) => s.url),
    failedAudits,
  };
}

/** gzip -9 of each script the page loaded, summed: the budget's measure, whatever the server sends. */
async function gzippedBytes(scripts: string[]): Promise<number> {
  let total = 0;
  for (const url of new Set(scripts)) {
    const body = Buffer.from(
      await (await fetch(url, { headers: { "accept-encoding": "identity" } })).arrayBuffer(),
    );
    total += gzipSync(body, { level: 9 }).length;
  }
  return total;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  const server = await startPackyard();
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH ?? "/usr/bin/chromium",
    chromeFlags: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const rows: {
    page: string;
    preset: string;
    samples: Sample[];
    median: Omit<Sample, "scripts" | "failedAudits">;
    jsGzipBytes: number;
  }[] = [];
  try {
    const pages = await resolvePages(server.url);
    // A fresh server renders its first requests of a page slower (JIT, caches): warm each up.
    for (const page of pages) for (let i = 0; i < 5; i++) await (await fetch(`${server.url}${page}`)).text();
    for (const page of pages) {
      for (const preset of presets) {
        const samples: Sample[] = [];
        for (let i = 0; i < runs; i++) {
          const sample = await measureWithRetry(`${server.url}${page}`, chrome.port, preset);
          samples.push(sample);
          log(
            `${page} ${preset} #${i + 1}: performance ${sample.performance}, accessibility ${sample.accessibility}`,
          );
        }
        const m = (key: keyof Omit<Sample, "scripts" | "failedAudits">) => median(samples.map((s) => s[key]));
        rows.push({
          page,
          preset,
          samples,
          median: {
            performance: m("performance"),
            accessibility: m("accessibility"),
            fcpMs: m("fcpMs"),
            lcpMs: m("lcpMs"),
            tbtMs: m("tbtMs"),
            cls: m("cls"),
            speedIndexMs: m("speedIndexMs"),
            jsTransferBytes: m("jsTransferBytes"),
            jsRequests: m("jsRequests"),
            totalTransferBytes: m("totalTransferBytes"),
          },
          jsGzipBytes: await gzippedBytes(samples[0]?.scripts ?? []),
        });
      }
    }
  } finally {
    chrome.kill();
    server.child.kill("SIGTERM");
    await new Promise((r) => server.child.once("exit", r));
    rmSync(server.dataDir, { recursive: true, force: true });
  }

  const header =
    "| page | preset | performance | accessibility | FCP ms | LCP ms | TBT ms | CLS | JS sent KB (requests) | JS gzip -9 KB | all sent KB |";
  const lines = [
    header,
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(({ page, preset, median: s, jsGzipBytes }) =>
      [
        "",
        `\`${page}\``,
        preset,
        `${s.performance}${s.performance >= TARGET.performance ? "" : " ✗"}`,
        `${s.accessibility}${s.accessibility >= TARGET.accessibility ? "" : " ✗"}`,
        s.fcpMs.toFixed(0),
        s.lcpMs.toFixed(0),
        s.tbtMs.toFixed(0),
        s.cls.toFixed(3),
        `${kb(s.jsTransferBytes)} (${s.jsRequests})`,
        `${kb(jsGzipBytes)}${jsGzipBytes / 1024 <= TARGET.jsGzipKb ? "" : " ✗"}`,
        kb(s.totalTransferBytes),
        "",
      ]
        .join(" | ")
        .trim(),
    ),
  ];
  const failed = rows.flatMap(({ page, preset, samples }) =>
    [...new Set(samples.flatMap((s) => s.failedAudits))].map((a) => `- \`${page}\` ${preset}: ${a}`),
  );
  const info = {
    date: new Date().toISOString(),
    runs,
    cpus: cpus().length,
    // Lighthouse's simulated throttling scales the CPU time it observes: a busy machine scores lower.
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    node: process.version,
    lighthouse: (await import("lighthouse/package.json", { with: { type: "json" } })).default.version,
    target: TARGET,
  };
  const markdown = [
    `Lighthouse ${info.lighthouse}, ${info.date}, median of ${runs} run(s), ${info.cpus} CPUs, Node ${info.node}, ` +
      `load average ${info.loadAverage.before.toFixed(1)} before and ${info.loadAverage.after.toFixed(1)} after.`,
    "",
    ...lines,
    "",
    ...(failed.length ? ["Audits scoring under 0.9 in any run:", "", ...failed, ""] : []),
  ].join("\n");
  process.stdout.write(`${markdown}\n`);
  mkdirSync(args.out, { recursive: true });
  writeFileSync(join(args.out, "latest.json"), `${JSON.stringify({ info, rows }, null, 2)}\n`);
  writeFileSync(join(args.out, "latest.md"), `${markdown}\n`);
}

await main();
