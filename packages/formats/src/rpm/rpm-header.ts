// Parses and validates one RPM header structure (signature or main header) from bytes already in memory.
import { RpmFormatError, type RpmPart } from "./rpm-format-error.ts";
import {
  HEADER_I18NTABLE,
  REGION_IMMUTABLE,
  REGION_SIGNATURES,
  RPM_TYPE_NAMES,
  RpmType,
} from "./rpm-tags.ts";

export const HEADER_MAGIC = Uint8Array.of(0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0);
/** Magic (8 bytes) + index count (4) + data length (4). */
export const HEADER_INTRO_SIZE = 16;
export const INDEX_ENTRY_SIZE = 16;
const REGION_TRAILER_SIZE = 16;
/** rpm 4.18 itself refuses signature headers with more than 32 entries (hdrblobRead). */
export const MAX_SIGNATURE_ENTRIES = 32;
/** rpm's HEADER_TAGS_MAX. */
export const MAX_HEADER_ENTRIES = 0xffff;
/**
 * rpm allows 256 MiB for the main header; real headers, even for packages with 100k files, stay
 * far below 64 MiB, and this cap bounds what a hostile upload can make us buffer.
 */
export const MAX_DATA_LENGTH = 64 * 1024 * 1024;
/**
 * Most values one index entry may hold (any type but BIN, whose count is a byte length bounded
 * by MAX_DATA_LENGTH); this is also the limit on files. The longest arrays of a real header are
 * the per-file ones (BASENAMES, FILEDIGESTS, FILEMODES, …): rpmbuild writes at least ~120 bytes
 * of them per file, so a header under MAX_DATA_LENGTH lists fewer than 560k files, and the
 * biggest real packages (texlive and rust docs, kernel-devel) have around 100k. Without it, a
 * store of 60M NUL bytes is 60M "valid" empty strings (issue 10): 60 MB to send, seconds of
 * blocked event loop and gigabytes to decode. Checked on the index alone, before the data store
 * is read, so a refusal costs nothing.
 */
export const MAX_ENTRY_COUNT = 1_000_000;

const TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1 };
const TYPE_ALIGN: Record<number, number> = { 3: 2, 4: 4, 5: 8 };
/** Fewest bytes one value of each type takes in the store: a string is at least its NUL. */
const MIN_ELEMENT_SIZE: Record<number, number> = { ...TYPE_SIZE, 6: 1, 8: 1, 9: 1 };

export interface RpmHeaderEntry {
  tag: number;
  type: number;
  offset: number;
  count: number;
}

export interface HeaderIntro {
  indexCount: number;
  dataLength: number;
  /** Bytes from the magic to the end of the data store. */
  size: number;
}

type HeaderPart = Exclude<RpmPart, "lead" | "payload">;

