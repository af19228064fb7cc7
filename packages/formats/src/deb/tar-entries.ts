// Lists the entries of an in-memory tar (ustar, GNU long names, pax paths): enough to find
// ./control inside a .deb's control.tar, which is small and already bounded in size.
import { DebFormatError } from "./deb-format-error.ts";

export type TarEntryType = "file" | "directory" | "symlink" | "hardlink" | "other";

export interface TarEntry {
  /** Path as stored, with any leading "./" or "/" and trailing "/" removed ("" for the root). */
  name: string;
  type: TarEntryType;
  size: number;
  /** View into the tar bytes; empty for anything but regular files. */
  data: Uint8Array;
}

const blockSize = 512;
const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder();

function badTar(message: string): DebFormatError {
  return new DebFormatError("DEB_BAD_TAR", `control.tar: ${message}`);
}

function cString(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return utf8.decode(end === -1 ? bytes : bytes.subarray(0, end));
}

/** Octal, NUL/space padded; GNU base-256 when the high bit of the first byte is set. */
function parseNumber(bytes: Uint8Array, what: string): number {
  if (bytes[0] !== undefined && (bytes[0] & 0x80) !== 0) {
    let value = bytes[0] & 0x3f;
    for (const byte of bytes.subarray(1)) value = value * 256 + byte;
    if (!Number.isSafeInteger(value) || (bytes[0] & 0x40) !== 0) throw badTar(`${what} out of range`);
    return value;
  }
  const text = latin1
    .decode(bytes)
    .replace(/[\0 ]+$/, "")
    .replace(/^ +/, "");
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) throw badTar(`${what} is not an octal number`);
  return Number.parseInt(text, 8);
}

function checksumMatches(header: Uint8Array): boolean {
  const stored = parseNumber(header.subarray(148, 156), "header checksum");
  let unsigned = 0;
  let signed = 0;
  for (let index = 0; index < blockSize; index++) {
    const byte = index >= 148 && index < 156 ? 0x20 : (header[index] ?? 0);
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  // Some old tar implementations summed signed chars; accepting both costs nothing.
  return stored === unsigned || stored === signed;
}

function normalizeName(name: string): string {
  let result = name;
  while (result.startsWith("./")) result = result.slice(2);
  result = result.replace(/^\/+/, "").replace(/\/+$/, "");
  return result === "." ? "" : result;
}

function entryType(flag: number): TarEntryType {
  switch (String.fromCharCode(flag)) {
    case "0":
    case "\0":
    case "7":
      return "file";
    case "5":
      return "directory";
    case "2":
      return "symlink";
    case "1":
      return "hardlink";
    default:
      return "other";
  }
}

function paxPath(records: Uint8Array): string | undefined {
  let path: string | undefined;
  let offset = 0;
  while (offset < records.length) {
    const space = records.indexOf(0x20, offset);
    if (space === -1) break;
    const length = Number(latin1.decode(records.subarray(offset, space)));
    if (!Number.isSafeInteger(length) || length <= 0 || offset + length > records.length) {
      throw badTar("malformed pax header record");
    }
    const record = utf8.decode(records.subarray(space + 1, offset + length - 1));
    if (record.startsWith("path=")) path = record.slice("path=".length);
    offset += length;
  }
  return path;
}

export function readTarEntries(tar: Uint8Array, options: { maxEntries?: number } = {}): TarEntry[] {
  const maxEntries = options.maxEntries ?? 10_000;
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  while (offset + blockSize <= tar.length) {
    const header = tar.subarray(offset, offset + blockSize);
    if (header.every((byte) => byte === 0)) break;
    if (!checksumMatches(header)) throw badTar(`header checksum mismatch at offset ${offset}`);
    const size = parseNumber(header.subarray(124, 136), "entry size");
    const dataStart = offset + blockSize;
    if (size > tar.length - dataStart) throw badTar("entry runs past the end of the archive");
    const data = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / blockSize) * blockSize;

    const flag = String.fromCharCode(header[156] ?? 0);
    if (flag === "L") {
      longName = cString(data);
      continue;
    }
    if (flag === "x") {
      longName = paxPath(data) ?? longName;
      continue;
    }
    if (flag === "g" || flag === "K") continue;

    let name = cString(header.subarray(0, 100));
    // Only POSIX ustar ("ustar\0") has a prefix field; old GNU tar ("ustar  ") keeps times there.
    const isUstar = latin1.decode(header.subarray(257, 263)) === "ustar\0";
    const prefix = isUstar ? cString(header.subarray(345, 500)) : "";
    if (prefix !== "") name = `${prefix}/${name}`;
    if (longName !== undefined) name = longName;
    longName = undefined;

    const type = entryType(header[156] ?? 0);
    entries.push({
      name: normalizeName(name),
      type,
      size,
      data: type === "file" ? data : data.subarray(0, 0),
    });
    if (entries.length > maxEntries) throw badTar(`more than ${maxEntries} entries`);
  }
  if (tar.length > 0 && tar.length < blockSize) throw badTar("archive is shorter than one header");
  return entries;
}
