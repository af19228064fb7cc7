// The package formats Packyard serves (decision 075). Adding one is a folder beside apt/ and
// yum/, one line here, and a migration for its package table (docs/formats.md).
import type { FileKind } from "@packyard/contract";
import { aptFormat } from "./apt/format.ts";
import type { PackageFormat } from "./format.ts";
import { yumFormat } from "./yum/format.ts";

export const formats: readonly PackageFormat[] = [aptFormat, yumFormat];

/** The format an upload of this name is a package of; undefined: a plain release file. */
export function formatOfFile(filename: string): PackageFormat | undefined {
  return formats.find((format) => format.recognises(filename));
}

/** The format of a release file's kind (release_file.kind); undefined: not a package. */
export function formatOfKind(kind: FileKind): PackageFormat | undefined {
  return formats.find((format) => format.fileKind === kind);
}

/** The format served under /dl/{user}/{project}/{prefix}/. */
export function formatOfRoute(prefix: string): PackageFormat | undefined {
  return formats.find((format) => format.routePrefix === prefix);
}