/** Reads and checks the 16-byte intro at `offset`: magic and caps, before anything is buffered. */
export function readHeaderIntro(buf: Uint8Array, offset: number, part: HeaderPart): HeaderIntro {
  if (buf.length < offset + HEADER_INTRO_SIZE) {
    throw new RpmFormatError("RPM_TRUNCATED", "file ends inside the header intro", part);
  }
  for (let i = 0; i < HEADER_MAGIC.length; i++) {
    if (buf[offset + i] !== HEADER_MAGIC[i]) {
      throw new RpmFormatError("RPM_BAD_MAGIC", "header magic is not 8E AD E8 01 00 00 00 00", part);
    }
  }
  const view = new DataView(buf.buffer, buf.byteOffset + offset, HEADER_INTRO_SIZE);
  const indexCount = view.getUint32(8);
  const dataLength = view.getUint32(12);
  const maxEntries = part === "signature" ? MAX_SIGNATURE_ENTRIES : MAX_HEADER_ENTRIES;
  if (indexCount < 1) throw new RpmFormatError("RPM_BAD_HEADER", "header has no index entries", part);
  if (indexCount > maxEntries) {
    throw new RpmFormatError("RPM_TOO_LARGE", `${indexCount} index entries (limit ${maxEntries})`, part);
  }
  if (dataLength > MAX_DATA_LENGTH) {
    throw new RpmFormatError(
      "RPM_TOO_LARGE",
      `data store of ${dataLength} bytes (limit ${MAX_DATA_LENGTH})`,
      part,
    );
  }
  return { indexCount, dataLength, size: HEADER_INTRO_SIZE + indexCount * INDEX_ENTRY_SIZE + dataLength };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Header strings have no declared encoding. Modern packages use UTF-8; for the rest we do what
 * createrepo_c does (read them as Latin-1, dropping C0 controls and the 0x80-0xBF range, which in
 * practice is misdecoded CP-1252), so our metadata matches the repositories people know.
 */
export function decodeHeaderString(bytes: Uint8Array): string {
  if (bytes.length === 0) return "";
  try {
    return utf8.decode(bytes);
  } catch {
    let out = "";
    for (const byte of bytes) {
      if (byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 13) continue;
      if (byte >= 0x80 && byte < 0xc0) continue;
      out += String.fromCharCode(byte);
    }
    return out;
  }
}

export class RpmHeader {
  readonly part: HeaderPart;
  /** The header exactly as stored: magic to the end of the data store. What signatures cover. */
  readonly bytes: Uint8Array;
  /** Index entries in file order, the region entry (if any) first. */
  readonly entries: readonly RpmHeaderEntry[];
  readonly store: Uint8Array;
  /** 62 or 63 when the header has a region, null for a legacy signature header without one. */
  readonly regionTag: number | null;
  readonly #byTag: Map<number, RpmHeaderEntry>;

  constructor(
    part: HeaderPart,
    bytes: Uint8Array,
    entries: RpmHeaderEntry[],
    store: Uint8Array,
    regionTag: number | null,
  ) {
    this.part = part;
    this.bytes = bytes;
    this.entries = entries;
    this.store = store;
    this.regionTag = regionTag;
    this.#byTag = new Map(entries.map((entry) => [entry.tag, entry]));
  }

  has(tag: number): boolean {
    return this.#byTag.has(tag);
  }

  entry(tag: number): RpmHeaderEntry | undefined {
    return this.#byTag.get(tag);
  }

  /** STRING, or the first (untranslated) value of an I18NSTRING. */
  getString(tag: number): string | undefined {
    const entry = this.#expect(tag, [RpmType.STRING, RpmType.I18NSTRING]);
    if (!entry) return undefined;
    return decodeHeaderString(this.#stringAt(entry.offset));
  }

  getStrings(tag: number): string[] | undefined {
    const entry = this.#expect(tag, [RpmType.STRING_ARRAY, RpmType.I18NSTRING, RpmType.STRING]);
    if (!entry) return undefined;
    const values: string[] = [];
    let position = entry.offset;
    for (let i = 0; i < entry.count; i++) {
      const bytes = this.#stringAt(position);
      values.push(decodeHeaderString(bytes));
      position += bytes.length + 1;
    }
    return values;
  }

  /** The first value of an integer tag. */
  getNumber(tag: number): number | undefined {
    return this.getNumbers(tag)?.[0];
  }

  getNumbers(tag: number): number[] | undefined {
    const entry = this.#expect(tag, [
      RpmType.CHAR,
      RpmType.INT8,
      RpmType.INT16,
      RpmType.INT32,
      RpmType.INT64,
    ]);
    if (!entry) return undefined;
    const size = TYPE_SIZE[entry.type]!;
    const view = new DataView(this.store.buffer, this.store.byteOffset + entry.offset, entry.count * size);
    const values = new Array<number>(entry.count);
    for (let i = 0; i < entry.count; i++) {
      const at = i * size;
      values[i] =
        size === 1
          ? view.getUint8(at)
          : size === 2
            ? view.getUint16(at)
            : size === 4
              ? view.getUint32(at)
              : Number(view.getBigUint64(at));
    }
    return values;
  }

  /** The stored bytes of an entry's value, whatever its type (for copying entries into a new header). */
  rawData(entry: RpmHeaderEntry): Uint8Array {
    return this.store.subarray(
      entry.offset,
      entry.offset + dataSize(entry, this.store, this.part, `tag ${entry.tag}`),
    );
  }

  getBinary(tag: number): Uint8Array | undefined {
    const entry = this.#expect(tag, [RpmType.BIN]);
    if (!entry) return undefined;
    return this.store.subarray(entry.offset, entry.offset + entry.count);
  }

  #expect(tag: number, types: number[]): RpmHeaderEntry | undefined {
    const entry = this.#byTag.get(tag);
    if (!entry) return undefined;
    if (!types.includes(entry.type)) {
      const wanted = types.map((type) => RPM_TYPE_NAMES[type]).join(" or ");
      throw new RpmFormatError(
        "RPM_BAD_HEADER",
        `tag ${tag} has type ${RPM_TYPE_NAMES[entry.type]}, expected ${wanted}`,
        this.part,
      );
    }
    return entry;
  }

  // Bounds were proven when the header was parsed, so the terminator is always there.
  #stringAt(position: number): Uint8Array {
    const end = this.store.indexOf(0, position);
    return this.store.subarray(position, end);
  }
}

