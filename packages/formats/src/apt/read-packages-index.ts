// Reads an existing repository's Packages index as it streams in (a Debian mirror's is tens of
// megabytes): one stanza at a time, each reduced to what an import needs to fetch and verify the
// package. Stanzas are parsed with the same deb822 reader as control files.
import { type ControlField, getControlField, parseControlParagraph } from "../deb/control-paragraph.ts";
import { DebFormatError } from "../deb/deb-format-error.ts";
import { AptReadError } from "./apt-read-error.ts";

/** A stanza longer than this is not a package description: refused rather than buffered. */
export const MAX_STANZA_BYTES = 1024 * 1024;

/** Splits deb822 text into paragraphs as the bytes arrive. */
export async function* readDeb822Paragraphs(
  bytes: AsyncIterable<Uint8Array>,
  maxParagraphBytes = MAX_STANZA_BYTES,
): AsyncGenerator<ControlField[]> {
  const decoder = new TextDecoder("utf-8");
  let pending = "";
  let paragraph: string[] = [];
  let paragraphLength = 0;
  let lineNumber = 0;
  let paragraphStart = 1;
  const finish = (): ControlField[] | undefined => {
    if (paragraph.length === 0) return undefined;
    const text = paragraph.join("\n");
    paragraph = [];
    paragraphLength = 0;
    try {
      return parseControlParagraph(text);
    } catch (error) {
      if (error instanceof DebFormatError)
        throw new AptReadError(
          `stanza at line ${paragraphStart}: ${error.message.replace(/^control file: /, "")}`,
        );
      throw error;
    }
  };
  const take = function* (line: string): Generator<ControlField[]> {
    lineNumber++;
    if (/^[ \t]*$/.test(line)) {
      const fields = finish();
      if (fields) yield fields;
      return;
    }
    if (paragraph.length === 0) paragraphStart = lineNumber;
    paragraph.push(line);
    paragraphLength += line.length + 1;
    if (paragraphLength > maxParagraphBytes)
      throw new AptReadError(`stanza at line ${paragraphStart} is longer than ${maxParagraphBytes} bytes`);
  };
  for await (const chunk of bytes) {
    pending += decoder.decode(chunk, { stream: true });
    let start = 0;
    let newline = pending.indexOf("\n");
    while (newline !== -1) {
      yield* take(pending.slice(start, newline).replace(/\r$/, ""));
      start = newline + 1;
      newline = pending.indexOf("\n", start);
    }
    pending = pending.slice(start);
    if (pending.length > maxParagraphBytes)
      throw new AptReadError(`a line at line ${lineNumber + 1} is longer than ${maxParagraphBytes} bytes`);
  }
  pending += decoder.decode();
  if (pending !== "") yield* take(pending);
  const last = finish();
  if (last) yield last;
}

/** What an import needs from one Packages stanza. */
export interface PackagesIndexPackage {
  name: string;
  version: string;
  architecture: string;
  /** Relative to the repository root, e.g. pool/main/h/hello/hello_1.0-1_amd64.deb. */
  filename: string;
  size: number;
  sha256: string;
}

function required(fields: readonly ControlField[], name: string, pkg: string): string {
  const value = getControlField(fields, name);
  if (value === undefined || value.trim() === "") throw new AptReadError(`package ${pkg}: no ${name} field`);
  return value.trim();
}

/** The fields of a Packages stanza an import uses, checked. */
export function packagesIndexPackage(fields: readonly ControlField[]): PackagesIndexPackage {
  const name = getControlField(fields, "Package")?.trim();
  if (!name) throw new AptReadError("a stanza has no Package field");
  const version = required(fields, "Version", name);
  const architecture = required(fields, "Architecture", name);
  const filename = required(fields, "Filename", name);
  const size = required(fields, "Size", name);
  const sha256 = getControlField(fields, "SHA256")?.trim();
  if (!sha256)
    throw new AptReadError(`package ${name} ${version}: no SHA256 field (apt refuses to download it too)`);
  if (!/^[0-9a-fA-F]{64}$/.test(sha256))
    throw new AptReadError(`package ${name} ${version}: SHA256 ${JSON.stringify(sha256)} is not a SHA256`);
  if (!/^\d+$/.test(size) || !Number.isSafeInteger(Number(size)))
    throw new AptReadError(`package ${name} ${version}: Size ${JSON.stringify(size)} is not a size`);
  if (
    filename.startsWith("/") ||
    /[\s\\]/.test(filename) ||
    filename.split("/").some((segment) => segment === "" || segment === "." || segment === "..")
  )
    throw new AptReadError(
      `package ${name} ${version}: Filename ${JSON.stringify(filename)} is not a clean relative path`,
    );
  return { name, version, architecture, filename, size: Number(size), sha256: sha256.toLowerCase() };
}

/** Every package of a Packages index, as the bytes (already decompressed) arrive. */
export async function* readPackagesIndex(
  bytes: AsyncIterable<Uint8Array>,
): AsyncGenerator<PackagesIndexPackage> {
  for await (const fields of readDeb822Paragraphs(bytes)) yield packagesIndexPackage(fields);
}
