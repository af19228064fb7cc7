// The APT side of the end-to-end publish (b): poll dists/stable/InRelease until it names a new
// main/binary-amd64/Packages, then fetch that index by hash and check it lists the package. The
// index is fetched as apt fetches it — compressed (Packages.gz), inflated here — so the server
// does between samples what it does for a client, not a 60 MB inflation at 50,000 packages that
// no client asks for (whose garbage the next sample would collect).
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import type { FloorInput } from "../../lib/floor.ts";
import type { EntryProbe, PackyardServer } from "../../lib/packyard.ts";

export const aptEntry: EntryProbe = {
  entry: "deb/dists/stable/InRelease",
  fingerprint: packagesHash,
  async verify(server, inRelease, deb) {
    const packages = Buffer.from(await packagesOf(server, inRelease)).toString("utf8");
    if (!packages.includes(`\nPackage: ${deb.name}\n`) && !packages.startsWith(`Package: ${deb.name}\n`)) {
      throw new Error(`the new InRelease's Packages does not list ${deb.name}`);
    }
  },
};

/** The SHA256 of main/binary-amd64/Packages listed in an InRelease. */
export function packagesHash(inRelease: string): string {
  const match = /^ ([0-9a-f]{64}) +\d+ main\/binary-amd64\/Packages$/m.exec(inRelease);
  if (!match) throw new Error("InRelease lists no main/binary-amd64/Packages");
  return match[1]!;
}

/** main/binary-amd64/Packages of an InRelease: its .gz fetched by hash and inflated, checked against the listed SHA256. */
async function packagesOf(server: PackyardServer, inRelease: string): Promise<Uint8Array> {
  const gz = listedHash(inRelease, "main/binary-amd64/Packages.gz");
  if (!gz) throw new Error("InRelease lists no main/binary-amd64/Packages.gz");
  const res = await server.download(`deb/dists/stable/main/binary-amd64/by-hash/SHA256/${gz}`);
  if (res.status !== 200) throw new Error(`Packages.gz by hash: ${res.status}`);
  const packages = gunzipSync(Buffer.from(await res.arrayBuffer()));
  if (createHash("sha256").update(packages).digest("hex") !== packagesHash(inRelease))
    throw new Error("the inflated Packages.gz is not the Packages InRelease lists");
  return packages;
}

/** The SHA256 of an index file listed in an InRelease (relative to dists/stable/), if listed. */
function listedHash(inRelease: string, path: string): string | undefined {
  const sha256 = inRelease.slice(inRelease.indexOf("\nSHA256:"));
  const escaped = path.replace(/[.]/g, "\\.");
  return new RegExp(`^ ([0-9a-f]{64}) +\\d+ ${escaped}$`, "m").exec(sha256)?.[1];
}

/**
 * What the publish just measured produced anew, for its floor (bench/lib/floor.ts): the
 * uncompressed Packages of main/binary-amd64 (its .gz inflated here), its .gz and .xz (fetched by hash, so all of one
 * generation) and Release; each hashed with SHA256 and SHA512, as Release lists them.
 */
export async function aptFloorInput(server: PackyardServer): Promise<FloorInput> {
  const get = async (path: string) => {
    const res = await server.download(path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
  const inRelease = await get("deb/dists/stable/InRelease").then((b) => Buffer.from(b).toString("utf8"));
  const release = inRelease.slice(
    inRelease.indexOf("\n\n") + 2,
    inRelease.indexOf("\n-----BEGIN PGP SIGNATURE"),
  );
  const algorithms = ["sha256", "sha512"] as const;
  const hashed: FloorInput["hashed"] = [];
  hashed.push({ path: "main/binary-amd64/Packages", bytes: await packagesOf(server, inRelease), algorithms });
  for (const path of ["main/binary-amd64/Packages.gz", "main/binary-amd64/Packages.xz"]) {
    const hash = listedHash(inRelease, path);
    if (!hash) continue;
    hashed.push({
      path,
      bytes: await get(`deb/dists/stable/main/binary-amd64/by-hash/SHA256/${hash}`),
      algorithms,
    });
  }
  hashed.push({ path: "Release", bytes: Buffer.from(`${release}\n`), algorithms });
  return { hashed, entry: `${release}\n`, signatures: "cleartext+detached" };
}
