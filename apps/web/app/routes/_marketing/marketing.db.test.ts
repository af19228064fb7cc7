// The public site, server-rendered in memory: every page answers 200 with its heading and a
// single title; the header and footer link every public page; /compare/ redirects on the server;
// the not-found page (404, one <title>, the site's frame, a link home or to the dashboard); the
// server's /error page in the site's look; /favicon.ico. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
let cookie: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ cookie } = await onboardedUser(app, "visitor"));
});
afterAll(async () => {
  await app?.close();
});

async function get(path: string, init: { cookie?: string } = {}) {
  const res = await app.request(path, init);
  return { res, html: await res.text() };
}

const titles = (html: string) => html.match(/<title>[^<]*<\/title>/g) ?? [];
const h1 = (html: string) => html.match(/<h1[^>]*>([\s\S]*?)<\/h1>/)?.[1]?.replace(/<[^>]+>/g, "");

const pages: [path: string, heading: string, title: string][] = [
  [
    "/",
    "Ship .deb and .rpm packages your users install with one line.",
    "Packyard — package management made simple",
  ],
  ["/features", "Everything Packyard does today", "Features · Packyard"],
  ["/contact", "Talk to the people who build Packyard", "Contact · Packyard"],
  ["/compare/github-releases", "Packyard and GitHub Releases", "Compared with GitHub Releases · Packyard"],
  ["/compare/gitlab", "Packyard and GitLab", "Compared with GitLab · Packyard"],
  [
    "/compare/nexus-oss",
    "Packyard and Nexus Repository OSS",
    "Compared with Nexus Repository OSS · Packyard",
  ],
  [
    "/compare/jfrog-artifactory",
    "Packyard and JFrog Artifactory",
    "Compared with JFrog Artifactory · Packyard",
  ],
  ["/legal/terms", "Terms of Service", "Terms of Service · Packyard"],
  ["/legal/privacy", "Privacy Policy", "Privacy Policy · Packyard"],
];

describe(`the public pages (${databaseKind})`, () => {
  it.each(pages)(
    "%s answers 200, server-rendered with its heading, one title and a canonical link",
    async (path, heading, title) => {
      const { res, html } = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(h1(html)).toBe(heading);
      expect(titles(html)).toEqual([`<title>${title}</title>`]);
      expect(html).toContain(`<link rel="canonical" href="http://localhost:3000${path}"`);
      expect(html).toMatch(/<meta name="description" content="[^"]{40,}"/);
    },
  );

  it("has a header with the main links and sign-in, and a footer with every public page", async () => {
    const { html } = await get("/features");
    const header = html.match(/<header[\s\S]*?<\/header>/)?.[0] ?? "";
    for (const [href, label] of [
      ["/features", "Features"],
      ["/pricing", "Pricing"],
      ["/blog/", "Blog"],
      ["/compare/github-releases", "Compare"],
      ["/releases", "Releases"],
      ["/auth/signin", "Sign in"],
      ["/auth/signin?mode=signup", "Get started"],
    ]) {
      expect(header).toContain(`href="${href}"`);
      expect(header).toContain(`>${label}</a>`);
    }
    expect(header).toContain('aria-current="page"');
    const footer = html.match(/<footer[\s\S]*?<\/footer>/)?.[0] ?? "";
    for (const href of [
      "/",
      "/features",
      "/pricing",
      "/releases",
      "/blog/",
      "/contact",
      "/legal/terms",
      "/legal/privacy",
      "/compare/github-releases",
      "/compare/gitlab",
      "/compare/nexus-oss",
      "/compare/jfrog-artifactory",
    ]) {
      expect(footer).toContain(`href="${href}"`);
    }
  });

  it("shows Dashboard instead of Sign in and Get started to a signed-in visitor", async () => {
    const { html } = await get("/", { cookie });
    const header = html.match(/<header[\s\S]*?<\/header>/)?.[0] ?? "";
    expect(header).toContain('href="/dashboard"');
    expect(header).not.toContain(">Sign in</a>");
    expect(header).not.toContain(">Get started</a>");
  });

  it("states the benchmark figures on the home page with the command that reproduces them", async () => {
    const { html } = await get("/");
    expect(html).toContain('id="benchmarks"');
    // The newest figures of docs/benchmarks.md (speed-figures.test.ts holds them to it).
    expect(html).toContain("24.7 ms");
    expect(html).toContain("52.9 ms");
    expect(html).toContain("bench/apt/run-at-commit.sh 55555f7 -- --sizes 10000");
    expect(html).not.toContain("70.1 ms");
    expect(html).toContain("docs/benchmarks.md");
    // Calls to action: sign-up and the plans.
    expect(html).toContain('href="/auth/signin?mode=signup"');
    expect(html).toContain('href="/pricing"');
    // The install lines name this server.
    expect(html).toContain("curl -fsSL http://localhost:3000/dl/you/widget/setup.deb.sh | sudo bash");
    expect(html).toContain("curl -fsSL http://localhost:3000/dl/you/widget/setup.rpm.sh | sudo bash");
  });

  it("shows a picture for every feature, and every picture exists", async () => {
    const { html } = await get("/features");
    const pictures = [...html.matchAll(/(?:src|srcSet|srcset)="(\/features\/[^"]+)"/g)].map(
      (m) => m[1] as string,
    );
    expect(pictures.length).toBeGreaterThanOrEqual(17);
    for (const picture of new Set(pictures)) {
      const res = await app.request(picture);
      expect(res.status, picture).toBe(200);
    }
  });

  it("cites a dated source for every claim about a peer", async () => {
    for (const slug of ["github-releases", "gitlab", "nexus-oss", "jfrog-artifactory"]) {
      const { html } = await get(`/compare/${slug}`);
      expect(html).toContain("November 23, 2026");
      const cited = new Set([...html.matchAll(/href="#[a-z-]+-source-(\d+)"/g)].map((m) => m[1]));
      const listed = new Set([...html.matchAll(/id="[a-z-]+-source-(\d+)"/g)].map((m) => m[1]));
      expect(cited.size).toBeGreaterThan(0);
      for (const n of cited) expect(listed.has(n), `${slug} source ${n}`).toBe(true);
      // Each of the eight points has a citation.
      expect(html.match(/<th scope="row"/g)?.length).toBe(8);
    }
  });

  it("dates the legal pages", async () => {
    const dates = {
      "/legal/terms": '2026-11-23">November 23, 2026',
      "/legal/privacy": '2026-12-07">December 7, 2026',
    };
    for (const [path, date] of Object.entries(dates)) {
      const { html } = await get(path);
      expect(html).toContain(`Last updated: <time dateTime="${date}</time>`);
    }
  });
});

