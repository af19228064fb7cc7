// The project's repository settings page (decision 027) through its loader and action, in
// memory: the defaults shown, the form's messages, and a saved change reaching the Release file.
// SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
let cookie: string;
beforeAll(async () => {
  app = await createTestApp();
  ({ cookie } = await onboardedUser(app, "settler"));
  const res = await post("/projects", { intent: "create", visibility: "public", slug: "tool", name: "Tool" });
  expect(res.status).toBe(302);
});
afterAll(async () => {
  await app?.close();
});

function post(path: string, values: Record<string, string>) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values).toString(),
    cookie,
  });
}

const form = (values: Record<string, string> = {}) => ({
  keyExpiryDays: "",
  aptValidUntilDays: "7",
  aptOrigin: "",
  aptLabel: "",
  aptCodename: "",
  ...values,
});

async function project() {
  return app.services.database.db
    .selectFrom("project")
    .selectAll()
    .where("slug", "=", "tool")
    .executeTakeFirstOrThrow();
}

describe(`repository settings page (${databaseKind})`, () => {
  it("shows the defaults and the key in use, linked from the project page", async () => {
    expect(await (await app.request("/projects/tool", { cookie })).text()).toContain(
      'href="/projects/tool/settings"',
    );
    const res = await app.request("/projects/tool/settings", { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Repository settings");
    expect(html).toContain('placeholder="Packyard"');
    expect(html).toContain('placeholder="settler/tool"');
    expect(html).toContain('placeholder="stable"');
    const [key] = await app.services.keys.all((await project()).id);
    expect(html).toContain(key!.fingerprint);
    expect(html).toContain("never expires");
  });

  it("answers the form's mistakes next to the fields, and saves nothing", async () => {
    const res = await post(
      "/projects/tool/settings",
      form({ keyExpiryDays: "30", aptValidUntil: "on", aptValidUntilDays: "", aptCodename: "two words" }),
    );
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("Key expiry must be a whole number of days from 90 to 3650, or none");
    expect(html).toContain("Enter how many days a signed Release stays valid");
    expect(html).toContain("Codename must start with a letter or digit");
    expect(await project()).toMatchObject({
      key_expiry_days: null,
      apt_valid_until_days: null,
      apt_codename: null,
    });
  });

  it("saves the settings; keys made from then on carry the expiry", async () => {
    const res = await post(
      "/projects/tool/settings",
      form({
        keyExpiryDays: "365",
        aptValidUntil: "on",
        aptValidUntilDays: "10",
        aptOrigin: "Example Corp",
        aptLabel: "Example Tools",
        aptCodename: "widget",
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Repository settings saved");
    const row = await project();
    expect(row).toMatchObject({
      key_expiry_days: 365,
      apt_valid_until_days: 10,
      apt_origin: "Example Corp",
      apt_label: "Example Tools",
      apt_codename: "widget",
    });
    // Keys made from now on expire; the current one is unchanged (a rotation applies it now).
    const rotated = await app.services.keys.rotate(row);
    expect(Date.parse(rotated.expires_at!) - Date.parse(rotated.created_at)).toBe(365 * 24 * 3600 * 1000);

    // Unticking Valid-Until turns it off; emptied fields go back to their defaults.
    expect((await post("/projects/tool/settings", form({ keyExpiryDays: "365" }))).status).toBe(200);
    expect(await project()).toMatchObject({
      apt_valid_until_days: null,
      apt_origin: null,
      apt_label: null,
      apt_codename: null,
    });
  });
});
