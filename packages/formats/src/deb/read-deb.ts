// Reads a .deb from a stream: validates the ar container, extracts and checks the control
// paragraph, and skips data.tar chunk by chunk so multi-gigabyte packages cost no memory.
import { arHeaderSize, isArMagicPrefix, parseArHeader, startsWithArMagic } from "./ar-header.ts";
import { type BinaryControlSummary, summarizeBinaryControl } from "./binary-control.ts";
import { type DebCompression, decompressBounded } from "./bounded-decompress.ts";
import { ByteReader, type ByteSource } from "./byte-reader.ts";
import { type ControlField, parseControlParagraph, renderControlParagraph } from "./control-paragraph.ts";
import { DebFormatError } from "./deb-format-error.ts";
import { readTarEntries } from "./tar-entries.ts";

export type DataCompression = "none" | "gzip" | "xz" | "zstd" | "bzip2" | "lzma";

export interface ReadDebOptions {
  /** Cap on control.tar, compressed and decompressed. Default 8 MiB. */
  maxControlTarBytes?: number;
  /** Cap on ar members (a .deb has 3, signed ones a few more). Default 16. */
  maxMembers?: number;
  /** Reject archives whose members add up to more than this many bytes. No limit by default. */
  maxDebBytes?: number;
  /**
   * Return as soon as the control paragraph is parsed and release the source. Leave false when the
   * same stream also feeds a hash or storage, which need every byte read.
   */
  stopAfterControl?: boolean;
}

export interface DebDataMember {
  member: string;
  compression: DataCompression;
  size: number;
}

export interface DebPackage extends BinaryControlSummary {
  /** Control fields in file order. */
  control: ControlField[];
  /** The control paragraph re-rendered with LF endings, ready for a Packages stanza. */
  controlText: string;
  /** Paths inside control.tar without "./" (control, md5sums, postinst, …). */
  controlFiles: string[];
  controlCompression: DebCompression;
  /** The data.tar member; undefined only with stopAfterControl. */
  data: DebDataMember | undefined;
  /** From debian-binary, e.g. "2.0". */
  formatVersion: string;
  /** Bytes read from the source: the file size unless stopAfterControl was set. */
  bytesRead: number;
}

export const defaultMaxControlTarBytes = 8 * 1024 * 1024;
export const defaultMaxMembers = 16;

const controlCompressions: Record<string, DebCompression> = {
  "control.tar": "none",
  "control.tar.gz": "gzip",
  "control.tar.xz": "xz",
  "control.tar.zst": "zstd",
};

const dataCompressions: Record<string, DataCompression> = {
  "data.tar": "none",
  "data.tar.gz": "gzip",
  "data.tar.xz": "xz",
  "data.tar.zst": "zstd",
  "data.tar.bz2": "bzip2",
  "data.tar.lzma": "lzma",
};

function truncated(what: string): DebFormatError {
  return new DebFormatError("DEB_TRUNCATED", `the .deb ends inside ${what}`);
}

async function readMemberBytes(reader: ByteReader, name: string, size: number): Promise<Uint8Array> {
  const bytes = await reader.read(size);
  if (bytes.length < size) throw truncated(`member ${name}`);
  return bytes;
}

function parseFormatVersion(bytes: Uint8Array): string {
  const firstLine = new TextDecoder("latin1").decode(bytes).split("\n")[0]?.trim() ?? "";
  if (!/^2\.\d+$/.test(firstLine)) {
    throw new DebFormatError(
      "DEB_BAD_DEBIAN_BINARY",
      `debian-binary says ${JSON.stringify(firstLine.slice(0, 20))}, expected format 2.x`,
    );
  }
  return firstLine;
}

function decodeControlText(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new DebFormatError("DEB_BAD_CONTROL", "control file is not valid UTF-8", { cause: error });
  }
  if (text.includes("\0")) throw new DebFormatError("DEB_BAD_CONTROL", "control file contains a NUL byte");
  return text;
}

interface ParsedControlTar {
  control: ControlField[];
  summary: BinaryControlSummary;
  controlFiles: string[];
}

async function parseControlTar(
  member: Uint8Array,
  compression: DebCompression,
  maxBytes: number,
): Promise<ParsedControlTar> {
  const tar = await decompressBounded(member, compression, maxBytes);
  const entries = readTarEntries(tar);
  const controlEntry = entries.find((entry) => entry.name === "control");
  if (controlEntry === undefined || controlEntry.type !== "file") {
    throw new DebFormatError("DEB_MISSING_CONTROL", "control.tar has no ./control file");
  }
  const control = parseControlParagraph(decodeControlText(controlEntry.data));
  return {
    control,
    summary: summarizeBinaryControl(control),
    controlFiles: entries.filter((entry) => entry.name !== "").map((entry) => entry.name),
  };
}

