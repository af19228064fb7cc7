// The signed-in project pages through their route actions and loaders, in memory: creating
// projects (with the contract's and the domain's messages), editing and deleting them, and
// creating, editing, yanking and unyanking releases. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectLeftovers } from "../../../server/maintenance.ts";
import { createTestApp, databaseKind, signUpVerified, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

let counter = 0;
/** A verified, onboarded user; returns the session cookie and username. */
async function onboardedUser(prefix: string): Promise<{ cookie: string; username: string }> {
  counter += 1;
  const username = `${prefix}-${counter}`;
  const cookie = await signUpVerified(app, { email: `${username}@example.com` });
  const res = await postForm("/onboarding", { name: "Pat Publisher", username }, cookie);
  expect(res.status).toBe(302);
  return { cookie, username };
}

function postForm(path: string, values: Record<string, string>, cookie: string) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values).toString(),
    cookie,
  });
}

const newProject = (values: Record<string, string>, cookie: string) =>
  postForm("/projects", { intent: "create", visibility: "public", ...values }, cookie);

async function projectRow(slug: string) {
  return app.services.database.db
    .selectFrom("project")
    .selectAll()
    .where("slug", "=", slug)
    .executeTakeFirst();
}

async function releaseRow(version: string) {
  return app.services.database.db
    .selectFrom("release")
    .selectAll()
    .where("version", "=", version)
    .executeTakeFirst();
}

describe(`creating projects (${databaseKind})`, () => {
  it("creates a project from the form and goes to its page", async () => {
    const { cookie, username } = await onboardedUser("maker");
    const res = await newProject(
      {
        slug: "hello-cli",
        name: "Hello CLI",
        description: "Says hello.",
        homepage: "https://hello.example",
        sourceUrl: "",
        license: "MIT",
      },
      cookie,
    );
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/projects/hello-cli?created=1");
    const row = await projectRow("hello-cli");
    expect(row).toMatchObject({
      name: "Hello CLI",
      description: "Says hello.",
      visibility: "public",
      homepage: "https://hello.example",
      source_url: null,
      license: "MIT",
    });

    const list = await app.request("/projects", { cookie });
    expect(list.status).toBe(200);
    const html = await list.text();
    expect(html).toContain("Hello CLI");
    expect(html).toContain("hello-cli");

    const page = await app.request("/projects/hello-cli", { cookie });
    expect(page.status).toBe(200);
    const pageHtml = await page.text();
    expect(pageHtml).toContain("Says hello.");
    expect(pageHtml).toContain(`${username}/hello-cli`);
  });

  it("shows the contract's messages next to invalid fields", async () => {
    const { cookie } = await onboardedUser("invalid");
    const res = await newProject({ slug: "Not A Slug", name: "", homepage: "ftp://x.example" }, cookie);
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(
      "Slug must be lowercase letters, numbers and hyphens (no leading/trailing hyphen)",
    );
    expect(html).toContain("Name is required");
    expect(html).toContain("Must be an http(s) URL");
  });

  it("refuses a slug the user already has (PROJECT_EXISTS), but another user may use it", async () => {
    const { cookie } = await onboardedUser("dup");
    expect((await newProject({ slug: "twice", name: "Twice" }, cookie)).status).toBe(302);
    const again = await newProject({ slug: "twice", name: "Twice again" }, cookie);
    expect(again.status).toBe(409);
    const html = await again.text();
    expect(html).toContain("You already have a project named twice");
    expect(html).toContain("PROJECT_EXISTS");

    const other = await onboardedUser("other");
    expect((await newProject({ slug: "twice", name: "Someone else's" }, other.cookie)).status).toBe(302);
  });

  it("allows one private project on the Basic plan, then answers PLAN_LIMIT pointing to /pricing", async () => {
    const { cookie } = await onboardedUser("private");
    const first = await newProject({ slug: "secret-1", name: "Secret 1", visibility: "private" }, cookie);
    expect(first.status).toBe(302);
    expect((await projectRow("secret-1"))?.visibility).toBe("private");

    const second = await newProject({ slug: "secret-2", name: "Secret 2", visibility: "private" }, cookie);
    expect(second.status).toBe(403);
    const html = await second.text();
    expect(html).toContain("Your plan includes 1 private project. Upgrade on /pricing for more");
    expect(html).toContain("PLAN_LIMIT");
    expect(await projectRow("secret-2")).toBeUndefined();

    // Public projects are unlimited.
    expect((await newProject({ slug: "open-2", name: "Open 2" }, cookie)).status).toBe(302);
  });
});