/**
 * Parses the header at `offset` with every check rpm 4.18 makes before trusting it
 * (hdrblobVerifyRegion, hdrblobVerifyInfo), plus a refusal of duplicate tags, which rpm and
 * we could otherwise resolve differently.
 */
export function parseRpmHeader(buf: Uint8Array, offset: number, part: HeaderPart): RpmHeader {
  const intro = readHeaderIntro(buf, offset, part);
  const entries = readHeaderIndex(buf, offset, intro, part);
  if (buf.length < offset + intro.size) {
    throw new RpmFormatError("RPM_TRUNCATED", "file ends inside the header", part);
  }
  const { indexCount, dataLength } = intro;
  const bytes = buf.subarray(offset, offset + intro.size);
  const storeStart = HEADER_INTRO_SIZE + indexCount * INDEX_ENTRY_SIZE;
  const store = bytes.subarray(storeStart);

  const region = verifyRegion(entries, store, part);
  const regionTag = region?.tag ?? null;
  const seen = new Set<number>();
  if (regionTag !== null) seen.add(regionTag);
  let previousEnd = 0;
  for (let i = regionTag === null ? 0 : 1; i < indexCount; i++) {
    const entry = entries[i]!;
    const where = `entry ${i} (tag ${entry.tag})`;
    if (entry.tag < HEADER_I18NTABLE) {
      throw new RpmFormatError("RPM_BAD_HEADER", `${where}: tag numbers below 100 are reserved`, part);
    }
    if (seen.has(entry.tag)) throw new RpmFormatError("RPM_BAD_HEADER", `${where}: duplicate tag`, part);
    seen.add(entry.tag);
    if (entry.type > RpmType.I18NSTRING) {
      throw new RpmFormatError("RPM_BAD_HEADER", `${where}: unknown type ${entry.type}`, part);
    }
    if (entry.type === RpmType.NULL) {
      throw new RpmFormatError("RPM_BAD_HEADER", `${where}: type NULL carries no data; rpm refuses it`, part);
    }
    if (entry.count === 0) throw new RpmFormatError("RPM_BAD_HEADER", `${where}: count is zero`, part);
    if (entry.offset > dataLength) {
      throw new RpmFormatError(
        "RPM_INDEX_OUT_OF_BOUNDS",
        `${where}: offset ${entry.offset} is past the data store (${dataLength} bytes)`,
        part,
      );
    }
    const align = TYPE_ALIGN[entry.type] ?? 1;
    if (entry.offset % align !== 0) {
      throw new RpmFormatError(
        "RPM_BAD_HEADER",
        `${where}: offset ${entry.offset} is not aligned to ${align} for ${RPM_TYPE_NAMES[entry.type]}`,
        part,
      );
    }
    // rpm 4.18 wants data in index order without overlaps; anything else is a crafted header.
    if (entry.offset < previousEnd) {
      throw new RpmFormatError("RPM_BAD_HEADER", `${where}: data overlaps the previous entry`, part);
    }
    const end = entry.offset + dataSize(entry, store, part, where);
    if (region && end > region.dataLength - REGION_TRAILER_SIZE && entry.offset < region.dataLength) {
      throw new RpmFormatError("RPM_BAD_HEADER", `${where}: data overlaps the region trailer`, part);
    }
    previousEnd = end;
  }
  return new RpmHeader(part, bytes, entries, store, regionTag);
}