export async function readDeb(source: ByteSource, options: ReadDebOptions = {}): Promise<DebPackage> {
  const maxControlTarBytes = options.maxControlTarBytes ?? defaultMaxControlTarBytes;
  const maxMembers = options.maxMembers ?? defaultMaxMembers;
  const maxDebBytes = options.maxDebBytes ?? Number.POSITIVE_INFINITY;
  const reader = new ByteReader(source);
  try {
    const magic = await reader.read(8);
    if (!startsWithArMagic(magic)) {
      if (isArMagicPrefix(magic)) throw truncated("the ar signature");
      throw new DebFormatError("DEB_NOT_AR", "not a .deb: the file does not start with an ar signature");
    }

    let memberCount = 0;
    let formatVersion: string | undefined;
    let parsedControl: ParsedControlTar | undefined;
    let controlCompression: DebCompression | undefined;
    let data: DebDataMember | undefined;

    for (;;) {
      const header = await reader.read(arHeaderSize);
      if (header.length === 0) break;
      if (header.length < arHeaderSize) throw truncated("an ar member header");
      const { name, size } = parseArHeader(header);
      memberCount += 1;
      if (memberCount > maxMembers) {
        throw new DebFormatError("DEB_TOO_MANY_MEMBERS", `the .deb has more than ${maxMembers} ar members`);
      }
      if (reader.position + size > maxDebBytes) {
        throw new DebFormatError(
          "DEB_TOO_LARGE",
          `member ${name} (${size} bytes) makes the .deb larger than ${maxDebBytes} bytes`,
        );
      }

      if (formatVersion === undefined) {
        if (name !== "debian-binary") {
          throw new DebFormatError(
            "DEB_BAD_DEBIAN_BINARY",
            `the first member is ${name}, expected debian-binary`,
          );
        }
        if (size > 1024) throw new DebFormatError("DEB_BAD_DEBIAN_BINARY", `debian-binary is ${size} bytes`);
        formatVersion = parseFormatVersion(await readMemberBytes(reader, name, size));
      } else if (data !== undefined || name.startsWith("_")) {
        // dpkg ignores members after data.tar and reserves "_" names for local additions (signatures).
        if ((await reader.skip(size)) < size) throw truncated(`member ${name}`);
      } else if (parsedControl === undefined) {
        if (name.startsWith("data.tar")) {
          throw new DebFormatError("DEB_MISSING_CONTROL", "data.tar comes before any control.tar member");
        }
        if (!name.startsWith("control.tar")) {
          throw new DebFormatError("DEB_BAD_ARCHIVE", `unexpected member ${name} where control.tar belongs`);
        }
        controlCompression = controlCompressions[name];
        if (controlCompression === undefined) {
          throw new DebFormatError(
            "DEB_UNSUPPORTED_COMPRESSION",
            `${name}: only control.tar, .gz, .xz and .zst are supported`,
          );
        }
        if (size > maxControlTarBytes) {
          throw new DebFormatError(
            "DEB_CONTROL_TOO_LARGE",
            `${name} is ${size} bytes, the limit is ${maxControlTarBytes}`,
          );
        }
        const member = await readMemberBytes(reader, name, size);
        parsedControl = await parseControlTar(member, controlCompression, maxControlTarBytes);
        if (options.stopAfterControl) break;
      } else {
        if (!name.startsWith("data.tar")) {
          throw new DebFormatError("DEB_BAD_ARCHIVE", `unexpected member ${name} where data.tar belongs`);
        }
        const compression = dataCompressions[name];
        if (compression === undefined) {
          throw new DebFormatError("DEB_UNSUPPORTED_COMPRESSION", `${name}: unknown data.tar compression`);
        }
        if ((await reader.skip(size)) < size) throw truncated(`member ${name}`);
        data = { member: name, compression, size };
      }
      // Members start on even offsets; a missing final pad byte at the very end is harmless.
      if (size % 2 === 1) await reader.skip(1);
    }

    if (formatVersion === undefined) throw truncated("the ar archive before any member");
    if (parsedControl === undefined || controlCompression === undefined) {
      throw new DebFormatError("DEB_MISSING_CONTROL", "the .deb has no control.tar member");
    }
    if (data === undefined && !options.stopAfterControl) {
      throw new DebFormatError("DEB_MISSING_DATA", "the .deb has no data.tar member");
    }
    return {
      ...parsedControl.summary,
      control: parsedControl.control,
      controlText: renderControlParagraph(parsedControl.control),
      controlFiles: parsedControl.controlFiles,
      controlCompression,
      data,
      formatVersion,
      bytesRead: reader.position,
    };
  } finally {
    await reader.close();
  }
}
