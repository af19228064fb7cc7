// What a registry must read of an npm package: its name (validate-npm-package-name, the rules
// the npm client applies: new packages' names), and the `package/package.json` of a published
// tarball, found while the .tgz streams (compress/find-in-tar-gz.ts, decision 085), with bounds
// for a hostile archive. Pure apart from the stream given.
import type { Readable } from "node:stream";
import validateName from "validate-npm-package-name";
import { findInTarGz } from "../compress/find-in-tar-gz.ts";

export class NpmPackageError extends Error {
  readonly code: "NPM_INVALID_NAME" | "NPM_INVALID_TARBALL";
  constructor(code: NpmPackageError["code"], message: string) {
    super(message);
    this.code = code;
  }
}

/** Refuses a name npm would not publish today (NPM_INVALID_NAME, with npm's own reasons). */
export function assertPackageName(name: string): { scope?: string; bare: string } {
  const result = validateName(name);
  if (!result.validForNewPackages)
    throw new NpmPackageError(
      "NPM_INVALID_NAME",
      `${name.slice(0, 220)} is not a valid npm package name: ${[...(result.errors ?? []), ...(result.warnings ?? [])].join("; ")}`,
    );
  const scoped = /^@([^/]+)\/(.+)$/.exec(name);
  return scoped ? { scope: scoped[1]!, bare: scoped[2]! } : { bare: name };
}

/** A package name as its URL path segment: `@scope%2fname` (what npm requests), or `name`. */
export function packagePathSegment(name: string): string {
  return name.startsWith("@") ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name);
}

export const MAX_PACKAGE_JSON_BYTES = 1024 * 1024;
export const MAX_TARBALL_ENTRIES = 100_000;

function bad(message: string): NpmPackageError {
  return new NpmPackageError("NPM_INVALID_TARBALL", `The package tarball ${message}`);
}

/** The tarball's `package/package.json`, parsed (an object), and its bytes. */
export async function readTarballManifest(
  body: AsyncIterable<Uint8Array> | Readable,
  options: { maxDecompressedBytes: number },
): Promise<{ bytes: Uint8Array; manifest: Record<string, unknown> }> {
  const bytes = await findInTarGz(body, {
    // npm packs everything under package/ (some tools under another single directory).
    match: (name) => /^[^/]+\/package\.json$/.test(name),
    maxEntries: MAX_TARBALL_ENTRIES,
    maxFileBytes: MAX_PACKAGE_JSON_BYTES,
    maxDecompressedBytes: options.maxDecompressedBytes,
    fail: bad,
  });
  if (!bytes) throw bad("has no package/package.json");
  let manifest: unknown;
  try {
    manifest = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw bad("has a package.json that is not JSON");
  }
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest))
    throw bad("has a package.json that is not an object");
  return { bytes, manifest: manifest as Record<string, unknown> };
}
