// The dashboard's retention section (project settings) and Promote dialog (release page) through
// their actions, in memory, posted as a browser without JavaScript would: the preview lists what
// the rules would delete and deletes nothing; saved rules are stored; a release is copied into
// another project; a missing target is answered next to its field. SQLite, and PostgreSQL when
// configured. Each change is one audit-log entry by the signed-in user, with their address.
// (The real runs, apt-get and dnf: server/retention and server/promotion tests.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
let cookie: string;

function post(path: string, values: Record<string, string>) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values).toString(),
    cookie,
  });
}

const audit = (action: string) =>
  app.services.database.db
    .selectFrom("audit_event")
    .select(["actor_kind", "target", "address"])
    .where("action", "=", action)
    .execute();

const releases = async (slug: string) =>
  (
    await app.services.database.db
      .selectFrom("release")
      .innerJoin("project", "project.id", "release.project_id")
      .select("release.version")
      .where("project.slug", "=", slug)
      .orderBy("release.version")
      .execute()
  ).map((r) => r.version);

beforeAll(async () => {
  app = await createTestApp();
  ({ cookie } = await onboardedUser(app, "curator"));
  for (const slug of ["tool", "tool-stable"]) {
    expect(
      (await post("/projects", { intent: "create", visibility: "public", slug, name: slug })).status,
    ).toBe(302);
  }
  for (const version of ["1.0.0", "2.0.0", "3.0.0"]) {
    expect((await post("/projects/tool/releases", { intent: "create", version })).status).toBe(302);
  }
});
afterAll(async () => {
  await app?.close();
});

describe(`retention and promotion in the dashboard (${databaseKind})`, () => {
  it("previews the rules as typed without saving or deleting, then saves them", async () => {
    const page = await (await app.request("/projects/tool/settings", { cookie })).text();
    expect(page).toContain("Retention");
    expect(page).toContain("Delete old releases automatically");

    const rules = { keepReleases: "1", minAgeDays: "0", countYanked: "on" };
    const preview = await post("/projects/tool/settings", { intent: "retention-preview", ...rules });
    expect(preview.status).toBe(200);
    const html = await preview.text();
    expect(html).toContain("2 of 3 releases would be deleted.");
    expect(html).toContain("Kept: one of the newest 1");
    expect(await releases("tool")).toEqual(["1.0.0", "2.0.0", "3.0.0"]);

    const bad = await post("/projects/tool/settings", {
      intent: "retention-save",
      ...rules,
      keepReleases: "0",
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Keep must be a whole number of releases from 1 to 10000");

    const saved = await post("/projects/tool/settings", {
      intent: "retention-save",
      ...rules,
      keepReleases: "2",
    });
    expect(saved.status).toBe(200);
    const row = await app.services.database.db
      .selectFrom("retention_policy")
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ enabled: 0, keep_releases: 2, count_yanked: 1, delete_latest: 0 });
    // Off: nothing deleted.
    expect(await releases("tool")).toEqual(["1.0.0", "2.0.0", "3.0.0"]);
    expect(await audit("retention.settings_changed")).toEqual([
      { actor_kind: "user", target: "off", address: expect.any(String) },
    ]);
  });

  it("by default neither counts yanked releases nor deletes the latest release; the preview warns when it would", async () => {
    // A project without rules shows the defaults: both boxes unticked.
    const fresh = await (await app.request("/projects/tool-stable/settings", { cookie })).text();
    for (const name of ["countYanked", "deleteLatest"]) {
      const box = new RegExp(`<input type="checkbox"[^>]*name="${name}"[^>]*>`).exec(fresh)?.[0];
      expect(box, name).toMatch(/^<input/);
      expect(box, name).not.toMatch(/\schecked/);
    }
    expect(fresh).toContain("May delete the latest release");

    const yanked = await post("/projects/tool/releases/3.0.0", { intent: "yank", reason: "broken" });
    expect(yanked.status).toBe(200);
    const rules = { keepReleases: "1", minAgeDays: "0", countYanked: "on" };
    const text = async (res: Response) => (await res.text()).replace(/<[^>]+>/g, "");
    // The yanked 3.0.0 takes the one place; 2.0.0, the latest, stays all the same.
    const guarded = await text(
      await post("/projects/tool/settings", { intent: "retention-preview", ...rules }),
    );
    expect(guarded).toContain("1 of 3 releases would be deleted.");
    expect(guarded).toContain("Kept: the latest release");
    expect(guarded).not.toContain("the latest release;");
    // Allowed to, the rules delete it, and the preview says so.
    const allowed = await text(
      await post("/projects/tool/settings", { intent: "retention-preview", ...rules, deleteLatest: "on" }),
    );
    expect(allowed).toContain("2 of 3 releases would be deleted.");
    expect(allowed).toContain(
      "These rules delete 2.0.0, the latest release; no release would then be latest.",
    );
    expect(await releases("tool")).toEqual(["1.0.0", "2.0.0", "3.0.0"]);
  });

  it("promotes a release into another project from the release page; a missing target is refused", async () => {
    const page = await (await app.request("/projects/tool/releases/2.0.0", { cookie })).text();
    expect(page).toContain("Promote");

    const missing = await post("/projects/tool/releases/2.0.0", { intent: "promote", project: "nowhere" });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("You have no project named nowhere to promote to");

    const copied = await post("/projects/tool/releases/2.0.0", { intent: "promote", project: "tool-stable" });
    expect(copied.status).toBe(200);
    expect(await releases("tool-stable")).toEqual(["2.0.0"]);
    expect(await audit("release.promoted")).toEqual([
      { actor_kind: "user", target: "2.0.0", address: expect.any(String) },
    ]);
  });
});
