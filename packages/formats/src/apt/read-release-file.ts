// Reads an existing APT repository's entry file (InRelease or Release), for importing it: the
// suite's components and architectures and the SHA256 of every index it lists. The OpenPGP
// signature of InRelease is taken apart but not verified (decision 029): the operator names the
// repository, and each package is checked against the checksums this file gives.
import { type ControlField, getControlField, parseControlParagraph } from "../deb/control-paragraph.ts";
import { DebFormatError } from "../deb/deb-format-error.ts";
import { AptReadError } from "./apt-read-error.ts";

export interface ReleaseIndexFile {
  /** Relative to dists/<suite>/, e.g. main/binary-amd64/Packages.gz. */
  path: string;
  size: number;
  sha256: string;
}

export interface ReadRelease {
  fields: ControlField[];
  suite?: string;
  codename?: string;
  date?: string;
  components: string[];
  architectures: string[];
  /** The SHA256 block: every file the suite lists, by path. */
  files: Map<string, ReleaseIndexFile>;
  /** True when the text was an OpenPGP cleartext-signed message (InRelease). */
  signed: boolean;
  /** The armored signature of an InRelease, as it was (not verified). */
  signature?: string;
}

const BEGIN_SIGNED = "-----BEGIN PGP SIGNED MESSAGE-----";
const BEGIN_SIGNATURE = "-----BEGIN PGP SIGNATURE-----";
const END_SIGNATURE = "-----END PGP SIGNATURE-----";

/**
 * Splits an OpenPGP cleartext-signed message (RFC 9580 §7) into the signed text (dash-escaping
 * undone) and the armored signature; a text that is not signed comes back as it is.
 */
export function splitClearsigned(input: string): { text: string; signed: boolean; signature?: string } {
  const lines = input
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  let first = 0;
  while (first < lines.length && lines[first]!.trim() === "") first++;
  if (lines[first]?.trimEnd() !== BEGIN_SIGNED) {
    if (input.includes(BEGIN_SIGNED) || input.includes(BEGIN_SIGNATURE))
      throw new AptReadError("signed text must start with the signed-message header");
    return { text: input, signed: false };
  }
  // Armor headers ("Hash: SHA512") up to the first empty line.
  let index = first + 1;
  while (index < lines.length && lines[index]!.trim() !== "") {
    if (!/^[A-Za-z]+: /.test(lines[index]!)) throw new AptReadError("bad armor header in the signed text");
    index++;
  }
  if (index >= lines.length) throw new AptReadError("signed text has no body");
  index++;
  const body: string[] = [];
  while (index < lines.length && lines[index]!.trimEnd() !== BEGIN_SIGNATURE) {
    const line = lines[index]!;
    if (line.startsWith("-") && !line.startsWith("- "))
      throw new AptReadError(`unescaped dash line in the signed text (line ${index + 1})`);
    body.push(line.startsWith("- ") ? line.slice(2) : line);
    index++;
  }
  if (index >= lines.length) throw new AptReadError("signed text has no signature");
  const signatureStart = index;
  while (index < lines.length && lines[index]!.trimEnd() !== END_SIGNATURE) index++;
  if (index >= lines.length) throw new AptReadError("signature block is not closed");
  const rest = lines.slice(index + 1).join("\n");
  if (rest.trim() !== "") throw new AptReadError("text after the signature");
  return {
    text: `${body.join("\n")}\n`,
    signed: true,
    signature: `${lines.slice(signatureStart, index + 1).join("\n")}\n`,
  };
}

function words(value: string | undefined): string[] {
  return value ? value.split(/\s+/).filter((word) => word !== "") : [];
}

/** A path relative to the suite: no "..", no absolute path. */
function cleanPath(path: string): boolean {
  return (
    path !== "" &&
    !path.startsWith("/") &&
    !/[\\]/.test(path) &&
    path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..")
  );
}

