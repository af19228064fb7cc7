// Public URLs after a username change (decision 014): the old name answers 301 to the same URL
// with the new one — release pages, /dl release files and checksums, the APT repository
// (InRelease, Packages, pool), the YUM repository (repomd.xml), keys and set-up scripts, and
// /api/p — for GET and HEAD, the query kept; the URLs are found whatever the case of the name;
// after the hold the old name is nobody's and its URLs are 404. In memory, SQLite and PostgreSQL.
import { readFileSync } from "node:fs";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildTestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  signUpVerified,
  TEST_ORIGIN,
  type TestApp,
} from "../../test/harness.ts";

const hasRpmbuild = requireTools(["rpmbuild"]);

let app: TestApp;
let ada: { cookie: string; userId: string };
let auth: Record<string, string>;
const OLD = "ada";
const NEW = "Ada_Lovelace";
const FILE = "widget-1.0.0-linux-amd64.tar.gz";
let poolPath = "";
let rpmName = "";

const deb = buildTestDeb({
  control: `Package: widget
Version: 1.0.0
Architecture: amd64
Maintainer: Packyard Tests <tests@example.com>
Description: widget for the username redirect tests
 One script.
`,
  dataFiles: [{ name: "./usr/bin/widget", data: "#!/bin/sh\necho widget\n" }],
});

