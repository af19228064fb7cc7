// axe-core on every public page, against the production build: light and dark, at 1280 and
// 375 px. Every rule axe runs by default (WCAG 2.x A and AA, and its best practices); any
// violation fails the test, with the rule, the impact and the offending elements in the message.
// SCREENSHOT_DIR: each page is also saved there in each view, for people to look at.
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect as baseExpect } from "@playwright/test";
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

const PAGES = [
  "/",
  "/pricing",
  "/features",
  "/contact",
  "/blog/",
  "post",
  "/compare/github-releases",
  "/compare/nexus-oss",
  "/compare/jfrog-artifactory",
  "/compare/gitlab",
  "/legal/terms",
  "/legal/privacy",
  "/releases",
  "release",
  "/auth/signin",
  "/this-page-does-not-exist",
];

const VIEWS = [
  { width: 1280, height: 900, colorScheme: "light" },
  { width: 1280, height: 900, colorScheme: "dark" },
  { width: 375, height: 800, colorScheme: "light" },
  { width: 375, height: 800, colorScheme: "dark" },
] as const;

let releasePage = "";
let postPage = "";

test.beforeAll(async ({ browser }) => {
  if (process.env.PACKYARD_E2E_SKIP) return;
  const context = await browser.newContext({ baseURL: process.env.PACKYARD_E2E_URL });
  const page = await context.newPage();
  const username = `a11y-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("a11y"), name: "Ada Access", username });
  const project = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: {
      slug: "beacon",
      name: "Beacon",
      visibility: "public",
      description: "A small daemon that answers health checks",
      license: "MIT",
      homepage: "https://beacon.example",
    },
  });
  baseExpect(project.status()).toBe(201);
  const release = await page.request.post("/api/v1/projects/beacon/releases", {
    headers: appOrigin(),
    data: { version: "2.1.0", title: "Quieter logs", notes: "## Changes\n\n- Fewer log lines at `info`\n" },
  });
  baseExpect(release.status()).toBe(201);
  const file = await page.request.put("/api/v1/projects/beacon/releases/2.1.0/files/beacon-2.1.0.tar.gz", {
    headers: appOrigin(),
    data: Buffer.alloc(4096, "b"),
  });
  baseExpect(file.status()).toBe(201);
  releasePage = `/releases/${username}/beacon/2.1.0`;

  const sitemap = await (await page.request.get("/sitemap.xml")).text();
  postPage =
    [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)]
      .map((m) => new URL(m[1] ?? "").pathname)
      .find((path) => /^\/blog\/[^/]+$/.test(path)) ?? "/blog/no-post-found";
  await context.close();
});

for (const entry of PAGES) {
  test(`${entry}: no axe violations, light and dark, 1280 and 375 px`, async ({ browser }) => {
    const path = entry === "release" ? releasePage : entry === "post" ? postPage : entry;
    const failures: string[] = [];
    for (const view of VIEWS) {
      const context = await browser.newContext({
        baseURL: process.env.PACKYARD_E2E_URL,
        viewport: { width: view.width, height: view.height },
        colorScheme: view.colorScheme,
      });
      const page = await context.newPage();
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(entry.startsWith("/this-page") ? 404 : 200);
      await page.waitForLoadState("networkidle");
      const shots = process.env.SCREENSHOT_DIR;
      if (shots) {
        const name = entry.replace(/^\/+|\/+$/g, "").replace(/\//g, "-") || "home";
        await page.screenshot({
          path: join(shots, `${name}-${view.width}-${view.colorScheme}.png`),
          fullPage: true,
        });
      }
      const results = await new AxeBuilder({ page }).analyze();
      for (const violation of results.violations) {
        const targets = violation.nodes
          .slice(0, 5)
          .map(
            (node) => `    ${node.target.join(" ")}: ${node.failureSummary?.split("\n").slice(1).join("; ")}`,
          )
          .join("\n");
        failures.push(
          `${path} ${view.width}px ${view.colorScheme}: ${violation.id} (${violation.impact}) ${violation.help}\n${targets}`,
        );
      }
      await context.close();
    }
    expect(failures.length, `axe violations:\n${failures.join("\n")}`).toBe(0);
  });
}