describe(`/compare/ (${databaseKind})`, () => {
  it.each(["/compare", "/compare/"])(
    "%s redirects on the server to /compare/github-releases",
    async (path) => {
      const res = await app.request(path);
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/compare/github-releases");
    },
  );
});

describe(`the not-found page (${databaseKind})`, () => {
  it("answers 404 in the site's frame, with exactly one <title>, the tips and a link home", async () => {
    const { res, html } = await get("/no/such/page");
    expect(res.status).toBe(404);
    expect(titles(html)).toEqual(["<title>Page Not Found · Packyard</title>"]);
    expect(h1(html)).toBe("Page Not Found");
    expect(html).toContain("Check the URL for typos");
    expect(html).toContain("Go back to the previous page");
    expect(html).toContain("Return to the dashboard");
    expect(html).toMatch(/<a[^>]*href="\/"[^>]*>Go to Home page<\/a>/);
    expect(html).toMatch(/<header[\s\S]*href="\/features"/);
    expect(html).toMatch(/<footer[\s\S]*href="\/legal\/privacy"/);
    expect(html).toContain('<meta name="robots" content="noindex"');
  });

  it("links to the dashboard when signed in", async () => {
    const { res, html } = await get("/no/such/page", { cookie });
    expect(res.status).toBe(404);
    expect(html).toMatch(/<a[^>]*href="\/dashboard"[^>]*>Go to Dashboard<\/a>/);
  });
});

describe(`/error and /favicon.ico (${databaseKind})`, () => {
  it("renders /error in the site's look: header links, footer, the escaped code and the way back", async () => {
    const res = await app.request(`/error?error=${encodeURIComponent("<b>state_not_found</b>")}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<code data-testid="error-code">&lt;b&gt;state_not_found&lt;/b&gt;</code>');
    expect(html).toMatch(/<a href="\/">Return to Application<\/a>/);
    expect(html).toContain('href="/features"');
    expect(html).toContain('href="/compare/github-releases"');
    expect(html).toContain('href="/legal/privacy"');
    expect(html).not.toContain("<b>state_not_found");
    expect(titles(html)).toHaveLength(1);
  });

  it("serves /favicon.ico as an icon", async () => {
    const res = await app.request("/favicon.ico");
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    // ICO header: reserved 0, type 1 (icon), at least one image.
    expect([...bytes.slice(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(bytes[4]).toBeGreaterThan(0);
  });
});
