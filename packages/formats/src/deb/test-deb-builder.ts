// Test-only: builds ar, tar and whole .deb files in memory so parser tests need no fixtures on disk.
import { execFileSync } from "node:child_process";
import { gzipSync, zstdCompressSync } from "node:zlib";

export type TestCompression = "none" | "gzip" | "xz" | "zstd";

export const testCompressions: readonly TestCompression[] = ["none", "gzip", "xz", "zstd"];

export const compressionSuffix: Record<TestCompression, string> = {
  none: "",
  gzip: ".gz",
  xz: ".xz",
  zstd: ".zst",
};

const encoder = new TextEncoder();

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** xz has no Node built-in encoder; the `xz` command is on every machine that runs these tests. */
export function compress(bytes: Uint8Array, compression: TestCompression): Uint8Array {
  switch (compression) {
    case "none":
      return bytes;
    case "gzip":
      return gzipSync(bytes);
    case "zstd":
      return zstdCompressSync(bytes);
    case "xz":
      return execFileSync("xz", ["-c", "--check=crc64"], { input: bytes });
  }
}

export interface TestTarEntry {
  name: string;
  data?: Uint8Array | string;
  type?: "file" | "directory" | "symlink";
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

function tarHeader(name: string, size: number, typeFlag: string, linkName = ""): Uint8Array {
  const header = new Uint8Array(512);
  const put = (text: string, offset: number) => header.set(encoder.encode(text), offset);
  put(name, 0);
  put(octal(typeFlag === "5" ? 0o755 : 0o644, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  put(octal(size, 12), 124);
  put(octal(0, 12), 136);
  put("        ", 148);
  header[156] = typeFlag.charCodeAt(0);
  put(linkName, 157);
  put("ustar\u000000", 257);
  put("root", 265);
  put("root", 297);
  const sum = header.reduce((total, byte) => total + byte, 0);
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return header;
}

function padToBlock(data: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
  padded.set(data);
  return padded;
}

/** ustar, with a GNU "././@LongLink" entry in front of names longer than 100 bytes. */
export function tarArchive(entries: readonly TestTarEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const type = entry.type ?? "file";
    const data =
      type === "file"
        ? typeof entry.data === "string"
          ? encoder.encode(entry.data)
          : (entry.data ?? new Uint8Array())
        : new Uint8Array();
    let name = entry.name;
    if (encoder.encode(name).length > 100) {
      const longName = encoder.encode(`${name}\0`);
      parts.push(tarHeader("././@LongLink", longName.length, "L"), padToBlock(longName));
      name = name.slice(0, 100);
    }
    const flag = type === "directory" ? "5" : type === "symlink" ? "2" : "0";
    const linkName = type === "symlink" && typeof entry.data === "string" ? entry.data : "";
    parts.push(tarHeader(name, data.length, flag, linkName), padToBlock(data));
  }
  parts.push(new Uint8Array(1024));
  return concatBytes(parts);
}

export interface TestArMember {
  name: string;
  data: Uint8Array | string;
  /** Overrides the size written in the header, to fake hostile or truncated archives. */
  declaredSize?: number;
}

export function arHeaderBytes(name: string, size: number): Uint8Array {
  const text = `${name.padEnd(16)}${"0".padEnd(12)}${"0".padEnd(6)}${"0".padEnd(6)}${"100644".padEnd(8)}${String(size).padEnd(10)}\`\n`;
  return encoder.encode(text);
}

export function arArchive(members: readonly TestArMember[]): Uint8Array {
  const parts: Uint8Array[] = [encoder.encode("!<arch>\n")];
  for (const member of members) {
    const data = typeof member.data === "string" ? encoder.encode(member.data) : member.data;
    parts.push(arHeaderBytes(member.name, member.declaredSize ?? data.length), data);
    if (data.length % 2 === 1) parts.push(encoder.encode("\n"));
  }
  return concatBytes(parts);
}

export const sampleControl = `Package: hello-world
Version: 1:2.10-3~bpo12+1
Architecture: amd64
Maintainer: Jane Doe <jane@example.com>
Installed-Size: 280
Depends: libc6 (>= 2.34)
Section: utils
Priority: optional
Homepage: https://example.com/hello
Description: example package that greets
 The GNU hello program produces a familiar, friendly greeting.
 .
 It is used in Packyard tests.
`;

export interface TestDebOptions {
  control?: string;
  controlCompression?: TestCompression;
  dataCompression?: TestCompression;
  /** Extra files in control.tar besides ./control (e.g. md5sums, postinst). */
  controlFiles?: readonly TestTarEntry[];
  dataFiles?: readonly TestTarEntry[];
  /** Name of the control file inside control.tar; "./control" like dpkg-deb by default. */
  controlPath?: string;
}

export function controlTar(options: TestDebOptions = {}): Uint8Array {
  return tarArchive([
    { name: "./", type: "directory" },
    { name: options.controlPath ?? "./control", data: options.control ?? sampleControl },
    ...(options.controlFiles ?? []),
  ]);
}

export function buildTestDeb(options: TestDebOptions = {}): Uint8Array {
  const controlCompression = options.controlCompression ?? "gzip";
  const dataCompression = options.dataCompression ?? "gzip";
  const data = tarArchive([
    { name: "./", type: "directory" },
    { name: "./usr/", type: "directory" },
    { name: "./usr/bin/", type: "directory" },
    ...(options.dataFiles ?? [{ name: "./usr/bin/hello-world", data: "#!/bin/sh\necho hello\n" }]),
  ]);
  return arArchive([
    { name: "debian-binary", data: "2.0\n" },
    {
      name: `control.tar${compressionSuffix[controlCompression]}`,
      data: compress(controlTar(options), controlCompression),
    },
    { name: `data.tar${compressionSuffix[dataCompression]}`, data: compress(data, dataCompression) },
  ]);
}
