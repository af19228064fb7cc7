// Plan limits enforced on the server (authorization.ts, decision 018), whatever the path: the
// API (and so the CLI and the browser's uploads) and the dashboard's form actions answer 403
// PLAN_LIMIT naming the limit and /pricing, and store nothing. Storage is tested against the real
// 2 GB of Basic by seeding the size of a file already stored, not by uploading gigabytes. An
// operator's plan (set-plan) moves the limits, a downgrade deletes nothing but refuses uploads
// until the account is within its limits, and PLAN_LIMITS=off lets everything through.
// SQLite and PostgreSQL.
import { plans } from "@packyard/contract/plans.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  publishingProject,
  storedState,
  type TestApp,
} from "../../test/harness.ts";
import { clearOperatorPlan, setOperatorPlan } from "./plan.ts";

const STORAGE = plans.basic.storageBytes;
const tables = ["release_file", "blob", "release", "deb_package", "yum_package"] as const;

interface Account {
  auth: Record<string, string>;
  userId: string;
}

/** A user with a publish key and a public project "open" holding one small file, seed.bin. */
async function account(app: TestApp, username: string): Promise<Account> {
  const { auth, userId } = await publishingProject(app, username, "open");
  expect((await put(app, auth, "open", "1.0.0", "seed.bin", "seed")).status).toBe(201);
  return { auth, userId };
}

function put(
  app: TestApp,
  auth: Record<string, string>,
  slug: string,
  version: string,
  filename: string,
  body: string,
  headers: Record<string, string> = {},
) {
  return app.request(`/api/v1/projects/${slug}/releases/${version}/files/${filename}`, {
    method: "PUT",
    headers: { ...auth, ...headers },
    body,
  });
}

/** A streamed body without Content-Length: its size is known only once it is read. */
function streamed(text: string): RequestInit {
  return {
    body: new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    }),
    duplex: "half",
  } as RequestInit;
}

function postJson(app: TestApp, auth: Record<string, string>, path: string, body: unknown, method = "POST") {
  return app.request(path, {
    method,
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function postForm(app: TestApp, path: string, values: Record<string, string>, cookie: string) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values).toString(),
    cookie,
  });
}

/** Makes the owner's stored files add up to `bytes` by resizing the seed file's row. */
async function seedStorage(app: TestApp, userId: string, bytes: number) {
  const db = app.services.database.db;
  const seed = await db
    .selectFrom("release_file")
    .innerJoin("release", "release.id", "release_file.release_id")
    .innerJoin("project", "project.id", "release.project_id")
    .select(["release_file.id", "release_file.size"])
    .where("project.owner_id", "=", userId)
    .where("release_file.filename", "=", "seed.bin")
    .executeTakeFirstOrThrow();
  const others = await db
    .selectFrom("release_file")
    .innerJoin("release", "release.id", "release_file.release_id")
    .innerJoin("project", "project.id", "release.project_id")
    .select((eb) => eb.fn.sum<number | string>("release_file.size").as("n"))
    .where("project.owner_id", "=", userId)
    .where("release_file.id", "!=", seed.id)
    .executeTakeFirst();
  await db
    .updateTable("release_file")
    .set({ size: bytes - Number(others?.n ?? 0) })
    .where("id", "=", seed.id)
    .execute();
}

async function refusal(res: Response, limit: "privateProjects" | "storage") {
  expect(res.status, await res.clone().text()).toBe(403);
  const { error } = (await res.json()) as {
    error: { code: string; message: string; details: Record<string, string> };
  };
  expect(error.code).toBe("PLAN_LIMIT");
  expect(error.message).toContain("/pricing");
  expect(error.details).toEqual({ limit, pricing: "/pricing" });
  return error.message;
}

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe(`private projects (${databaseKind})`, () => {
  it("the second private project on Basic is 403 PLAN_LIMIT, from the API and the dashboard's form", async () => {
    const { cookie, userId } = await onboardedUser(app, "privy");
    const auth = await keyFor(app, userId);
    expect(
      (await postJson(app, auth, "/api/v1/projects", { slug: "one", name: "One", visibility: "private" }))
        .status,
    ).toBe(201);
    const message = await refusal(
      await postJson(app, auth, "/api/v1/projects", { slug: "two", name: "Two", visibility: "private" }),
      "privateProjects",
    );
    expect(message).toContain("1 private project");

    const form = await postForm(
      app,
      "/projects",
      { intent: "create", slug: "three", name: "Three", visibility: "private" },
      cookie,
    );
    expect(form.status).toBe(403);
    const html = await form.text();
    expect(html).toContain("PLAN_LIMIT");
    expect(html).toContain("Your plan includes 1 private project. Upgrade on /pricing");
    const slugs = await app.services.database.db
      .selectFrom("project")
      .select("slug")
      .where("owner_id", "=", userId)
      .execute();
    expect(slugs.map((p) => p.slug)).toEqual(["one"]);
  });

  it("making a project private over the limit is refused, from the API and the dashboard's form", async () => {
    const { cookie, userId } = await onboardedUser(app, "flipper");
    const auth = await keyFor(app, userId);
    for (const [slug, visibility] of [
      ["hidden", "private"],
      ["shown", "public"],
    ] as const)
      expect((await postJson(app, auth, "/api/v1/projects", { slug, name: slug, visibility })).status).toBe(
        201,
      );
    await refusal(
      await postJson(app, auth, "/api/v1/projects/shown", { visibility: "private" }, "PATCH"),
      "privateProjects",
    );
    const form = await postForm(
      app,
      "/projects/shown",
      { intent: "update", name: "shown", visibility: "private" },
      cookie,
    );
    expect(form.status).toBe(403);
    expect(await form.text()).toContain("Upgrade on /pricing");
    const row = await app.services.database.db
      .selectFrom("project")
      .select("visibility")
      .where("slug", "=", "shown")
      .where("owner_id", "=", userId)
      .executeTakeFirstOrThrow();
    expect(row.visibility).toBe("public");
    // The private one itself can still be edited.
    expect(
      (
        await postJson(
          app,
          auth,
          "/api/v1/projects/hidden",
          { name: "Hidden", visibility: "private" },
          "PATCH",
        )
      ).status,
    ).toBe(200);
  });
});

