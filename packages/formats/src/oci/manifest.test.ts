import { describe, expect, it } from "vitest";
import {
  blobsOf,
  isDigestReference,
  isValidRepositoryName,
  MEDIA_TYPES,
  OciError,
  parseManifest,
  sha256Of,
} from "./manifest.ts";

const d = (c: string) => `sha256:${c.repeat(64)}`;
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof OciError ? error.code : String(error);
  }
  return "no error";
};

const image = {
  schemaVersion: 2,
  mediaType: MEDIA_TYPES.ociManifest,
  config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: d("a"), size: 10 },
  layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: d("b"), size: 20 }],
};

describe("parseManifest", () => {
  it("reads an OCI image manifest: config, layers, and the config's type as artifactType", () => {
    const m = parseManifest(bytes(image), MEDIA_TYPES.ociManifest);
    expect(m.kind).toBe("image");
    expect(blobsOf(m).map((b) => b.digest)).toEqual([d("a"), d("b")]);
    expect(m.artifactType).toBe("application/vnd.oci.image.config.v1+json");
  });

  it("reads an index with platforms and a signature's subject and artifactType", () => {
    const index = parseManifest(
      bytes({
        schemaVersion: 2,
        mediaType: MEDIA_TYPES.ociIndex,
        manifests: [
          {
            ...image.config,
            mediaType: MEDIA_TYPES.ociManifest,
            platform: { os: "linux", architecture: "arm64" },
          },
        ],
      }),
      undefined,
    );
    expect(index.kind).toBe("index");
    expect(index.manifests[0]!.platform).toEqual({ os: "linux", architecture: "arm64" });
    const signature = parseManifest(
      bytes({
        ...image,
        artifactType: "application/vnd.dev.cosign.signature",
        config: { mediaType: MEDIA_TYPES.ociEmpty, digest: d("e"), size: 2 },
        subject: { mediaType: MEDIA_TYPES.ociManifest, digest: d("c"), size: 99 },
      }),
      MEDIA_TYPES.ociManifest,
    );
    expect(signature.subject?.digest).toBe(d("c"));
    expect(signature.artifactType).toBe("application/vnd.dev.cosign.signature");
  });

  it("takes the media type from the Content-Type when the manifest has none (Docker schema 2)", () => {
    const { mediaType: _, ...bare } = image;
    expect(parseManifest(bytes(bare), MEDIA_TYPES.dockerManifest).mediaType).toBe(MEDIA_TYPES.dockerManifest);
  });

  it("refuses what is not a manifest with MANIFEST_INVALID", () => {
    expect(code(() => parseManifest(new TextEncoder().encode("{"), undefined))).toBe("MANIFEST_INVALID");
    expect(code(() => parseManifest(bytes({ ...image, schemaVersion: 1 }), undefined))).toBe(
      "MANIFEST_INVALID",
    );
    expect(code(() => parseManifest(bytes({ ...image, layers: [{ digest: d("b") }] }), undefined))).toBe(
      "MANIFEST_INVALID",
    );
    expect(code(() => parseManifest(bytes(image), MEDIA_TYPES.ociIndex))).toBe("MANIFEST_INVALID");
    expect(code(() => parseManifest(bytes({ ...image, mediaType: "application/x-other" }), undefined))).toBe(
      "MANIFEST_INVALID",
    );
  });

  it("refuses a digest of another algorithm with DIGEST_INVALID", () => {
    expect(
      code(() =>
        parseManifest(
          bytes({ ...image, config: { ...image.config, digest: `sha512:${"a".repeat(128)}` } }),
          undefined,
        ),
      ),
    ).toBe("DIGEST_INVALID");
  });
});

describe("names, digests and references", () => {
  it("follows the specification's grammar", () => {
    expect(isValidRepositoryName("acme/tool")).toBe(true);
    expect(isValidRepositoryName("acme/tool/cli-x.y__z")).toBe(true);
    expect(isValidRepositoryName("Acme/tool")).toBe(false);
    expect(isValidRepositoryName("acme//tool")).toBe(false);
    expect(isValidRepositoryName("acme/-tool")).toBe(false);
    expect(sha256Of(d("f"))).toBe("f".repeat(64));
    expect(code(() => sha256Of("sha256:xyz"))).toBe("DIGEST_INVALID");
    expect(isDigestReference(d("f"))).toBe(true);
    expect(isDigestReference("1.2.0")).toBe(false);
  });
});