/**
 * Reads the index entries of the header whose intro (already checked) is at `offset`. Needs only
 * the index, not the data store, so a streaming reader can call it before buffering the store:
 * each entry's count is checked as soon as it is read, against the bytes the store can hold for
 * it (every string takes at least its NUL) and against MAX_ENTRY_COUNT, so no count ever sizes
 * an allocation or a scan before it has been bounded.
 */
export function readHeaderIndex(
  buf: Uint8Array,
  offset: number,
  intro: HeaderIntro,
  part: HeaderPart,
): RpmHeaderEntry[] {
  const { indexCount, dataLength } = intro;
  const indexEnd = offset + HEADER_INTRO_SIZE + indexCount * INDEX_ENTRY_SIZE;
  if (buf.length < indexEnd) {
    throw new RpmFormatError("RPM_TRUNCATED", "file ends inside the header index", part);
  }
  const view = new DataView(buf.buffer, buf.byteOffset + offset, indexEnd - offset);
  const entries: RpmHeaderEntry[] = new Array(indexCount);
  for (let i = 0; i < indexCount; i++) {
    const at = HEADER_INTRO_SIZE + i * INDEX_ENTRY_SIZE;
    const entry: RpmHeaderEntry = {
      tag: view.getUint32(at),
      type: view.getUint32(at + 4),
      offset: view.getUint32(at + 8),
      count: view.getUint32(at + 12),
    };
    entries[i] = entry;
    // Types rpm refuses (NULL, unknown) and offsets past the store fail later, with their own code.
    const minSize = MIN_ELEMENT_SIZE[entry.type];
    if (minSize === undefined || entry.offset > dataLength) continue;
    const where = `entry ${i} (tag ${entry.tag})`;
    if (entry.count * minSize > dataLength - entry.offset) {
      throw new RpmFormatError(
        "RPM_INDEX_OUT_OF_BOUNDS",
        `${where}: ${entry.count} × ${RPM_TYPE_NAMES[entry.type]} cannot fit in the ${dataLength - entry.offset} bytes after offset ${entry.offset}`,
        part,
      );
    }
    if (entry.type !== RpmType.BIN && entry.count > MAX_ENTRY_COUNT) {
      throw new RpmFormatError(
        "RPM_TOO_MANY_ENTRIES",
        `${where}: ${entry.count} values, more than any real package has (limit ${MAX_ENTRY_COUNT})`,
        part,
      );
    }
  }
  return entries;
}