describe(`storage (${databaseKind})`, () => {
  let owner: Account;
  beforeAll(async () => {
    owner = await account(app, "hoarder");
  });

  it("refuses an upload that would take the files past 2 GB, storing nothing, whatever the path", async () => {
    await seedStorage(app, owner.userId, STORAGE - 100);
    const before = await storedState(app, [...tables]);
    const body = "x".repeat(200);

    // Size declared: refused before the body is read.
    const declared = await put(app, owner.auth, "open", "2.0.0", "big.bin", body, {
      "content-length": "200",
    });
    const message = await refusal(declared, "storage");
    expect(message).toContain("Your Basic plan includes 2 GB of storage");
    expect(message).toContain("this file (200 B) would take them past it");
    // Size known once staged: a streamed PUT, then the browser's multipart upload.
    const chunked = await app.request("/api/v1/projects/open/releases/2.0.0/files/big.bin", {
      method: "PUT",
      headers: owner.auth,
      ...streamed(body),
    });
    await refusal(chunked, "storage");
    const form = new FormData();
    form.append("file", new Blob([body]), "big.bin");
    const multipart = await app.request("/api/v1/projects/open/releases/1.0.0/files", {
      method: "POST",
      headers: owner.auth,
      body: form,
    });
    await refusal(multipart, "storage");
    expect(await storedState(app, [...tables])).toEqual(before);

    // What fits is stored; the next byte past the limit is not.
    expect((await put(app, owner.auth, "open", "1.0.0", "fits.bin", "y".repeat(100))).status).toBe(201);
    await refusal(await put(app, owner.auth, "open", "1.0.0", "one-more.bin", "z"), "storage");
    expect((await app.request("/dl/hoarder/open/releases/1.0.0/fits.bin")).status).toBe(200);
  });

  it("an operator's plan (set-plan) moves the limits: Starter holds more, back on Basic uploads stop again", async () => {
    await setOperatorPlan(app.services.database.db, owner.userId, "starter");
    expect((await put(app, owner.auth, "open", "1.0.0", "starter.bin", "s".repeat(1000))).status).toBe(201);
    for (const slug of ["p1", "p2", "p3"])
      expect(
        (await postJson(app, owner.auth, "/api/v1/projects", { slug, name: slug, visibility: "private" }))
          .status,
      ).toBe(201);
    expect((await put(app, owner.auth, "p2", "1.0.0", "a.bin", "a")).status).toBe(201);

    // Downgrade: nothing is deleted, everything stays downloadable, uploads are refused.
    await clearOperatorPlan(app.services.database.db, owner.userId);
    const before = await storedState(app, [...tables]);
    const message = await refusal(await put(app, owner.auth, "p2", "1.0.0", "b.bin", "b"), "privateProjects");
    expect(message).toContain("Your Basic plan includes 1 private project and your account has 3");
    await refusal(await put(app, owner.auth, "open", "1.0.0", "c.bin", "c"), "storage");
    expect(await storedState(app, [...tables])).toEqual(before);
    expect((await app.request("/dl/hoarder/p2/releases/1.0.0/a.bin", { headers: owner.auth })).status).toBe(
      200,
    );
    expect((await app.request("/dl/hoarder/open/releases/1.0.0/starter.bin")).status).toBe(200);
  });
});

describe(`PLAN_LIMITS=off (${databaseKind})`, () => {
  let free: TestApp;
  beforeAll(async () => {
    free = await createTestApp({ PLAN_LIMITS: "off" });
  }, 60_000);
  afterAll(async () => {
    await free?.close();
  });

  it("lets private projects and storage past every plan's limits", async () => {
    const owner = await account(free, "unlimited");
    for (const slug of ["s1", "s2", "s3"])
      expect(
        (await postJson(free, owner.auth, "/api/v1/projects", { slug, name: slug, visibility: "private" }))
          .status,
      ).toBe(201);
    expect(
      (await postJson(free, owner.auth, "/api/v1/projects/open", { visibility: "private" }, "PATCH")).status,
    ).toBe(200);
    await seedStorage(free, owner.userId, plans.pro.storageBytes);
    expect(
      (await put(free, owner.auth, "s1", "1.0.0", "more.bin", "more", { "content-length": "4" })).status,
    ).toBe(201);
  });
});

/** A publish key for all of the user's projects. */
async function keyFor(app: TestApp, userId: string): Promise<Record<string, string>> {
  return bearer(await createApiKey(app, userId, { projects: "*", access: "publish" }));
}
