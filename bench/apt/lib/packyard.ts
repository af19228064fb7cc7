// The APT side of the end-to-end publish (b): poll dists/stable/InRelease until it names a new
// main/binary-amd64/Packages, then fetch that Packages by hash and check it lists the package.
import type { EntryProbe } from "../../lib/packyard.ts";

export const aptEntry: EntryProbe = {
  entry: "deb/dists/stable/InRelease",
  fingerprint: packagesHash,
  async verify(server, inRelease, deb) {
    const packages = await server
      .download(`deb/dists/stable/main/binary-amd64/by-hash/SHA256/${packagesHash(inRelease)}`)
      .then((r) => r.text());
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
