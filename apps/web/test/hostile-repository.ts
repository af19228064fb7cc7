// Repositories written by a test to attack the importers: an APT suite or a YUM repository whose
// one index is whatever text the test streams in (millions of stanzas, a decompression bomb),
// compressed as it is written and listed with its true checksum and size, so every check an
// honest index passes, it passes too. Served by test/static-server.ts on 127.0.0.1.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";

export type HostileCompression = "gzip" | "xz";

/** The text, in chunks of about 1 MiB, as a stream: never held whole. */
function chunked(parts: Iterable<string>): Readable {
  return Readable.from(
    (function* () {
      let pending = "";
      for (const part of parts) {
        pending += part;
        if (pending.length >= 1024 * 1024) {
          yield Buffer.from(pending);
          pending = "";
        }
      }
      if (pending !== "") yield Buffer.from(pending);
    })(),
  );
}

/** Compresses the text into `file` (gzip with zlib, xz with the xz tool); its sha256 and size. */
async function writeCompressed(
  file: string,
  parts: Iterable<string>,
  compression: HostileCompression,
): Promise<{ sha256: string; size: number }> {
  mkdirSync(dirname(file), { recursive: true });
  if (compression === "gzip") {
    await pipeline(chunked(parts), createGzip({ level: 1 }), createWriteStream(file));
  } else {
    const xz = spawn("xz", ["-1", "-T1", "-c"], { stdio: ["pipe", "pipe", "inherit"] });
    const exited = new Promise<number | null>((resolve) => xz.once("exit", resolve));
    await Promise.all([pipeline(chunked(parts), xz.stdin), pipeline(xz.stdout, createWriteStream(file))]);
    if ((await exited) !== 0) throw new Error("xz failed");
  }
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest("hex"), size };
}

/** A Packages stanza of package `name` at `version`, with a `padding`-byte description line. */
export function stanza(name: string, version: string, padding = 0): string {
  return `Package: ${name}
Version: ${version}
Architecture: amd64
Maintainer: Hostile <hostile@example.com>
Filename: pool/main/${name[0]}/${name}/${name}_${version}_amd64.deb
Size: 1024
SHA256: ${"ab".repeat(32)}
Description: ${name}${padding > 0 ? ` ${"x".repeat(padding)}` : ""}

`;
}

/**
 * Writes dists/stable (Release, no InRelease) with component main for amd64, whose
 * Packages.<gz|xz> holds `stanzas`, under `root`.
 */
export async function writeHostileAptSuite(
  root: string,
  stanzas: Iterable<string>,
  compression: HostileCompression,
): Promise<void> {
  const path = `main/binary-amd64/Packages.${compression === "gzip" ? "gz" : "xz"}`;
  const { sha256, size } = await writeCompressed(join(root, "dists/stable", path), stanzas, compression);
  writeFileSync(
    join(root, "dists/stable/Release"),
    `Origin: hostile
Suite: stable
Codename: stable
Components: main
Architectures: amd64
SHA256:
 ${sha256} ${size} ${path}
`,
  );
}

/** A primary.xml <package> of `name` at `version`. */
export function primaryPackage(name: string, version: string): string {
  return `<package type="rpm"><name>${name}</name><arch>noarch</arch><version epoch="0" ver="${version}" rel="1"/><checksum type="sha256" pkgid="YES">${"cd".repeat(32)}</checksum><summary>${name}</summary><location href="Packages/${name}-${version}-1.noarch.rpm"/><size package="1024" installed="1" archive="1"/></package>\n`;
}

/**
 * Writes repodata/repomd.xml and a gzip primary.xml holding `packages` under `root`; `openSize`
 * is the decompressed size repomd.xml states, if any.
 */
export async function writeHostileYumRepository(
  root: string,
  packages: Iterable<string>,
  options: { openSize?: number } = {},
): Promise<void> {
  const primary = await writeCompressed(
    join(root, "repodata/primary.xml.gz"),
    (function* () {
      yield `<?xml version="1.0" encoding="UTF-8"?>\n<metadata xmlns="http://linux.duke.edu/metadata/common" xmlns:rpm="http://linux.duke.edu/metadata/rpm">\n`;
      yield* packages;
      yield "</metadata>\n";
    })(),
    "gzip",
  );
  writeFileSync(
    join(root, "repodata/repomd.xml"),
    `<?xml version="1.0" encoding="UTF-8"?>
<repomd xmlns="http://linux.duke.edu/metadata/repo" xmlns:rpm="http://linux.duke.edu/metadata/rpm">
  <revision>1</revision>
  <data type="primary">
    <checksum type="sha256">${primary.sha256}</checksum>
    <location href="repodata/primary.xml.gz"/>
    <size>${primary.size}</size>${options.openSize === undefined ? "" : `\n    <open-size>${options.openSize}</open-size>`}
  </data>
</repomd>
`,
  );
}

/** `count` times `make(i)`, generated as they are read. */
export function* repeated(count: number, make: (i: number) => string): Generator<string> {
  for (let i = 0; i < count; i++) yield make(i);
}
