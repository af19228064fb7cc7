// Renders a suite's Release file: what apt checks first (dates, architectures) and the hashes of
// every index it may download, which is what makes signed metadata cover the packages.
import { createHash } from "node:crypto";
import { AptIndexError } from "./apt-index-error.ts";
import { checkedHash, checkedLine, checkedRelativePath, checkedSize, checkedToken } from "./index-values.ts";

export interface ReleaseFileEntry {
  /** Relative to dists/<suite>/, e.g. main/binary-amd64/Packages.gz. */
  path: string;
  size: number;
  sha256: string;
  sha512: string;
}

export interface ReleaseInput {
  /** Keep Origin, Label and Codename stable: apt treats a change between updates as an error. */
  origin: string;
  label: string;
  suite: string;
  codename: string;
  version?: string;
  date: Date;
  /** After it, apt calls the repository expired: publish again before then. */
  validUntil?: Date;
  /** Include "all" when there is a binary-all index, or apt never fetches it. */
  architectures: readonly string[];
  components: readonly string[];
  description?: string;
  files: readonly ReleaseFileEntry[];
}

/** The signature files and the Release itself cannot be listed in the file they sign. */
const selfReferences = new Set(["Release", "InRelease", "Release.gpg"]);

const suiteToken = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;
const architectureToken = /^[a-z0-9][a-z0-9-]*$/;

/** RFC 1123 in UTC, with the "UTC" zone name the Debian archive uses (apt also accepts "GMT"). */
export function formatReleaseDate(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new AptIndexError("APT_BAD_DATE", "invalid date");
  return date.toUTCString().replace(/GMT$/, "UTC");
}

function uniqueTokens(field: string, values: readonly string[], pattern?: RegExp): string {
  if (values.length === 0)
    throw new AptIndexError("APT_BAD_FIELD", `${field}: at least one value is required`);
  return [...new Set(values.map((value) => checkedToken(field, value, pattern)))].join(" ");
}

function hashBlock(name: "SHA256" | "SHA512", files: readonly ReleaseFileEntry[]): string {
  const lines = files.map(
    (file) =>
      ` ${checkedHash(name, name === "SHA256" ? file.sha256 : file.sha512)} ${file.size} ${file.path}\n`,
  );
  return `${name}:\n${lines.join("")}`;
}

export function renderRelease(input: ReleaseInput): string {
  const files = input.files
    .filter((file) => !selfReferences.has(file.path))
    .map((file) => ({
      ...file,
      path: checkedRelativePath("Release file entry", file.path),
      size: checkedSize(file.path, file.size),
    }))
    .sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  for (let index = 1; index < files.length; index++) {
    if (files[index]!.path === files[index - 1]!.path) {
      throw new AptIndexError("APT_BAD_PATH", `${files[index]!.path} is listed twice`);
    }
  }
  if (input.validUntil !== undefined && input.validUntil.getTime() <= input.date.getTime()) {
    throw new AptIndexError("APT_BAD_DATE", "Valid-Until must be after Date");
  }

  const lines: string[] = [
    `Origin: ${checkedLine("Origin", input.origin)}`,
    `Label: ${checkedLine("Label", input.label)}`,
    `Suite: ${checkedToken("Suite", input.suite, suiteToken)}`,
  ];
  if (input.version !== undefined) lines.push(`Version: ${checkedLine("Version", input.version)}`);
  lines.push(
    `Codename: ${checkedToken("Codename", input.codename, suiteToken)}`,
    `Date: ${formatReleaseDate(input.date)}`,
  );
  if (input.validUntil !== undefined) lines.push(`Valid-Until: ${formatReleaseDate(input.validUntil)}`);
  lines.push(
    // Clients fetch indexes by content hash, so a publish never swaps a file under a reader.
    "Acquire-By-Hash: yes",
    `Architectures: ${uniqueTokens("Architectures", input.architectures, architectureToken)}`,
    `Components: ${uniqueTokens("Components", input.components)}`,
  );
  if (input.description !== undefined)
    lines.push(`Description: ${checkedLine("Description", input.description)}`);
  return `${lines.join("\n")}\n${hashBlock("SHA256", files)}${hashBlock("SHA512", files)}`;
}

/** Size and hashes of an index file's bytes, ready for renderRelease and byHashPath. */
export function describeIndexFile(path: string, content: Uint8Array | string): ReleaseFileEntry {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  return {
    path,
    size: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    sha512: createHash("sha512").update(bytes).digest("hex"),
  };
}