describe(`a project's page (${databaseKind})`, () => {
  it("answers 404 for an unknown slug and for another user's project", async () => {
    const owner = await onboardedUser("owner");
    expect((await newProject({ slug: "mine", name: "Mine" }, owner.cookie)).status).toBe(302);
    expect((await app.request("/projects/no-such-project", { cookie: owner.cookie })).status).toBe(404);
    const stranger = await onboardedUser("stranger");
    for (const path of ["/projects/mine", "/projects/mine/releases", "/projects/mine/releases/1.0.0"]) {
      const res = await app.request(path, { cookie: stranger.cookie });
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("Page Not Found");
    }
    const post = await postForm("/projects/mine", { intent: "delete", confirm: "mine" }, stranger.cookie);
    expect(post.status).toBe(404);
    expect(await projectRow("mine")).toBeDefined();
  });

  it("edits a project, and refuses a second private project there too", async () => {
    const { cookie } = await onboardedUser("editor");
    expect(
      (await newProject({ slug: "edit-me", name: "Edit me", homepage: "https://a.example" }, cookie)).status,
    ).toBe(302);
    const res = await postForm(
      "/projects/edit-me",
      {
        intent: "update",
        name: "Edited",
        description: "Now with a description",
        visibility: "private",
        homepage: "",
        sourceUrl: "https://git.example/edit-me",
        license: "Apache-2.0",
      },
      cookie,
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Project updated");
    expect(await projectRow("edit-me")).toMatchObject({
      name: "Edited",
      description: "Now with a description",
      visibility: "private",
      homepage: null,
      source_url: "https://git.example/edit-me",
      license: "Apache-2.0",
    });

    // Fields the form doesn't send are left alone.
    expect((await postForm("/projects/edit-me", { intent: "update", license: "MIT" }, cookie)).status).toBe(
      200,
    );
    expect(await projectRow("edit-me")).toMatchObject({
      name: "Edited",
      description: "Now with a description",
      source_url: "https://git.example/edit-me",
      license: "MIT",
    });

    expect((await newProject({ slug: "edit-me-too", name: "Edit me too" }, cookie)).status).toBe(302);
    const limited = await postForm(
      "/projects/edit-me-too",
      { intent: "update", name: "Edit me too", visibility: "private" },
      cookie,
    );
    expect(limited.status).toBe(403);
    expect(await limited.text()).toContain("Upgrade on /pricing");
    expect((await projectRow("edit-me-too"))?.visibility).toBe("public");
  });

  it("deletes a project only when its slug is typed, then collects its files", async () => {
    const { cookie, username } = await onboardedUser("deleter");
    expect((await newProject({ slug: "doomed", name: "Doomed" }, cookie)).status).toBe(302);
    const upload = await app.request("/api/v1/projects/doomed/releases/1.0.0/files/doomed.tar.gz", {
      method: "PUT",
      body: new TextEncoder().encode("bytes only this project has"),
      cookie,
    });
    expect(upload.status).toBe(201);
    const { file } = await upload.json();

    for (const confirm of ["", "Doomed", "doomed-not", `${username}/doomed`]) {
      const res = await postForm("/projects/doomed", { intent: "delete", confirm }, cookie);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("Type doomed to confirm that you want to delete this project");
      expect(await projectRow("doomed")).toBeDefined();
    }

    const res = await postForm("/projects/doomed", { intent: "delete", confirm: "doomed" }, cookie);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/projects?deleted=doomed");
    expect(await projectRow("doomed")).toBeUndefined();
    expect((await app.request("/projects/doomed", { cookie })).status).toBe(404);
    // Deleting removed the rows; the bytes go with the sweep after the grace period (decision 022).
    expect(await app.services.blobs.exists(file.sha256)).toBe(true);
    expect((await collectLeftovers(app.services, 0)).unreferencedBlobs).toBeGreaterThanOrEqual(1);
    const blob = await app.services.database.db
      .selectFrom("blob")
      .select("sha256")
      .where("sha256", "=", file.sha256)
      .executeTakeFirst();
    expect(blob).toBeUndefined();
    expect(await app.services.blobs.exists(file.sha256)).toBe(false);
  });
});

describe(`releases (${databaseKind})`, () => {
  let cookie: string;
  beforeAll(async () => {
    ({ cookie } = await onboardedUser("releaser"));
    expect((await newProject({ slug: "tool", name: "Tool" }, cookie)).status).toBe(302);
  });

  it("creates a release and goes to its page", async () => {
    const res = await postForm(
      "/projects/tool/releases",
      { intent: "create", version: "2.0.0", title: "Big one", notes: "## Changes\n\n- everything" },
      cookie,
    );
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/projects/tool/releases/2.0.0?created=1");
    expect(await releaseRow("2.0.0")).toMatchObject({
      title: "Big one",
      notes: "## Changes\n\n- everything",
    });

    const list = await app.request("/projects/tool/releases", { cookie });
    expect(list.status).toBe(200);
    expect(await list.text()).toContain("Big one");
    const page = await app.request("/projects/tool/releases/2.0.0", { cookie });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Big one");
  });

  it("shows VERSION_EXISTS and invalid versions on the version field", async () => {
    expect(
      (await postForm("/projects/tool/releases", { intent: "create", version: "3.0.0" }, cookie)).status,
    ).toBe(302);
    const again = await postForm("/projects/tool/releases", { intent: "create", version: "3.0.0" }, cookie);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("Release 3.0.0 already exists");

    for (const [version, message] of [
      ["not a version", "Version may contain only letters, digits and . + ~ _ -"],
      ["latest", "This version name is reserved"],
      ["", "Version is required"],
    ]) {
      const res = await postForm("/projects/tool/releases", { intent: "create", version: version! }, cookie);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain(message);
    }
  });

  it("sends /releases/latest to the newest release that isn't yanked", async () => {
    const res = await app.request("/projects/tool/releases/latest", { cookie });
    expect(res.status).toBe(302);
    const latest = await app.services.database.db
      .selectFrom("release")
      .select("version")
      .where("yanked", "=", 0)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(res.headers.get("location")).toBe(`/projects/tool/releases/${encodeURIComponent(latest.version)}`);
  });

  it("answers 404 for an unknown release", async () => {
    expect((await app.request("/projects/tool/releases/9.9.9", { cookie })).status).toBe(404);
    expect((await postForm("/projects/tool/releases/9.9.9", { intent: "unyank" }, cookie)).status).toBe(404);
  });

  it("saves a release's title and notes", async () => {
    await postForm("/projects/tool/releases", { intent: "create", version: "4.0.0" }, cookie);
    const res = await postForm(
      "/projects/tool/releases/4.0.0",
      { intent: "update", title: "Renamed", notes: "Fixed **things**" },
      cookie,
    );
    expect(res.status).toBe(200);
    expect(await releaseRow("4.0.0")).toMatchObject({ title: "Renamed", notes: "Fixed **things**" });
    await postForm("/projects/tool/releases/4.0.0", { intent: "update", title: "", notes: "" }, cookie);
    expect(await releaseRow("4.0.0")).toMatchObject({ title: null, notes: null });
  });

  it("yanks a release only with a reason, shows the reason, and unyanks it", async () => {
    await postForm("/projects/tool/releases", { intent: "create", version: "5.0.0" }, cookie);

    const noReason = await postForm(
      "/projects/tool/releases/5.0.0",
      { intent: "yank", reason: "   " },
      cookie,
    );
    expect(noReason.status).toBe(400);
    expect(await noReason.text()).toContain("A reason is required");
    expect((await releaseRow("5.0.0"))?.yanked).toBe(0);

    const yank = await postForm(
      "/projects/tool/releases/5.0.0",
      { intent: "yank", reason: "Built with the wrong compiler" },
      cookie,
    );
    expect(yank.status).toBe(200);
    expect(await yank.text()).toContain("Release 5.0.0 yanked");
    const yanked = await releaseRow("5.0.0");
    expect(yanked).toMatchObject({ yanked: 1, yanked_reason: "Built with the wrong compiler" });
    expect(yanked?.yanked_at).toBeTruthy();

    const page = await (await app.request("/projects/tool/releases/5.0.0", { cookie })).text();
    expect(page).toContain("This release was yanked");
    expect(page).toContain("Built with the wrong compiler");
    // The list marks it, and latest skips it.
    const list = await (await app.request("/projects/tool/releases", { cookie })).text();
    expect(list).toContain("Yanked");

    const unyank = await postForm("/projects/tool/releases/5.0.0", { intent: "unyank" }, cookie);
    expect(unyank.status).toBe(200);
    expect(await releaseRow("5.0.0")).toMatchObject({ yanked: 0, yanked_reason: null, yanked_at: null });
    expect(await (await app.request("/projects/tool/releases/5.0.0", { cookie })).text()).not.toContain(
      "This release was yanked",
    );
  });

  it("deletes a file through the action", async () => {
    await postForm("/projects/tool/releases", { intent: "create", version: "6.0.0" }, cookie);
    const put = await app.request("/api/v1/projects/tool/releases/6.0.0/files/tool-6.0.0.zip", {
      method: "PUT",
      body: new TextEncoder().encode("zip-ish"),
      cookie,
    });
    expect(put.status).toBe(201);
    const page = await (await app.request("/projects/tool/releases/6.0.0", { cookie })).text();
    expect(page).toContain("tool-6.0.0.zip");

    const res = await postForm(
      "/projects/tool/releases/6.0.0",
      { intent: "delete-file", filename: "tool-6.0.0.zip" },
      cookie,
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Deleted tool-6.0.0.zip");
    const files = await app.request("/api/v1/projects/tool/releases/6.0.0/files", { cookie });
    expect((await files.json()).files).toEqual([]);

    const again = await postForm(
      "/projects/tool/releases/6.0.0",
      { intent: "delete-file", filename: "tool-6.0.0.zip" },
      cookie,
    );
    expect(again.status).toBe(404);
    expect(await again.text()).toContain("tool-6.0.0.zip was already deleted");
  });
});

describe(`the dashboard (${databaseKind})`, () => {
  it("counts projects and releases and lists the most recent releases", async () => {
    const { cookie } = await onboardedUser("counter");
    const empty = await (await app.request("/dashboard", { cookie })).text();
    expect(empty).toContain("No projects yet");

    await newProject({ slug: "alpha", name: "Alpha" }, cookie);
    await newProject({ slug: "beta", name: "Beta" }, cookie);
    await postForm("/projects/alpha/releases", { intent: "create", version: "0.1.0" }, cookie);
    await postForm("/projects/beta/releases", { intent: "create", version: "0.9.0-rc.1" }, cookie);
    await app.request("/api/v1/projects/beta/releases/0.9.0-rc.1/files/beta.tar.gz", {
      method: "PUT",
      body: new Uint8Array(2048),
      cookie,
    });

    const res = await app.request("/dashboard", { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain("No projects yet");
    expect(html).toMatch(/data-testid="stat-projects"[\s\S]*?>2<\/dd>/);
    expect(html).toMatch(/data-testid="stat-releases"[\s\S]*?>2<\/dd>/);
    expect(html).toMatch(/data-testid="stat-storage-used"[\s\S]*?>2 KB<\/dd>/);
    expect(html).toContain("/projects/beta/releases/0.9.0-rc.1");
    expect(html).toContain("/projects/alpha/releases/0.1.0");
  });
});