function hashBlock(value: string | undefined): Map<string, ReleaseIndexFile> {
  const files = new Map<string, ReleaseIndexFile>();
  for (const line of (value ?? "").split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    const parts = trimmed.split(/\s+/);
    if (parts.length !== 3)
      throw new AptReadError(`SHA256: expected "<hash> <size> <path>", got ${JSON.stringify(trimmed)}`);
    const [sha256, size, path] = parts as [string, string, string];
    if (!/^[0-9a-fA-F]{64}$/.test(sha256))
      throw new AptReadError(`SHA256: ${JSON.stringify(sha256)} is not a SHA256`);
    if (!/^\d+$/.test(size) || !Number.isSafeInteger(Number(size)))
      throw new AptReadError(`SHA256: ${JSON.stringify(size)} is not a size`);
    if (!cleanPath(path))
      throw new AptReadError(`SHA256: ${JSON.stringify(path)} is not a clean relative path`);
    files.set(path, { path, size: Number(size), sha256: sha256.toLowerCase() });
  }
  return files;
}

/** Parses InRelease (cleartext-signed) or Release. Throws AptReadError on anything else. */
export function readReleaseFile(input: string): ReadRelease {
  const { text, signed, signature } = splitClearsigned(input);
  let fields: ControlField[];
  try {
    fields = parseControlParagraph(text);
  } catch (error) {
    // Without the line itself: an importer shows this message, and the text is whatever a URL
    // answered (issue 37: an internal service's first line came back in it).
    if (error instanceof DebFormatError)
      throw new AptReadError(error.message.replace(/^control file: /, "").replace(/, got .*$/s, ""));
    throw error;
  }
  const sha256 = getControlField(fields, "SHA256");
  if (sha256 === undefined)
    throw new AptReadError("no SHA256 field: apt refuses a Release without SHA256 checksums");
  const release: ReadRelease = {
    fields,
    components: words(getControlField(fields, "Components")),
    architectures: words(getControlField(fields, "Architectures")),
    files: hashBlock(sha256),
    signed,
  };
  const suite = getControlField(fields, "Suite");
  const codename = getControlField(fields, "Codename");
  const date = getControlField(fields, "Date");
  if (suite !== undefined) release.suite = suite;
  if (codename !== undefined) release.codename = codename;
  if (date !== undefined) release.date = date;
  if (signature !== undefined) release.signature = signature;
  return release;
}

export type PackagesCompression = "none" | "gzip" | "xz";

export interface PackagesIndexRef extends ReleaseIndexFile {
  component: string;
  architecture: string;
  compression: PackagesCompression;
}

const compressionBySuffix: Record<string, PackagesCompression> = { "": "none", ".gz": "gzip", ".xz": "xz" };

/**
 * The binary Packages indexes of each component and architecture, every compression the
 * Release lists, in the order given by `preference` (the first that can be downloaded is used).
 * Components with a "/" (e.g. "updates/main") are matched as written; debian-installer indexes
 * and Sources are left out.
 */
export function packagesIndexes(
  release: ReadRelease,
  components: readonly string[],
  preference: readonly PackagesCompression[] = ["gzip", "xz", "none"],
): Map<string, PackagesIndexRef[]> {
  const byIndex = new Map<string, PackagesIndexRef[]>();
  for (const file of release.files.values()) {
    for (const component of components) {
      if (!file.path.startsWith(`${component}/binary-`)) continue;
      const match = /^binary-([^/]+)\/Packages(\.gz|\.xz)?$/.exec(file.path.slice(component.length + 1));
      if (!match) continue;
      const architecture = match[1]!;
      const compression = compressionBySuffix[match[2] ?? ""]!;
      const key = `${component}/binary-${architecture}`;
      const list = byIndex.get(key) ?? [];
      list.push({ ...file, component, architecture, compression });
      byIndex.set(key, list);
    }
  }
  for (const list of byIndex.values())
    list.sort((a, b) => preference.indexOf(a.compression) - preference.indexOf(b.compression));
  return new Map([...byIndex].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
