// Retention of container image tags (issue 41): with `keepImageTags` set, a run deletes each
// image's tags beyond its newest N (by when they were pushed), leaves their manifests pullable by
// digest, names them in the run's audit entry and `lastRun`, and announces each to webhooks; a
// push queues the run. SQLite, and PostgreSQL when configured.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  type TestApp,
} from "../../../test/harness.ts";
import { applyRetention } from "../../retention/run.ts";

let app: TestApp;
let key: string;
const sha = (bytes: string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const auth = () => ({ authorization: `Bearer ${key}` });

async function push(name: string, tag: string, layer: string) {
  for (const bytes of ["{}", layer]) {
    const res = await app.request(`/v2/${name}/blobs/uploads/?digest=${sha(bytes)}`, {
      method: "POST",
      headers: auth(),
      body: bytes,
    });
    expect(res.status).toBe(201);
  }
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: sha("{}"), size: 2 },
    layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: sha(layer), size: layer.length }],
  });
  const res = await app.request(`/v2/${name}/manifests/${tag}`, {
    method: "PUT",
    headers: { ...auth(), "content-type": "application/vnd.oci.image.manifest.v1+json" },
    body: manifest,
  });
  expect(res.status).toBe(201);
  return sha(manifest);
}

const tags = async (name: string) =>
  ((await (await app.request(`/v2/${name}/tags/list`)).json()) as { tags: string[] }).tags;

beforeAll(async () => {
  app = await createTestApp({ PLAN_LIMITS: "off" });
  const owner = await onboardedUser(app, "keeper");
  key = await createApiKey(app, owner.userId, { projects: "*", access: "publish" });
  const res = await app.request("/api/v1/projects", {
    method: "POST",
    headers: { ...auth(), "content-type": "application/json" },
    body: JSON.stringify({ slug: "tool", name: "Tool" }),
  });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await app?.close();
});

describe(`retention of image tags (${databaseKind})`, () => {
  it("keeps each image's newest N tags and leaves the others' manifests pullable by digest", async () => {
    const digests: Record<string, string> = {};
    for (const [i, tag] of ["1.0.0", "1.1.0", "1.2.0", "1.3.0"].entries()) {
      digests[tag] = await push("keeper/tool", tag, `layer ${i}`);
      await push("keeper/tool/cli", tag, `cli layer ${i}`);
      // Distinct push times, in order.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const saved = await app.request("/api/v1/projects/tool/retention", {
      method: "PUT",
      headers: { ...auth(), "content-type": "application/json" },
      body: JSON.stringify({ enabled: true, keepImageTags: 2 }),
    });
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { retention: { keepImageTags: number } }).retention.keepImageTags).toBe(
      2,
    );
    const { services } = app;
    const project = await services.database.db
      .selectFrom("project")
      .select("id")
      .where("slug", "=", "tool")
      .executeTakeFirstOrThrow();
    await applyRetention(
      { db: services.database.db, clock: services.clock, logger: services.logger },
      project.id,
    );
    expect(await tags("keeper/tool")).toEqual(["1.2.0", "1.3.0"]);
    expect(await tags("keeper/tool/cli")).toEqual(["1.2.0", "1.3.0"]);
    expect((await app.request(`/v2/keeper/tool/manifests/${digests["1.0.0"]}`)).status).toBe(200);
    // Saving with the rules on queued a run of its own (the job), which may have done part of
    // the work: the runs' entries together name every tag that went, once.
    const entries = await services.database.db
      .selectFrom("audit_event")
      .select(["details"])
      .where("action", "=", "retention.run")
      .execute();
    expect(entries.flatMap((e) => (JSON.parse(e.details).removedTags ?? []) as string[]).sort()).toEqual([
      "keeper/tool/cli:1.0.0",
      "keeper/tool/cli:1.1.0",
      "keeper/tool:1.0.0",
      "keeper/tool:1.1.0",
    ]);
    // Saving an empty value turns the rule off: nothing more goes.
    const off = await app.request("/api/v1/projects/tool/retention", {
      method: "PUT",
      headers: { ...auth(), "content-type": "application/json" },
      body: JSON.stringify({ keepImageTags: null }),
    });
    expect(((await off.json()) as { retention: { keepImageTags: null } }).retention.keepImageTags).toBeNull();
    await push("keeper/tool", "1.4.0", "layer 4");
    await applyRetention(
      { db: services.database.db, clock: services.clock, logger: services.logger },
      project.id,
    );
    expect(await tags("keeper/tool")).toEqual(["1.2.0", "1.3.0", "1.4.0"]);
  });
});
