// OCI image manifests and indexes, Docker v2 schema 2 manifests and manifest lists: what a
// registry must read of a manifest pushed to it (the OCI Distribution Specification v1.1 and the
// Image Specification v1.1). Pure: bytes in, a description out, or an OciError with the
// specification's code. The bytes themselves are what the registry stores and serves: their
// sha256 is the manifest's digest, so they are never re-serialized.

/** An error with the distribution specification's code (MANIFEST_INVALID, DIGEST_INVALID, …). */
export class OciError extends Error {
  readonly code: OciErrorCode;
  readonly detail: unknown;
  constructor(code: OciErrorCode, message: string, detail?: unknown) {
    super(message);
    this.name = "OciError";
    this.code = code;
    this.detail = detail;
  }
}

/** The error codes of the OCI Distribution Specification (v1.1, "Error Codes"). */
export type OciErrorCode =
  | "BLOB_UNKNOWN"
  | "BLOB_UPLOAD_INVALID"
  | "BLOB_UPLOAD_UNKNOWN"
  | "DIGEST_INVALID"
  | "MANIFEST_BLOB_UNKNOWN"
  | "MANIFEST_INVALID"
  | "MANIFEST_UNKNOWN"
  | "NAME_INVALID"
  | "NAME_UNKNOWN"
  | "SIZE_INVALID"
  | "UNAUTHORIZED"
  | "DENIED"
  | "UNSUPPORTED"
  | "TOOMANYREQUESTS";

export const MEDIA_TYPES = {
  ociManifest: "application/vnd.oci.image.manifest.v1+json",
  ociIndex: "application/vnd.oci.image.index.v1+json",
  dockerManifest: "application/vnd.docker.distribution.manifest.v2+json",
  dockerList: "application/vnd.docker.distribution.manifest.list.v2+json",
  ociEmpty: "application/vnd.oci.empty.v1+json",
} as const;

const IMAGE_TYPES: readonly string[] = [MEDIA_TYPES.ociManifest, MEDIA_TYPES.dockerManifest];
const INDEX_TYPES: readonly string[] = [MEDIA_TYPES.ociIndex, MEDIA_TYPES.dockerList];

/** The manifest media types a registry accepts (what a client lists in Accept). */
export const MANIFEST_MEDIA_TYPES: readonly string[] = [...IMAGE_TYPES, ...INDEX_TYPES];

/** Manifests larger than this are refused (the specification suggests at least 4 MiB be accepted). */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** A content descriptor: what a manifest says of a blob or another manifest. */
export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  artifactType?: string;
  annotations?: Record<string, string>;
  platform?: Platform;
}

export interface Platform {
  architecture: string;
  os: string;
  variant?: string;
  "os.version"?: string;
}

export interface ParsedManifest {
  /** The manifest's own media type (its `mediaType` field, else the Content-Type it came with). */
  mediaType: string;
  kind: "image" | "index";
  /** An image manifest's config. */
  config?: Descriptor;
  /** An image manifest's layers (blobs). */
  layers: Descriptor[];
  /** An index's manifests. */
  manifests: Descriptor[];
  /** The manifest this one refers to (a signature, an SBOM): the referrers API lists it there. */
  subject?: Descriptor;
  /** What the referrers API calls it: `artifactType`, else an image manifest's config media type. */
  artifactType?: string;
  annotations?: Record<string, string>;
}

const DIGEST = /^sha256:[a-f0-9]{64}$/;
const ANY_DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

/** The hex of a sha256 digest; DIGEST_INVALID for any other algorithm or a malformed one. */
export function sha256Of(digest: string): string {
  if (DIGEST.test(digest)) return digest.slice("sha256:".length);
  if (ANY_DIGEST.test(digest))
    throw new OciError("DIGEST_INVALID", `Only sha256 digests are supported, not ${digest.split(":")[0]}`);
  throw new OciError("DIGEST_INVALID", `Not a digest: ${digest.slice(0, 100)}`);
}

/** Whether a reference (the last part of a manifests URL) is a digest rather than a tag. */
export function isDigestReference(reference: string): boolean {
  return reference.includes(":");
}

const TAG = /^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$/;

/** NAME_INVALID-like refusal of a tag the specification does not allow. */
export function assertTag(tag: string): void {
  if (!TAG.test(tag)) throw new OciError("MANIFEST_INVALID", `Not a valid tag: ${tag.slice(0, 140)}`);
}

/** One path component of a repository name (the specification's grammar, lower case). */
const NAME_COMPONENT = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/;

/** Whether a repository name is valid: components joined by `/`, at most 255 characters. */
export function isValidRepositoryName(name: string): boolean {
  return name.length <= 255 && name.split("/").every((part) => NAME_COMPONENT.test(part));
}

