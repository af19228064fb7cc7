// Decodes the fixed-size headers of a Unix `ar` archive, the container of every .deb.
import { DebFormatError } from "./deb-format-error.ts";

export const arMagic = new TextEncoder().encode("!<arch>\n");
export const arHeaderSize = 60;

export interface ArMemberHeader {
  name: string;
  size: number;
}

const latin1 = new TextDecoder("latin1");

function field(header: Uint8Array, start: number, length: number): string {
  return latin1.decode(header.subarray(start, start + length)).trimEnd();
}

export function startsWithArMagic(bytes: Uint8Array): boolean {
  return bytes.length >= arMagic.length && arMagic.every((byte, index) => bytes[index] === byte);
}

/** True when `bytes` could still become the ar magic with more input (tells truncation from garbage). */
export function isArMagicPrefix(bytes: Uint8Array): boolean {
  return bytes.length < arMagic.length && bytes.every((byte, index) => arMagic[index] === byte);
}

/**
 * Layout: name[16] mtime[12] uid[6] gid[6] mode[8] size[10] "`\n". dpkg writes names with a
 * trailing "/" (GNU style) in some versions, so it is tolerated; long-name tables are not, because
 * every member a .deb may contain fits in 15 characters.
 */
export function parseArHeader(header: Uint8Array): ArMemberHeader {
  if (header.length !== arHeaderSize || header[58] !== 0x60 || header[59] !== 0x0a) {
    throw new DebFormatError("DEB_BAD_ARCHIVE", "ar member header is malformed (bad terminator)");
  }
  const rawName = field(header, 0, 16);
  const name = rawName.endsWith("/") && rawName !== "/" && rawName !== "//" ? rawName.slice(0, -1) : rawName;
  if (name === "" || name.startsWith("/") || name.startsWith("#1/") || !/^[\x21-\x7e]+$/.test(name)) {
    throw new DebFormatError("DEB_BAD_ARCHIVE", `ar member name ${JSON.stringify(rawName)} is not supported`);
  }
  const sizeText = field(header, 48, 10);
  // Decimal digits only: a sign, a space inside or hex would let a hostile header mean two things.
  if (!/^\d{1,10}$/.test(sizeText)) {
    throw new DebFormatError(
      "DEB_BAD_ARCHIVE",
      `ar member ${name} has an invalid size ${JSON.stringify(sizeText)}`,
    );
  }
  return { name, size: Number(sizeText) };
}