async function put(slug: string, version: string, filename: string, body: Uint8Array | string) {
  const res = await app.request(`/api/v1/projects/${slug}/releases/${version}/files/${filename}`, {
    method: "PUT",
    headers: auth,
    body: typeof body === "string" ? body : Buffer.from(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** POSTs the profile form as a browser without JavaScript does. */
function saveProfile(cookie: string, fields: Record<string, string>) {
  return app.request("/profile", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
    cookie,
  });
}

/** GET (or HEAD) without following redirects. */
const get = (path: string, init: RequestInit = {}) => app.request(path, { redirect: "manual", ...init });

/** Follows one redirect on the same app, as apt and dnf would. */
async function follow(res: Response, init: RequestInit = {}) {
  const location = res.headers.get("location")!;
  const url = new URL(location, TEST_ORIGIN);
  expect(url.origin).toBe(TEST_ORIGIN);
  return get(`${url.pathname}${url.search}`, init);
}

async function expectMoved(path: string, method: "GET" | "HEAD" = "GET") {
  const res = await get(path, { method });
  expect(res.status, `${method} ${path}`).toBe(301);
  const expected = path.replace(`/${OLD}/`, `/${NEW}/`);
  expect(res.headers.get("location"), `${method} ${path}`).toBe(
    path.startsWith("/releases/") ? expected : `${TEST_ORIGIN}${expected}`,
  );
  return res;
}

beforeAll(async () => {
  app = await createTestApp();
  ada = await onboardedUser(app, OLD);
  auth = bearer(await createApiKey(app, ada.userId, { projects: "*", access: "publish" }));
  for (const [slug, visibility] of [
    ["widget", "public"],
    ["secret", "private"],
  ] as const) {
    const res = await app.request("/api/v1/projects", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ slug, name: slug, visibility }),
    });
    expect(res.status).toBe(201);
  }
  await put("widget", "1.0.0", FILE, "hello widget\n");
  await put("widget", "1.0.0", "widget_1.0.0_amd64.deb", deb);
  if (hasRpmbuild) {
    const rpms = buildTestRpms();
    rpmName = rpms.alpha.split("/").pop()!;
    await put("widget", "1.0.0", rpmName, readFileSync(rpms.alpha));
    rpms.cleanup();
  }
  const packages = await (await get(`/dl/${OLD}/widget/deb/dists/stable/main/binary-amd64/Packages`)).text();
  poolPath = /^Filename: (.+)$/m.exec(packages)![1]!;

  const renamed = await saveProfile(ada.cookie, { username: NEW, name: "Ada Lovelace" });
  expect(renamed.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe(`URLs with an old username (${databaseKind})`, () => {
  it("release pages: 301 to the new name, query kept; another case of the name: 301 to the name as written", async () => {
    await expectMoved(`/releases/${OLD}/widget/1.0.0?utm=x`);
    await expectMoved(`/releases/${OLD}/widget/latest`);
    await expectMoved(`/releases/${OLD}/widget`);
    const page = await follow(await get(`/releases/${OLD}/widget/1.0.0`));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("widget");

    const cased = await get("/releases/ADA_LOVELACE/widget/1.0.0?tab=files");
    expect(cased.status).toBe(301);
    expect(cased.headers.get("location")).toBe(`/releases/${NEW}/widget/1.0.0?tab=files`);
    expect((await get(`/releases/${NEW}/widget/1.0.0`)).status).toBe(200);
    // A project the old owner never had is not found at the new name either: one redirect, then 404.
    const missing = await follow(await get(`/releases/${OLD}/nothing/1.0.0`));
    expect(missing.status).toBe(404);
  });

  it("/dl release files and checksums: 301 for GET and HEAD, then the file", async () => {
    for (const method of ["GET", "HEAD"] as const) {
      await expectMoved(`/dl/${OLD}/widget/releases/1.0.0/${FILE}?src=readme`, method);
      await expectMoved(`/dl/${OLD}/widget/releases/latest/SHA256SUMS`, method);
    }
    const moved = await expectMoved(`/dl/${OLD}/widget/releases/1.0.0/${FILE}`);
    expect(moved.headers.get("cache-control")).toBe("public, max-age=3600");
    const file = await follow(moved);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe("hello widget\n");
  });

  it("the APT repository: InRelease, Packages and the pool move, and are served at the new name", async () => {
    for (const path of [
      "deb/dists/stable/InRelease",
      "deb/dists/stable/main/binary-amd64/Packages",
      `deb/${poolPath}`,
    ]) {
      const moved = await expectMoved(`/dl/${OLD}/widget/${path}`);
      const served = await follow(moved);
      expect(served.status, path).toBe(200);
    }
    const inRelease = await (await get(`/dl/${NEW}/widget/deb/dists/stable/InRelease`)).text();
    expect(inRelease).toContain("-----BEGIN PGP SIGNED MESSAGE-----");
  });

  it.runIf(hasRpmbuild)("the YUM repository: repomd.xml and its packages move", async () => {
    const moved = await expectMoved(`/dl/${OLD}/widget/rpm/repodata/repomd.xml`);
    const repomd = await follow(moved);
    expect(repomd.status).toBe(200);
    expect(await repomd.text()).toContain("<repomd");
    await expectMoved(`/dl/${OLD}/widget/rpm/repodata/repomd.xml.asc`);
  });

  it("keys and set-up scripts move; the script at the new name names the new name", async () => {
    for (const path of ["gpg.key", "keyring.gpg", "setup.deb.sh", "setup.rpm.sh", "rpm/widget.repo"]) {
      const served = await follow(await expectMoved(`/dl/${OLD}/widget/${path}`));
      expect(served.status, path).toBe(200);
    }
    expect(await (await get(`/dl/${NEW}/widget/gpg.key`)).text()).toContain("BEGIN PGP PUBLIC KEY BLOCK");
    const script = await (await get(`/dl/${OLD.toUpperCase()}_lovelace/widget/setup.deb.sh`)).text();
    expect(script).toContain(`/dl/${NEW}/widget/deb`);
    expect(script).not.toContain(`/dl/${OLD}/`);
  });

  it("/api/p: 301 to the new name; the answer names the new name", async () => {
    await expectMoved(`/api/p/${OLD}/widget`);
    const release = await follow(await expectMoved(`/api/p/${OLD}/widget/1.0.0?x=1`));
    expect(release.status).toBe(200);
    const body = await release.json();
    expect(body.project.owner).toBe(NEW);
    expect(JSON.stringify(body.release)).toContain(`/dl/${NEW}/widget/releases/1.0.0/`);
  });

  it("/dl and /api/p find the name whatever its case, without a redirect", async () => {
    for (const name of ["ada_lovelace", "ADA_LOVELACE", NEW]) {
      const file = await get(`/dl/${name}/widget/releases/1.0.0/${FILE}`);
      expect(file.status, name).toBe(200);
      expect(await file.text()).toBe("hello widget\n");
      expect((await get(`/dl/${name}/widget/deb/dists/stable/InRelease`)).status).toBe(200);
      const project = await get(`/api/p/${name}/widget`);
      expect(project.status).toBe(200);
      expect((await project.json()).project.owner).toBe(NEW);
    }
    const release = await (await get("/api/p/ada_LOVELACE/widget/1.0.0")).json();
    expect(JSON.stringify(release.release)).toContain(`/dl/${NEW}/widget/releases/1.0.0/`);
  });

  it("a private repository is served at the old name to a caller who may see it; to anyone else the old name answers as for any project", async () => {
    // apt's auth.conf.d entry names the old path, and apt does not send it to a redirect's target.
    for (const path of ["gpg.key", "keyring.gpg", "setup.deb.sh"]) {
      const res = await get(`/dl/${OLD}/secret/${path}`, { headers: auth });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("cache-control")).toBe("private, no-store");
    }
    // Anonymous: the same 301 as for a project that does not exist, then 404 at the new name.
    const anonymous = await expectMoved(`/dl/${OLD}/secret/gpg.key`);
    await expectMoved(`/dl/${OLD}/no-such-project/gpg.key`);
    expect((await follow(anonymous)).status).toBe(404);
    expect((await follow(anonymous, { headers: auth })).status).toBe(200);
    // Pages and /api/p redirect whoever asks.
    await expectMoved(`/releases/${OLD}/secret/latest`);
  });

  it("another user cannot take the old name, in any case; the owner keeps the new one", async () => {
    const eve = await onboardedUser(app, "eve");
    for (const username of [OLD, "ADA", "ada_lovelace"]) {
      const res = await saveProfile(eve.cookie, { username, name: "Eve" });
      expect(res.status, username).toBe(409);
      expect(await res.text()).toContain("This username is already taken");
    }
    // Nor at onboarding (a fresh sign-up).
    const cookie = await signUpVerified(app, { email: "mallory@example.com" });
    const onboarding = await app.request("/onboarding", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: "Mallory", username: OLD }).toString(),
      cookie,
    });
    expect(onboarding.status).toBe(409);
    expect(await onboarding.text()).toContain("This username is already taken");
  });

  it("after the hold the old URLs are 404, and the name is free", async () => {
    const db = app.services.database.db;
    const longAgo = new Date(Date.now() - 91 * 24 * 60 * 60 * 1000).toISOString();
    await db
      .updateTable("username_history")
      .set({ released_at: longAgo })
      .where("name_key", "=", OLD)
      .execute();
    expect((await get(`/dl/${OLD}/widget/releases/1.0.0/${FILE}`)).status).toBe(404);
    expect((await get(`/dl/${OLD}/widget/deb/dists/stable/InRelease`)).status).toBe(404);
    expect((await get(`/api/p/${OLD}/widget`)).status).toBe(404);
    expect((await get(`/releases/${OLD}/widget/1.0.0`)).status).toBe(404);
    const frank = await onboardedUser(app, "frank");
    const res = await saveProfile(frank.cookie, { username: OLD, name: "Frank" });
    expect(res.status).toBe(200);
    // The name is Frank's now: his (empty) URLs, no redirect to Ada.
    expect((await get(`/dl/${OLD}/widget/releases/1.0.0/${FILE}`)).status).toBe(404);
    expect((await get(`/dl/${NEW}/widget/releases/1.0.0/${FILE}`)).status).toBe(200);
  });
});
