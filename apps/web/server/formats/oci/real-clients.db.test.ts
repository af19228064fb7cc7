// Container images through a real client (issue 41): skopeo, from Debian, against Packyard on a
// loopback port — copy to and from the registry, inspect, list-tags, delete, an index of two
// platforms; a private project's images refused anonymously, pulled with a read key that cannot
// push, and with an entitlement token only for the project it is entitled to. SQLite, and
// PostgreSQL when configured; the blob store on disk (S3: scale-mode tests).
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";
import { type Layout, layoutBlob, writeLayout } from "../../../test/oci-layout.ts";

const run = promisify(execFile);
const hasTools = requireTools(["skopeo", "tar"]);
const hasPodman = requireTools(["podman"]);

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let single: Layout;
let multi: Layout;
let scratch: string;
let host: string;

/** skopeo with the registry on plain HTTP; `creds` as user:secret. Returns stdout, or throws with stderr. */
async function skopeo(
  args: string[],
  creds?: { src?: string; dest?: string; creds?: string },
  global: string[] = [],
) {
  const flags: string[] = [];
  if (creds?.src) flags.push("--src-creds", creds.src);
  if (creds?.dest) flags.push("--dest-creds", creds.dest);
  if (creds?.creds) flags.push("--creds", creds.creds);
  const [command, ...rest] = args;
  const tls =
    command === "copy" ? ["--src-tls-verify=false", "--dest-tls-verify=false"] : ["--tls-verify=false"];
  const { stdout } = await run("skopeo", [...global, command!, ...tls, ...flags, ...rest], {
    env: {
      ...process.env,
      HOME: scratch,
      XDG_RUNTIME_DIR: scratch,
      REGISTRY_AUTH_FILE: join(scratch, "auth.json"),
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

async function refused(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return String((error as { stderr?: string }).stderr ?? error);
  }
  throw new Error("expected skopeo to fail");
}

async function createProject(slug: string, visibility: "public" | "private") {
  const res = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug, name: slug, visibility }),
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  if (!hasTools) return;
  server = await startLiveServer({ PLAN_LIMITS: "off" });
  host = new URL(server.url).host;
  pub = await publisher(server, "shipper");
  await createProject("tool", "public");
  await createProject("vault", "private");
  await createProject("other", "private");
  scratch = mkdtempSync(join(tmpdir(), "packyard-skopeo-"));
  single = writeLayout({ tag: "v1", architectures: ["amd64"], extraBytes: 300_000 });
  multi = writeLayout({ tag: "multi", architectures: ["amd64", "arm64"] });
}, 60_000);

afterAll(async () => {
  single?.close();
  multi?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await server?.close();
});

