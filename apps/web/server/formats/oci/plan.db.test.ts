// Container images against the owner's plan (issue 41): storage counts each distinct blob and
// manifest of the owner's images once — a layer in two images and under three tags is one layer
// — beside release files; a blob upload that would take the account past its storage is refused
// with PLAN_LIMIT before a byte is stored. SQLite, and PostgreSQL when configured.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  type TestApp,
} from "../../../test/harness.ts";
import { storageBytes } from "../../billing/usage.ts";

let app: TestApp;
let owner: { userId: string };
let key: string;

const sha = (bytes: string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const auth = () => ({ authorization: `Bearer ${key}` });

async function blob(name: string, bytes: string) {
  const res = await app.request(`/v2/${name}/blobs/uploads/?digest=${sha(bytes)}`, {
    method: "POST",
    headers: auth(),
    body: bytes,
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

beforeAll(async () => {
  app = await createTestApp();
  owner = await onboardedUser(app, "counted");
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

describe(`container images and the plan (${databaseKind})`, () => {
  it("counts a blob held by several images once, beside the release files", async () => {
    const layer = "a layer shared by two images, 47 bytes long....";
    const config = "{}";
    for (const name of ["counted/tool", "counted/tool/cli"]) {
      await blob(name, layer);
      await blob(name, config);
      const manifest = JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: sha(config), size: 2 },
        layers: [
          { mediaType: "application/vnd.oci.image.layer.v1.tar", digest: sha(layer), size: layer.length },
        ],
      });
      for (const tag of ["1", "2", "latest"]) {
        const pushed = await app.request(`/v2/${name}/manifests/${tag}`, {
          method: "PUT",
          headers: { ...auth(), "content-type": "application/vnd.oci.image.manifest.v1+json" },
          body: manifest,
        });
        expect(pushed.status).toBe(201);
      }
    }
    const manifestSize = JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: sha(config), size: 2 },
      layers: [
        { mediaType: "application/vnd.oci.image.layer.v1.tar", digest: sha(layer), size: layer.length },
      ],
    }).length;
    const file = await app.request("/api/v1/projects/tool/releases/1.0.0/files/notes.txt", {
      method: "PUT",
      headers: auth(),
      body: "ten bytes!",
    });
    expect(file.status).toBe(201);
    expect(await storageBytes(app.services.database.db, owner.userId)).toBe(
      layer.length + 2 + manifestSize + 10,
    );
  });

  it("refuses a blob that would take the account past its plan's storage, before storing it", async () => {
    const res = await app.request(`/v2/counted/tool/blobs/uploads/?digest=${sha("big")}`, {
      method: "POST",
      headers: { ...auth(), "content-length": String(3 * 1024 ** 3) },
      body: "big",
    });
    expect(res.status).toBe(403);
    const body = (await res.json()) as {
      errors: { code: string; message: string; detail: { code: string } }[];
    };
    expect(body.errors[0]).toMatchObject({ code: "DENIED", detail: { code: "PLAN_LIMIT" } });
    expect(body.errors[0]!.message).toMatch(/storage/);
  });
});
