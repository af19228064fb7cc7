// npm packages and Python distributions in a real browser (issue 42): a project's Libraries tab
// before anything is published (how to point npm, twine and pip at it), then with a scoped npm
// package of two versions (one deprecated, a dist-tag) published through the registry's PUT and
// a Python sdist uploaded through twine's form; the release page of a version shows its
// `npm install` and `pip install` lines. No axe violations, light and dark; nothing wider than a
// phone. SCREENSHOT_DIR: both pages at 1280 and 375 px, light and dark.
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { APIRequestContext } from "@playwright/test";
import {
  appOrigin,
  expect,
  noAxeViolations,
  overflows,
  shots,
  signUpAndOnboard,
  test,
  uniqueEmail,
} from "./support.ts";

/** A ustar archive of these files, gzipped: an npm tarball or an sdist. */
function targz(files: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, text] of Object.entries(files)) {
    const body = Buffer.from(text);
    const header = Buffer.alloc(512);
    header.write(name, 0, 100);
    header.write("0000644\0", 100);
    header.write("0000000\0", 108);
    header.write("0000000\0", 116);
    header.write(`${body.length.toString(8).padStart(11, "0")}\0`, 124);
    header.write(
      `${Math.floor(Date.now() / 1000)
        .toString(8)
        .padStart(11, "0")}\0`,
      136,
    );
    header.write("        ", 148);
    header.write("0", 156);
    header.write("ustar\0", 257);
    header.write("00", 263);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
    parts.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts));
}

const hash = (algorithm: string, bytes: Buffer, encoding: "hex" | "base64") =>
  createHash(algorithm).update(bytes).digest(encoding);

/** `npm publish` of one version, as the npm client sends it. */
async function npmPublish(
  request: APIRequestContext,
  key: string,
  registry: string,
  name: string,
  version: string,
) {
  const tarball = targz({
    "package/package.json": JSON.stringify({
      name,
      version,
      description: "The Widget SDK",
      main: "index.js",
    }),
    "package/index.js": "module.exports = 'widget';\n",
  });
  const file = `${name.slice(1).replace("/", "-")}-${version}.tgz`;
  const res = await request.put(`${registry}${encodeURIComponent(name)}`, {
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    data: JSON.stringify({
      _id: name,
      name,
      description: "The Widget SDK",
      "dist-tags": { latest: version },
      versions: {
        [version]: {
          name,
          version,
          description: "The Widget SDK",
          main: "index.js",
          _id: `${name}@${version}`,
          dist: {
            integrity: `sha512-${hash("sha512", tarball, "base64")}`,
            shasum: hash("sha1", tarball, "hex"),
            tarball: `${registry}${name}/-/${file}`,
          },
        },
      },
      _attachments: {
        [file]: {
          content_type: "application/octet-stream",
          data: tarball.toString("base64"),
          length: tarball.length,
        },
      },
    }),
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
}

/** `twine upload` of an sdist, as twine's legacy form sends it. */
async function twineUpload(request: APIRequestContext, key: string, url: string, version: string) {
  const base = `widget_sdk-${version}`;
  const sdist = targz({
    [`${base}/PKG-INFO`]: `Metadata-Version: 2.1\nName: widget-sdk\nVersion: ${version}\nSummary: The Widget SDK for Python\nRequires-Python: >=3.9\n`,
    [`${base}/widget_sdk/__init__.py`]: "VALUE = 'widget'\n",
  });
  const res = await request.post(url, {
    headers: { authorization: `Basic ${Buffer.from(`__token__:${key}`).toString("base64")}` },
    multipart: {
      ":action": "file_upload",
      protocol_version: "1",
      metadata_version: "2.1",
      name: "widget-sdk",
      version,
      summary: "The Widget SDK for Python",
      requires_python: ">=3.9",
      filetype: "sdist",
      pyversion: "source",
      md5_digest: hash("md5", sdist, "hex"),
      sha256_digest: hash("sha256", sdist, "hex"),
      content: { name: `${base}.tar.gz`, mimeType: "application/octet-stream", buffer: sdist },
    },
  });
  expect(res.status(), await res.text()).toBe(200);
}

test("the Libraries tab lists npm packages and Python distributions, and the release page shows their install lines", async ({
  page,
  consoleErrors: _,
}) => {
  const username = `librarian-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("librarian"), name: "Librarian", username });
  expect(
    (
      await page.request.post("/api/v1/projects", {
        headers: appOrigin(),
        data: { slug: "widget", name: "Widget", visibility: "public" },
      })
    ).status(),
  ).toBe(201);
  const key = (
    (await (
      await page.request.post("/api/v1/keys", {
        headers: appOrigin(),
        data: { name: "libraries", access: "publish", projects: ["widget"] },
      })
    ).json()) as { key: { key: string } }
  ).key.key;

  await page.goto("/projects/widget");
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Libraries" }).click();
  await expect(page.getByRole("heading", { name: "Libraries", level: 1 })).toBeVisible();
  await expect(page.getByText("No npm packages yet")).toBeVisible();
  await expect(page.getByText("No Python distributions yet")).toBeVisible();
  const origin = new URL(page.url()).origin;
  const registry = `${origin}/npm/${username}/widget/`;
  await expect(page.locator("code", { hasText: `@${username}:registry=${registry}` })).toBeVisible();
  await shots(page, "project-libraries-empty");

  const scoped = `@${username}/sdk`;
  await npmPublish(page.request, key, registry, scoped, "1.3.0");
  await npmPublish(page.request, key, registry, scoped, "1.4.0");
  const tag = await page.request.put(`${registry}-/package/${encodeURIComponent(scoped)}/dist-tags/stable`, {
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    data: JSON.stringify("1.3.0"),
  });
  expect(tag.status()).toBeLessThan(300);
  await twineUpload(page.request, key, `${origin}/pypi/${username}/widget/`, "1.4.0");

  await page.reload();
  const npmList = page.getByTestId("npm-packages");
  await expect(npmList).toContainText(scoped);
  await expect(npmList).toContainText("2 versions");
  await expect(npmList).toContainText("stable: 1.3.0");
  const pythonList = page.getByTestId("python-packages");
  await expect(pythonList).toContainText("widget-sdk");
  await expect(pythonList).toContainText("Python >=3.9");
  await expect(pythonList).toContainText("The Widget SDK for Python");
  await noAxeViolations(page);
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await overflows(page)).toBe(false);
  await page.setViewportSize({ width: 1280, height: 900 });
  await shots(page, "project-libraries");

  await page.goto(`/releases/${username}/widget/1.4.0`);
  await expect(page.getByRole("heading", { name: "Libraries" })).toBeVisible();
  await expect(page.locator("code", { hasText: `npm install ${scoped}@1.4.0` })).toBeVisible();
  await expect(
    page.locator("code", {
      hasText: `pip install widget-sdk==1.4.0 --index-url ${origin}/pypi/${username}/widget/simple/`,
    }),
  ).toBeVisible();
  await noAxeViolations(page);
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await overflows(page)).toBe(false);
  await page.setViewportSize({ width: 1280, height: 900 });
  await shots(page, "release-libraries");
});
