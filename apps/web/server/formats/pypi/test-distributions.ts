// Python distributions written from bytes for the index's tests: a wheel (a zip with its
// .dist-info METADATA, WHEEL and RECORD, and one module) and an sdist (a .tar.gz with PKG-INFO,
// pyproject.toml, setup.py and the module), with Metadata-Version 2.1 (what Debian's twine 4.0.2
// accepts), and twine's upload form for one of them. Test support only.
import { createHash, randomBytes } from "node:crypto";
import { crc32, gzipSync } from "node:zlib";
import { blake2b } from "@noble/hashes/blake2.js";

export interface DistributionSpec {
  /** The name as the metadata writes it ("Acme_SDK"). */
  name: string;
  version: string;
  requiresPython?: string;
  summary?: string;
  /** The metadata's Name/Version when they should differ from the file's (a broken file). */
  metadataName?: string;
  metadataVersion?: string;
  /** The importable module's name; default: the name in lower case with "_" for "-" and ".". */
  module?: string;
}

/** The name as wheel and sdist file names escape it (PEP 427/625). */
export const escapedName = (name: string) => name.replace(/[-_.]+/g, "_").toLowerCase();

export const moduleOf = (spec: DistributionSpec) => spec.module ?? escapedName(spec.name);

export function coreMetadata(spec: DistributionSpec): string {
  return [
    "Metadata-Version: 2.1",
    `Name: ${spec.metadataName ?? spec.name}`,
    `Version: ${spec.metadataVersion ?? spec.version}`,
    `Summary: ${spec.summary ?? `The ${spec.name} test package`}`,
    ...(spec.requiresPython ? [`Requires-Python: ${spec.requiresPython}`] : []),
    "Description-Content-Type: text/plain",
    "",
    `${spec.name} for Packyard's tests.`,
    "",
  ].join("\n");
}

const text = (s: string) => Buffer.from(s, "utf8");

/** A zip of `files`, stored (no compression): what a wheel may be. */
export function storedZip(files: [string, Buffer][]): Buffer {
  const local: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of files) {
    const nameBytes = text(name);
    const crc = crc32(data);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4); // version needed
    header.writeUInt16LE(0x0800, 6); // UTF-8 names
    header.writeUInt16LE(0, 8); // stored
    header.writeUInt32LE(0x00210000, 10); // 1980-01-01 00:00
    header.writeUInt32LE(crc, 14);
    header.writeUInt32LE(data.length, 18);
    header.writeUInt32LE(data.length, 22);
    header.writeUInt16LE(nameBytes.length, 26);
    header.writeUInt16LE(0, 28);
    local.push(header, nameBytes, data);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(0x031e, 4); // made by: Unix, 3.0
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(0, 10);
    entry.writeUInt32LE(0x00210000, 12);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
    entry.writeUInt32LE(offset, 42);
    central.push(entry, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, directory, end]);
}

/** A ustar archive of `files`, gzipped. */
export function tarGz(files: [string, Buffer][]): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, data] of files) {
    const header = Buffer.alloc(512);
    header.write(name, 0, 100, "utf8");
    header.write("0000644\0", 100, "ascii");
    header.write("0000000\0", 108, "ascii");
    header.write("0000000\0", 116, "ascii");
    header.write(`${data.length.toString(8).padStart(11, "0")}\0`, 124, "ascii");
    header.write(`${"14000000000"}\0`, 136, "ascii");
    header.write("        ", 148, "ascii");
    header.write("0", 156, "ascii");
    header.write("ustar\0", 257, "ascii");
    header.write("00", 263, "ascii");
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

const recordHash = (data: Buffer) =>
  `sha256=${createHash("sha256").update(data).digest("base64url")},${data.length}`;

/**
 * A pure-Python wheel: `{escaped}-{version}-py3-none-any.whl`; `padding` bytes of random data in
 * a file of its own make it as large as a test needs.
 */
export function buildWheel(
  spec: DistributionSpec,
  options: { padding?: number } = {},
): { filename: string; bytes: Buffer; metadata: Buffer } {
  const base = `${escapedName(spec.name)}-${spec.version}`;
  const distInfo = `${base}.dist-info`;
  const metadata = text(coreMetadata(spec));
  const files: [string, Buffer][] = [
    [`${moduleOf(spec)}/__init__.py`, text(`VERSION = "${spec.version}"\n`)],
    ...(options.padding
      ? [[`${moduleOf(spec)}/data.bin`, randomBytes(options.padding)] as [string, Buffer]]
      : []),
    [`${distInfo}/METADATA`, metadata],
    [
      `${distInfo}/WHEEL`,
      text("Wheel-Version: 1.0\nGenerator: packyard-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n\n"),
    ],
  ];
  const record = [
    ...files.map(([name, data]) => `${name},${recordHash(data)}`),
    `${distInfo}/RECORD,,`,
    "",
  ].join("\n");
  files.push([`${distInfo}/RECORD`, text(record)]);
  return { filename: `${base}-py3-none-any.whl`, bytes: storedZip(files), metadata };
}

/** A source distribution setuptools can build: `{escaped}-{version}.tar.gz`. */
export function buildSdist(spec: DistributionSpec): { filename: string; bytes: Buffer } {
  const base = `${escapedName(spec.name)}-${spec.version}`;
  const module = moduleOf(spec);
  const bytes = tarGz([
    [`${base}/PKG-INFO`, text(coreMetadata(spec))],
    [
      `${base}/pyproject.toml`,
      text('[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'),
    ],
    [
      `${base}/setup.py`,
      text(
        `from setuptools import setup\nsetup(name=${JSON.stringify(spec.name)}, version=${JSON.stringify(spec.version)}, packages=[${JSON.stringify(module)}]${spec.requiresPython ? `, python_requires=${JSON.stringify(spec.requiresPython)}` : ""})\n`,
      ),
    ],
    [`${base}/${module}/__init__.py`, text(`VERSION = "${spec.version}"\nFROM_SDIST = True\n`)],
  ]);
  return { filename: `${base}.tar.gz`, bytes };
}

/** Digests of `bytes` as twine's form writes them. */
export function digestsOf(bytes: Uint8Array) {
  return {
    md5_digest: createHash("md5").update(bytes).digest("hex"),
    sha256_digest: createHash("sha256").update(bytes).digest("hex"),
    blake2_256_digest: Buffer.from(blake2b(bytes, { dkLen: 32 })).toString("hex"),
  };
}

/** twine's `file_upload` form for a distribution file: fields first, then `content`. */
export function uploadForm(
  file: { filename: string; bytes: Uint8Array },
  fields: Record<string, string | undefined>,
): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries({ ":action": "file_upload", protocol_version: "1", ...fields }))
    if (value !== undefined) form.append(key, value);
  form.append("content", new Blob([file.bytes as Uint8Array<ArrayBuffer>]), file.filename);
  return form;
}