describe.runIf(hasTools)(`container images with skopeo (${databaseKind})`, () => {
  it("copies an image in with a key, inspects and lists it anonymously, and copies it back out byte for byte", async () => {
    const image = `docker://${host}/shipper/tool`;
    await skopeo(["copy", `oci:${single.dir}:v1`, `${image}:1.0.0`], { dest: `shipper:${pub.token}` });
    await skopeo(["copy", `oci:${single.dir}:v1`, `${image}:latest`], { dest: `shipper:${pub.token}` });
    const inspected = JSON.parse(await skopeo(["inspect", `${image}:1.0.0`]));
    const top = single.tags.get("v1")!;
    expect(inspected.Digest).toBe(top.digest);
    expect(inspected.Architecture).toBe("amd64");
    expect(JSON.parse(await skopeo(["list-tags", image])).Tags).toEqual(["1.0.0", "latest"]);
    const out = mkdtempSync(join(scratch, "pulled-"));
    await skopeo(["copy", `${image}@${top.digest}`, `oci:${out}:pulled`]);
    const { layer, layerBytes } = single.images.get("amd64")!;
    expect(layoutBlob(out, layer.digest).equals(layerBytes)).toBe(true);
    expect(layoutBlob(out, top.digest).equals(layoutBlob(single.dir, top.digest))).toBe(true);
  });

  it("pushes an index of two platforms and pulls each platform", async () => {
    const image = `docker://${host}/shipper/tool/multi`;
    await skopeo(["copy", "--all", `oci:${multi.dir}:multi`, `${image}:2.0.0`], {
      dest: `shipper:${pub.token}`,
    });
    const raw = JSON.parse(await skopeo(["inspect", "--raw", `${image}:2.0.0`]));
    expect(raw.mediaType).toBe("application/vnd.oci.image.index.v1+json");
    expect(raw.manifests.map((m: { platform: { architecture: string } }) => m.platform.architecture)).toEqual(
      ["amd64", "arm64"],
    );
    const arm = JSON.parse(await skopeo(["inspect", `${image}:2.0.0`], {}, ["--override-arch", "arm64"]));
    expect(arm.Architecture).toBe("arm64");
    // Digest names what the tag points at (the index); the layers are arm64's.
    expect(arm.Digest).toBe(multi.tags.get("multi")!.digest);
    expect(arm.Layers).toEqual([multi.images.get("arm64")!.layer.digest]);
  });

  it("deletes a tag's manifest with a key", async () => {
    const image = `docker://${host}/shipper/tool`;
    await skopeo(["copy", `oci:${single.dir}:v1`, `${image}:doomed`], { dest: `shipper:${pub.token}` });
    await skopeo(["delete", `${image}:doomed`], { creds: `shipper:${pub.token}` });
    expect(await refused(skopeo(["inspect", `${image}:doomed`]))).toMatch(/manifest unknown|not found/i);
  });

  it("keeps a private project's images from anonymous pulls; a read key pulls but cannot push; an entitlement token pulls only its project", async () => {
    const vault = `docker://${host}/shipper/vault`;
    const other = `docker://${host}/shipper/other`;
    await skopeo(["copy", `oci:${single.dir}:v1`, `${vault}:1`], { dest: `shipper:${pub.token}` });
    await skopeo(["copy", `oci:${single.dir}:v1`, `${other}:1`], { dest: `shipper:${pub.token}` });
    expect(await refused(skopeo(["inspect", `${vault}:1`]))).toMatch(
      /unknown|unauthorized|denied|not found/i,
    );
    const readKey = await pub.key({ projects: "*", access: "read" });
    expect(JSON.parse(await skopeo(["inspect", `${vault}:1`], { creds: `x:${readKey}` })).Digest).toBe(
      single.tags.get("v1")!.digest,
    );
    expect(
      await refused(skopeo(["copy", `oci:${single.dir}:v1`, `${vault}:2`], { dest: `x:${readKey}` })),
    ).toMatch(/denied|unauthorized|forbidden/i);
    const created = await pub.api("/api/v1/projects/vault/entitlements", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Initech" }),
    });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    expect(JSON.parse(await skopeo(["inspect", `${vault}:1`], { creds: `initech:${token}` })).Digest).toBe(
      single.tags.get("v1")!.digest,
    );
    expect(await refused(skopeo(["inspect", `${other}:1`], { creds: `initech:${token}` }))).toMatch(
      /unknown|unauthorized|denied|not found/i,
    );
  });
});

describe.runIf(hasTools && hasPodman)(`container images with podman (${databaseKind})`, () => {
  /** podman with its own storage (vfs, no daemon, nothing of the machine's touched). */
  async function podman(args: string[]) {
    const root = join(scratch, "podman");
    const { stdout } = await run(
      "podman",
      [
        "--root",
        join(root, "storage"),
        "--runroot",
        join(root, "run"),
        "--storage-driver",
        "vfs",
        "--events-backend",
        "file",
        ...args,
      ],
      {
        env: {
          ...process.env,
          HOME: scratch,
          XDG_RUNTIME_DIR: scratch,
          REGISTRY_AUTH_FILE: join(scratch, "podman-auth.json"),
        },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return stdout;
  }

  it("logs in with a key, pushes, and pulls the image back; a wrong key cannot log in", async () => {
    expect(
      await refused(podman(["login", "--tls-verify=false", "-u", "shipper", "-p", "pky_wrong", host])),
    ).toMatch(/unauthorized|invalid|401/i);
    expect(await podman(["login", "--tls-verify=false", "-u", "shipper", "-p", pub.token, host])).toMatch(
      /Login Succeeded/,
    );
    const local = `${host}/shipper/tool/podman:1.0.0`;
    await podman(["pull", `oci:${single.dir}:v1`]);
    const id = (await podman(["images", "--quiet"])).trim().split("\n")[0]!;
    await podman(["tag", id, local]);
    await podman(["push", "--tls-verify=false", local]);
    await podman(["rmi", "--force", local]);
    await podman(["pull", "--tls-verify=false", local]);
    const [inspected] = JSON.parse(await podman(["image", "inspect", local])) as { Architecture: string }[];
    expect(inspected!.Architecture).toBe("amd64");
    expect(JSON.parse(await skopeo(["list-tags", `docker://${host}/shipper/tool/podman`])).Tags).toEqual([
      "1.0.0",
    ]);
    await podman(["logout", host]);
  });
});
