// What search engines and link previews read, against the production build: title,
// description, keywords, canonical, Open Graph and Twitter card tags with the 1200×630 image on
// every public page; the Organization JSON-LD on /; sitemap.xml (public pages, posts and public
// release pages, never a private project's) and robots.txt pointing to it; and, with no site
// script configured, no request leaves the site.
import { type Browser, expect as baseExpect } from "@playwright/test";
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

const PUBLIC_PAGES = [
  "/",
  "/pricing",
  "/features",
  "/contact",
  "/blog/",
  "/compare/github-releases",
  "/compare/nexus-oss",
  "/compare/jfrog-artifactory",
  "/compare/gitlab",
  "/legal/terms",
  "/legal/privacy",
  "/releases",
];

let username = "";

/** A publisher with a public project (one release) and a private one (one release). */
async function seedProjects(browser: Browser) {
  const context = await browser.newContext({ baseURL: process.env.PACKYARD_E2E_URL });
  const page = await context.newPage();
  username = `seo-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("seo"), name: "Seo Publisher", username });
  for (const [slug, visibility, version] of [
    ["lantern", "public", "1.4.0"],
    ["hidden", "private", "0.9.0"],
  ] as const) {
    const project = await page.request.post("/api/v1/projects", {
      headers: appOrigin(),
      data: { slug, name: slug, visibility, description: `The ${slug} project` },
    });
    baseExpect(project.status()).toBe(201);
    const release = await page.request.post(`/api/v1/projects/${slug}/releases`, {
      headers: appOrigin(),
      data: { version },
    });
    baseExpect(release.status()).toBe(201);
  }
  await context.close();
}

test.beforeAll(async ({ browser }) => {
  if (process.env.PACKYARD_E2E_SKIP) return;
  await seedProjects(browser);
});

const base = () => process.env.PACKYARD_E2E_URL ?? "";

test("every public page has its title, description, keywords, canonical, Open Graph and Twitter card", async ({
  page,
  consoleErrors: _,
}) => {
  for (const path of [...PUBLIC_PAGES, `/releases/${username}/lantern/1.4.0`]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
    const head = page.locator("head");
    const meta = (selector: string) => head.locator(selector).getAttribute("content");

    await expect(page, path).toHaveTitle(/\S/);
    expect(await page.locator("title").count(), `${path}: one <title>`).toBe(1);
    expect(await meta('meta[name="description"]'), path).toMatch(/\S.{20,}/);
    expect(await meta('meta[name="keywords"]'), path).toMatch(/\S/);
    const canonical = await head.locator('link[rel="canonical"]').getAttribute("href");
    expect(canonical, path).toBe(`${base()}${path}`);

    expect(await meta('meta[property="og:url"]'), path).toBe(canonical);
    expect(await meta('meta[property="og:title"]'), path).toBe(await page.title());
    expect(await meta('meta[property="og:description"]'), path).toBe(await meta('meta[name="description"]'));
    expect(await meta('meta[property="og:type"]'), path).toMatch(/^(website|article)$/);
    expect(await meta('meta[property="og:site_name"]'), path).toBe("Packyard");
    const image = await meta('meta[property="og:image"]');
    expect(image, path).toMatch(/^https?:\/\//);
    expect(await meta('meta[property="og:image:alt"]'), path).toMatch(/\S/);
    expect(await meta('meta[name="twitter:card"]'), path).toBe("summary_large_image");
    expect(await meta('meta[name="twitter:title"]'), path).toBe(await page.title());
    expect(await meta('meta[name="twitter:image"]'), path).toBe(image);
  }
});

test("the link-preview image is a 1200×630 PNG the site serves", async ({ page, request }) => {
  await page.goto("/");
  const image = await page.locator('meta[property="og:image"]').getAttribute("content");
  expect(image).toBe(`${base()}/og-image.png`);
  expect(await page.locator('meta[property="og:image:width"]').getAttribute("content")).toBe("1200");
  expect(await page.locator('meta[property="og:image:height"]').getAttribute("content")).toBe("630");
  const response = await request.get(image ?? "");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toBe("image/png");
  const png = await response.body();
  // The PNG header's IHDR chunk: width and height, big-endian, at bytes 16 and 20.
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
});

test("the home page describes Packyard as an Organization in JSON-LD; other pages do not", async ({
  page,
}) => {
  await page.goto("/");
  const blocks = await page.locator('script[type="application/ld+json"]').allTextContents();
  const organization = blocks.map((b) => JSON.parse(b)).find((b) => b["@type"] === "Organization");
  expect(organization).toMatchObject({
    "@context": "https://schema.org",
    "@type": "Organization",
    name: "Packyard",
    url: `${base()}/`,
    logo: `${base()}/logo.png`,
  });
  expect((await page.request.get(organization.logo)).headers()["content-type"]).toBe("image/png");

  await page.goto("/pricing");
  const elsewhere = await page.locator('script[type="application/ld+json"]').allTextContents();
  expect(elsewhere.map((b) => JSON.parse(b)["@type"])).not.toContain("Organization");
});

test("a blog post describes itself as a BlogPosting in JSON-LD", async ({ page }) => {
  const sitemap = await (await page.request.get("/sitemap.xml")).text();
  const post = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)]
    .map((m) => new URL(m[1] ?? "").pathname)
    .find((path) => /^\/blog\/[^/]+$/.test(path));
  expect(post).toBeTruthy();
  await page.goto(post ?? "");
  const blocks = await page.locator('script[type="application/ld+json"]').allTextContents();
  const posting = blocks.map((b) => JSON.parse(b)).find((b) => b["@type"] === "BlogPosting");
  expect(posting).toMatchObject({ "@context": "https://schema.org", url: `${base()}${post}` });
  expect(posting.headline).toBe(await page.getByRole("heading", { level: 1 }).textContent());
  expect(await page.locator('meta[property="og:type"]').getAttribute("content")).toBe("article");
});

test("sitemap.xml lists the public pages, blog posts and a public release page, never a private one", async ({
  request,
}) => {
  const response = await request.get("/sitemap.xml");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toMatch(/^application\/xml/);
  const locations = [...(await response.text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1] ?? "");
  for (const path of PUBLIC_PAGES) expect(locations).toContain(`${base()}${path}`);
  expect(locations.filter((l) => /\/blog\/[^/]+$/.test(l)).length).toBeGreaterThanOrEqual(10);
  expect(locations).toContain(`${base()}/releases/${username}/lantern/1.4.0`);
  expect(locations.filter((l) => l.includes("/hidden"))).toEqual([]);
  // Every page it lists answers.
  for (const location of locations.filter((l) => !l.includes("/releases/"))) {
    expect((await request.get(location)).status(), location).toBe(200);
  }
});

test("robots.txt points to the sitemap by its absolute URL", async ({ request }) => {
  const response = await request.get("/robots.txt");
  expect(response.status()).toBe(200);
  const text = await response.text();
  expect(text).toContain(`Sitemap: ${base()}/sitemap.xml`);
  expect(text).toContain("Disallow: /dashboard");
});

test("with no site script configured, a public page loads nothing from other origins", async ({
  page,
  consoleErrors: _,
}) => {
  const foreign: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (!["data:", "blob:"].includes(url.protocol) && url.origin !== new URL(base()).origin)
      foreign.push(url.href);
  });
  for (const path of ["/", "/pricing", "/blog/"]) {
    const response = await page.goto(path);
    const csp = response?.headers()["content-security-policy"] ?? "";
    expect(csp).toMatch(/script-src 'self' 'nonce-[^']+'(;|$)/);
    expect(csp).toContain("connect-src 'self';");
    expect(csp).not.toMatch(/plausible|googlesyndication|crisp|clarity|sentry/);
    await page.waitForLoadState("networkidle");
  }
  expect(foreign).toEqual([]);
});
