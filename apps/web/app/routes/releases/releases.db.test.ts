// The public release pages, server-rendered in memory: search over public projects, the
// redirect to latest, one release with notes, files and checksums, "latest" skipping yanked
// releases, a project with no release, and the not-found view — which is also what another
// user's private project looks like. SQLite, and PostgreSQL when configured.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
let ada: { cookie: string };
let bob: { cookie: string };

const FILE_BODY = "hello widget\n";
const FILE_SHA256 = createHash("sha256").update(FILE_BODY).digest("hex");
const NOTES = [
  "## Highlights",
  "",
  "- **Faster** start-up",
  "- [Changelog](https://example.com/changelog)",
  "",
  '<script>alert("owned")</script>',
  "",
  "| a | b |",
  "|---|---|",
  "| 1 | 2 |",
].join("\n");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function api(cookie: string, method: string, path: string, body?: unknown) {
  const res = await app.request(`/api/v1${path}`, {
    method,
    headers: body === undefined || typeof body === "string" ? {} : { "content-type": "application/json" },
    body: body === undefined || typeof body === "string" ? body : JSON.stringify(body),
    cookie,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res;
}

async function release(cookie: string, slug: string, version: string, extra: object = {}) {
  await api(cookie, "POST", `/projects/${slug}/releases`, { version, ...extra });
  // Distinct creation times keep "newest first" unambiguous.
  await sleep(5);
}

beforeAll(async () => {
  app = await createTestApp();
  ada = await onboardedUser(app, "ada");
  bob = await onboardedUser(app, "bob");

  await api(ada.cookie, "POST", "/projects", {
    slug: "widget",
    name: "Widget",
    description: "A tiny widget for testing",
    visibility: "public",
    homepage: "https://widget.example",
    sourceUrl: "https://git.example/ada/widget",
    license: "MIT",
  });
  await release(ada.cookie, "widget", "1.0.0", { title: "First light", notes: NOTES });
  await api(
    ada.cookie,
    "PUT",
    "/projects/widget/releases/1.0.0/files/widget-1.0.0-linux-amd64.tar.gz",
    FILE_BODY,
  );
  await release(ada.cookie, "widget", "1.1.0");
  await release(ada.cookie, "widget", "2.0.0");
  await api(ada.cookie, "POST", "/projects/widget/releases/2.0.0/yank", { reason: "Broken build" });

  await api(ada.cookie, "POST", "/projects", { slug: "secret", name: "Secret Sauce", visibility: "private" });
  await release(ada.cookie, "secret", "1.0.0");
  await api(ada.cookie, "POST", "/projects", { slug: "empty", name: "Empty Box", visibility: "public" });
  await api(ada.cookie, "POST", "/projects", { slug: "withdrawn", name: "Withdrawn", visibility: "public" });
  await release(ada.cookie, "withdrawn", "0.1.0");
  await api(ada.cookie, "POST", "/projects/withdrawn/releases/0.1.0/yank", { reason: "Oops" });

  await api(bob.cookie, "POST", "/projects", {
    slug: "gadget",
    name: "Gadget",
    description: "Gadget with Zebra stripes",
    visibility: "public",
  });
  await release(bob.cookie, "gadget", "3.2.1");
});
afterAll(async () => {
  await app?.close();
});

async function page(path: string, cookie?: string) {
  const res = await app.request(path, { cookie });
  return { status: res.status, html: await res.text(), location: res.headers.get("location") };
}

describe(`a public release page (${databaseKind})`, () => {
  it("shows the project, the release, its notes from Markdown, files, checksums and download URLs", async () => {
    const { status, html } = await page("/releases/ada/widget/1.0.0");
    expect(status).toBe(200);
    expect(html).toContain("<title>Widget 1.0.0 · Packyard</title>");
    expect(html).toMatch(/<meta property="og:title" content="Widget 1.0.0 · Packyard"/);
    expect(html).toMatch(/<meta name="description" content="Widget 1.0.0 — First light by @ada\./);
    // Project header: owner, description, links, license.
    expect(html).toContain("@ada");
    expect(html).toContain("A tiny widget for testing");
    expect(html).toContain('href="https://widget.example"');
    expect(html).toContain('href="https://git.example/ada/widget"');
    expect(html).toContain("MIT");
    // Notes rendered from Markdown (GFM tables too); raw HTML only ever as text.
    expect(html).toContain("<strong>Faster</strong>");
    expect(html).toContain('href="https://example.com/changelog"');
    expect(html).toMatch(/<table[^>]*>/);
    expect(html).toContain("&lt;script&gt;alert(");
    expect(html).not.toContain("<script>alert(");
    // The file: size, sha256, a stable download URL, and the release's SHA256SUMS.
    expect(html).toContain("widget-1.0.0-linux-amd64.tar.gz");
    expect(html).toContain("13 B");
    expect(html).toContain(FILE_SHA256);
    expect(html).toContain(
      'href="http://localhost:3000/dl/ada/widget/releases/1.0.0/widget-1.0.0-linux-amd64.tar.gz"',
    );
    expect(html).toContain('href="http://localhost:3000/dl/ada/widget/releases/1.0.0/SHA256SUMS"');
    // The version picker lists every version, the yanked one marked.
    expect(html).toContain("2.0.0 (yanked)");
    expect(html).toContain("1.1.0 (latest)");
  });

  it("serves the download and the checksum list behind the page's links", async () => {
    const file = await app.request("/dl/ada/widget/releases/1.0.0/widget-1.0.0-linux-amd64.tar.gz");
    expect(file.status).toBe(200);
    expect(await file.text()).toBe(FILE_BODY);
    const sums = await app.request("/dl/ada/widget/releases/1.0.0/SHA256SUMS");
    expect(await sums.text()).toBe(`${FILE_SHA256}  widget-1.0.0-linux-amd64.tar.gz\n`);
  });

  it("resolves latest to the newest release that is not yanked", async () => {
    const { status, html } = await page("/releases/ada/widget/latest");
    expect(status).toBe(200);
    expect(html).toContain("Version 1.1.0");
    expect(html).toContain("<title>Widget 1.1.0 · Packyard</title>");
    expect(html).not.toContain("This release has been yanked");
  });

  it("shows a yanked release with a banner and its reason", async () => {
    const { status, html } = await page("/releases/ada/widget/2.0.0");
    expect(status).toBe(200);
    expect(html).toContain("This release has been yanked");
    expect(html).toContain("Broken build");
    expect(html).toContain("Go to the latest release (1.1.0)");
  });

  it("shows a project with no release, and one whose every release is yanked, without a release", async () => {
    for (const path of ["/releases/ada/empty/latest", "/releases/ada/withdrawn/latest"]) {
      const { status, html } = await page(path);
      expect(status, path).toBe(200);
      expect(html).toContain("No releases yet");
    }
    expect((await page("/releases/ada/empty/latest")).html).toContain("Empty Box");
  });

  it("answers an unknown release, project or owner with its own not-found view and 404", async () => {
    const release = await page("/releases/ada/widget/9.9.9");
    expect(release.status).toBe(404);
    expect(release.html).toContain("Release not found");
    expect(release.html).toContain("Go to the latest release");
    expect(release.html).toContain("Widget");
    for (const path of ["/releases/ada/nothing/latest", "/releases/nobody/widget/1.0.0"]) {
      const missing = await page(path);
      expect(missing.status, path).toBe(404);
      expect(missing.html).toContain("Project not found");
      expect(missing.html).toContain('href="/releases"');
    }
  });

  it("hides another user's private project exactly like a missing one, and shows it to its owner", async () => {
    const anonymous = await page("/releases/ada/secret/1.0.0");
    expect(anonymous.status).toBe(404);
    expect(anonymous.html).toContain("Project not found");
    expect(anonymous.html).not.toContain("Secret Sauce");
    const other = await page("/releases/ada/secret/latest", bob.cookie);
    expect(other.status).toBe(404);
    expect(other.html).not.toContain("Secret Sauce");
    const owner = await page("/releases/ada/secret/latest", ada.cookie);
    expect(owner.status).toBe(200);
    expect(owner.html).toContain("Secret Sauce");
    expect(owner.html).toContain("Private");
    expect(owner.html).toContain('content="noindex"');
  });

  it("redirects /releases/{username}/{projectSlug} (with or without a trailing slash) to latest", async () => {
    for (const path of ["/releases/ada/widget", "/releases/ada/widget/"]) {
      const res = await page(path);
      expect(res.status, path).toBe(302);
      expect(res.location).toBe("/releases/ada/widget/latest");
    }
  });
});

describe(`searching public projects (${databaseKind})`, () => {
  it("lists the public projects without a query, never the private ones", async () => {
    const { status, html } = await page("/releases");
    expect(status).toBe(200);
    for (const name of ["ada/widget", "ada/empty", "bob/gadget"]) expect(html).toContain(name);
    expect(html).not.toContain("ada/secret");
    expect(html).not.toContain("Secret Sauce");
  });

  it.each([
    ["widget", "ada/widget", "name"],
    ["GADG", "bob/gadget", "name, any case"],
    ["zebra", "bob/gadget", "description"],
    ["bob", "bob/gadget", "owner"],
  ])("finds %j (%s → %s)", async (q, expected) => {
    const { status, html } = await page(`/releases?q=${encodeURIComponent(q)}`);
    expect(status).toBe(200);
    expect(html).toContain(expected);
  });

  it("shows the latest version in each result", async () => {
    const { html } = await page("/releases?q=widget");
    expect(html).toContain("1.1.0");
    expect(html).not.toContain("bob/gadget");
  });

  it("never finds private projects, even for their owner", async () => {
    for (const cookie of [undefined, ada.cookie]) {
      const { html } = await page("/releases?q=secret", cookie);
      expect(html).not.toContain("ada/secret");
      expect(html).toContain("No matching projects");
    }
  });

  it("treats LIKE wildcards in the query as plain characters", async () => {
    for (const q of ["%", "_", "w_dget"]) {
      const { html } = await page(`/releases?q=${encodeURIComponent(q)}`);
      expect(html, q).toContain("No matching projects");
    }
  });
});