function invalid(message: string): OciError {
  return new OciError("MANIFEST_INVALID", message);
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringMap(value: unknown, where: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const map = record(value);
  if (!map || Object.values(map).some((v) => typeof v !== "string"))
    throw invalid(`${where}: annotations must map strings to strings`);
  return map as Record<string, string>;
}

function descriptor(value: unknown, where: string): Descriptor {
  const d = record(value);
  if (!d) throw invalid(`${where} is not a descriptor`);
  const { mediaType, digest, size } = d;
  if (typeof mediaType !== "string" || mediaType === "") throw invalid(`${where} has no mediaType`);
  if (typeof digest !== "string") throw invalid(`${where} has no digest`);
  if (!DIGEST.test(digest)) {
    if (ANY_DIGEST.test(digest)) sha256Of(digest);
    throw invalid(`${where} has an invalid digest`);
  }
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0)
    throw invalid(`${where} has an invalid size`);
  const out: Descriptor = { mediaType, digest, size };
  if (typeof d.artifactType === "string") out.artifactType = d.artifactType;
  const annotations = stringMap(d.annotations, where);
  if (annotations) out.annotations = annotations;
  const platform = record(d.platform);
  if (platform) {
    if (typeof platform.architecture !== "string" || typeof platform.os !== "string")
      throw invalid(`${where}: a platform needs architecture and os`);
    out.platform = {
      architecture: platform.architecture,
      os: platform.os,
      ...(typeof platform.variant === "string" ? { variant: platform.variant } : {}),
      ...(typeof platform["os.version"] === "string" ? { "os.version": platform["os.version"] } : {}),
    };
  }
  return out;
}

function descriptors(value: unknown, where: string): Descriptor[] {
  if (!Array.isArray(value)) throw invalid(`${where} must be a list`);
  return value.map((item, i) => descriptor(item, `${where}[${i}]`));
}

/**
 * Reads a pushed manifest. `contentType` is the request's Content-Type; the manifest's own
 * `mediaType`, when present, must agree with it (the specification: a mismatch is invalid).
 */
export function parseManifest(bytes: Uint8Array, contentType: string | undefined): ParsedManifest {
  if (bytes.byteLength > MAX_MANIFEST_BYTES)
    throw new OciError("SIZE_INVALID", `A manifest may be at most ${MAX_MANIFEST_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw invalid("The manifest is not JSON");
  }
  const m = record(json);
  if (!m) throw invalid("The manifest is not a JSON object");
  if (m.schemaVersion !== 2) throw invalid("Only schemaVersion 2 manifests are supported");
  const declared = contentType?.split(";")[0]?.trim().toLowerCase();
  const own = typeof m.mediaType === "string" ? m.mediaType : undefined;
  if (own && declared && declared !== own && MANIFEST_MEDIA_TYPES.includes(declared))
    throw invalid(`The manifest says it is ${own} but was sent as ${declared}`);
  const mediaType =
    own ??
    (declared && MANIFEST_MEDIA_TYPES.includes(declared)
      ? declared
      : "manifests" in m
        ? MEDIA_TYPES.ociIndex
        : MEDIA_TYPES.ociManifest);
  const annotations = stringMap(m.annotations, "the manifest");
  const subject = m.subject === undefined ? undefined : descriptor(m.subject, "subject");
  const artifactTypeField = typeof m.artifactType === "string" ? m.artifactType : undefined;
  if (IMAGE_TYPES.includes(mediaType)) {
    if ("manifests" in m) throw invalid("An image manifest has no manifests list");
    const config = descriptor(m.config, "config");
    const layers = m.layers === undefined ? [] : descriptors(m.layers, "layers");
    if (mediaType === MEDIA_TYPES.dockerManifest && layers.length === 0)
      throw invalid("A Docker image manifest needs at least one layer");
    return {
      mediaType,
      kind: "image",
      config,
      layers,
      manifests: [],
      ...(subject ? { subject } : {}),
      // The referrers API: the config's media type when the manifest names none (Distribution 1.1).
      artifactType: artifactTypeField ?? config.mediaType,
      ...(annotations ? { annotations } : {}),
    };
  }
  if (INDEX_TYPES.includes(mediaType)) {
    if ("layers" in m || "config" in m) throw invalid("An index has no config or layers");
    return {
      mediaType,
      kind: "index",
      layers: [],
      manifests: descriptors(m.manifests, "manifests"),
      ...(subject ? { subject } : {}),
      ...(artifactTypeField ? { artifactType: artifactTypeField } : {}),
      ...(annotations ? { annotations } : {}),
    };
  }
  throw invalid(`Unsupported manifest media type: ${mediaType.slice(0, 100)}`);
}

/** A platform as people write it: os/architecture[/variant]. */
export function platformName(p: Platform): string {
  return [p.os, p.architecture, p.variant].filter(Boolean).join("/");
}

/** The blobs a manifest needs in its repository: an image's config and layers. */
export function blobsOf(manifest: ParsedManifest): Descriptor[] {
  return manifest.kind === "image" ? [manifest.config!, ...manifest.layers] : [];
}