function dataSize(entry: RpmHeaderEntry, store: Uint8Array, part: HeaderPart, where: string): number {
  const available = store.length - entry.offset;
  const fixed = TYPE_SIZE[entry.type];
  if (fixed !== undefined) {
    const size = entry.count * fixed;
    if (size > available) {
      throw new RpmFormatError(
        "RPM_INDEX_OUT_OF_BOUNDS",
        `${where}: ${entry.count} × ${RPM_TYPE_NAMES[entry.type]} runs past the data store`,
        part,
      );
    }
    return size;
  }
  if (entry.type === RpmType.STRING && entry.count !== 1) {
    throw new RpmFormatError("RPM_BAD_HEADER", `${where}: STRING with count ${entry.count}`, part);
  }
  // Every string takes at least its terminator, so a count above the bytes left is hopeless:
  // check it before scanning so a count of 4 billion costs nothing.
  if (entry.count > available) {
    throw new RpmFormatError(
      "RPM_INDEX_OUT_OF_BOUNDS",
      `${where}: ${entry.count} strings cannot fit in ${available} bytes`,
      part,
    );
  }
  // One pass over the bytes rather than an indexOf per string: the cost follows the store's size,
  // not the count, so a store of empty strings costs no more to check than one long string.
  let found = 0;
  let position = entry.offset;
  const end = store.length;
  while (position < end) {
    if (store[position++] === 0 && ++found === entry.count) return position - entry.offset;
  }
  throw new RpmFormatError("RPM_INDEX_OUT_OF_BOUNDS", `${where}: string runs past the data store`, part);
}

interface Region {
  tag: number;
  /** Bytes of the store covered by the region, trailer included (rpm's rdl). */
  dataLength: number;
}

function verifyRegion(entries: RpmHeaderEntry[], store: Uint8Array, part: HeaderPart): Region | null {
  const first = entries[0]!;
  const expected = part === "signature" ? REGION_SIGNATURES : REGION_IMMUTABLE;
  if (first.tag !== expected) {
    // Signature headers from before rpm 4 have no region and rpm still reads them; a main
    // header without the immutable region is a v3 package, which rpm 4.18 cannot verify either.
    if (part === "signature" && first.tag >= HEADER_I18NTABLE) return null;
    throw new RpmFormatError(
      "RPM_BAD_HEADER",
      `first entry is tag ${first.tag}, expected region tag ${expected}`,
      part,
    );
  }
  if (first.type !== RpmType.BIN || first.count !== REGION_TRAILER_SIZE) {
    throw new RpmFormatError(
      "RPM_BAD_HEADER",
      `region entry has type ${first.type} count ${first.count}`,
      part,
    );
  }
  if (first.offset + REGION_TRAILER_SIZE > store.length) {
    throw new RpmFormatError(
      "RPM_INDEX_OUT_OF_BOUNDS",
      `region trailer offset ${first.offset} is past the data store`,
      part,
    );
  }
  const trailer = new DataView(store.buffer, store.byteOffset + first.offset, REGION_TRAILER_SIZE);
  let trailerTag = trailer.getUint32(0);
  // Some old packages carry HEADERIMAGE (61) in the signature trailer; rpm fixes it up too.
  if (part === "signature" && trailerTag === 61) trailerTag = REGION_SIGNATURES;
  const regionIndexBytes = -trailer.getInt32(8);
  if (
    trailerTag !== expected ||
    trailer.getUint32(4) !== RpmType.BIN ||
    trailer.getUint32(12) !== REGION_TRAILER_SIZE
  ) {
    throw new RpmFormatError("RPM_BAD_HEADER", "region trailer does not match the region entry", part);
  }
  const regionEntries = regionIndexBytes / INDEX_ENTRY_SIZE;
  const dataLength = first.offset + REGION_TRAILER_SIZE;
  if (!Number.isInteger(regionEntries) || regionEntries < 1 || regionEntries > entries.length) {
    throw new RpmFormatError(
      "RPM_BAD_HEADER",
      `region trailer claims ${regionIndexBytes} bytes of index`,
      part,
    );
  }
  // In package files the region must be the whole header (rpm's exact_size): anything outside
  // it would be data no signature covers.
  if (part === "header" && (regionEntries !== entries.length || dataLength !== store.length)) {
    throw new RpmFormatError(
      "RPM_BAD_HEADER",
      `region covers ${regionEntries}/${entries.length} entries and ${dataLength}/${store.length} bytes`,
      part,
    );
  }
  return { tag: expected, dataLength };
}
