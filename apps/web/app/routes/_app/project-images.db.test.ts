// The Images tab and a release page's container images, as the server renders them: an image
// pushed through the registry (tags 1.2.0 and latest, an index of two platforms under another
// name) is listed with its digests, platforms and who pushed it; the release 1.2.0 shows the
// `docker pull …@sha256:…` of the image tagged 1.2.0, and yanking the release leaves that pull
// working; another account gets 404. SQLite, and PostgreSQL when configured.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  type TestApp,
} from "../../../test/harness.ts";

let app: TestApp;
let owner: { cookie: string; userId: string; username: string };
let stranger: { cookie: string };
let key: string;

const sha = (bytes: Uint8Array | string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const auth = () => ({ authorization: `Bearer ${key}` });

async function blob(name: string, bytes: string) {
  const res = await app.request(`/v2/${name}/blobs/uploads/?digest=${sha(bytes)}`, {
    method: "POST",
    headers: auth(),
    body: bytes,
  });
  expect(res.status).toBe(201);
  return { digest: sha(bytes), size: Buffer.byteLength(bytes) };
}

async function manifest(name: string, reference: string, body: string, type: string) {
  const res = await app.request(`/v2/${name}/manifests/${reference}`, {
    method: "PUT",
    headers: { ...auth(), "content-type": type },
    body,
  });
  expect(res.status).toBe(201);
  return sha(body);
}

function image(config: { digest: string; size: number }, layer: { digest: string; size: number }) {
  return JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", ...config },
    layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", ...layer }],
  });
}

let tagged: string;
let multi: string;

beforeAll(async () => {
  app = await createTestApp();
  owner = await onboardedUser(app, "shipper");
  stranger = await onboardedUser(app, "outsider");
  key = await createApiKey(app, owner.userId, { projects: "*", access: "publish" });
  const created = await app.request("/api/v1/projects", {
    method: "POST",
    headers: { ...auth(), "content-type": "application/json" },
    body: JSON.stringify({ slug: "tool", name: "Tool" }),
  });
  expect(created.status).toBe(201);
  const config = await blob("shipper/tool", "{}");
  const layer = await blob("shipper/tool", "a layer of 25 bytes......");
  const body = image(config, layer);
  tagged = await manifest("shipper/tool", "1.2.0", body, "application/vnd.oci.image.manifest.v1+json");
  await manifest("shipper/tool", "latest", body, "application/vnd.oci.image.manifest.v1+json");
  const armConfig = await blob("shipper/tool/agent", "{}");
  const armLayer = await blob("shipper/tool/agent", "arm layer");
  const armBody = image(armConfig, armLayer);
  const amdLayer = await blob("shipper/tool/agent", "amd layer");
  const amdBody = image(armConfig, amdLayer);
  const arm = await manifest(
    "shipper/tool/agent",
    sha(armBody),
    armBody,
    "application/vnd.oci.image.manifest.v1+json",
  );
  const amd = await manifest(
    "shipper/tool/agent",
    sha(amdBody),
    amdBody,
    "application/vnd.oci.image.manifest.v1+json",
  );
  const index = JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.index.v1+json",
    manifests: [
      {
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        digest: amd,
        size: amdBody.length,
        platform: { os: "linux", architecture: "amd64" },
      },
      {
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        digest: arm,
        size: armBody.length,
        platform: { os: "linux", architecture: "arm64", variant: "v8" },
      },
    ],
  });
  multi = await manifest("shipper/tool/agent", "2.0.0", index, "application/vnd.oci.image.index.v1+json");
  const release = await app.request("/api/v1/projects/tool/releases/1.2.0/files/notes.txt", {
    method: "PUT",
    headers: auth(),
    body: "release notes",
  });
  expect(release.status).toBe(201);
});
afterAll(async () => {
  await app?.close();
});

describe(`container images on pages (${databaseKind})`, () => {
  it("lists each image's tags with digests, platforms, pulls and who pushed them on the Images tab", async () => {
    // Pulls: a GET of a manifest by tag counts the tag, of an index's platform by digest the
    // platform; a HEAD counts nothing.
    for (let i = 0; i < 2; i++)
      expect((await app.request("/v2/shipper/tool/manifests/1.2.0")).status).toBe(200);
    expect((await app.request("/v2/shipper/tool/manifests/1.2.0", { method: "HEAD" })).status).toBe(200);
    const index = JSON.parse(await (await app.request("/v2/shipper/tool/agent/manifests/2.0.0")).text()) as {
      manifests: { digest: string; platform: { architecture: string } }[];
    };
    const arm = index.manifests.find((m) => m.platform.architecture === "arm64")!;
    expect((await app.request(`/v2/shipper/tool/agent/manifests/${arm.digest}`)).status).toBe(200);
    const res = await app.request("/projects/tool/images", { cookie: owner.cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Container images");
    expect(html).toMatch(/localhost(:\d+)?\/shipper\/tool<\/div>|\/shipper\/tool</);
    expect(html).toContain(`@${tagged}`);
    expect(html).toContain(`@${multi}`);
    expect(html).toContain("linux/arm64/v8");
    expect(html).toContain("linux/amd64");
    expect(html).toContain("shipper · key");
    expect(html).toMatch(/>1\.2\.0<[\s\S]*?2 pulls/);
    expect(html).toContain("pulls by platform: linux/arm64/v8 1");
    const other = await app.request("/projects/tool/images", { cookie: stranger.cookie });
    expect(other.status).toBe(404);
  });

  it("shows the docker pull of the image tagged like the release, and a yank leaves the pull working", async () => {
    const page = await (await app.request("/releases/shipper/tool/1.2.0")).text();
    expect(page).toContain("Container image");
    expect(page).toMatch(new RegExp(`docker pull [^ ]+/shipper/tool@${tagged}`));
    const yanked = await app.request("/api/v1/projects/tool/releases/1.2.0/yank", {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: JSON.stringify({ reason: "broken build" }),
    });
    expect(yanked.status).toBe(200);
    expect((await app.request(`/v2/shipper/tool/manifests/${tagged}`)).status).toBe(200);
    const none = await (await app.request("/releases/shipper/tool/latest")).text();
    expect(none).not.toContain("docker pull");
  });
});
