// Small container images written as OCI image layouts on disk (the `oci:` transport of skopeo):
// real gzip-compressed tar layers, a config with their diff_ids, manifests, and optionally an
// index of several platforms. What the registry tests push with real clients.
import { execFileSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { os: string; architecture: string };
  annotations?: Record<string, string>;
}

export interface Layout {
  dir: string;
  /** The manifests written, by tag (an index's, for a multi-platform tag). */
  tags: Map<string, Descriptor>;
  /** Each platform's image manifest, by architecture. */
  images: Map<string, { manifest: Descriptor; layer: Descriptor; layerBytes: Buffer }>;
  close(): void;
}

function writeBlob(dir: string, bytes: Uint8Array | string): { digest: string; size: number } {
  const hex = sha256(bytes);
  writeFileSync(join(dir, "blobs", "sha256", hex), bytes);
  return {
    digest: `sha256:${hex}`,
    size: typeof bytes === "string" ? Buffer.byteLength(bytes) : bytes.byteLength,
  };
}

/** A layer: a tar.gz of one file, `content` at `path`. */
function layerOf(work: string, path: string, content: string | Buffer): Buffer {
  const root = mkdtempSync(join(work, "layer-"));
  const file = join(root, path);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, content);
  const out = join(work, `${sha256(path + String(content.length))}.tar.gz`);
  execFileSync("tar", ["--sort=name", "--mtime=@0", "--owner=0", "--group=0", "-czf", out, "-C", root, "."]);
  return readFileSync(out);
}

/**
 * An OCI layout with one image per architecture under `tag` (an index when more than one), each
 * with one layer holding `/etc/packyard-{arch}` (`bytes` extra random bytes make it larger).
 */
export function writeLayout(options: { tag: string; architectures: string[]; extraBytes?: number }): Layout {
  // Lower case: podman names an image pulled from a layout after its directory.
  const dir = join(tmpdir(), `packyard-oci-${randomUUID()}`);
  mkdirSync(dir);
  const work = mkdtempSync(join(tmpdir(), "packyard-oci-work-"));
  mkdirSync(join(dir, "blobs", "sha256"), { recursive: true });
  writeFileSync(join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  const images = new Map<string, { manifest: Descriptor; layer: Descriptor; layerBytes: Buffer }>();
  for (const architecture of options.architectures) {
    const extra = options.extraBytes
      ? createHash("sha512")
          .update(architecture)
          .digest()
          .toString("hex")
          .repeat(Math.ceil(options.extraBytes / 128))
          .slice(0, options.extraBytes)
      : "";
    const layerBytes = layerOf(work, `etc/packyard-${architecture}`, `built for ${architecture}\n${extra}`);
    const layer = { mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", ...writeBlob(dir, layerBytes) };
    const config = JSON.stringify({
      architecture,
      os: "linux",
      config: { Cmd: ["/bin/true"] },
      rootfs: { type: "layers", diff_ids: [`sha256:${sha256(gunzipSync(layerBytes))}`] },
    });
    const manifest = JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: { mediaType: "application/vnd.oci.image.config.v1+json", ...writeBlob(dir, config) },
      layers: [layer],
    });
    images.set(architecture, {
      manifest: {
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        ...writeBlob(dir, manifest),
        platform: { os: "linux", architecture },
      },
      layer,
      layerBytes,
    });
  }
  const tags = new Map<string, Descriptor>();
  let top: Descriptor;
  if (images.size === 1) {
    const { platform: _, ...only } = [...images.values()][0]!.manifest;
    top = only;
  } else {
    const index = JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.index.v1+json",
      manifests: [...images.values()].map((i) => i.manifest),
    });
    top = { mediaType: "application/vnd.oci.image.index.v1+json", ...writeBlob(dir, index) };
  }
  tags.set(options.tag, top);
  writeFileSync(
    join(dir, "index.json"),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [{ ...top, annotations: { "org.opencontainers.image.ref.name": options.tag } }],
    }),
  );
  rmSync(work, { recursive: true, force: true });
  return {
    dir,
    tags,
    images,
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The bytes of a blob of a layout (what a pull wrote). */
export function layoutBlob(dir: string, digest: string): Buffer {
  return readFileSync(join(dir, "blobs", "sha256", digest.replace(/^sha256:/, "")));
}
