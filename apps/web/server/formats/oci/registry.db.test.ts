// The OCI Distribution Specification at /v2/ without a client (issue 41): Docker's token
// handshake, blob uploads (monolithic, chunked with Content-Range, resumable status, cancel,
// cross-repository mount), manifests by tag and digest, tags pagination, the referrers API, and
// the refusals with the specification's codes. Real clients (skopeo, podman) are in
// real-clients.db.test.ts. SQLite, and PostgreSQL when configured.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  type TestApp,
} from "../../../test/harness.ts";
import { collectLeftovers } from "../../maintenance.ts";
import { hashPublishToken, newPublishToken } from "../../trusted-publishing/storage.ts";

let app: TestApp;
let owner: { userId: string; username: string; cookie: string };
let publishKey: string;
let readKey: string;
let strangerKey: string;

const sha = (bytes: Uint8Array | string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const basic = (secret: string) => `Basic ${Buffer.from(`user:${secret}`).toString("base64")}`;

async function token(scope: string, secret?: string): Promise<string> {
  const res = await app.request(`/v2/token?service=x&scope=${encodeURIComponent(scope)}`, {
    headers: secret ? { authorization: basic(secret) } : {},
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

async function v2(
  method: string,
  path: string,
  init: { bearer?: string; body?: BodyInit; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  return app.request(path, { method, headers, ...(init.body === undefined ? {} : { body: init.body }) });
}

async function errorCode(res: Response) {
  return ((await res.json()) as { errors: { code: string }[] }).errors[0]?.code;
}

async function createProject(slug: string, visibility: "public" | "private") {
  const res = await app.request("/api/v1/projects", {
    method: "POST",
    headers: { authorization: `Bearer ${publishKey}`, "content-type": "application/json" },
    body: JSON.stringify({ slug, name: slug, visibility }),
  });
  expect(res.status).toBe(201);
}

/** Pushes a blob in one request; returns its digest. */
async function pushBlob(name: string, bytes: Uint8Array, auth: string) {
  const digest = sha(bytes);
  const res = await v2("POST", `/v2/${name}/blobs/uploads/?digest=${digest}`, {
    bearer: auth,
    body: bytes as Uint8Array<ArrayBuffer>,
    headers: { "content-type": "application/octet-stream" },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return digest;
}

function imageManifest(config: string, layers: { digest: string; size: number }[], extra: object = {}) {
  return JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: config, size: 2 },
    layers: layers.map((l) => ({ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", ...l })),
    ...extra,
  });
}

beforeAll(async () => {
  app = await createTestApp({ PLAN_LIMITS: "off", WEBHOOK_ALLOW_PRIVATE: "true" });
  owner = await onboardedUser(app, "imager");
  publishKey = await createApiKey(app, owner.userId, { projects: "*", access: "publish" });
  readKey = await createApiKey(app, owner.userId, { projects: "*", access: "read" });
  const stranger = await onboardedUser(app, "stranger");
  strangerKey = await createApiKey(app, stranger.userId, { projects: "*", access: "publish" });
  await createProject("tool", "public");
  await createProject("secret", "private");
});
afterAll(async () => {
  await app?.close();
});

describe(`the registry at /v2/ (${databaseKind})`, () => {
  it("challenges an anonymous client and grants a token for exactly the scopes the key has", async () => {
    const base = await v2("GET", "/v2/");
    expect(base.status).toBe(401);
    expect(base.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="http[^"]+\/v2\/token",service="[^"]+"/,
    );
    expect(base.headers.get("docker-distribution-api-version")).toBe("registry/2.0");
    expect((await v2("GET", "/v2/", { bearer: await token("", publishKey) })).status).toBe(200);
    // A bad key is refused at the token endpoint (docker login fails there).
    const bad = await app.request("/v2/token?scope=repository:imager/tool:pull", {
      headers: { authorization: basic("pky_not-a-key") },
    });
    expect(bad.status).toBe(401);
    expect(await errorCode(bad)).toBe("UNAUTHORIZED");
  });

  it("pushes an image by chunks and by whole blobs, and pulls it back by tag, digest and range", async () => {
    const auth = await token("repository:imager/tool:pull,push", publishKey);
    const config = await pushBlob("imager/tool", new TextEncoder().encode("{}"), auth);
    // A chunked upload: two PATCHes with Content-Range, its status, then the PUT with the digest.
    const layer = new Uint8Array(100_000).map((_, i) => i % 251);
    const start = await v2("POST", "/v2/imager/tool/blobs/uploads/", { bearer: auth });
    expect(start.status).toBe(202);
    const location = start.headers.get("location")!;
    expect(location).toMatch(/^\/v2\/imager\/tool\/blobs\/uploads\/[0-9a-f-]{36}$/);
    const first = await v2("PATCH", location, {
      bearer: auth,
      body: layer.slice(0, 60_000),
      headers: { "content-range": "0-59999", "content-type": "application/octet-stream" },
    });
    expect(first.status).toBe(202);
    expect(first.headers.get("range")).toBe("0-59999");
    // Out of order: refused with 416, and the upload stays where it was.
    const skipped = await v2("PATCH", location, {
      bearer: auth,
      body: layer.slice(70_000),
      headers: { "content-range": "70000-99999" },
    });
    expect(skipped.status).toBe(416);
    const status = await v2("GET", location, { bearer: auth });
    expect(status.status).toBe(204);
    expect(status.headers.get("range")).toBe("0-59999");
    await v2("PATCH", location, {
      bearer: auth,
      body: layer.slice(60_000),
      headers: { "content-range": "60000-99999" },
    });
    // The wrong digest is refused; the right one finishes it.
    const wrong = await v2("PUT", `${location}?digest=${sha("other")}`, { bearer: auth });
    expect(wrong.status).toBe(400);
    expect(await errorCode(wrong)).toBe("DIGEST_INVALID");
    const done = await v2("PUT", `${location}?digest=${sha(layer)}`, { bearer: auth });
    expect(done.status).toBe(201);
    expect(done.headers.get("docker-content-digest")).toBe(sha(layer));

    // A manifest that names a blob the image does not have is refused.
    const missing = await v2("PUT", "/v2/imager/tool/manifests/broken", {
      bearer: auth,
      body: imageManifest(config, [{ digest: sha("never pushed"), size: 12 }]),
      headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
    });
    expect(missing.status).toBe(400);
    expect(await errorCode(missing)).toBe("MANIFEST_BLOB_UNKNOWN");
    // A manifest larger than 4 MiB is refused before it is read whole.
    const huge = await v2("PUT", "/v2/imager/tool/manifests/huge", {
      bearer: auth,
      body: "x".repeat(4 * 1024 * 1024 + 1),
      headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
    });
    expect(huge.status).toBe(400);
    expect(await errorCode(huge)).toBe("SIZE_INVALID");

    const manifest = imageManifest(config, [{ digest: sha(layer), size: layer.length }]);
    const pushed = await v2("PUT", "/v2/imager/tool/manifests/1.2.0", {
      bearer: auth,
      body: manifest,
      headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
    });
    expect(pushed.status).toBe(201);
    expect(pushed.headers.get("docker-content-digest")).toBe(sha(manifest));

    // Pulled anonymously (a public project), by tag and digest; HEAD; a range of the layer.
    const byTag = await v2("GET", "/v2/imager/tool/manifests/1.2.0");
    expect(byTag.status).toBe(200);
    expect(byTag.headers.get("content-type")).toBe("application/vnd.oci.image.manifest.v1+json");
    expect(await byTag.text()).toBe(manifest);
    const head = await v2("HEAD", `/v2/imager/tool/manifests/${sha(manifest)}`);
    expect(head.headers.get("docker-content-digest")).toBe(sha(manifest));
    const blob = await v2("GET", `/v2/imager/tool/blobs/${sha(layer)}`);
    expect(sha(new Uint8Array(await blob.arrayBuffer()))).toBe(sha(layer));
    const part = await v2("GET", `/v2/imager/tool/blobs/${sha(layer)}`, {
      headers: { range: "bytes=10-19" },
    });
    expect(part.status).toBe(206);
    expect([...new Uint8Array(await part.arrayBuffer())]).toEqual([...layer.slice(10, 20)]);
    const unknown = await v2("GET", `/v2/imager/tool/blobs/${sha("nothing")}`);
    expect(unknown.status).toBe(404);
    expect(await errorCode(unknown)).toBe("BLOB_UNKNOWN");

    // The audit log names the push.
    const entry = await app.services.database.db
      .selectFrom("audit_event")
      .select(["action", "target", "actor_kind"])
      .where("action", "=", "image.pushed")
      .executeTakeFirstOrThrow();
    expect(entry).toEqual({ action: "image.pushed", target: "imager/tool:1.2.0", actor_kind: "key" });
  });

  it("cancels an upload, and lists tags page by page", async () => {
    const auth = await token("repository:imager/tool:pull,push", publishKey);
    const start = await v2("POST", "/v2/imager/tool/blobs/uploads/", { bearer: auth });
    const location = start.headers.get("location")!;
    expect((await v2("DELETE", location, { bearer: auth })).status).toBe(204);
    expect(await errorCode(await v2("GET", location, { bearer: auth }))).toBe("BLOB_UPLOAD_UNKNOWN");

    const manifest = await (await v2("GET", "/v2/imager/tool/manifests/1.2.0")).text();
    for (const tag of ["a", "b", "c", "latest"])
      await v2("PUT", `/v2/imager/tool/manifests/${tag}`, {
        bearer: auth,
        body: manifest,
        headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
      });
    const page1 = await v2("GET", "/v2/imager/tool/tags/list?n=2");
    expect(await page1.json()).toEqual({ name: "imager/tool", tags: ["1.2.0", "a"] });
    expect(page1.headers.get("link")).toBe('</v2/imager/tool/tags/list?n=2&last=a>; rel="next"');
    const page2 = await v2("GET", "/v2/imager/tool/tags/list?n=2&last=a");
    expect(await page2.json()).toEqual({ name: "imager/tool", tags: ["b", "c"] });
    const page3 = await v2("GET", "/v2/imager/tool/tags/list?n=2&last=c");
    expect(await page3.json()).toEqual({ name: "imager/tool", tags: ["latest"] });
    expect(page3.headers.get("link")).toBeNull();
    // Deleting a tag leaves the manifest, pulled by digest.
    expect((await v2("DELETE", "/v2/imager/tool/manifests/c", { bearer: auth })).status).toBe(202);
    expect((await v2("GET", "/v2/imager/tool/manifests/c")).status).toBe(404);
    expect((await v2("GET", `/v2/imager/tool/manifests/${sha(manifest)}`)).status).toBe(200);
  });

  it("lists a signature pushed with a subject in the referrers API, filtered by artifactType", async () => {
    const auth = await token("repository:imager/tool:pull,push", publishKey);
    const subject = await v2("GET", "/v2/imager/tool/manifests/1.2.0");
    const subjectBytes = await subject.text();
    const empty = await pushBlob("imager/tool", new TextEncoder().encode("{}"), auth);
    const sig = await pushBlob("imager/tool", new TextEncoder().encode("signature"), auth);
    const signature = JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      artifactType: "application/vnd.dev.cosign.artifact.sig.v1+json",
      config: { mediaType: "application/vnd.oci.empty.v1+json", digest: empty, size: 2 },
      layers: [{ mediaType: "application/vnd.dev.cosign.simplesigning.v1+json", digest: sig, size: 9 }],
      subject: {
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        digest: sha(subjectBytes),
        size: subjectBytes.length,
      },
      annotations: { "org.example.signed-by": "ci" },
    });
    const pushed = await v2("PUT", `/v2/imager/tool/manifests/${sha(signature)}`, {
      bearer: auth,
      body: signature,
      headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
    });
    expect(pushed.status).toBe(201);
    expect(pushed.headers.get("oci-subject")).toBe(sha(subjectBytes));
    const referrers = await v2("GET", `/v2/imager/tool/referrers/${sha(subjectBytes)}`);
    expect(referrers.headers.get("content-type")).toBe("application/vnd.oci.image.index.v1+json");
    expect(((await referrers.json()) as { manifests: unknown[] }).manifests).toEqual([
      {
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        digest: sha(signature),
        size: signature.length,
        artifactType: "application/vnd.dev.cosign.artifact.sig.v1+json",
        annotations: { "org.example.signed-by": "ci" },
      },
    ]);
    const filtered = await v2(
      "GET",
      `/v2/imager/tool/referrers/${sha(subjectBytes)}?artifactType=application/x-sbom`,
    );
    expect(filtered.headers.get("oci-filters-applied")).toBe("artifactType");
    expect(((await filtered.json()) as { manifests: unknown[] }).manifests).toEqual([]);
  });

  it("hides a private project's images, lets a read key pull but not push, and refuses a mount from what the caller cannot read", async () => {
    const auth = await token("repository:imager/secret:pull,push", publishKey);
    const layer = await pushBlob("imager/secret", new TextEncoder().encode("private layer"), auth);
    const anonymous = await v2("GET", `/v2/imager/secret/blobs/${layer}`);
    expect(anonymous.status).toBe(404);
    expect(await errorCode(anonymous)).toBe("NAME_UNKNOWN");
    const anonymousToken = await token("repository:imager/secret:pull");
    expect(
      await errorCode(await v2("GET", `/v2/imager/secret/blobs/${layer}`, { bearer: anonymousToken })),
    ).toBe("NAME_UNKNOWN");
    const read = await token("repository:imager/secret:pull,push", readKey);
    expect((await v2("GET", `/v2/imager/secret/blobs/${layer}`, { bearer: read })).status).toBe(200);
    const push = await v2("POST", "/v2/imager/secret/blobs/uploads/", { bearer: read });
    expect(push.status).toBe(403);
    expect(await errorCode(push)).toBe("DENIED");
    // The stranger pushes to a project of their own, asking to mount the private layer: no mount,
    // an upload starts instead (202), and the layer is not theirs.
    const strangerProject = await app.request("/api/v1/projects", {
      method: "POST",
      headers: { authorization: `Bearer ${strangerKey}`, "content-type": "application/json" },
      body: JSON.stringify({ slug: "mine", name: "mine" }),
    });
    expect(strangerProject.status).toBe(201);
    const theirs = await token(
      "repository:stranger/mine:pull,push repository:imager/secret:pull",
      strangerKey,
    );
    const mount = await v2("POST", `/v2/stranger/mine/blobs/uploads/?mount=${layer}&from=imager/secret`, {
      bearer: theirs,
    });
    expect(mount.status).toBe(202);
    expect((await v2("GET", `/v2/stranger/mine/blobs/${layer}`, { bearer: theirs })).status).toBe(404);
    // The owner mounts it into another image of their own project: 201, no bytes sent.
    const own = await token(
      "repository:imager/secret/cli:pull,push repository:imager/secret:pull",
      publishKey,
    );
    const mounted = await v2(
      "POST",
      `/v2/imager/secret/cli/blobs/uploads/?mount=${layer}&from=imager/secret`,
      {
        bearer: own,
      },
    );
    expect(mounted.status).toBe(201);
    expect((await v2("HEAD", `/v2/imager/secret/cli/blobs/${layer}`, { bearer: own })).status).toBe(200);
    // The catalog lists only what the caller may read, of the images with a manifest.
    for (const image of ["imager/secret", "imager/secret/cli"])
      expect(
        (
          await v2("PUT", `/v2/${image}/manifests/latest`, {
            bearer: image === "imager/secret" ? auth : own,
            body: imageManifest(layer, [{ digest: layer, size: 13 }]),
            headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
          })
        ).status,
      ).toBe(201);
    const catalog = async (bearer?: string) =>
      (
        (await (await v2("GET", "/v2/_catalog", bearer ? { bearer } : {})).json()) as {
          repositories: string[];
        }
      ).repositories;
    expect(await catalog()).toEqual(["imager/tool"]);
    expect(await catalog(own)).toEqual(["imager/secret", "imager/secret/cli", "imager/tool"]);
  });

  it("collects a blob no manifest needs and an unfinished upload once past the grace period, and keeps what manifests need", async () => {
    const auth = await token("repository:imager/tool:pull,push", publishKey);
    const stray = await pushBlob("imager/tool", new TextEncoder().encode("never in a manifest"), auth);
    const started = await v2("POST", "/v2/imager/tool/blobs/uploads/", { bearer: auth });
    const manifest = await (await v2("GET", "/v2/imager/tool/manifests/1.2.0")).text();
    const layer = (JSON.parse(manifest) as { layers: { digest: string }[] }).layers[0]!.digest;
    const removed = await collectLeftovers(app.services, 0);
    expect(removed.imageBlobsReleased).toBeGreaterThanOrEqual(1);
    expect(removed.imageUploadsForgotten).toBeGreaterThanOrEqual(1);
    expect(await errorCode(await v2("GET", `/v2/imager/tool/blobs/${stray}`))).toBe("BLOB_UNKNOWN");
    expect(await app.services.blobs.exists(stray.slice(7))).toBe(false);
    expect(await errorCode(await v2("GET", started.headers.get("location")!, { bearer: auth }))).toBe(
      "BLOB_UPLOAD_UNKNOWN",
    );
    const pulled = await v2("GET", `/v2/imager/tool/blobs/${layer}`);
    expect(pulled.status).toBe(200);
    expect(sha(new Uint8Array(await pulled.arrayBuffer()))).toBe(layer);
    expect((await v2("GET", "/v2/imager/tool/manifests/1.2.0")).status).toBe(200);
  });

  it("announces pushes and deletions to the project's webhooks", async () => {
    const hook = await app.request("/api/v1/projects/tool/webhooks", {
      method: "POST",
      headers: { authorization: `Bearer ${publishKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook", events: ["image.pushed", "image.deleted"] }),
    });
    expect(hook.status, await hook.clone().text()).toBe(201);
    const auth = await token("repository:imager/tool:pull,push", publishKey);
    const manifest = await (await v2("GET", "/v2/imager/tool/manifests/1.2.0")).text();
    await v2("PUT", "/v2/imager/tool/manifests/2.0.0", {
      bearer: auth,
      body: manifest,
      headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
    });
    await v2("DELETE", "/v2/imager/tool/manifests/2.0.0", { bearer: auth });
    const deliveries = await app.services.database.db
      .selectFrom("webhook_delivery")
      .select(["event", "body"])
      .where("event", "in", ["image.pushed", "image.deleted"])
      .orderBy("created_at")
      .execute();
    expect(deliveries.map((d) => [d.event, JSON.parse(d.body).data])).toEqual([
      [
        "image.pushed",
        {
          image: expect.stringMatching(/\/imager\/tool$/),
          tag: "2.0.0",
          digest: sha(manifest),
          mediaType: "application/vnd.oci.image.manifest.v1+json",
          size: manifest.length,
        },
      ],
      ["image.deleted", { image: expect.stringMatching(/\/imager\/tool$/), tag: "2.0.0", digest: null }],
    ]);
  });

  it("keeps a tag whole under concurrent pushes to it: every push answered, the tag on one complete manifest", async () => {
    const auth = await token("repository:imager/tool:pull,push", publishKey);
    const config = await pushBlob("imager/tool", new TextEncoder().encode("{}"), auth);
    const manifests = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const layer = new TextEncoder().encode(`layer of racer ${i}`);
        const digest = await pushBlob("imager/tool", layer, auth);
        return imageManifest(config, [{ digest, size: layer.length }]);
      }),
    );
    const answers = await Promise.all(
      manifests.map((body) =>
        v2("PUT", "/v2/imager/tool/manifests/racing", {
          bearer: auth,
          body,
          headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(manifests.map(() => 201));
    const served = await v2("GET", "/v2/imager/tool/manifests/racing");
    const body = await served.text();
    expect(manifests).toContain(body);
    expect(served.headers.get("docker-content-digest")).toBe(sha(body));
    // Every manifest pushed stays pullable by digest.
    for (const m of manifests)
      expect((await v2("HEAD", `/v2/imager/tool/manifests/${sha(m)}`)).status).toBe(200);
  });

  it("takes a trusted-publishing token at the token endpoint: it pushes to its project, named after its publisher, and nothing else", async () => {
    // A publish token as the exchange grants it (trusted-publishing/use-cases.ts), for "tool" only.
    const db = app.services.database.db;
    const tool = await db
      .selectFrom("project")
      .select("id")
      .where("slug", "=", "tool")
      .executeTakeFirstOrThrow();
    const secret = newPublishToken();
    await db
      .insertInto("publish_token")
      .values({
        id: "pt-registry-test-000000000001",
        token_hash: hashPublishToken(secret),
        token_start: secret.slice(0, 10),
        owner_id: owner.userId,
        projects: JSON.stringify([tool.id]),
        publisher: "GitHub Actions imager/tool (release.yml)",
        expires_at: new Date(Date.now() + 10 * 60_000).toISOString(),
        created_at: new Date().toISOString(),
      })
      .execute();
    const ci = await token("repository:imager/tool:pull,push repository:imager/secret:pull,push", secret);
    const config = await pushBlob("imager/tool", new TextEncoder().encode("{}"), ci);
    const pushed = await v2("PUT", "/v2/imager/tool/manifests/from-ci", {
      bearer: ci,
      body: imageManifest(config, []),
      headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
    });
    expect(pushed.status).toBe(201);
    const entry = await db
      .selectFrom("audit_event")
      .select(["actor_key_name"])
      .where("target", "=", "imager/tool:from-ci")
      .executeTakeFirstOrThrow();
    expect(entry.actor_key_name).toBe("GitHub Actions imager/tool (release.yml)");
    expect(await errorCode(await v2("POST", "/v2/imager/secret/blobs/uploads/", { bearer: ci }))).toBe(
      "NAME_UNKNOWN",
    );
  });
});
